//! The shape every response of the interface must have, checked on every exchange of every
//! scenario, whatever the scenario is about: the error envelope, the success envelope,
//! timestamps, amounts, Values, identifiers, and what a creation answers. A scenario that sends
//! bad input on purpose still gets its responses checked.
use serde_json::Value;

use crate::{
    checks::rules::{self, Check},
    exchange::timestamps,
    exchange::{Exchange, ReceivedResponse, SentRequest},
};

/// A statement of the spec that one exchange broke.
#[derive(Clone, Debug)]
pub struct Violation {
    pub check: &'static Check,
    pub message: String,
    /// The read that showed it, when it is not the exchange itself (a write read back, a
    /// `Location` followed).
    pub read: Option<Exchange>,
}

impl Violation {
    pub fn new(check: &'static Check, message: impl Into<String>) -> Violation {
        Violation {
            check,
            message: message.into(),
            read: None,
        }
    }

    /// The same violation, shown by `read`.
    pub fn seen_in(mut self, read: &Exchange) -> Violation {
        self.read = Some(read.clone());
        self
    }
}

impl PartialEq for Violation {
    fn eq(&self, other: &Violation) -> bool {
        self.check == other.check && self.message == other.message
    }
}

impl std::fmt::Display for Violation {
    /// The form [`rules::named_in`] reads back, so the report can name the rule.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", rules::broken(self.check.rule), self.message)
    }
}

