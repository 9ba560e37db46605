//! The clock control API (with `--testing` or `--sandbox`): `GET` and `POST /testing/clock`.
//!
//! A broker's call reads and moves that broker's own clock, made at its first move as a copy
//! of the server's; credentials that name no known broker are refused (403) and move nothing;
//! a call without credentials reads the server's clock and, with `--testing`
//! only (a server its runner owns), moves it or any broker's named in the body. A broker may
//! move no clock but its own (403), and `GET ?broker=NAME` reads any broker's clock.
//!
//! A POST answers only after every transition that became due on the clock it moved has been
//! applied, so the caller sees a settled world.

use crate::clock::ClockError;
use crate::domain::Refusal;
use crate::domain::parse::{Obj, Problem};
use crate::domain::time::Timestamp;
use crate::http::error::ApiError;
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
        None => app.testing,
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
pub async fn show(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let named = known(
        &app,
        req.query::<String>("broker").filter(|b| !b.is_empty()),
    )?;
    let caller = app.brokers.caller(req)?.map(|b| b.name.clone());
    let broker = named.or(caller.clone()).filter(|_| app.clocks.offers_own());
    reply::ok(req, res, state(&app, broker.as_deref(), caller.as_deref()));
    Ok(())
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
        (Some(me), Some(other)) if other != me => Err(ApiError::forbidden()),
        (Some(me), _) => Ok(Some(me.to_string())),
        (None, named) if app.testing => known(app, named),
        (None, _) => Err(ApiError::forbidden()),
    }
}

#[handler]
pub async fn set(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Result<(), ApiError> {
    let app = app(depot)?;
    let body = body::read(req, app.max_body).await?;
    let caller = app.brokers.caller(req)?.map(|b| b.name.clone());
    let data = body.data()?;
    let cx = app.cx();
    let mut o = Obj::new(data, &cx, "Clock").map_err(Refusal::from)?;
    let now: Option<Timestamp> = o.opt("now");
    let advance: Option<String> = o.opt("advance");
    let frozen: Option<bool> = o.opt("frozen");
    let named: Option<String> = o.opt("broker");
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
    o.done(|| Some(())).map_err(Refusal::from)?;
    let broker = mover(&app, caller.as_deref(), named)?.filter(|_| app.clocks.offers_own());
    let target = now.map(|t| t.instant());
    let moved = match &broker {
        Some(broker) => app.clocks.set_own(broker, target, advance, frozen),
        None => app.clocks.set_server(target, advance, frozen),
    };
    let field = if now.is_some() { "now" } else { "advance" };
    let problem = match moved {
        Ok(_) => None,
        Err(ClockError::Backwards) => Some(format!(
            "The clock only moves forward; it is now {}.",
            app.clocks.reading(broker.as_deref()).now
        )),
        Err(ClockError::OutOfRange) => Some("The clock cannot move that far.".to_string()),
        Err(ClockError::Unavailable(reason)) => return Err(Refusal::Unavailable(reason).into()),
    };
    if let Some(message) = problem {
        return Err(Refusal::field(field, Problem::msg(message)).into());
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
