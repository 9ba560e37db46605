//! Contract management after signing: the hand-over when a tender (or a lot) completes, the
//! contract's credentials, its changes, documents, payment and termination, with upstream's
//! refusals; every refusal changes nothing.

use crate::common::*;
use serde_json::{Value, json};

/// A tender taken to `complete` with one bid of 400, in `mode` when given: (tender, its token,
/// the signed contract as the tender shows it).
pub async fn completed(s: &TestServer, mode: Option<&str>) -> (Value, String, Value) {
    let (id, token) = match mode {
        None => s.tendering().await,
        Some(mode) => {
            let mut body = tender_body(&s.now().await, 1, 4);
            body["mode"] = json!(mode);
            let (id, token, _) = s.create(body).await;
            s.advance("P1DT1M").await;
            (id, token)
        }
    };
    s.bid(&id, 400.0).await;
    let t = s.until_status(&id, "active.qualification").await;
    let award = text(&t["awards"][0]["id"]);
    let approved = s.decide_award(&id, &token, &award, "active").await;
    s.past(&text(&approved.body["data"]["complaintPeriod"]["endDate"]))
        .await;
    let contract = text(&s.tender(&id).await["contracts"][0]["id"]);
    s.owner(&token)
        .patch(
            &format!("{id}/contracts/{contract}"),
            json!({"status": "active", "contractNumber": "№ 1/2026"}),
        )
        .await
        .assert_status(200);
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "complete");
    let signed = t["contracts"][0].clone();
    (t, token, signed)
}

/// A write under `/contracts/{path}` as the tender owner's broker, with `token` in the
/// header, as the upstream client sends it.
async fn write(
    s: &TestServer,
    method: reqwest::Method,
    path: &str,
    token: &str,
    data: Value,
) -> Reply {
    s.call(method, &format!("/api/2.3/contracts/{path}"))
        .broker("broker")
        .header("X-Access-Token", token)
        .data(data)
        .send()
        .await
}

async fn post(s: &TestServer, path: &str, token: &str, data: Value) -> Reply {
    write(s, reqwest::Method::POST, path, token, data).await
}

async fn patch(s: &TestServer, path: &str, token: &str, data: Value) -> Reply {
    write(s, reqwest::Method::PATCH, path, token, data).await
}

async fn read(s: &TestServer, contract: &str) -> Value {
    s.read(&format!("/api/2.3/contracts/{contract}")).await["data"].clone()
}

fn error(r: &Reply) -> (u16, String, String, Value) {
    let (location, name, description) = r.error();
    (r.status, location, name, description)
}

fn phase(description: &str) -> (u16, String, String, Value) {
    (403, "body".into(), "data".into(), json!(description))
}

fn forbidden() -> (u16, String, String, Value) {
    (403, "url".into(), "permission".into(), json!("Forbidden"))
}

