//! The rules of the interface that scenarios are tagged with (`@conv-5`, `@ep-bid-post`, …), so
//! a report can say which rule a failure broke and which rules are covered.

/// A rule of the spec, by tag: what the harness checks, and the spec's own words it rests on.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub tag: &'static str,
    pub text: &'static str,
    /// The spec's line: where it stands (section, row or rule number) and its words.
    pub spec: &'static str,
}

const fn rule(tag: &'static str, text: &'static str, spec: &'static str) -> Rule {
    Rule { tag, text, spec }
}

/// Every numbered convention, endpoint row and numbered rule of the spec, plus the state and
/// resource rules the features check. Each must be exercised by at least one `@spec` scenario.
pub const SPEC_RULES: &[Rule] = &[
    rule(
        "conv-1",
        "Convention 1: paths begin with /api/2.3",
        "Conventions 1: \"Paths are relative to `{base_url}` and begin with `/api/2.3`.\"",
    ),
    rule(
        "conv-2",
        "Convention 2: request bodies are {\"data\": object} sent as application/json",
        "Conventions 2: \"Every request that has a body sends JSON of the form `{\"data\": <object>}` with header `Content-Type: application/json`.\"",
    ),
    rule(
        "conv-3",
        "Convention 3: success is application/json; charset=UTF-8 with {\"data\": …}",
        "Conventions 3: \"Successful responses carry `Content-Type: application/json; charset=UTF-8` and a body `{\"data\": <object or array>}`.\"",
    ),
    rule(
        "conv-4",
        "Convention 4: creating a tender or bid returns access.token",
        "Conventions 4: \"Responses to creation requests (tender, bid) also carry a top-level `access` object with a `token` string.\"",
    ),
    rule(
        "conv-5",
        "Convention 5: every 201 carries a Location whose last segment is the id",
        "Conventions 5: \"Every `201 Created` response carries a `Location` header with the full address of the created object. Its last path segment equals the `id` of the object.\"",
    ),
    rule(
        "conv-6",
        "Convention 6: timestamps: input may omit the offset; output has offset and microseconds",
        "Conventions 6: \"Timestamps are ISO 8601. Input may omit the UTC offset. Output always carries an offset (the examples show `+03:00`) and microsecond precision.\"",
    ),
    rule(
        "conv-7",
        "Convention 7: integer amounts come back as decimal numbers",
        "Conventions 7: \"Numbers sent as integers (for example `amount`) are returned as decimal numbers.\"",
    ),
    rule(
        "conv-8",
        "Convention 8: the query parameter opt_pretty=1 is accepted",
        "Conventions 8: \"The query parameter `opt_pretty` is accepted on requests (value `1` is used).\"",
    ),
    rule(
        "conv-9",
        "Convention 9: ids are 32 lowercase hex characters; a client item id is kept",
        "Conventions 9: \"Identifiers of tenders, items, documents, questions, bids, awards and contracts are service-assigned 32-character lowercase hexadecimal strings. The exception is `items[].id`, which a client may supply at tender creation and which is then kept.\"",
    ),
    rule(
        "conv-10",
        "Convention 10: PATCH merges, keeps what was not sent, refreshes dateModified",
        "Conventions 10: \"PATCH is a partial update. The sent fields are merged into the stored object, and nested objects are merged as well. Fields not sent stay unchanged. The `dateModified` of the changed object is refreshed to the time of the change.\"",
    ),
    rule(
        "ep-list",
        "GET /tenders: {next_page, data: [{id, dateModified}]}, drafts omitted",
        "Endpoints, GET /api/2.3/tenders: \"200. `{next_page: {path: string, uri: string, offset: string}, data: [{id, dateModified}]}`. … `draft` tenders are omitted.\"",
    ),
    rule(
        "ep-create",
        "POST /tenders: 201, Location, {access: {token}, data: Tender}",
        "Endpoints, POST /api/2.3/tenders: \"201 with `Location`. `{access: {token}, data: Tender}`.\"",
    ),
    rule(
        "ep-get",
        "GET /tenders/{id}: the tender with its documents, questions and sub-records",
        "Endpoints, GET /api/2.3/tenders/{tender_id}: \"200. `{data: Tender}` including documents, questions, `auctionUrl` and other sub-records when present.\"",
    ),
    rule(
        "ep-patch",
        "PATCH /tenders/{id}?acc_token: 200 with the changed tender",
        "Endpoints, PATCH /api/2.3/tenders/{tender_id}?acc_token=<token>: \"Any tender fields to change … 200. `{data: Tender}`.\"",
    ),
    rule(
        "ep-doc-post",
        "POST /tenders/{id}/documents: 201, Location, the document",
        "Endpoints, POST /api/2.3/tenders/{tender_id}/documents?acc_token=<token>: \"`{url, title, hash, format}` … 201 with `Location`. `{data: Document}`.\"",
    ),
    rule(
        "ep-doc-list",
        "GET /tenders/{id}/documents: every document once, latest version",
        "Endpoints, GET /api/2.3/tenders/{tender_id}/documents: \"200. `{data: [Document]}`. It lists every document once, in the state of its latest version.\"",
    ),
    rule(
        "ep-doc-get",
        "GET /tenders/{id}/documents/{doc}: the document with previousVersions",
        "Endpoints, GET /api/2.3/tenders/{tender_id}/documents/{document_id}: \"200. `{data: Document}` including `previousVersions`.\"",
    ),
    rule(
        "ep-doc-patch",
        "PATCH /tenders/{id}/documents/{doc}: metadata such as documentType",
        "Endpoints, PATCH /api/2.3/tenders/{tender_id}/documents/{document_id}?acc_token=<token>: \"Metadata to change, for example `documentType`, `description`. … 200. `{data: Document}`.\"",
    ),
    rule(
        "ep-doc-put",
        "PUT /tenders/{id}/documents/{doc}: same id and datePublished, new dateModified",
        "Endpoints, PUT /api/2.3/tenders/{tender_id}/documents/{document_id}?acc_token=<token>: \"The same `id` and `datePublished` are kept, new file data replaces the old, and `dateModified` is refreshed.\"",
    ),
    rule(
        "ep-q-post",
        "POST /tenders/{id}/questions: 201, Location, the question with author, no token",
        "Endpoints, POST /api/2.3/tenders/{tender_id}/questions: \"`{title, description, author: Organization}`. No token is sent. … 201 with `Location`. `{data: Question}` with `author`.\"",
    ),
    rule(
        "ep-q-list",
        "GET /tenders/{id}/questions: the questions",
        "Endpoints, GET /api/2.3/tenders/{tender_id}/questions: \"200. `{data: [Question]}`.\"",
    ),
    rule(
        "ep-q-get",
        "GET /tenders/{id}/questions/{q}: the question",
        "Endpoints, GET /api/2.3/tenders/{tender_id}/questions/{question_id}: \"200. `{data: Question}`.\"",
    ),
    rule(
        "ep-q-patch",
        "PATCH /tenders/{id}/questions/{q}?acc_token: the answer",
        "Endpoints, PATCH /api/2.3/tenders/{tender_id}/questions/{question_id}?acc_token=<token>: \"`{answer: string}`, owner's token … 200. `{data: Question}` with `answer`.\"",
    ),
    rule(
        "ep-bid-post",
        "POST /tenders/{id}/bids: 201, Location, the bid and its token",
        "Endpoints, POST /api/2.3/tenders/{tender_id}/bids: \"201 with `Location`. `{access: {token}, data: Bid}`. The token belongs to the bid.\"",
    ),
    rule(
        "ep-bid-patch",
        "PATCH /tenders/{id}/bids/{bid}?acc_token={bid token}: activation",
        "Endpoints, PATCH /api/2.3/tenders/{tender_id}/bids/{bid_id}?acc_token=<bid_token>: \"`{status: \"active\"}` … 200. `{data: Bid}`.\"",
    ),
    rule(
        "ep-bid-get",
        "GET /tenders/{id}/bids/{bid}?acc_token={bid token}: the bid with documents",
        "Endpoints, GET /api/2.3/tenders/{tender_id}/bids/{bid_id}?acc_token=<bid_token>: \"200. `{data: Bid}` with `documents` and, when the auction exists, `participationUrl`.\"",
    ),
    rule(
        "ep-biddoc-post",
        "POST …/bids/{bid}/documents: 201, url under the bid's document path",
        "Endpoints, POST /api/2.3/tenders/{tender_id}/bids/{bid_id}/documents?acc_token=<bid_token>: \"201 with `Location`. `{data: Document}` whose `url` is a download address under the bid's document path.\"",
    ),
    rule(
        "ep-biddoc-list",
        "GET …/bids/{bid}/documents: the bid's documents",
        "Endpoints, GET /api/2.3/tenders/{tender_id}/bids/{bid_id}/documents?acc_token=<bid_token>: \"200. `{data: [Document]}`.\"",
    ),
    rule(
        "ep-award-patch",
        "PATCH /tenders/{id}/awards/{award}: status active by the owner",
        "Endpoints, PATCH /api/2.3/tenders/{tender_id}/awards/{award_id}?acc_token=<token>: \"`{status: \"active\"}`, owner's token … 200. `{data: Award}`.\"",
    ),
    rule(
        "ep-contract-patch",
        "PATCH /tenders/{id}/contracts/{contract}: number, value, dateSigned, period",
        "Endpoints, PATCH /api/2.3/tenders/{tender_id}/contracts/{contract_id}?acc_token=<token>: \"Any of `contractNumber` (string), `value.amount` (number, lower than the award's), `dateSigned` (timestamp), `period.startDate` and `period.endDate` (timestamps). Owner's token. … 200. `{data: Contract}`.\"",
    ),
    rule(
        "ep-rule-1",
        "Endpoint rule 1: two-phase (draft, then publish) and single-phase creation both work",
        "Endpoints, rule 1: \"Creating a tender with a body whose status is `draft` and later publishing it with a PATCH is the two-phase mechanism. Creating without a status is the single-phase mechanism. Both are available …\"",
    ),
    rule(
        "ep-rule-2",
        "Endpoint rule 2: test-mode title prefixes apply in every response",
        "Endpoints, rule 2: \"In a tender created in test mode, the prefixes on the titles apply in every response.\"",
    ),
    rule(
        "ep-rule-3",
        "Endpoint rule 3: the shown format (PDF) is accepted for tender and bid documents",
        "Endpoints, rule 3: \"Only documents of the shown kinds may be uploaded. PDF is the shown format for tender documents and bid documents.\"",
    ),
    rule(
        "state-draft",
        "A draft has a token, is not listed, has no next_check, is left by the scheduler",
        "States, tender status: \"(none) → `draft`: Access token is returned. The tender is absent from the list and from the scheduler. `next_check` is absent.\"",
    ),
    rule(
        "state-single",
        "Single-phase creation gives active.enquiries, listed, next_check = enquiry end",
        "States, tender status: \"`POST /tenders` without a status (single-phase creation) → `active.enquiries`: Tender appears in the list. `next_check` is set to the enquiry end.\"",
    ),
    rule(
        "state-publish",
        "Publishing a draft: active.enquiries, listed, date refreshed, next_check set",
        "States, tender status: \"`draft` → `active.enquiries` by PATCH with the tender's token: Tender appears in the list. `date` is refreshed and `next_check` is set. Repeating the same request returns success and causes no error.\"",
    ),
    rule(
        "state-tendering",
        "The scheduler moves active.enquiries to active.tendering at the tender period start",
        "States, tender status: \"`active.enquiries` → `active.tendering` by the scheduler when the start date of the tender period comes: Bids may be registered.\"",
    ),
    rule(
        "state-auction",
        "active.auction is shown with an auctionPeriod and an auctionUrl",
        "States: \"The state `active.auction` is shown on a tender that has an `auctionPeriod` and an `auctionUrl`.\"",
    ),
    rule(
        "phase-questions",
        "Questions are asked while the tender is in active.enquiries",
        "Phase rules: \"Questions are asked while the tender is in `active.enquiries`.\"",
    ),
    rule(
        "phase-bids",
        "Bids are registered while the tender is in active.tendering",
        "Phase rules: \"Bids are registered while the tender is in `active.tendering`.\"",
    ),
    rule(
        "bid-draft",
        "A bid sent with status draft is a draft",
        "Bid status: \"`POST /tenders/{id}/bids` with `data.status` = `draft` → `draft`.\"",
    ),
    rule(
        "bid-batch",
        "A bid sent without status, with documents, is active",
        "Bid status: \"`POST /tenders/{id}/bids` without a status (batch mode, with `documents`) → `active`.\"",
    ),
    rule(
        "bid-activate",
        "PATCH status active with the bid token activates a draft bid",
        "Bid status: \"`draft` → `active` by `PATCH /tenders/{id}/bids/{bid_id}` with `data.status` = `active` and the bid's token.\"",
    ),
    rule(
        "award-active",
        "An activated award has a complaintPeriod, and the contract is shown in status pending",
        "Award and contract status: \"`PATCH` with `data.status` = `active` by the tender owner returns the award in status `active`, with `complaintPeriod` set. … The contract is shown in status `pending`.\"",
    ),
    rule(
        "res-tender",
        "Service-set tender fields: procurementMethod, awardCriteria, submissionMethod, tenderID, owner",
        "Resources, Tender: \"`procurementMethod` … Value `open`. `awardCriteria` … Value `lowestCost`. `submissionMethod` … Value `electronicAuction`. `tenderID` … Form `UA-<YYYY>-<MM>-<DD>-<6-digit sequence>`. `owner` … Name of the authenticated user who created the tender.\"",
    ),
    rule(
        "res-periods",
        "enquiryPeriod starts at creation; tenderPeriod starts at the enquiry end",
        "Resources, Tender: \"`enquiryPeriod`: The service sets `startDate` to the moment of creation. `tenderPeriod`: The service sets `startDate` equal to `enquiryPeriod.endDate`.\"",
    ),
    rule(
        "res-value",
        "valueAddedTaxIncluded defaults to true; a bid without currency takes the tender's",
        "Resources, Value: \"`valueAddedTaxIncluded`: Output value `true` when not sent.\" \"`currency` … is omitted in a bid's `value` and then equals the tender's currency in the output.\"",
    ),
    rule(
        "res-guarantee",
        "guarantee can be set later by PATCH, in another currency",
        "Resources, Tender: \"`guarantee` … It can be set later by PATCH. Its currency may differ from that of `value`.\"",
    ),
    rule(
        "res-question-author",
        "A question's author is returned on creation, hidden on reads and on the answer",
        "Resources, Question: \"`author` … It is returned in the creation response. It is hidden in the responses to the answer update and to reads.\"",
    ),
    rule(
        "res-document",
        "Documents: md5 hash, documentOf tender, datePublished kept, dateModified refreshed",
        "Resources, Document: \"`hash`: Form `md5:` followed by 32 hexadecimal digits.\" \"`documentOf`: Value `tender` in all shown documents.\" \"`datePublished`: Set at first upload. It is kept when the document is re-uploaded.\" \"`dateModified`: Refreshed on re-upload.\"",
    ),
    rule(
        "res-contract",
        "Contract: contractID {tenderID}-{n}, items copied, value defaults to the award's",
        "Resources, Contract: \"`contractID`: Form `<tenderID>-<sequence number>`.\" \"`items`: Copied from the tender.\" \"`value`: Defaults to the award's value.\"",
    ),
    rule(
        "res-participation",
        "participationUrl is the auctionUrl plus ?key_for_bid={bid id}, one per bid",
        "Resources, Bid: \"`participationUrl` … It is the auction address plus the query parameter `key_for_bid=<bid_id>`. Each bid has its own.\"",
    ),
    rule(
        "auth-1",
        "Authentication 1: Basic auth; the user name becomes the owner",
        "Authentication 1: \"Requests carry the header `Authorization` with the HTTP Basic scheme. The name in the credentials identifies the client (the broker). It becomes the `owner` of the tenders created.\"",
    ),
    rule(
        "auth-2",
        "Authentication 2: changes need acc_token: the tender token or the bid token",
        "Authentication 2: \"Modifying or creating records under a tender, and reading a bid's private data, needs the query parameter `acc_token`.\"",
    ),
    rule(
        "auth-3",
        "Authentication 3: listing and asking questions need no acc_token",
        "Authentication 3: \"Listing tenders, and asking questions, need no `acc_token`. A listing request without the `Authorization` header is shown to work.\"",
    ),
    rule(
        "err-415",
        "Errors: a POST that is not application/json is 415 header/Content-Type",
        "Errors: \"A POST sent with a Content-Type other than `application/json` | 415 | `header` | `Content-Type`\"",
    ),
    rule(
        "err-422",
        "Errors: a body that is not a JSON object with data is 422 body/data",
        "Errors: \"A POST with `application/json` whose body is not a decodable JSON object with `data` | 422 | `body` | `data`\"",
    ),
    rule(
        "err-envelope",
        "Errors: {status: error, errors: [{description, location, name}]}",
        "Errors: \"An error response is JSON of the form `{status: \"error\", errors: [{description: string, location: string, name: string}]}`.\"",
    ),
    rule(
        "err-rule-1",
        "Error rule 1: after an unclear outcome the client checks the object and repeats",
        "Errors, rule 1: \"A 5xx response does not guarantee that the request was not carried out. The client checks the state of the object … and repeats the request at intervals until it succeeds.\"",
    ),
    rule(
        "err-rule-2",
        "Error rule 2: repeating a publication succeeds without error",
        "Errors, rule 2: \"Repeating a publication request (`status` = `active.enquiries`) for an already published tender succeeds without error.\"",
    ),
    rule(
        "ver-1",
        "Versioning 1: the version is the path segment /api/2.3",
        "Versioning 1: \"The version is a path segment, and all shown paths use `/api/2.3`.\"",
    ),
    rule(
        "ver-2",
        "Versioning 2: single-phase creation is retained next to the two-phase one",
        "Versioning 2: \"The single-phase tender creation is retained next to the two-phase one …\"",
    ),
    rule(
        "err-rule-3",
        "Error rule 3: a creation repeated after a lost response can create another tender",
        "Errors, rule 3: \"A creation request repeated after a lost response can create a duplicate tender.\"",
    ),
    rule(
        "res-date",
        "A tender's date is the moment of its creation, or of its publication, in draft and active.enquiries",
        "Resources, Tender: \"`date`: Moment of creation, and of publication when a draft is published.\"",
    ),
    rule(
        "res-next-check",
        "next_check is absent on a draft and present on a published tender while a move is due",
        "Resources, Tender: \"`next_check`: Moment of the next automatic status check. Present on published tenders, absent in `draft`.\"",
    ),
];

