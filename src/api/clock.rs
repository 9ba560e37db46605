//! The clock control API (with `--testing` or `--sandbox`): `GET` and `POST /testing/clock`.
//!
//! A broker's call reads and moves that broker's own clock, made at its first move as a copy
//! of the server's; credentials that name no known broker are refused (403) and move nothing;
//! a call without credentials reads the server's clock and, with `--testing`
//! only (a server its runner owns), moves it or any broker's named in the body. A broker may
//! move no clock but its own (403), and `GET ?broker=NAME` reads any broker's clock.
//! `GET ?tender=ID` (or `?contract=ID`) reads the clock that record lives on: its owner's,
//! or the test clock it was created on.
//!
//! A POST answers only after every transition that became due on the clock it moved has been
//! applied, so the caller sees a settled world.

use crate::clock::ClockError;
use crate::domain::Refusal;
use crate::domain::parse::{Obj, Problem};
use crate::domain::time::Timestamp;
use crate::http::error::{ApiError, Handled};
use crate::http::{App, app, body, reply};
use salvo::prelude::*;
use serde_json::{Value as Json, json};
use time::Duration;

/// The clock of `broker` (the server's for `None`) as the API shows it to `caller`: whether
/// the caller may move it too.
fn state(app: &App, broker: Option<&str>, caller: Option<&str>) -> Json {
    let reading = app.clocks.reading(broker);
    let movable = match caller {
        Some(caller) => broker == Some(caller),
        None => app.mode.is_owned(),
    };
    let mut shown = json!({"now": reading.now, "frozen": reading.frozen, "movable": movable});
    if let Some(broker) = broker {
        shown["broker"] = json!(broker);
        shown["own"] = json!(reading.own);
    }
    shown
}

/// A broker a request names, which must be one the server knows.
fn known(app: &App, name: Option<String>) -> Result<Option<String>, ApiError> {
    match name {
        Some(name) if !app.brokers.knows(&name) => Err(ApiError::not_found("broker")),
        other => Ok(other),
    }
}

#[handler]
pub async fn show(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let caller = app.brokers.caller(req)?.map(|b| b.name.clone());
    if let Some(shown) = record_s(&app, req, caller.as_deref())? {
        reply::ok(req, res, shown);
        return Ok(());
    }
    let named = known(
        &app,
        req.query::<String>("broker").filter(|b| !b.is_empty()),
    )?;
    let broker = named.or(caller.clone()).filter(|_| app.clocks.offers_own());
    reply::ok(req, res, state(&app, broker.as_deref(), caller.as_deref()));
    Ok(())
}

/// The clock of the record `?tender=ID` or `?contract=ID` names, as [`show`] answers for a
/// broker's (`broker`, `own`) or a test clock's shows it (`clock`, its id, with `name`,
/// `owner` and `deleted` if so), with the record's id; `None` when the request names none.
fn record_s(app: &App, req: &Request, caller: Option<&str>) -> Result<Option<Json>, ApiError> {
    let named = |key: &str| req.query::<String>(key).filter(|id| !id.is_empty());
    let (kind, id, found) = if let Some(id) = named("tender") {
        let found = app.store.read(&id, |t| (t.clock.clone(), t.owner.clone()));
        (
            "tender",
            id,
            found.ok_or_else(|| ApiError::not_found("tender_id"))?,
        )
    } else if let Some(id) = named("contract") {
        let found = app
            .store
            .read_contract(&id, |c| (c.clock.clone(), c.owner.clone()));
        (
            "contract",
            id,
            found.ok_or_else(|| ApiError::not_found("contract_id"))?,
        )
    } else {
        return Ok(None);
    };
    let mut shown = match found {
        (Some(clock), _) => {
            let reading = app
                .clocks
                .tests()
                .reading(&clock)
                .ok_or_else(|| ApiError::not_found("clock_id"))?;
            let mut shown = super::test_clocks::shown(app, &reading, caller);
            if let Some(fields) = shown.as_object_mut() {
                fields.remove("id");
                fields.insert("clock".into(), json!(clock.as_ref()));
            }
            shown
        }
        (None, owner) => {
            let broker = Some(owner.as_ref()).filter(|_| app.clocks.offers_own());
            state(app, broker, caller)
        }
    };
    shown[kind] = json!(id);
    Ok(Some(shown))
}

/// An ISO 8601 duration such as `P2DT3H`, `PT90S` or `P1W`.
fn parse_duration(text: &str) -> Option<Duration> {
    let rest = text.strip_prefix('P')?;
    let (date, time) = rest.split_once('T').unwrap_or((rest, ""));
    if date.is_empty() && time.is_empty() {
        return None;
    }
    let mut total = Duration::ZERO;
    for (part, units) in [
        (date, [('W', 604_800.0), ('D', 86_400.0), ('_', 0.0)]),
        (time, [('H', 3_600.0), ('M', 60.0), ('S', 1.0)]),
    ] {
        let mut number = String::new();
        for c in part.chars() {
            if c.is_ascii_digit() || c == '.' {
                number.push(c);
                continue;
            }
            let seconds = units.iter().find(|(u, _)| *u == c)?.1;
            let n: f64 = number.parse().ok()?;
            total = total.checked_add(Duration::checked_seconds_f64(n * seconds)?)?;
            number.clear();
        }
        if !number.is_empty() {
            return None;
        }
    }
    Some(total)
}

