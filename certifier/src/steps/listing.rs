//! Reading the tender list page by page, and what a page must hold.
use cucumber::{then, when};
use reqwest::{Method, Url};
use serde_json::Value;
use time::Duration;

use crate::{
    checks::{self, ensure},
    exchange::timestamps,
    world::{Actor, Payload, TenderWorld},
};

/// At most this many pages are followed, so a busy shared target cannot keep a scenario forever.
const MAX_PAGES: usize = 100;

/// `/api/2.3/tenders?…` with every parameter URL-encoded.
fn list_path(params: &[(String, String)]) -> Result<String, String> {
    let url = Url::parse_with_params("http://target/api/2.3/tenders", params)
        .map_err(|e| e.to_string())?;
    Ok(match url.query() {
        Some(q) if !q.is_empty() => format!("{}?{q}", url.path()),
        _ => url.path().to_owned(),
    })
}

/// `k=v&k2=v2` as written in a feature.
fn parse_params(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

/// An offset just before the scenario's first tender was created: before its `dateModified`,
/// and before the target's own time then (a target whose brokers have clocks of their own
/// orders its listing by the latter).
fn creation_offset(w: &TenderWorld) -> Result<String, String> {
    let mut first = w.listed_from;
    for created in &w.created {
        let at = created.data["dateModified"]
            .as_str()
            .or_else(|| created.data["date"].as_str())
            .and_then(timestamps::parse)
            .ok_or("the created tender has no dateModified")?;
        first = Some(first.map_or(at, |f: time::OffsetDateTime| f.min(at)));
    }
    let first = first.ok_or("harness: no tender was created")?;
    Ok(timestamps::format(first - Duration::seconds(1)))
}

async fn list(w: &mut TenderWorld, params: Vec<(String, String)>) -> Result<(), String> {
    if let Some((_, offset)) = params.iter().find(|(k, _)| k == "offset") {
        w.noted
            .insert("requested offset".into(), Value::from(offset.clone()));
    }
    let path = list_path(&params)?;
    w.send(Actor::Anonymous, Method::GET, &path, Payload::None)
        .await?;
    w.listed = w.data().as_array().cloned().unwrap_or_default();
    Ok(())
}

/// Whether the target bounds a page by `limit`, tried on the rows since the scenario's tenders
/// were created (more than `limit` of them).
pub(crate) async fn takes_limit(w: &mut TenderWorld, limit: usize) -> Result<bool, String> {
    let params = [
        ("offset".to_owned(), creation_offset(w)?),
        ("limit".to_owned(), limit.to_string()),
    ];
    let path = list_path(&params)?;
    w.send(Actor::Anonymous, Method::GET, &path, Payload::None)
        .await?;
    Ok(w.status()? == 200 && w.data().as_array().is_some_and(|rows| rows.len() <= limit))
}

#[when("an anonymous client lists the tenders")]
async fn lists(w: &mut TenderWorld) -> Result<(), String> {
    list(w, Vec::new()).await
}

#[when(expr = "an anonymous client lists the tenders with {string}")]
async fn lists_with(w: &mut TenderWorld, params: String) -> Result<(), String> {
    list(w, parse_params(&params)).await
}

#[when(
    regex = r#"^an anonymous client lists the tenders from the tender's creation(?: with "([^"]*)")?$"#
)]
async fn lists_from_creation(w: &mut TenderWorld, extra: String) -> Result<(), String> {
    let mut params = vec![("offset".to_owned(), creation_offset(w)?)];
    params.extend(parse_params(&extra));
    list(w, params).await
}

#[when(
    regex = r"^an anonymous client lists the tenders from a far future offset( written without microseconds)?$"
)]
async fn lists_from_future(w: &mut TenderWorld, coarse: String) -> Result<(), String> {
    let far = w.now().await? + Duration::days(3650);
    let offset = if coarse.is_empty() {
        timestamps::format(far)
    } else {
        // Milliseconds and `Z`: a timestamp, though not in the service's output form.
        let utc = far.to_offset(time::UtcOffset::UTC);
        format!(
            "{}.{:03}Z",
            timestamps::format_naive(utc),
            utc.millisecond()
        )
    };
    list(w, vec![("offset".into(), offset)]).await
}