/// Upstream's behaviour beyond the spec that the checks applied to every exchange also judge:
/// what they find is advisory (it counts against certification only with `--strict`), since
/// the spec does not state it.
pub const UPSTREAM_RULES: &[Rule] = &[
    rule(
        "up-location",
        "Upstream: a 201's Location is the address of the created object under the collection posted to, and reads it",
        "Not shown: the spec gives single-object reads for tenders, their documents, questions and bids only; upstream 2.3.66 answered every creation with its object's address under the collection.",
    ),
    rule(
        "up-ids",
        "Upstream: the ids of lots, contract changes and other records beyond the spec, and the references to them, are 32 lowercase hex",
        "Not shown: Conventions 9 names the ids of tenders, items, documents, questions, bids, awards and contracts only; upstream 2.3.66 made every record id a uuid4 hex.",
    ),
    rule(
        "up-values",
        "Upstream: every object with an amount beyond the spec's Values carries its boolean valueAddedTaxIncluded",
        "Not shown: the spec's Values are a tender's value, minimalStep and guarantee and the value of a bid, an award and a contract; upstream 2.3.66 gave lots and contracts under management Values too.",
    ),
    rule(
        "up-readback",
        "Upstream: what an accepted write sent reads back, fields beyond the spec's resources and records beyond the spec (lots, contract management) included",
        "Not shown: the spec's resources name the fields it states; upstream 2.3.66 stored lots, lot values, features' answers and its contracting service's records as sent.",
    ),
    rule(
        "up-lots",
        "Upstream: a tender created without lots never shows lots, lotID, lotValues or relatedLot, and each lot value's participationUrl carries its own bid",
        "Not shown: the spec has no lots; upstream 2.3.66 served a tender without lots with none of their fields.",
    ),
];

