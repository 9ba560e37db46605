//! Facts the spec states for the life of a tender and its records, learned when they are first
//! shown and checked again on every later response, in every status the flow passes through:
//! test-mode prefixes, a client's item ids, the tender's `date`, `tenderPeriod.startDate =
//! enquiryPeriod.endDate` as the service set it, `next_check`, the auction's period and address
//! in `active.auction`, hidden question authors, documents' `datePublished`; and upstream's
//! facts of a tender without lots (advisory).
use std::collections::HashMap;

use serde_json::Value;

use crate::{
    checks::rules,
    checks::shape::{Violation, tender_route, url_path},
    exchange::SentRequest,
    exchange::timestamps,
};

/// The title prefixes of a tender in test mode.
pub const TEST_PREFIXES: [(&str, &str); 3] = [
    ("title", "[ТЕСТУВАННЯ] "),
    ("title_en", "[TESTING] "),
    ("title_ru", "[ТЕСТИРОВАНИЕ] "),
];

/// Statuses in which question authors stay hidden on reads of the tender.
const AUTHORS_HIDDEN: [&str; 4] = [
    "draft",
    "active.enquiries",
    "active.tendering",
    "active.auction",
];

/// Statuses in which the spec states what `date` is: creation, or publication.
const DATE_STATED: [&str; 2] = ["draft", "active.enquiries"];

/// Published statuses with a move still due (the auction's end included), where `next_check`
/// must be shown; the spec's "present on published tenders" says nothing of finished ones.
const MOVE_DUE: [&str; 3] = ["active.enquiries", "active.tendering", "active.auction"];

#[derive(Clone, Debug, Default)]
struct TenderFacts {
    test_mode: bool,
    /// Item ids the client supplied at the tender's creation, until a change sends items.
    item_ids: Vec<String>,
    /// A change sent either period: from then on the spec says nothing of how the two relate.
    periods_changed: bool,
    /// `date` as last shown in a status where the spec states it, and whether the tender was a
    /// draft then.
    date: Option<(bool, String)>,
    status: Option<String>,
    /// Whether the tender was created divided into lots, when its creation was seen.
    lots: Option<bool>,
}

/// Fields that exist only in a tender divided into lots.
const LOT_FIELDS: [&str; 4] = ["lots", "lotID", "lotValues", "relatedLot"];

/// The lot fields anywhere in `value`, by path.
fn lot_fields(value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    crate::checks::shape::walk(value, &mut |path, key, _| {
        if LOT_FIELDS.contains(&key) {
            found.push(path.to_string());
        }
    });
    found
}

/// What the scenario has learned so far about the records it created.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    tenders: HashMap<String, TenderFacts>,
    /// `datePublished` of every document shown, by document id.
    published: HashMap<String, String>,
}

fn same_instant(a: &str, b: &str) -> bool {
    a == b || matches!((timestamps::parse(a), timestamps::parse(b)), (Some(x), Some(y)) if x == y)
}

