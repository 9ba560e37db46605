//! Authentication rule 2 tried on every write: each write endpoint with no token, a wrong token
//! and another object's token. A refusal is a 4xx error, and reading the object back (and the
//! tender that holds it) shows that nothing changed, whatever the answer said.
use cucumber::{gherkin::Step, then};
use reqwest::Method;
use serde_json::{Value, json};
use time::Duration;

use crate::{
    checks,
    exchange::short,
    exchange::timestamps,
    world::{Actor, Payload, TenderWorld},
};

/// A write endpoint of the spec (and the bid's reads, which need the bid token too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Write {
    ChangeTender,
    PublishTender,
    UploadTenderDocument,
    ReplaceTenderDocument,
    DescribeTenderDocument,
    AnswerQuestion,
    ActivateBid,
    UploadBidDocument,
    ReadBid,
    ListBidDocuments,
    ConfirmAward,
    ChangeContract,
}

impl Write {
    fn parse(text: &str) -> Result<Write, String> {
        Ok(match text.trim() {
            "change the tender" => Write::ChangeTender,
            "publish the tender" => Write::PublishTender,
            "upload a tender document" => Write::UploadTenderDocument,
            "replace the tender document" => Write::ReplaceTenderDocument,
            "describe the tender document" => Write::DescribeTenderDocument,
            "answer the question" => Write::AnswerQuestion,
            "activate the bid" => Write::ActivateBid,
            "upload a bid document" => Write::UploadBidDocument,
            "read the bid" => Write::ReadBid,
            "list the bid documents" => Write::ListBidDocuments,
            "confirm the award" => Write::ConfirmAward,
            "change the contract" => Write::ChangeContract,
            other => return Err(format!("harness: unknown write {other:?}")),
        })
    }

    /// Writes on a bid belong to the bidder; all others to the tender's owner.
    fn on_bid(self) -> bool {
        matches!(
            self,
            Write::ActivateBid
                | Write::UploadBidDocument
                | Write::ReadBid
                | Write::ListBidDocuments
        )
    }
}

/// What a request presents instead of the right credentials.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Credential {
    NoToken,
    WrongToken,
    AnotherTendersToken,
    TendersTokenFromAnotherBroker,
    BidsToken,
    TendersToken,
    AnotherBidsToken,
    BidsTokenFromAnotherBroker,
}

impl Credential {
    fn parse(text: &str) -> Result<Credential, String> {
        Ok(match text.trim() {
            "no token" => Credential::NoToken,
            "a wrong token" => Credential::WrongToken,
            "another tender's token" => Credential::AnotherTendersToken,
            "the tender's token from another broker" => Credential::TendersTokenFromAnotherBroker,
            "the bid's token" => Credential::BidsToken,
            "the tender's token" => Credential::TendersToken,
            "another bid's token" => Credential::AnotherBidsToken,
            "the bid's token from another broker" => Credential::BidsTokenFromAnotherBroker,
            other => return Err(format!("harness: unknown credential {other:?}")),
        })
    }
}

fn bid_token(w: &TenderWorld, index: usize) -> Result<String, String> {
    w.bid(index)?
        .token
        .clone()
        .ok_or_else(|| format!("bid number {} has no token", index + 1))
}

/// The token of a second tender of the same owner, created on first use (as a draft, so that
/// it stays out of the listing and of the scheduler).
async fn another_tenders_token(w: &mut TenderWorld) -> Result<String, String> {
    if let Some(token) = w
        .noted
        .get("another tender's token")
        .and_then(Value::as_str)
    {
        return Ok(token.to_owned());
    }
    let mut body = w.tender_body().await?;
    body["data"]["status"] = json!("draft");
    w.send_expecting(
        "creating another tender",
        201,
        Actor::Owner,
        Method::POST,
        "/api/2.3/tenders",
        Payload::Json(body),
    )
    .await?;
    let token = w
        .body
        .pointer("/access/token")
        .and_then(Value::as_str)
        .ok_or("the creation of another tender returned no access token")?
        .to_owned();
    w.noted
        .insert("another tender's token".into(), json!(token.clone()));
    Ok(token)
}

/// Who sends the attempt and which token it presents.
async fn presented(
    w: &mut TenderWorld,
    write: Write,
    credential: Credential,
) -> Result<(Actor, Option<String>), String> {
    let rightful = if write.on_bid() {
        Actor::Other
    } else {
        Actor::Owner
    };
    Ok(match credential {
        Credential::NoToken => (rightful, None),
        Credential::WrongToken => (rightful, Some(w.fakes.hex_id(32))),
        Credential::AnotherTendersToken => (Actor::Owner, Some(another_tenders_token(w).await?)),
        Credential::TendersTokenFromAnotherBroker => (Actor::Other, Some(w.tender_token()?)),
        Credential::BidsToken => (Actor::Other, Some(bid_token(w, 0)?)),
        Credential::TendersToken => (Actor::Owner, Some(w.tender_token()?)),
        Credential::AnotherBidsToken => (Actor::Other, Some(bid_token(w, 1)?)),
        Credential::BidsTokenFromAnotherBroker => (Actor::Owner, Some(bid_token(w, 0)?)),
    })
}

