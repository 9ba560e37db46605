//! A write's answer proves nothing by itself: after every accepted write the harness reads the
//! object back (and the tender or the contract under management that holds it) and checks that
//! what was sent is stored, and, for a tender PATCH, that everything not sent is unchanged
//! (nested objects merged).
use reqwest::Url;
use serde_json::Value;

use crate::{
    checks::rules::{self, Check},
    checks::shape::{contract_route, created_id, tender_route},
    exchange::timestamps,
    exchange::{ReceivedResponse, SentRequest},
};

/// What to read after one accepted write.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub check: &'static Check,
    /// The id of the object written.
    pub id: String,
    /// The address that reads the object alone, with the token it needs; none for awards and
    /// contracts, which the interface shows only inside the tender.
    pub object: Option<String>,
    /// A creation's Location, with the token it needs: its read must answer the object.
    pub location: Option<String>,
    /// The address of the record that holds the object (its tender, or the contract under
    /// management), and the list in it that shows the object.
    pub holder: String,
    pub in_holder: Option<&'static str>,
    /// A listing that must show the object (a bid's documents).
    pub listed: Option<String>,
    /// The `data` that was sent.
    pub sent: Value,
    /// A tender PATCH: fields not sent must stay as they were.
    pub merge: bool,
    /// A token the answer handed out, which no read of the object may show.
    pub secret: Option<String>,
}

impl Plan {
    /// What the holder is, for messages.
    pub fn holder_name(&self) -> &'static str {
        if self.holder.contains("/api/2.3/contracts/") {
            "contract"
        } else {
            "tender"
        }
    }
}

/// The address on the target itself: the service is known by its base URL, and a Location
/// may name another host (a public address) for the same path.
fn on_target(origin: &str, location: &str, token: Option<&str>) -> Option<String> {
    let path = Url::parse(location).ok()?.path().to_owned();
    with_token(&format!("{origin}{path}"), token)
}

fn with_token(address: &str, token: Option<&str>) -> Option<String> {
    let mut url = Url::parse(address).ok()?;
    url.set_fragment(None);
    url.set_query(None);
    if let Some(token) = token {
        url.query_pairs_mut().append_pair("acc_token", token);
    }
    Some(url.to_string())
}

