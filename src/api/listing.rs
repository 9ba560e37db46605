//! `GET /tenders` and `GET /contracts`: the feeds of published tenders and of contracts under
//! management, in the order the server changed them: by `dateModified`, which for a record on
//! a broker's own clock is that clock's time while its row keeps the server's moment.
//!
//! Paging follows upstream: `offset` is the moment of the last row (its `dateModified`, or the
//! server's moment for a record on a broker's own clock; the row equal to it is skipped),
//! an empty page repeats the request's offset, and `next_page`/`prev_page` carry every
//! recognised parameter. The repeated offset is written in the output form (server zone,
//! microseconds), as the spec types it; an offset that is no timestamp is ignored, as
//! upstream's default feed accepted any string, so it lists from the start. Unlike upstream the
//! listing is immediately consistent and, by the project's decision, the default mode lists
//! test-mode records too. The fields clients page by (`opt_fields`) are read beside each row
//! of the index (`store::ListedFields`); others from the record.

use crate::domain::views;
use crate::http::error::{ApiError, Handled, write_json};
use crate::http::reply::wants_pretty;
use crate::http::{API_PREFIX, App, app};
use crate::store::{CONTRACT_FIELDS, ListedFields, ModeFilter, Page, PageRequest, TENDER_FIELDS};
use salvo::http::StatusCode;
use salvo::prelude::*;
use serde::Serialize;
use serde_json::Value as Json;

const DEFAULT_LIMIT: usize = 100;
const MAX_LIMIT: usize = 1000;
const MAX_LIMIT_WITH_FIELDS: usize = 100;
/// Parameters repeated in `next_page` and `prev_page`, in this order.
const CARRIED: [&str; 4] = ["opt_fields", "limit", "feed", "mode"];

fn query(req: &Request, name: &str) -> Option<String> {
    req.query::<String>(name).filter(|v| !v.is_empty())
}

#[derive(Serialize)]
struct Link {
    offset: String,
    path: String,
    uri: String,
}

/// A page address carrying the recognised parameters and a new offset.
fn page_link(req: &Request, base: &str, feed: &Feed, offset: &str, descending: bool) -> Link {
    let mut params = form_urlencoded::Serializer::new(String::new());
    for name in CARRIED {
        if let Some(v) = query(req, name) {
            params.append_pair(name, &v);
        }
    }
    if descending {
        params.append_pair("descending", "1");
    }
    params.append_pair("offset", offset);
    let path = format!("{API_PREFIX}/{}?{}", feed.path, params.finish());
    Link {
        offset: offset.to_string(),
        uri: format!("{base}{path}"),
        path,
    }
}

/// Appends `value` as compact JSON.
fn push_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    // Writing to a Vec fails only for a value that cannot be serialised; none here can.
    let _ = serde_json::to_writer(&mut *out, value);
}

/// A page as compact JSON text: `next_page`, `data` (each row's id, `dateModified` and its
/// requested fields), `prev_page`. Written from text, since each row's fields come as JSON
/// text, from the listing index or from the tender.
fn page_text(next_page: &Link, rows: &[Row<'_>], prev_page: Option<&Link>) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 + rows.len() * 96);
    out.extend_from_slice(b"{\"next_page\":");
    push_json(&mut out, next_page);
    out.extend_from_slice(b",\"data\":[");
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"id\":");
        push_json(&mut out, row.id);
        out.extend_from_slice(b",\"dateModified\":");
        push_json(&mut out, row.date_modified);
        for (name, value) in &row.fields {
            out.push(b',');
            push_json(&mut out, *name);
            out.push(b':');
            out.extend_from_slice(value.text());
        }
        out.push(b'}');
    }
    out.push(b']');
    if let Some(prev) = prev_page {
        out.extend_from_slice(b",\"prev_page\":");
        push_json(&mut out, prev);
    }
    out.push(b'}');
    out
}

/// A row of a page: the tender's id, its `dateModified` and the requested fields it has.
struct Row<'a> {
    id: &'a str,
    date_modified: &'a str,
    fields: Vec<(&'a str, Field<'a>)>,
}

/// A requested field's JSON text: held in the listing index, or read from the tender.
enum Field<'a> {
    Listed(&'a [u8]),
    Read(String),
}

impl Field<'_> {
    fn text(&self) -> &[u8] {
        match self {
            Field::Listed(text) => text,
            Field::Read(text) => text.as_bytes(),
        }
    }
}

/// One kind of record's feed: its path, the fields its index holds, its pages and the
/// fields of a record the index does not hold (each asked for, `None` where it has none).
struct Feed {
    path: &'static str,
    listed: &'static [&'static str],
    page: fn(&App, &PageRequest) -> Page,
    read: fn(&App, &str, &[&str]) -> Vec<Option<String>>,
}