impl Facts {
    /// Checks one response of the interface against what is known, and learns from it.
    pub fn observe(&mut self, request: &SentRequest, status: u16, body: &Value) -> Vec<Violation> {
        let mut found = Vec::new();
        if !(200..300).contains(&status) {
            return found;
        }
        let path = url_path(&request.url);
        let sent = || -> Value {
            request
                .body
                .as_deref()
                .and_then(|b| serde_json::from_str(b).ok())
                .unwrap_or(Value::Null)
        };
        self.documents(body, &mut found);
        let data = &body["data"];
        let path = path.trim_end_matches('/');
        if path == "/api/2.3/tenders" && request.method == "POST" {
            if let Some(id) = data["id"].as_str() {
                self.tenders
                    .insert(id.to_owned(), TenderFacts::created(&sent()["data"]));
                self.tender(id, data, &mut found);
            }
            return found;
        }
        let Some((id, rest)) = tender_route(path) else {
            return found;
        };
        if rest.is_empty() && data["id"] == id {
            if request.method == "PATCH"
                && let Some(facts) = self.tenders.get_mut(id)
            {
                let sent = sent();
                let changed = |field: &str| sent["data"].get(field).is_some();
                if changed("items") {
                    facts.item_ids.clear();
                }
                if changed("enquiryPeriod") || changed("tenderPeriod") {
                    facts.periods_changed = true;
                }
            }
            self.tender(id, data, &mut found);
        }
        if let ["bids", bid] = rest.as_slice() {
            let lot_urls = data["lotValues"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.get("participationUrl"))
                .map(|url| (&rules::FACT_LOT_PARTICIPATION, url));
            let own = data
                .get("participationUrl")
                .map(|url| (&rules::FACT_PARTICIPATION, url));
            for (check, url) in own.into_iter().chain(lot_urls) {
                let key = url
                    .as_str()
                    .and_then(|u| reqwest::Url::parse(u).ok())
                    .and_then(|u| {
                        u.query_pairs()
                            .find(|(k, _)| k == "key_for_bid")
                            .map(|(_, v)| v.into_owned())
                    });
                if key.as_deref() != Some(*bid) {
                    found.push(Violation::new(
                        check,
                        format!(
                            "bid {bid} shows participationUrl {url}, not one with key_for_bid={bid}"
                        ),
                    ));
                }
            }
            if self.tenders.get(id).and_then(|t| t.lots) == Some(false) {
                for path in lot_fields(data) {
                    found.push(Violation::new(
                        &rules::FACT_NO_LOTS,
                        format!("bid {bid} of a tender without lots shows {path}"),
                    ));
                }
            }
        }
        if rest.first() == Some(&"questions") && request.method != "POST" {
            let status = self.tenders.get(id).and_then(|t| t.status.as_deref());
            if status.is_none_or(|s| AUTHORS_HIDDEN.contains(&s)) {
                let shown: Vec<&Value> = match data {
                    Value::Array(rows) => rows.iter().collect(),
                    other => vec![other],
                };
                for q in shown {
                    if let Some(author) = q.get("author") {
                        found.push(Violation::new(
                            &rules::FACT_QUESTION_AUTHOR,
                            format!("question {} shows its author {author}", q["id"]),
                        ));
                    }
                }
            }
        }
        found
    }

    /// A document keeps the `datePublished` it was first shown with.
    fn documents(&mut self, body: &Value, found: &mut Vec<Violation>) {
        fn collect(v: &Value, seen: &mut Vec<(String, String)>) {
            match v {
                Value::Object(map) => {
                    if let (Some(id), Some(published)) = (
                        map.get("id").and_then(Value::as_str),
                        map.get("datePublished").and_then(Value::as_str),
                    ) {
                        seen.push((id.to_owned(), published.to_owned()));
                    }
                    map.values().for_each(|v| collect(v, seen));
                }
                Value::Array(items) => items.iter().for_each(|v| collect(v, seen)),
                _ => {}
            }
        }
        let mut seen = Vec::new();
        collect(body, &mut seen);
        for (id, published) in seen {
            match self.published.get(&id) {
                Some(first) if !same_instant(first, &published) => found.push(Violation::new(
                    &rules::FACT_DATE_PUBLISHED,
                    format!(
                        "document {id} was first published at {first}, now shows datePublished {published}"
                    ),
                )),
                Some(_) => {}
                None => {
                    self.published.insert(id, published);
                }
            }
        }
    }

