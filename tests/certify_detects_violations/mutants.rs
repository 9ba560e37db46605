//! The injected violations: one [`Mutant`] per broken statement of the spec, grouped by the
//! class of blind spot it probes, and the pieces they share.
use super::*;
use crate::proxy::{self, Answer, Endpoint, Memory, Req, Route};

// ---- shared pieces of the mutants ----

pub fn forward(_: &Memory, _: &mut Req) -> Route {
    Route::Forward
}

pub fn untouched(_: &Memory, _: &Req, _: &mut Answer) {}

/// Deep merge, as convention 10 states it.
fn merge(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

fn merged(req: &Req, mut read: Value) -> Option<Value> {
    merge(&mut read, &req.data());
    Some(read)
}

fn now() -> String {
    timestamps::format(time::OffsetDateTime::now_utc())
}

fn fresh_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let nanos = time::OffsetDateTime::now_utc().unix_timestamp_nanos() as u64;
    format!("{nanos:016x}{:016x}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Sends the request with the rightful token and credentials, whatever it presented.
fn as_rightful(m: &Memory, req: &mut Req) {
    if let Some(o) = m.rightful(req) {
        req.set_token(&o.token);
        req.set_header("authorization", o.auth);
    }
}

pub fn accept_any_on(endpoint: Endpoint, m: &Memory, req: &mut Req) -> Route {
    if req.endpoint() == endpoint {
        as_rightful(m, req);
    }
    Route::Forward
}

fn is_publication(req: &Req) -> bool {
    req.endpoint() == Endpoint::PatchTender && req.data()["status"] == "active.enquiries"
}

/// A refusal in the error envelope.
fn forbidden() -> Answer {
    Answer::json(
        403,
        json!({"status": "error", "errors": [
            {"location": "url", "name": "permission", "description": "Forbidden"}]}),
    )
}

/// Every object in `v`, depth first.
fn each_object(v: &mut Value, f: &mut dyn FnMut(&mut serde_json::Map<String, Value>)) {
    match v {
        Value::Object(map) => {
            f(map);
            map.values_mut().for_each(|x| each_object(x, f));
        }
        Value::Array(items) => items.iter_mut().for_each(|x| each_object(x, f)),
        _ => {}
    }
}

/// A fake 201 for a document upload that stores nothing.
fn fake_document(req: &Req) -> Route {
    fake_created(
        req,
        json!({"documentOf": "tender", "datePublished": now(), "dateModified": now()}),
    )
}

/// A fake 201 that stores nothing: what was sent, with `made` and a fresh id.
fn fake_created(req: &Req, made: Value) -> Route {
    let mut data = req.data();
    let id = fresh_id();
    merge(&mut data, &made);
    merge(&mut data, &json!({ "id": id }));
    let mut answer = Answer::json(201, json!({ "data": data }));
    let host =
        String::from_utf8(req.header("x-proxy-host").unwrap_or_default()).unwrap_or_default();
    answer.set_header("location", &format!("http://{host}{}/{id}", req.path));
    Route::Answer(answer)
}

/// `….123456+02:00` becomes `…+02:00`.
fn drop_fractions(body: &str) -> String {
    drop_fractions_where(body, |_| true)
}

/// Timestamps as Python's `isoformat()` writes them: without their fraction when it is zero.
pub fn drop_zero_fractions(body: &str) -> String {
    drop_fractions_where(body, |digits| digits.iter().all(|d| *d == b'0'))
}

/// `body` with the six fractional digits of each timestamp dropped where `drop` says so.
fn drop_fractions_where(body: &str, drop: impl Fn(&[u8]) -> bool) -> String {
    let bytes = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    while i < bytes.len() {
        let is_fraction = i >= 8
            && bytes[i] == b'.'
            && bytes[i - 3] == b':'
            && bytes[i - 6] == b':'
            && bytes
                .get(i + 1..i + 7)
                .is_some_and(|d| d.iter().all(u8::is_ascii_digit) && drop(d))
            && matches!(bytes.get(i + 7), Some(b'+' | b'-' | b'Z'));
        if is_fraction {
            i += 7;
        } else {
            let ch = body[i..].chars().next().expect("a char");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// A bid's documents listed without the bid's token, answered as a refusal that carries them.
pub fn refusal_carrying_bid_documents(m: &Memory, r: &Req, a: &mut Answer) {
    if r.endpoint() == Endpoint::BidDocList && a.status == 200 && !m.is_rightful(r) {
        let mut refusal = forbidden();
        refusal.edit(|v| {
            v["data"] = serde_json::from_str::<Value>(&a.body).unwrap_or_default()["data"].clone()
        });
        *a = refusal;
    }
}

/// Every error's description as a list of strings, as upstream wrote its validation errors.
pub fn list_descriptions(a: &mut Answer) {
    if a.status >= 400 {
        a.edit(|v| {
            each_object(v, &mut |e| {
                if let Some(Value::String(d)) = e.get("description").cloned()
                    && e.contains_key("location")
                {
                    e.insert("description".into(), json!([d]));
                }
            })
        });
    }
}

fn integer_amounts(v: &mut Value) {
    each_object(v, &mut |map| {
        if let Some(a) = map.get("amount").and_then(Value::as_f64)
            && a.fract() == 0.0
        {
            map.insert("amount".into(), json!(a as i64));
        }
    });
}

/// Puts each remembered author back on its question in a list of questions.
fn reveal_authors(questions: &mut Value, authors: &[(String, Value)]) {
    for q in questions.as_array_mut().into_iter().flatten() {
        if let Some((_, author)) = authors.iter().find(|(id, _)| q["id"] == id.as_str()) {
            q["author"] = author.clone();
        }
    }
}

fn is_get_of_tender(req: &Req) -> bool {
    req.endpoint() == Endpoint::GetTender
}

// ---- the mutants ----

/// One injected violation of the spec, or of upstream's contract management or live auction.
pub struct Mutant {
    /// 1 refusals, 2 answers versus store, 3 later reads, 4 spec rules, 5 shapes, 6 paging,
    /// 7 time running back, 8 rules of contract management, 9 rules of the live auction.
    pub class: u8,
    pub endpoint: &'static str,
    pub what: &'static str,
    /// Whether it gets a server of its own: it needs scenarios that move the clock, or a list
    /// that no other certification writes to.
    pub alone: bool,
    /// The scenarios that should catch it, besides `@spec` (and `not @clock` unless `alone`),
    /// or besides `@upstream` for a mutant of contract management or the live auction.
    pub tags: &'static str,
    /// Whether `@upstream` scenarios judge it, run with `--strict`: what it breaks is
    /// upstream's behaviour (contract management, the live auction, a token bound to its
    /// broker, paging that shows each tender once), which no `@spec` scenario states.
    pub upstream: bool,
    pub request: proxy::RequestHook,
    pub response: proxy::ResponseHook,
    /// Serves one request at a time, each taking at least this long.
    pub one_at_a_time: Option<std::time::Duration>,
}

/// A mutant of `class` at `endpoint` that does `what`: as made here it passes requests and
/// answers on untouched, shares the server with the others and is judged by `@spec` alone.
pub const fn mutant(class: u8, endpoint: &'static str, what: &'static str) -> Mutant {
    Mutant {
        class,
        endpoint,
        what,
        alone: false,
        tags: "",
        upstream: false,
        request: forward,
        response: untouched,
        one_at_a_time: None,
    }
}

/// A mutant of contract management: its scenarios move the clock, so it gets a server of its
/// own, and the `@upstream @contracting` scenarios judge it.
pub const fn contracting(class: u8, endpoint: &'static str, what: &'static str) -> Mutant {
    mutant(class, endpoint, what).upstream()
}

/// A mutant of the live auction: its scenarios move the clock, so it gets a server of its own,
/// and the `@upstream @live-auction` scenarios judge it. Its answers show the auction's
/// addresses on the proxy, so that the bidders' reads and posts there pass through it.
pub const fn live_auction(class: u8, endpoint: &'static str, what: &'static str) -> Mutant {
    contracting(class, endpoint, what).answers(auction_through_proxy)
}

impl Mutant {
    /// Of upstream's behaviour, which the spec does not state: judged by the `@upstream`
    /// scenarios `tags` selects, run with `--strict`, on a server of its own.
    pub const fn upstream(self) -> Mutant {
        Mutant {
            upstream: true,
            alone: true,
            ..self
        }
    }

    /// On a server of its own.
    pub const fn alone(self) -> Mutant {
        Mutant {
            alone: true,
            ..self
        }
    }

    /// Caught by the scenarios `tags` selects, besides those every mutant of its kind runs.
    pub const fn tags(self, tags: &'static str) -> Mutant {
        Mutant { tags, ..self }
    }

    /// Changes or answers requests with `request`.
    pub const fn requests(self, request: proxy::RequestHook) -> Mutant {
        Mutant { request, ..self }
    }

    /// Serves one request at a time, each taking at least `each`.
    pub const fn one_at_a_time(self, each: std::time::Duration) -> Mutant {
        Mutant {
            one_at_a_time: Some(each),
            ..self
        }
    }

    /// Changes answers with `response`.
    pub const fn answers(self, response: proxy::ResponseHook) -> Mutant {
        Mutant { response, ..self }
    }
}

/// Shows the auction's addresses in an answer on the proxy's host, where the server showed its
/// own.
pub fn auction_through_proxy(_: &Memory, req: &Req, a: &mut Answer) {
    if let Some(host) = req
        .header("x-proxy-host")
        .and_then(|h| String::from_utf8(h).ok())
    {
        a.body = on_host(&a.body, &host, "/auctions/");
    }
}

/// `body` with every `http://…` address whose path starts with `path` moved to `host`.
fn on_host(body: &str, host: &str, path: &str) -> String {
    const SCHEME: &str = "http://";
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find(SCHEME) {
        out.push_str(&rest[..at + SCHEME.len()]);
        let address = &rest[at + SCHEME.len()..];
        let end = address.find('/').unwrap_or(address.len());
        let (authority, tail) = address.split_at(end);
        if tail.starts_with(path) && !authority.contains(['"', ' ']) {
            out.push_str(host);
            rest = tail;
        } else {
            rest = address;
        }
    }
    out.push_str(rest);
    out
}

/// The bidder's own view of the auction (`…/state` with the post's query) for a post to the
/// live auction (`POST /auctions/{id}/bids?…`).
fn auction_post_view(req: &Req) -> Option<String> {
    if req.method != "POST" || !req.path.starts_with("/auctions/") {
        return None;
    }
    let page = req.path.strip_suffix("/bids")?;
    let mut view = req.clone();
    view.path = format!("{page}/state");
    Some(view.path_and_query())
}

/// In the bidder's turn, a post above the leader's amount less the minimal step, refused as
/// the server refuses one above the bidder's own amount less the step.
fn above_the_leader_less_the_step(req: &Req, view: Value) -> Option<Answer> {
    let bid = req.data()["bid"].as_f64().filter(|b| *b > 0.0)?;
    let step = view["minimalStep"]["amount"].as_f64()?;
    let leader = view["results"]
        .as_array()?
        .iter()
        .filter_map(|r| r["amount"].as_f64())
        .reduce(f64::min)?;
    (view["participant"]["turn"] == true && bid > leader - step).then(|| {
        Answer::json(
            422,
            json!({"status": "error", "errors": [
                {"location": "body", "name": "bid", "description": "Too high value"}]}),
        )
    })
}

pub fn mutants() -> Vec<Mutant> {
    use Endpoint::*;
    vec![
        // ---- class 1: writes accepted that must be refused ----
        mutant(
            1,
            "PATCH /tenders/{id}",
            "any credential changes the tender",
        )
        .tags("@ep-patch")
        .requests(|m, r| {
            if is_publication(r) {
                Route::Forward
            } else {
                accept_any_on(PatchTender, m, r)
            }
        }),
        mutant(
            1,
            "PATCH /tenders/{id} (publication)",
            "any credential publishes a draft",
        )
        .tags("@state-publish")
        .requests(|m, r| {
            if is_publication(r) {
                as_rightful(m, r)
            }
            Route::Forward
        }),
        mutant(
            1,
            "POST /tenders/{id}/documents",
            "any credential uploads a tender document",
        )
        .tags("@ep-doc-post")
        .requests(|m, r| accept_any_on(DocPost, m, r)),
        mutant(
            1,
            "PUT /tenders/{id}/documents/{doc}",
            "any credential replaces a tender document",
        )
        .tags("@ep-doc-put")
        .requests(|m, r| accept_any_on(DocPut, m, r)),
        mutant(
            1,
            "PATCH /tenders/{id}/documents/{doc}",
            "any credential changes document metadata",
        )
        .tags("@ep-doc-patch")
        .requests(|m, r| accept_any_on(DocPatch, m, r)),
        mutant(
            1,
            "PATCH /tenders/{id}/questions/{q}",
            "any credential answers a question",
        )
        .tags("@ep-q-patch")
        .requests(|m, r| accept_any_on(QPatch, m, r)),
        mutant(
            1,
            "PATCH /tenders/{id}/bids/{bid}",
            "any credential activates a bid",
        )
        .alone()
        .tags("@ep-bid-patch")
        .requests(|m, r| accept_any_on(BidPatch, m, r)),
        mutant(
            1,
            "POST …/bids/{bid}/documents",
            "any credential uploads a bid document",
        )
        .alone()
        .tags("@ep-biddoc-post")
        .requests(|m, r| accept_any_on(BidDocPost, m, r)),
        mutant(
            1,
            "GET /tenders/{id}/bids/{bid}",
            "any credential reads a bid while tendering",
        )
        .alone()
        .tags("@ep-bid-get")
        .requests(|m, r| accept_any_on(BidGet, m, r)),
        mutant(
            1,
            "GET …/bids/{bid}/documents",
            "a bid's documents are listed without its token while tendering",
        )
        .alone()
        .tags("@ep-biddoc-list")
        .requests(|m, r| accept_any_on(BidDocList, m, r)),
        mutant(
            1,
            "GET …/bids/{bid}/documents",
            "a refusal to list a bid's documents carries them all the same",
        )
        .alone()
        .tags("@ep-biddoc-list")
        .requests(|m, r| accept_any_on(BidDocList, m, r))
        .answers(refusal_carrying_bid_documents),
        mutant(
            1,
            "PATCH /tenders/{id}/awards/{award}",
            "any credential confirms the award",
        )
        .alone()
        .tags("@ep-award-patch")
        .requests(|m, r| accept_any_on(AwardPatch, m, r)),
        mutant(
            1,
            "PATCH /tenders/{id}/contracts/{c}",
            "any credential changes the contract",
        )
        .alone()
        .tags("@ep-contract-patch")
        .requests(|m, r| accept_any_on(ContractPatch, m, r)),
        mutant(
            1,
            "PATCH /tenders/{id}",
            "the tender token works for any broker",
        )
        .upstream()
        .tags("@auth-2")
        .requests(|m, r| {
            if r.endpoint() == PatchTender
                && let Some(o) = m.tenders.get(&r.tender_id())
                && r.token().as_deref() == Some(o.token.as_str())
            {
                r.set_header("authorization", o.auth.clone());
            }
            Route::Forward
        }),
        mutant(
            1,
            "PATCH /tenders/{id}/bids/{bid}",
            "the tender token activates bids",
        )
        .alone()
        .tags("@ep-bid-patch")
        .requests(|m, r| {
            if r.endpoint() == BidPatch
                && m.tenders
                    .get(&r.tender_id())
                    .is_some_and(|o| r.token().as_deref() == Some(o.token.as_str()))
            {
                as_rightful(m, r);
            }
            Route::Forward
        }),
        mutant(
            1,
            "GET /tenders/{id}/bids/{bid}",
            "one bid's token reads another bid of the tender",
        )
        .alone()
        .tags("@ep-bid-get")
        .requests(|m, r| {
            if r.endpoint() == BidGet
                && m.bids.values().any(|o| {
                    o.tender == r.tender_id() && r.token().as_deref() == Some(o.token.as_str())
                })
            {
                as_rightful(m, r);
            }
            Route::Forward
        }),
        mutant(
            1,
            "POST /tenders/{id}/documents",
            "an upload without any token is accepted",
        )
        .tags("@ep-doc-post")
        .requests(|m, r| {
            if r.endpoint() == DocPost && r.token().is_none() {
                as_rightful(m, r)
            }
            Route::Forward
        }),
        mutant(
            1,
            "PATCH /tenders/{id}/awards/{award}",
            "another tender's token confirms the award",
        )
        .alone()
        .tags("@ep-award-patch")
        .requests(|m, r| {
            if r.endpoint() == AwardPatch
                && m.tenders
                    .values()
                    .any(|o| r.token().as_deref() == Some(o.token.as_str()))
            {
                as_rightful(m, r);
            }
            Route::Forward
        }),
        mutant(
            1,
            "PATCH /tenders/{id}",
            "a refused change is answered 403 yet stored",
        )
        .tags("@ep-patch")
        .requests(|m, r| refused_yet_stored(PatchTender, m, r))
        .answers(answered_refused),
        mutant(
            1,
            "PATCH /tenders/{id}/questions/{q}",
            "a refused answer is answered 403 yet stored",
        )
        .tags("@ep-q-patch")
        .requests(|m, r| refused_yet_stored(QPatch, m, r))
        .answers(answered_refused),
        mutant(
            1,
            "PATCH /tenders/{id}/contracts/{c}",
            "a refused contract change is answered 403 yet stored",
        )
        .alone()
        .tags("@ep-contract-patch")
        .requests(|m, r| refused_yet_stored(ContractPatch, m, r))
        .answers(answered_refused),
        // ---- class 2: answers that say one thing while the store keeps another ----
        mutant(
            2,
            "PATCH /tenders/{id}",
            "a change is answered from a read and never stored",
        )
        .tags("@ep-patch or @conv-10")
        .requests(|m, r| {
            if r.endpoint() == PatchTender && !is_publication(r) && m.is_rightful(r) {
                Route::FromRead {
                    read: r.path.clone(),
                    make: merged,
                }
            } else {
                Route::Forward
            }
        }),
        mutant(
            2,
            "PATCH /tenders/{id} (publication)",
            "a publication is answered but never stored",
        )
        .tags("@two-phase or @state-publish")
        .requests(|m, r| {
            if is_publication(r) && m.is_rightful(r) && m.drafts.contains_key(&r.tender_id()) {
                Route::FromRead {
                    read: r.path.clone(),
                    make: merged,
                }
            } else {
                Route::Forward
            }
        }),
        mutant(
            2,
            "PATCH /tenders/{id}",
            "nested objects of a change are dropped, the answer shows them",
        )
        .tags("@ep-patch or @conv-10")
        .requests(|m, r| {
            if r.endpoint() == PatchTender && m.is_rightful(r) {
                let mut data = r.data();
                if let Some(map) = data.as_object_mut() {
                    map.retain(|_, v| !v.is_object());
                }
                r.set_data(data);
            }
            Route::Forward
        })
        .answers(|_, r, a| echo_sent(PatchTender, r, a)),
        mutant(
            2,
            "PATCH /tenders/{id}/documents/{doc}",
            "document metadata answered, never stored",
        )
        .tags("@ep-doc-patch")
        .requests(|m, r| from_read_if(DocPatch, m, r)),
        mutant(
            2,
            "PUT /tenders/{id}/documents/{doc}",
            "a new version answered, never stored",
        )
        .tags("@ep-doc-put")
        .requests(|m, r| new_version_from_read_if(DocPut, m, r)),
        mutant(
            2,
            "POST /tenders/{id}/documents",
            "an upload answered 201, never stored",
        )
        .tags("@ep-doc-post")
        .requests(|m, r| fake_document_if(DocPost, m, r)),
        mutant(
            2,
            "PATCH /tenders/{id}/questions/{q}",
            "an answer answered, never stored",
        )
        .tags("@ep-q-patch")
        .requests(|m, r| from_read_if(QPatch, m, r)),
        mutant(
            2,
            "PATCH /tenders/{id}/bids/{bid}",
            "an activation answered, never stored",
        )
        .alone()
        .tags("@ep-bid-patch or @bid-activate")
        .requests(|m, r| {
            if r.endpoint() == BidPatch && m.is_rightful(r) {
                Route::FromRead {
                    read: r.path_and_query(),
                    make: merged,
                }
            } else {
                Route::Forward
            }
        }),
        mutant(
            2,
            "POST …/bids/{bid}/documents",
            "a bid document answered 201, never stored",
        )
        .alone()
        .tags("@ep-biddoc-post")
        .requests(|m, r| fake_document_if(BidDocPost, m, r)),
        mutant(
            2,
            "PATCH /tenders/{id}/awards/{award}",
            "a confirmation answered, never stored",
        )
        .alone()
        .tags("@ep-award-patch")
        .requests(|m, r| {
            if r.endpoint() == AwardPatch && m.is_rightful(r) {
                Route::FromRead {
                    read: r.path.clone(),
                    make: |r, mut read| {
                        merge(&mut read, &r.data());
                        read["complaintPeriod"] = json!({"startDate": now(), "endDate": now()});
                        Some(read)
                    },
                }
            } else {
                Route::Forward
            }
        }),
        mutant(
            2,
            "PATCH /tenders/{id}/contracts/{c}",
            "the contract value is dropped, the answer shows it",
        )
        .alone()
        .tags("@ep-contract-patch")
        .requests(|m, r| {
            if r.endpoint() == ContractPatch && m.is_rightful(r) {
                let mut data = r.data();
                if let Some(map) = data.as_object_mut() {
                    map.remove("value");
                }
                r.set_data(data);
            }
            Route::Forward
        })
        .answers(|_, r, a| echo_sent(ContractPatch, r, a)),
        mutant(
            2,
            "PATCH /tenders/{id}/contracts/{c}",
            "a contract change answered, never stored",
        )
        .alone()
        .tags("@ep-contract-patch")
        .requests(|m, r| from_read_if(ContractPatch, m, r)),
        mutant(
            2,
            "PATCH /tenders/{id}",
            "the answer replaces nested objects the store merged",
        )
        .tags("@conv-10")
        .answers(|_, r, a| {
            if r.endpoint() == PatchTender && a.status == 200 {
                let sent = r.data();
                a.edit(|v| {
                    if let Some(map) = sent.as_object() {
                        for (k, s) in map.iter().filter(|(_, s)| s.is_object()) {
                            v["data"][k] = s.clone();
                        }
                    }
                });
            }
        }),
        // ---- class 3: right on creation, wrong on later reads ----
        mutant(
            3,
            "GET /tenders/{id}",
            "reads drop the test-mode title prefixes",
        )
        .tags("@ep-rule-2")
        .answers(|_, r, a| {
            if is_get_of_tender(r) {
                a.edit(|v| {
                    for key in ["title", "title_en", "title_ru"] {
                        if let Some(t) = v["data"][key].as_str()
                            && t.starts_with('[')
                        {
                            let bare = t.split_once("] ").map_or(t, |(_, b)| b).to_owned();
                            v["data"][key] = json!(bare);
                        }
                    }
                });
            }
        }),
        mutant(
            3,
            "GET /tenders/{id}/documents/{doc}",
            "reads show datePublished moved to the last upload",
        )
        .tags("@tender-documents")
        .answers(|_, r, a| {
            if r.endpoint() == DocGet || r.endpoint() == DocList || is_get_of_tender(r) {
                a.edit(|v| {
                    each_object(&mut v["data"], &mut |d| {
                        if let (Some(_), Some(m)) =
                            (d.get("datePublished"), d.get("dateModified").cloned())
                        {
                            d.insert("datePublished".into(), m);
                        }
                    })
                });
            }
        }),
        mutant(
            3,
            "GET /tenders/{id}",
            "reads show date moved to the last modification",
        )
        .tags("@two-phase or @state-publish or @conv-10 or @ep-patch")
        .answers(|_, r, a| {
            if is_get_of_tender(r) {
                a.edit(|v| v["data"]["date"] = v["data"]["dateModified"].clone());
            }
        }),
        mutant(3, "GET /tenders/{id}", "reads replace a client's item id")
            .tags("@conv-9")
            .answers(|_, r, a| {
                if is_get_of_tender(r) {
                    a.edit(|v| {
                        if let Some(items) = v["data"]["items"].as_array_mut() {
                            for item in items {
                                if item["id"].as_str().is_some_and(|id| id.len() != 32) {
                                    item["id"] = json!(fresh_id());
                                }
                            }
                        }
                    });
                }
            }),
        mutant(
            3,
            "GET /tenders/{id}",
            "reads drop next_check once tendering",
        )
        .alone()
        .tags("@scheduler or @state-tendering")
        .answers(|_, r, a| {
            if is_get_of_tender(r) {
                a.edit(|v| {
                    if v["data"]["status"] == "active.tendering"
                        && let Some(d) = v["data"].as_object_mut()
                    {
                        d.remove("next_check");
                    }
                });
            }
        }),
        mutant(
            3,
            "GET /tenders/{id}",
            "tender reads show the question authors",
        )
        .tags("@questions or @res-question-author")
        .answers(|m, r, a| {
            if is_get_of_tender(r)
                && let Some(authors) = m.authors.get(&r.tender_id())
            {
                a.edit(|v| reveal_authors(&mut v["data"]["questions"], authors));
            }
        }),
        mutant(
            3,
            "GET /tenders/{id}/questions",
            "the question list shows the authors",
        )
        .tags("@questions or @res-question-author")
        .answers(|m, r, a| {
            if r.endpoint() == QList
                && let Some(authors) = m.authors.get(&r.tender_id())
            {
                a.edit(|v| reveal_authors(&mut v["data"], authors));
            }
        }),
        mutant(3, "GET /tenders/{id}", "reads flip the value's VAT flag")
            .tags("@res-value or @ep-get or @ep-create")
            .answers(|_, r, a| {
                if is_get_of_tender(r) {
                    a.edit(|v| {
                        if let Some(b) = v["data"]["value"]["valueAddedTaxIncluded"].as_bool() {
                            v["data"]["value"]["valueAddedTaxIncluded"] = json!(!b);
                        }
                    });
                }
            }),
        mutant(
            3,
            "GET /tenders/{id}/bids/{bid}",
            "bid reads lose the currency",
        )
        .alone()
        .tags("@res-value or @bids")
        .answers(|_, r, a| {
            if r.endpoint() == BidGet {
                a.edit(|v| {
                    if let Some(value) = v["data"]["value"].as_object_mut() {
                        value.remove("currency");
                    }
                });
            }
        }),
        mutant(
            3,
            "GET /tenders/{id}/documents",
            "the list shows a replaced document in its first version",
        )
        .tags("@ep-doc-list or @tender-documents")
        .answers(|m, r, a| {
            if r.endpoint() == DocList {
                a.edit(|v| {
                    if let Some(docs) = v["data"].as_array_mut() {
                        for d in docs {
                            let id = d["id"].as_str().unwrap_or_default();
                            if let Some(first) = m.first_documents.get(id) {
                                *d = first.clone();
                            }
                        }
                    }
                });
            }
        }),
        mutant(
            3,
            "GET /tenders/{id}",
            "reads keep the dateModified of the creation",
        )
        .tags("@conv-10")
        .answers(|m, r, a| {
            if is_get_of_tender(r)
                && let Some(first) = m.first_modified.get(&r.tender_id())
            {
                a.edit(|v| v["data"]["dateModified"] = first.clone());
            }
        }),
        // ---- class 4: spec rules that advisory scenarios used to hold ----
        mutant(
            4,
            "PATCH /tenders/{id}/contracts/{c}",
            "a contract amount above the award's is accepted",
        )
        .alone()
        .tags("@awarding")
        .requests(|m, r| {
            if r.endpoint() == ContractPatch
                && m.is_rightful(r)
                && r.data()["value"]["amount"].is_number()
            {
                Route::FromRead {
                    read: r.path.clone(),
                    make: |r, read| {
                        let above =
                            r.data()["value"]["amount"].as_f64() > read["value"]["amount"].as_f64();
                        if above { merged(r, read) } else { None }
                    },
                }
            } else {
                Route::Forward
            }
        }),
        mutant(
            4,
            "any unknown path or id",
            "a 404 is plain text, not the error envelope",
        )
        .tags("@errors")
        .answers(|_, _, a| {
            if a.status == 404 {
                a.body = "Not Found".into();
                a.set_header("content-type", "text/plain; charset=utf-8");
            }
        }),
        mutant(
            4,
            "any path, wrong method",
            "a 405 is plain text, not the error envelope",
        )
        .tags("@errors")
        .answers(|_, _, a| {
            if a.status == 405 {
                a.body = "Method Not Allowed".into();
                a.set_header("content-type", "text/plain; charset=utf-8");
            }
        }),
        mutant(
            4,
            "GET /tenders/{id}/bids/{bid}",
            "participationUrl shown before the auction exists",
        )
        .upstream()
        .tags("@ep-bid-get or @res-participation")
        .answers(|_, r, a| {
            if r.endpoint() == BidGet && a.status == 200 {
                let id = r.record_id();
                a.edit(|v| {
                    if v["data"].get("participationUrl").is_none() {
                        v["data"]["participationUrl"] = json!(format!(
                            "http://auction.invalid/{}?key_for_bid={id}",
                            r.tender_id()
                        ));
                    }
                });
            }
        }),
        // ---- class 5: shapes, on every exchange ----
        mutant(5, "every error", "error descriptions are lists of strings")
            .tags("@errors")
            .answers(|_, _, a| list_descriptions(a)),
        mutant(
            5,
            "PATCH/GET /tenders/{id}",
            "guarantee without valueAddedTaxIncluded",
        )
        .tags("@res-guarantee")
        .answers(|_, _, a| {
            a.edit(|v| {
                each_object(v, &mut |o| {
                    if let Some(Value::Object(g)) = o.get_mut("guarantee") {
                        g.remove("valueAddedTaxIncluded");
                    }
                })
            })
        }),
        mutant(
            5,
            "GET /tenders",
            "an empty page's offset loses its microseconds",
        )
        .tags("@listing")
        .answers(|_, r, a| {
            if r.endpoint() == List {
                a.edit(|v| {
                    if v["data"].as_array().is_some_and(Vec::is_empty)
                        && let Some(o) = v["next_page"]["offset"].as_str()
                    {
                        v["next_page"]["offset"] =
                            json!(drop_fractions(&format!("\"{o}\"")).trim_matches('"'));
                    }
                });
            }
        }),
        mutant(
            5,
            "GET /tenders (offset past the end)",
            "an empty page echoes the client's offset as written",
        )
        .tags("@listing")
        .answers(|_, r, a| {
            if r.endpoint() == List
                && let Some((_, sent)) = r.query.iter().find(|(k, _)| k == "offset")
            {
                let sent = sent.clone();
                a.edit(|v| {
                    if v["data"].as_array().is_some_and(Vec::is_empty) {
                        v["next_page"]["offset"] = json!(sent);
                    }
                });
            }
        }),
        mutant(
            5,
            "questions",
            "question timestamps lose their microseconds",
        )
        .tags("@questions")
        .answers(|_, r, a| {
            if matches!(r.endpoint(), QPost | QGet | QList | QPatch) {
                a.body = drop_fractions(&a.body);
            }
        }),
        mutant(5, "bids", "bid amounts are written as integers")
            .alone()
            .tags("@bids")
            .answers(|_, r, a| {
                if matches!(r.endpoint(), BidPost | BidGet | BidPatch) {
                    a.edit(integer_amounts);
                }
            }),
        mutant(
            5,
            "POST …/bids/{bid}/documents",
            "the Location is a relative address",
        )
        .alone()
        .tags("@ep-biddoc-post")
        .answers(|_, r, a| {
            if r.endpoint() == BidDocPost
                && let Some((_, l)) = a
                    .headers
                    .iter_mut()
                    .find(|(n, _)| n.eq_ignore_ascii_case("location"))
            {
                *l = l
                    .split_once("://")
                    .and_then(|(_, rest)| rest.split_once('/'))
                    .map(|(_, p)| format!("/{p}"))
                    .unwrap_or_default();
            }
        }),
        mutant(
            5,
            "POST /tenders/{id}/questions",
            "the Location points under another collection",
        )
        .tags("@ep-q-post")
        .answers(|_, r, a| {
            if r.endpoint() == QPost
                && let Some((_, l)) = a
                    .headers
                    .iter_mut()
                    .find(|(n, _)| n.eq_ignore_ascii_case("location"))
            {
                *l = l.replace("/questions/", "/documents/");
            }
        }),
        mutant(5, "GET /tenders/{id}", "document ids shown in upper case")
            .tags("@tender-documents")
            .answers(|_, r, a| {
                if is_get_of_tender(r) {
                    a.edit(|v| {
                        if let Some(docs) = v["data"]["documents"].as_array_mut() {
                            for d in docs {
                                d["id"] =
                                    json!(d["id"].as_str().unwrap_or_default().to_uppercase());
                            }
                        }
                    });
                }
            }),
        mutant(5, "every refusal", "error envelopes without status")
            .tags("@errors or @refusals")
            .answers(|_, _, a| {
                if (400..500).contains(&a.status) {
                    a.edit(|v| {
                        if let Some(map) = v.as_object_mut() {
                            map.remove("status");
                        }
                    });
                }
            }),
        mutant(
            5,
            "tender reads (contracts)",
            "the contract value loses its VAT flag",
        )
        .alone()
        .tags("@awarding")
        .answers(|_, _, a| {
            a.edit(|v| {
                each_object(v, &mut |o| {
                    if o.contains_key("contractID")
                        && let Some(Value::Object(val)) = o.get_mut("value")
                    {
                        val.remove("valueAddedTaxIncluded");
                    }
                })
            })
        }),
        mutant(
            5,
            "GET /tenders",
            "listing rows' dateModified lose their offset",
        )
        .tags("@listing")
        .answers(|_, r, a| {
            if r.endpoint() == List {
                a.edit(|v| {
                    if let Some(rows) = v["data"].as_array_mut() {
                        for row in rows {
                            if let Some(t) = row["dateModified"].as_str()
                                && t.len() > 6
                            {
                                row["dateModified"] = json!(t[..t.len() - 6].to_owned());
                            }
                        }
                    }
                });
            }
        }),
        mutant(
            5,
            "GET /tenders/{id}/questions",
            "the list's Content-Type has no charset",
        )
        .tags("@questions")
        .answers(|_, r, a| {
            if r.endpoint() == QList {
                a.set_header("content-type", "application/json");
            }
        }),
        // ---- more, one per rule that had no mutant yet ----
        mutant(5, "every 201", "the Location header is missing")
            .tags("@conv-5")
            .answers(|_, _, a| {
                a.headers
                    .retain(|(n, _)| !n.eq_ignore_ascii_case("location"))
            }),
        mutant(5, "every response", "amounts written as integers")
            .tags("@conv-7")
            .answers(|_, _, a| a.edit(integer_amounts)),
        mutant(5, "every response", "timestamps without microseconds")
            .tags("@conv-6")
            .answers(|_, _, a| a.body = drop_fractions(&a.body)),
        mutant(5, "every response", "Content-Type without charset")
            .tags("@conv-3")
            .answers(|_, _, a| {
                if a.headers
                    .iter()
                    .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
                {
                    a.set_header("content-type", "application/json");
                }
            }),
        mutant(
            5,
            "POST /tenders, POST …/bids",
            "no access token in creation answers",
        )
        .tags("@conv-4")
        .answers(|_, _, a| {
            a.edit(|v| {
                if let Some(map) = v.as_object_mut() {
                    map.remove("access");
                }
            })
        }),
        mutant(
            3,
            "GET /tenders/{id}/questions/{q}",
            "a question read shows its author",
        )
        .tags("@ep-q-get or @res-question-author")
        .answers(|m, r, a| {
            if r.endpoint() == QGet
                && let Some(authors) = m.authors.get(&r.tender_id())
            {
                let id = r.record_id();
                if let Some((_, author)) = authors.iter().find(|(q, _)| *q == id) {
                    let author = author.clone();
                    a.edit(|v| v["data"]["author"] = author);
                }
            }
        }),
        mutant(
            2,
            "POST /tenders/{id}/bids",
            "a batch bid is stored as a draft, answered active",
        )
        .alone()
        .tags("@bid-batch or @ep-bid-post")
        .requests(|_, r| {
            let data = r.data();
            if r.endpoint() == BidPost && data.get("status").is_none() {
                let mut data = data;
                data["status"] = json!("draft");
                r.set_data(data);
            }
            Route::Forward
        })
        .answers(|_, r, a| {
            if r.endpoint() == BidPost && r.data().get("status").is_none() && a.status == 201 {
                a.edit(|v| v["data"]["status"] = json!("active"));
            }
        }),
        mutant(
            3,
            "GET …/bids/{bid}/documents",
            "the bid's document list is empty",
        )
        .alone()
        .tags("@ep-biddoc-list")
        .answers(|_, r, a| {
            if r.endpoint() == BidDocList && a.status == 200 {
                a.edit(|v| v["data"] = json!([]));
            }
        }),
        mutant(3, "GET /tenders/{id}", "reads name another owner")
            .tags("@auth-1 or @res-tender")
            .answers(|_, r, a| {
                if is_get_of_tender(r) {
                    a.edit(|v| v["data"]["owner"] = json!("someone-else"));
                }
            }),
        mutant(3, "GET /tenders/{id}", "a draft read shows a next_check")
            .tags("@state-draft")
            .answers(|_, r, a| {
                if is_get_of_tender(r) {
                    a.edit(|v| {
                        if v["data"]["status"] == "draft" {
                            v["data"]["next_check"] = v["data"]["enquiryPeriod"]["endDate"].clone();
                        }
                    });
                }
            }),
        mutant(4, "POST with another Content-Type", "415 answered as 400")
            .tags("@err-415")
            .answers(|_, _, a| {
                if a.status == 415 {
                    a.status = 400;
                }
            }),
        mutant(
            4,
            "PATCH /tenders/{id} (publication)",
            "repeating a publication is refused",
        )
        .tags("@err-rule-2 or @state-publish")
        .requests(|m, r| {
            if is_publication(r)
                && m.tenders.contains_key(&r.tender_id())
                && !m.drafts.contains_key(&r.tender_id())
            {
                Route::Answer(forbidden())
            } else {
                Route::Forward
            }
        }),
        mutant(4, "any path with opt_pretty=1", "opt_pretty is refused")
            .tags("@conv-8")
            .requests(|_, r| {
                if r.query.iter().any(|(k, _)| k == "opt_pretty") {
                    Route::Answer(Answer::json(
                        400,
                        json!({"status": "error", "errors": [{
                            "location": "querystring",
                            "name": "opt_pretty",
                            "description": "Unknown parameter"
                        }]}),
                    ))
                } else {
                    Route::Forward
                }
            }),
        // ---- class 6: paging ----
        mutant(
            6,
            "GET /tenders",
            "every other tender created is missing from the pages",
        )
        .alone()
        .tags("@listing")
        .answers(|m, r, a| {
            if r.endpoint() == List {
                a.edit(|v| {
                    if let Some(rows) = v["data"].as_array_mut() {
                        rows.retain(|row| !m.every_other(row));
                    }
                });
            }
        }),
        mutant(
            6,
            "GET /tenders",
            "every other tender created is listed twice in its page",
        )
        .upstream()
        .tags("@listing")
        .answers(|m, r, a| {
            if r.endpoint() == List {
                a.edit(|v| {
                    if let Some(rows) = v["data"].as_array_mut() {
                        let again: Vec<Value> = rows
                            .iter()
                            .filter(|row| m.every_other(row))
                            .cloned()
                            .collect();
                        rows.extend(again);
                    }
                });
            }
        }),
        mutant(6, "GET /tenders", "drafts are listed")
            .alone()
            .tags("@listing")
            .answers(|m, r, a| {
                if r.endpoint() == List {
                    let drafts: Vec<Value> = m.drafts.values().cloned().collect();
                    a.edit(|v| {
                        if let Some(rows) = v["data"].as_array_mut()
                            && !rows.is_empty()
                        {
                            rows.extend(drafts);
                        }
                    });
                }
            }),
        mutant(
            6,
            "GET /tenders",
            "next_page of a page with rows jumps past the end",
        )
        .alone()
        .tags("@listing")
        .answers(|_, r, a| {
            if r.endpoint() == List {
                a.edit(|v| {
                    if v["data"].as_array().is_none_or(Vec::is_empty) {
                        return;
                    }
                    let far = "2999-01-01T00:00:00.000000+00:00";
                    let path = format!(
                        "/api/2.3/tenders?offset={}",
                        far.replace(':', "%3A").replace('+', "%2B")
                    );
                    let uri = v["next_page"]["uri"]
                        .as_str()
                        .and_then(|u| u.split_once("/api/"))
                        .map(|(b, _)| format!("{b}{path}"));
                    v["next_page"]["offset"] = json!(far);
                    v["next_page"]["path"] = json!(path);
                    if let Some(uri) = uri {
                        v["next_page"]["uri"] = json!(uri);
                    }
                });
            }
        }),
        // ---- class 7: time running back, which no clock standing still excuses ----
        mutant(
            7,
            "PATCH /tenders/{id} (publication)",
            "the published tender's date is a second before the draft's, on every read",
        )
        .tags("@state-publish or @res-date")
        .answers(|m, _, a| {
            a.edit(|v| {
                let data = &mut v["data"];
                if data["status"] != "draft"
                    && let Some(first) = data["id"].as_str().and_then(|id| m.first_date.get(id))
                    && data.get("date").is_some()
                {
                    data["date"] = second_before(first);
                }
            })
        }),
        mutant(
            7,
            "PUT /tenders/{id}/documents/{doc}",
            "a new version's dateModified is a second before the replaced version's",
        )
        .tags("@ep-doc-put")
        .answers(|m, r, a| {
            if r.endpoint() == DocPut
                && a.status == 200
                && let Some(first) = m.first_documents.get(&r.record_id())
            {
                a.edit(|v| v["data"]["dateModified"] = second_before(&first["dateModified"]));
            }
        }),
    ]
    .into_iter()
    .chain(contracting_mutants())
    .chain(live_auction_mutants())
    .collect()
}

/// The mutants of the live auction's turn rules.
fn live_auction_mutants() -> Vec<Mutant> {
    vec![
        live_auction(
            9,
            "POST /auctions/{id}/bids",
            "a post is limited by the leader's amount less the step, not the bidder's own",
        )
        .tags("@auction and @live-auction")
        .requests(|_, r| match auction_post_view(r) {
            Some(read) => Route::AnswerFromRead {
                read,
                answer: above_the_leader_less_the_step,
            },
            None => Route::Forward,
        }),
    ]
}

/// The mutants of contract management after signing.
fn contracting_mutants() -> Vec<Mutant> {
    use Endpoint::*;
    vec![
        // ---- refusals ----
        contracting(
            1,
            "PATCH /contracts/{id}/credentials",
            "another broker takes the credentials with the tender token",
        )
        .tags("@contracting and @credentials")
        .requests(|m, r| rightful_token_any_broker(Credentials, m, r)),
        contracting(
            1,
            "PATCH /contracts/{id}/credentials",
            "a wrong token takes the credentials",
        )
        .tags("@contracting and @credentials")
        .requests(|m, r| {
            if r.endpoint() == Credentials
                && let Some(o) = m.rightful(r)
                && r.header("authorization") == o.auth
            {
                r.set_token(&o.token);
            }
            Route::Forward
        }),
        contracting(
            1,
            "PATCH /contracts/{id}",
            "the token before still writes after new credentials",
        )
        .tags("@contracting and @credentials")
        .requests(|m, r| {
            if r.endpoint().on_contract()
                && let Some(tokens) = r.contract_id().and_then(|c| m.contract_tokens.get(&c))
                && let Some((latest, before)) = tokens.split_last()
                && before
                    .iter()
                    .any(|o| r.token().as_deref() == Some(o.token.as_str()))
            {
                r.set_token(&latest.token);
            }
            Route::Forward
        }),
        contracting(
            1,
            "PATCH /contracts/{id}",
            "the tender token writes to the contract",
        )
        .tags("@contracting and @credentials")
        .requests(|m, r| {
            let tender_token = r
                .contract_id()
                .and_then(|c| m.contract_tenders.get(&c))
                .and_then(|t| m.tenders.get(t));
            if r.endpoint() == ManagedPatch
                && tender_token.is_some_and(|o| r.token().as_deref() == Some(o.token.as_str()))
            {
                as_rightful(m, r);
            }
            Route::Forward
        }),
        contracting(
            1,
            "PATCH /contracts/{id}",
            "another broker writes with the contract token",
        )
        .tags("@contracting and @credentials")
        .requests(|m, r| rightful_token_any_broker(ManagedPatch, m, r)),
        contracting(
            1,
            "GET /contracts/{id}",
            "a read of the contract shows its token",
        )
        .tags("@contracting and @credentials")
        .answers(|m, r, a| {
            if r.endpoint() == ManagedGet
                && a.status == 200
                && let Some(latest) = r
                    .contract_id()
                    .and_then(|c| m.contract_tokens.get(&c))
                    .and_then(|t| t.last())
            {
                a.edit(|v| v["data"]["owner_token"] = json!(latest.token));
            }
        }),
        // ---- answers versus store ----
        contracting(
            2,
            "PATCH /contracts/{id}",
            "a contract change answered from a read, never stored",
        )
        .tags("@contracting and @credentials")
        .requests(|m, r| from_read_if(ManagedPatch, m, r)),
        contracting(
            2,
            "PUT /contracts/{id}/documents/{doc}",
            "a new version of a contract document answered, never stored",
        )
        .tags("@contracting and @changes")
        .requests(|m, r| new_version_from_read_if(ManagedDocPut, m, r)),
        // ---- later reads ----
        contracting(
            3,
            "GET /contracts/{id}",
            "the contract handed over names another tender",
        )
        .tags("@contracting and @hand-over")
        .answers(|_, r, a| {
            if let Some(contract) = r.contract_id() {
                a.edit(|v| {
                    if v["data"].get("tender_id").is_some() {
                        v["data"]["tender_id"] = json!(contract);
                    }
                });
            }
        }),
        contracting(
            3,
            "GET /contracts/{id}",
            "the contract handed over names another owner",
        )
        .tags("@contracting and @hand-over")
        .answers(|_, r, a| {
            if r.contract_id().is_some() {
                a.edit(|v| {
                    if v["data"].get("owner").is_some() {
                        v["data"]["owner"] = json!("broker-elsewhere");
                    }
                });
            }
        }),
        contracting(
            3,
            "GET /contracts/{id}",
            "the contract's view omits its changes",
        )
        .tags("@contracting and @changes")
        .answers(|_, r, a| {
            if r.endpoint() == ManagedGet && a.status == 200 {
                a.edit(|v| {
                    if let Some(data) = v["data"].as_object_mut() {
                        data.remove("changes");
                    }
                });
            }
        }),
        // ---- the rules of contract management ----
        contracting(
            8,
            "POST /contracts/{id}/changes",
            "a second pending change answered 201",
        )
        .tags("@contracting and @changes")
        .requests(|m, r| {
            let pending = r
                .contract_id()
                .is_some_and(|c| m.pending_changes.values().any(|of| *of == c));
            if r.endpoint() == ChangePost && pending {
                fake_created(r, json!({"status": "pending", "date": now()}))
            } else {
                Route::Forward
            }
        }),
        contracting(
            8,
            "GET /contracts/{id}",
            "no signed contract is handed over: its address answers 404",
        )
        .tags("@contracting and @hand-over")
        .answers(|_, r, a| {
            if r.endpoint() == ManagedGet && a.status == 200 {
                *a = Answer::json(
                    404,
                    json!({"status": "error", "errors": [
                        {"location": "url", "name": "contract_id", "description": "Not Found"}]}),
                );
            }
        }),
        contracting(
            8,
            "PATCH /contracts/{id}",
            "the whole contract sent back changes its contractID",
        )
        .tags("@contracting and @full-patch")
        .answers(|m, r, a| {
            let sent = r
                .contract_id()
                .and_then(|c| m.contract_sent.get(&c))
                .and_then(|s| s.get("contractID"));
            if matches!(r.endpoint(), ManagedGet | ManagedPatch)
                && a.status == 200
                && let Some(sent) = sent
            {
                a.edit(|v| v["data"]["contractID"] = sent.clone());
            }
        }),
        contracting(
            8,
            "GET /contracts/{id}",
            "amountPaid is shown with the currency and VAT flag sent for it",
        )
        .tags("@contracting and @payment")
        .answers(|m, r, a| {
            let sent = r
                .contract_id()
                .and_then(|c| m.contract_sent.get(&c))
                .and_then(|s| s.get("amountPaid"))
                .cloned();
            if matches!(r.endpoint(), ManagedGet | ManagedPatch)
                && a.status == 200
                && let Some(sent) = sent
            {
                a.edit(|v| {
                    if let Some(paid) = v["data"]["amountPaid"].as_object_mut() {
                        for key in ["currency", "valueAddedTaxIncluded"] {
                            if let Some(x) = sent.get(key) {
                                paid.insert(key.into(), x.clone());
                            }
                        }
                    }
                });
            }
        }),
        contracting(
            8,
            "PATCH /contracts/{id}",
            "termination is accepted without amountPaid",
        )
        .tags("@contracting and @payment")
        .requests(|_, r| {
            let data = r.data();
            if r.endpoint() == ManagedPatch
                && data["status"] == "terminated"
                && data.get("amountPaid").is_none()
            {
                Route::EditFromRead {
                    read: r.path.clone(),
                    edit: |r, contract| {
                        if contract.get("amountPaid").is_none() {
                            let mut data = r.data();
                            data["amountPaid"] = json!({"amount": contract["value"]["amount"]});
                            r.set_data(data);
                        }
                    },
                }
            } else {
                Route::Forward
            }
        }),
        contracting(
            8,
            "PATCH /contracts/{id}/changes/{change}",
            "a change is applied without dateSigned",
        )
        .tags("@contracting and @changes")
        .requests(|_, r| {
            let data = r.data();
            if r.endpoint() == ChangePatch
                && data["status"] == "active"
                && data.get("dateSigned").is_none()
            {
                Route::EditFromRead {
                    read: r.path.clone(),
                    edit: |r, change| {
                        let mut data = r.data();
                        data["dateSigned"] = change["date"].clone();
                        r.set_data(data);
                    },
                }
            } else {
                Route::Forward
            }
        }),
        contracting(
            8,
            "PATCH /contracts/{id}/changes/{change}",
            "an applied change is still edited",
        )
        .tags("@contracting and @changes")
        .requests(|m, r| {
            if r.endpoint() == ChangePatch && m.applied_changes.contains(&r.record_id()) {
                Route::FromRead {
                    read: r.path.clone(),
                    make: merged,
                }
            } else {
                Route::Forward
            }
        }),
        contracting(
            8,
            "PATCH /contracts/{id}/documents/{doc}",
            "a document is bound to an applied change",
        )
        .tags("@contracting and @changes")
        .requests(|m, r| {
            let related = checks_text(&r.data()["relatedItem"]);
            if r.endpoint() == ManagedDocPatch && m.applied_changes.contains(&related) {
                Route::FromRead {
                    read: r.path.clone(),
                    make: merged,
                }
            } else {
                Route::Forward
            }
        }),
        contracting(
            8,
            "POST /contracts/{id}/documents",
            "a terminated contract takes a new document",
        )
        .tags("@contracting and @termination")
        .requests(|m, r| {
            let terminated = r.contract_id().is_some_and(|c| m.terminated.contains(&c));
            if r.endpoint() == ManagedDocPost && terminated {
                fake_created(
                    r,
                    json!({
                        "documentOf": "contract",
                        "datePublished": now(),
                        "dateModified": now()
                    }),
                )
            } else {
                Route::Forward
            }
        }),
    ]
}

/// A JSON string as text; anything else as nothing.
fn checks_text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}

/// The timestamp a second before `at`, in the same form.
fn second_before(at: &Value) -> Value {
    at.as_str()
        .and_then(timestamps::parse)
        .map(|t| json!(timestamps::format(t - time::Duration::seconds(1))))
        .unwrap_or_else(|| at.clone())
}

/// Forwards a refused write with the rightful token, so that the store takes it, and marks it
/// for [`answered_refused`].
fn refused_yet_stored(endpoint: Endpoint, m: &Memory, r: &mut Req) -> Route {
    if r.endpoint() == endpoint && !m.is_rightful(r) {
        as_rightful(m, r);
    }
    Route::Forward
}

/// Answers 403 to the writes that arrived without the rightful token.
fn answered_refused(m: &Memory, r: &Req, a: &mut Answer) {
    let endpoint = r.endpoint();
    let refusable = matches!(
        endpoint,
        Endpoint::PatchTender | Endpoint::QPatch | Endpoint::ContractPatch
    );
    if refusable && !m.is_rightful(r) {
        *a = forbidden();
    }
}

/// Answers a rightful write at `endpoint` with a new version made from a read of the record,
/// never stored.
fn new_version_from_read_if(endpoint: Endpoint, m: &Memory, r: &mut Req) -> Route {
    if r.endpoint() == endpoint && m.is_rightful(r) {
        Route::FromRead {
            read: r.path.clone(),
            make: |r, mut read| {
                merge(&mut read, &r.data());
                read["dateModified"] = json!(now());
                Some(read)
            },
        }
    } else {
        Route::Forward
    }
}

/// Answers a rightful upload at `endpoint` with a fake 201 that stores nothing.
fn fake_document_if(endpoint: Endpoint, m: &Memory, r: &mut Req) -> Route {
    if r.endpoint() == endpoint && m.is_rightful(r) {
        fake_document(r)
    } else {
        Route::Forward
    }
}

/// Lets the rightful token at `endpoint` work for any broker: sends it with its owner's
/// credentials.
fn rightful_token_any_broker(endpoint: Endpoint, m: &Memory, r: &mut Req) -> Route {
    if r.endpoint() == endpoint
        && let Some(o) = m.rightful(r)
        && r.token().as_deref() == Some(o.token.as_str())
    {
        r.set_header("authorization", o.auth);
    }
    Route::Forward
}

/// Shows in a successful answer at `endpoint` what the request sent, merged into its data,
/// whatever was stored.
fn echo_sent(endpoint: Endpoint, r: &Req, a: &mut Answer) {
    if r.endpoint() == endpoint && a.status == 200 {
        a.edit(|v| merge(&mut v["data"], &r.data()));
    }
}

fn from_read_if(endpoint: Endpoint, m: &Memory, r: &mut Req) -> Route {
    if r.endpoint() == endpoint && m.is_rightful(r) {
        Route::FromRead {
            read: r.path.clone(),
            make: merged,
        }
    } else {
        Route::Forward
    }
}