#[tokio::test]
async fn a_completed_tender_hands_its_signed_contract_over_in_the_same_write() {
    let s = TestServer::start().await;
    let head = s
        .call(reqwest::Method::HEAD, "/api/2.3/contracts")
        .send()
        .await;
    assert_eq!(
        head.status, 200,
        "the upstream client's constructor needs it"
    );
    let (t, _, signed) = completed(&s, None).await;
    let id = text(&signed["id"]);
    let c = read(&s, &id).await;
    assert_eq!(c["id"], signed["id"]);
    for (field, expected) in [
        ("contractID", signed["contractID"].clone()),
        ("awardID", signed["awardID"].clone()),
        ("value", signed["value"].clone()),
        ("dateSigned", signed["dateSigned"].clone()),
        ("suppliers", signed["suppliers"].clone()),
        ("items", signed["items"].clone()),
        ("contractNumber", json!("№ 1/2026")),
        ("status", json!("active")),
        ("owner", json!("broker")),
        ("tender_id", t["id"].clone()),
        ("procuringEntity", t["procuringEntity"].clone()),
    ] {
        assert_eq!(c[field], expected, "{field}");
    }
    for hidden in [
        "tender_token",
        "owner_token",
        "date",
        "changes",
        "amountPaid",
        "mode",
    ] {
        assert!(c.get(hidden).is_none(), "{hidden} is not shown: {c}");
    }
    assert_eq!(
        c["dateModified"], t["dateModified"],
        "handed over in the write that completed it"
    );
    let listed = s
        .get("/api/2.3/contracts?opt_fields=contractID,status,title,owner,tender_id,mode,value")
        .send()
        .await;
    // The listed fields (the first six, held beside each row) read as the contract shows them.
    let mut row = json!({"id": id, "dateModified": c["dateModified"]});
    for f in [
        "contractID",
        "status",
        "title",
        "owner",
        "tender_id",
        "mode",
        "value",
    ] {
        if let Some(v) = c.get(f) {
            row[f] = v.clone();
        }
    }
    assert_eq!(row["tender_id"], t["id"]);
    assert_eq!(listed.body["data"], json!([row]));
    let posted = s.by("broker").post("/api/2.3/contracts", json!({})).await;
    assert_eq!(
        posted.status, 405,
        "contracts are handed over, never posted"
    );
    let unknown = format!("/api/2.3/contracts/{UNKNOWN_ID}");
    s.assert_unknown(&unknown, "contract_id").await;
    // Nothing flows back: the tender is as it was.
    assert_eq!(s.tender(&text(&t["id"])).await, t);
}

#[tokio::test]
async fn a_test_mode_contract_is_marked_in_every_language() {
    let s = TestServer::start().await;
    let (_, token, signed) = completed(&s, Some("test")).await;
    let id = text(&signed["id"]);
    let c = read(&s, &id).await;
    assert_eq!(c["mode"], "test");
    assert_eq!(c["title"], "[ТЕСТУВАННЯ] ");
    assert_eq!(c["title_en"], "[TESTING] ");
    assert_eq!(c["title_ru"], "[ТЕСТИРОВАНИЕ] ");
    let own = s.contract_credentials(&id, &token).await;
    let r = s
        .change_contract(
            &id,
            &own,
            json!({"title": "Договір на папір", "title_en": "[TESTING] Paper"}),
        )
        .await
        .assert_status(200);
    assert_eq!(r.body["data"]["title"], "[ТЕСТУВАННЯ] Договір на папір");
    assert_eq!(r.body["data"]["title_en"], "[TESTING] Paper");
    let listed = s.get("/api/2.3/contracts?mode=test").send().await;
    assert_eq!(count(&listed.body["data"]), Some(1));
}

#[tokio::test]
async fn credentials_are_the_tender_owner_s_and_each_call_retires_the_token_before() {
    let s = TestServer::start().await;
    let (_, tender_token, signed) = completed(&s, None).await;
    let id = text(&signed["id"]);
    let before = read(&s, &id).await;
    let ask = |broker: &'static str, token: String| {
        s.patch(&format!(
            "/api/2.3/contracts/{id}/credentials?acc_token={token}"
        ))
        .broker(broker)
        .send()
    };
    assert_eq!(
        error(&ask("broker1", tender_token.clone()).await),
        forbidden(),
        "another broker"
    );
    assert_eq!(
        error(&ask("broker", "0".repeat(32)).await),
        forbidden(),
        "a wrong token"
    );
    assert_eq!(read(&s, &id).await, before);
    let first = s.contract_credentials(&id, &tender_token).await;
    assert_eq!(first.len(), 32);
    assert_ne!(read(&s, &id).await["dateModified"], before["dateModified"]);
    assert_eq!(
        error(
            &s.change_contract(&id, &first, json!({"description": "Д"}))
                .await
        )
        .0,
        200
    );
    assert_eq!(
        error(
            &s.change_contract(&id, &tender_token, json!({"description": "Е"}))
                .await
        ),
        forbidden(),
        "the tender token does not write to the contract"
    );
    let second = s.contract_credentials(&id, &tender_token).await;
    assert_ne!(second, first);
    assert_eq!(
        error(
            &s.change_contract(&id, &first, json!({"description": "Є"}))
                .await
        ),
        forbidden(),
        "the token before is retired"
    );
    let r = s
        .patch(&format!("/api/2.3/contracts/{id}"))
        .broker("broker1")
        .header("X-Access-Token", &second)
        .data(json!({"description": "Ж"}))
        .send()
        .await;
    assert_eq!(
        error(&r),
        forbidden(),
        "another broker with the right token"
    );
    assert_eq!(read(&s, &id).await["description"], "Д");
    let get = s
        .get(&format!("/api/2.3/contracts/{id}/credentials"))
        .send()
        .await;
    assert_eq!(get.status, 405);
}