/// The reads that prove an accepted write was stored, or `None` for a request that is not a
/// write of the interface.
pub fn plan(request: &SentRequest, response: &ReceivedResponse, body: &Value) -> Option<Plan> {
    if !(200..300).contains(&response.status) {
        return None;
    }
    let url = Url::parse(&request.url).ok()?;
    let token = url
        .query_pairs()
        .find(|(k, _)| k == "acc_token")
        .map(|(_, v)| v.into_owned());
    let token = token.as_deref();
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/').to_owned();
    let sent: Option<Value> = request
        .body
        .as_deref()
        .and_then(|b| serde_json::from_str::<Value>(b).ok())
        .map(|b| b["data"].clone())
        .filter(Value::is_object);
    let location = response.header("location");
    let method = request.method.as_str();
    let here = format!("{origin}{path}");
    if let Some((contract_id, rest)) = contract_route(&path) {
        let write = Write {
            method,
            origin: &origin,
            here,
            sent,
            location,
            body,
        };
        return contract_plan(write, contract_id, &rest);
    }
    let sent = sent?;
    let created = created_id(body).unwrap_or("").to_owned();
    if path == "/api/2.3/tenders" {
        if method != "POST" {
            return None;
        }
        return Some(Plan {
            check: &rules::STORED_CREATE,
            holder: format!("{origin}/api/2.3/tenders/{created}"),
            object: location.and_then(|l| on_target(&origin, l, None)),
            location: location.and_then(|l| with_token(l, None)),
            id: created,
            in_holder: None,
            listed: None,
            sent,
            merge: false,
            secret: None,
        });
    }
    let (tender_id, rest) = tender_route(&path)?;
    let tender = format!("{origin}/api/2.3/tenders/{tender_id}");
    let mut plan = Plan {
        check: &rules::STORED_PATCH,
        id: created.clone(),
        object: None,
        location: None,
        holder: tender.clone(),
        in_holder: None,
        listed: None,
        sent,
        merge: false,
        secret: None,
    };
    let bid_token = body.pointer("/access/token").and_then(Value::as_str);
    match (method, rest.as_slice()) {
        ("PATCH", []) => {
            plan.id = tender_id.to_owned();
            plan.object = Some(tender);
            plan.merge = true;
        }
        ("POST", ["documents" | "questions"]) => {
            let list = if rest[0] == "documents" {
                "documents"
            } else {
                "questions"
            };
            plan.check = if list == "documents" {
                &rules::STORED_DOC_POST
            } else {
                &rules::STORED_Q_POST
            };
            plan.object = location.and_then(|l| on_target(&origin, l, None));
            plan.location = location.and_then(|l| with_token(l, None));
            plan.in_holder = Some(list);
        }
        (_, ["documents", id]) | (_, ["questions", id]) if method == "PUT" || method == "PATCH" => {
            plan.check = match (method, rest[0]) {
                ("PUT", "documents") => &rules::STORED_DOC_PUT,
                ("PATCH", "documents") => &rules::STORED_DOC_PATCH,
                ("PATCH", _) => &rules::STORED_Q_PATCH,
                _ => return None,
            };
            plan.id = (*id).to_owned();
            plan.object = Some(here);
            plan.in_holder = Some(if rest[0] == "documents" {
                "documents"
            } else {
                "questions"
            });
        }
        ("POST", ["bids"]) => {
            plan.check = &rules::STORED_BID_POST;
            plan.object = location.and_then(|l| on_target(&origin, l, bid_token));
            plan.location = location.and_then(|l| with_token(l, bid_token));
        }
        ("PATCH", ["bids", id]) => {
            plan.check = &rules::STORED_BID_PATCH;
            plan.id = (*id).to_owned();
            plan.object = token.and_then(|t| with_token(&here, Some(t)));
        }
        ("POST", ["bids", bid, "documents"]) => {
            plan.check = &rules::STORED_BIDDOC_POST;
            plan.object = location.and_then(|l| on_target(&origin, l, token));
            plan.location = location.and_then(|l| with_token(l, token));
            plan.listed =
                token.and_then(|t| with_token(&format!("{tender}/bids/{bid}/documents"), Some(t)));
        }
        ("POST", ["lots"]) => {
            plan.check = &rules::STORED_LOT_POST;
            plan.object = location.and_then(|l| on_target(&origin, l, None));
            plan.location = location.and_then(|l| with_token(l, None));
            plan.in_holder = Some("lots");
        }
        ("PATCH", ["lots", id]) => {
            plan.check = &rules::STORED_LOT_PATCH;
            plan.id = (*id).to_owned();
            plan.object = with_token(&here, None);
            plan.in_holder = Some("lots");
        }
        ("PATCH", ["awards", id]) => {
            plan.check = &rules::STORED_AWARD;
            plan.id = (*id).to_owned();
            plan.in_holder = Some("awards");
        }
        ("PATCH", ["contracts", id]) => {
            plan.check = &rules::STORED_CONTRACT;
            plan.id = (*id).to_owned();
            plan.in_holder = Some("contracts");
        }
        _ => return None,
    }
    Some(plan)
}

/// One accepted write, as [`contract_plan`] reads it.
struct Write<'a> {
    method: &'a str,
    origin: &'a str,
    /// The address written to, without its query.
    here: String,
    /// The `data` sent, when it was a JSON object.
    sent: Option<Value>,
    location: Option<&'a str>,
    body: &'a Value,
}

