//! Creating tenders: drafts, tenders in one request, in test mode, many at once, and the
//! creation requests a service must refuse or read as sent.
use cucumber::{given, when};
use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    exchange::short,
    exchange::timestamps,
    world::{Actor, Payload, TenderWorld},
};

/// Sends a creation request; on 201 the created tender becomes the scenario's tender.
pub(crate) async fn create(w: &mut TenderWorld, actor: Actor, body: Value) -> Result<(), String> {
    w.last_creation = Some(body.clone());
    w.send(
        actor,
        Method::POST,
        "/api/2.3/tenders",
        Payload::Json(body.clone()),
    )
    .await?;
    if w.status()? == 201 {
        require_created_now(w, body)?;
    }
    Ok(())
}

pub(crate) fn draft(mut body: Value) -> Value {
    body["data"]["status"] = json!("draft");
    body
}

fn test_mode(mut body: Value) -> Value {
    body["data"]["mode"] = json!("test");
    body
}

pub(crate) fn require_created(w: &TenderWorld, what: &str) -> Result<(), String> {
    match w.status()? {
        201 if w.tender.is_some() => Ok(()),
        status => Err(format!(
            "{what}: expected 201, got {status}: {}",
            short(&w.response()?.body)
        )),
    }
}

/// Creates many tenders at once (concurrently, so a long list costs little time); each
/// exchange is checked like any other. The last one of `bodies` becomes the scenario's tender.
async fn create_many(w: &mut TenderWorld, bodies: Vec<Value>) -> Result<(), String> {
    w.note_listing_start().await?;
    let sends = bodies.iter().map(|body| {
        w.exchange(
            Actor::Owner,
            Method::POST,
            "/api/2.3/tenders",
            Payload::Json(body.clone()),
            &[],
        )
    });
    let answers = futures::future::join_all(sends).await;
    for (body, answer) in bodies.into_iter().zip(answers) {
        let (exchange, answer) = answer?;
        let violations = w.verify_exchange(Actor::Owner, &exchange, &answer).await;
        w.record(&exchange, violations);
        w.last = Some(exchange);
        w.body = answer;
        require_created_now(w, body)?;
    }
    Ok(())
}

/// Keeps the tender the last response created.
fn require_created_now(w: &mut TenderWorld, sent: Value) -> Result<(), String> {
    match w.created_record(sent)? {
        Some(record) => {
            w.created.push(record.clone());
            w.tender = Some(record);
            Ok(())
        }
        None => crate::steps::common::expect_status(w, "creating a tender", 201),
    }
}

/// Without `limit` (which the spec does not state) a page holds 100 rows, as upstream's do.
const DEFAULT_PAGE: usize = 100;
/// The page size asked of a target that takes `limit`.
const SMALL_PAGE: usize = 10;

/// Enough published tenders to fill more than a page, and a draft. A target that takes
/// `limit` gets small pages and fewer tenders; the paging steps then send the same `limit`.
#[given("the owner has created more tenders than a page of the list holds, and a draft tender")]
async fn has_created_more_than_a_page(w: &mut TenderWorld) -> Result<(), String> {
    let mut bodies = w.tender_bodies(SMALL_PAGE + 2).await?;
    if let Some(last) = bodies.last_mut() {
        *last = draft(last.take());
    }
    create_many(w, bodies).await?;
    if !super::super::listing::takes_limit(w, SMALL_PAGE / 2).await? {
        let more = w.tender_bodies(DEFAULT_PAGE - SMALL_PAGE).await?;
        return create_many(w, more).await;
    }
    w.noted
        .insert("page limit".into(), Value::from(SMALL_PAGE.to_string()));
    Ok(())
}

#[when("the owner creates a draft tender")]
async fn creates_draft(w: &mut TenderWorld) -> Result<(), String> {
    let body = draft(w.tender_body().await?);
    create(w, Actor::Owner, body).await
}

#[given("the owner has created a draft tender")]
pub(super) async fn has_created_draft(w: &mut TenderWorld) -> Result<(), String> {
    creates_draft(w).await?;
    require_created(w, "creating a draft tender")
}

#[when(regex = r"^(an anonymous client|another broker) creates a draft tender$")]
async fn other_creates(w: &mut TenderWorld, who: String) -> Result<(), String> {
    let body = draft(w.tender_body().await?);
    create(w, Actor::reader(&who)?, body).await
}

#[given("another broker has created a draft tender")]
async fn other_has_created(w: &mut TenderWorld) -> Result<(), String> {
    other_creates(w, "another broker".into()).await?;
    require_created(
        w,
        "creating a draft tender as the other broker (--other-broker must be one that may create tenders)",
    )
}

#[when("the owner creates a tender in one request")]
async fn creates_single_phase(w: &mut TenderWorld) -> Result<(), String> {
    let body = w.tender_body().await?;
    create(w, Actor::Owner, body).await
}

#[given("the owner has created a tender in one request")]
async fn has_created_single_phase(w: &mut TenderWorld) -> Result<(), String> {
    creates_single_phase(w).await?;
    require_created(w, "creating a tender in one request")
}