#[tokio::test]
async fn a_change_is_recorded_pending_then_applied_with_its_signature_date_and_then_fixed() {
    let s = TestServer::start().await;
    let (_, tender_token, signed) = completed(&s, None).await;
    let id = text(&signed["id"]);
    let token = s.contract_credentials(&id, &tender_token).await;
    let empty = post(&s, &format!("{id}/changes"), &token, json!({}))
        .await
        .assert_status(422);
    assert_eq!(
        empty.error_names(),
        ["rationaleTypes", "rationale"],
        "upstream's order"
    );
    let bad = post(
        &s,
        &format!("{id}/changes"),
        &token,
        json!({"rationale": "", "rationaleTypes": ["priceReduction", "luck"], "colour": 1}),
    )
    .await;
    assert_eq!(
        bad.errors(),
        [
            (
                json!("rationaleTypes.1"),
                json!(
                    "Value must be one of ['volumeCuts', 'itemPriceVariation', 'qualityImprovement', 'thirdParty', 'durationExtension', 'priceReduction', 'taxRate', 'fiscalYearExtension']."
                )
            ),
            (json!("rationale"), json!("String value is too short.")),
            (json!("colour"), json!("Rogue field")),
        ]
    );
    let made = post(
        &s,
        &format!("{id}/changes"),
        &token,
        json!({"rationale": "Зменшення обсягів", "rationale_en": "Volume cuts", "rationaleTypes": "volumeCuts", "status": "active", "id": "x"}),
    )
    .await;
    let change = made.assert_created_in(&s, &format!("/api/2.3/contracts/{id}/changes"));
    assert_eq!(
        made.body["data"]["status"], "pending",
        "a status sent at creation is dropped"
    );
    assert_eq!(made.body["data"]["rationaleTypes"], json!(["volumeCuts"]));
    let created_at = made.body["data"]["date"].clone();
    let second = post(
        &s,
        &format!("{id}/changes"),
        &token,
        json!({"rationale": "Ще одна", "rationaleTypes": ["taxRate"]}),
    )
    .await;
    assert_eq!(
        error(&second),
        phase("Can't create new contract change while any (pending) change exists")
    );

    let path = format!("{id}/changes/{change}");
    let unsigned = patch(&s, &path, &token, json!({"status": "active"})).await;
    assert_eq!(
        error(&unsigned),
        phase("Can't update contract change status. 'dateSigned' is required.")
    );
    let now = s.now().await;
    let future = patch(
        &s,
        &path,
        &token,
        json!({"dateSigned": days_after(&now, 1)}),
    )
    .await;
    assert_eq!(
        error(&future),
        (
            422,
            "body".into(),
            "dateSigned".into(),
            json!("Contract signature date can't be in the future")
        )
    );
    let signed_at = text(&signed["dateSigned"]);
    let early = patch(
        &s,
        &path,
        &token,
        json!({"dateSigned": days_after(&signed_at, -1)}),
    )
    .await;
    let (status, _, _, description) = error(&early);
    assert_eq!(status, 403);
    assert!(
        text(&description).starts_with("Change dateSigned (")
            && text(&description).contains(&format!(
                "can't be earlier than contract dateSigned ({signed_at})"
            )),
        "{description}"
    );
    s.advance("PT1H").await;
    let edited = patch(
        &s,
        &path,
        &token,
        json!({"rationale_ru": "Сокращение объёмов", "dateSigned": now}),
    )
    .await
    .assert_status(200);
    assert_eq!(
        edited.body["data"]["date"], created_at,
        "a plain edit keeps the date"
    );
    let applied = patch(&s, &path, &token, json!({"status": "active"}))
        .await
        .assert_status(200);
    assert_eq!(applied.body["data"]["status"], "active");
    assert_eq!(applied.body["data"]["dateSigned"], json!(now));
    assert_eq!(
        applied.body["data"]["date"],
        json!(s.now().await),
        "dated when applied"
    );
    for data in [json!({"rationale": "Інша"}), json!({"status": "pending"})] {
        let fixed = patch(&s, &path, &token, data).await;
        assert_eq!(
            error(&fixed),
            phase("Can't update contract change in current (active) status")
        );
    }
    let c = read(&s, &id).await;
    assert_eq!(count(&c["changes"]), Some(1));
    assert_eq!(
        c["value"], signed["value"],
        "applying a change does not edit the contract"
    );
    let listed = s
        .get(&format!("/api/2.3/contracts/{id}/changes"))
        .send()
        .await;
    assert_eq!(listed.body["data"], c["changes"]);
    let unknown = format!("/api/2.3/contracts/{id}/changes/{UNKNOWN_ID}");
    s.assert_unknown(&unknown, "change_id").await;
    // The next change is judged against the one applied.
    let before_last = post(&s, &format!("{id}/changes"), &token, json!({"rationale": "Р", "rationaleTypes": ["taxRate"], "dateSigned": days_after(&now, -1)})).await;
    let (status, _, _, description) = error(&before_last);
    assert_eq!(status, 403);
    assert!(
        text(&description).contains("can't be earlier than last active change dateSigned"),
        "{description}"
    );
}