#[then("the next page offset is empty or a timestamp with an offset and microseconds")]
async fn offset_output_form(w: &mut TenderWorld) -> Result<(), String> {
    let offset = checks::as_text(&w.body["next_page"]["offset"]);
    ensure(
        offset.is_empty() || timestamps::has_output_form(&offset),
        || {
            checks::breach(
                "conv-6",
                format!("next_page.offset {offset:?} is neither empty nor in the output form"),
            )
        },
    )
}

#[when(
    regex = r#"^an anonymous client pages through the tender list from the tenders?(?:'s|') creation(?: with "([^"]*)")?$"#
)]
async fn pages_from_creation(w: &mut TenderWorld, extra: String) -> Result<(), String> {
    let mut extra = parse_params(&extra);
    if let Some(limit) = w.noted.get("page limit") {
        extra.push(("limit".into(), checks::as_text(limit)));
    }
    let offset = creation_offset(w)?;
    w.listed = page_through(w, Actor::Anonymous, offset, &extra, MAX_PAGES).await?;
    Ok(())
}

/// Pages through the tender list as `actor` from `offset` (each page asked with `extra` too)
/// until a page is empty or names no new offset, reading at most `max_pages`; the rows in order.
pub(super) async fn page_through(
    w: &mut TenderWorld,
    actor: Actor,
    mut offset: String,
    extra: &[(String, String)],
    max_pages: usize,
) -> Result<Vec<Value>, String> {
    let mut rows = Vec::new();
    for _ in 0..max_pages {
        let mut params = vec![("offset".to_owned(), offset.clone())];
        params.extend(extra.iter().cloned());
        let path = list_path(&params)?;
        w.read("listing the tenders", actor, &path).await?;
        let page = w.data_list("the listing's data")?.clone();
        if page.is_empty() {
            break;
        }
        rows.extend(page);
        let next = checks::as_text(&w.body["next_page"]["offset"]);
        if next.is_empty() || next == offset {
            break;
        }
        offset = next;
    }
    Ok(rows)
}

#[when("the anonymous client follows the next page")]
async fn follows_next_page(w: &mut TenderWorld) -> Result<(), String> {
    let uri = checks::as_text(&w.body["next_page"]["uri"]);
    if uri.is_empty() {
        return Err("the page has no next_page.uri".into());
    }
    w.send(Actor::Anonymous, Method::GET, &uri, Payload::None)
        .await?;
    w.listed = w.data().as_array().cloned().unwrap_or_default();
    Ok(())
}

fn listed_row(w: &TenderWorld) -> Result<Option<&Value>, String> {
    let id = w.tender()?.id.clone();
    Ok(w.listed.iter().find(|row| row["id"] == id.as_str()))
}

/// The most pages read from the list's start for a tender the pages from its creation did not
/// show.
const MAX_PAGES_FROM_START: usize = 1000;

#[then("the tender is listed")]
async fn is_listed(w: &mut TenderWorld) -> Result<(), String> {
    if listed_row(w)?.is_some() {
        return Ok(());
    }
    // The spec does not say how `offset` orders the list: before failing, the whole list is
    // paged from its start, each page from the offset the one before named.
    let from_creation = w.listed.len();
    let rows = page_from_start(w, MAX_PAGES_FROM_START).await?;
    let id = w.tender()?.id.clone();
    ensure(rows.iter().any(|row| row["id"] == id.as_str()), || {
        format!(
            "the tender is not among the {from_creation} rows listed from its creation, nor among the {} rows of the whole list",
            rows.len()
        )
    })
}

/// The list from its start: the first page asked without an offset, each later one from the
/// offset the page before named, until a page is empty or names no new offset.
async fn page_from_start(w: &mut TenderWorld, max_pages: usize) -> Result<Vec<Value>, String> {
    w.read("listing the tenders", Actor::Anonymous, "/api/2.3/tenders")
        .await?;
    let mut rows = w.data_list("the listing's data")?.clone();
    let offset = checks::as_text(&w.body["next_page"]["offset"]);
    if !rows.is_empty() && !offset.is_empty() {
        rows.extend(page_through(w, Actor::Anonymous, offset, &[], max_pages).await?);
    }
    Ok(rows)
}

