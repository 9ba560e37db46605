//! The shapes the API exchanges, its error answers and its security schemes.
//!
//! Output schemas name what every representation carries and type the rest loosely enough
//! that an extension adding fields still conforms; input schemas name the fields a client
//! sends (anything else is refused with 422 `Rogue field`).

use crate::edr::answers::MAX_RETRY_AFTER;
use crate::edr::{Answer, Status};
use serde_json::{Map, Value as Json, json};

fn r(name: &str) -> Json {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

fn list_of(name: &str) -> Json {
    json!({"type": "array", "items": r(name)})
}

fn text() -> Json {
    json!({"type": "string"})
}

fn moment() -> Json {
    json!({"type": "string", "format": "date-time", "description": "ISO 8601 with offset and microseconds; input may omit the offset"})
}

fn object(required: &[&str], properties: Json) -> Json {
    json!({"type": "object", "required": required, "properties": properties})
}

/// `properties` with the multilingual triple of `name`: `name`, `name_en` and `name_ru`, text.
fn with_languages(name: &str, mut properties: Json) -> Json {
    if let Some(fields) = properties.as_object_mut() {
        for suffix in ["", "_en", "_ru"] {
            fields.insert(format!("{name}{suffix}"), text());
        }
    }
    properties
}

/// A page of a listing: rows of `id` and `dateModified` (and the fields asked for).
fn listing() -> Json {
    object(
        &["next_page", "data"],
        json!({
            "next_page": r("PageLink"),
            "prev_page": r("PageLink"),
            "data": {"type": "array", "items": object(
                &["id", "dateModified"],
                json!({"id": text(), "dateModified": moment()}),
            )},
        }),
    )
}

pub fn schemas() -> Map<String, Json> {
    let entries = [
        (
            "Error",
            object(
                &["status", "errors"],
                json!({
                    "status": {"const": "error"},
                    "errors": {"type": "array", "minItems": 1, "items": object(
                        &["location", "name", "description"],
                        json!({
                            "location": {"type": "string", "description": "body, url, query, header or params"},
                            "name": {"type": "string", "description": "The field, header or parameter at fault"},
                            "description": {"type": "string"},
                        }),
                    )},
                }),
            ),
        ),
        (
            "EdrError",
            object(
                &["status", "errors"],
                json!({
                    "status": {"const": "error"},
                    "errors": {"type": "array", "minItems": 1, "items": object(
                        &["location", "name", "description"],
                        json!({
                            "location": text(),
                            "name": text(),
                            "description": {
                                "oneOf": [text(), {"type": "array", "items": {"type": "object"}}],
                                "description": "Upstream's list: [{message}], [{code, message}], or [{error: {errorDetails, code}, meta: {sourceDate}}] when not found; a string for a refused credential",
                            },
                        }),
                    )},
                }),
            ),
        ),
        (
            "EdrVerification",
            object(
                &["data", "meta"],
                json!({
                    "data": list_of("EdrSubject"),
                    "meta": object(&["sourceDate"], json!({"sourceDate": moment()})),
                }),
            ),
        ),
        (
            "EdrSubject",
            object(
                &[
                    "x_edrInternalId",
                    "registrationStatus",
                    "registrationStatusDetails",
                    "identification",
                ],
                json!({
                    "x_edrInternalId": {"type": "integer"},
                    "registrationStatus": {"type": "string", "enum": Status::ALL.map(Status::name)},
                    "registrationStatusDetails": text(),
                    "identification": object(
                        &["schema", "id", "legalName", "url"],
                        json!({
                            "schema": {"const": "UA-EDR"},
                            "id": {"type": ["string", "null"], "description": "A legal entity's EDRPOU code; null for a person"},
                            "legalName": text(),
                            "url": text(),
                        }),
                    ),
                }),
            ),
        ),
        (
            "EdrAnswer",
            object(
                &["id", "code", "answer", "hits"],
                json!({
                    "id": text(),
                    "code": text(),
                    "answer": {"type": "string", "enum": Answer::names()},
                    "retry_after": {"type": "integer"},
                    "broker": {"type": "string", "description": "Whose checks it answers; everyone's when absent"},
                    "times": {"type": "integer", "description": "How many checks it still answers; until removed when absent"},
                    "hits": {"type": "integer"},
                }),
            ),
        ),
        (
            "EdrAnswerInput",
            object(
                &["code", "answer"],
                json!({
                    "code": {"type": "string", "description": "An EDRPOU code, an IPN or a passport"},
                    "answer": {"type": "string", "enum": Answer::names()},
                    "retry_after": {"type": "integer", "minimum": 1, "maximum": MAX_RETRY_AFTER, "description": "Only with throttled: the Retry-After in seconds (default 26)"},
                    "broker": {"type": "string", "description": "Whose checks (only the caller's own, or any without credentials on --testing)"},
                    "times": {"type": "integer", "minimum": 1},
                }),
            ),
        ),
        ("Access", object(&["token"], json!({"token": text()}))),
        (
            "Spore",
            object(
                &["name", "apiVersion", "apiRoot"],
                json!({"name": text(), "apiVersion": text(), "apiRoot": text()}),
            ),
        ),
        (
            "PageLink",
            object(
                &["offset", "path", "uri"],
                json!({"offset": text(), "path": text(), "uri": text()}),
            ),
        ),
        ("TenderListing", listing()),
        ("ContractListing", listing()),
        (
            "Value",
            object(
                &["amount"],
                json!({"amount": {"type": "number"}, "currency": text(), "valueAddedTaxIncluded": {"type": "boolean"}}),
            ),
        ),
        (
            "Period",
            object(&[], json!({"startDate": moment(), "endDate": moment()})),
        ),
        (
            "AuctionPeriod",
            object(
                &[],
                json!({"startDate": moment(), "endDate": moment(), "shouldStartAfter": moment()}),
            ),
        ),
        (
            "Identifier",
            object(
                &["scheme", "id"],
                with_languages(
                    "legalName",
                    json!({"scheme": text(), "id": text(), "uri": text()}),
                ),
            ),
        ),
        (
            "Address",
            object(
                &["countryName"],
                with_languages(
                    "countryName",
                    json!({"streetAddress": text(), "locality": text(), "region": text(), "postalCode": text()}),
                ),
            ),
        ),
        (
            "ContactPoint",
            object(
                &["name"],
                with_languages(
                    "name",
                    json!({"email": text(), "telephone": text(), "faxNumber": text(), "url": text()}),
                ),
            ),
        ),
        (
            "Organization",
            object(
                &["name", "identifier", "address", "contactPoint"],
                with_languages(
                    "name",
                    json!({
                        "identifier": r("Identifier"),
                        "additionalIdentifiers": list_of("Identifier"),
                        "address": r("Address"),
                        "contactPoint": r("ContactPoint"),
                        "kind": {"type": "string", "description": "The procuring entity's alone"},
                    }),
                ),
            ),
        ),
        (
            "Classification",
            object(
                &["scheme", "id", "description"],
                json!({"scheme": text(), "id": text(), "description": text(), "description_en": text(), "uri": text()}),
            ),
        ),
        (
            "Unit",
            object(&["code"], json!({"code": text(), "name": text()})),
        ),
        (
            "Location",
            object(
                &["latitude", "longitude"],
                json!({
                    "latitude": {"type": ["number", "string"], "description": "As sent"},
                    "longitude": {"type": ["number", "string"], "description": "As sent"},
                    "elevation": {"type": ["number", "string"], "description": "As sent"},
                }),
            ),
        ),
        (
            "Item",
            object(
                &["id", "description", "classification"],
                with_languages(
                    "description",
                    json!({
                        "id": text(), "classification": r("Classification"),
                        "additionalClassifications": list_of("Classification"),
                        "unit": r("Unit"), "quantity": {"type": "number"},
                        "deliveryDate": r("Period"), "deliveryAddress": r("Address"),
                        "deliveryLocation": r("Location"),
                        "relatedLot": {"type": "string", "description": "The lot it belongs to"},
                    }),
                ),
            ),
        ),
        (
            "FeatureValue",
            object(
                &["value"],
                json!({"value": {"type": "number"}, "title": text(), "title_en": text(), "description": text()}),
            ),
        ),
        (
            "Feature",
            object(
                &["code", "featureOf", "title", "enum"],
                with_languages(
                    "description",
                    with_languages(
                        "title",
                        json!({
                            "code": text(),
                            "featureOf": {"type": "string", "enum": ["tenderer", "lot", "item"]},
                            "relatedItem": text(),
                            "enum": list_of("FeatureValue"),
                        }),
                    ),
                ),
            ),
        ),
        (
            "Document",
            object(
                &["id", "title", "url", "datePublished", "dateModified"],
                with_languages(
                    "description",
                    with_languages(
                        "title",
                        json!({
                            "id": text(), "url": text(), "hash": text(), "format": text(),
                            "documentType": text(), "documentOf": text(), "relatedItem": text(),
                            "language": text(),
                            "author": {"type": "string", "description": "The role that uploaded it, where the holder records one"},
                            "datePublished": moment(), "dateModified": moment(),
                            "previousVersions": {"type": "array", "items": {"type": "object"}},
                        }),
                    ),
                ),
            ),
        ),
        (
            "DocumentInput",
            object(
                &[],
                json!({"url": text(), "title": text(), "hash": text(), "format": text(), "description": text(), "documentType": text()}),
            ),
        ),
        (
            "Question",
            object(
                &["id", "title", "date"],
                json!({
                    "id": text(), "title": text(), "description": text(), "answer": text(),
                    "author": r("Organization"), "date": moment(), "dateAnswered": moment(),
                    "questionOf": text(), "relatedItem": text(),
                }),
            ),
        ),
        (
            "QuestionInput",
            object(
                &[],
                json!({"title": text(), "description": text(), "author": r("Organization"), "answer": text()}),
            ),
        ),
        (
            "Bid",
            object(
                &["id"],
                json!({
                    "id": text(), "status": text(), "value": r("Value"),
                    "lotValues": list_of("LotValue"),
                    "tenderers": list_of("Organization"), "parameters": list_of("Parameter"),
                    "documents": list_of("Document"),
                    "date": moment(), "participationUrl": text(),
                }),
            ),
        ),
        (
            "LotValue",
            object(
                &["value", "relatedLot"],
                json!({"value": r("Value"), "relatedLot": text(), "date": moment(), "participationUrl": text()}),
            ),
        ),
        (
            "Parameter",
            object(
                &["code", "value"],
                json!({"code": text(), "value": {"type": "number"}}),
            ),
        ),
        (
            "BidInput",
            object(
                &[],
                json!({"status": text(), "value": r("Value"), "tenderers": list_of("Organization"), "documents": list_of("DocumentInput")}),
            ),
        ),
        (
            "Award",
            object(
                &["id", "status"],
                json!({
                    "id": text(), "status": text(), "bid_id": text(), "lotID": text(),
                    "title": text(), "description": text(),
                    "suppliers": list_of("Organization"),
                    "value": r("Value"), "date": moment(), "complaintPeriod": r("Period"),
                    "documents": list_of("Document"), "complaints": list_of("Complaint"),
                }),
            ),
        ),
        (
            "AwardInput",
            object(
                &[],
                json!({"status": text(), "qualified": {"type": "boolean"}, "eligible": {"type": "boolean"}, "title": text(), "description": text()}),
            ),
        ),
        (
            "Contract",
            object(
                &["id", "status"],
                json!({
                    "id": text(), "contractID": text(), "awardID": text(), "status": text(),
                    "title": text(), "description": text(),
                    "items": list_of("Item"), "suppliers": list_of("Organization"), "value": r("Value"),
                    "contractNumber": text(), "dateSigned": moment(), "period": r("Period"),
                    "documents": list_of("Document"), "date": moment(),
                }),
            ),
        ),
        (
            "ManagedContract",
            object(
                &[
                    "id",
                    "status",
                    "contractID",
                    "value",
                    "owner",
                    "tender_id",
                    "dateModified",
                ],
                json!({
                    "id": text(), "contractID": text(), "awardID": text(), "status": text(),
                    "contractNumber": text(), "title": text(), "title_en": text(), "title_ru": text(),
                    "description": text(), "description_en": text(), "description_ru": text(),
                    "period": r("Period"), "value": r("Value"), "dateSigned": moment(),
                    "documents": list_of("Document"), "items": list_of("Item"),
                    "suppliers": list_of("Organization"), "procuringEntity": r("Organization"),
                    "owner": text(), "mode": text(), "tender_id": text(),
                    "changes": list_of("ContractChange"), "amountPaid": r("Value"),
                    "terminationDetails": text(), "dateModified": moment(),
                }),
            ),
        ),
        (
            "ManagedContractInput",
            object(
                &[],
                json!({"status": text(), "title": text(), "description": text(), "period": r("Period"), "value": r("Value"), "amountPaid": r("Value"), "terminationDetails": text(), "items": {"type": "array"}}),
            ),
        ),
        (
            "ContractChange",
            object(
                &["id", "status", "date", "rationale", "rationaleTypes"],
                json!({
                    "id": text(), "status": text(), "date": moment(), "rationale": text(),
                    "rationale_en": text(), "rationale_ru": text(),
                    "rationaleTypes": {"type": "array", "items": text()},
                    "contractNumber": text(), "dateSigned": moment(),
                }),
            ),
        ),
        (
            "ContractChangeInput",
            object(
                &[],
                json!({"status": text(), "rationale": text(), "rationale_en": text(), "rationale_ru": text(), "rationaleTypes": {}, "contractNumber": text(), "dateSigned": moment()}),
            ),
        ),
        (
            "AuctionState",
            object(
                &["status", "stage", "now"],
                json!({
                    "status": text(), "stage": {"type": "object"}, "now": moment(),
                    "stages": {"type": "array"}, "initial": {"type": "array"},
                    "results": {"type": "array"}, "participant": {"type": "object"},
                    "auctionUrl": text(), "tenderID": text(), "startDate": moment(), "endDate": moment(),
                }),
            ),
        ),
        (
            "AuctionBid",
            object(&["bid"], json!({"bid": {"type": "number"}})),
        ),
        (
            "AuctionBidAccepted",
            object(
                &["bid", "bidder_id"],
                json!({"bid": {"type": ["number", "null"]}, "bidder_id": text()}),
            ),
        ),
        (
            "ContractInput",
            object(
                &[],
                json!({"status": text(), "contractNumber": text(), "value": r("Value"), "dateSigned": moment(), "period": r("Period")}),
            ),
        ),
        (
            "Cancellation",
            object(
                &["id", "status", "reason"],
                json!({"id": text(), "reason": text(), "status": text(), "cancellationOf": text(), "relatedLot": text(), "date": moment(), "documents": list_of("Document")}),
            ),
        ),
        (
            "CancellationInput",
            object(
                &[],
                json!({"reason": text(), "status": text(), "cancellationOf": text()}),
            ),
        ),
        (
            "Complaint",
            object(
                &["id", "status", "title"],
                json!({
                    "id": text(), "complaintID": text(), "status": text(), "type": text(),
                    "title": text(), "description": text(), "author": r("Organization"),
                    "relatedLot": text(),
                    "date": moment(), "dateSubmitted": moment(), "dateAnswered": moment(),
                    "resolution": text(), "resolutionType": text(), "satisfied": {"type": "boolean"},
                    "tendererAction": text(), "tendererActionDate": moment(),
                    "cancellationReason": text(), "dateCanceled": moment(),
                    "documents": list_of("Document"),
                }),
            ),
        ),
        (
            "ComplaintInput",
            object(
                &[],
                json!({
                    "title": text(), "description": text(), "author": r("Organization"), "status": text(),
                    "resolution": text(), "resolutionType": text(), "satisfied": {"type": "boolean"},
                    "tendererAction": text(), "cancellationReason": text(),
                }),
            ),
        ),
        (
            "Lot",
            object(
                &["id", "title", "status"],
                with_languages(
                    "description",
                    with_languages(
                        "title",
                        json!({
                            "id": text(), "status": text(),
                            "value": r("Value"), "minimalStep": r("Value"), "guarantee": r("Value"),
                            "auctionPeriod": r("AuctionPeriod"), "auctionUrl": text(), "date": moment(),
                        }),
                    ),
                ),
            ),
        ),
        (
            "LotInput",
            object(
                &[],
                json!({"title": text(), "description": text(), "value": r("Value"), "minimalStep": r("Value"), "guarantee": r("Value")}),
            ),
        ),
        (
            "Tender",
            object(
                &[
                    "id",
                    "tenderID",
                    "status",
                    "title",
                    "owner",
                    "date",
                    "dateModified",
                ],
                with_languages(
                    "description",
                    with_languages(
                        "title",
                        json!({
                            "id": text(), "tenderID": text(), "status": text(), "mode": text(),
                            "owner": text(), "procurementMethodRationale": text(),
                            "procurementMethodType": text(), "procurementMethod": text(),
                            "awardCriteria": text(), "submissionMethod": text(),
                            "procurementMethodDetails": text(), "submissionMethodDetails": text(),
                            "value": r("Value"), "minimalStep": r("Value"), "guarantee": r("Value"),
                            "procuringEntity": r("Organization"), "items": list_of("Item"),
                            "features": list_of("Feature"), "lots": list_of("Lot"),
                            "enquiryPeriod": r("Period"), "tenderPeriod": r("Period"),
                            "auctionPeriod": r("AuctionPeriod"), "awardPeriod": r("Period"),
                            "auctionUrl": text(),
                            "documents": list_of("Document"), "questions": list_of("Question"),
                            "bids": list_of("Bid"), "numberOfBids": {"type": "integer"},
                            "awards": list_of("Award"), "contracts": list_of("Contract"),
                            "cancellations": list_of("Cancellation"), "complaints": list_of("Complaint"),
                            "date": moment(), "dateModified": moment(), "next_check": moment(),
                        }),
                    ),
                ),
            ),
        ),
        (
            "TenderInput",
            object(
                &[],
                json!({
                    "procurementMethodType": {"type": "string", "enum": ["belowThreshold"]},
                    "title": text(), "title_en": text(), "title_ru": text(), "description": text(),
                    "status": text(), "mode": {"type": "string", "enum": ["test"]},
                    "value": r("Value"), "minimalStep": r("Value"), "guarantee": r("Value"),
                    "enquiryPeriod": r("Period"), "tenderPeriod": r("Period"),
                    "procuringEntity": r("Organization"), "items": list_of("Item"), "lots": {"type": "array"},
                    "features": {"type": "array"},
                    "procurementMethodDetails": text(), "submissionMethodDetails": text(),
                }),
            ),
        ),
        (
            "Clock",
            object(
                &["now", "frozen"],
                json!({
                    "now": moment(),
                    "frozen": {"type": "boolean"},
                    "movable": {"type": "boolean", "description": "Whether the caller may move this clock"},
                    "broker": {"type": "string", "description": "Whose clock, for a broker's"},
                    "own": {"type": "boolean", "description": "Whether the broker has moved a clock of its own (else it reads the server's)"},
                    "clock": {"type": "string", "description": "With ?tender= or ?contract=: the test clock the record lives on (then name, owner and deleted as a TestClock shows them)"},
                    "tender": {"type": "string", "description": "The tender ?tender= named"},
                    "contract": {"type": "string", "description": "The contract ?contract= named"},
                }),
            ),
        ),
        (
            "TestClock",
            object(
                &["id", "now", "frozen", "owner"],
                json!({
                    "id": {"type": "string", "description": "32 hexadecimal digits"},
                    "name": {"type": ["string", "null"]},
                    "now": moment(),
                    "frozen": {"type": "boolean", "description": "A new test clock stands still until moved"},
                    "owner": {"type": "string", "description": "The broker that created it, the only one that moves or deletes it"},
                    "movable": {"type": "boolean", "description": "Whether the caller may move this clock"},
                    "deleted": {"type": "boolean", "description": "Deleted: its finished records stay, on the clock frozen at its last moment"},
                    "settled": {
                        "type": "object",
                        "description": "In the answer of a deletion with settle=true: the records it finished first",
                        "required": ["tenders", "contracts"],
                        "properties": {
                            "tenders": {"type": "array", "items": text(), "description": "Ids of the tenders it cancelled"},
                            "contracts": {"type": "array", "items": text(), "description": "Ids of the contracts under management it terminated"},
                        },
                    },
                    "live": {
                        "type": "object",
                        "description": "In the list of the caller's clocks: the records on it still in a live status (a deletion waits for them), in the order made",
                        "required": ["tenders", "contracts"],
                        "properties": {
                            "tenders": {"type": "array", "items": text(), "description": "Ids of its tenders not complete, cancelled or unsuccessful (drafts included)"},
                            "contracts": {"type": "array", "items": text(), "description": "Ids of its contracts under management still active"},
                        },
                    },
                }),
            ),
        ),
        (
            "TestClockInput",
            object(
                &[],
                json!({
                    "name": {"type": "string", "maxLength": 200},
                    "now": {"allOf": [moment()], "description": "Where it stands, past or future (by default the broker's clock's now)"},
                }),
            ),
        ),
        (
            "TestClockMove",
            object(
                &[],
                json!({
                    "now": moment(),
                    "advance": {"type": "string", "description": "ISO 8601 duration, e.g. P2DT3H"},
                    "frozen": {"type": "boolean"},
                }),
            ),
        ),
        (
            "MadeTenderInput",
            object(
                &["status"],
                json!({
                    "status": {"type": "string", "enum": ["draft", "active.enquiries", "active.tendering", "active.auction", "active.qualification", "active.awarded", "complete", "unsuccessful", "cancelled"]},
                    "bids": {"type": "integer", "minimum": 0, "description": "One per bidder (by default 2 from tendering on, else 0)"},
                    "bidders": {"type": "array", "items": {"type": "string"}, "description": "The brokers that bid, in order (by default the others known)"},
                    "lots": {"type": "integer", "minimum": 0, "maximum": 10},
                    "features": {"type": "boolean", "description": "A tenderer feature each bid gives a value of"},
                    "auction": {"type": "string", "enum": ["fast-forward", "live"], "description": "Settled when tendering ends, or held live (always live for active.auction)"},
                    "contract": {"type": "string", "enum": ["active", "terminated"], "description": "With complete: the contract under management in this status"},
                    "tender": {"type": "object", "description": "Fields merged over the default tender (null removes one)"},
                }),
            ),
        ),
        (
            "MadeTender",
            object(
                &["data", "access", "clock", "bids", "contracts"],
                json!({
                    "data": r("Tender"),
                    "access": {"type": "object", "properties": {"token": text(), "owner": text()}},
                    "clock": r("TestClock"),
                    "bids": {"type": "array", "items": {"type": "object", "properties": {"id": text(), "token": text(), "broker": text()}}},
                    "contracts": {"type": "array", "description": "Each signed contract under management with its own token", "items": {"type": "object", "properties": {"id": text(), "token": text(), "status": text()}}},
                }),
            ),
        ),
        (
            "ClockInput",
            object(
                &[],
                json!({
                    "now": moment(),
                    "advance": {"type": "string", "description": "ISO 8601 duration, e.g. P2DT3H"},
                    "frozen": {"type": "boolean"},
                    "broker": {"type": "string", "description": "Whose clock to move (only the caller's own, or any without credentials on --testing)"},
                }),
            ),
        ),
        (
            "FaultRule",
            object(
                &["id", "match", "fault", "hits"],
                json!({
                    "id": text(),
                    "match": r("FaultMatch"),
                    "fault": {"type": "string", "enum": ["error-after-commit", "error-before-commit", "drop-after-commit", "delay"]},
                    "status": {"type": "integer", "minimum": 500, "maximum": 599},
                    "delay_ms": {"type": "integer", "minimum": 0},
                    "times": {"type": "integer", "minimum": 0, "description": "Hits left (absent: no limit, with a probability)"},
                    "probability": {"type": "number", "minimum": 0, "maximum": 1},
                    "seed": {"type": "integer", "minimum": 0},
                    "hits": {"type": "integer", "minimum": 0},
                }),
            ),
        ),
        (
            "ExchangePage",
            object(
                &["next_page", "data"],
                json!({
                    "next_page": r("PageLink"),
                    "data": list_of("Exchange"),
                    "log": object(&["kept", "bound", "bytes"], json!({
                        "kept": {"type": "integer", "description": "Exchanges of the caller's kept"},
                        "bound": {"type": "integer", "description": "The most kept (--request-log)"},
                        "bytes": {"type": "integer", "description": "What they hold in memory: bodies, fields and entries"},
                    })),
                }),
            ),
        ),
        (
            "Exchange",
            object(
                &[
                    "id", "at", "method", "path", "status", "ms", "request", "response", "curl",
                ],
                json!({
                    "id": {"type": "string", "description": "The X-Request-ID it was answered with"},
                    "at": moment(),
                    "method": text(),
                    "path": text(),
                    "query": {"type": "string", "description": "acc_token masked"},
                    "status": {"type": "integer", "description": "As answered (or, when lost, as it would have been)"},
                    "ms": {"type": "number"},
                    "lost": {"type": "boolean", "description": "The answer never reached the client (a drop-* fault)"},
                    "fault": object(&["rule", "fault"], json!({"rule": text(), "fault": text()})),
                    "record": object(&["kind", "id"], json!({"kind": {"type": "string", "enum": ["tender", "contract", "auction"]}, "id": text()})),
                    "request": r("ExchangeBody"),
                    "response": r("ExchangeBody"),
                    "curl": {"type": "string", "description": "Repeats it; $BROKER_KEY and $TOKEN stand for the credentials"},
                }),
            ),
        ),
        (
            "ExchangeBody",
            object(
                &["size"],
                json!({
                    "size": {"type": "integer"},
                    "json": {"description": "The body, when it is whole JSON (tokens and passwords masked)"},
                    "text": {"type": "string", "description": "The body as text otherwise (masked)"},
                    "cut": {"type": "boolean", "description": "Only its first 16 KiB are kept"},
                    "contentType": text(),
                    "token": {"type": "string", "enum": ["acc_token", "X-Access-Token", "access.token"]},
                    "location": text(),
                }),
            ),
        ),
        (
            "ClientReport",
            object(
                &["broker", "exchanges", "passed", "failed", "rules"],
                json!({
                    "broker": text(),
                    "clock": {"type": ["string", "null"]},
                    "exchanges": {"type": "integer"},
                    "from": {"type": ["string", "null"], "format": "date-time"},
                    "to": {"type": ["string", "null"], "format": "date-time"},
                    "passed": {"type": "boolean"},
                    "failed": {"type": "integer"},
                    "rules": {"type": "array", "items": object(
                        &["rule", "title", "spec", "words", "passed", "findings"],
                        json!({
                            "rule": text(), "title": text(), "spec": text(), "words": text(),
                            "passed": {"type": "boolean"},
                            "findings": {"type": "array", "items": object(
                                &["description", "requests"],
                                json!({"description": text(), "requests": {"type": "array", "items": text()}}),
                            )},
                        }),
                    )},
                }),
            ),
        ),
        (
            "FaultMatch",
            object(
                &["path"],
                json!({
                    "method": text(),
                    "path": {"type": "string", "description": "A path under /api/2.3 or /auctions; * stands for one whole segment"},
                    "broker": {"type": "string", "description": "Only this broker's requests (a broker may name only itself)"},
                    "clock": {"type": "string", "description": "Only the requests on this test clock of the caller's: a tender creation naming it, any request to a record living on it"},
                }),
            ),
        ),
        (
            "Key",
            object(
                &["KeyID", "algorithm", "publicKey"],
                json!({"KeyID": text(), "algorithm": text(), "publicKey": text()}),
            ),
        ),
        ("Registration", object(&["hash"], json!({"hash": text()}))),
        (
            "StoredFile",
            object(
                &["url"],
                json!({"url": text(), "hash": text(), "format": text(), "title": text()}),
            ),
        ),
        (
            "Uploaded",
            object(
                &["data"],
                json!({"data": r("StoredFile"), "get_url": text()}),
            ),
        ),
        (
            "FaultRuleInput",
            object(
                &["match", "fault"],
                json!({"match": r("FaultMatch"), "fault": text(), "status": {"type": "integer"}, "delay_ms": {"type": "integer"}, "times": {"type": "integer"}, "probability": {"type": "number"}, "seed": {"type": "integer"}}),
            ),
        ),
        (
            "OpenApi",
            object(
                &["openapi", "info", "paths"],
                json!({"openapi": text(), "info": {"type": "object"}, "paths": {"type": "object"}}),
            ),
        ),
    ];
    entries
        .into_iter()
        .map(|(name, schema)| (name.to_string(), schema))
        .collect()
}

/// One reusable answer per error status, each the envelope.
pub fn responses() -> Map<String, Json> {
    [
        (400, "The body could not be read"),
        (403, "No or wrong credentials or token: url/permission/Forbidden"),
        (404, "Unknown path or record: url/not_found or url/<id parameter>"),
        (413, "The body is larger than --max-body"),
        (409, "A state that forbids it: a deleted test clock, a clock holding live records, a broker at one of its bounds (live tenders, test clocks, uploaded files or their bytes): body/data saying which and what to do"),
        (415, "Content-Type is not application/json: header/Content-Type"),
        (422, "Invalid body or a rule of the current phase: one entry per field at fault"),
    ]
    .into_iter()
    .map(|(code, description)| {
        (
            format!("Error{code}"),
            json!({"description": description, "content": {"application/json": {"schema": r("Error")}}}),
        )
    })
    .chain([(
        "Error429".to_string(),
        json!({
            "description": "The broker (without a broker's credentials: the client address) sent more than the server's rate: url/too_many_requests, saying the rate; nothing was done",
            "headers": {"Retry-After": {"required": true, "description": "Whole seconds until the request may be sent again", "schema": {"type": "integer", "minimum": 1}}},
            "content": {"application/json": {"schema": r("Error")}},
        }),
    )])
    .chain(edr_responses())
    .collect()
}

/// The EDR service's refusals, as upstream's service answered them.
fn edr_responses() -> Vec<(String, Json)> {
    let body = json!({"application/json": {"schema": r("EdrError")}});
    vec![
        (
            "EdrRefused".into(),
            json!({"description": "A refused credential (url/permission/Forbidden), no id or passport (url/id), a malformed passport, EDR's timeout or its 502 (each with upstream's description)", "content": body}),
        ),
        (
            "EdrNotFound".into(),
            json!({"description": "Not in the register: body/data with [{error: {errorDetails, code: notFound}, meta: {sourceDate}}]; also any path of the tender API's version", "content": body}),
        ),
        (
            "EdrThrottled".into(),
            json!({
                "description": "EDR throttled the service: [{message: Retry request after N seconds.}]",
                "headers": {"Retry-After": {"required": true, "description": "Seconds to wait", "schema": {"type": "integer"}}},
                "content": body,
            }),
        ),
    ]
}

pub fn headers() -> Json {
    json!({"Location": {"required": true, "description": "The full address of the created object or of the file", "schema": text()}})
}

pub fn parameters() -> Json {
    json!({"opt_pretty": {"name": "opt_pretty", "in": "query", "required": false, "schema": text(), "description": "1: indented JSON"}})
}

pub fn security_schemes() -> Json {
    json!({
        "broker": {"type": "http", "scheme": "basic", "description": "A broker: the user name is the broker's key (password ignored); it becomes the owner of what it creates"},
        "edr_user": {"type": "http", "scheme": "basic", "description": "A user of the EDR service's own [platforms] group (--ds-users or the brokers file), with its password"},
        "acc_token": {"type": "apiKey", "in": "query", "name": "acc_token", "description": "The access token returned when the object was created"},
        "X-Access-Token": {"type": "apiKey", "in": "header", "name": "X-Access-Token", "description": "The same token as a header (or access.token in the body)"},
    })
}

/// A tender the server accepts whatever its clock says (its periods lie far ahead).
pub fn tender_example() -> Json {
    let address = json!({"countryName": "Україна", "postalCode": "01220", "region": "м. Київ", "streetAddress": "вул. Банкова, 11", "locality": "м. Київ"});
    json!({
        "procurementMethodType": "belowThreshold",
        "title": "Шкільні обіди",
        "value": {"amount": 500, "currency": "UAH"},
        "minimalStep": {"amount": 15, "currency": "UAH"},
        "enquiryPeriod": {"endDate": "2099-01-10T10:00:00+02:00"},
        "tenderPeriod": {"endDate": "2099-01-20T10:00:00+02:00"},
        "procuringEntity": {
            "name": "Київська школа № 1", "kind": "general",
            "identifier": {"scheme": "UA-EDR", "id": "00037256", "uri": "http://school.example.net/"},
            "address": address,
            "contactPoint": {"name": "Олена Петренко", "telephone": "0440000000"},
        },
        "items": [{
            "id": "item-1", "description": "Шкільні обіди", "quantity": 5,
            "classification": {"scheme": "ДК021", "id": "55523100-3", "description": "Послуги з харчування у школах"},
            "unit": {"code": "44617100-9", "name": "item"},
            "deliveryDate": {"endDate": "2099-02-01T10:00:00+02:00"},
            "deliveryAddress": address,
        }],
    })
}

/// A question anyone may ask while enquiries are open.
pub fn question_example() -> Json {
    json!({
        "title": "Чи можна доставляти обіди двічі на день?",
        "description": "Уточніть, будь ласка, графік доставки.",
        "author": {
            "name": "ТОВ «Смачно»",
            "identifier": {"scheme": "UA-EDR", "id": "00037257", "legalName": "ТОВ «Смачно»"},
            "address": {"countryName": "Україна", "postalCode": "01221", "region": "м. Київ", "streetAddress": "вул. Хрещатик, 1", "locality": "м. Київ"},
            "contactPoint": {"name": "Іван Коваль", "telephone": "0440000001", "email": "ivan@smachno.example.net"},
        },
    })
}

/// A document as uploaded to the document service.
pub fn document_example() -> Json {
    json!({
        "title": "specification.pdf",
        "url": "http://docs.example.net/get/specification.pdf",
        "hash": "md5:00000000000000000000000000000000",
        "format": "application/pdf",
    })
}
