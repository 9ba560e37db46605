//! Questions asked by interested parties and answered by the owner.
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    checks::{self, ensure},
    world::{Actor, Payload, Record, TenderWorld},
};

async fn ask(w: &mut TenderWorld, actor: Actor) -> Result<(), String> {
    let body = w.fakes.question();
    ask_with(w, actor, body).await
}

/// Asks the question `body`; keeps it when it was created.
pub(super) async fn ask_with(w: &mut TenderWorld, actor: Actor, body: Value) -> Result<(), String> {
    let path = format!("{}/questions", w.tender_path()?);
    w.send(actor, Method::POST, &path, Payload::Json(body.clone()))
        .await?;
    if w.status()? == 201 {
        let data = w.data().clone();
        w.questions.push(Record {
            id: checks::as_text(&data["id"]),
            token: None,
            data,
            sent: body,
        });
    }
    Ok(())
}

#[when("a participant asks a question about the tender")]
async fn asks(w: &mut TenderWorld) -> Result<(), String> {
    ask(w, Actor::Other).await
}

#[given("a participant has asked a question about the tender")]
async fn has_asked(w: &mut TenderWorld) -> Result<(), String> {
    ask(w, Actor::Other).await?;
    super::common::expect_status(w, "asking a question", 201)
}

#[when("an anonymous client asks a question about the tender")]
async fn anonymous_asks(w: &mut TenderWorld) -> Result<(), String> {
    ask(w, Actor::Anonymous).await
}

#[when(expr = "a participant posts a question with Content-Type {string}")]
async fn posts_question_as(w: &mut TenderWorld, content_type: String) -> Result<(), String> {
    let body = w.fakes.question();
    let path = format!("{}/questions", w.tender_path()?);
    let payload = Payload::Raw {
        content_type: Some(content_type),
        text: body.to_string(),
    };
    w.send(Actor::Other, Method::POST, &path, payload).await
}

fn question_path(w: &TenderWorld) -> Result<String, String> {
    Ok(format!(
        "{}/questions/{}",
        w.tender_path()?,
        w.question()?.id
    ))
}

async fn answer(w: &mut TenderWorld, with_token: bool) -> Result<(), String> {
    let body = w.fakes.answer();
    w.noted
        .insert("answer".into(), body["data"]["answer"].clone());
    let mut path = question_path(w)?;
    if with_token {
        path = format!("{path}?acc_token={}", w.tender_token()?);
    }
    w.send(Actor::Owner, Method::PATCH, &path, Payload::Json(body))
        .await
}

#[when("the owner answers the question")]
async fn answers(w: &mut TenderWorld) -> Result<(), String> {
    answer(w, true).await
}

#[given("the owner has answered the question")]
async fn has_answered(w: &mut TenderWorld) -> Result<(), String> {
    answer(w, true).await?;
    match w.status()? {
        200 => Ok(()),
        status => Err(format!(
            "answering the question: expected 200, got {status}"
        )),
    }
}

#[when("the owner answers the question without a token")]
async fn answers_without_token(w: &mut TenderWorld) -> Result<(), String> {
    answer(w, false).await
}

#[when(regex = r"^(an anonymous client|another broker) lists the questions$")]
async fn lists_questions(w: &mut TenderWorld, reader: String) -> Result<(), String> {
    let path = format!("{}/questions", w.tender_path()?);
    w.send(Actor::reader(&reader)?, Method::GET, &path, Payload::None)
        .await
}

#[when(regex = r"^(an anonymous client|another broker) reads the question$")]
async fn reads_question(w: &mut TenderWorld, reader: String) -> Result<(), String> {
    let path = question_path(w)?;
    w.send(Actor::reader(&reader)?, Method::GET, &path, Payload::None)
        .await
}

#[then("the question shows its author")]
async fn shows_author(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w.question()?.sent["data"]["author"]["name"].clone();
    ensure(w.data()["author"]["name"] == sent, || {
        format!(
            "the question shows author {}, {sent} asked it",
            w.data()["author"]
        )
    })
}

#[then("the question does not show its author")]
async fn hides_author(w: &mut TenderWorld) -> Result<(), String> {
    match w.data().get("author") {
        None => Ok(()),
        Some(author) => Err(format!("the question shows its author {author}")),
    }
}

#[then("the question is listed")]
async fn question_listed(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.question()?.id.clone();
    let rows = w.data_list("the question list")?;
    ensure(rows.iter().any(|q| q["id"] == id.as_str()), || {
        format!("the questions do not include {id}")
    })
}

#[then("no listed question shows its author")]
async fn list_hides_authors(w: &mut TenderWorld) -> Result<(), String> {
    let rows = w.data_list("the question list")?;
    match rows.iter().find(|q| q.get("author").is_some()) {
        None => Ok(()),
        Some(q) => Err(format!("question {} shows its author", q["id"])),
    }
}

#[then(expr = "the response field {string} is the question's title")]
async fn field_is_question_title(w: &mut TenderWorld, path: String) -> Result<(), String> {
    let expected = w.question()?.sent["data"]["title"].clone();
    let shown = checks::field(&w.body, &path)
        .cloned()
        .unwrap_or(Value::Null);
    ensure(shown == expected, || {
        format!("{path} is {shown}, the question was titled {expected}")
    })
}

#[then("the question carries the answer that was sent")]
async fn carries_answer(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w.recall("answer")?;
    ensure(w.data()["answer"] == sent, || {
        format!("the answer is {}, {sent} was sent", w.data()["answer"])
    })
}

#[then("no question of the tender shows its author")]
async fn tender_hides_authors(w: &mut TenderWorld) -> Result<(), String> {
    let questions = w.tender_field("/questions")?;
    let questions = questions
        .as_array()
        .ok_or("the tender's questions are not a list")?;
    if questions.is_empty() {
        return Err("the tender shows no question".into());
    }
    match questions.iter().find(|q| q.get("author").is_some()) {
        None => Ok(()),
        Some(q) => Err(format!("question {} shows its author", q["id"])),
    }
}

#[then("the tender shows the question with its answer")]
async fn tender_shows_answer(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.question()?.id.clone();
    let sent = w.noted.get("answer").cloned().unwrap_or(json!(null));
    let questions = w.tender_field("/questions")?;
    match questions
        .as_array()
        .and_then(|qs| qs.iter().find(|q| q["id"] == id.as_str()))
    {
        Some(q) if q["answer"] == sent => Ok(()),
        Some(q) => Err(format!(
            "the tender shows the question with answer {}",
            q["answer"]
        )),
        None => Err(format!("the tender's questions do not include {id}")),
    }
}