/// One message for a failed step out of several violations.
pub fn describe(violations: &[Violation]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for line in violations.iter().map(Violation::to_string) {
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines.join("; ")
}

/// The path of a request's URL (without the query), e.g. `/api/2.3/tenders/ab12`.
pub fn url_path(url: &str) -> String {
    reqwest::Url::parse(url)
        .map(|u| u.path().to_owned())
        .unwrap_or_else(|_| url.split(['?', '#']).next().unwrap_or(url).to_owned())
}

/// `/api/2.3/tenders/{id}/rest…` split into the tender id and the rest.
pub fn tender_route(path: &str) -> Option<(&str, Vec<&str>)> {
    let rest = path.strip_prefix("/api/2.3/tenders/")?;
    let mut parts = rest.trim_end_matches('/').split('/');
    let id = parts.next().filter(|id| !id.is_empty())?;
    Some((id, parts.collect()))
}

/// `/api/2.3/contracts/{id}/rest…` (a contract under management) split into the contract id
/// and the rest.
pub fn contract_route(path: &str) -> Option<(&str, Vec<&str>)> {
    let rest = path.strip_prefix("/api/2.3/contracts/")?;
    let mut parts = rest.trim_end_matches('/').split('/');
    let id = parts.next().filter(|id| !id.is_empty())?;
    Some((id, parts.collect()))
}

/// The auction's JSON interface beside a page at `address` (its query kept): `…/state` and
/// `…/bids` beside a participation address.
pub fn interface(address: &str, what: &str) -> String {
    match address.split_once('?') {
        Some((page, query)) => format!("{page}/{what}?{query}"),
        None => format!("{address}/{what}"),
    }
}

/// Whether an exchange is one of the interface's (not, for example, the clock control API).
pub fn is_interface(request: &SentRequest) -> bool {
    url_path(&request.url).starts_with("/api/")
}

/// Whether a path is one of the spec's endpoints: the tenders, one tender, its documents, its
/// questions, its bids and their documents, its awards and contracts. The rest (lots,
/// cancellations, claims, contract management) are upstream's.
pub fn is_spec_route(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    if path == "/api/2.3/tenders" {
        return true;
    }
    let Some((_, rest)) = tender_route(path) else {
        return false;
    };
    matches!(
        rest.as_slice(),
        [] | ["documents"]
            | ["documents", _]
            | ["questions"]
            | ["questions", _]
            | ["bids"]
            | ["bids", _]
            | ["bids", _, "documents"]
            | ["awards", _]
            | ["contracts", _]
    )
}

/// Whether the spec gives the members of a collection a read of their own: the tenders, a
/// tender's documents, its questions and its bids (not a bid's documents, nor the records
/// beyond the spec).
pub fn reads_one_object(collection: &str) -> bool {
    let collection = collection.trim_end_matches('/');
    collection == "/api/2.3/tenders"
        || matches!(
            tender_route(collection).map(|(_, rest)| rest).as_deref(),
            Some(["documents" | "questions" | "bids"])
        )
}

/// The checks of every place in a successful body: the rule, what its breaches are, and where
/// in the body they stand.
type BodyCheck = (
    &'static Check,
    &'static str,
    fn(&Value, bool) -> Vec<String>,
);
const BODY_CHECKS: [BodyCheck; 6] = [
    (
        &rules::CHECK_TIMESTAMPS,
        "timestamps without an offset or six fractional digits",
        |body, _| timestamps_in(body),
    ),
    (
        &rules::CHECK_AMOUNTS,
        "amounts not written as decimal numbers",
        |body, _| amounts_in(body),
    ),
    (
        &rules::CHECK_VALUES,
        "Values without a boolean valueAddedTaxIncluded",
        |body, spec| values_without_vat(body, spec).0,
    ),
    (
        &rules::UP_VALUES,
        "objects with an amount without a boolean valueAddedTaxIncluded",
        |body, spec| values_without_vat(body, spec).1,
    ),
    (
        &rules::CHECK_IDS,
        "identifiers that are not 32 lowercase hexadecimal characters",
        |body, spec| ids_in(body, spec).0,
    ),
    (
        &rules::UP_IDS,
        "identifiers that are not 32 lowercase hexadecimal characters",
        |body, spec| ids_in(body, spec).1,
    ),
];

/// Every check that needs nothing but the exchange itself.
pub fn check(request: &SentRequest, response: &ReceivedResponse, body: &Value) -> Vec<Violation> {
    let mut found = Vec::new();
    if response.status >= 400 {
        if let Err(e) = error_envelope(response, body) {
            found.push(Violation::new(&rules::CHECK_ERROR_ENVELOPE, e));
        }
        return found;
    }
    if !(200..300).contains(&response.status) {
        return found;
    }
    if let Err(e) = success_envelope(response, body) {
        found.push(Violation::new(&rules::CHECK_SUCCESS_ENVELOPE, e));
    }
    let spec = is_spec_route(&url_path(&request.url));
    for (check, what, wrong_in) in BODY_CHECKS {
        let wrong = wrong_in(body, spec);
        if !wrong.is_empty() {
            found.push(Violation::new(
                check,
                format!("{what}: {}", wrong.join(", ")),
            ));
        }
    }
    if response.status == 201 {
        found.extend(creation(request, response, body));
    }
    found
}

/// `{status: "error", errors: [{description: string, location: string, name: string}]}`.
pub fn error_envelope(response: &ReceivedResponse, body: &Value) -> Result<(), String> {
    if body.is_null() {
        return Err(format!(
            "the {} answer is not JSON: {}",
            response.status,
            crate::exchange::short(&response.body)
        ));
    }
    let errors = crate::checks::error_envelope(body)?;
    for e in errors {
        for field in ["description", "location", "name"] {
            if !e[field].is_string() {
                return Err(format!("an error's {field} is not a string: {e}"));
            }
        }
    }
    Ok(())
}

/// Convention 3: `application/json; charset=UTF-8` and `{"data": object or array}`.
fn success_envelope(response: &ReceivedResponse, body: &Value) -> Result<(), String> {
    crate::checks::json_content_type(response)?;
    match body.get("data") {
        Some(Value::Object(_) | Value::Array(_)) => Ok(()),
        Some(other) => Err(format!(
            "\"data\" is neither an object nor an array: {}",
            crate::exchange::short(&other.to_string())
        )),
        None => Err(format!(
            "the body has no top-level \"data\": {}",
            crate::exchange::short(&response.body)
        )),
    }
}

/// Convention 6: every timestamp field, and a listing's `next_page.offset` unless empty.
pub fn timestamps_in(body: &Value) -> Vec<String> {
    let mut wrong = Vec::new();
    walk(body, &mut |path, key, v| {
        if timestamps::is_timestamp_field(key)
            && let Some(text) = v.as_str()
            && !timestamps::has_output_form(text)
        {
            wrong.push(format!("{path} = {text:?}"));
        }
    });
    if let Some(offset) = body.pointer("/next_page/offset").and_then(Value::as_str)
        && !offset.is_empty()
        && !timestamps::has_output_form(offset)
    {
        wrong.push(format!(".next_page.offset = {offset:?}"));
    }
    wrong
}

/// Convention 7: every `amount` is a decimal number.
pub fn amounts_in(body: &Value) -> Vec<String> {
    let mut wrong = Vec::new();
    walk(body, &mut |path, key, v| {
        if key == "amount" && !matches!(v, Value::Number(n) if n.is_f64()) {
            wrong.push(format!("{path} = {v}"));
        }
    });
    wrong
}

/// Members under which a body holds records beyond the spec (lots and their values,
/// contract changes, cancellations, claims): what is inside them is upstream's.
const BEYOND_SPEC: [&str; 5] = [
    "lots",
    "lotValues",
    "changes",
    "cancellations",
    "complaints",
];

/// Where a Value of the spec sits: a tender's `value`, `minimalStep` and `guarantee`, and the
/// `value` of a bid, an award and a contract.
const SPEC_VALUES: [&str; 3] = ["value", "minimalStep", "guarantee"];

/// Objects with an `amount` that do not output `valueAddedTaxIncluded` as a boolean: the spec's
/// Values (on one of its endpoints), then the others.
pub fn values_without_vat(body: &Value, spec_route: bool) -> (Vec<String>, Vec<String>) {
    let (mut spec, mut other) = (Vec::new(), Vec::new());
    walk(body, &mut |path, key, v| {
        if let Value::Object(map) = v
            && map.contains_key("amount")
            && !map
                .get("valueAddedTaxIncluded")
                .is_some_and(Value::is_boolean)
        {
            let stated = spec_route && SPEC_VALUES.contains(&key) && !path.within(&BEYOND_SPEC);
            let wrong = format!("{path} = {v}");
            if stated {
                spec.push(wrong);
            } else {
                other.push(wrong);
            }
        }
    });
    (spec, other)
}

/// Collections whose members are records of the spec with 32-hex ids (convention 9).
const RECORD_LISTS: [&str; 6] = [
    "documents",
    "questions",
    "bids",
    "awards",
    "contracts",
    "previousVersions",
];
/// Fields that hold the id of a record of the spec.
const RECORD_REFERENCES: [&str; 2] = ["bid_id", "awardID"];
/// Collections of records beyond the spec, whose ids upstream made 32 hex too.
const UPSTREAM_LISTS: [&str; 4] = ["lots", "changes", "cancellations", "complaints"];
/// Fields that hold the id of a record beyond the spec, or of a tender from outside it.
const UPSTREAM_REFERENCES: [&str; 3] = ["lotID", "relatedLot", "tender_id"];

/// Convention 9: ids of tenders, documents, questions, bids, awards and contracts, and the
/// references to them (item ids are left out: a client may supply them, as are the ids of
/// identifiers and classifications); then, upstream's, the ids of the records beyond the spec
/// and the references to them.
pub fn ids_in(body: &Value, spec_route: bool) -> (Vec<String>, Vec<String>) {
    fn record(v: &Value, path: &dyn Fn() -> String, wrong: &mut Vec<String>) {
        if let Some(id) = v.get("id")
            && !is_hex_id(id)
        {
            wrong.push(format!("{}.id = {id}", path()));
        }
    }
    let (mut spec, mut other) = (Vec::new(), Vec::new());
    let top = if spec_route { &mut spec } else { &mut other };
    match body.get("data") {
        Some(data @ Value::Object(_)) => record(data, &|| ".data".into(), top),
        Some(Value::Array(rows)) => {
            for (i, row) in rows.iter().enumerate() {
                record(row, &|| format!(".data[{i}]"), top);
            }
        }
        _ => {}
    }
    walk(body, &mut |path, key, v| {
        let records = if RECORD_LISTS.contains(&key) {
            Some(&mut spec)
        } else if UPSTREAM_LISTS.contains(&key) {
            Some(&mut other)
        } else {
            None
        };
        if let (Some(wrong), Value::Array(items)) = (records, v) {
            for (i, item) in items.iter().enumerate() {
                record(item, &|| format!("{path}[{i}]"), wrong);
            }
        }
        let references = if RECORD_REFERENCES.contains(&key) {
            Some(&mut spec)
        } else if UPSTREAM_REFERENCES.contains(&key) {
            Some(&mut other)
        } else {
            None
        };
        if let Some(wrong) = references
            && !is_hex_id(v)
        {
            wrong.push(format!("{path} = {v}"));
        }
    });
    (spec, other)
}

fn is_hex_id(value: &Value) -> bool {
    crate::checks::is_hex_id(value)
}

/// The id a 201 answered with.
pub fn created_id(body: &Value) -> Option<&str> {
    body.pointer("/data/id").and_then(Value::as_str)
}

/// Conventions 4 and 5: a tender or bid creation carries its token; every 201 carries a
/// Location with the full address of the object, under the collection that was posted to.
fn creation(request: &SentRequest, response: &ReceivedResponse, body: &Value) -> Vec<Violation> {
    let mut found = Vec::new();
    let collection = url_path(&request.url);
    let collection = collection.trim_end_matches('/');
    let token_expected = collection == "/api/2.3/tenders"
        || (collection.starts_with("/api/2.3/tenders/") && collection.ends_with("/bids"));
    if token_expected
        && body
            .pointer("/access/token")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
    {
        found.push(Violation::new(
            &rules::CHECK_TOKEN,
            "the creation's answer has no access.token string",
        ));
    }
    let Some(id) = created_id(body) else {
        return found;
    };
    // Every 201 names the full address of its object, ending with its id; that it lies under
    // the collection posted to is stated for the spec's collections alone.
    let hint = scheme_hint(request, response);
    if let Err(e) = crate::checks::location_names(response, id) {
        found.push(Violation::new(&rules::CHECK_LOCATION, e + &hint));
    } else if let Err(e) = location_under(response, collection, id) {
        let check = if reads_one_object(collection) {
            &rules::CHECK_LOCATION
        } else {
            &rules::UP_LOCATION
        };
        found.push(Violation::new(check, e + &hint));
    }
    found
}

/// When a Location's scheme is not the one the target was reached by (an `http://` address
/// from a server behind a proxy that serves it as `https://`), what to look at.
fn scheme_hint(request: &SentRequest, response: &ReceivedResponse) -> String {
    let scheme = |url: &str| reqwest::Url::parse(url).map(|u| u.scheme().to_owned()).ok();
    match (
        scheme(&request.url),
        response.header("location").and_then(scheme),
    ) {
        (Some(asked), Some(answered)) if asked != answered => format!(
            " (the Location's scheme is {answered}, the target was reached by {asked}: a server behind a proxy that terminates TLS must be told its public address, as tender-registry's --public-url tells it)"
        ),
        _ => String::new(),
    }
}

/// The Location is a full address whose path is the collection followed by the id.
pub fn location_under(
    response: &ReceivedResponse,
    collection: &str,
    id: &str,
) -> Result<String, String> {
    let location = response
        .header("location")
        .ok_or("the 201 answer has no Location header")?;
    let url = reqwest::Url::parse(location)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host())
        .ok_or_else(|| format!("Location {location:?} is not a full address"))?;
    let expected = format!("{collection}/{id}");
    if url.path().trim_end_matches('/') != expected {
        return Err(format!(
            "Location {location:?} is not the address {expected:?} of the created object"
        ));
    }
    Ok(location.to_owned())
}