/// The reads after an accepted write under a contract under management: the contract itself
/// after its PATCH and its credentials, a change or a document alone and in the contract.
fn contract_plan(write: Write<'_>, contract_id: &str, rest: &[&str]) -> Option<Plan> {
    let Write {
        method,
        origin,
        here,
        sent,
        location,
        body,
    } = write;
    let contract = format!("{origin}/api/2.3/contracts/{contract_id}");
    let at_location = || location.and_then(|l| on_target(origin, l, None));
    let mut plan = Plan {
        check: &rules::STORED_MANAGED_PATCH,
        id: created_id(body).unwrap_or("").to_owned(),
        object: None,
        location: None,
        holder: contract.clone(),
        in_holder: None,
        listed: None,
        sent: Value::Object(Default::default()),
        merge: false,
        secret: None,
    };
    match (method, rest) {
        // Nothing is sent for credentials: the contract reads back, and never shows its token.
        ("PATCH", ["credentials"]) => {
            plan.check = &rules::STORED_CREDENTIALS;
            plan.id = contract_id.to_owned();
            plan.object = Some(contract);
            plan.secret = body
                .pointer("/access/token")
                .and_then(Value::as_str)
                .map(str::to_owned);
            return Some(plan);
        }
        ("PATCH", []) => {
            plan.id = contract_id.to_owned();
            plan.object = Some(contract);
            plan.sent = editable(&sent?);
            return Some(plan);
        }
        ("POST", ["changes"]) => {
            plan.check = &rules::STORED_CHANGE_POST;
            plan.object = at_location();
            plan.location = location.and_then(|l| with_token(l, None));
            plan.in_holder = Some("changes");
        }
        ("PATCH", ["changes", id]) => {
            plan.check = &rules::STORED_CHANGE_PATCH;
            plan.id = (*id).to_owned();
            plan.object = Some(here);
            plan.in_holder = Some("changes");
        }
        ("POST", ["documents"]) => {
            plan.check = &rules::STORED_MANAGED_DOC_POST;
            plan.object = at_location();
            plan.location = location.and_then(|l| with_token(l, None));
            plan.in_holder = Some("documents");
        }
        ("PUT" | "PATCH", ["documents", id]) => {
            plan.check = if method == "PUT" {
                &rules::STORED_MANAGED_DOC_PUT
            } else {
                &rules::STORED_MANAGED_DOC_PATCH
            };
            plan.id = (*id).to_owned();
            plan.object = Some(here);
            plan.in_holder = Some("documents");
        }
        _ => return None,
    }
    plan.sent = sent?;
    Some(plan)
}

/// What a broker may change of a contract under management, out of what it sent: the whole
/// contract it read may come back, and the rest of it is dropped by design. An item's
/// classifications are fixed, and `amountPaid` shows the value's currency and VAT flag, so
/// only its amount counts.
pub fn editable(sent: &Value) -> Value {
    const EDITABLE: [&str; 12] = [
        "title",
        "title_en",
        "title_ru",
        "description",
        "description_en",
        "description_ru",
        "status",
        "period",
        "value",
        "items",
        "amountPaid",
        "terminationDetails",
    ];
    let mut kept = serde_json::Map::new();
    for (key, value) in sent.as_object().into_iter().flatten() {
        if !EDITABLE.contains(&key.as_str()) {
            continue;
        }
        let mut value = value.clone();
        match key.as_str() {
            "items" => {
                for item in value.as_array_mut().into_iter().flatten() {
                    if let Some(item) = item.as_object_mut() {
                        item.remove("classification");
                        item.remove("additionalClassifications");
                    }
                }
            }
            "amountPaid" => {
                if let Some(paid) = value.as_object_mut() {
                    paid.retain(|k, _| k == "amount");
                }
            }
            _ => {}
        }
        kept.insert(key.clone(), value);
    }
    Value::Object(kept)
}

/// Fields whose stored form legitimately differs from the sent one: a document's `url` (the
/// service signs it or serves it itself) and a question's `author` (hidden on reads).
const NOT_ECHOED: [&str; 2] = ["url", "author"];

/// Fields to which the service adds a prefix (test mode).
const PREFIXED: [&str; 3] = ["title", "title_en", "title_ru"];

/// Where the stored object differs from what was sent; only what was sent is compared.
pub fn differences(sent: &Value, stored: &Value) -> Vec<String> {
    let mut found = Vec::new();
    compare(sent, stored, "", "", &mut found);
    found
}

fn looks_like_timestamp(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() >= 16 && b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[13] == b':'
}

fn compare(sent: &Value, stored: &Value, key: &str, path: &str, found: &mut Vec<String>) {
    let here = if path.is_empty() { key } else { path };
    match (sent, stored) {
        (Value::Null, _) => {}
        (Value::Object(s), Value::Object(t)) => {
            for (k, v) in s {
                if NOT_ECHOED.contains(&k.as_str()) {
                    continue;
                }
                let child = format!("{path}.{k}");
                match t.get(k) {
                    Some(stored) => compare(v, stored, k, &child, found),
                    None if v.is_null() => {}
                    None => found.push(format!("{child} was sent as {v}, is not stored")),
                }
            }
        }
        (Value::Array(s), Value::Array(t)) if s.len() == t.len() => {
            for (i, (a, b)) in s.iter().zip(t).enumerate() {
                compare(a, b, key, &format!("{path}[{i}]"), found);
            }
        }
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => {}
        (Value::String(a), Value::String(b)) => {
            let same = if PREFIXED.contains(&key) {
                b.ends_with(a.as_str())
            } else if looks_like_timestamp(a) {
                // Input may omit the offset; how the service reads it then is not stated.
                match (timestamps::parse(a), timestamps::parse(b)) {
                    (Some(x), Some(y)) => x == y,
                    (None, _) => true,
                    _ => false,
                }
            } else {
                a == b
            };
            if !same {
                found.push(format!("{here} was sent as {sent}, is stored as {stored}"));
            }
        }
        (a, b) if a == b => {}
        _ => found.push(format!("{here} was sent as {sent}, is stored as {stored}")),
    }
}

