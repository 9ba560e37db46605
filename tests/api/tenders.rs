//! Creating, publishing and changing a tender.

use crate::common::*;
use serde_json::{Value, json};

#[tokio::test]
async fn two_phase_creation_publishes_once_and_repeats_harmlessly() {
    let s = TestServer::start().await;
    let mut body = tender_body(&s.now().await, 1, 4);
    body["status"] = json!("draft");
    let (id, token, draft) = s.create(body).await;
    assert_eq!(draft["status"], "draft");
    assert!(draft.get("next_check").is_none());
    let listed = s.get("/api/2.3/tenders").send().await;
    assert!(!listed.text.contains(&id), "a draft is not listed");

    let path = format!("/api/2.3/tenders/{id}?acc_token={token}");
    let refused = s
        .by("broker")
        .patch(&path, json!({"title": "інша назва"}))
        .await;
    refused.assert_refused(
        403,
        "body",
        "data",
        "Can't update tender in current (draft) status",
    );

    // The pinned clock stands still: let a minute pass, so a refreshed date can show.
    s.advance("PT1M").await;
    let published = s
        .by("broker")
        .patch(&path, json!({"status": "active.enquiries"}))
        .await
        .assert_status(200);
    let t = &published.body["data"];
    assert_eq!(t["status"], "active.enquiries");
    assert!(t["next_check"].is_string());
    assert_ne!(t["date"], draft["date"], "publication refreshes date");
    assert!(s.get("/api/2.3/tenders").send().await.text.contains(&id));

    let again = s
        .by("broker")
        .patch(&path, json!({"status": "active.enquiries"}))
        .await;
    assert_eq!(again.status, 200);
    assert_eq!(
        again.body["data"]["dateModified"], t["dateModified"],
        "a repeated publication changes nothing"
    );
}

#[tokio::test]
async fn publication_accepts_the_whole_object_sent_back() {
    let s = TestServer::start().await;
    let mut body = tender_body(&s.now().await, 1, 4);
    body["status"] = json!("draft");
    let (id, token, mut draft) = s.create(body).await;
    draft["status"] = json!("active.enquiries");
    let r = s
        .patch(&format!("/api/2.3/tenders/{id}"))
        .broker("broker")
        .header("X-Access-Token", &token)
        .data(draft)
        .send()
        .await
        .assert_status(200);
    assert_eq!(r.body["data"]["status"], "active.enquiries");
}

#[tokio::test]
async fn test_mode_prefixes_every_title() {
    let s = TestServer::start().await;
    let mut body = tender_body(&s.now().await, 1, 4);
    body["mode"] = json!("test");
    let (id, token, data) = s.create(body).await;
    assert_eq!(data["title"], "[ТЕСТУВАННЯ] Послуги шкільних їдалень");
    assert_eq!(data["title_en"], "[TESTING] ");
    assert_eq!(data["title_ru"], "[ТЕСТИРОВАНИЕ] ");
    let r = s
        .owner(&token)
        .patch(
            &id.to_string(),
            json!({"title": "Нова назва", "mode": null}),
        )
        .await
        .assert_status(200);
    assert_eq!(r.body["data"]["title"], "[ТЕСТУВАННЯ] Нова назва");
    assert_eq!(r.body["data"]["mode"], "test");
}

#[tokio::test]
async fn every_value_shows_its_vat_flag_true_when_not_sent() {
    let s = TestServer::start().await;
    let mut body = tender_body(&s.now().await, 1, 4);
    body["guarantee"] = json!({"amount": 8, "currency": "USD"});
    let (id, _, t) = s.create(body).await;
    assert_eq!(
        t["guarantee"],
        json!({"amount": 8.0, "currency": "USD", "valueAddedTaxIncluded": true})
    );
    for value in ["value", "minimalStep"] {
        assert_eq!(t[value]["valueAddedTaxIncluded"], true, "{value}");
    }
    s.advance("P1DT1M").await;
    let (bid, bid_token) = s.bid(&id, 450.0).await;
    let own = s.bidder(&bid_token).get(&format!("{id}/bids/{bid}")).await;
    assert_eq!(
        own.body["data"]["value"],
        json!({"amount": 450.0, "currency": "UAH", "valueAddedTaxIncluded": true})
    );

    let mut body = tender_body(&s.now().await, 1, 4);
    body["guarantee"] = json!({"amount": 8, "currency": "USD", "valueAddedTaxIncluded": false});
    let (_, _, t) = s.create(body).await;
    assert_eq!(
        t["guarantee"]["valueAddedTaxIncluded"], false,
        "a sent flag is kept"
    );
}

