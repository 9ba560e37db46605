//! The client's report: the spec's rules for clients, judged from a broker's exchanges. Each
//! rule quotes the spec; each finding names the exchanges (by request id) that break it. A
//! rule the log cannot show broken passes: no finding the spec does not support.

use super::exchange::Exchange;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// A repeat sooner than this after a failed answer was sent at once, not at an interval.
pub const INTERVAL_MICROS: i64 = 1_000_000;

/// One rule for clients and where the spec says it.
pub struct Rule {
    pub id: &'static str,
    pub title: &'static str,
    /// Where the spec says it: section and rule.
    pub spec: &'static str,
    /// The spec's words.
    pub words: &'static str,
}

pub const RULES: &[Rule] = &[
    Rule {
        id: "errors-1",
        title: "After a 5xx or a lost answer, read the object's state, then repeat at intervals",
        spec: "Errors, rule 1",
        words: "A 5xx response does not guarantee that the request was not carried out. The client \
                checks the state of the object (tender, bid, award and so on) and repeats the \
                request at intervals until it succeeds.",
    },
    Rule {
        id: "errors-3",
        title: "A creation repeated after a lost answer makes no published duplicate",
        spec: "Errors, rule 3",
        words: "A creation request repeated after a lost response can create a duplicate tender. \
                Removal of duplicates needs an administrator. The two-phase mechanism exists so \
                that only tenders that the client controls are published.",
    },
    Rule {
        id: "two-phase",
        title: "Tenders are created as drafts and published after (two-phase creation)",
        spec: "Endpoints, rule 1; Versioning, rule 2",
        words: "Creating a tender with a body whose status is `draft` and later publishing it \
                with a PATCH is the two-phase mechanism. Creating without a status is the \
                single-phase mechanism. Both are available, and the single-phase one is announced \
                to be turned off in a later release. / The single-phase tender creation is \
                retained next to the two-phase one and is announced as likely to be turned off in \
                a later release.",
    },
    Rule {
        id: "conventions-2",
        title: "Every body is {\"data\": …} sent as application/json",
        spec: "Conventions, rule 2",
        words: "Every request that has a body sends JSON of the form `{\"data\": <object>}` with \
                header `Content-Type: application/json`.",
    },
    Rule {
        id: "authentication-2",
        title: "A token only where a change or a private read needs it, and the right one",
        spec: "Authentication, rules 2 and 3",
        words: "Modifying or creating records under a tender, and reading a bid's private data, \
                needs the query parameter `acc_token`. […] The token returned with a bid creation \
                is the bid token. It is used for changes to the bid, its documents, and reading \
                it with `participationUrl`. / Listing tenders, and asking questions, need no \
                `acc_token`.",
    },
    Rule {
        id: "listing",
        title: "A listing is walked by the next_page it answers",
        spec: "Endpoints, GET /api/2.3/tenders",
        words: "200. `{next_page: {path: string, uri: string, offset: string}, data: [{id, \
                dateModified}]}`. `next_page.offset` is empty when the list is empty and \
                otherwise is a timestamp. Its `path` and `uri` hold the same offset URL-encoded.",
    },
];

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Finding {
    pub description: String,
    /// The exchanges it names, by request id, in their order.
    pub requests: Vec<String>,
}

/// A rule and what the log shows of it.
pub struct Judged {
    pub rule: &'static Rule,
    pub findings: Vec<Finding>,
}

/// Every rule, judged from `log` (one broker's exchanges, oldest first); `whole` says the
/// log holds everything since it began for the broker (nothing dropped past the bound).
pub fn judge(log: &[Arc<Exchange>], whole: bool) -> Vec<Judged> {
    RULES
        .iter()
        .map(|rule| Judged {
            rule,
            findings: match rule.id {
                "errors-1" => repeats(log),
                "errors-3" => duplicates(log),
                "two-phase" => single_phase(log),
                "conventions-2" => envelopes(log),
                "authentication-2" => tokens(log),
                "listing" => made_up_offsets(log, whole),
                _ => Vec::new(),
            },
        })
        .collect()
}

fn is_creation(e: &Exchange) -> bool {
    e.method == "POST" && e.path.trim_end_matches('/') == "/api/2.3/tenders"
}

/// The `data` of a request's body, when it decodes.
fn data(e: &Exchange) -> Option<Value> {
    Some(e.request.json()?.get("data")?.clone())
}

fn is_draft(e: &Exchange) -> bool {
    data(e).is_some_and(|d| d["status"] == "draft")
}