#[tokio::test]
async fn documents_of_the_contract_and_of_a_change_while_it_is_pending() {
    let s = TestServer::start().await;
    let (_, tender_token, signed) = completed(&s, None).await;
    let id = text(&signed["id"]);
    let token = s.contract_credentials(&id, &tender_token).await;
    let docs = format!("{id}/documents");
    let anonymous = s
        .anyone()
        .post(
            &format!("/api/2.3/contracts/{docs}"),
            document_body("a.pdf"),
        )
        .await;
    assert_eq!(error(&anonymous), forbidden());
    let added = post(&s, &docs, &token, document_body("Contract.pdf")).await;
    let doc = added.assert_created_in(&s, &format!("/api/2.3/contracts/{id}/documents"));
    assert_eq!(added.body["data"]["documentOf"], "contract");
    let change = post(
        &s,
        &format!("{id}/changes"),
        &token,
        json!({"rationale": "Р", "rationaleTypes": ["taxRate"]}),
    )
    .await
    .id();
    let unknown_change = patch(
        &s,
        &format!("{docs}/{doc}"),
        &token,
        json!({"documentOf": "change", "relatedItem": "0".repeat(32)}),
    )
    .await;
    assert_eq!(
        error(&unknown_change),
        (
            422,
            "body".into(),
            "relatedItem".into(),
            json!("relatedItem should be one of changes")
        )
    );
    let bound = patch(
        &s,
        &format!("{docs}/{doc}"),
        &token,
        json!({"documentOf": "change", "relatedItem": change}),
    )
    .await
    .assert_status(200);
    assert_eq!(bound.body["data"]["relatedItem"], change.as_str());
    let version = s
        .put(&format!("/api/2.3/contracts/{docs}/{doc}"))
        .broker("broker")
        .header("X-Access-Token", &token)
        .data(document_body("Contract-2.pdf"))
        .send()
        .await
        .assert_status(200);
    assert_eq!(
        version.body["data"]["documentOf"], "change",
        "kept from the version before"
    );
    let now = s.now().await;
    assert_eq!(
        patch(
            &s,
            &format!("{id}/changes/{change}"),
            &token,
            json!({"status": "active", "dateSigned": now})
        )
        .await
        .status,
        200
    );
    let later = post(&s, &docs, &token, document_body("Annex.pdf"))
        .await
        .assert_status(201);
    let too_late = patch(
        &s,
        &format!("{docs}/{}", later.id()),
        &token,
        json!({"documentOf": "change", "relatedItem": change}),
    )
    .await;
    assert_eq!(
        error(&too_late),
        phase("Can't add document to 'active' change")
    );
    let mut bound_version = document_body("Annex-2.pdf");
    bound_version["documentOf"] = json!("change");
    bound_version["relatedItem"] = json!(change);
    let put_too_late = s
        .put(&format!("/api/2.3/contracts/{docs}/{}", later.id()))
        .broker("broker")
        .header("X-Access-Token", &token)
        .data(bound_version)
        .send()
        .await;
    assert_eq!(
        error(&put_too_late),
        phase("Can't add document to 'active' change"),
        "a new version binds no more than a PATCH"
    );
    let listed = s.get(&format!("/api/2.3/contracts/{docs}")).send().await;
    assert_eq!(count(&listed.body["data"]), Some(2));
    let every = s
        .get(&format!("/api/2.3/contracts/{docs}?all=1"))
        .send()
        .await;
    assert_eq!(count(&every.body["data"]), Some(3), "every version");
    let one = s
        .get(&format!("/api/2.3/contracts/{docs}/{doc}"))
        .send()
        .await;
    assert_eq!(count(&one.body["data"]["previousVersions"]), Some(1));
    let shown = read(&s, &id).await;
    assert_eq!(count(&shown["documents"]), Some(2));
}