/// Tender fields the service changes by itself, or that other records change.
const MANAGED: [&str; 14] = [
    "date",
    "dateModified",
    "next_check",
    "status",
    "documents",
    "questions",
    "bids",
    "awards",
    "contracts",
    "auctionPeriod",
    "auctionUrl",
    "numberOfBids",
    "complaints",
    "cancellations",
];

/// Convention 10: after a PATCH every field of `before` that was not sent, at any depth, is
/// unchanged in `after`. A sent list or scalar replaces what was there.
pub fn changed_besides(before: &Value, after: &Value, sent: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let Value::Object(fields) = before else {
        return found;
    };
    for (key, old) in fields {
        if MANAGED.contains(&key.as_str()) {
            continue;
        }
        let mut old = old.clone();
        let mut new = after.get(key).cloned();
        // A lot's status, auction and dates are the service's, as the tender's own are.
        if key == "lots" {
            old = without_managed_lot_fields(&old);
            new = new.map(|n| without_managed_lot_fields(&n));
        }
        // The tender period starts when the enquiry period ends, so it moves with it.
        if key == "tenderPeriod"
            && !sent["enquiryPeriod"].is_null()
            && let Some(period) = old.as_object_mut()
        {
            period.remove("startDate");
        }
        unchanged(
            &old,
            new.as_ref(),
            sent.get(key),
            &format!(".{key}"),
            &mut found,
        );
    }
    found
}

/// Fields of a lot that the service sets (status, date, auction); the rest is the owner's.
const MANAGED_LOT: [&str; 5] = [
    "status",
    "date",
    "auctionPeriod",
    "auctionUrl",
    "numberOfBids",
];

fn without_managed_lot_fields(lots: &Value) -> Value {
    let mut lots = lots.clone();
    for lot in lots.as_array_mut().into_iter().flatten() {
        if let Some(fields) = lot.as_object_mut() {
            fields.retain(|k, _| !MANAGED_LOT.contains(&k.as_str()));
        }
    }
    lots
}

fn unchanged(
    old: &Value,
    new: Option<&Value>,
    sent: Option<&Value>,
    path: &str,
    found: &mut Vec<String>,
) {
    if sent.is_some_and(|s| !s.is_object()) {
        return;
    }
    if let Value::Object(fields) = old {
        for (key, v) in fields {
            unchanged(
                v,
                new.and_then(|n| n.get(key)),
                sent.and_then(|s| s.get(key)),
                &format!("{path}.{key}"),
                found,
            );
        }
        return;
    }
    let same = match (old, new) {
        (Value::Number(a), Some(Value::Number(b))) => a.as_f64() == b.as_f64(),
        (a, Some(b)) => a == b,
        (_, None) => false,
    };
    if !same {
        found.push(format!(
            "{path} was {old}, not sent, and is now {}",
            new.map_or("absent".to_owned(), Value::to_string)
        ));
    }
}

