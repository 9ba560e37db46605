//! `GET /tenders`: the feed of published tenders, ordered by `dateModified`.
//!
//! Paging follows upstream: `offset` is a `dateModified` (the row equal to it is skipped),
//! an empty page repeats the request's offset, and `next_page`/`prev_page` carry every
//! recognised parameter. Unlike upstream the listing is immediately consistent and, by the
//! project's decision, the default mode lists test-mode tenders too.

use super::error::ApiError;
use super::{API_PREFIX, app, reply};
use crate::domain::tender::Tender;
use crate::domain::views;
use crate::store::{ModeFilter, PageRequest};
use salvo::http::StatusCode;
use salvo::prelude::*;
use serde_json::{Map, Value as Json, json};

const DEFAULT_LIMIT: usize = 100;
const MAX_LIMIT: usize = 1000;
const MAX_LIMIT_WITH_FIELDS: usize = 100;
/// Parameters repeated in `next_page` and `prev_page`, in this order.
const CARRIED: [&str; 5] = ["opt_fields", "limit", "descending", "feed", "mode"];

fn query(req: &Request, name: &str) -> Option<String> {
    req.query::<String>(name).filter(|v| !v.is_empty())
}

/// A page address carrying the recognised parameters and a new offset.
fn page_link(req: &Request, base: &str, offset: &str, descending: Option<bool>) -> Json {
    let mut params = form_urlencoded::Serializer::new(String::new());
    for name in CARRIED {
        if name == "descending" {
            continue;
        }
        if let Some(v) = query(req, name) {
            params.append_pair(name, &v);
        }
    }
    if descending.unwrap_or_else(|| query(req, "descending").is_some()) {
        params.append_pair("descending", "1");
    }
    params.append_pair("offset", offset);
    let path = format!("{API_PREFIX}/tenders?{}", params.finish());
    json!({"offset": offset, "path": path, "uri": format!("{base}{path}")})
}

/// Extra fields of a row: cheap ones straight from the record, others from its public view.
fn row_fields(t: &Tender, fields: &[&str], row: &mut Map<String, Json>) {
    let mut full: Option<Json> = None;
    for field in fields {
        let value = match *field {
            "status" => json!(t.status),
            "tenderID" => json!(t.tender_id),
            "procurementMethodType" => json!(t.procurement_method_type),
            "next_check" => json!(t.next_check),
            "auctionPeriod" => serde_json::to_value(&t.auction_period).unwrap_or_default(),
            other => full
                .get_or_insert_with(|| views::tender(t))
                .get(other)
                .cloned()
                .unwrap_or(Json::Null),
        };
        let empty = value.is_null() || value.as_object().is_some_and(Map::is_empty);
        if !empty {
            row.insert(field.to_string(), value);
        }
    }
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
    let fields: Vec<&str> = fields_text
        .split(',')
        .map(str::trim)
        .filter(|f| !f.is_empty() && *f != "id" && *f != "dateModified")
        .collect();
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
    let page = app.store.page(&PageRequest {
        offset,
        limit,
        descending,
        modes,
    });
    let mut data = Vec::with_capacity(page.rows.len());
    for row in &page.rows {
        let mut item = Map::new();
        item.insert("id".into(), json!(row.id));
        item.insert("dateModified".into(), json!(row.date_modified));
        if !fields.is_empty() {
            app.store
                .read(&row.id, |t| row_fields(t, &fields, &mut item));
        }
        data.push(Json::Object(item));
    }
    let base = app.base_url(req);
    let echoed = offset_text.clone().unwrap_or_default();
    let next_offset = page
        .rows
        .last()
        .map_or(echoed.clone(), |r| r.date_modified.to_string());
    let mut body = Map::new();
    body.insert(
        "next_page".into(),
        page_link(req, &base, &next_offset, None),
    );
    body.insert("data".into(), Json::Array(data));
    if offset_text.is_some() || descending {
        let prev_offset = page
            .rows
            .first()
            .map_or(echoed, |r| r.date_modified.to_string());
        body.insert(
            "prev_page".into(),
            page_link(req, &base, &prev_offset, Some(!descending)),
        );
    }
    let text = reply::to_text(&Json::Object(body), reply::wants_pretty(req));
    super::error::write_json(res, StatusCode::OK, text);
    Ok(())
}