    /// Every fact of a tender representation.
    fn tender(&mut self, id: &str, tender: &Value, found: &mut Vec<Violation>) {
        let facts = self.tenders.entry(id.to_owned()).or_default();
        let status = tender["status"].as_str().unwrap_or("");
        if facts.test_mode {
            for (field, prefix) in TEST_PREFIXES {
                match tender.get(field).and_then(Value::as_str) {
                    Some(title) if !title.starts_with(prefix) => found.push(Violation::new(
                        &rules::FACT_TEST_MODE,
                        format!("the test-mode tender's {field} {title:?} lacks {prefix:?}"),
                    )),
                    None if field == "title" => found.push(Violation::new(
                        &rules::FACT_TEST_MODE,
                        "the test-mode tender shows no title",
                    )),
                    _ => {}
                }
            }
        }
        let items = tender["items"].as_array();
        for item_id in &facts.item_ids {
            let kept = items.is_some_and(|items| items.iter().any(|i| i["id"] == item_id.as_str()));
            if !kept {
                found.push(Violation::new(
                    &rules::FACT_ITEM_ID,
                    format!(
                        "the item created with id {item_id:?} is not among the items shown: {}",
                        items.map_or("none".to_owned(), |i| i
                            .iter()
                            .map(|i| i["id"].to_string())
                            .collect::<Vec<_>>()
                            .join(", "))
                    ),
                ));
            }
        }
        // The spec gives `date` for a draft and a published tender in active.enquiries; later
        // statuses are upstream's, which moves it with each status.
        if let Some(date) = tender["date"]
            .as_str()
            .filter(|_| DATE_STATED.contains(&status))
        {
            let draft = status == "draft";
            match &facts.date {
                Some((was_draft, before)) if *was_draft == draft && !same_instant(before, date) => {
                    found.push(Violation::new(
                        &rules::FACT_DATE,
                        format!(
                            "the tender's date was {before}, now shows {date} (status {status})"
                        ),
                    ));
                }
                _ => facts.date = Some((draft, date.to_owned())),
            }
        }
        if !facts.periods_changed
            && let (Some(start), Some(enquiry_end)) = (
                tender
                    .pointer("/tenderPeriod/startDate")
                    .and_then(Value::as_str),
                tender
                    .pointer("/enquiryPeriod/endDate")
                    .and_then(Value::as_str),
            )
            && !same_instant(start, enquiry_end)
        {
            found.push(Violation::new(
                &rules::FACT_PERIODS,
                format!(
                    "tenderPeriod.startDate {start} differs from enquiryPeriod.endDate {enquiry_end}"
                ),
            ));
        }
        let next_check = tender.get("next_check").filter(|v| !v.is_null());
        if status == "draft" && next_check.is_some() {
            found.push(Violation::new(
                &rules::FACT_NEXT_CHECK,
                format!(
                    "the draft shows next_check {}",
                    next_check.unwrap_or(&Value::Null)
                ),
            ));
        }
        if MOVE_DUE.contains(&status) && next_check.is_none() {
            found.push(Violation::new(
                &rules::FACT_NEXT_CHECK,
                format!("the tender in {status} shows no next_check"),
            ));
        }
        if status == "active.auction" && facts.lots == Some(false) {
            let missing: Vec<&str> = [
                ("auctionPeriod", Value::is_object as fn(&Value) -> bool),
                ("auctionUrl", Value::is_string),
            ]
            .into_iter()
            .filter(|(field, shape)| !tender.get(field).is_some_and(shape))
            .map(|(field, _)| field)
            .collect();
            if !missing.is_empty() {
                found.push(Violation::new(
                    &rules::FACT_AUCTION,
                    format!(
                        "the tender in active.auction shows no {}",
                        missing.join(" and no ")
                    ),
                ));
            }
        }
        if AUTHORS_HIDDEN.contains(&status)
            && let Some(questions) = tender["questions"].as_array()
        {
            for q in questions.iter().filter(|q| q.get("author").is_some()) {
                found.push(Violation::new(
                    &rules::FACT_QUESTION_AUTHOR,
                    format!(
                        "the tender in {status} shows the author of question {}",
                        q["id"]
                    ),
                ));
            }
        }
        if facts.lots == Some(false) {
            for path in lot_fields(tender) {
                found.push(Violation::new(
                    &rules::FACT_NO_LOTS,
                    format!("the tender created without lots shows {path}"),
                ));
            }
        }
        facts.status = Some(status.to_owned());
    }
}

impl TenderFacts {
    fn created(sent: &Value) -> TenderFacts {
        TenderFacts {
            test_mode: sent["mode"] == "test",
            item_ids: sent["items"]
                .as_array()
                .map(|items| TenderFacts::client_ids(items))
                .unwrap_or_default(),
            periods_changed: false,
            date: None,
            status: None,
            lots: Some(sent["lots"].as_array().is_some_and(|lots| !lots.is_empty())),
        }
    }

