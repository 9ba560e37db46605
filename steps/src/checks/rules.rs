//! The rules of the interface that scenarios are tagged with (`@conv-5`, `@ep-bid-post`, …), so
//! a report can say which rule a failure broke and which rules are covered.

/// A rule of the spec or of upstream behaviour, by tag.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub tag: &'static str,
    pub text: &'static str,
}

const fn rule(tag: &'static str, text: &'static str) -> Rule {
    Rule { tag, text }
}

/// Every numbered convention, endpoint row and numbered rule of the spec, plus the state and
/// resource rules the features check. Each must be exercised by at least one `@spec` scenario.
pub const SPEC_RULES: &[Rule] = &[
    rule("conv-1", "Convention 1: paths begin with /api/2.3"),
    rule(
        "conv-2",
        "Convention 2: request bodies are {\"data\": object} sent as application/json",
    ),
    rule(
        "conv-3",
        "Convention 3: success is application/json; charset=UTF-8 with {\"data\": …}",
    ),
    rule(
        "conv-4",
        "Convention 4: creating a tender or bid returns access.token",
    ),
    rule(
        "conv-5",
        "Convention 5: every 201 carries a Location whose last segment is the id",
    ),
    rule(
        "conv-6",
        "Convention 6: timestamps: input may omit the offset; output has offset and microseconds",
    ),
    rule(
        "conv-7",
        "Convention 7: integer amounts come back as decimal numbers",
    ),
    rule(
        "conv-8",
        "Convention 8: the query parameter opt_pretty=1 is accepted",
    ),
    rule(
        "conv-9",
        "Convention 9: ids are 32 lowercase hex characters; a client item id is kept",
    ),
    rule(
        "conv-10",
        "Convention 10: PATCH merges, keeps what was not sent, refreshes dateModified",
    ),
    rule(
        "ep-list",
        "GET /tenders: {next_page, data: [{id, dateModified}]}, drafts omitted",
    ),
    rule(
        "ep-create",
        "POST /tenders: 201, Location, {access: {token}, data: Tender}",
    ),
    rule(
        "ep-get",
        "GET /tenders/{id}: the tender with its documents, questions and sub-records",
    ),
    rule(
        "ep-patch",
        "PATCH /tenders/{id}?acc_token: 200 with the changed tender",
    ),
    rule(
        "ep-doc-post",
        "POST /tenders/{id}/documents: 201, Location, the document",
    ),
    rule(
        "ep-doc-list",
        "GET /tenders/{id}/documents: every document once, latest version",
    ),
    rule(
        "ep-doc-get",
        "GET /tenders/{id}/documents/{doc}: the document with previousVersions",
    ),
    rule(
        "ep-doc-patch",
        "PATCH /tenders/{id}/documents/{doc}: metadata such as documentType",
    ),
    rule(
        "ep-doc-put",
        "PUT /tenders/{id}/documents/{doc}: same id and datePublished, new dateModified",
    ),
    rule(
        "ep-q-post",
        "POST /tenders/{id}/questions: 201, Location, the question with author, no token",
    ),
    rule("ep-q-list", "GET /tenders/{id}/questions: the questions"),
    rule("ep-q-get", "GET /tenders/{id}/questions/{q}: the question"),
    rule(
        "ep-q-patch",
        "PATCH /tenders/{id}/questions/{q}?acc_token: the answer",
    ),
    rule(
        "ep-bid-post",
        "POST /tenders/{id}/bids: 201, Location, the bid and its token",
    ),
    rule(
        "ep-bid-patch",
        "PATCH /tenders/{id}/bids/{bid}?acc_token={bid token}: activation",
    ),
    rule(
        "ep-bid-get",
        "GET /tenders/{id}/bids/{bid}?acc_token={bid token}: the bid with documents",
    ),
    rule(
        "ep-biddoc-post",
        "POST …/bids/{bid}/documents: 201, url under the bid's document path",
    ),
    rule(
        "ep-biddoc-list",
        "GET …/bids/{bid}/documents: the bid's documents",
    ),
    rule(
        "ep-award-patch",
        "PATCH /tenders/{id}/awards/{award}: status active by the owner",
    ),
    rule(
        "ep-contract-patch",
        "PATCH /tenders/{id}/contracts/{contract}: number, value, dateSigned, period",
    ),
    rule(
        "ep-rule-1",
        "Endpoint rule 1: two-phase (draft, then publish) and single-phase creation both work",
    ),
    rule(
        "ep-rule-2",
        "Endpoint rule 2: test-mode title prefixes apply in every response",
    ),
    rule(
        "ep-rule-3",
        "Endpoint rule 3: PDF documents are accepted for tenders and bids",
    ),
    rule(
        "state-draft",
        "A draft has a token, is not listed, has no next_check, is left by the scheduler",
    ),
    rule(
        "state-single",
        "Single-phase creation gives active.enquiries, listed, next_check = enquiry end",
    ),
    rule(
        "state-publish",
        "Publishing a draft: active.enquiries, listed, date refreshed, next_check set",
    ),
    rule(
        "state-tendering",
        "The scheduler moves active.enquiries to active.tendering at the tender period start",
    ),
    rule(
        "state-auction",
        "active.auction is shown with an auctionPeriod and an auctionUrl",
    ),
    rule(
        "phase-questions",
        "Questions are asked while the tender is in active.enquiries",
    ),
    rule(
        "phase-bids",
        "Bids are registered while the tender is in active.tendering",
    ),
    rule("bid-draft", "A bid sent with status draft is a draft"),
    rule(
        "bid-batch",
        "A bid sent without status, with documents, is active",
    ),
    rule(
        "bid-activate",
        "PATCH status active with the bid token activates a draft bid",
    ),
    rule(
        "award-active",
        "An activated award has a complaintPeriod and a pending contract appears",
    ),
    rule(
        "res-tender",
        "Service-set tender fields: procurementMethod, awardCriteria, submissionMethod, tenderID, owner",
    ),
    rule(
        "res-periods",
        "enquiryPeriod starts at creation; tenderPeriod starts at the enquiry end",
    ),
    rule(
        "res-value",
        "valueAddedTaxIncluded defaults to true; a bid without currency takes the tender's",
    ),
    rule(
        "res-guarantee",
        "guarantee can be set later by PATCH, in another currency",
    ),
    rule(
        "res-question-author",
        "A question's author is returned on creation, hidden on reads and on the answer",
    ),
    rule(
        "res-document",
        "Documents: md5 hash, documentOf tender, datePublished kept, dateModified refreshed",
    ),
    rule(
        "res-contract",
        "Contract: contractID {tenderID}-{n}, items copied, value defaults to the award's",
    ),
    rule(
        "res-participation",
        "participationUrl is the auctionUrl plus ?key_for_bid={bid id}, one per bid",
    ),
    rule(
        "auth-1",
        "Authentication 1: Basic auth; the user name becomes the owner",
    ),
    rule(
        "auth-2",
        "Authentication 2: changes need acc_token: the tender token or the bid token",
    ),
    rule(
        "auth-3",
        "Authentication 3: listing and asking questions need no acc_token",
    ),
    rule(
        "err-415",
        "Errors: a POST that is not application/json is 415 header/Content-Type",
    ),
    rule(
        "err-422",
        "Errors: a body that is not a JSON object with data is 422 body/data",
    ),
    rule(
        "err-envelope",
        "Errors: {status: error, errors: [{description, location, name}]}",
    ),
    rule(
        "err-rule-1",
        "Error rule 1: after an unclear outcome the client checks the object and repeats",
    ),
    rule(
        "err-rule-2",
        "Error rule 2: repeating a publication succeeds without error",
    ),
    rule(
        "ver-1",
        "Versioning 1: the version is the path segment /api/2.3",
    ),
    rule(
        "ver-2",
        "Versioning 2: single-phase creation is retained next to the two-phase one",
    ),
    rule(
        "err-rule-3",
        "Error rule 3: a repeated creation creates another tender",
    ),
    rule(
        "res-date",
        "A tender's date is the moment of its creation, or of its publication, on every later read",
    ),
    rule(
        "res-next-check",
        "next_check is absent on a draft and present on a published tender while a move is due",
    ),
];

