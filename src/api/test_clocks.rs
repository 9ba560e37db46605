//! Test clocks as objects (with `--testing` or `--sandbox`): `POST`/`GET /testing/clocks`,
//! `GET`/`POST`/`DELETE /testing/clocks/{clock_id}`, and the choice of a new tender's clock
//! (`X-Testing-Clock`, or `clock=ID` among the sandbox words of `procurementMethodDetails`).
//!
//! A broker creates, lists, moves and deletes its own (credentials required; credentials that
//! name no known broker are refused, 403); anyone reads one by id. The list shows its owner
//! each clock's records still live (drafts among them, which only their owner may know of). A
//! move takes the body `/testing/clock` takes and answers once every transition due on the clock is applied.
//! A deletion waits for the clock's records to finish (409 naming the live ones), or with
//! `?settle=true` finishes them itself as their owner would; its finished records stay, on the
//! clock frozen at its last moment (see [`crate::clock::test_clocks`]), and reading the clock
//! then shows `deleted`. A broker holds at most `--test-clocks` live clocks (100 by default):
//! one more is refused with 409.

use super::clock::Move;
use crate::clock::test_clocks::{Attached, LONGEST_NAME, TestClockError, TestReading};
use crate::domain::input::Input;
use crate::domain::parse::{Obj, Problem, Sent};
use crate::domain::time::Timestamp;
use crate::domain::{Change, Refusal};
use crate::http::error::{ApiError, Handled};
use crate::http::{App, app, body, bounds, param, reply};
use crate::limits::Kind;
use salvo::http::StatusCode;
use salvo::prelude::*;
use serde_json::{Value as Json, json};

/// The header that names the test clock a new tender lives on.
pub const HEADER: &str = "X-Testing-Clock";

/// A test clock as the API shows it to `caller`: whether the caller may move it.
pub fn shown(app: &App, r: &TestReading, caller: Option<&str>) -> Json {
    let mut shown = json!({
        "id": r.id,
        "name": r.name,
        "now": app.zone.at(r.now),
        "frozen": r.frozen,
        "owner": r.owner,
        "movable": !r.deleted && caller == Some(r.owner.as_str()),
    });
    if r.deleted {
        shown["deleted"] = json!(true);
    }
    shown
}

/// The calling broker, which a test clock's owner must be.
fn broker(app: &App, req: &Request) -> Result<String, ApiError> {
    match app.brokers.caller(req)? {
        Some(broker) => Ok(broker.name.clone()),
        None => Err(ApiError::forbidden_because(
            "test clocks are each a broker's own: call with your broker's credentials (HTTP \
             Basic, its key as the user name)",
        )),
    }
}

/// The refusal of a request about the clock `id` of `owner`.
fn refused(app: &App, owner: &str, id: &str, error: TestClockError) -> ApiError {
    match error {
        TestClockError::Unknown => ApiError::not_found("clock_id"),
        TestClockError::Foreign => ApiError::forbidden_because(format!(
            "the test clock {id} is another broker's: its owner alone moves or deletes it"
        )),
        TestClockError::Deleted => ApiError::new(
            StatusCode::CONFLICT,
            "url",
            "clock_id",
            format!("The test clock {id} was deleted: it is no longer moved nor given records."),
        ),
        TestClockError::TooMany(held) => {
            let most = app.limits.test_clocks.unwrap_or(held);
            let holder = format!("Broker {owner}");
            bounds::refused(app, &holder, Kind::TestClocks, held, most, 1)
        }
        TestClockError::Move(crate::clock::ClockError::Unavailable(reason)) => {
            Refusal::Unavailable(reason).into()
        }
        TestClockError::Move(_) => {
            Refusal::field("now", Problem::msg("The clock cannot move that far.")).into()
        }
    }
}

#[handler]
pub async fn create(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let body = body::read(req, app.max_body).await?;
    let owner = broker(&app, req)?;
    let data = body.data()?;
    let cx = app.cx();
    let mut o = Obj::new(data, &cx, "Clock").map_err(Refusal::from)?;
    let name: Option<String> = o.opt("name");
    let now: Option<Timestamp> = o.opt("now");
    if name
        .as_ref()
        .is_some_and(|n| n.chars().count() > LONGEST_NAME)
    {
        o.fail(
            "name",
            Problem::msg(format!("A name holds at most {LONGEST_NAME} characters.")),
        );
    }
    o.done(|| Some(())).map_err(Refusal::from)?;
    let made = app
        .clocks
        .create_test(
            &owner,
            name,
            now.map(|t| t.instant()),
            app.limits.test_clocks,
        )
        .map_err(|e| match e {
            TestClockError::Move(crate::clock::ClockError::OutOfRange) => {
                Refusal::field("now", Problem::msg("The clock cannot stand that far on.")).into()
            }
            other => refused(&app, &owner, "", other),
        })?;
    let location = format!("{}/testing/clocks/{}", app.base_url(req), made.id);
    let shown = shown(&app, &made, Some(&owner));
    reply::created(req, res, &location, shown, None);
    Ok(())
}