    fn client_ids(items: &[Value]) -> Vec<String> {
        items
            .iter()
            .filter_map(|item| item["id"].as_str().map(str::to_owned))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const T: &str = "0123456789abcdef0123456789abcdef";
    const D: &str = "fedcba9876543210fedcba9876543210";

    fn request(method: &str, path: &str, body: Option<Value>) -> SentRequest {
        SentRequest {
            method: method.into(),
            url: format!("http://h{path}"),
            body: body.map(|b| b.to_string()),
            ..SentRequest::default()
        }
    }

    fn tender(status: &str) -> Value {
        json!({
            "id": T, "status": status, "mode": "test",
            "title": "[ТЕСТУВАННЯ] Папір", "title_en": "[TESTING] Paper",
            "date": "2026-01-01T10:00:00.000001+02:00",
            "enquiryPeriod": {"endDate": "2026-01-08T10:00:00.000000+02:00"},
            "tenderPeriod": {"startDate": "2026-01-08T10:00:00.000000+02:00"},
            "next_check": "2026-01-08T10:00:00.000000+02:00",
            "items": [{"id": "my-item"}],
            "questions": [{"id": D, "title": "?"}],
            "documents": [{"id": D, "datePublished": "2026-01-02T10:00:00.000001+02:00"}]
        })
    }

    /// Facts after the creation of a test-mode tender with a client item id.
    fn created() -> Facts {
        let mut facts = Facts::default();
        let sent = json!({"data": {"mode": "test", "items": [{"id": "my-item"}]}});
        let found = facts.observe(
            &request("POST", "/api/2.3/tenders", Some(sent)),
            201,
            &json!({"data": tender("active.enquiries")}),
        );
        assert!(found.is_empty(), "{found:?}");
        facts
    }

    fn read(facts: &mut Facts, shown: Value) -> Vec<&'static str> {
        facts
            .observe(
                &request("GET", &format!("/api/2.3/tenders/{T}"), None),
                200,
                &json!({ "data": shown }),
            )
            .iter()
            .map(|v| v.check.rule)
            .collect()
    }

    #[test]
    fn a_faithful_later_read_passes() {
        let mut facts = created();
        assert!(read(&mut facts, tender("active.enquiries")).is_empty());
        let mut later = tender("active.qualification");
        later["questions"][0]["author"] = json!({"name": "x"});
        later["date"] = json!("2026-01-09T10:00:00.000001+02:00");
        later.as_object_mut().unwrap().remove("next_check");
        assert!(read(&mut facts, later).is_empty());
    }

    #[test]
    fn each_broken_fact_is_named() {
        type Breakage = fn(&mut Value);
        let cases: [(&str, Breakage, &str); 7] = [
            ("prefix", |t| t["title"] = json!("Папір"), "ep-rule-2"),
            ("item id", |t| t["items"][0]["id"] = json!(T), "conv-9"),
            (
                "date",
                |t| t["date"] = json!("2026-01-05T10:00:00.000001+02:00"),
                "res-date",
            ),
            (
                "periods",
                |t| t["tenderPeriod"]["startDate"] = json!("2026-01-09T10:00:00.000000+02:00"),
                "res-periods",
            ),
            (
                "next_check",
                |t| {
                    t.as_object_mut().unwrap().remove("next_check");
                },
                "res-next-check",
            ),
            (
                "author",
                |t| t["questions"][0]["author"] = json!({"name": "x"}),
                "res-question-author",
            ),
            (
                "datePublished",
                |t| t["documents"][0]["datePublished"] = json!("2026-01-03T10:00:00.000001+02:00"),
                "res-document",
            ),
        ];
        for (what, breaks, rule) in cases {
            let mut facts = created();
            let mut shown = tender("active.enquiries");
            breaks(&mut shown);
            assert_eq!(read(&mut facts, shown), [rule], "{what}");
        }
    }

    #[test]
    fn publication_may_refresh_the_date_once() {
        let mut facts = Facts::default();
        let mut draft = tender("draft");
        draft.as_object_mut().unwrap().remove("next_check");
        assert!(read(&mut facts, draft).is_empty());
        let mut published = tender("active.enquiries");
        published["date"] = json!("2026-01-01T11:00:00.000001+02:00");
        assert!(read(&mut facts, published.clone()).is_empty());
        published["date"] = json!("2026-01-01T12:00:00.000001+02:00");
        assert_eq!(read(&mut facts, published), ["res-date"]);
    }

