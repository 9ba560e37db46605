//! Upstream's sandbox acceleration: the fields every tender of the run carries so that the
//! durations the target computes (stand-stills, complaint periods) pass N times faster and the
//! auction follows tendering soon (held live at its real length, or settled at once where a
//! scenario holds no live auction), and the probe that finds out, from a tender's announced
//! dates, whether the target takes them.
use std::time::Instant;

use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::{exchange::bodies::Fakes, exchange::timestamps, target::Target, world::short};

/// The auction held live, at its real length (upstream never accelerated its phases).
pub const LIVE: &str = "quick";
/// The auction settled the moment tendering ends, on the sealed bids.
pub const FAST_FORWARD: &str = "quick(mode:fast-forward)";

/// The two fields, as upstream's sandbox and robot_tests wrote them, with the auction mode
/// `submission` ([`LIVE`] or [`FAST_FORWARD`]).
pub fn sandbox_fields(factor: u32, submission: &str) -> [(&'static str, String); 2] {
    [
        (
            "procurementMethodDetails",
            format!("quick, accelerator={factor}"),
        ),
        ("submissionMethodDetails", submission.to_owned()),
    ]
}

/// An auction planned within this long after the tendering ends was brought forward: an
/// unaccelerated one waits for a slot on a later day.
const QUICK_AUCTION_LEAD: Duration = Duration::hours(1);

/// What the run knows about acceleration on its target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Acceleration {
    /// None was asked for.
    Off,
    /// The target has a clock control API: time is moved, so the factor asked for is not used.
    NotNeeded { factor: u32 },
    /// The target took the fields: every tender the run creates carries them. With
    /// `fast_forward`, a scenario that holds no live auction (not tagged `@live-auction`) asks
    /// for its auction to be settled at once, so that it never waits for a live one.
    On {
        factor: u32,
        evidence: String,
        fast_forward: bool,
    },
    /// The target refused or dropped the fields: tenders go without them.
    Refused { factor: u32, why: String },
}

impl Acceleration {
    /// The factor in use, when tenders carry the fields.
    pub fn factor(&self) -> Option<u32> {
        match self {
            Acceleration::On { factor, .. } => Some(*factor),
            _ => None,
        }
    }

    /// One sentence for the terminal and the certificate.
    pub fn describe(&self) -> String {
        match self {
            Acceleration::Off => "none asked for".to_owned(),
            Acceleration::NotNeeded { factor } => format!(
                "accelerator {factor} not used: time is moved through the clock control API"
            ),
            Acceleration::On {
                factor,
                evidence,
                fast_forward,
            } => {
                let auctions = if *fast_forward {
                    format!(
                        "; `{FAST_FORWARD}` unless the scenario holds a live auction (@live-auction)"
                    )
                } else {
                    format!("; `{FAST_FORWARD}` refused, so every auction is held live")
                };
                format!("`quick, accelerator={factor}` on every tender: {evidence}{auctions}")
            }
            Acceleration::Refused { factor, why } => {
                format!("accelerator {factor} asked for, not used: {why}")
            }
        }
    }

    /// Adds the sandbox fields to a tender creation body that does not set them itself; `live`
    /// when the scenario holds a live auction.
    pub fn add_to(&self, body: &mut Value, live: bool) {
        let Acceleration::On {
            factor,
            fast_forward,
            ..
        } = self
        else {
            return;
        };
        let Some(data) = body.get_mut("data").and_then(Value::as_object_mut) else {
            return;
        };
        let submission = if live || !fast_forward {
            LIVE
        } else {
            FAST_FORWARD
        };
        for (name, value) in sandbox_fields(*factor, submission) {
            data.entry(name).or_insert(json!(value));
        }
    }
}

/// Creates one tender with the sandbox fields and reads back what the target made of them:
/// refused, dropped, or stored; and once its tendering starts, whether its auction was
/// brought forward to the end of tendering. The fast-forward mode is tried first; a target
/// that refuses or drops it is probed again with plain `quick`.
pub async fn probe(target: &Target, factor: u32) -> Acceleration {
    match probe_with(target, factor, FAST_FORWARD).await {
        Acceleration::Refused { .. } => match probe_with(target, factor, LIVE).await {
            Acceleration::On {
                factor, evidence, ..
            } => Acceleration::On {
                factor,
                evidence,
                fast_forward: false,
            },
            other => other,
        },
        on => on,
    }
}