/// The rule a tag names, if it names one.
pub fn by_tag(tag: &str) -> Option<&'static Rule> {
    SPEC_RULES.iter().find(|r| r.tag == tag)
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
    "every 201 carries a Location under the collection, ending with the id, whose GET answers 200 with that id",
);
pub const CHECK_TIMESTAMPS: Check = check(
    "conv-6",
    "every timestamp, and a page's next_page.offset, has an offset and six fractional digits",
);
pub const CHECK_AMOUNTS: Check = check("conv-7", "every amount is a decimal number");
pub const CHECK_VALUES: Check = check(
    "res-value",
    "every Value carries its boolean valueAddedTaxIncluded",
);
pub const CHECK_IDS: Check = check(
    "conv-9",
    "every id of a tender, lot, document, question, bid, award, contract or contract change, and every reference to one, is 32 lowercase hex",
);

// After every write, the object (and the tender that holds it) is read back.
pub const STORED_CREATE: Check = check("ep-create", "a created tender reads back as it was sent");
pub const STORED_PATCH: Check = check("ep-patch", "a tender change reads back");
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
    "an uploaded bid document reads back and is listed with the bid's documents",
);
pub const STORED_LOT_POST: Check = check(
    "conv-5",
    "an added lot reads back at its Location and in the tender",
);
pub const STORED_LOT_PATCH: Check = check(
    "conv-10",
    "a lot change reads back, alone and in the tender",
);
pub const STORED_AWARD: Check = check("ep-award-patch", "an award change reads back in the tender");
pub const STORED_CONTRACT: Check = check(
    "ep-contract-patch",
    "a contract change reads back in the tender",
);
// Contract management after signing, an extension whose writes follow the same conventions.
pub const STORED_CREDENTIALS: Check = check(
    "auth-2",
    "after new credentials the contract under management reads back, and no read shows the token handed out",
);
pub const STORED_MANAGED_PATCH: Check = check(
    "conv-10",
    "a PATCH of a contract under management reads back: what the broker may change, as sent",
);
pub const STORED_CHANGE_POST: Check = check(
    "conv-5",
    "a recorded contract change reads back at its Location and in the contract's changes",
);
pub const STORED_CHANGE_PATCH: Check = check(
    "conv-10",
    "an edited or applied contract change reads back, alone and in the contract's changes",
);
pub const STORED_MANAGED_DOC_POST: Check = check(
    "conv-5",
    "a document uploaded to a contract under management reads back at its Location and in the contract",
);
pub const STORED_MANAGED_DOC_PUT: Check = check(
    "res-document",
    "a new version of a contract document reads back, alone and in the contract",
);
pub const STORED_MANAGED_DOC_PATCH: Check = check(
    "conv-10",
    "changed metadata of a contract document reads back, alone and in the contract",
);