#[tokio::test]
async fn the_whole_contract_sent_back_changes_only_what_the_broker_may_change() {
    let s = TestServer::start().await;
    let (_, tender_token, signed) = completed(&s, None).await;
    let id = text(&signed["id"]);
    let token = s.contract_credentials(&id, &tender_token).await;
    post(
        &s,
        &format!("{id}/changes"),
        &token,
        json!({"rationale": "Р", "rationaleTypes": ["taxRate"]}),
    )
    .await;
    let before = read(&s, &id).await;
    let mut whole = before.clone();
    whole["description"] = json!("Поставка паперу А4");
    whole["id"] = json!("0".repeat(32));
    whole["contractID"] = json!("UA-0");
    whole["owner"] = json!("broker1");
    whole["dateSigned"] = json!("2020-01-01T00:00:00+02:00");
    whole["changes"][0]["rationale"] = json!("Змінено");
    whole["items"][0]["classification"]["id"] = json!("44617100-9");
    whole["items"][0]["quantity"] = json!(12);
    s.change_contract(&id, &token, whole)
        .await
        .assert_status(200);
    let after = read(&s, &id).await;
    let mut expected = before.clone();
    expected["description"] = json!("Поставка паперу А4");
    expected["items"][0]["quantity"] = json!(12);
    expected["dateModified"] = after["dateModified"].clone();
    assert_eq!(after, expected);
    assert_ne!(after["dateModified"], before["dateModified"]);
    // Sending it back as it is changes nothing, dateModified included.
    let same = s.change_contract(&id, &token, after.clone()).await;
    assert_eq!((same.status, &same.body["data"]), (200, &after));
    assert_eq!(read(&s, &id).await, after);
    let rogue = s.change_contract(&id, &token, json!({"colour": "red", "status": "done", "period": {"startDate": "2030-02-01", "endDate": "2030-01-01"}})).await;
    assert_eq!(
        rogue.errors(),
        [
            (
                json!("status"),
                json!("Value must be one of ['terminated', 'active'].")
            ),
            (
                json!("period.startDate"),
                json!("period should begin before its end")
            ),
            (json!("colour"), json!("Rogue field")),
        ]
    );
    let duplicate = s
        .change_contract(
            &id,
            &token,
            json!({"items": [after["items"][0], after["items"][0]]}),
        )
        .await;
    assert_eq!(
        error(&duplicate),
        (
            422,
            "body".into(),
            "items".into(),
            json!("Item id should be uniq for all items")
        )
    );
    let none = s.change_contract(&id, &token, json!({"items": []})).await;
    assert_eq!(
        error(&none),
        (
            422,
            "body".into(),
            "items".into(),
            json!("Please provide at least 1 item.")
        )
    );
    let wrong_type = s
        .patch(&format!("/api/2.3/contracts/{id}"))
        .broker("broker")
        .header("X-Access-Token", &token)
        .raw("text/plain", "{}")
        .send()
        .await;
    assert_eq!(wrong_type.status, 415);
    assert_eq!(read(&s, &id).await, after, "refusals change nothing");
}