#[handler]
pub async fn list(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let owner = broker(&app, req)?;
    let clocks: Vec<Json> = app
        .clocks
        .tests()
        .of_owner(&owner)
        .iter()
        .map(|r| {
            let mut clock = shown(&app, r, Some(&owner));
            let live = app.store.live_records(&r.id);
            let ids = |records: &[(String, &str)]| -> Vec<String> {
                records.iter().map(|(id, _)| id.clone()).collect()
            };
            clock["live"] =
                json!({"tenders": ids(&live.tenders), "contracts": ids(&live.contracts)});
            clock
        })
        .collect();
    reply::ok(req, res, clocks);
    Ok(())
}

#[handler]
pub async fn show(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let caller = app.brokers.caller(req)?.map(|b| b.name.clone());
    let id = param(req, "clock_id");
    let reading = app
        .clocks
        .tests()
        .reading(&id)
        .ok_or_else(|| ApiError::not_found("clock_id"))?;
    reply::ok(req, res, shown(&app, &reading, caller.as_deref()));
    Ok(())
}

#[handler]
pub async fn set(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let body = body::read(req, app.max_body).await?;
    let mover = broker(&app, req)?;
    let id = param(req, "clock_id");
    let data = body.data()?;
    let cx = app.cx();
    let mut o = Obj::new(data, &cx, "Clock").map_err(Refusal::from)?;
    let wanted = Move::read(&mut o);
    o.done(|| Some(())).map_err(Refusal::from)?;
    let moved = app
        .clocks
        .set_test(&id, &mover, wanted.target(), wanted.advance, wanted.frozen);
    match moved {
        Ok(_) => {}
        Err(TestClockError::Move(error)) => {
            let now = || {
                let reading = app.clocks.tests().reading(&id);
                app.zone
                    .at(reading.map_or_else(|| app.clocks.server().now(), |r: TestReading| r.now))
            };
            return Err(wanted.refused(error, now));
        }
        Err(other) => return Err(refused(&app, &mover, &id, other)),
    }
    app.store.run_due(Some(&id)).await;
    let reading = app
        .clocks
        .tests()
        .reading(&id)
        .ok_or_else(|| ApiError::not_found("clock_id"))?;
    reply::ok(req, res, shown(&app, &reading, Some(&mover)));
    Ok(())
}

#[handler]
pub async fn remove(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let mover = broker(&app, req)?;
    let id = param(req, "clock_id");
    let tests = app.clocks.tests();
    // Refused as a deletion would be, before creations on test clocks are held for it and
    // the records are looked at; the deletion checks again under that hold.
    let settle = settle_asked(req)?;
    tests
        .check(&id, &mover)
        .map_err(|e| refused(&app, &mover, &id, e))?;
    let deleting = tests.deleting().await;
    let settled = match settle {
        true => settle_live(&app, &id).await,
        false => Settled::default(),
    };
    let live = app.store.live_on(&id);
    if !live.is_empty() {
        let why = match settle {
            true => format!(
                " Settling could not finish them: {}.",
                settled.refused.join("; ")
            ),
            false => " Finish them, or delete it with ?settle=true.".to_string(),
        };
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "url",
            "clock_id",
            format!(
                "The test clock {id} holds records in a live status: {}. A clock is deleted once its records are finished.{why}",
                live.join(", ")
            ),
        ));
    }
    let gone = tests
        .delete(&deleting, &id, &mover)
        .map_err(|e| refused(&app, &mover, &id, e))?;
    drop(deleting);
    let mut shown = shown(&app, &gone, Some(&mover));
    if settle {
        shown["settled"] = json!({"tenders": settled.tenders, "contracts": settled.contracts});
    }
    reply::ok(req, res, shown);
    Ok(())
}

/// `?settle=true` (or `1`) on a deletion; `false`, `0` or none leave live records refusing it.
fn settle_asked(req: &Request) -> Result<bool, ApiError> {
    match req.query::<String>("settle").as_deref() {
        None | Some("false" | "0") => Ok(false),
        Some("true" | "1") => Ok(true),
        Some(_) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "url",
            "settle",
            "settle should be true or false.",
        )),
    }
}

/// What settling a clock's live records did: the records it finished, and why any refused.
#[derive(Default)]
struct Settled {
    tenders: Vec<String>,
    contracts: Vec<String>,
    refused: Vec<String>,
}

