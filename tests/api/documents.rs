//! Tender documents: upload, versions, metadata, and the phase rule.

use crate::common::*;
use serde_json::json;

#[tokio::test]
async fn upload_put_patch_and_read_back() {
    let (s, id, token) = TestServer::with_published().await;
    let r = s.owner(&token).document_added(&id, "Notice.pdf").await;
    let docs = format!("/api/2.3/tenders/{id}/documents");
    let doc_id = r.id();
    let doc = r.body["data"].clone();
    let url = doc["url"].as_str().unwrap_or_default();
    assert!(
        url.starts_with("http://docs.example.net/get/Notice.pdf?Signature=")
            && url.contains("&KeyID="),
        "{url}"
    );
    assert_eq!(doc["documentOf"], "tender");
    assert_eq!(doc["datePublished"], doc["dateModified"]);

    // The pinned clock stands still: let a minute pass, so a refreshed date can show.
    s.advance("PT1M").await;
    let described = s
        .owner(&token)
        .patch(
            &format!("{docs}/{doc_id}"),
            json!({"documentType": "technicalSpecifications", "description": "ТЗ"}),
        )
        .await
        .assert_status(200);
    assert_eq!(
        described.body["data"]["documentType"],
        "technicalSpecifications"
    );
    assert_ne!(
        described.body["data"]["dateModified"], doc["dateModified"],
        "a PATCH refreshes dateModified"
    );
    assert_eq!(
        described.body["data"]["url"], doc["url"],
        "the file cannot change by PATCH"
    );

    let replaced = s
        .owner(&token)
        .put(&format!("{docs}/{doc_id}"), document_body("Notice-v2.pdf"))
        .await
        .assert_status(200);
    let v2 = &replaced.body["data"];
    assert_eq!(v2["id"], doc_id);
    assert_eq!(v2["datePublished"], doc["datePublished"]);
    assert_ne!(v2["dateModified"], doc["dateModified"]);
    assert_eq!(v2["title"], "Notice-v2.pdf");
    assert_eq!(
        v2["documentType"], "technicalSpecifications",
        "metadata carries over to the new version"
    );

    let list = s.get(&docs).send().await;
    assert_eq!(count(&list.body["data"]), Some(1), "one entry per document");
    assert_eq!(list.body["data"][0]["title"], "Notice-v2.pdf");
    let single = s.get(&format!("{docs}/{doc_id}")).send().await;
    assert_eq!(count(&single.body["data"]["previousVersions"]), Some(1));
    assert_eq!(
        single.body["data"]["previousVersions"][0]["title"],
        "Notice.pdf"
    );
    assert_eq!(
        s.tender(&id).await["documents"][0]["title"],
        "Notice-v2.pdf"
    );
}

#[tokio::test]
async fn documents_only_during_enquiries_and_only_by_the_owner() {
    let (s, id, token) = TestServer::with_tendering().await;
    let docs = format!("/api/2.3/tenders/{id}/documents");
    let other = s
        .by("broker")
        .post(&format!("{docs}?acc_token=0000"), document_body("a.pdf"))
        .await;
    other.assert_refused_on(403, "permission");
    let late = s.owner(&token).post(&docs, document_body("a.pdf")).await;
    late.assert_refused(
        403,
        "body",
        "data",
        "Can't add document in current (active.tendering) tender status",
    );
}

#[tokio::test]
async fn bad_document_fields_are_named() {
    let (s, id, token) = TestServer::with_published().await;
    let r = s.owner(&token).post(&format!("{id}/documents"), json!({"title": "a.pdf", "url": "not a url", "hash": "md5:xyz", "format": "application/pdf"})).await;
    assert_eq!(r.status, 422);
    let names = r.error_names();
    assert_eq!(names, ["url", "hash"]);
}

#[tokio::test]
async fn download_key_redirects_to_the_stored_file() {
    let (s, id, token) = TestServer::with_tendering().await;
    let mut body = bid_body(450.0);
    body["documents"] = json!([document_body("Proposal.pdf")]);
    let r = s.try_bid(&id, body).await.assert_status(201);
    assert_eq!(
        r.body["data"]["status"], "active",
        "a batch registration is active at once"
    );
    let url = text(&r.body["data"]["documents"][0]["url"]);
    let prefix = format!("{}/api/2.3/tenders/{id}/bids/{}/documents/", s.base, r.id());
    assert!(
        url.starts_with(&prefix) && url.contains("?download="),
        "{url}"
    );
    let go = s
        .by("broker1")
        .get(&format!("{url}&acc_token={}", r.token()))
        .await;
    assert_eq!(go.status, 302);
    assert_eq!(
        go.header("location"),
        Some("http://docs.example.net/get/Proposal.pdf")
    );
    let document = url.split("?download=").next().unwrap_or_default();
    let unknown = s
        .by("broker1")
        .get(&format!("{document}?download=nope&acc_token={}", r.token()))
        .await;
    unknown.assert_refused_on(404, "download");
    let stranger = s
        .by("broker")
        .get(&format!("{url}&acc_token={token}"))
        .await;
    assert_eq!(
        stranger.error().2,
        json!("Can't view bid document in current (active.tendering) tender status")
    );
}