/// The rule of the spec a tag names, if it names one.
pub fn by_tag(tag: &str) -> Option<&'static Rule> {
    SPEC_RULES.iter().find(|r| r.tag == tag)
}

/// The rule a tag names, of the spec or of upstream's behaviour.
pub fn any_by_tag(tag: &str) -> Option<&'static Rule> {
    by_tag(tag).or_else(|| UPSTREAM_RULES.iter().find(|r| r.tag == tag))
}

/// A check the harness applies to every exchange of every scenario, and the rule it guards.
#[derive(Debug, PartialEq, Eq)]
pub struct Check {
    pub rule: &'static str,
    pub text: &'static str,
}

const fn check(rule: &'static str, text: &'static str) -> Check {
    Check { rule, text }
}

impl Check {
    /// Whether what it finds counts against certification: it guards a rule of the spec
    /// (else upstream's behaviour, advisory unless `--strict`).
    pub fn mandatory(&self) -> bool {
        by_tag(self.rule).is_some()
    }

    /// The rule it guards.
    pub fn guarded(&self) -> Option<&'static Rule> {
        any_by_tag(self.rule)
    }
}

// The shape of every response.
pub const CHECK_ERROR_ENVELOPE: Check = check(
    "err-envelope",
    "every 4xx and 5xx answer is the error envelope, with string description, location and name",
);
pub const CHECK_SUCCESS_ENVELOPE: Check = check(
    "conv-3",
    "every success is application/json; charset=UTF-8 with {data: object or array}",
);
pub const CHECK_TOKEN: Check = check(
    "conv-4",
    "every 201 to a tender or bid creation carries access.token",
);
pub const CHECK_LOCATION: Check = check(
    "conv-5",
    "every 201 carries a Location with the full address of the object, ending with its id; for a tender, a tender document, a question and a bid, its GET answers 200 with that id",
);
pub const UP_LOCATION: Check = check(
    "up-location",
    "a 201 of another collection carries a Location under the collection posted to, whose GET answers 200 with the id",
);
pub const CHECK_TIMESTAMPS: Check = check(
    "conv-6",
    "every timestamp, and a page's next_page.offset, has an offset and six fractional digits",
);
pub const CHECK_AMOUNTS: Check = check("conv-7", "every amount is a decimal number");
pub const CHECK_VALUES: Check = check(
    "res-value",
    "every Value of the spec (a tender's value, minimalStep and guarantee; a bid's, an award's and a contract's value) carries its boolean valueAddedTaxIncluded",
);
pub const UP_VALUES: Check = check(
    "up-values",
    "every other object with an amount carries its boolean valueAddedTaxIncluded",
);
pub const CHECK_IDS: Check = check(
    "conv-9",
    "every id of a tender, document, question, bid, award or contract, and every bid_id and awardID, is 32 lowercase hex",
);
pub const UP_IDS: Check = check(
    "up-ids",
    "every id of a lot, a contract change or another record, and every lotID, relatedLot and tender_id, is 32 lowercase hex",
);