#[tokio::test]
async fn amount_paid_shows_the_value_s_currency_and_termination_needs_it_then_freezes_everything() {
    let s = TestServer::start().await;
    let (_, tender_token, signed) = completed(&s, None).await;
    let id = text(&signed["id"]);
    let token = s.contract_credentials(&id, &tender_token).await;
    let doc = post(
        &s,
        &format!("{id}/documents"),
        &token,
        document_body("Contract.pdf"),
    )
    .await
    .id();
    let pending = post(
        &s,
        &format!("{id}/changes"),
        &token,
        json!({"rationale": "Р", "rationaleTypes": ["taxRate"]}),
    )
    .await
    .id();
    let unpaid = s
        .change_contract(&id, &token, json!({"status": "terminated"}))
        .await;
    assert_eq!(
        error(&unpaid),
        phase("Can't terminate contract while 'amountPaid' is not set")
    );
    assert_eq!(read(&s, &id).await["status"], "active");
    let paid = s.change_contract(
        &id,
        &token,
        json!({"amountPaid": {"amount": 900, "currency": "USD", "valueAddedTaxIncluded": false}}),
    )
    .await
    .assert_status(200);
    assert_eq!(
        paid.body["data"]["amountPaid"],
        json!({"amount": 900.0, "currency": "UAH", "valueAddedTaxIncluded": true}),
        "shown in the value's currency, with its VAT flag; more than the value is fine"
    );
    let revalued = s
        .change_contract(
            &id,
            &token,
            json!({"value": {"currency": "USD", "valueAddedTaxIncluded": false}}),
        )
        .await;
    assert_eq!(
        revalued.body["data"]["amountPaid"],
        json!({"amount": 900.0, "currency": "USD", "valueAddedTaxIncluded": false})
    );
    let terminated = s.change_contract(
        &id,
        &token,
        json!({"status": "terminated", "amountPaid": {"amount": 400}, "terminationDetails": "Виконано"}),
    )
    .await.assert_status(200);
    assert_eq!(terminated.body["data"]["status"], "terminated");
    assert_eq!(terminated.body["data"]["amountPaid"]["amount"], 400.0);
    let held = read(&s, &id).await;

    let refusals = [
        (
            s.change_contract(&id, &token, json!({"description": "Ще"}))
                .await,
            "Can't update contract in current (terminated) status",
        ),
        (
            s.change_contract(&id, &token, json!({"status": "active"}))
                .await,
            "Can't update contract in current (terminated) status",
        ),
        (
            post(
                &s,
                &format!("{id}/changes"),
                &token,
                json!({"rationale": "Р", "rationaleTypes": ["taxRate"]}),
            )
            .await,
            "Can't add contract change in current (terminated) contract status",
        ),
        (
            post(
                &s,
                &format!("{id}/documents"),
                &token,
                document_body("Late.pdf"),
            )
            .await,
            "Can't add document in current (terminated) contract status",
        ),
        (
            s.put(&format!("/api/2.3/contracts/{id}/documents/{doc}"))
                .broker("broker")
                .header("X-Access-Token", &token)
                .data(document_body("Late.pdf"))
                .send()
                .await,
            "Can't update document in current (terminated) contract status",
        ),
        (
            patch(
                &s,
                &format!("{id}/documents/{doc}"),
                &token,
                json!({"description": "Д"}),
            )
            .await,
            "Can't update document in current (terminated) contract status",
        ),
        (
            patch(
                &s,
                &format!("{id}/changes/{pending}"),
                &token,
                json!({"rationale": "Інша"}),
            )
            .await,
            "Can't update contract change in current (terminated) contract status",
        ),
        (
            s.patch(&format!(
                "/api/2.3/contracts/{id}/credentials?acc_token={tender_token}"
            ))
            .broker("broker")
            .send()
            .await,
            "Can't generate credentials in current (terminated) contract status",
        ),
    ];
    for (refused, message) in refusals {
        assert_eq!(error(&refused), phase(message));
    }
    assert_eq!(read(&s, &id).await, held, "nothing changed");
}

