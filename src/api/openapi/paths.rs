//! Every route of the server, in the order of [`crate::routes::router`]: adding a route there
//! means adding its line here, next to its neighbours.

use super::operation::{Op, delete, get, head, item, patch, post, put};
use super::schemas;
use serde_json::{Value as Json, json};

const API: &str = "/api/2.3";

/// `documents` and `documents/{document_id}` under `parent`, as `routes::documents()` routes
/// them; `writer` says whose token writes them; `confidential` reads (a bid's, before
/// qualification) are refused with 403 without that token.
fn documents(parent: &str, tag: &str, writer: &str, confidential: bool) -> Vec<(String, Json)> {
    let list = format!("{parent}/documents");
    let one = format!("{list}/{{document_id}}");
    let refused: &[u16] = if confidential { &[403] } else { &[] };
    vec![
        item(
            &list,
            vec![
                get(tag, "Documents, each once in its latest version")
                    .ok_list("Document")
                    .errors(refused),
                // 409: a file sent in a multipart body past its broker's bounds on uploads.
                post(tag, &format!("Upload a document ({writer})"))
                    .token()
                    .body_example("DocumentInput", schemas::document_example())
                    .errors(&[409])
                    .created("Document", false),
            ],
        ),
        item(
            &one,
            vec![
                get(tag, "A document with its previous versions")
                    .ok("Document")
                    .errors(refused)
                    .query(
                        "download",
                        json!({"type": "string"}),
                        "The download key of a bid document: answered with a redirect to \
                         the stored file",
                    )
                    .redirect(),
                patch(tag, &format!("Describe a document ({writer})"))
                    .token()
                    .body("DocumentInput")
                    .ok("Document"),
                put(
                    tag,
                    &format!("Upload a new version of a document ({writer})"),
                )
                .token()
                .body("DocumentInput")
                .errors(&[409])
                .ok("Document"),
            ],
        ),
    ]
}

/// `complaints` and `complaints/{complaint_id}` under `parent`, as `api::complaints()`
/// routes them.
fn complaints(parent: &str) -> Vec<(String, Json)> {
    let list = format!("{parent}/complaints");
    let one = format!("{list}/{{complaint_id}}");
    let mut routes = vec![
        item(
            &list,
            vec![
                get("claims", "Claims").ok_list("Complaint"),
                post(
                    "claims",
                    "File a claim (a broker; answers the claim's token)",
                )
                .broker()
                .body("ComplaintInput")
                .created("Complaint", true),
            ],
        ),
        item(
            &one,
            vec![
                get("claims", "A claim").ok("Complaint"),
                patch(
                    "claims",
                    "Submit, answer, resolve or withdraw a claim (its author's or the \
                     tender owner's token)",
                )
                .token()
                .body("ComplaintInput")
                .ok("Complaint"),
            ],
        ),
    ];
    routes.extend(documents(&one, "claims", "the claim's author", false));
    routes
}

