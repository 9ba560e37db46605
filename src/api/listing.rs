//! `GET /tenders`: the feed of published tenders, ordered by `dateModified`.
//!
//! Paging follows upstream: `offset` is a `dateModified` (the row equal to it is skipped),
//! an empty page repeats the request's offset, and `next_page`/`prev_page` carry every
//! recognised parameter. The repeated offset is written in the output form (server zone,
//! microseconds), as the spec types it; an offset that is no timestamp is ignored, as
//! upstream's default feed accepted any string, so it lists from the start. Unlike upstream the listing is immediately consistent and, by the
//! project's decision, the default mode lists test-mode tenders too.

use super::error::{ApiError, write_json};
use super::reply::wants_pretty;
use super::{API_PREFIX, app};
use crate::domain::views;
use crate::store::{ModeFilter, PageRequest};
use salvo::http::StatusCode;
use salvo::prelude::*;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value as Json;
use serde_json::value::RawValue;

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
fn page_link(req: &Request, base: &str, offset: &str, descending: bool) -> Link {
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
    let path = format!("{API_PREFIX}/tenders?{}", params.finish());
    Link {
        offset: offset.to_string(),
        uri: format!("{base}{path}"),
        path,
    }
}

/// A requested field's value: from the listing index as it was rendered, or read from the
/// tender for a field the index does not hold.
enum FieldValue<'a> {
    Listed(&'a RawValue),
    Read(Json),
}

impl Serialize for FieldValue<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            FieldValue::Listed(raw) => raw.serialize(serializer),
            FieldValue::Read(value) => value.serialize(serializer),
        }
    }
}

/// Requested fields of one tender, as its public view shows them.
struct Fields<'a>(Vec<(&'a str, FieldValue<'a>)>);

impl Serialize for Fields<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct Row<'a> {
    id: &'a str,
    #[serde(rename = "dateModified")]
    date_modified: &'a str,
    #[serde(flatten)]
    fields: Fields<'a>,
}

#[derive(Serialize)]
struct Listing<'a> {
    next_page: Link,
    data: Vec<Row<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prev_page: Option<Link>,
}

#[handler]
pub async fn list(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
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
    let rows = app
        .store
        .page(&PageRequest {
            offset,
            limit,
            descending,
            modes,
            fields: !fields.is_empty(),
        })
        .rows;

    let data: Vec<Row<'_>> = rows
        .iter()
        .map(|r| {
            let listed = r.fields.as_deref();
            let held = |f: &str| listed.and_then(|l| l.get(f));
            // The tender itself is read only for fields the index does not hold.
            let mut read: Vec<(&str, Json)> = if fields.iter().all(|f| held(f).is_some()) {
                Vec::new()
            } else {
                let pick = |t: &_| {
                    fields
                        .iter()
                        .filter(|f| held(f).is_none())
                        .filter_map(|f| views::field(t, f).map(|v| (*f, v)))
                        .collect()
                };
                app.store.read(r.row.id(), pick).unwrap_or_default()
            };
            let picked = fields
                .iter()
                .filter_map(|f| match held(f) {
                    Some(text) => text.map(|t| (*f, FieldValue::Listed(t))),
                    None => {
                        let i = read.iter().position(|(name, _)| name == f)?;
                        let (_, value) = read.swap_remove(i);
                        Some((*f, FieldValue::Read(value)))
                    }
                })
                .collect();
            Row {
                id: r.row.id(),
                date_modified: r.row.date_modified(),
                fields: Fields(picked),
            }
        })
        .collect();

    let base = app.base_url(req);
    let echoed = offset.map(|t| t.to_string()).unwrap_or_default();
    let next_offset = rows
        .last()
        .map_or_else(|| echoed.clone(), |r| r.row.date_modified().to_string());
    let prev_page = (offset_text.is_some() || descending).then(|| {
        let prev_offset = rows
            .first()
            .map_or_else(|| echoed.clone(), |r| r.row.date_modified().to_string());
        page_link(req, &base, &prev_offset, !descending)
    });
    let listing = Listing {
        next_page: page_link(req, &base, &next_offset, descending),
        data,
        prev_page,
    };
    write_json(
        res,
        StatusCode::OK,
        super::reply::to_text(&listing, wants_pretty(req)),
    );
    Ok(())
}