#[tokio::test]
async fn a_lot_that_completes_hands_its_contract_over_while_the_other_lot_goes_on() {
    use crate::lots::{A, B, bid, tendering};
    let s = TestServer::start().await;
    let (id, token) = tendering(&s, &[(A, 300.0), (B, 200.0)]).await;
    bid(&s, &id, &[(A, 280.0), (B, 190.0)]).await;
    let t = s.until_status(&id, "active.qualification").await;
    let award_a = t["awards"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["lotID"] == A).cloned())
        .expect("lot A's award");
    let award_a = text(&award_a["id"]);
    let approved = s.decide_award(&id, &token, &award_a, "active").await;
    s.past(&text(&approved.body["data"]["complaintPeriod"]["endDate"]))
        .await;
    let t = s.tender(&id).await;
    let contract = t["contracts"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["awardID"] == award_a.as_str()).cloned())
        .expect("lot A's contract");
    let contract_id = text(&contract["id"]);
    assert_eq!(
        s.get(&format!("/api/2.3/contracts/{contract_id}"))
            .send()
            .await
            .status,
        404,
        "not before its lot completes"
    );
    s.sign_contract(&id, &token, &contract_id)
        .await
        .assert_status(200);
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.qualification", "lot B goes on");
    let c = read(&s, &contract_id).await;
    assert_eq!(count(&c["items"]), Some(1));
    assert_eq!(c["items"][0]["relatedLot"], A);
    let listed = s.get("/api/2.3/contracts").send().await;
    assert_eq!(count(&listed.body["data"]), Some(1));
}

/// Faults on demand reach the contracts as every other path under the API: a change refused
/// before it is applied leaves the contract as it was, one answered 5xx after it is applied
/// is kept.
#[tokio::test]
async fn faults_on_demand_hit_contract_writes() {
    let s = TestServer::start().await;
    let (_, tender_token, signed) = completed(&s, None).await;
    let id = text(&signed["id"]);
    let token = s.contract_credentials(&id, &tender_token).await;
    let before = read(&s, &id).await;
    for (fault, kept) in [("error-before-commit", false), ("error-after-commit", true)] {
        s.by("broker").post("/testing/faults", json!({"match": {"method": "PATCH", "path": "/api/2.3/contracts/*"}, "fault": fault})).await.assert_status(201);
        let description = format!("Змінено ({fault})");
        s.change_contract(&id, &token, json!({"description": description}))
            .await
            .assert_status(503);
        let after = read(&s, &id).await;
        if kept {
            assert_eq!(after["description"], description.as_str());
        } else {
            assert_eq!(after, before);
        }
    }
}