    #[test]
    fn a_tender_created_without_lots_never_shows_lot_fields() {
        let mut facts = created();
        let mut shown = tender("active.qualification");
        shown["awards"] = json!([{"id": D, "lotID": D}]);
        shown["lots"] = json!([]);
        assert_eq!(read(&mut facts, shown), ["up-lots", "up-lots"]);
        let path = format!("/api/2.3/tenders/{T}/bids/{D}?acc_token=x");
        let bid = json!({"data": {"id": D, "lotValues": []}});
        let found = facts.observe(&request("GET", &path, None), 200, &bid);
        assert_eq!(found[0].check.rule, "up-lots");

        let mut lots = Facts::default();
        let sent = json!({"data": {"lots": [{"id": D}]}});
        let mut with_lots = tender("active.enquiries");
        with_lots["lots"] = json!([{"id": D}]);
        with_lots["items"][0]["relatedLot"] = json!(D);
        with_lots.as_object_mut().unwrap().remove("items");
        let found = lots.observe(
            &request("POST", "/api/2.3/tenders", Some(sent)),
            201,
            &json!({ "data": with_lots }),
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_lot_value_participation_url_carries_its_own_bid() {
        let mut facts = Facts::default();
        let path = format!("/api/2.3/tenders/{T}/bids/{D}?acc_token=x");
        let own = json!({"data": {"id": D, "lotValues": [
            {"relatedLot": T, "participationUrl": format!("http://auction/t_l?key_for_bid={D}")}]}});
        assert!(
            facts
                .observe(&request("GET", &path, None), 200, &own)
                .is_empty()
        );
        let other = json!({"data": {"id": D, "lotValues": [
            {"relatedLot": T, "participationUrl": format!("http://auction/t_l?key_for_bid={T}")}]}});
        let found = facts.observe(&request("GET", &path, None), 200, &other);
        assert_eq!(found[0].check.rule, "up-lots");
    }

    #[test]
    fn the_periods_are_the_services_until_a_change_sends_one() {
        let mut facts = created();
        let mut moved = tender("active.enquiries");
        moved["enquiryPeriod"]["endDate"] = json!("2026-01-07T10:00:00.000000+02:00");
        assert_eq!(read(&mut facts, moved.clone()), ["res-periods"]);
        let sent = json!({"data": {"enquiryPeriod": {"endDate": "2026-01-07T10:00:00+02:00"}}});
        let found = facts.observe(
            &request("PATCH", &format!("/api/2.3/tenders/{T}"), Some(sent)),
            200,
            &json!({ "data": moved.clone() }),
        );
        assert!(found.is_empty(), "{found:?}");
        assert!(read(&mut facts, moved).is_empty());
    }

    #[test]
    fn a_client_item_id_is_looked_for_among_all_items_until_items_are_changed() {
        let mut facts = created();
        let mut reordered = tender("active.enquiries");
        reordered["items"] = json!([{"id": T}, {"id": "my-item"}]);
        assert!(read(&mut facts, reordered).is_empty());
        let sent = json!({"data": {"items": [{"id": T}]}});
        let mut replaced = tender("active.enquiries");
        replaced["items"] = json!([{"id": T}]);
        let found = facts.observe(
            &request("PATCH", &format!("/api/2.3/tenders/{T}"), Some(sent)),
            200,
            &json!({ "data": replaced }),
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_tender_in_the_auction_shows_its_period_and_address() {
        let mut facts = created();
        let mut auction = tender("active.auction");
        assert_eq!(read(&mut facts, auction.clone()), ["state-auction"]);
        auction["auctionPeriod"] = json!({"startDate": "2026-01-20T11:00:00.000000+02:00"});
        auction["auctionUrl"] = json!("http://auction/t");
        assert!(read(&mut facts, auction).is_empty());
    }

    #[test]
    fn a_participation_url_carries_its_own_bid() {
        let mut facts = created();
        let path = format!("/api/2.3/tenders/{T}/bids/{D}?acc_token=x");
        let own = json!({"data": {"id": D,
            "participationUrl": format!("http://auction/t?key_for_bid={D}")}});
        assert!(
            facts
                .observe(&request("GET", &path, None), 200, &own)
                .is_empty()
        );
        let other = json!({"data": {"id": D,
            "participationUrl": format!("http://auction/t?key_for_bid={T}")}});
        let found = facts.observe(&request("GET", &path, None), 200, &other);
        assert_eq!(found[0].check.rule, "res-participation");
    }

    #[test]
    fn a_question_read_hides_its_author_but_its_creation_shows_it() {
        let mut facts = created();
        let with_author = json!({"data": {"id": D, "author": {"name": "x"}}});
        let path = format!("/api/2.3/tenders/{T}/questions");
        assert!(
            facts
                .observe(&request("POST", &path, None), 201, &with_author)
                .is_empty()
        );
        let found = facts.observe(
            &request("GET", &format!("{path}/{D}"), None),
            200,
            &with_author,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].check.rule, "res-question-author");
    }
}
