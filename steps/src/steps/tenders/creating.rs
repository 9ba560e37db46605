//! Creating, publishing, changing and reading tenders, and what a tender must show.
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};
use time::Duration;

use crate::{
    checks,
    exchange::short,
    exchange::timestamps,
    world::{Actor, Payload, Record, TenderWorld},
};

/// Sends a creation request; on 201 the created tender becomes the scenario's tender.
pub(super) async fn create(w: &mut TenderWorld, actor: Actor, body: Value) -> Result<(), String> {
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

pub(super) fn draft(mut body: Value) -> Value {
    body["data"]["status"] = json!("draft");
    body
}

fn test_mode(mut body: Value) -> Value {
    body["data"]["mode"] = json!("test");
    body
}

pub(super) fn require_created(w: &TenderWorld, what: &str) -> Result<(), String> {
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
        w.last = Some(exchange);
        w.body = answer;
        if !violations.is_empty() {
            return Err(crate::checks::shape::describe(&violations));
        }
        require_created_now(w, body)?;
    }
    Ok(())
}

/// Keeps the tender the last response created.
fn require_created_now(w: &mut TenderWorld, sent: Value) -> Result<(), String> {
    match w.status()? {
        201 => {
            let data = w.data().clone();
            let record = Record {
                id: checks::as_text(&data["id"]),
                token: w
                    .body
                    .pointer("/access/token")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                data,
                sent,
            };
            w.created.push(record.clone());
            w.tender = Some(record);
            Ok(())
        }
        status => Err(format!(
            "creating a tender: expected 201, got {status}: {}",
            short(&w.response()?.body)
        )),
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
    if !super::listing::takes_limit(w, SMALL_PAGE / 2).await? {
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
async fn has_created_draft(w: &mut TenderWorld) -> Result<(), String> {
    creates_draft(w).await?;
    require_created(w, "creating a draft tender")
}

#[when("an anonymous client creates a draft tender")]
async fn anonymous_creates(w: &mut TenderWorld) -> Result<(), String> {
    let body = draft(w.tender_body().await?);
    create(w, Actor::Anonymous, body).await
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
    let body = w
        .last_creation
        .clone()
        .ok_or("harness: nothing was created yet")?;
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
    let text = step
        .docstring
        .clone()
        .ok_or("harness: the step needs a docstring")?;
    let payload = Payload::Raw {
        content_type: Some("application/json".into()),
        text: text.trim().to_owned(),
    };
    w.send(Actor::Owner, Method::POST, "/api/2.3/tenders", payload)
        .await
}

pub(super) async fn publish(w: &mut TenderWorld) -> Result<(), String> {
    w.remember_tender();
    let path = w.tender_path_with_token()?;
    let body = json!({"data": {"status": "active.enquiries"}});
    w.send(Actor::Owner, Method::PATCH, &path, Payload::Json(body))
        .await?;
    w.adopt_tender();
    if w.status()? == 200 {
        w.noted
            .insert("publication date".into(), w.data()["date"].clone());
    }
    Ok(())
}

#[when(regex = r"^the owner publishes the (?:draft tender|tender again)$")]
async fn publishes(w: &mut TenderWorld) -> Result<(), String> {
    publish(w).await
}

#[given("the owner has published a tender")]
pub(super) async fn has_published(w: &mut TenderWorld) -> Result<(), String> {
    has_created_draft(w).await?;
    publish(w).await?;
    super::common::expect_status(w, "publishing the draft", 200)
}

/// The response is deliberately not looked at: the outcome is to be checked by reading.
#[when("the owner publishes the draft tender and loses the response")]
async fn publishes_and_loses(w: &mut TenderWorld) -> Result<(), String> {
    let path = w.tender_path_with_token()?;
    let body = json!({"data": {"status": "active.enquiries"}});
    w.send(Actor::Owner, Method::PATCH, &path, Payload::Json(body))
        .await
}

#[when("the owner reads the tender to check its state")]
async fn owner_reads(w: &mut TenderWorld) -> Result<(), String> {
    let path = w.tender_path()?;
    w.send_expecting(
        "reading the tender",
        200,
        Actor::Owner,
        Method::GET,
        &path,
        Payload::None,
    )
    .await?;
    w.adopt_tender();
    Ok(())
}

/// A new title without any test-mode prefix: the service must add it back.
fn new_title(w: &mut TenderWorld) -> Result<String, String> {
    let sent = w.tender()?.sent["data"]["title"]
        .as_str()
        .unwrap_or("Закупівля")
        .to_owned();
    let title = format!("{sent} (зміни № {})", w.fakes.code(3));
    w.noted.insert("new title".into(), json!(title));
    Ok(title)
}

/// How a tender change carries (or fails to carry) its token.
enum TokenUse {
    Query(Option<String>),
    Header(String),
    Body(String),
}

async fn change_title(
    w: &mut TenderWorld,
    actor: Actor,
    token: TokenUse,
    content_type: Option<String>,
) -> Result<(), String> {
    w.remember_tender();
    let title = new_title(w)?;
    let mut body = json!({"data": {"title": title}});
    let mut path = w.tender_path()?;
    let mut headers = Vec::new();
    match token {
        TokenUse::Query(Some(t)) => path = format!("{path}?acc_token={t}"),
        TokenUse::Query(None) => {}
        TokenUse::Header(t) => headers.push(("X-Access-Token", t)),
        TokenUse::Body(t) => body["access"] = json!({"token": t}),
    }
    let payload = match content_type {
        None => Payload::Json(body),
        Some(ct) => Payload::Raw {
            content_type: Some(ct),
            text: body.to_string(),
        },
    };
    w.send_with_headers(actor, Method::PATCH, &path, payload, &headers)
        .await?;
    w.adopt_tender();
    Ok(())
}

#[when("the owner changes the tender title")]
async fn changes_title(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.tender_token()?;
    change_title(w, Actor::Owner, TokenUse::Query(Some(token)), None).await
}

#[given("the owner has changed the tender title")]
async fn has_changed_title(w: &mut TenderWorld) -> Result<(), String> {
    changes_title(w).await?;
    match w.status()? {
        200 => Ok(()),
        status => Err(format!("changing the title: expected 200, got {status}")),
    }
}

#[when("the owner changes the tender title without a token")]
async fn changes_title_without_token(w: &mut TenderWorld) -> Result<(), String> {
    change_title(w, Actor::Owner, TokenUse::Query(None), None).await
}

#[when("the owner changes the tender title with a wrong token")]
async fn changes_title_wrong_token(w: &mut TenderWorld) -> Result<(), String> {
    let wrong = w.fakes.hex_id(32);
    change_title(w, Actor::Owner, TokenUse::Query(Some(wrong)), None).await
}

#[when("another broker changes the tender title with the owner's token")]
async fn other_changes_title(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.tender_token()?;
    change_title(w, Actor::Other, TokenUse::Query(Some(token)), None).await
}

#[when("the owner changes the tender title with the token in the X-Access-Token header")]
async fn changes_title_header_token(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.tender_token()?;
    change_title(w, Actor::Owner, TokenUse::Header(token), None).await
}

#[when("the owner changes the tender title with the token in the body")]
async fn changes_title_body_token(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.tender_token()?;
    change_title(w, Actor::Owner, TokenUse::Body(token), None).await
}

#[when(expr = "the owner changes the tender title with Content-Type {string}")]
async fn changes_title_content_type(
    w: &mut TenderWorld,
    content_type: String,
) -> Result<(), String> {
    let token = w.tender_token()?;
    change_title(
        w,
        Actor::Owner,
        TokenUse::Query(Some(token)),
        Some(content_type),
    )
    .await
}

#[when("the bidder changes the tender title with its bid token")]
async fn bidder_changes_title(w: &mut TenderWorld) -> Result<(), String> {
    let token = w
        .bid(w.last_bid_index()?)?
        .token
        .clone()
        .ok_or("the bid has no token")?;
    change_title(w, Actor::Other, TokenUse::Query(Some(token)), None).await
}

#[when("the owner sends the tender title back unchanged")]
async fn sends_title_back(w: &mut TenderWorld) -> Result<(), String> {
    w.remember_tender();
    let title = w.tender_field("/title")?;
    let path = w.tender_path_with_token()?;
    w.send(
        Actor::Owner,
        Method::PATCH,
        &path,
        Payload::Json(json!({"data": {"title": title}})),
    )
    .await?;
    w.adopt_tender();
    Ok(())
}

async fn patch_tender(w: &mut TenderWorld, data: Value) -> Result<(), String> {
    w.remember_tender();
    let path = w.tender_path_with_token()?;
    w.send(
        Actor::Owner,
        Method::PATCH,
        &path,
        Payload::Json(json!({"data": data})),
    )
    .await?;
    w.adopt_tender();
    Ok(())
}

#[when("the owner changes the procuring entity's contact telephone")]
async fn changes_telephone(w: &mut TenderWorld) -> Result<(), String> {
    let phone = format!("+38044{}", w.fakes.code(7));
    w.noted.insert("telephone".into(), json!(phone));
    patch_tender(
        w,
        json!({"procuringEntity": {"contactPoint": {"telephone": phone}}}),
    )
    .await
}

#[when(expr = "the owner sets a guarantee of {int} {word}")]
async fn sets_guarantee(w: &mut TenderWorld, amount: u64, currency: String) -> Result<(), String> {
    patch_tender(
        w,
        json!({"guarantee": {"amount": amount, "currency": currency}}),
    )
    .await
}

#[when("the owner moves the enquiry period end one day earlier")]
async fn moves_enquiry_end(w: &mut TenderWorld) -> Result<(), String> {
    let end = w.tender_instant("/enquiryPeriod/endDate")? - Duration::days(1);
    patch_tender(
        w,
        json!({"enquiryPeriod": {"endDate": timestamps::format(end)}}),
    )
    .await
}

#[when("the owner extends the tender period by one day")]
async fn extends_tender_period(w: &mut TenderWorld) -> Result<(), String> {
    let end = w.tender_instant("/tenderPeriod/endDate")? + Duration::days(1);
    patch_tender(
        w,
        json!({"tenderPeriod": {"endDate": timestamps::format(end)}}),
    )
    .await
}

#[when(regex = r"^an anonymous client reads the tender( with opt_pretty=1)?$")]
async fn anonymous_reads(w: &mut TenderWorld, pretty: String) -> Result<(), String> {
    let mut path = w.tender_path()?;
    if !pretty.is_empty() {
        path.push_str("?opt_pretty=1");
    }
    w.send(Actor::Anonymous, Method::GET, &path, Payload::None)
        .await?;
    w.adopt_tender();
    Ok(())
}

#[when("an anonymous client reads a tender that does not exist")]
async fn reads_missing_tender(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.fakes.hex_id(32);
    w.send(
        Actor::Anonymous,
        Method::GET,
        &format!("/api/2.3/tenders/{id}"),
        Payload::None,
    )
    .await
}

#[when(expr = "an anonymous client sends {word} to the tender")]
async fn anonymous_sends_method(w: &mut TenderWorld, method: String) -> Result<(), String> {
    let method = Method::from_bytes(method.as_bytes()).map_err(|e| e.to_string())?;
    let path = w.tender_path()?;
    w.send(Actor::Anonymous, method, &path, Payload::None).await
}

// ---- what the tender shows ----

#[then(expr = "the tender status is {string}")]
async fn tender_status(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    let status = checks::as_text(&w.tender_field("/status")?);
    if status == expected {
        Ok(())
    } else {
        Err(format!(
            "the tender status is {status:?}, expected {expected:?}"
        ))
    }
}

#[then(expr = "reading the tender shows status {string}")]
async fn reading_shows_status(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    w.refresh_tender().await?;
    tender_status(w, expected).await
}

#[then("reading the tender shows the title unchanged")]
async fn reading_shows_title_unchanged(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    let now = w.tender_field("/title")?;
    let before = &w.tender_before["title"];
    if &now == before {
        Ok(())
    } else {
        Err(format!("the title changed from {before} to {now}"))
    }
}

#[then("the tender has no next_check")]
async fn no_next_check(w: &mut TenderWorld) -> Result<(), String> {
    match w.tender()?.data.get("next_check") {
        None | Some(Value::Null) => Ok(()),
        Some(v) => Err(format!("the tender has next_check {v}")),
    }
}

#[then("the tender has a next_check")]
async fn has_next_check(w: &mut TenderWorld) -> Result<(), String> {
    w.tender_instant("/next_check").map(drop)
}

#[then(regex = r"^the tender's next_check is the end of the (enquiry|tender) period$")]
async fn next_check_is_period_end(w: &mut TenderWorld, period: String) -> Result<(), String> {
    let next_check = w.tender_instant("/next_check")?;
    let end = w.tender_instant(&format!("/{period}Period/endDate"))?;
    if next_check == end {
        Ok(())
    } else {
        Err(format!(
            "next_check is {}, the {period} period ends at {}",
            timestamps::format(next_check),
            timestamps::format(end)
        ))
    }
}

#[then(expr = "the tender's {word} is later than before")]
async fn later_than_before(w: &mut TenderWorld, field: String) -> Result<(), String> {
    let now = w.tender_instant(&format!("/{field}"))?;
    let before = w.tender_before[field.as_str()]
        .as_str()
        .and_then(timestamps::parse)
        .ok_or_else(|| format!("the tender had no {field} before"))?;
    if now > before {
        Ok(())
    } else {
        Err(format!(
            "{field} is {}, not later than {}",
            timestamps::format(now),
            timestamps::format(before)
        ))
    }
}

/// Publication refreshes `date` to its own moment: later than the draft's, or the same moment
/// on a target clock that stood still.
#[then("the tender's date is refreshed")]
async fn date_refreshed(w: &mut TenderWorld) -> Result<(), String> {
    let now = w.tender_instant("/date")?;
    let before = w.tender_before["date"]
        .as_str()
        .and_then(timestamps::parse)
        .ok_or("the tender had no date before")?;
    w.check_refreshed("the tender's date", before, now).await
}

#[then("the tender's dateModified is unchanged")]
async fn date_modified_unchanged(w: &mut TenderWorld) -> Result<(), String> {
    let now = w.tender_field("/dateModified")?;
    let before = &w.tender_before["dateModified"];
    if &now == before {
        Ok(())
    } else {
        Err(format!("dateModified moved from {before} to {now}"))
    }
}

#[then("the tender owner is the owner broker")]
async fn owner_is_broker(w: &mut TenderWorld) -> Result<(), String> {
    let expected = w.target()?.owner.name.clone();
    let owner = checks::as_text(&w.tender_field("/owner")?);
    if owner == expected {
        Ok(())
    } else {
        Err(format!("owner is {owner:?}, expected {expected:?}"))
    }
}

#[then("the tenderID has the form UA-YYYY-MM-DD-NNNNNN")]
async fn tender_id_form(w: &mut TenderWorld) -> Result<(), String> {
    let id = checks::as_text(&w.tender_field("/tenderID")?);
    let re = regex::Regex::new(r"^UA-\d{4}-\d{2}-\d{2}-\d{6}$").expect("valid regex");
    if re.is_match(&id) {
        Ok(())
    } else {
        Err(format!(
            "tenderID {id:?} is not of the form UA-YYYY-MM-DD-NNNNNN"
        ))
    }
}

#[then("the enquiry period starts at the moment of creation")]
async fn enquiry_starts_at_creation(w: &mut TenderWorld) -> Result<(), String> {
    let start = w.tender_instant("/enquiryPeriod/startDate")?;
    let created = w.tender_instant("/date")?;
    if (start - created).abs() <= Duration::seconds(2) {
        Ok(())
    } else {
        Err(format!(
            "enquiryPeriod.startDate {} is not the creation date {}",
            timestamps::format(start),
            timestamps::format(created)
        ))
    }
}

#[then("reading the tender shows the tender period starting when the enquiry period ends")]
async fn reading_shows_periods_joined(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    tender_starts_at_enquiry_end(w).await
}

#[then("the tender's date is the one its publication answered")]
async fn date_is_publication(w: &mut TenderWorld) -> Result<(), String> {
    let published = w
        .noted
        .get("publication date")
        .cloned()
        .ok_or("harness: the tender was not published")?;
    let date = w.tender_field("/date")?;
    if date == published {
        Ok(())
    } else {
        Err(format!(
            "the tender's date is {date}, its publication answered {published}"
        ))
    }
}

#[then("the tender period starts when the enquiry period ends")]
async fn tender_starts_at_enquiry_end(w: &mut TenderWorld) -> Result<(), String> {
    let start = w.tender_instant("/tenderPeriod/startDate")?;
    let end = w.tender_instant("/enquiryPeriod/endDate")?;
    if start == end {
        Ok(())
    } else {
        Err(format!(
            "tenderPeriod.startDate {} differs from enquiryPeriod.endDate {}",
            timestamps::format(start),
            timestamps::format(end)
        ))
    }
}

#[then("the tender period ends one day later than before")]
async fn tender_period_one_day_later(w: &mut TenderWorld) -> Result<(), String> {
    let now = w.tender_instant("/tenderPeriod/endDate")?;
    let before = w.tender_before["tenderPeriod"]["endDate"]
        .as_str()
        .and_then(timestamps::parse)
        .ok_or("the tender had no tenderPeriod.endDate before")?;
    if now - before == Duration::days(1) {
        Ok(())
    } else {
        Err(format!("tenderPeriod.endDate moved by {}", now - before))
    }
}

#[then(expr = "the tender's {word} starts with {string}")]
async fn title_prefix(w: &mut TenderWorld, field: String, prefix: String) -> Result<(), String> {
    let value = checks::as_text(&w.tender_field(&format!("/{field}"))?);
    if value.starts_with(&prefix) {
        Ok(())
    } else {
        Err(format!("{field} {value:?} does not start with {prefix:?}"))
    }
}

#[then("the enquiry period end keeps the local time that was sent")]
async fn naive_kept(w: &mut TenderWorld) -> Result<(), String> {
    let sent = checks::as_text(
        w.noted
            .get("naive enquiry end")
            .ok_or("harness: no naive date was sent")?,
    );
    let shown = checks::as_text(&w.tender_field("/enquiryPeriod/endDate")?);
    if timestamps::local_part(&shown) == sent {
        Ok(())
    } else {
        Err(format!(
            "sent {sent:?} without an offset, the tender shows {shown:?}"
        ))
    }
}

#[then("the item id that was sent is kept")]
async fn item_id_kept(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w
        .noted
        .get("item id")
        .cloned()
        .ok_or("harness: no item id was sent")?;
    let shown = w.tender_field("/items/0/id")?;
    if shown == sent {
        Ok(())
    } else {
        Err(format!("the item id {sent} came back as {shown}"))
    }
}

#[then("every item has a 32-character lowercase hexadecimal id")]
async fn item_ids_hex(w: &mut TenderWorld) -> Result<(), String> {
    let items = w.tender_field("/items")?;
    let items = items.as_array().ok_or("items is not a list")?;
    items
        .iter()
        .try_for_each(|item| checks::hex_id(&item["id"]))
}

#[then("the two tenders have different ids")]
async fn two_different_ids(w: &mut TenderWorld) -> Result<(), String> {
    match w.created.as_slice() {
        [first, second, ..] if !first.id.is_empty() && first.id != second.id => Ok(()),
        [first, second, ..] => Err(format!(
            "both creations answered the id {:?} / {:?}",
            first.id, second.id
        )),
        _ => Err(format!("only {} tender(s) were created", w.created.len())),
    }
}

#[then(
    "the procuring entity's contact telephone is the new one and its other fields are unchanged"
)]
async fn telephone_merged(w: &mut TenderWorld) -> Result<(), String> {
    let phone = w
        .noted
        .get("telephone")
        .cloned()
        .ok_or("harness: no telephone was sent")?;
    let now = w.tender_field("/procuringEntity")?;
    let before = w.tender_before["procuringEntity"].clone();
    if now["contactPoint"]["telephone"] != phone {
        return Err(format!(
            "the telephone is {}, expected {phone}",
            now["contactPoint"]["telephone"]
        ));
    }
    for kept in [
        "/name",
        "/identifier",
        "/address",
        "/kind",
        "/contactPoint/name",
    ] {
        if now.pointer(kept) != before.pointer(kept) {
            return Err(format!(
                "procuringEntity{kept} changed from {} to {}",
                before.pointer(kept).unwrap_or(&Value::Null),
                now.pointer(kept).unwrap_or(&Value::Null)
            ));
        }
    }
    Ok(())
}

#[then(expr = "the guarantee is {int} {word}")]
async fn guarantee_is(w: &mut TenderWorld, amount: u64, currency: String) -> Result<(), String> {
    let guarantee = w.tender_field("/guarantee")?;
    let shown = guarantee["amount"].as_f64();
    if shown != Some(amount as f64) || guarantee["currency"] != currency.as_str() {
        return Err(format!(
            "the guarantee is {guarantee}, expected {amount} {currency}"
        ));
    }
    Ok(())
}