fn tender_routes() -> Vec<(String, Json)> {
    let tender = format!("{API}/tenders/{{tender_id}}");
    let lot = format!("{tender}/lots/{{lot_id}}");
    let question = format!("{tender}/questions/{{question_id}}");
    let bid = format!("{tender}/bids/{{bid_id}}");
    let award = format!("{tender}/awards/{{award_id}}");
    let contract = format!("{tender}/contracts/{{contract_id}}");
    let cancellation = format!("{tender}/cancellations/{{cancellation_id}}");
    let mut routes = vec![item(
        &tender,
        vec![
            get("tenders", "A tender as the public sees it").ok("Tender"),
            patch("tenders", "Change or publish a tender (the tender's token)")
                .token()
                .body("TenderInput")
                .ok("Tender"),
        ],
    )];
    routes.extend(documents(&tender, "documents", "the tender's owner", false));
    routes.push(item(
        &format!("{tender}/lots"),
        vec![
            get("lots", "Lots").ok_list("Lot"),
            post(
                "lots",
                "Add a lot while enquiries are open (the tender's token)",
            )
            .token()
            .body("LotInput")
            .created("Lot", false),
        ],
    ));
    routes.push(item(
        &lot,
        vec![
            get("lots", "A lot").ok("Lot"),
            patch("lots", "Change a lot (the tender's token)")
                .token()
                .body("LotInput")
                .ok("Lot"),
            delete(
                "lots",
                "Remove a lot while enquiries are open (the tender's token)",
            )
            .token()
            .ok("Lot"),
        ],
    ));
    routes.push(item(
        &format!("{tender}/questions"),
        vec![
            get("questions", "Questions").ok_list("Question"),
            post("questions", "Ask a question (no token)")
                .body_example("QuestionInput", schemas::question_example())
                .created("Question", false),
        ],
    ));
    routes.push(item(
        &question,
        vec![
            get("questions", "A question").ok("Question"),
            patch("questions", "Answer a question (the tender's token)")
                .token()
                .body("QuestionInput")
                .ok("Question"),
        ],
    ));
    routes.push(item(
        &format!("{tender}/bids"),
        vec![
            get("bids", "Bids, once they are public")
                .ok_list("Bid")
                .errors(&[403]),
            post("bids", "Place a bid (a broker; answers the bid's token)")
                .broker()
                .body("BidInput")
                .created("Bid", true),
        ],
    ));
    routes.push(item(
        &bid,
        vec![
            get(
                "bids",
                "A bid: whole with its token, else as the public sees it",
            )
            .token()
            .ok("Bid")
            .errors(&[403]),
            patch("bids", "Change or activate a bid (the bid's token)")
                .token()
                .body("BidInput")
                .ok("Bid"),
            delete("bids", "Withdraw a bid (the bid's token)")
                .token()
                .ok("Bid"),
        ],
    ));
    routes.extend(documents(&bid, "bids", "the bid's owner", true));
    routes.push(item(
        &format!("{tender}/awards"),
        vec![get("awards", "Awards").ok_list("Award")],
    ));
    routes.push(item(
        &award,
        vec![
            get("awards", "An award").ok("Award"),
            patch("awards", "Decide an award (the tender's token)")
                .token()
                .body("AwardInput")
                .ok("Award"),
        ],
    ));
    routes.extend(documents(&award, "awards", "the tender's owner", false));
    routes.extend(complaints(&award));
    routes.push(item(
        &format!("{tender}/contracts"),
        vec![get("contracts", "Contracts").ok_list("Contract")],
    ));
    routes.push(item(
        &contract,
        vec![
            get("contracts", "A contract").ok("Contract"),
            patch(
                "contracts",
                "Change or sign a contract (the tender's token)",
            )
            .token()
            .body("ContractInput")
            .ok("Contract"),
        ],
    ));
    routes.extend(documents(
        &contract,
        "contracts",
        "the tender's owner",
        false,
    ));
    routes.push(item(
        &format!("{tender}/cancellations"),
        vec![
            get("cancellations", "Cancellations").ok_list("Cancellation"),
            post(
                "cancellations",
                "Propose a cancellation (the tender's token)",
            )
            .token()
            .body("CancellationInput")
            .created("Cancellation", false),
        ],
    ));
    routes.push(item(
        &cancellation,
        vec![
            get("cancellations", "A cancellation").ok("Cancellation"),
            patch(
                "cancellations",
                "Change or activate a cancellation (the tender's token)",
            )
            .token()
            .body("CancellationInput")
            .ok("Cancellation"),
        ],
    ));
    routes.extend(documents(
        &cancellation,
        "cancellations",
        "the tender's owner",
        false,
    ));
    routes.extend(complaints(&tender));
    routes
}