#[tokio::test]
async fn the_tendering_start_follows_every_move_of_the_enquiry_end() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let (id, token, _) = s.published().await;
    let path = format!("/api/2.3/tenders/{id}?acc_token={token}");
    for (days, sent_start) in [(2, None), (1, None), (3, Some(days_after(&now, 1)))] {
        let mut data = json!({"enquiryPeriod": {"endDate": days_after(&now, days)}});
        if let Some(start) = sent_start {
            data["tenderPeriod"] = json!({"startDate": start});
        }
        let r = s.by("broker").patch(&path, data).await.assert_status(200);
        let read = s.tender(&id).await;
        assert_eq!(
            read["tenderPeriod"]["startDate"], read["enquiryPeriod"]["endDate"],
            "the service sets the tendering start at the enquiry end ({days} days)"
        );
        assert_eq!(r.body["data"]["tenderPeriod"], read["tenderPeriod"]);
        assert_eq!(read["next_check"], read["tenderPeriod"]["startDate"]);
    }
}

#[tokio::test]
async fn owner_changes_terms_during_enquiries() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let (id, token, before) = s.published().await;
    let path = format!("/api/2.3/tenders/{id}?acc_token={token}");
    let r = s.by("broker").patch(&path, json!({"tenderPeriod": {"endDate": days_after(&now, 5)}, "guarantee": {"amount": 10, "currency": "USD"}})).await.assert_status(200);
    let t = &r.body["data"];
    assert_eq!(
        t["guarantee"],
        json!({"amount": 10.0, "currency": "USD", "valueAddedTaxIncluded": true})
    );
    assert_eq!(
        t["tenderPeriod"]["startDate"], before["tenderPeriod"]["startDate"],
        "nested objects merge"
    );
    assert!(t["dateModified"].as_str() > before["dateModified"].as_str());

    let same = s
        .by("broker")
        .patch(
            &path,
            json!({"guarantee": {"amount": 10}, "dateModified": "2000-01-01"}),
        )
        .await;
    assert_eq!(same.status, 200);
    assert_eq!(
        same.body["data"]["dateModified"], t["dateModified"],
        "a PATCH that changes nothing keeps dateModified"
    );

    let whole = s.by("broker").patch(&path, t.clone()).await;
    assert_eq!(
        whole.status, 200,
        "read-only fields sent back are ignored: {}",
        whole.text
    );
    assert_eq!(whole.body["data"]["dateModified"], t["dateModified"]);
}

#[tokio::test]
async fn lists_merge_by_index_and_a_shorter_list_truncates() {
    let s = TestServer::start().await;
    let mut body = tender_body(&s.now().await, 1, 4);
    let mut second = body["items"][0].clone();
    second["id"] = json!("item-2");
    body["items"].as_array_mut().expect("items").push(second);
    let (id, token, _) = s.create(body).await;
    let r = s
        .owner(&token)
        .patch(&id.to_string(), json!({"items": [{"quantity": 7}]}))
        .await
        .assert_status(200);
    let items = r.body["data"]["items"].as_array().expect("items");
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], "item-1");
    assert_eq!(items[0]["quantity"], 7);
    assert_eq!(items[0]["description"], "Послуги шкільних їдалень");
}

#[tokio::test]
async fn invalid_changes_are_refused_with_every_problem_and_change_nothing() {
    let s = TestServer::start().await;
    let (id, token, before) = s.published().await;
    let r = s
        .owner(&token)
        .patch(
            &id.to_string(),
            json!({"minimalStep": {"amount": 900}, "value": {"currency": 5}, "colour": "red"}),
        )
        .await
        .assert_status(422);
    let names = r.error_names();
    assert!(
        names.contains(&"colour") && names.contains(&"value.currency"),
        "{names:?}"
    );
    assert_eq!(s.tender(&id).await, before);
}

#[tokio::test]
async fn creation_validation_collects_every_field() {
    let s = TestServer::start().await;
    let r = s
        .try_create(json!({"procurementMethodType": "belowThreshold"}))
        .await;
    assert_eq!(r.status, 422);
    let mut names: Vec<String> = r.body["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| text(&e["name"]))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "enquiryPeriod",
            "items",
            "minimalStep",
            "procuringEntity",
            "tenderPeriod",
            "title",
            "value"
        ]
    );
    assert!(
        r.body["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .all(|e| e["description"] == "This field is required.")
    );
}

