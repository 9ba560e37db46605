//! The tender feed: order, paging, drafts, fields and modes.

use crate::common::*;
use serde_json::{Value, json};

async fn page(s: &TestServer, query: &str) -> Value {
    s.read(&format!("/api/2.3/tenders{query}")).await
}

#[tokio::test]
async fn pages_follow_date_modified_and_end_with_an_echoing_empty_page() {
    let s = TestServer::start().await;
    let mut created = Vec::new();
    for _ in 0..5 {
        created.push(s.published().await.0);
    }
    let first = page(&s, "?limit=2").await;
    assert_eq!(ids(&first), created[..2]);
    assert_eq!(
        first["data"][0].as_object().map(|o| o.len()),
        Some(2),
        "rows are id and dateModified"
    );
    assert!(first.get("prev_page").is_none());
    let offset = text(&first["next_page"]["offset"]);
    assert_eq!(first["data"][1]["dateModified"], offset);
    let path = text(&first["next_page"]["path"]);
    assert!(
        path.starts_with("/api/2.3/tenders?limit=2&offset="),
        "{path}"
    );
    assert_eq!(first["next_page"]["uri"], format!("{}{path}", s.base));

    let second = page(&s, path.trim_start_matches("/api/2.3/tenders")).await;
    assert_eq!(ids(&second), created[2..4]);
    assert!(second.get("prev_page").is_some());
    let third = page(
        &s,
        second["next_page"]["path"]
            .as_str()
            .unwrap_or_default()
            .trim_start_matches("/api/2.3/tenders"),
    )
    .await;
    assert_eq!(ids(&third), created[4..]);
    let last_offset = third["next_page"]["offset"].clone();
    let empty = page(
        &s,
        third["next_page"]["path"]
            .as_str()
            .unwrap_or_default()
            .trim_start_matches("/api/2.3/tenders"),
    )
    .await;
    assert!(ids(&empty).is_empty());
    assert_eq!(
        empty["next_page"]["offset"], last_offset,
        "an empty page repeats the offset"
    );

    let all = page(&s, "").await;
    assert_eq!(ids(&all), created);
    let fresh = TestServer::start().await;
    assert_eq!(page(&fresh, "").await["next_page"]["offset"], "");
}

#[tokio::test]
async fn an_empty_page_echoes_the_offset_in_the_output_form() {
    let s = TestServer::start().await;
    let empty = page(&s, "?offset=2030-01-10T10:00").await;
    assert_eq!(
        empty["next_page"],
        json!({
            "offset": "2030-01-10T10:00:00.000000+02:00",
            "path": "/api/2.3/tenders?offset=2030-01-10T10%3A00%3A00.000000%2B02%3A00",
            "uri": format!("{}/api/2.3/tenders?offset=2030-01-10T10%3A00%3A00.000000%2B02%3A00", s.base),
        })
    );
    assert_eq!(
        empty["prev_page"]["offset"],
        "2030-01-10T10:00:00.000000+02:00"
    );

    let far = page(&s, "?offset=3941-05-23T20:20:15.409Z&limit=5").await;
    let offset = far["next_page"]["offset"].as_str().unwrap_or_default();
    let rfc3339 = &time::format_description::well_known::Rfc3339;
    let shown = time::OffsetDateTime::parse(offset, rfc3339).expect("a timestamp");
    let sent =
        time::OffsetDateTime::parse("3941-05-23T20:20:15.409Z", rfc3339).expect("a timestamp");
    assert_eq!(shown, sent, "{offset}");
    assert!(
        offset.ends_with(":15.409000+03:00") || offset.ends_with(":15.409000+02:00"),
        "six fractional digits and the server zone's offset: {offset}"
    );
    let encoded = offset.replace(':', "%3A").replace('+', "%2B");
    assert_eq!(
        far["next_page"]["path"],
        format!("/api/2.3/tenders?limit=5&offset={encoded}")
    );

    let garbage = page(&s, "?offset=garbage").await;
    assert_eq!(
        garbage["next_page"]["offset"], "",
        "an offset that is no timestamp is ignored"
    );
}