// After every write, the object (and the tender that holds it) is read back.
pub const STORED_CREATE: Check = check(
    "ep-create",
    "a created tender reads back as it was sent (the fields of the spec's Tender)",
);
pub const STORED_PATCH: Check = check(
    "ep-patch",
    "a tender change reads back (the fields of the spec's Tender)",
);
pub const STORED_MERGE: Check = check(
    "conv-10",
    "after a tender PATCH every field not sent reads back unchanged, nested objects merged",
);
pub const STORED_DOC_POST: Check = check(
    "ep-doc-post",
    "an uploaded document reads back, alone and in the tender",
);
pub const STORED_DOC_PUT: Check = check(
    "ep-doc-put",
    "a new document version reads back, alone and in the tender",
);
pub const STORED_DOC_PATCH: Check = check(
    "ep-doc-patch",
    "changed document metadata reads back, alone and in the tender",
);
pub const STORED_Q_POST: Check = check(
    "ep-q-post",
    "an asked question reads back, alone and in the tender",
);
pub const STORED_Q_PATCH: Check = check(
    "ep-q-patch",
    "an answer reads back, on the question and in the tender",
);
pub const STORED_BID_POST: Check =
    check("ep-bid-post", "a registered bid reads back with its token");
pub const STORED_BID_PATCH: Check = check(
    "ep-bid-patch",
    "a bid change (activation) reads back with its token",
);
pub const STORED_BIDDOC_POST: Check = check(
    "ep-biddoc-post",
    "an uploaded bid document is listed with the bid's documents",
);
pub const STORED_AWARD: Check = check("ep-award-patch", "an award change reads back in the tender");
pub const STORED_CONTRACT: Check = check(
    "ep-contract-patch",
    "a contract change reads back in the tender",
);
pub const UP_STORED_FIELDS: Check = check(
    "up-readback",
    "what a write sent beyond the fields of the spec's resources (lots, lot values, features' answers, the sandbox fields) reads back",
);
pub const STORED_LOT_POST: Check = check(
    "up-readback",
    "an added lot reads back at its Location and in the tender",
);
pub const STORED_LOT_PATCH: Check = check(
    "up-readback",
    "a lot change reads back, alone and in the tender",
);
// Contract management after signing, an extension whose writes follow the same conventions.
pub const STORED_CREDENTIALS: Check = check(
    "up-readback",
    "after new credentials the contract under management reads back, and no read shows the token handed out",
);
pub const STORED_MANAGED_PATCH: Check = check(
    "up-readback",
    "a PATCH of a contract under management reads back: what the broker may change, as sent",
);
pub const STORED_CHANGE_POST: Check = check(
    "up-readback",
    "a recorded contract change reads back at its Location and in the contract's changes",
);
pub const STORED_CHANGE_PATCH: Check = check(
    "up-readback",
    "an edited or applied contract change reads back, alone and in the contract's changes",
);
pub const STORED_MANAGED_DOC_POST: Check = check(
    "up-readback",
    "a document uploaded to a contract under management reads back at its Location and in the contract",
);
pub const STORED_MANAGED_DOC_PUT: Check = check(
    "up-readback",
    "a new version of a contract document reads back, alone and in the contract",
);
pub const STORED_MANAGED_DOC_PATCH: Check = check(
    "up-readback",
    "changed metadata of a contract document reads back, alone and in the contract",
);