/// The last member of `list` in a tender with this id (a document's latest version).
pub fn member<'a>(tender: &'a Value, list: &str, id: &str) -> Option<&'a Value> {
    tender[list]
        .as_array()
        .and_then(|rows| rows.iter().rev().find(|r| r["id"] == id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const T: &str = "0123456789abcdef0123456789abcdef";
    const B: &str = "fedcba9876543210fedcba9876543210";

    fn request(method: &str, url: &str, data: Value) -> SentRequest {
        SentRequest {
            method: method.into(),
            url: url.into(),
            body: Some(json!({ "data": data }).to_string()),
            ..SentRequest::default()
        }
    }

    fn ok(status: u16, location: Option<String>) -> ReceivedResponse {
        ReceivedResponse {
            status,
            headers: location
                .map(|l| vec![("Location".to_owned(), l)])
                .unwrap_or_default(),
            ..ReceivedResponse::default()
        }
    }

    #[test]
    fn every_write_of_the_interface_has_its_reads() {
        let base = format!("http://h:1/api/2.3/tenders/{T}");
        let bid = json!({"access": {"token": "bidtoken"}, "data": {"id": B}});
        let p = plan(
            &request("POST", &format!("{base}/bids"), json!({"status": "draft"})),
            &ok(201, Some(format!("{base}/bids/{B}"))),
            &bid,
        )
        .unwrap();
        assert_eq!(p.check.rule, "ep-bid-post");
        assert_eq!(
            p.object.as_deref(),
            Some(format!("{base}/bids/{B}?acc_token=bidtoken").as_str())
        );
        assert_eq!(p.location, p.object);

        let p = plan(
            &request(
                "PATCH",
                &format!("{base}/awards/{B}?acc_token=t"),
                json!({"status": "active"}),
            ),
            &ok(200, None),
            &json!({"data": {"id": B}}),
        )
        .unwrap();
        assert_eq!(
            (p.check.rule, p.object, p.in_holder),
            ("ep-award-patch", None, Some("awards"))
        );

        let p = plan(
            &request(
                "PATCH",
                &format!("{base}?acc_token=t"),
                json!({"title": "x"}),
            ),
            &ok(200, None),
            &json!({"data": {"id": T}}),
        )
        .unwrap();
        assert_eq!(p.object.as_deref(), Some(base.as_str()));
        assert!(p.merge);

        let p = plan(
            &request(
                "POST",
                &format!("{base}/lots?acc_token=t"),
                json!({"title": "Лот"}),
            ),
            &ok(201, Some(format!("{base}/lots/{B}"))),
            &json!({"data": {"id": B}}),
        )
        .unwrap();
        assert_eq!(
            (p.check.rule, p.in_holder, p.object.as_deref()),
            (
                "conv-5",
                Some("lots"),
                Some(format!("{base}/lots/{B}").as_str())
            )
        );
        let p = plan(
            &request(
                "PATCH",
                &format!("{base}/lots/{B}?acc_token=t"),
                json!({"value": {"amount": 10}}),
            ),
            &ok(200, None),
            &json!({"data": {"id": B}}),
        )
        .unwrap();
        assert_eq!(
            (p.check.rule, p.id.as_str(), p.object.as_deref()),
            ("conv-10", B, Some(format!("{base}/lots/{B}").as_str()))
        );

        let refused = plan(
            &request("PATCH", &base, json!({"title": "x"})),
            &ok(403, None),
            &json!({}),
        );
        assert!(refused.is_none());
        let read = plan(
            &SentRequest {
                method: "GET".into(),
                url: base.clone(),
                ..SentRequest::default()
            },
            &ok(200, None),
            &json!({}),
        );
        assert!(read.is_none());
    }

    #[test]
    fn every_write_under_a_contract_has_its_reads() {
        let contract = format!("http://h:1/api/2.3/contracts/{T}");
        let p = plan(
            &SentRequest {
                method: "PATCH".into(),
                url: format!("{contract}/credentials"),
                ..SentRequest::default()
            },
            &ok(200, None),
            &json!({"access": {"token": "secret"}, "data": {"id": T}}),
        )
        .unwrap();
        assert_eq!(
            (p.check.rule, p.id.as_str(), p.object.as_deref()),
            ("auth-2", T, Some(contract.as_str()))
        );
        assert_eq!(p.secret.as_deref(), Some("secret"));
        assert_eq!(p.sent, json!({}));

        let p = plan(
            &request(
                "POST",
                &format!("{contract}/changes"),
                json!({"rationale": "r"}),
            ),
            &ok(201, Some(format!("{contract}/changes/{B}"))),
            &json!({"data": {"id": B}}),
        )
        .unwrap();
        assert_eq!(
            (
                p.check.rule,
                p.in_holder,
                p.holder.as_str(),
                p.holder_name()
            ),
            ("conv-5", Some("changes"), contract.as_str(), "contract")
        );
        assert_eq!(
            p.object.as_deref(),
            Some(format!("{contract}/changes/{B}").as_str())
        );

        for (method, rule) in [("PUT", "res-document"), ("PATCH", "conv-10")] {
            let p = plan(
                &request(
                    method,
                    &format!("{contract}/documents/{B}"),
                    json!({"title": "a"}),
                ),
                &ok(200, None),
                &json!({"data": {"id": B}}),
            )
            .unwrap();
            assert_eq!(
                (p.check.rule, p.id.as_str(), p.in_holder),
                (rule, B, Some("documents"))
            );
        }
        let read = plan(
            &SentRequest {
                method: "GET".into(),
                url: contract.clone(),
                ..SentRequest::default()
            },
            &ok(200, None),
            &json!({"data": {"id": T}}),
        );
        assert!(read.is_none());
    }

    #[test]
    fn the_whole_contract_sent_back_is_judged_by_what_a_broker_may_change() {
        let contract = format!("http://h:1/api/2.3/contracts/{T}");
        let whole = json!({"id": T, "contractID": "UA-1", "owner": "x", "description": "d",
            "changes": [{"id": B}], "dateModified": "2030-01-01T00:00:00.000000+02:00",
            "items": [{"id": "i", "quantity": 2, "classification": {"id": "1"}}],
            "amountPaid": {"amount": 9, "currency": "USD", "valueAddedTaxIncluded": false}});
        let p = plan(
            &request("PATCH", &contract, whole),
            &ok(200, None),
            &json!({"data": {"id": T}}),
        )
        .unwrap();
        assert_eq!((p.check.rule, p.id.as_str()), ("conv-10", T));
        assert_eq!(
            p.sent,
            json!({"description": "d", "items": [{"id": "i", "quantity": 2}],
                "amountPaid": {"amount": 9}})
        );
    }

    #[test]
    fn what_was_sent_must_be_stored() {
        let sent = json!({"title": "Папір", "value": {"amount": 500},
            "enquiryPeriod": {"endDate": "2030-01-10T10:00:00.000000+02:00"},
            "tenderPeriod": {"endDate": "2030-01-20T10:00"},
            "documents": [{"title": "a.pdf", "url": "http://ds/1"}],
            "author": {"name": "hidden"}});
        let stored = json!({"title": "[ТЕСТУВАННЯ] Папір",
            "value": {"amount": 500.0, "currency": "UAH"},
            "enquiryPeriod": {"endDate": "2030-01-10T08:00:00.000000Z"},
            "tenderPeriod": {"endDate": "2030-01-20T10:00:00.000000+02:00"},
            "documents": [{"title": "a.pdf", "url": "http://service/signed"}]});
        assert_eq!(differences(&sent, &stored), Vec::<String>::new());

        let mut wrong = stored.clone();
        wrong["value"]["amount"] = json!(450.0);
        wrong["documents"][0]["title"] = json!("b.pdf");
        wrong.as_object_mut().unwrap().remove("enquiryPeriod");
        assert_eq!(differences(&sent, &wrong).len(), 3);
    }

    #[test]
    fn a_patch_keeps_what_it_did_not_send() {
        let before = json!({"title": "a", "dateModified": "1",
            "procuringEntity": {"name": "n", "contactPoint": {"name": "c", "telephone": "1"}},
            "items": [{"id": "i"}],
            "enquiryPeriod": {"endDate": "e1"}, "tenderPeriod": {"startDate": "e1", "endDate": "t"}});
        let sent = json!({"procuringEntity": {"contactPoint": {"telephone": "2"}}});
        let mut after = before.clone();
        after["procuringEntity"]["contactPoint"]["telephone"] = json!("2");
        after["dateModified"] = json!("2");
        assert!(changed_besides(&before, &after, &sent).is_empty());

        let mut replaced = after.clone();
        replaced["procuringEntity"]["contactPoint"]
            .as_object_mut()
            .unwrap()
            .remove("name");
        assert_eq!(changed_besides(&before, &replaced, &sent).len(), 1);

        let mut lots_before = before.clone();
        lots_before["lots"] = json!([{"id": "l", "title": "a", "status": "active"}]);
        let mut lots_after = lots_before.clone();
        lots_after["lots"][0]["status"] = json!("cancelled");
        lots_after["lots"][0]["auctionPeriod"] = json!({"startDate": "s"});
        let title = json!({"title": "b"});
        lots_after["title"] = json!("b");
        assert!(changed_besides(&lots_before, &lots_after, &title).is_empty());
        lots_after["lots"][0]["title"] = json!("c");
        assert_eq!(changed_besides(&lots_before, &lots_after, &title).len(), 1);

        let moved = json!({"enquiryPeriod": {"endDate": "e2"}});
        let mut after = before.clone();
        after["enquiryPeriod"]["endDate"] = json!("e2");
        after["tenderPeriod"]["startDate"] = json!("e2");
        assert!(changed_besides(&before, &after, &moved).is_empty());
    }
}
