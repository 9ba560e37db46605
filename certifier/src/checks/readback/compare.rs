//! Comparing what was sent with what was stored: what a broker may change of a contract, the
//! fields that differ, and what a tender PATCH changed besides what it sent.
use serde_json::Value;

use crate::exchange::timestamps;

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

/// The resource a write's data belongs to, for telling the fields the spec's tables name from
/// the rest (an extension's, or upstream's sandbox fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    Tender,
    Bid,
    Document,
    Question,
    Award,
    Contract,
    /// A record the spec does not have (a lot, a contract under management, a change): every
    /// field is upstream's.
    BeyondSpec,
}

/// The fields of the spec's resource tables, by resource.
const TENDER_FIELDS: [&str; 27] = [
    "id",
    "tenderID",
    "status",
    "procurementMethodType",
    "procurementMethod",
    "awardCriteria",
    "submissionMethod",
    "title",
    "title_en",
    "title_ru",
    "value",
    "minimalStep",
    "guarantee",
    "enquiryPeriod",
    "tenderPeriod",
    "auctionPeriod",
    "auctionUrl",
    "procuringEntity",
    "items",
    "features",
    "mode",
    "documents",
    "questions",
    "date",
    "dateModified",
    "next_check",
    "owner",
];
const ITEM_FIELDS: [&str; 10] = [
    "id",
    "description",
    "description_en",
    "description_ru",
    "classification",
    "additionalClassifications",
    "deliveryAddress",
    "deliveryDate",
    "unit",
    "quantity",
];
const BID_FIELDS: [&str; 7] = [
    "id",
    "status",
    "value",
    "tenderers",
    "documents",
    "date",
    "participationUrl",
];
const DOCUMENT_FIELDS: [&str; 11] = [
    "id",
    "title",
    "url",
    "hash",
    "format",
    "description",
    "documentType",
    "documentOf",
    "datePublished",
    "dateModified",
    "previousVersions",
];
const QUESTION_FIELDS: [&str; 7] = [
    "id",
    "title",
    "description",
    "author",
    "answer",
    "date",
    "questionOf",
];
const AWARD_FIELDS: [&str; 7] = [
    "id",
    "status",
    "bid_id",
    "suppliers",
    "value",
    "date",
    "complaintPeriod",
];
const CONTRACT_FIELDS: [&str; 12] = [
    "id",
    "contractID",
    "awardID",
    "status",
    "items",
    "suppliers",
    "value",
    "contractNumber",
    "dateSigned",
    "period",
    "documents",
    "date",
];

/// What was sent, split into the fields the spec's table of `resource` names (an item's and a
/// bid's documents by their own tables) and the rest, each with the shape of what was sent so
/// that both compare with the stored object.
pub fn split_by_spec(sent: &Value, resource: Resource) -> (Value, Value) {
    let fields: &[&str] = match resource {
        Resource::Tender => &TENDER_FIELDS,
        Resource::Bid => &BID_FIELDS,
        Resource::Document => &DOCUMENT_FIELDS,
        Resource::Question => &QUESTION_FIELDS,
        Resource::Award => &AWARD_FIELDS,
        Resource::Contract => &CONTRACT_FIELDS,
        Resource::BeyondSpec => return (Value::Object(Default::default()), sent.clone()),
    };
    let nested: Option<(&str, &[&str])> = match resource {
        Resource::Tender | Resource::Contract => Some(("items", &ITEM_FIELDS)),
        Resource::Bid => Some(("documents", &DOCUMENT_FIELDS)),
        _ => None,
    };
    split_fields(sent, fields, nested)
}

fn split_fields(sent: &Value, fields: &[&str], nested: Option<(&str, &[&str])>) -> (Value, Value) {
    let (mut spec, mut other) = (serde_json::Map::new(), serde_json::Map::new());
    for (key, value) in sent.as_object().into_iter().flatten() {
        if !fields.contains(&key.as_str()) {
            other.insert(key.clone(), value.clone());
            continue;
        }
        match (nested, value) {
            (Some((list, own)), Value::Array(members)) if list == key => {
                let (kept, rest): (Vec<Value>, Vec<Value>) = members
                    .iter()
                    .map(|member| split_fields(member, own, None))
                    .unzip();
                spec.insert(key.clone(), Value::Array(kept));
                if rest
                    .iter()
                    .any(|r| r.as_object().is_some_and(|m| !m.is_empty()))
                {
                    other.insert(key.clone(), Value::Array(rest));
                }
            }
            _ => {
                spec.insert(key.clone(), value.clone());
            }
        }
    }
    (Value::Object(spec), Value::Object(other))
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

    #[test]
    fn what_the_spec_names_is_told_from_the_rest() {
        let sent = json!({"title": "Папір", "lots": [{"id": "l"}], "description": "d",
            "procurementMethodDetails": "quick, accelerator=1440",
            "items": [{"id": "i", "quantity": 1, "relatedLot": "l"}, {"id": "j"}]});
        let (spec, other) = split_by_spec(&sent, Resource::Tender);
        assert_eq!(
            spec,
            json!({"title": "Папір", "items": [{"id": "i", "quantity": 1}, {"id": "j"}]})
        );
        assert_eq!(
            other,
            json!({"lots": [{"id": "l"}], "description": "d",
                "procurementMethodDetails": "quick, accelerator=1440",
                "items": [{"relatedLot": "l"}, {}]})
        );
        let (spec, other) = split_by_spec(&json!({"value": {"amount": 1}}), Resource::Bid);
        assert_eq!((spec, other), (json!({"value": {"amount": 1}}), json!({})));
        let lot = json!({"title": "Лот"});
        assert_eq!(
            split_by_spec(&lot, Resource::BeyondSpec),
            (json!({}), lot.clone())
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