// Facts stated for the life of an object, re-checked on every later read.
pub const FACT_TEST_MODE: Check = check(
    "ep-rule-2",
    "a test-mode tender's titles carry their prefixes in every response",
);
pub const FACT_ITEM_ID: Check = check(
    "conv-9",
    "an item id the client supplied at the tender's creation is kept on every later read",
);
pub const FACT_DATE_PUBLISHED: Check =
    check("res-document", "a document's datePublished never changes");
pub const FACT_DATE: Check = check(
    "res-date",
    "a tender's date stays the moment of creation, or of publication, on every read in draft and active.enquiries",
);
pub const FACT_PERIODS: Check = check(
    "res-periods",
    "tenderPeriod.startDate equals enquiryPeriod.endDate as the service set it, on every read until a change sends either period",
);
pub const FACT_NEXT_CHECK: Check = check(
    "res-next-check",
    "next_check is absent on a draft, present in active.enquiries, active.tendering and active.auction",
);
pub const FACT_AUCTION: Check = check(
    "state-auction",
    "a tender created without lots shows an auctionPeriod and an auctionUrl whenever it is in active.auction",
);
pub const FACT_PARTICIPATION: Check = check(
    "res-participation",
    "a bid's participationUrl, whenever shown, carries key_for_bid with its own id",
);
pub const FACT_LOT_PARTICIPATION: Check = check(
    "up-lots",
    "each participationUrl of a bid's lot values, whenever shown, carries key_for_bid with the bid's id",
);
pub const FACT_NO_LOTS: Check = check(
    "up-lots",
    "a tender created without lots never shows lots, lotID, lotValues or relatedLot",
);
pub const FACT_QUESTION_AUTHOR: Check = check(
    "res-question-author",
    "question authors are hidden on every read of a question or of the tender before active.qualification",
);