/// Finishes the records still live on the test clock `id`, as their owner would through the
/// API, in the store's own writes (so the feeds carry each change and every record stays
/// readable): each live tender, drafts too, cancelled by an active cancellation; then each
/// contract under management still active (the tenders completed before), terminated with
/// its value paid.
async fn settle_live(app: &App, id: &str) -> Settled {
    let reason = format!("The test clock {id} was deleted with settle=true.");
    let cx = app.cx();
    let mut settled = Settled::default();
    for (tender, _) in app.store.live_records(id).tenders {
        let cancellation = json!({"reason": reason, "status": "active"});
        let cancelled = app
            .store
            .update(
                &tender,
                |t, now| {
                    t.add_cancellation(&Sent {
                        data: &Input::view(&cancellation),
                        cx: &cx,
                        now,
                    })?;
                    Ok(Change::Public)
                },
                |_| (),
            )
            .await;
        match cancelled {
            Ok(()) => settled.tenders.push(tender),
            Err(e) => settled
                .refused
                .push(format!("tender {tender}: {}", ApiError::from(e).summary())),
        }
    }
    for (contract, _) in app.store.live_records(id).contracts {
        let terminated = app
            .store
            .update_contract(
                &contract,
                |c, _| {
                    let end = json!({
                        "status": "terminated",
                        "amountPaid": {"amount": c.value.amount},
                        "terminationDetails": reason,
                    });
                    c.patch(&Input::view(&end), &cx)
                },
                |_| (),
            )
            .await;
        match terminated {
            Ok(()) => settled.contracts.push(contract),
            Err(e) => settled.refused.push(format!(
                "contract {contract}: {}",
                ApiError::from(e).summary()
            )),
        }
    }
    settled
}

/// The `clock=ID` word among the sandbox words of `procurementMethodDetails` (words apart by
/// commas, as in `quick, accelerator=1440, clock=ID`).
pub fn clock_word(details: &str) -> Option<&str> {
    details
        .split(',')
        .find_map(|word| word.trim().strip_prefix("clock="))
        .map(str::trim)
}

/// The test clock the `X-Testing-Clock` header names, if it is sent.
pub fn header_clock(req: &Request) -> Result<Option<&str>, ApiError> {
    match req.headers().get(HEADER) {
        None => Ok(None),
        Some(value) => value.to_str().map(|v| Some(v.trim())).map_err(|_| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "header",
                HEADER,
                "The header should hold a test clock's id.",
            )
        }),
    }
}

/// The one test clock a request names by the header and by `name` at `location` in its body
/// (`word`), which must agree: the id, with where it was read from.
pub fn one_named<'a>(
    header: Option<&'a str>,
    word: Option<&'a str>,
    location: &'static str,
    name: &'static str,
) -> Result<Option<(&'a str, &'static str, &'static str)>, ApiError> {
    match (header, word) {
        (None, None) => Ok(None),
        (Some(h), Some(w)) if h != w => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            location,
            name,
            format!("It names the test clock {w}, the {HEADER} header another ({h})."),
        )),
        (Some(h), _) => Ok(Some((h, "header", HEADER))),
        (None, Some(w)) => Ok(Some((w, location, name))),
    }
}

/// The refusal of the test clock `id`, named at `location`/`name` by a broker that does not
/// own it, or that may no longer be named (it is given no more `given`): the same for a new
/// tender and for fault rules.
pub fn named_refused(
    id: &str,
    e: TestClockError,
    (location, name): (&str, &str),
    given: &str,
) -> ApiError {
    let (status, description) = match e {
        TestClockError::Foreign => (
            StatusCode::FORBIDDEN,
            format!("The test clock {id} is another broker's."),
        ),
        TestClockError::Deleted => (
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("The test clock {id} was deleted: it is given no {given}."),
        ),
        _ => (
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("No test clock has the id {id}."),
        ),
    };
    ApiError::new(status, location, name, description)
}

/// The test clock a new tender of `broker` asks to live on, held until the tender is stored
/// (`None`: its owner's clock). Named by the `X-Testing-Clock` header or by `clock=ID` in
/// `procurementMethodDetails`, only on a server that offers test clocks; it must be the
/// broker's own and not deleted.
pub async fn chosen<'a>(
    app: &'a App,
    req: &Request,
    data: &Input<'_>,
    broker: &str,
) -> Result<Option<Attached<'a>>, ApiError> {
    if !app.mode.offers_sandbox() {
        return Ok(None);
    }
    let word = data
        .get("procurementMethodDetails")
        .and_then(Input::as_str)
        .and_then(clock_word);
    let named = one_named(header_clock(req)?, word, "body", "procurementMethodDetails")?;
    let Some((id, location, name)) = named else {
        return Ok(None);
    };
    app.clocks
        .tests()
        .attach(id, broker)
        .await
        .map(Some)
        .map_err(|e| named_refused(id, e, (location, name), "records"))
}

#[cfg(test)]
mod tests {
    use super::clock_word;

    #[test]
    fn the_clock_word_is_found_among_the_sandbox_words() {
        let id = "0123456789abcdef0123456789abcdef";
        for details in [
            format!("quick, accelerator=1440, clock={id}"),
            format!("clock={id}"),
            format!("quick,clock={id} ,accelerator=10"),
        ] {
            assert_eq!(clock_word(&details), Some(id), "{details}");
        }
        assert_eq!(clock_word("quick, accelerator=1440"), None);
        assert_eq!(clock_word("quick, aclock=1"), None);
    }
}