// Facts stated for the life of an object, re-checked on every later read.
pub const FACT_TEST_MODE: Check = check(
    "ep-rule-2",
    "a test-mode tender's titles carry their prefixes in every response",
);
pub const FACT_ITEM_ID: Check = check(
    "conv-9",
    "a client's items[].id is kept on every later read",
);
pub const FACT_DATE_PUBLISHED: Check =
    check("res-document", "a document's datePublished never changes");
pub const FACT_DATE: Check = check(
    "res-date",
    "a tender's date stays the moment of creation, or of publication, on every read in draft and active.enquiries",
);
pub const FACT_PERIODS: Check = check(
    "res-periods",
    "tenderPeriod.startDate equals enquiryPeriod.endDate on every read",
);
pub const FACT_NEXT_CHECK: Check = check(
    "res-next-check",
    "next_check is absent on a draft, present in active.enquiries, active.tendering and active.auction",
);
pub const FACT_PARTICIPATION: Check = check(
    "res-participation",
    "a bid's participationUrl, and each of its lot values', whenever shown, carries key_for_bid with its own id",
);
pub const FACT_NO_LOTS: Check = check(
    "ep-get",
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
    &CHECK_TIMESTAMPS,
    &CHECK_AMOUNTS,
    &CHECK_VALUES,
    &CHECK_IDS,
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
    &STORED_LOT_POST,
    &STORED_LOT_PATCH,
    &STORED_AWARD,
    &STORED_CONTRACT,
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
    &FACT_PARTICIPATION,
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
    fn every_global_check_guards_a_rule_of_the_spec() {
        for check in GLOBAL_CHECKS {
            assert!(by_tag(check.rule).is_some(), "{}", check.rule);
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