#[tokio::test]
async fn a_change_moves_the_tender_to_the_end_at_once() {
    let s = TestServer::start().await;
    let (a, token, _) = s.published().await;
    let (b, _, _) = s.published().await;
    assert_eq!(ids(&page(&s, "").await), [a.clone(), b.clone()]);
    s.owner(&token)
        .patch(&a.to_string(), json!({"description": "оновлено"}))
        .await;
    assert_eq!(ids(&page(&s, "").await), [b.clone(), a.clone()]);
    assert_eq!(ids(&page(&s, "?descending=1").await), [a, b]);
}

#[tokio::test]
async fn fields_modes_limits_and_drafts() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let (real, _, real_data) = s.published().await;
    let mut test = tender_body(&now, 1, 4);
    test["mode"] = json!("test");
    let (test_id, _, _) = s.create(test).await;
    let mut draft = tender_body(&now, 1, 4);
    draft["status"] = json!("draft");
    let (draft_id, _, _) = s.create(draft).await;

    let everything = page(&s, "?mode=_all_").await;
    assert_eq!(ids(&everything), [real.clone(), test_id.clone()]);
    assert!(!ids(&page(&s, "").await).contains(&draft_id));
    assert_eq!(ids(&page(&s, "?mode=test").await), [test_id]);
    assert_eq!(
        ids(&page(&s, "?limit=5000").await).len(),
        2,
        "an out-of-range limit falls back to 100"
    );

    let fields = page(&s, "?opt_fields=tenderID,status,title").await;
    assert_eq!(fields["data"][0]["tenderID"], real_data["tenderID"]);
    assert_eq!(fields["data"][0]["status"], "active.enquiries");
    assert_eq!(fields["data"][0]["title"], real_data["title"]);
    assert!(
        fields["next_page"]["path"]
            .as_str()
            .unwrap_or_default()
            .contains("opt_fields=tenderID%2Cstatus%2Ctitle")
    );
}

/// Every field a page shows is the tender's own as a read of it shows it, after its changes
/// too, whether the listing holds the field beside its row or reads it from the tender.
#[tokio::test]
async fn listed_fields_follow_every_change_of_the_tender() {
    let (s, id, token) = TestServer::with_published().await;
    let names = "tenderID,status,title,value,next_check,mode,procurementMethodType,\
                 procuringEntity,enquiryPeriod,tenderPeriod,auctionPeriod,owner,items,\
                 minimalStep,status,date";
    let row_of = |page: &Value| {
        page["data"]
            .as_array()
            .and_then(|rows| rows.iter().find(|r| r["id"] == json!(id)).cloned())
            .expect("the tender is listed")
    };
    let agrees = |row: &Value, tender: &Value| {
        for name in names.split(',') {
            assert_eq!(row.get(name), tender.get(name), "{name}");
        }
        let keys: Vec<&str> = row
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            keys.iter().filter(|k| **k == "status").count(),
            1,
            "a field asked for twice is shown once: {keys:?}"
        );
    };
    let query = format!("?opt_fields={}", names.replace(',', "%2C"));
    agrees(&row_of(&page(&s, &query).await), &s.tender(&id).await);

    s.advance("PT1M").await;
    let changed = s
        .owner(&token)
        .patch(
            &id.to_string(),
            json!({"title": "Інша назва", "value": {"amount": 600000}}),
        )
        .await;
    assert_eq!(changed.status, 200, "{:?}", changed.body);
    let tender = s.tender(&id).await;
    assert_eq!(tender["title"], "Інша назва");
    agrees(&row_of(&page(&s, &query).await), &tender);

    let tender = s.until_status(&id, "active.tendering").await;
    agrees(&row_of(&page(&s, &query).await), &tender);
}

#[tokio::test]
async fn upstream_client_lookup_works() {
    let s = TestServer::start().await;
    let (id, _, data) = s.published().await;
    let r = page(
        &s,
        "?feed=changes&mode=_all_&opt_fields=tenderID&descending=True&offset=",
    )
    .await;
    assert_eq!(r["data"][0]["id"], id);
    assert_eq!(r["data"][0]["tenderID"], data["tenderID"]);
    assert!(r.get("prev_page").is_some());
    let bad = s
        .get("/api/2.3/tenders?feed=changes&offset=garbage")
        .send()
        .await;
    assert_eq!(
        bad.error(),
        (
            "params".into(),
            "offset".into(),
            json!("Offset expired/invalid")
        )
    );
    let head = s
        .call(reqwest::Method::HEAD, "/api/2.3/tenders")
        .send()
        .await;
    assert_eq!(head.status, 200);
}