/// Every check applied to every exchange, for the certificate's rule table.
pub const GLOBAL_CHECKS: &[&Check] = &[
    &CHECK_ERROR_ENVELOPE,
    &CHECK_SUCCESS_ENVELOPE,
    &CHECK_TOKEN,
    &CHECK_LOCATION,
    &UP_LOCATION,
    &CHECK_TIMESTAMPS,
    &CHECK_AMOUNTS,
    &CHECK_VALUES,
    &UP_VALUES,
    &CHECK_IDS,
    &UP_IDS,
    &STORED_CREATE,
    &STORED_PATCH,
    &STORED_MERGE,
    &STORED_DOC_POST,
    &STORED_DOC_PUT,
    &STORED_DOC_PATCH,
    &STORED_Q_POST,
    &STORED_Q_PATCH,
    &STORED_BID_POST,
    &STORED_BID_PATCH,
    &STORED_BIDDOC_POST,
    &STORED_AWARD,
    &STORED_CONTRACT,
    &UP_STORED_FIELDS,
    &STORED_LOT_POST,
    &STORED_LOT_PATCH,
    &STORED_CREDENTIALS,
    &STORED_MANAGED_PATCH,
    &STORED_CHANGE_POST,
    &STORED_CHANGE_PATCH,
    &STORED_MANAGED_DOC_POST,
    &STORED_MANAGED_DOC_PUT,
    &STORED_MANAGED_DOC_PATCH,
    &FACT_TEST_MODE,
    &FACT_ITEM_ID,
    &FACT_DATE_PUBLISHED,
    &FACT_DATE,
    &FACT_PERIODS,
    &FACT_NEXT_CHECK,
    &FACT_AUCTION,
    &FACT_PARTICIPATION,
    &FACT_LOT_PARTICIPATION,
    &FACT_NO_LOTS,
    &FACT_QUESTION_AUTHOR,
];