#[then("the tender is not listed")]
async fn is_not_listed(w: &mut TenderWorld) -> Result<(), String> {
    match listed_row(w)? {
        None => Ok(()),
        Some(row) => Err(format!("the tender is listed: {row}")),
    }
}

#[then("the tender is listed with its dateModified")]
async fn is_listed_with_date(w: &mut TenderWorld) -> Result<(), String> {
    let expected = w.tender_field("/dateModified")?;
    let row = listed_row(w)?
        .ok_or_else(|| format!("the tender is not among the {} listed rows", w.listed.len()))?;
    let instant = |v: &Value| v.as_str().and_then(timestamps::parse);
    let same = row["dateModified"] == expected
        || instant(&row["dateModified"]).is_some_and(|at| Some(at) == instant(&expected));
    ensure(same, || {
        format!(
            "listed with dateModified {}, the tender has {expected}",
            row["dateModified"]
        )
    })
}

#[then("the next page offers its path, uri and offset")]
async fn next_page_shape(w: &mut TenderWorld) -> Result<(), String> {
    let next = &w.body["next_page"];
    for key in ["path", "uri", "offset"] {
        if !next[key].is_string() {
            return Err(format!("next_page.{key} is not a string: {next}"));
        }
    }
    Ok(())
}

#[then("the next page offset is empty exactly when the page is empty")]
async fn offset_empty_iff_page_empty(w: &mut TenderWorld) -> Result<(), String> {
    let offset = checks::as_text(&w.body["next_page"]["offset"]);
    let empty = w.data().as_array().is_some_and(Vec::is_empty);
    match (empty, offset.is_empty()) {
        (true, true) => Ok(()),
        (false, false) => timestamps::parse(&offset)
            .map(drop)
            .ok_or_else(|| format!("next_page.offset {offset:?} is not a timestamp")),
        (true, false) => Err(format!(
            "the page is empty but next_page.offset is {offset:?}"
        )),
        (false, true) => Err("the page has rows but next_page.offset is empty".into()),
    }
}

/// The value of `offset` in a URL-encoded query.
fn offset_in(url: &Url) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == "offset")
        .map(|(_, v)| v.into_owned())
}

#[then("the next page offset is a timestamp held URL-encoded by its path and uri")]
async fn offset_encoded(w: &mut TenderWorld) -> Result<(), String> {
    let next = w.body["next_page"].clone();
    let offset = checks::as_text(&next["offset"]);
    timestamps::parse(&offset)
        .ok_or_else(|| format!("next_page.offset {offset:?} is not a timestamp"))?;
    let uri_text = checks::as_text(&next["uri"]);
    let path_text = checks::as_text(&next["path"]);
    let uri = Url::parse(&uri_text).map_err(|e| format!("next_page.uri {uri_text:?}: {e}"))?;
    let path = Url::parse("http://target/")
        .and_then(|base| base.join(&path_text))
        .map_err(|e| format!("next_page.path {path_text:?}: {e}"))?;
    for (name, url, raw) in [("uri", &uri, &uri_text), ("path", &path, &path_text)] {
        if offset_in(url).as_deref() != Some(offset.as_str()) {
            return Err(format!(
                "next_page.{name} {raw:?} does not hold the offset {offset:?}"
            ));
        }
        if offset.contains('+') && !raw.contains("%2B") && !raw.contains("%2b") {
            return Err(format!(
                "next_page.{name} {raw:?} does not URL-encode the '+' of the offset"
            ));
        }
    }
    Ok(())
}

#[then("the next page offset is the requested one")]
async fn offset_repeated(w: &mut TenderWorld) -> Result<(), String> {
    let requested = w.recall_text("requested offset")?;
    let offset = checks::as_text(&w.body["next_page"]["offset"]);
    let same = offset == requested
        || matches!((timestamps::parse(&offset), timestamps::parse(&requested)), (Some(a), Some(b)) if a == b);
    ensure(same, || {
        format!("next_page.offset is {offset:?}, the request asked for {requested:?}")
    })
}