/// Whose clock a move is of: the caller's own; without credentials, the server's or the
/// broker the body names, only on a server the caller owns (`--testing`).
fn mover(
    app: &App,
    caller: Option<&str>,
    named: Option<String>,
) -> Result<Option<String>, ApiError> {
    match (caller, named) {
        (Some(me), Some(other)) if other != me => Err(ApiError::forbidden_because(format!(
            "a broker moves its own clock alone, and the body names {other}'s; leave broker \
             out to move {me}'s"
        ))),
        (Some(me), _) => Ok(Some(me.to_string())),
        (None, named) if app.mode.is_owned() => known(app, named),
        (None, _) => Err(ApiError::forbidden_because(
            "on a public sandbox the server's clock runs with the wall clock; move your \
             broker's own clock with your credentials",
        )),
    }
}

/// A move as `/testing/clock` and `/testing/clocks/{id}` take it: to `now`, or by
/// `advance`, and `frozen` or not.
pub(super) struct Move {
    pub now: Option<Timestamp>,
    pub advance: Option<Duration>,
    pub frozen: Option<bool>,
}

impl Move {
    /// Reads a move's fields from `o`; a bad one is noted in `o`, for its `done`.
    pub(super) fn read(o: &mut Obj<'_>) -> Move {
        let now: Option<Timestamp> = o.opt("now");
        let advance: Option<String> = o.opt("advance");
        let frozen: Option<bool> = o.opt("frozen");
        let advance = match advance {
            Some(text) => match parse_duration(&text) {
                Some(d) => Some(d),
                None => {
                    o.fail(
                        "advance",
                        Problem::msg(format!(
                            "Could not parse {text}. Should be an ISO 8601 duration such as P2DT3H."
                        )),
                    );
                    None
                }
            },
            None => None,
        };
        Move {
            now,
            advance,
            frozen,
        }
    }

    pub(super) fn target(&self) -> Option<time::OffsetDateTime> {
        self.now.map(|t| t.instant())
    }

    /// The refusal of this move, which `error` refused; `now`: the clock's time, which a
    /// move back is told.
    pub(super) fn refused(&self, error: ClockError, now: impl FnOnce() -> Timestamp) -> ApiError {
        let field = if self.now.is_some() { "now" } else { "advance" };
        let message = match error {
            ClockError::Backwards => {
                format!("The clock only moves forward; it is now {}.", now())
            }
            ClockError::OutOfRange => "The clock cannot move that far.".to_string(),
            ClockError::Unavailable(reason) => return Refusal::Unavailable(reason).into(),
        };
        Refusal::field(field, Problem::msg(message)).into()
    }
}

#[handler]
pub async fn set(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let body = body::read(req, app.max_body).await?;
    let caller = app.brokers.caller(req)?.map(|b| b.name.clone());
    let data = body.data()?;
    let cx = app.cx();
    let mut o = Obj::new(data, &cx, "Clock").map_err(Refusal::from)?;
    let wanted = Move::read(&mut o);
    let named: Option<String> = o.opt("broker");
    o.done(|| Some(())).map_err(Refusal::from)?;
    let broker = mover(&app, caller.as_deref(), named)?.filter(|_| app.clocks.offers_own());
    let (target, advance, frozen) = (wanted.target(), wanted.advance, wanted.frozen);
    let moved = match &broker {
        Some(broker) => app.clocks.set_own(broker, target, advance, frozen),
        None => app.clocks.set_server(target, advance, frozen),
    };
    if let Err(error) = moved {
        return Err(wanted.refused(error, || app.clocks.reading(broker.as_deref()).now));
    }
    // A broker's move runs its own tenders' transitions; the server's, everyone's due.
    app.store.run_due(broker.as_deref()).await;
    reply::ok(req, res, state(&app, broker.as_deref(), caller.as_deref()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use time::Duration;

    #[test]
    fn iso_durations() {
        assert_eq!(parse_duration("P2DT3H"), Some(Duration::hours(51)));
        assert_eq!(parse_duration("PT90S"), Some(Duration::seconds(90)));
        assert_eq!(parse_duration("P1W"), Some(Duration::days(7)));
        assert_eq!(parse_duration("PT0.5S"), Some(Duration::milliseconds(500)));
        for bad in [
            "",
            "P",
            "2D",
            "PT",
            "P2X",
            "PT5",
            "P99999999999999999999999D",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }
}