/// What a read must begin with to check the object of `write`: its record, or for a
/// creation the collection.
fn object_of(write: &Exchange) -> String {
    match write.touched() {
        Some(t) if !is_creation(write) => {
            let at = write.path.find(&t.id).map_or(0, |at| at + t.id.len());
            write.path[..at].to_string()
        }
        _ => write.path.trim_end_matches('/').to_string(),
    }
}

fn seconds(micros: i64) -> String {
    format!("{:.2} s", micros as f64 / 1e6)
}

fn answer(e: &Exchange) -> String {
    if e.lost {
        "whose answer was lost".to_string()
    } else {
        format!("answered {}", e.status)
    }
}

/// Errors 1: each failed write repeated without a read of its object in between, or sooner
/// than [`INTERVAL_MICROS`] after it. A draft's creation needs no read: its duplicate stays an
/// unpublished draft.
fn repeats(log: &[Arc<Exchange>]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (i, failed) in log.iter().enumerate() {
        if !failed.is_write() || !failed.failed() {
            continue;
        }
        let Some(offset) = log[i + 1..]
            .iter()
            .position(|e| e.method == failed.method && e.path == failed.path)
        else {
            continue;
        };
        let repeat = &log[i + 1 + offset];
        let object = object_of(failed);
        let read = log[i + 1..i + 1 + offset]
            .iter()
            .any(|e| e.is_read() && e.path.starts_with(&object));
        let after = repeat.at - (failed.at + failed.micros as i64);
        let needs_read = !(is_creation(failed) && is_draft(failed));
        let mut wrong = Vec::new();
        if needs_read && !read {
            wrong.push(format!("without reading {object} in between"));
        }
        if after < INTERVAL_MICROS {
            wrong.push(format!(
                "at once ({} after the answer)",
                seconds(after.max(0))
            ));
        }
        if wrong.is_empty() {
            continue;
        }
        findings.push(Finding {
            description: format!(
                "{} {} {} was repeated {}",
                failed.method,
                failed.path,
                answer(failed),
                wrong.join(" and ")
            ),
            requests: vec![failed.id.clone(), repeat.id.clone()],
        });
    }
    findings
}

/// What makes two creations the same tender, up to what a client may vary between tries
/// (dates, the status): its title, value, procuring entity and items.
fn identity(e: &Exchange) -> Option<Value> {
    let d = data(e)?;
    let items: Vec<Value> = d["items"]
        .as_array()
        .map(|items| items.iter().map(|i| i["description"].clone()).collect())
        .unwrap_or_default();
    Some(serde_json::json!([
        d["title"],
        d["value"]["amount"],
        d["procuringEntity"]["identifier"]["id"],
        items
    ]))
}

/// Errors 3: a published tender made by a creation whose answer failed, and made again by
/// its repeat.
fn duplicates(log: &[Arc<Exchange>]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (i, failed) in log.iter().enumerate() {
        if !is_creation(failed) || !failed.failed() || is_draft(failed) {
            continue;
        }
        let Some(first) = failed.touched() else {
            continue;
        };
        let Some(same) = identity(failed) else {
            continue;
        };
        let repeat = log[i + 1..].iter().find(|e| {
            is_creation(e)
                && !is_draft(e)
                && e.touched().is_some()
                && identity(e) == Some(same.clone())
        });
        let Some(repeat) = repeat else { continue };
        let Some(second) = repeat.touched() else {
            continue;
        };
        findings.push(Finding {
            description: format!(
                "POST /api/2.3/tenders {} had made tender {}; its repeat made tender {}, the same \
                 tender published twice (a duplicate only an administrator removes). Created as \
                 a draft and published after, the repeat would have left the first an \
                 unpublished draft instead",
                answer(failed),
                first.id,
                second.id
            ),
            requests: vec![failed.id.clone(), repeat.id.clone()],
        });
    }
    findings
}

/// Two-phase creation: every tender created in a status other than `draft`.
fn single_phase(log: &[Arc<Exchange>]) -> Vec<Finding> {
    let direct: Vec<String> = log
        .iter()
        .filter(|e| is_creation(e) && (e.status == 201 || e.location.is_some()) && !is_draft(e))
        .map(|e| e.id.clone())
        .collect();
    if direct.is_empty() {
        return Vec::new();
    }
    vec![Finding {
        description: format!(
            "{} tender(s) created without \"status\": \"draft\" (single-phase creation, to be \
             turned off): create a draft, then publish it with a PATCH of its status",
            direct.len()
        ),
        requests: direct,
    }]
}