#[when("the owner creates a tender in test mode")]
async fn creates_test_mode(w: &mut TenderWorld) -> Result<(), String> {
    let body = test_mode(w.tender_body().await?);
    create(w, Actor::Owner, body).await
}

#[given("the owner has created a tender in test mode")]
async fn has_created_test_mode(w: &mut TenderWorld) -> Result<(), String> {
    creates_test_mode(w).await?;
    require_created(w, "creating a tender in test mode")
}

#[given("the owner has created a draft tender in test mode")]
async fn has_created_draft_test_mode(w: &mut TenderWorld) -> Result<(), String> {
    let body = draft(test_mode(w.tender_body().await?));
    create(w, Actor::Owner, body).await?;
    require_created(w, "creating a draft tender in test mode")
}

#[when("the owner creates a tender in test mode without its English and Russian titles")]
async fn creates_test_mode_without_titles(w: &mut TenderWorld) -> Result<(), String> {
    let mut body = test_mode(w.tender_body().await?);
    let data = body["data"]
        .as_object_mut()
        .ok_or("harness: tender body without data")?;
    data.remove("title_en");
    data.remove("title_ru");
    create(w, Actor::Owner, body).await
}

#[when("the owner creates a draft tender with its period end dates written without a UTC offset")]
async fn creates_draft_naive_dates(w: &mut TenderWorld) -> Result<(), String> {
    let (enquiry_end, tender_end) = w.period_ends().await?;
    let mut body = draft(w.tender_body().await?);
    let enquiry = timestamps::format_naive(enquiry_end);
    body["data"]["enquiryPeriod"]["endDate"] = json!(enquiry);
    body["data"]["tenderPeriod"]["endDate"] = json!(timestamps::format_naive(tender_end));
    w.noted.insert("naive enquiry end".into(), json!(enquiry));
    create(w, Actor::Owner, body).await
}

#[given("the owner has created a draft tender with its own item id")]
async fn has_created_with_item_id(w: &mut TenderWorld) -> Result<(), String> {
    creates_with_item_id(w).await?;
    require_created(w, "creating a draft tender with its own item id")
}

#[when("the owner creates a draft tender with its own item id")]
async fn creates_with_item_id(w: &mut TenderWorld) -> Result<(), String> {
    let mut body = draft(w.tender_body().await?);
    let id = format!("item-{}", w.fakes.code(6));
    body["data"]["items"][0]["id"] = json!(id);
    w.noted.insert("item id".into(), json!(id));
    create(w, Actor::Owner, body).await
}

#[when("the owner creates a draft tender without the VAT flags")]
async fn creates_without_vat(w: &mut TenderWorld) -> Result<(), String> {
    let mut body = draft(w.tender_body().await?);
    for value in ["value", "minimalStep"] {
        if let Some(v) = body["data"][value].as_object_mut() {
            v.remove("valueAddedTaxIncluded");
        }
    }
    create(w, Actor::Owner, body).await
}

#[when(expr = "the owner creates a draft tender without {string}")]
async fn creates_without_field(w: &mut TenderWorld, name: String) -> Result<(), String> {
    let mut body = draft(w.tender_body().await?);
    if let Some(data) = body["data"].as_object_mut() {
        data.remove(&name);
    }
    create(w, Actor::Owner, body).await
}

#[when(expr = "the owner creates a draft tender with the unknown field {string}")]
async fn creates_with_rogue_field(w: &mut TenderWorld, name: String) -> Result<(), String> {
    let mut body = draft(w.tender_body().await?);
    body["data"][name.as_str()] = json!("синій");
    create(w, Actor::Owner, body).await
}

#[when(expr = "the owner creates a draft tender with procurementMethodType {string}")]
async fn creates_with_method_type(w: &mut TenderWorld, method: String) -> Result<(), String> {
    let mut body = draft(w.tender_body().await?);
    body["data"]["procurementMethodType"] = json!(method);
    create(w, Actor::Owner, body).await
}

#[when("the owner sends the same creation request again")]
async fn repeats_creation(w: &mut TenderWorld) -> Result<(), String> {
    let body = w.last_creation()?;
    create(w, Actor::Owner, body).await
}

#[when(expr = "the owner posts a draft tender with Content-Type {string}")]
async fn posts_with_content_type(w: &mut TenderWorld, content_type: String) -> Result<(), String> {
    let body = draft(w.tender_body().await?);
    let payload = Payload::Raw {
        content_type: Some(content_type),
        text: body.to_string(),
    };
    w.send(Actor::Owner, Method::POST, "/api/2.3/tenders", payload)
        .await
}

#[when("the owner posts this body as JSON to the tenders:")]
async fn posts_raw_body(w: &mut TenderWorld, step: &cucumber::gherkin::Step) -> Result<(), String> {
    let payload = crate::steps::common::docstring_as_json_body(step)?;
    w.send(Actor::Owner, Method::POST, "/api/2.3/tenders", payload)
        .await
}