/// Contracts under management, as `routes::router` routes their feed and
/// `contracting::api::router` each contract.
fn contract_routes() -> Vec<(String, Json)> {
    let list = format!("{API}/contracts");
    let contract = format!("{list}/{{contract_id}}");
    let change = format!("{contract}/changes/{{change_id}}");
    let mut routes = vec![
        item(
            &list,
            vec![
                listing_parameters(get(
                    "contracting",
                    "Contracts under management, by dateModified",
                ))
                .ok_whole("ContractListing"),
                listing_parameters(head("contracting", "The same, headers only")),
            ],
        ),
        item(
            &contract,
            vec![
                get("contracting", "A contract under management").ok("ManagedContract"),
                patch(
                    "contracting",
                    "Change, pay or terminate the contract (the contract's token)",
                )
                .token()
                .body("ManagedContractInput")
                .ok("ManagedContract"),
            ],
        ),
        item(
            &format!("{contract}/credentials"),
            vec![
                patch(
                    "contracting",
                    "Take the contract's credentials (the tender's token, the tender owner's \
                     broker): answers a new contract token, retiring the one before",
                )
                .token()
                .created_ok("ManagedContract"),
            ],
        ),
    ];
    routes.extend(documents(
        &contract,
        "contracting",
        "the contract's token",
        false,
    ));
    routes.push(item(
        &format!("{contract}/changes"),
        vec![
            get("contracting", "The contract's changes").ok_list("ContractChange"),
            post(
                "contracting",
                "Record a pending change (the contract's token)",
            )
            .token()
            .body("ContractChangeInput")
            .created("ContractChange", false),
        ],
    ));
    routes.push(item(
        &change,
        vec![
            get("contracting", "A change").ok("ContractChange"),
            patch(
                "contracting",
                "Edit a pending change, or apply it with its signature date (the contract's \
                 token)",
            )
            .token()
            .body("ContractChangeInput")
            .ok("ContractChange"),
        ],
    ));
    routes
}

/// Upstream's EDR service, as `api::edr::router` routes it.
fn edr_routes() -> Vec<(String, Json)> {
    vec![item(
        "/api/{version}/verify",
        vec![
            get(
                "edr",
                "Whether a code is in the state register (a broker, or a user of the EDR \
                 service's own [platforms]): any version but 2.3, the tender API's own. Answers \
                 a list of subjects, or upstream's refusals, whose descriptions are lists",
            )
            .security(&["broker", "edr_user"])
            .query(
                "id",
                json!({"type": "string"}),
                "An EDRPOU code (8 digits) or an IPN (10 digits); it wins over passport. Any \
                 other id is not found",
            )
            .query(
                "passport",
                json!({"type": "string"}),
                "A passport: two Cyrillic letters and 6 digits, or 9 digits",
            )
            .ok_whole("EdrVerification")
            .answers(403, "EdrRefused")
            .answers(404, "EdrNotFound")
            .answers(429, "EdrThrottled"),
        ],
    )]
}

/// The live auction's page and JSON interface, as `auction::api::router` routes them.
fn auction_routes() -> Vec<(String, Json)> {
    let auction = "/auctions/{auction_id}";
    let participant = |op: Op| {
        op.query(
            "key_for_bid",
            json!({"type": "string"}),
            "A participant's bid id (from its participationUrl)",
        )
        .query(
            "hash",
            json!({"type": "string"}),
            "The secret of the participant's participationUrl",
        )
        .errors(&[403])
    };
    vec![
        item(
            "/auctions/assets/{asset}",
            vec![
                get("auctions", "The auction page's script and style sheet")
                    .ok_page(&["text/css", "text/javascript"]),
            ],
        ),
        item(
            auction,
            vec![
                participant(get(
                    "auctions",
                    "The auction's page: a tender's id, or `{tender id}_{lot id}` for a lot. A \
                     participation address refused is 403, and the address of no auction 404: \
                     a page saying so to a request that prefers text/html, else the error \
                     envelope",
                ))
                .ok_page(&["text/html"]),
            ],
        ),
        item(
            &format!("{auction}/state"),
            vec![participant(get("auctions", "The auction as it stands now")).ok("AuctionState")],
        ),
        item(
            &format!("{auction}/bids"),
            vec![
                participant(post(
                    "auctions",
                    "A participant's bid in its turn (-1 withdraws it)",
                ))
                .body("AuctionBid")
                .ok("AuctionBidAccepted"),
            ],
        ),
    ]
}