/// Conventions 2: the 415s and the 422s for a body that is no `{"data": …}`.
fn envelopes(log: &[Arc<Exchange>]) -> Vec<Finding> {
    let mut media = Vec::new();
    let mut shape = Vec::new();
    for e in log {
        let first = e.response.json().and_then(|r| r["errors"].get(0).cloned());
        let named = |location: &str, name: &str| {
            first
                .as_ref()
                .is_some_and(|f| f["location"] == location && f["name"] == name)
        };
        if e.status == 415 && named("header", "Content-Type") {
            media.push(e.id.clone());
        } else if e.status == 422
            && named("body", "data")
            && first.as_ref().is_some_and(|f| {
                matches!(
                    f["description"].as_str(),
                    Some("No JSON object could be decoded" | "Data not available")
                )
            })
        {
            shape.push(e.id.clone());
        }
    }
    let mut findings = Vec::new();
    if !media.is_empty() {
        findings.push(Finding {
            description: format!(
                "{} request(s) sent a body without Content-Type: application/json (answered 415)",
                media.len()
            ),
            requests: media,
        });
    }
    if !shape.is_empty() {
        findings.push(Finding {
            description: format!(
                "{} request(s) sent a body that is not a JSON object with \"data\" (answered 422)",
                shape.len()
            ),
            requests: shape,
        });
    }
    findings
}

/// Authentication 2 and 3: tokens on public reads and on questions, and a tender's token
/// sent where its bid's was meant.
fn tokens(log: &[Arc<Exchange>]) -> Vec<Finding> {
    let mut public = Vec::new();
    let mut questions = Vec::new();
    let mut wrong = Vec::new();
    for e in log {
        let api = e.path.starts_with("/api/");
        if e.token_sent().is_none() {
            continue;
        }
        if e.tender_token_on_bid {
            wrong.push(e.id.clone());
        } else if api
            && e.is_read()
            && !e.path.contains("/bids/")
            && e.token_sent() == Some("acc_token")
        {
            public.push(e.id.clone());
        } else if api && e.method == "POST" && e.path.ends_with("/questions") {
            questions.push(e.id.clone());
        }
    }
    let mut findings = Vec::new();
    if !public.is_empty() {
        findings.push(Finding {
            description: format!(
                "{} public read(s) sent a token in the URL (acc_token), which no read but a \
                 bid's needs: a token in a URL ends up in proxies' logs",
                public.len()
            ),
            requests: public,
        });
    }
    if !questions.is_empty() {
        findings.push(Finding {
            description: format!(
                "{} question(s) asked with a token, which asking needs none of",
                questions.len()
            ),
            requests: questions,
        });
    }
    if !wrong.is_empty() {
        findings.push(Finding {
            description: format!(
                "{} request(s) to a bid sent its tender's token where the bid's token is meant \
                 (refused 403)",
                wrong.len()
            ),
            requests: wrong,
        });
    }
    findings
}

/// The `offset` values a listing's answer gave (its `next_page` and `prev_page`).
fn given_offsets(e: &Exchange) -> Vec<String> {
    let text = String::from_utf8_lossy(&e.response.bytes);
    let mut offsets = Vec::new();
    let mut rest = text.as_ref();
    while let Some(at) = rest.find("\"offset\":\"") {
        rest = &rest[at + 10..];
        if let Some(end) = rest.find('"') {
            offsets.push(rest[..end].to_string());
        }
    }
    offsets
}

fn offset_of(e: &Exchange) -> Option<String> {
    let query = e.query.as_deref()?;
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "offset")
        .map(|(_, v)| v.replace(' ', "+"))
        .filter(|v| !v.is_empty())
}

fn is_listing(e: &Exchange) -> bool {
    e.is_read()
        && matches!(
            e.path.trim_end_matches('/'),
            "/api/2.3/tenders" | "/api/2.3/contracts"
        )
}

/// The listing: an `offset` no earlier answer of the same listing gave. Judged once the log
/// shows the broker reading that listing before, or holds the broker's whole log.
fn made_up_offsets(log: &[Arc<Exchange>], whole: bool) -> Vec<Finding> {
    let mut made_up = Vec::new();
    for (i, e) in log.iter().enumerate() {
        if !is_listing(e) {
            continue;
        }
        let Some(offset) = offset_of(e) else {
            continue;
        };
        let earlier: Vec<&Arc<Exchange>> = log[..i]
            .iter()
            .filter(|p| is_listing(p) && p.path == e.path && p.status == 200)
            .collect();
        if earlier.is_empty() && !whole {
            continue;
        }
        if !earlier.iter().any(|p| given_offsets(p).contains(&offset)) {
            made_up.push(e.id.clone());
        }
    }
    if made_up.is_empty() {
        return Vec::new();
    }
    vec![Finding {
        description: format!(
            "{} listing page(s) asked for with an offset no earlier page gave: follow each \
             answer's next_page instead of making offsets up",
            made_up.len()
        ),
        requests: made_up,
    }]
}