fn first_of(w: &TenderWorld, pointer: &str, status: Option<&str>) -> Result<String, String> {
    w.tender_field(pointer)?
        .as_array()
        .and_then(|all| {
            all.iter()
                .find(|x| status.is_none_or(|s| x["status"] == s))
                .map(|x| checks::as_text(&x["id"]))
        })
        .ok_or_else(|| match status {
            Some(s) => format!("the tender has no {s} record in {pointer}"),
            None => format!("the tender has nothing in {pointer}"),
        })
}

/// The reads that show everything the write could change: the tender, and the object itself,
/// each with credentials (the spec shows only the listing read without them).
fn reads_of(w: &TenderWorld, write: Write) -> Result<Vec<(Actor, String)>, String> {
    let tender = w.tender_path()?;
    let mut reads = vec![(Actor::Owner, tender.clone())];
    match write {
        Write::UploadTenderDocument => reads.push((Actor::Owner, format!("{tender}/documents"))),
        Write::ReplaceTenderDocument | Write::DescribeTenderDocument => {
            reads.push((
                Actor::Owner,
                format!("{tender}/documents/{}", w.document()?.id),
            ));
            reads.push((Actor::Owner, format!("{tender}/documents")));
        }
        Write::AnswerQuestion => reads.push((
            Actor::Owner,
            format!("{tender}/questions/{}", w.question()?.id),
        )),
        Write::ActivateBid
        | Write::UploadBidDocument
        | Write::ReadBid
        | Write::ListBidDocuments => {
            let bid = format!("{tender}/bids/{}", w.bid(0)?.id);
            let token = bid_token(w, 0)?;
            reads.push((Actor::Other, format!("{bid}?acc_token={token}")));
            reads.push((Actor::Other, format!("{bid}/documents?acc_token={token}")));
        }
        Write::ChangeTender
        | Write::PublishTender
        | Write::ConfirmAward
        | Write::ChangeContract => {}
    }
    Ok(reads)
}

/// Reads every object the write could change, keeping each `data`.
async fn snapshot(w: &mut TenderWorld, reads: &[(Actor, String)]) -> Result<Vec<Value>, String> {
    let mut seen = Vec::new();
    for (actor, path) in reads {
        w.read("reading back", *actor, path).await?;
        seen.push(w.data().clone());
    }
    // The tender is the first read: keep it, the attempt needs its awards and contracts.
    if let Some(tender) = seen.first().cloned() {
        w.tender_mut()?.data = tender;
    }
    Ok(seen)
}

/// The request of one write, with a body that would change what it is sent to.
async fn request_of(
    w: &mut TenderWorld,
    write: Write,
) -> Result<(Method, String, Payload), String> {
    let tender = w.tender_path()?;
    let json_of = |v: Value| Payload::Json(json!({ "data": v }));
    Ok(match write {
        Write::ChangeTender => {
            let title = format!("Змінена назва № {}", w.fakes.code(4));
            let telephone = format!("+38044{}", w.fakes.code(7));
            (
                Method::PATCH,
                tender,
                json_of(json!({"title": title,
                    "procuringEntity": {"contactPoint": {"telephone": telephone}}})),
            )
        }
        Write::PublishTender => (
            Method::PATCH,
            tender,
            json_of(json!({"status": "active.enquiries"})),
        ),
        Write::UploadTenderDocument => (
            Method::POST,
            format!("{tender}/documents"),
            Payload::Json(w.document_body().await?),
        ),
        Write::ReplaceTenderDocument => (
            Method::PUT,
            format!("{tender}/documents/{}", w.document()?.id),
            Payload::Json(w.document_body().await?),
        ),
        Write::DescribeTenderDocument => (
            Method::PATCH,
            format!("{tender}/documents/{}", w.document()?.id),
            json_of(json!({"documentType": "technicalSpecifications",
                "description": format!("Опис № {}", w.fakes.code(4))})),
        ),
        Write::AnswerQuestion => (
            Method::PATCH,
            format!("{tender}/questions/{}", w.question()?.id),
            Payload::Json(w.fakes.answer()),
        ),
        Write::ActivateBid => (
            Method::PATCH,
            format!("{tender}/bids/{}", w.bid(0)?.id),
            json_of(json!({"status": "active"})),
        ),
        Write::UploadBidDocument => (
            Method::POST,
            format!("{tender}/bids/{}/documents", w.bid(0)?.id),
            Payload::Json(w.document_body().await?),
        ),
        Write::ReadBid => (
            Method::GET,
            format!("{tender}/bids/{}", w.bid(0)?.id),
            Payload::None,
        ),
        Write::ListBidDocuments => (
            Method::GET,
            format!("{tender}/bids/{}/documents", w.bid(0)?.id),
            Payload::None,
        ),
        Write::ConfirmAward => (
            Method::PATCH,
            format!(
                "{tender}/awards/{}",
                checks::as_text(&super::awards::award_to_decide(w)?["id"])
            ),
            json_of(json!({"status": "active"})),
        ),
        Write::ChangeContract => {
            let id = first_of(w, "/contracts", Some("pending"))?;
            let contract = w
                .tender_field("/contracts")?
                .as_array()
                .and_then(|c| c.iter().find(|c| c["id"] == id.as_str()).cloned())
                .unwrap_or_default();
            let amount = contract["value"]["amount"].as_f64().unwrap_or(100.0);
            let start = w.tender_instant("/dateModified")? + Duration::days(30);
            (
                Method::PATCH,
                format!("{tender}/contracts/{id}"),
                json_of(json!({
                    "contractNumber": format!("№ {}", w.fakes.code(5)),
                    "value": {"amount": (amount * 90.0).round() / 100.0},
                    "period": {"startDate": timestamps::format(start),
                               "endDate": timestamps::format(start + Duration::days(365))},
                })),
            )
        }
    })
}