const TENDERS: Feed = Feed {
    path: "tenders",
    listed: &TENDER_FIELDS,
    page: |app, request| app.store.page(request),
    read: |app, id, fields| {
        let pick = |t: &_| fields.iter().map(|f| views::field(t, f)).collect();
        app.store.read(id, pick).unwrap_or_default()
    },
};

const CONTRACTS: Feed = Feed {
    path: "contracts",
    listed: &CONTRACT_FIELDS,
    page: |app, request| app.store.contract_page(request),
    read: |app, id, fields| {
        let pick = |c: &_| crate::contracting::managed::fields(c, fields);
        app.store.read_contract(id, pick).unwrap_or_default()
    },
};

#[handler]
pub async fn list(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    serve(req, depot, res, &TENDERS)
}

#[handler]
pub async fn contracts(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    serve(req, depot, res, &CONTRACTS)
}

fn serve(req: &Request, depot: &Depot, res: &mut Response, feed: &Feed) -> Handled {
    let app = app(depot)?;
    let offset_text = query(req, "offset");
    let offset = offset_text.as_deref().and_then(|o| app.zone.parse(o));
    if offset_text.is_some() && offset.is_none() && query(req, "feed").as_deref() == Some("changes")
    {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "params",
            "offset",
            "Offset expired/invalid",
        ));
    }
    let fields_text = query(req, "opt_fields").unwrap_or_default();
    // Each field once, in the order first asked for.
    let mut fields: Vec<&str> = Vec::new();
    for f in fields_text.split(',').map(str::trim) {
        if !f.is_empty() && f != "id" && f != "dateModified" && !fields.contains(&f) {
            fields.push(f);
        }
    }
    let max = if fields.is_empty() {
        MAX_LIMIT
    } else {
        MAX_LIMIT_WITH_FIELDS
    };
    let limit = query(req, "limit")
        .filter(|l| l.chars().all(|c| c.is_ascii_digit()))
        .and_then(|l| l.parse::<usize>().ok())
        .filter(|l| *l > 0 && *l <= max)
        .unwrap_or(DEFAULT_LIMIT);
    let descending = query(req, "descending").is_some();
    let modes = match query(req, "mode").as_deref() {
        Some("test") => ModeFilter::Test,
        _ => ModeFilter::All,
    };
    // Where each requested field stands among the listed fields asked for, if it is one.
    let mut listed = Vec::new();
    let slots: Vec<Option<usize>> = fields
        .iter()
        .map(|f| {
            listed.push(ListedFields::position(feed.listed, f)?);
            Some(listed.len() - 1)
        })
        .collect();
    let page = (feed.page)(
        &app,
        &PageRequest {
            offset,
            limit,
            descending,
            modes,
            listed,
        },
    );
    let rows = &page.rows;

    let data: Vec<Row<'_>> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            // The tender itself is read only for fields the index does not hold: one entry
            // per requested field, `None` for those held or absent.
            let read: Vec<Option<String>> = if slots.iter().all(Option::is_some) {
                Vec::new()
            } else {
                let unheld: Vec<&str> = fields
                    .iter()
                    .zip(&slots)
                    .map(|(f, slot)| if slot.is_none() { *f } else { "" })
                    .collect();
                (feed.read)(&app, row.id(), &unheld)
            };
            let mut read = read.into_iter();
            let picked = fields
                .iter()
                .zip(&slots)
                .filter_map(|(f, slot)| {
                    let from_tender = read.next().flatten();
                    match slot {
                        Some(j) => page.listed(i, *j).map(|t| (*f, Field::Listed(t))),
                        None => from_tender.map(|v| (*f, Field::Read(v))),
                    }
                })
                .collect();
            Row {
                id: row.id(),
                date_modified: row.date_modified(),
                fields: picked,
            }
        })
        .collect();

    let base = app.base_url(req);
    let echoed = offset.map(|t| t.to_string()).unwrap_or_default();
    let next_offset = rows
        .last()
        .map_or_else(|| echoed.clone(), |r| r.key(&app.zone).to_string());
    let prev_page = (offset_text.is_some() || descending).then(|| {
        let prev_offset = rows
            .first()
            .map_or_else(|| echoed.clone(), |r| r.key(&app.zone).to_string());
        page_link(req, &base, feed, &prev_offset, !descending)
    });
    let next_page = page_link(req, &base, feed, &next_offset, descending);
    let text = page_text(&next_page, &data, prev_page.as_ref());
    let body = if wants_pretty(req) {
        let value: Json = serde_json::from_slice(&text).unwrap_or_default();
        crate::http::reply::to_text(&value, true)
    } else {
        text
    };
    write_json(res, StatusCode::OK, body);
    Ok(())
}