/// How many global checks guard a rule.
pub fn global_checks_of(tag: &str) -> usize {
    GLOBAL_CHECKS.iter().filter(|c| c.rule == tag).count()
}

/// How a failure message names the rule it broke; [`named_in`] reads it back.
pub fn broken(tag: &str) -> String {
    format!("rule `{tag}` broken")
}

/// The rules a failure message names as broken, in order, each once.
pub fn named_in(message: &str) -> Vec<String> {
    static NAMED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"rule `([a-z0-9-]+)` broken").expect("valid regex")
    });
    let mut tags: Vec<String> = Vec::new();
    for found in NAMED.captures_iter(message) {
        let tag = found[1].to_owned();
        if !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_global_check_guards_a_rule_and_has_a_text_of_its_own() {
        for check in GLOBAL_CHECKS {
            assert!(check.guarded().is_some(), "{}", check.rule);
        }
        let mut texts: Vec<&str> = GLOBAL_CHECKS.iter().map(|c| c.text).collect();
        texts.sort_unstable();
        let before = texts.len();
        texts.dedup();
        assert_eq!(texts.len(), before, "the ledger keys a check by its text");
        for rule in UPSTREAM_RULES {
            assert!(by_tag(rule.tag).is_none(), "{} is the spec's", rule.tag);
        }
    }

    #[test]
    fn a_message_names_its_broken_rules() {
        let message = format!(
            "{}: x; {}: y; {}: z",
            broken("conv-6"),
            broken("conv-7"),
            broken("conv-6")
        );
        assert_eq!(named_in(&message), ["conv-6", "conv-7"]);
        assert!(named_in("expected status 200, got 404").is_empty());
    }
}