/// The first place where two JSON values differ, as a pointer with both values.
fn difference(before: &Value, after: &Value, at: &str) -> Option<String> {
    match (before, after) {
        (Value::Object(a), Value::Object(b)) => a
            .keys()
            .chain(b.keys().filter(|k| !a.contains_key(*k)))
            .find_map(|k| {
                difference(
                    a.get(k).unwrap_or(&Value::Null),
                    b.get(k).unwrap_or(&Value::Null),
                    &format!("{at}/{k}"),
                )
            }),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| difference(x, y, &format!("{at}/{i}"))),
        _ if before == after => None,
        _ => Some(format!(
            "{} was {} and is now {}",
            if at.is_empty() { "/" } else { at },
            short(&before.to_string()),
            short(&after.to_string())
        )),
    }
}

/// What the reads of one attempt showed, so that the next attempt on the same objects can start
/// from it.
type Seen = (Vec<(Actor, String)>, Vec<Value>);

/// Tries one write with one credential: it must be refused, and nothing may have changed.
/// Returns what the reads showed afterwards.
async fn attempt(
    w: &mut TenderWorld,
    write: Write,
    credential: Credential,
    seen: Option<Seen>,
) -> Result<Seen, String> {
    let what = format!("{write:?} with {credential:?}");
    let (actor, token) = presented(w, write, credential).await?;
    let reads = reads_of(w, write)?;
    let before = match seen {
        Some((same, shown)) if same == reads => shown,
        _ => snapshot(w, &reads).await?,
    };
    let (method, mut path, payload) = request_of(w, write).await?;
    if let Some(token) = token {
        path = format!("{path}?acc_token={token}");
    }
    w.send(actor, method, &path, payload).await?;
    super::common::expect_refusal(w).map_err(|e| format!("{what}: {e}"))?;
    let after = snapshot(w, &reads).await?;
    for ((_, path), (b, a)) in reads.iter().zip(before.iter().zip(&after)) {
        if let Some(change) = difference(b, a, "") {
            return Err(format!(
                "{what} was refused, yet reading {path} back shows a change: {change}"
            ));
        }
    }
    Ok((reads, after))
}

#[then(
    regex = r"^every attempt to (.+) with these credentials is refused and reading back shows nothing changed:$"
)]
async fn every_credential_refused(
    w: &mut TenderWorld,
    write: String,
    step: &Step,
) -> Result<(), String> {
    let write = Write::parse(&write)?;
    let table = step
        .table
        .as_ref()
        .ok_or("harness: the step needs a table of credentials")?;
    let mut seen = None;
    for row in table.rows.iter().skip(1) {
        let [credential] = row.as_slice() else {
            return Err(format!("harness: a row needs one cell: {row:?}"));
        };
        seen = Some(attempt(w, write, Credential::parse(credential)?, seen).await?);
    }
    Ok(())
}

#[then("each of these attempts is refused and reading back shows nothing changed:")]
async fn each_refused(w: &mut TenderWorld, step: &Step) -> Result<(), String> {
    let table = step
        .table
        .as_ref()
        .ok_or("harness: the step needs a table of write and credential")?;
    let mut seen = None;
    for row in table.rows.iter().skip(1) {
        let [write, credential] = row.as_slice() else {
            return Err(format!("harness: a row needs two cells: {row:?}"));
        };
        let (write, credential) = (Write::parse(write)?, Credential::parse(credential)?);
        seen = Some(attempt(w, write, credential, seen).await?);
    }
    Ok(())
}
