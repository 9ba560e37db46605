//! Questions: asked without a token, answered by the owner, authors hidden.

use crate::common::*;
use serde_json::json;

fn question() -> serde_json::Value {
    json!({"title": "Уточнення", "description": "Чи можна поставку частинами?", "author": organization()})
}

#[tokio::test]
async fn ask_read_and_answer() {
    let (s, id, token) = TestServer::with_published().await;
    let questions = format!("/api/2.3/tenders/{id}/questions");
    let r = s.ask_question("broker1", &id, "Уточнення").await;
    let q = r.assert_created_in(&s, &questions);
    assert_eq!(
        r.body["data"]["author"]["name"], "Державне управління справами",
        "the asker sees the author"
    );
    assert_eq!(r.body["data"]["questionOf"], "tender");

    let list = s
        .get(&format!("/api/2.3/tenders/{id}/questions"))
        .send()
        .await;
    assert_eq!(list.body["data"][0]["id"], q);
    assert!(
        list.body["data"][0].get("author").is_none(),
        "readers do not see the author"
    );
    assert!(s.tender(&id).await["questions"][0].get("author").is_none());

    let answered = s
        .answer_question(&id, &token, &q, "Так")
        .await
        .assert_status(200);
    assert_eq!(answered.body["data"]["answer"], "Так");
    assert!(answered.body["data"].get("author").is_none());
    assert_eq!(
        s.get(&format!("/api/2.3/tenders/{id}/questions/{q}"))
            .send()
            .await
            .body["data"]["answer"],
        "Так"
    );
}

#[tokio::test]
async fn asking_needs_broker_credentials_and_the_enquiry_period() {
    let (s, id, token) = TestServer::with_published().await;
    let path = format!("/api/2.3/tenders/{id}/questions");
    let anonymous = s.anyone().post(&path, question()).await;
    assert_eq!(
        anonymous.error(),
        ("url".into(), "permission".into(), json!("Forbidden"))
    );
    let q = s.ask_question("broker1", &id, "Уточнення").await.id();

    s.advance("P1DT1M").await;
    let late = s.ask_question("broker1", &id, "Уточнення").await;
    late.assert_refused_saying(403, "Can add question only in enquiryPeriod");
    let answer = s.answer_question(&id, &token, &q, "Так").await;
    answer.assert_refused_saying(
        403,
        "Can't update question in current (active.tendering) tender status",
    );
}

#[tokio::test]
async fn answering_needs_the_owner_token() {
    let (s, id, _) = TestServer::with_published().await;
    let q = s.ask_question("broker1", &id, "Уточнення").await.id();
    let r = s.answer_question(&id, "wrong", &q, "Так").await;
    r.assert_refused_on(403, "permission");
    let unknown = format!("/api/2.3/tenders/{id}/questions/{UNKNOWN_ID}");
    s.assert_unknown(&unknown, "question_id").await;
}