#[tokio::test]
async fn creation_rules_between_fields() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let mut body = tender_body(&now, 1, 4);
    body["minimalStep"] = json!({"amount": 600, "currency": "UAH"});
    let r = s.try_create(body).await;
    r.assert_refused(
        422,
        "body",
        "minimalStep",
        "value should be less than value of tender",
    );

    let mut body = tender_body(&now, 1, 4);
    body["procurementMethodType"] = json!("aboveThresholdUA");
    let r = s.try_create(body).await;
    r.assert_refused(415, "data", "procurementMethodType", "Not implemented");

    let mut body = tender_body(&now, 1, 4);
    body["procuringEntity"]["kind"] = json!("private");
    let r = s.try_create(body).await;
    assert_eq!(r.status, 403);
    assert_eq!(r.error().1, "kind");
    assert_eq!(
        r.error().2,
        json!(
            "'private' procuringEntity cannot publish this type of procedure. Only general, special, defense, other are allowed."
        )
    );

    let mut body = tender_body(&now, 1, 4);
    body.as_object_mut()
        .map(|b| b.remove("procurementMethodType"));
    let r = s.try_create(body).await;
    assert_eq!(
        (r.status, r.body["errors"].clone()),
        (
            422,
            json!([{"location": "body", "name": "procurementMethodType", "description": "This field is required."}])
        ),
        "the spec requires the type"
    );
}

#[tokio::test]
async fn sandbox_fields_exist_only_in_testing_mode() {
    let s = TestServer::start_with(tender_registry::Settings::default()).await;
    let mut body = tender_body("2030-01-01T00:00:00+02:00", 1, 4);
    body["procurementMethodDetails"] = json!("quick, accelerator=1440");
    let r = s.try_create(body).await;
    r.assert_refused(422, "body", "procurementMethodDetails", "Rogue field");
    let clock = s.get("/testing/clock").send().await;
    clock.assert_refused_on(404, "not_found");
}

/// `--sandbox`: the acceleration fields are taken and shown, faults on demand hit only the
/// caller's own requests, and a broker moves a clock of its own, never the server's.
#[tokio::test]
async fn a_sandbox_accelerates_and_moves_no_clock_but_a_broker_s_own() {
    let s = TestServer::sandbox().await;
    let clock = s.get("/testing/clock").send().await;
    assert_eq!(
        clock.status, 200,
        "the server's clock is read: {}",
        clock.text
    );
    let now = clock.body["data"]["now"].as_str().expect("now").to_string();
    let anyone = s.anyone().move_clock(json!({"advance": "P1D"})).await;
    assert_eq!(
        (anyone.status, anyone.error().1),
        (403, "permission".to_string()),
        "nobody moves a shared sandbox's own clock"
    );
    let own = s.by("broker1").move_clock(json!({"advance": "P1D"})).await;
    assert_eq!(
        (
            own.status,
            &own.body["data"]["broker"],
            &own.body["data"]["own"]
        ),
        (200, &json!("broker1"), &json!(true)),
        "{}",
        own.text
    );
    let server = s.get("/testing/clock").send().await;
    assert!(
        server.body["data"]["now"].as_str() < own.body["data"]["now"].as_str(),
        "the server's clock stayed: {} / {}",
        server.text,
        own.text
    );
    let mut body = tender_body(&now, 1, 4);
    body["procurementMethodDetails"] = json!("quick, accelerator=1440");
    body["submissionMethodDetails"] = json!("quick");
    let (_, _, tender) = s.create(body).await;
    assert_eq!(
        (
            &tender["procurementMethodDetails"],
            &tender["submissionMethodDetails"]
        ),
        (&json!("quick, accelerator=1440"), &json!("quick"))
    );

    let rule = json!({"match": {"path": "/api/2.3/tenders"}, "fault": "delay", "delay_ms": 1});
    let anyone = s.anyone().post("/testing/faults", rule.clone()).await;
    assert_eq!(anyone.status, 403, "no rule for everyone: {}", anyone.text);
    let own = s.by("broker1").post("/testing/faults", rule).await;
    assert_eq!(
        (own.status, &own.body["data"]["match"]["broker"]),
        (201, &json!("broker1")),
        "{}",
        own.text
    );
}

#[tokio::test]
async fn tender_ids_count_per_day_drafts_included() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let mut draft = tender_body(&now, 1, 4);
    draft["status"] = json!("draft");
    let (_, _, first) = s.create(draft).await;
    let (_, _, second) = s.create(tender_body(&now, 1, 4)).await;
    let n = |v: &serde_json::Value| {
        v["tenderID"]
            .as_str()
            .unwrap_or_default()
            .rsplit('-')
            .next()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!((n(&first), n(&second)), ("000001".into(), "000002".into()));
}