fn listing_parameters(op: Op) -> Op {
    op.query(
        "offset",
        json!({"type": "string"}),
        "The dateModified to continue after (next_page.offset of the previous page)",
    )
    .query(
        "limit",
        json!({"type": "integer", "minimum": 1, "maximum": 1000}),
        "Page size (default 100; at most 100 with opt_fields)",
    )
    .query(
        "descending",
        json!({"type": "string"}),
        "Any value: newest change first",
    )
    .query(
        "opt_fields",
        json!({"type": "string"}),
        "Comma-separated tender fields to add to each row",
    )
    .query(
        "mode",
        json!({"type": "string", "enum": ["test", "_all_"]}),
        "test: test-mode tenders only; _all_: every tender (the default)",
    )
    .query(
        "feed",
        json!({"type": "string", "enum": ["changes"]}),
        "changes: the feed of changes",
    )
}

/// Every path item of a server, with the clock control and fault APIs when it has them.
pub fn paths(clock_api: bool, faults_api: bool) -> Vec<(String, Json)> {
    let mut routes = vec![
        item(
            "/",
            vec![
                get(
                    "faces",
                    "The dashboard (text/html, to a request that accepts it); otherwise the \
                     server's index: what it offers and where, as JSON to a request that asks \
                     for it, else as short text (which a document service's status probe takes)",
                )
                .ok_page_or_json(&["text/html", "text/plain"]),
            ],
        ),
        item(
            "/assets/{asset}",
            vec![
                get("faces", "The dashboard's script and style sheet")
                    .ok_page(&["text/css", "text/javascript"]),
            ],
        ),
        item(
            "/favicon.ico",
            vec![get("faces", "The server's icon").ok_page(&["image/x-icon"])],
        ),
        item(
            "/openapi.json",
            vec![get("faces", "This description").ok_whole("OpenApi")],
        ),
        item(
            "/keys",
            vec![
                get(
                    "documents",
                    "The public key that verifies every signed address",
                )
                .ok_list("Key"),
            ],
        ),
        item(
            "/register",
            vec![
                get("documents", "Not offered").plain(404, "Not Found"),
                post(
                    "documents",
                    "Register a file by its hash (a broker); answers its upload address. \
                     409: the uploader holds as many files as the server lets it (--uploads)",
                )
                .broker()
                .errors(&[409])
                .body("Registration")
                .created("StoredFile", false),
            ],
        ),
        item(
            "/upload",
            vec![
                get("documents", "Not offered").plain(404, "Not Found"),
                post(
                    "documents",
                    "Upload a file (a broker; multipart). 409: the uploader holds as many \
                     files, or bytes, as the server lets it (--uploads, --upload-bytes)",
                )
                .broker()
                .errors(&[409])
                .multipart()
                .ok_whole("Uploaded"),
            ],
        ),
        item(
            "/upload/{key}",
            vec![
                get("documents", "Not offered").plain(404, "Not Found"),
                post(
                    "documents",
                    "Upload the bytes of a registered file (a broker; multipart). 409: they \
                     would take the uploader past its bytes (--upload-bytes)",
                )
                .broker()
                .errors(&[409])
                .multipart()
                .ok_whole("Uploaded"),
            ],
        ),
        item(
            "/get/{key}",
            vec![
                get("documents", "A stored file, by its signed address")
                    .query("KeyID", json!({"type": "string"}), "The signing key's id")
                    .query(
                        "Signature",
                        json!({"type": "string"}),
                        "The address's signature",
                    )
                    .query(
                        "Expires",
                        json!({"type": "string"}),
                        "When a temporary address expires",
                    )
                    .file()
                    .errors(&[403]),
            ],
        ),
        item(
            &format!("{API}/spore"),
            vec![
                get("tenders", "The API's name, version and root").ok("Spore"),
                head("tenders", "The same, headers only"),
            ],
        ),
        item(
            &format!("{API}/tenders"),
            vec![
                listing_parameters(get("tenders", "Published tenders, by dateModified"))
                    .ok_whole("TenderListing"),
                listing_parameters(head("tenders", "The same, headers only")),
                on_clock(
                    post(
                        "tenders",
                        "Create a tender (a broker; answers the tender's token). 409: the broker \
                         holds as many live tenders as the server lets it (--live-tenders)",
                    ),
                    clock_api,
                    "The caller's test clock the tender lives on (--testing or --sandbox), \
                     like the word clock=ID of procurementMethodDetails",
                )
                .broker()
                .body_example("TenderInput", schemas::tender_example())
                .errors(&[409])
                .created("Tender", true),
            ],
        ),
    ];
    routes.extend(tender_routes());
    routes.extend(contract_routes());
    routes.extend(edr_routes());
    routes.extend(auction_routes());
    if clock_api {
        routes.push(item(
            "/testing/clock",
            vec![
                get(
                    "testing",
                    "A clock: the calling broker's (its own once it moved it, else the \
                     server's), the named broker's, or without credentials the server's",
                )
                .query(
                    "broker",
                    json!({"type": "string"}),
                    "Read this broker's clock",
                )
                .query(
                    "tender",
                    json!({"type": "string"}),
                    "Read the clock this tender lives on: its owner's, or its test clock",
                )
                .query(
                    "contract",
                    json!({"type": "string"}),
                    "Read the clock this contract under management lives on (its tender's)",
                )
                // Credentials that name no known broker are refused, never taken for none.
                .errors(&[403, 404])
                .ok("Clock")
                .only_with(&["--testing", "--sandbox"]),
                post(
                    "testing",
                    "Move a clock to a moment or by a duration, freeze or release it: a \
                     broker's own (made at its first move as a copy of the server's), or \
                     without credentials (--testing only) the server's or the named \
                     broker's; answers once every transition that fell due on it is applied",
                )
                .body_example("ClockInput", json!({"advance": "PT1H"}))
                .ok("Clock")
                .only_with(&["--testing", "--sandbox"]),
            ],
        ));
    }
    if clock_api {
        routes.push(item(
            "/testing/clocks",
            vec![
                get(
                    "testing",
                    "The calling broker's live test clocks, in the order made, each with the \
                     ids of its records still live",
                )
                .broker()
                .errors(&[403])
                .ok_list("TestClock")
                .only_with(&["--testing", "--sandbox"]),
                post(
                    "testing",
                    "Create a test clock (a broker, at most --test-clocks live, 100 by \
                     default; 409 past it): it stands still at `now` until moved. A tender created with the X-Testing-Clock header, or \
                     `clock=ID` among the words of procurementMethodDetails, lives on it",
                )
                .broker()
                .body_example(
                    "TestClockInput",
                    json!({"name": "nightly", "now": "2026-11-23T09:00:00+02:00"}),
                )
                .errors(&[409])
                .created("TestClock", false)
                .only_with(&["--testing", "--sandbox"]),
            ],
        ));
        routes.push(item(
            "/testing/clocks/{clock_id}",
            vec![
                get(
                    "testing",
                    "A test clock (anyone; a deleted one shows `deleted`)",
                )
                .errors(&[403])
                .ok("TestClock")
                .only_with(&["--testing", "--sandbox"]),
                post(
                    "testing",
                    "Move a test clock forward, freeze or release it (its owner); answers \
                     once every transition that fell due on it is applied",
                )
                .broker()
                .body_example("TestClockMove", json!({"advance": "P30D"}))
                .errors(&[409])
                .ok("TestClock")
                .only_with(&["--testing", "--sandbox"]),
                delete(
                    "testing",
                    "Delete a test clock (its owner) once none of its records is live, or \
                     with `settle=true` after finishing them as their owner would (tenders \
                     cancelled, contracts under management terminated, each change in the \
                     feeds); its finished records stay, on the clock frozen at its last moment",
                )
                .broker()
                .query(
                    "settle",
                    json!({"type": "boolean", "default": false}),
                    "Cancel the clock's live tenders (drafts too) and terminate its active \
                     contracts under management first; the answer's `settled` names them",
                )
                .errors(&[409, 422])
                .ok("TestClock")
                .only_with(&["--testing", "--sandbox"]),
            ],
        ));
        routes.push(item(
            "/testing/tenders",
            vec![
                post(
                    "testing",
                    "A tender in any status in one call (a test helper): made on a new test \
                     clock of its own by the API's own requests (creation, bids by other \
                     brokers, the clock moved past each date, awards, signatures), answered \
                     with every token and the clock; a shape no tender reaches is refused \
                     before anything is made",
                )
                .broker()
                .body_example(
                    "MadeTenderInput",
                    json!({"status": "active.qualification", "bids": 2}),
                )
                // 409: the broker holds as many test clocks, or live tenders, as it may.
                .errors(&[403, 409, 422])
                .created_whole("MadeTender")
                .only_with(&["--testing", "--sandbox"]),
            ],
        ));
    }
    if faults_api {
        let scoped =
            |op: Op, what: &str| on_clock(op, true, what).only_with(&["--testing", "--sandbox"]);
        routes.push(item(
            "/testing/faults",
            vec![
                scoped(
                    get("testing", "Fault rules the caller sees, with their hits"),
                    "Only the rules of this test clock of the caller's",
                )
                .errors(&[403, 422])
                .ok_list("FaultRule"),
                scoped(
                    post(
                        "testing",
                        "Add a fault rule: the broker's own requests, or with a test clock \
                         of the caller's every request on that clock",
                    ),
                    "Hit only the requests on this test clock of the caller's (as \
                     match.clock)",
                )
                .body_example(
                    "FaultRuleInput",
                    json!({"match": {"method": "POST", "path": "/api/2.3/tenders"}, "fault": "error-after-commit"}),
                )
                .created("FaultRule", false),
                scoped(
                    delete("testing", "Remove every fault rule the caller sees"),
                    "Only the rules of this test clock of the caller's",
                )
                .ok_list("FaultRule"),
            ],
        ));
        routes.push(item(
            "/testing/faults/{fault_id}",
            vec![
                scoped(
                    get("testing", "A fault rule"),
                    "Only among the rules of this test clock of the caller's",
                )
                .errors(&[403, 422])
                .ok("FaultRule"),
                scoped(
                    delete("testing", "Remove a fault rule"),
                    "Only among the rules of this test clock of the caller's",
                )
                .ok("FaultRule"),
            ],
        ));
        routes.push(item(
            "/testing/edr",
            vec![
                get("testing", "EDR answers set on demand, each with its hits")
                    .errors(&[403])
                    .ok_list("EdrAnswer")
                    .only_with(&["--testing", "--sandbox"]),
                post(
                    "testing",
                    "Set what the EDR service answers for a code: for the calling broker's \
                     checks, or without credentials (--testing only) everyone's or the named \
                     broker's; replaces the answer set before for the same code and checks",
                )
                .body_example(
                    "EdrAnswerInput",
                    json!({"code": "14360570", "answer": "terminated"}),
                )
                .created("EdrAnswer", false)
                .only_with(&["--testing", "--sandbox"]),
                delete(
                    "testing",
                    "Remove every EDR answer the caller sees; answers them as they were",
                )
                .ok_list("EdrAnswer")
                .only_with(&["--testing", "--sandbox"]),
            ],
        ));
        routes.push(item(
            "/testing/edr/{answer_id}",
            vec![
                get("testing", "An EDR answer set on demand")
                    .errors(&[403])
                    .ok("EdrAnswer")
                    .only_with(&["--testing", "--sandbox"]),
                delete(
                    "testing",
                    "Remove an EDR answer (the code answers as built in again); answers it as \
                     it was",
                )
                .ok("EdrAnswer")
                .only_with(&["--testing", "--sandbox"]),
            ],
        ));
        let filter = |op: Op| {
            op.query(
                "record",
                json!({"type": "string"}),
                "Only exchanges that touched this tender, contract or auction",
            )
            .query(
                "clock",
                json!({"type": "string"}),
                "Only exchanges on this test clock of the caller's",
            )
            .query(
                "status",
                json!({"type": "string"}),
                "A class (4xx, 5xx) or one status (503)",
            )
            .query("method", json!({"type": "string"}), "Only this method")
            .query(
                "path",
                json!({"type": "string"}),
                "Only paths that begin with this",
            )
            .query(
                "since",
                json!({"type": "string", "format": "date-time"}),
                "Only exchanges from this moment on",
            )
            .query(
                "offset",
                json!({"type": "string"}),
                "The next_page.offset of the page before",
            )
            .query(
                "limit",
                json!({"type": "integer", "minimum": 1, "maximum": 1000}),
                "Exchanges a page (default 100)",
            )
        };
        routes.push(item(
            "/testing/requests",
            vec![
                filter(get(
                    "testing",
                    "The calling broker's request log, newest first: each exchange with both \
                     bodies (tokens masked) and a curl line that repeats it",
                ))
                .errors(&[403, 422])
                .ok_whole("ExchangePage")
                .only_with(&["--testing", "--sandbox"]),
            ],
        ));
        routes.push(item(
            "/testing/requests/{request_id}",
            vec![
                get(
                    "testing",
                    "One exchange of the calling broker's, by its X-Request-ID",
                )
                .errors(&[403])
                .ok("Exchange")
                .only_with(&["--testing", "--sandbox"]),
            ],
        ));
        routes.push(item(
            "/testing/report",
            vec![
                get(
                    "testing",
                    "The client's report: the spec's rules for clients judged from the calling \
                     broker's request log, as JSON or as JUnit XML (format=junit, or Accept: \
                     application/xml)",
                )
                .query(
                    "clock",
                    json!({"type": "string"}),
                    "Only the exchanges on this test clock of the caller's",
                )
                .query(
                    "format",
                    json!({"type": "string", "enum": ["json", "junit"]}),
                    "junit for JUnit XML",
                )
                .errors(&[403, 422])
                .ok("ClientReport")
                .ok_also_as("application/xml")
                .only_with(&["--testing", "--sandbox"]),
            ],
        ));
    }
    routes
}