/// Where a member sits in a body; written out only when something is wrong there.
#[derive(Debug, Default)]
pub struct Path<'a> {
    segments: Vec<Segment<'a>>,
}

#[derive(Debug)]
enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

impl Path<'_> {
    /// Whether the member lies inside one of `keys` (at any depth above it).
    pub fn within(&self, keys: &[&str]) -> bool {
        let above = self.segments.len().saturating_sub(1);
        self.segments[..above]
            .iter()
            .any(|s| matches!(s, Segment::Key(k) if keys.contains(k)))
    }
}

impl std::fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for segment in &self.segments {
            match segment {
                Segment::Key(k) => write!(f, ".{k}")?,
                Segment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// Calls `visit(path, key, value)` for every object member in `value`, depth first.
pub fn walk<'a>(value: &'a Value, visit: &mut dyn FnMut(&Path<'a>, &'a str, &'a Value)) {
    fn go<'a>(
        value: &'a Value,
        path: &mut Path<'a>,
        visit: &mut dyn FnMut(&Path<'a>, &'a str, &'a Value),
    ) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    path.segments.push(Segment::Key(key));
                    visit(path, key, v);
                    go(v, path, visit);
                    path.segments.pop();
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    path.segments.push(Segment::Index(i));
                    go(v, path, visit);
                    path.segments.pop();
                }
            }
            _ => {}
        }
    }
    go(value, &mut Path::default(), visit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn response(status: u16, body: &Value) -> ReceivedResponse {
        ReceivedResponse {
            status,
            headers: vec![(
                "content-type".into(),
                "application/json; charset=UTF-8".into(),
            )],
            body: body.to_string(),
            ..ReceivedResponse::default()
        }
    }

    fn request(method: &str, url: &str) -> SentRequest {
        SentRequest {
            method: method.into(),
            url: url.into(),
            ..SentRequest::default()
        }
    }

    fn rules_of(found: &[Violation]) -> Vec<&'static str> {
        found.iter().map(|v| v.check.rule).collect()
    }

    const ID: &str = "0123456789abcdef0123456789abcdef";

    fn good_tender() -> Value {
        json!({"data": {
            "id": ID,
            "date": "2026-01-01T10:00:00.000001+02:00",
            "value": {"amount": 500.0, "currency": "UAH", "valueAddedTaxIncluded": true},
            "items": [{"id": "client-item-1", "classification": {"id": "30192700-8"}}],
            "procuringEntity": {"identifier": {"id": "00037256"}},
            "documents": [{"id": ID, "datePublished": "2026-01-01T10:00:00.000001+02:00"}],
            "awards": [{"id": ID, "bid_id": ID}]
        }})
    }

    #[test]
    fn a_good_read_passes() {
        let body = good_tender();
        let found = check(
            &request("GET", "http://h/api/2.3/tenders/x"),
            &response(200, &body),
            &body,
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn an_error_description_must_be_a_string() {
        let bad = json!({"status": "error", "errors": [
            {"location": "body", "name": "title", "description": ["This field is required."]}]});
        let good = json!({"status": "error", "errors": [
            {"location": "body", "name": "title", "description": "This field is required."}]});
        let req = request("POST", "http://h/api/2.3/tenders");
        assert_eq!(
            rules_of(&check(&req, &response(422, &bad), &bad)),
            ["err-envelope"]
        );
        assert!(check(&req, &response(422, &good), &good).is_empty());
        let not_json = ReceivedResponse {
            status: 405,
            body: "Method Not Allowed".into(),
            ..ReceivedResponse::default()
        };
        assert_eq!(
            rules_of(&check(&req, &not_json, &Value::Null)),
            ["err-envelope"]
        );
    }

    #[test]
    fn a_success_needs_the_charset_and_data() {
        let body = json!({"items": []});
        let found = check(
            &request("GET", "http://h/api/2.3/tenders"),
            &response(200, &body),
            &body,
        );
        assert_eq!(rules_of(&found), ["conv-3"]);
    }

    #[test]
    fn timestamps_need_offset_and_microseconds_and_so_does_the_offset_of_a_page() {
        let mut body = good_tender();
        body["data"]["dateModified"] = json!("2026-01-01T10:00:00+02:00");
        assert_eq!(timestamps_in(&body).len(), 1);
        let page = json!({"next_page": {"offset": "3941-05-23T20:20:15.409Z"}, "data": []});
        assert_eq!(timestamps_in(&page).len(), 1);
        let empty = json!({"next_page": {"offset": ""}, "data": []});
        assert!(timestamps_in(&empty).is_empty());
        assert!(timestamps_in(&good_tender()).is_empty());
    }

    #[test]
    fn amounts_are_decimal_and_values_carry_their_vat_flag() {
        let body: Value = serde_json::from_str(
            r#"{"data": {"value": {"amount": 500, "currency": "UAH", "valueAddedTaxIncluded": true},
                "guarantee": {"amount": 8.0, "currency": "USD"}}}"#,
        )
        .unwrap();
        assert_eq!(amounts_in(&body), [".data.value.amount = 500"]);
        assert_eq!(values_without_vat(&body, true).0.len(), 1);
        assert!(amounts_in(&good_tender()).is_empty());
        assert_eq!(values_without_vat(&good_tender(), true), (vec![], vec![]));
        let paid = json!({"data": {"amountPaid": {"amount": 8.0},
            "lots": [{"value": {"amount": 8.0}}]}});
        let (spec, other) = values_without_vat(&paid, true);
        assert!(spec.is_empty(), "{spec:?}");
        assert_eq!(other.len(), 2, "upstream's Values: {other:?}");
        assert_eq!(values_without_vat(&body, false).1.len(), 1);
    }

    #[test]
    fn record_ids_are_hex_but_item_and_identifier_ids_are_free() {
        assert_eq!(ids_in(&good_tender(), true), (vec![], vec![]));
        let mut body = good_tender();
        body["data"]["documents"][0]["id"] = json!("DOC-1");
        body["data"]["awards"][0]["bid_id"] = json!(7);
        assert_eq!(ids_in(&body, true).0.len(), 2);
        let rows = json!({"data": [{"id": "ABCDEF0123456789ABCDEF0123456789"}]});
        assert_eq!(ids_in(&rows, true).0.len(), 1);
        assert_eq!(
            ids_in(&rows, false),
            (
                vec![],
                vec![".data[0].id = \"ABCDEF0123456789ABCDEF0123456789\"".to_owned()]
            )
        );
    }

    #[test]
    fn lot_ids_and_the_references_to_lots_are_hex() {
        let mut body = good_tender();
        body["data"]["lots"] = json!([{"id": ID}]);
        body["data"]["items"][0]["relatedLot"] = json!(ID);
        body["data"]["awards"][0]["lotID"] = json!(ID);
        assert_eq!(ids_in(&body, true), (vec![], vec![]));
        body["data"]["lots"][0]["id"] = json!("lot-1");
        body["data"]["items"][0]["relatedLot"] = json!("lot-1");
        body["data"]["awards"][0]["lotID"] = json!("lot-1");
        let (spec, upstream) = ids_in(&body, true);
        assert!(spec.is_empty(), "lots are not the spec's: {spec:?}");
        assert_eq!(upstream.len(), 3);
    }

    #[test]
    fn a_contract_s_changes_and_its_tender_are_named_by_hex_ids() {
        let contract = json!({"data": {"id": ID, "tender_id": ID, "awardID": ID,
            "changes": [{"id": ID}], "items": [{"id": "client-item"}]}});
        assert_eq!(ids_in(&contract, false), (vec![], vec![]));
        let mut wrong = contract.clone();
        wrong["data"]["tender_id"] = json!("UA-2026-01-01-000001");
        wrong["data"]["changes"][0]["id"] = json!("change-1");
        assert_eq!(ids_in(&wrong, false).1.len(), 2);
        assert_eq!(
            contract_route(&format!("/api/2.3/contracts/{ID}/changes")),
            Some((ID, vec!["changes"]))
        );
        assert_eq!(contract_route("/api/2.3/contracts"), None);
    }

    #[test]
    fn a_location_of_another_scheme_says_where_to_look() {
        let body = json!({"access": {"token": "t"}, "data": {"id": ID}});
        let mut answer = response(201, &body);
        answer.headers.push((
            "Location".into(),
            format!("http://sandbox.example.test/api/2.3/tenders/{ID}/x"),
        ));
        let found = check(
            &request("POST", "https://sandbox.example.test/api/2.3/tenders"),
            &answer,
            &body,
        );
        assert!(found[0].message.contains("--public-url"), "{found:?}");
    }

    #[test]
    fn a_creation_carries_its_token_and_a_location_under_the_collection() {
        let body = json!({"access": {"token": "t"}, "data": {"id": ID}});
        let mut good = response(201, &body);
        good.headers.push((
            "Location".into(),
            format!("http://h:1/api/2.3/tenders/{ID}"),
        ));
        let req = request("POST", "http://h:1/api/2.3/tenders");
        assert!(check(&req, &good, &body).is_empty());

        let mut elsewhere = response(201, &body);
        elsewhere
            .headers
            .push(("Location".into(), format!("http://h:1/api/2.3/bids/{ID}")));
        assert_eq!(rules_of(&check(&req, &elsewhere, &body)), ["conv-5"]);

        let relative = {
            let mut r = response(201, &body);
            r.headers
                .push(("Location".into(), format!("/api/2.3/tenders/{ID}")));
            r
        };
        assert_eq!(rules_of(&check(&req, &relative, &body)), ["conv-5"]);

        let no_token = json!({"data": {"id": ID}});
        let mut r = response(201, &no_token);
        r.headers.push((
            "Location".into(),
            format!("http://h:1/api/2.3/tenders/{ID}"),
        ));
        assert_eq!(rules_of(&check(&req, &r, &no_token)), ["conv-4"]);
    }
}