/// Items classified `99999999-9` ("not defined"), as upstream 2.3.66 took them for a tender
/// created after 2017: an additional classification is required, one of them of the schemes
/// ДК003, ДК015, ДК018 or specialNorms; items of other codes take any additional
/// classification or none; and all items share one CPV class.
#[tokio::test]
async fn an_item_classified_not_defined_needs_an_additional_classification_of_the_2017_schemes() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let with = |additional: Option<Value>| {
        let mut body = tender_body(&now, 1, 4);
        let item = &mut body["items"][0];
        item["classification"] =
            json!({"scheme": "ДК021", "id": "99999999-9", "description": "Не визначено"});
        match additional {
            Some(a) => item["additionalClassifications"] = a,
            None => {
                item.as_object_mut()
                    .map(|i| i.remove("additionalClassifications"));
            }
        }
        body
    };
    let name = "items.0.additionalClassifications".to_string();
    let r = s.try_create(with(None)).await;
    assert_eq!(
        (r.status, r.error()),
        (
            422,
            (
                "body".into(),
                name.clone(),
                json!("This field is required.")
            )
        )
    );
    let dkpp = json!({"scheme": "ДКПП", "id": "55.51.10.300", "description": "Послуги"});
    let r = s.try_create(with(Some(json!([dkpp])))).await;
    assert_eq!(
        (r.status, r.error()),
        (
            422,
            (
                "body".into(),
                name,
                json!(
                    "One of additional classifications should be one of [ДК003, ДК015, ДК018, specialNorms]."
                )
            )
        )
    );
    let dk003 =
        json!({"scheme": "ДК003", "id": "3475", "description": "Фахівці з питань фінансів"});
    let (_, _, created) = s.create(with(Some(json!([dkpp, dk003])))).await;
    assert_eq!(
        created["items"][0]["additionalClassifications"][1]["scheme"],
        "ДК003"
    );

    let mut plain = tender_body(&now, 1, 4);
    if let Some(i) = plain["items"][0].as_object_mut() {
        i.remove("additionalClassifications");
    }
    assert_eq!(
        s.try_create(plain.clone()).await.status,
        201,
        "other codes need none"
    );
    plain["items"][0]["additionalClassifications"] =
        json!([{"scheme": "Не ДКПП", "id": "1", "description": "Будь-яка"}]);
    assert_eq!(
        s.try_create(plain).await.status,
        201,
        "of any scheme, unchecked"
    );

    let mut mixed = with(Some(json!([dk003])));
    let mut other = mixed["items"][0].clone();
    other["id"] = json!("item-2");
    other["classification"] =
        json!({"scheme": "ДК021", "id": "55523100-3", "description": "Послуги"});
    if let Some(items) = mixed["items"].as_array_mut() {
        items.push(other);
    }
    let r = s.try_create(mixed).await;
    r.assert_refused(
        422,
        "body",
        "items",
        "CPV class of items should be identical",
    );
}

/// A tender whose enquiries have already ended would begin its enquiry period after its end
/// (the service starts it at the moment of creation): refused as upstream 2.3.66 refused the
/// tender it was about to store, with nothing kept. A draft created in time and published
/// after its dates passed is published as upstream did, its periods as they were, and moves on.
#[tokio::test]
async fn a_tender_whose_periods_have_passed_is_refused_at_creation_but_a_late_draft_publishes() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let refused = |r: &Reply| -> Vec<(String, String)> {
        r.body["errors"]
            .as_array()
            .map(|e| {
                e.iter()
                    .map(|e| (text(&e["name"]), text(&e["description"])))
                    .collect()
            })
            .unwrap_or_default()
    };
    let begin = "period should begin before its end".to_string();
    let past = tender_body(&now, -1, 4);
    let r = s.try_create(past).await.assert_status(422);
    assert_eq!(
        refused(&r),
        [("enquiryPeriod.startDate".to_string(), begin.clone())]
    );
    // Tendering ending before the enquiries end: its start (the enquiry end) is after its end.
    let r = s.try_create(tender_body(&now, 3, 2)).await;
    assert_eq!(
        refused(&r),
        [("tenderPeriod.startDate".to_string(), begin.clone())]
    );
    let listed = s.get("/api/2.3/tenders").send().await;
    assert_eq!(listed.body["data"], json!([]), "nothing was kept");
    let mut draft = tender_body(&now, 1, 4);
    draft["status"] = json!("draft");
    let (id, token, created) = s.create(draft).await;
    assert_eq!(
        created["tenderID"].as_str().map(|t| t.ends_with("-000001")),
        Some(true),
        "refused creations take no tenderID"
    );

    s.advance("P10D").await;
    let published = s
        .owner(&token)
        .patch(&id.to_string(), json!({"status": "active.enquiries"}))
        .await
        .assert_status(200);
    assert_eq!(
        published.body["data"]["enquiryPeriod"],
        created["enquiryPeriod"]
    );
    assert_eq!(
        published.body["data"]["tenderPeriod"],
        created["tenderPeriod"]
    );
    assert_eq!(
        s.until_status(&id, "unsuccessful").await["status"],
        "unsuccessful",
        "no bids came in a tendering already over"
    );
}
