//! Upstream's sandbox acceleration: the fields every tender of the run carries so that the
//! durations the target computes (stand-stills, complaint periods) pass N times faster and the
//! auction follows tendering soon (held live at its real length, or settled at once where a
//! scenario holds no live auction). Whether the target takes them is found out at the start of
//! a run, from a tender's announced dates (`probe`).

use serde_json::{Value, json};
use time::Duration;

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
pub(super) const QUICK_AUCTION_LEAD: Duration = Duration::hours(1);

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
