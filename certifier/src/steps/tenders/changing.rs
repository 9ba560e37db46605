//! Changing a tender: its title with the token carried each way, its contact, guarantee and
//! periods.
use cucumber::{given, when};
use reqwest::Method;
use serde_json::{Value, json};
use time::Duration;

use crate::{
    exchange::timestamps,
    world::{Actor, Payload, TenderWorld},
};

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

/// `actor` changes the title presenting the tender's token in the query.
async fn change_title_with_tender_token(w: &mut TenderWorld, actor: Actor) -> Result<(), String> {
    let token = w.tender_token()?;
    change_title(w, actor, TokenUse::Query(Some(token)), None).await
}

#[when("the owner changes the tender title")]
async fn changes_title(w: &mut TenderWorld) -> Result<(), String> {
    change_title_with_tender_token(w, Actor::Owner).await
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
    change_title_with_tender_token(w, Actor::Other).await
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
    w.send_data(Actor::Owner, Method::PATCH, &path, json!({"title": title}))
        .await?;
    w.adopt_tender();
    Ok(())
}

async fn patch_tender(w: &mut TenderWorld, data: Value) -> Result<(), String> {
    w.remember_tender();
    let path = w.tender_path_with_token()?;
    w.send_data(Actor::Owner, Method::PATCH, &path, data)
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