/// `op` with the `X-Testing-Clock` header (where the server offers test clocks), saying what
/// it does there.
fn on_clock(op: Op, offered: bool, what: &str) -> Op {
    if !offered {
        return op;
    }
    op.header(
        "X-Testing-Clock",
        json!({"type": "string", "description": "A test clock's id"}),
        what,
    )
}

pub fn tags(testing_apis: bool) -> Json {
    let mut tags = vec![
        json!({"name": "tenders", "description": "Tenders and their listing (the spec's core)"}),
        json!({"name": "documents", "description": "Tender documents"}),
        json!({"name": "lots", "description": "Lots of a tender (upstream extension)"}),
        json!({"name": "questions", "description": "Questions and answers"}),
        json!({"name": "bids", "description": "Bids and their documents"}),
        json!({"name": "awards", "description": "Awards and their decisions (upstream extension)"}),
        json!({"name": "contracts", "description": "Contracts"}),
        json!({"name": "cancellations", "description": "Cancellations (upstream extension)"}),
        json!({"name": "claims", "description": "Claims on tenders and awards (upstream extension)"}),
        json!({"name": "contracting", "description": "Contracts under management after signing (upstream's contracting service)"}),
        json!({"name": "auctions", "description": "The embedded auction"}),
        json!({"name": "edr", "description": "The EDR service: a bidder's code checked in the state register, as upstream's EDR integration service answered"}),
        json!({"name": "faces", "description": "The dashboard and this description"}),
    ];
    if testing_apis {
        tags.push(json!({
            "name": "testing",
            "description": "Only on a server started with --testing: the clock control API; \
                with --testing or --sandbox: the fault API and EDR answers on demand",
        }));
    }
    Json::Array(tags)
}