#[then("the page is empty")]
async fn page_empty(w: &mut TenderWorld) -> Result<(), String> {
    match w.data().as_array() {
        Some(rows) if rows.is_empty() => Ok(()),
        Some(rows) => Err(format!("the page holds {} rows", rows.len())),
        None => Err("the listing's data is not a list".into()),
    }
}

#[then(expr = "the page holds at most {int} tender(s)")]
async fn page_at_most(w: &mut TenderWorld, limit: usize) -> Result<(), String> {
    let rows = w.data_list("the listing's data")?;
    ensure(rows.len() <= limit, || {
        format!("the page holds {} rows", rows.len())
    })
}

#[then(regex = r"^the rows are in (ascending|descending) order of dateModified$")]
async fn rows_ordered(w: &mut TenderWorld, order: String) -> Result<(), String> {
    let rows = w.data_list("the listing's data")?;
    // Where each broker (or each test clock) has a clock of its own, the listing follows the
    // order of the changes and each record shows its own clock's time: only the scenario's own
    // tenders (all on one clock) are held to the order of their dateModified.
    let target = w.target()?;
    let own = target.own_clock.is_some() || target.test_clocks.is_some();
    let ours = |row: &&Value| !own || w.created.iter().any(|c| row["id"] == c.id.as_str());
    let rows: Vec<&Value> = rows.iter().filter(ours).collect();
    let dates: Vec<_> = rows
        .iter()
        .map(|r| r["dateModified"].as_str().and_then(timestamps::parse))
        .collect::<Option<_>>()
        .ok_or("a row has no dateModified timestamp")?;
    let ordered = dates.windows(2).all(|pair| match order.as_str() {
        "ascending" => pair[0] <= pair[1],
        _ => pair[0] >= pair[1],
    });
    ensure(ordered, || {
        format!(
            "the {} rows are not in {order} order of dateModified",
            rows.len()
        )
    })
}

#[then("every row shows its status")]
async fn rows_show_status(w: &mut TenderWorld) -> Result<(), String> {
    let rows = w.data_list("the listing's data")?;
    if rows.is_empty() {
        return Err("the page is empty".into());
    }
    match rows.iter().find(|r| !r["status"].is_string()) {
        None => Ok(()),
        Some(row) => Err(format!("a row has no status: {row}")),
    }
}

/// How often each of the scenario's tenders is listed, in the order they were created.
fn times_listed(w: &TenderWorld) -> Vec<(&crate::world::Record, usize)> {
    w.created
        .iter()
        .map(|t| {
            let times = w.listed.iter().filter(|r| r["id"] == t.id.as_str()).count();
            (t, times)
        })
        .collect()
}

/// The spec says a published tender is in the list; that paging shows each once is upstream's.
#[then(regex = r"^every tender the owner published is listed (exactly|at least) once$")]
async fn published_listed_once(w: &mut TenderWorld, how: String) -> Result<(), String> {
    let exactly = how == "exactly";
    let wrong: Vec<String> = times_listed(w)
        .into_iter()
        .filter(|(t, times)| {
            t.data["status"] != "draft" && (*times == 0 || (exactly && *times != 1))
        })
        .map(|(t, times)| format!("{} listed {times} times", t.id))
        .collect();
    ensure(wrong.is_empty(), || {
        format!(
            "of {} published tenders, over {} rows: {}",
            w.created.len(),
            w.listed.len(),
            wrong.join(", ")
        )
    })
}

#[then("no draft the owner created is listed")]
async fn no_draft_listed(w: &mut TenderWorld) -> Result<(), String> {
    let drafts = times_listed(w)
        .into_iter()
        .filter(|(t, _)| t.data["status"] == "draft");
    let mut seen = 0;
    for (draft, times) in drafts {
        seen += 1;
        if times > 0 {
            return Err(format!("the draft {} is listed {times} times", draft.id));
        }
    }
    if seen == 0 {
        return Err("harness: the scenario created no draft".into());
    }
    Ok(())
}
