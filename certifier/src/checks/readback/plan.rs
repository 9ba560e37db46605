//! Which reads one accepted write asks for: the object alone, its Location, the record that
//! holds it and a listing that shows it.
use reqwest::Url;
use serde_json::Value;

use super::compare::{Resource, editable};
use crate::{
    checks::rules::{self, Check},
    checks::shape::{contract_route, created_id, tender_route},
    exchange::{ReceivedResponse, SentRequest},
};

/// What to read after one accepted write.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub check: &'static Check,
    /// The check its Location and its read alone answer to: the spec's for the objects it
    /// gives a read of their own, upstream's for the rest.
    pub located: &'static Check,
    /// Whose table names the fields of what was sent.
    pub resource: Resource,
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
            located: &rules::CHECK_LOCATION,
            resource: Resource::Tender,
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
        located: &rules::CHECK_LOCATION,
        resource: Resource::Tender,
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
            (plan.check, plan.resource) = if list == "documents" {
                (&rules::STORED_DOC_POST, Resource::Document)
            } else {
                (&rules::STORED_Q_POST, Resource::Question)
            };
            plan.object = location.and_then(|l| on_target(&origin, l, None));
            plan.location = location.and_then(|l| with_token(l, None));
            plan.in_holder = Some(list);
        }
        (_, ["documents", id]) | (_, ["questions", id]) if method == "PUT" || method == "PATCH" => {
            (plan.check, plan.resource) = match (method, rest[0]) {
                ("PUT", "documents") => (&rules::STORED_DOC_PUT, Resource::Document),
                ("PATCH", "documents") => (&rules::STORED_DOC_PATCH, Resource::Document),
                ("PATCH", _) => (&rules::STORED_Q_PATCH, Resource::Question),
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
            plan.resource = Resource::Bid;
            plan.object = location.and_then(|l| on_target(&origin, l, bid_token));
            plan.location = location.and_then(|l| with_token(l, bid_token));
        }
        ("PATCH", ["bids", id]) => {
            plan.check = &rules::STORED_BID_PATCH;
            plan.resource = Resource::Bid;
            plan.id = (*id).to_owned();
            plan.object = token.and_then(|t| with_token(&here, Some(t)));
        }
        // The spec lists a bid's documents; a read of one alone is upstream's.
        ("POST", ["bids", bid, "documents"]) => {
            plan.check = &rules::STORED_BIDDOC_POST;
            plan.located = &rules::UP_LOCATION;
            plan.resource = Resource::Document;
            plan.location = location.and_then(|l| with_token(l, token));
            plan.listed =
                token.and_then(|t| with_token(&format!("{tender}/bids/{bid}/documents"), Some(t)));
        }
        ("POST", ["lots"]) => {
            plan.check = &rules::STORED_LOT_POST;
            plan.located = &rules::UP_LOCATION;
            plan.resource = Resource::BeyondSpec;
            plan.object = location.and_then(|l| on_target(&origin, l, None));
            plan.location = location.and_then(|l| with_token(l, None));
            plan.in_holder = Some("lots");
        }
        ("PATCH", ["lots", id]) => {
            plan.check = &rules::STORED_LOT_PATCH;
            plan.located = &rules::UP_LOCATION;
            plan.resource = Resource::BeyondSpec;
            plan.id = (*id).to_owned();
            plan.object = with_token(&here, None);
            plan.in_holder = Some("lots");
        }
        ("PATCH", ["awards", id]) => {
            plan.check = &rules::STORED_AWARD;
            plan.resource = Resource::Award;
            plan.id = (*id).to_owned();
            plan.in_holder = Some("awards");
        }
        ("PATCH", ["contracts", id]) => {
            plan.check = &rules::STORED_CONTRACT;
            plan.resource = Resource::Contract;
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
        located: &rules::UP_LOCATION,
        resource: Resource::BeyondSpec,
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
                "up-readback",
                Some("lots"),
                Some(format!("{base}/lots/{B}").as_str())
            )
        );
        assert_eq!(
            (p.located.rule, p.resource),
            ("up-location", Resource::BeyondSpec)
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
            ("up-readback", B, Some(format!("{base}/lots/{B}").as_str()))
        );

        let p = plan(
            &request(
                "POST",
                &format!("{base}/bids/{B}/documents?acc_token=bidtoken"),
                json!({"title": "Offer.pdf"}),
            ),
            &ok(201, Some(format!("{base}/bids/{B}/documents/{T}"))),
            &json!({"data": {"id": T}}),
        )
        .unwrap();
        assert_eq!(
            (p.check.rule, p.located.rule, p.object, p.resource),
            ("ep-biddoc-post", "up-location", None, Resource::Document),
            "the spec lists a bid's documents; a read of one alone is upstream's"
        );
        assert_eq!(
            p.listed.as_deref(),
            Some(format!("{base}/bids/{B}/documents?acc_token=bidtoken").as_str())
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
            ("up-readback", T, Some(contract.as_str()))
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
            (
                "up-readback",
                Some("changes"),
                contract.as_str(),
                "contract"
            )
        );
        assert_eq!(
            p.object.as_deref(),
            Some(format!("{contract}/changes/{B}").as_str())
        );

        for method in ["PUT", "PATCH"] {
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
                ("up-readback", B, Some("documents"))
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
        assert_eq!((p.check.rule, p.id.as_str()), ("up-readback", T));
        assert_eq!(
            p.sent,
            json!({"description": "d", "items": [{"id": "i", "quantity": 2}],
                "amountPaid": {"amount": 9}})
        );
    }
}