async fn probe_with(target: &Target, factor: u32, submission: &str) -> Acceleration {
    let refused = |why: String| Acceleration::Refused { factor, why };
    let now = match target.now().await {
        Ok(now) => now,
        Err(e) => return refused(format!("the target's time could not be read: {e}")),
    };
    let step = Duration::try_from(target.period).unwrap_or(Duration::seconds(4));
    let enquiry_end = now + Duration::seconds(2);
    let tender_end = enquiry_end + step;
    let dates = [enquiry_end, tender_end, tender_end + Duration::days(60)].map(timestamps::format);
    let mut body = Fakes::new(target.seed).tender(&dates[0], &dates[1], &dates[2]);
    let fields = sandbox_fields(factor, submission);
    for (name, value) in &fields {
        body["data"][*name] = json!(value);
    }
    let created = match send(
        target,
        reqwest::Method::POST,
        "/api/2.3/tenders",
        Some(&body),
    )
    .await
    {
        Ok((201, created)) => created,
        Ok((status, answer)) => {
            return refused(format!(
                "a tender with the sandbox fields was answered {status}: {}",
                short(&answer.to_string())
            ));
        }
        Err(e) => return refused(format!("a tender with the sandbox fields: {e}")),
    };
    let data = &created["data"];
    if let Some((name, _)) = fields.iter().find(|(name, value)| data[*name] != *value) {
        return refused(format!(
            "a tender created with them shows {name} as {}",
            data[*name]
        ));
    }
    let id = data["id"].as_str().unwrap_or_default().to_owned();
    let evidence = match auction_lead(target, &id, tender_end).await {
        Some(Ok(lead)) if lead <= QUICK_AUCTION_LEAD => format!(
            "taken and applied (a probe tender's auction was planned {} s after its tendering ends)",
            lead.whole_seconds()
        ),
        Some(Ok(lead)) => format!(
            "taken, but a probe tender's auction was still planned {} h after its tendering ends",
            lead.whole_hours()
        ),
        Some(Err(e)) => format!("taken (the probe tender's auction plan: {e})"),
        None => "taken (the probe tender did not start tendering within the time budget)".into(),
    };
    Acceleration::On {
        factor,
        evidence,
        fast_forward: submission == FAST_FORWARD,
    }
}

/// How long after the tendering ends the probe tender's auction is planned, read once its
/// tendering has started; `None` when it does not start within the budget.
async fn auction_lead(
    target: &Target,
    id: &str,
    tender_end: OffsetDateTime,
) -> Option<Result<Duration, String>> {
    let started = Instant::now();
    let path = format!("/api/2.3/tenders/{id}");
    while started.elapsed() < target.wait_budget {
        let (status, body) = match send(target, reqwest::Method::GET, &path, None).await {
            Ok(answer) => answer,
            Err(e) => return Some(Err(e)),
        };
        let data = &body["data"];
        if status == 200 && data["status"] != "active.enquiries" {
            let start = data
                .pointer("/auctionPeriod/startDate")
                .or_else(|| data.pointer("/auctionPeriod/shouldStartAfter"))
                .and_then(Value::as_str)
                .and_then(timestamps::parse);
            let end = data
                .pointer("/tenderPeriod/endDate")
                .and_then(Value::as_str)
                .and_then(timestamps::parse)
                .unwrap_or(tender_end);
            return Some(
                start
                    .map(|start| start - end)
                    .ok_or_else(|| format!("no auctionPeriod in status {}", data["status"])),
            );
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    None
}

/// One request as the owner broker; the status and the body as JSON (`Null` when not JSON).
async fn send(
    target: &Target,
    method: reqwest::Method,
    path: &str,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let mut request = target
        .client
        .request(method, target.url(path))
        .basic_auth(&target.owner.name, Some(&target.owner.password));
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let text = response.text().await.map_err(|e| e.to_string())?;
    Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_are_added_only_when_on_and_never_over_a_scenarios_own() {
        let on = Acceleration::On {
            factor: 86400,
            evidence: String::new(),
            fast_forward: true,
        };
        let mut body =
            json!({"data": {"title": "t", "submissionMethodDetails": "quick(mode:no-auction)"}});
        on.add_to(&mut body, false);
        assert_eq!(
            body["data"]["procurementMethodDetails"],
            "quick, accelerator=86400"
        );
        assert_eq!(
            body["data"]["submissionMethodDetails"],
            "quick(mode:no-auction)"
        );

        let mut plain = json!({"data": {"title": "t"}});
        Acceleration::Refused {
            factor: 86400,
            why: String::new(),
        }
        .add_to(&mut plain, false);
        Acceleration::NotNeeded { factor: 86400 }.add_to(&mut plain, false);
        assert_eq!(plain, json!({"data": {"title": "t"}}));

        let mut not_an_object = json!({"data": [1]});
        on.add_to(&mut not_an_object, false);
        assert_eq!(not_an_object, json!({"data": [1]}));
    }

    #[test]
    fn a_scenario_without_a_live_auction_asks_for_fast_forward_where_the_target_takes_it() {
        let mode = |fast_forward: bool, live: bool| {
            let mut body = json!({"data": {"title": "t"}});
            Acceleration::On {
                factor: 1440,
                evidence: String::new(),
                fast_forward,
            }
            .add_to(&mut body, live);
            body["data"]["submissionMethodDetails"].clone()
        };
        assert_eq!(mode(true, false), FAST_FORWARD);
        assert_eq!(mode(true, true), LIVE);
        assert_eq!(mode(false, false), LIVE, "the fallback when refused");
        assert_eq!(mode(false, true), LIVE);
    }
}
