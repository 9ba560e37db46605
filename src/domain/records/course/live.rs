//! The live auction of a lot, as upstream's auction service ran it: from the auction's start a
//! 300 s pause, then three rounds of one 120 s turn per bidder with 120 s pauses between
//! them. In each round the bidders take their turns from the highest (normalised) amount to
//! the lowest, ties to the later bid first, so the leader bids last. In its turn a bidder may
//! post an amount at most its own amount at the start of the turn less the minimal step
//! (`-1` withdraws what it posted); the last post counts, and it is public only once the turn
//! ends. Every state is replayed from the posts kept, so however far the clock jumps the
//! stages run in order, exactly as if the time had passed.
//!
//! Amounts are compared in millionths and normalised prices by cross-multiplication, so
//! ranking and ties are exact.

use crate::domain::values::text::Text;
use crate::domain::values::time::Timestamp;
use serde::{Deserialize, Serialize};
use time::Duration;

pub const FIRST_PAUSE: Duration = Duration::seconds(300);
pub const TURN: Duration = Duration::seconds(120);
pub const PAUSE: Duration = Duration::seconds(120);
pub const ROUNDS: usize = 3;
/// The scale of feature weights: a feature value of 0.05 is 500.
pub const WEIGHT_SCALE: i64 = 10_000;

/// A post withdrawing the bidder's post of the turn.
pub const CANCEL: f64 = -1.0;

/// The length of an auction of `bidders`: to the announcement of its results.
pub fn length(bidders: usize) -> Duration {
    let n = bidders as i32;
    FIRST_PAUSE + TURN * (ROUNDS as i32 * n) + PAUSE * (ROUNDS as i32 - 1)
}

/// A bidder of the auction, as it stood when tendering ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Bidder {
    pub bid_id: Text,
    /// Its offer at the start of the auction.
    pub amount: f64,
    /// When the offer was made.
    pub date: Timestamp,
    /// `WEIGHT_SCALE` (1 − Vmax + Vn), the weight its features give it: the normalised price
    /// is `amount × (1 − Vmax) / weight`. The same for every bidder without features.
    pub weight: i64,
    /// The secret of its participation address.
    pub secret: Text,
}

/// A bidder's post in its turn (`stage` names the turn).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Post {
    pub bid_id: Text,
    pub stage: usize,
    pub amount: f64,
    pub at: Timestamp,
}

/// A lot's live auction: its bidders (in the order their bids came: a bidder's alias is its
/// place here) and every post they made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveAuction {
    /// `WEIGHT_SCALE` (1 − Vmax): a bidder's coefficient is its weight over this.
    pub base: i64,
    pub bidders: Vec<Bidder>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub posts: Vec<Post>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageKind {
    Pause,
    Bids,
    PreAnnouncement,
    Announcement,
}

impl StageKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StageKind::Pause => "pause",
            StageKind::Bids => "bids",
            StageKind::PreAnnouncement => "pre_announcement",
            StageKind::Announcement => "announcement",
        }
    }
}

/// One stage of the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    pub kind: StageKind,
    pub start: Timestamp,
    /// The round of a turn or of the pause before it (1 to 3).
    pub round: usize,
    /// Whose turn it is: a place in [`LiveAuction::bidders`].
    pub bidder: Option<usize>,
    /// The amount the bidder holds after its turn (public once the turn ended).
    pub amount: Option<f64>,
    /// When that amount was posted (its original date when it did not change).
    pub time: Option<Timestamp>,
    /// The bidder changed its amount in this turn.
    pub changed: bool,
}

/// The auction as it stands at a moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// Every stage, with the turns of rounds already ordered (later rounds once their order
    /// is known: after the round before them).
    pub stages: Vec<Stage>,
    /// The stage running (`None` before the start).
    pub current: Option<usize>,
    /// Each bidder's amount and its time, as public at this moment.
    pub amounts: Vec<(f64, Timestamp)>,
}

/// Why a post was refused: upstream's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    NotForBidding,
    NotValidBidder,
    Required,
    TooLow,
    TooHigh,
}

impl Refused {
    pub fn message(self) -> &'static str {
        match self {
            Refused::NotForBidding => "Stage not for bidding",
            Refused::NotValidBidder => "Not valid bidder",
            Refused::Required => "Bid amount is required",
            Refused::TooLow => "Too low value",
            Refused::TooHigh => "Too high value",
        }
    }
}

/// An amount in millionths, for exact comparisons.
pub fn micros(amount: f64) -> i128 {
    (amount * 1_000_000.0).round() as i128
}

impl LiveAuction {
    pub fn place(&self, bid_id: &str) -> Option<usize> {
        self.bidders.iter().position(|b| b.bid_id == bid_id)
    }

    /// Bidders from the highest normalised amount to the lowest, the later bid first among
    /// equals: the order of a round's turns.
    fn turn_order(&self, amounts: &[(f64, Timestamp)]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.bidders.len()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&self.bidders[a], &self.bidders[b]);
            // a / wa against b / wb, cross-multiplied.
            let left = micros(amounts[a].0) * i128::from(y.weight);
            let right = micros(amounts[b].0) * i128::from(x.weight);
            right.cmp(&left).then(amounts[b].1.cmp(&amounts[a].1))
        });
        order
    }

    /// The last post of `bidder` in `stage` made before `until`.
    fn last_post(&self, bidder: usize, stage: usize, until: Timestamp) -> Option<&Post> {
        let id = &self.bidders[bidder].bid_id;
        self.posts
            .iter()
            .rev()
            .find(|p| p.stage == stage && &p.bid_id == id && p.at < until)
    }

    /// The auction at `now`, for an auction starting at `start`.
    pub fn standing(&self, start: Timestamp, now: Timestamp) -> Standing {
        let n = self.bidders.len();
        let mut amounts: Vec<(f64, Timestamp)> =
            self.bidders.iter().map(|b| (b.amount, b.date)).collect();
        let mut stages = vec![Stage {
            kind: StageKind::Pause,
            start,
            round: 1,
            bidder: None,
            amount: None,
            time: None,
            changed: false,
        }];
        let mut at = start.plus(FIRST_PAUSE);
        let mut known = true;
        for round in 1..=ROUNDS {
            if round > 1 {
                stages.push(Stage {
                    kind: StageKind::Pause,
                    start: at,
                    round,
                    bidder: None,
                    amount: None,
                    time: None,
                    changed: false,
                });
                at = at.plus(PAUSE);
            }
            // A round's order is known once the round before it has ended.
            let order = known.then(|| self.turn_order(&amounts));
            for k in 0..n {
                let index = stages.len();
                let bidder = order.as_ref().map(|o| o[k]);
                let end = at.plus(TURN);
                let mut stage = Stage {
                    kind: StageKind::Bids,
                    start: at,
                    round,
                    bidder,
                    amount: None,
                    time: None,
                    changed: false,
                };
                if let Some(b) = bidder
                    && now >= end
                {
                    if let Some(post) = self.last_post(b, index, end)
                        && post.amount != CANCEL
                    {
                        amounts[b] = (post.amount, post.at);
                        stage.changed = true;
                    }
                    stage.amount = Some(amounts[b].0);
                    stage.time = Some(amounts[b].1);
                }
                stages.push(stage);
                at = end;
            }
            known = known && now >= at;
        }
        stages.push(Stage {
            kind: StageKind::PreAnnouncement,
            start: at,
            round: ROUNDS,
            bidder: None,
            amount: None,
            time: None,
            changed: false,
        });
        stages.push(Stage {
            kind: StageKind::Announcement,
            start: at,
            round: ROUNDS,
            bidder: None,
            amount: None,
            time: None,
            changed: false,
        });
        // Both announcement stages start at the end: the results are announced once due.
        let current = stages.iter().rposition(|s| s.start <= now);
        Standing {
            stages,
            current,
            amounts,
        }
    }

    /// The amounts and times the auction ends with.
    pub fn results(&self, start: Timestamp) -> Vec<(f64, Timestamp)> {
        let end = start.plus(length(self.bidders.len()));
        self.standing(start, end).amounts
    }

    /// Checks a post of `amount` by the bidder at `place`, at `now`, against the auction
    /// starting at `start` with a minimal step of `step`; answers the turn's stage.
    pub fn check_post(
        &self,
        start: Timestamp,
        now: Timestamp,
        place: usize,
        amount: Option<f64>,
        step: f64,
    ) -> Result<usize, Refused> {
        let standing = self.standing(start, now);
        let index = standing.current.ok_or(Refused::NotForBidding)?;
        let stage = &standing.stages[index];
        if stage.kind != StageKind::Bids {
            return Err(Refused::NotForBidding);
        }
        if stage.bidder != Some(place) {
            return Err(Refused::NotValidBidder);
        }
        let amount = match amount {
            Some(a) if a != 0.0 => a,
            _ => return Err(Refused::Required),
        };
        if amount == CANCEL {
            return Ok(index);
        }
        if amount <= 0.0 {
            return Err(Refused::TooLow);
        }
        // Against the bidder's own amount at the start of its turn, not its earlier posts.
        let held = standing.amounts[place].0;
        if micros(amount) > micros(held) - micros(step) {
            return Err(Refused::TooHigh);
        }
        Ok(index)
    }

    /// A bidder's amount as its normalised price: the amount over its features' coefficient
    /// (the amount itself without features).
    pub fn normalised(&self, place: usize, amount: f64) -> f64 {
        let weight = self.bidders[place].weight.max(1) as f64;
        amount * self.base as f64 / weight
    }

    /// Whether features weigh on the order: then viewers see normalised prices only.
    pub fn weighted(&self) -> bool {
        self.bidders.iter().any(|b| b.weight != self.base)
    }

    /// The most the bidder at `place` may post in the running turn.
    pub fn most(&self, standing: &Standing, place: usize, step: f64) -> f64 {
        let held = standing.amounts[place].0;
        ((micros(held) - micros(step)) as f64) / 1_000_000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::values::time::Zone;

    fn at(s: &str) -> Timestamp {
        Zone::named("Europe/Kyiv")
            .expect("zone")
            .parse(s)
            .expect("a moment")
    }

    fn auction(offers: &[(f64, &str, i64)]) -> LiveAuction {
        LiveAuction {
            base: 9_000,
            bidders: offers
                .iter()
                .enumerate()
                .map(|(i, (amount, date, weight))| Bidder {
                    bid_id: format!("b{i}").into(),
                    amount: *amount,
                    date: at(date),
                    weight: *weight,
                    secret: "s".into(),
                })
                .collect(),
            posts: Vec::new(),
        }
    }

    const START: &str = "2026-11-30T11:00";

    #[test]
    fn the_timeline_is_upstream_s() {
        let a = auction(&[
            (500.0, "2026-11-23T10:00", 1),
            (480.0, "2026-11-23T11:00", 1),
        ]);
        assert_eq!(length(2), Duration::seconds(1260));
        let s = a.standing(at(START), at(START));
        let kinds: Vec<&str> = s.stages.iter().map(|s| s.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "pause",
                "bids",
                "bids",
                "pause",
                "bids",
                "bids",
                "pause",
                "bids",
                "bids",
                "pre_announcement",
                "announcement"
            ]
        );
        let offsets: Vec<i64> = s
            .stages
            .iter()
            .map(|st| (st.start.instant() - at(START).instant()).whole_seconds())
            .collect();
        assert_eq!(
            offsets,
            [0, 300, 420, 540, 660, 780, 900, 1020, 1140, 1260, 1260]
        );
        assert_eq!(s.current, Some(0));
        assert_eq!(a.standing(at(START), at("2026-11-30T10:59")).current, None);
        // The highest amount first: b0 (500) then b1.
        assert_eq!((s.stages[1].bidder, s.stages[2].bidder), (Some(0), Some(1)));
    }

    #[test]
    fn a_post_counts_once_its_turn_ends_and_reorders_the_next_round() {
        let mut a = auction(&[
            (500.0, "2026-11-23T10:00", 1),
            (480.0, "2026-11-23T11:00", 1),
        ]);
        let start = at(START);
        // b0's turn: 11:05:00–11:07:00. It posts 470, then 460: the last counts.
        let in_turn = at("2026-11-30T11:05:30");
        assert_eq!(a.check_post(start, in_turn, 0, Some(470.0), 10.0), Ok(1));
        a.posts.push(Post {
            bid_id: "b0".into(),
            stage: 1,
            amount: 470.0,
            at: in_turn,
        });
        let later = at("2026-11-30T11:06:00");
        a.posts.push(Post {
            bid_id: "b0".into(),
            stage: 1,
            amount: 460.0,
            at: later,
        });
        let during = a.standing(start, at("2026-11-30T11:06:30"));
        assert_eq!(during.amounts[0].0, 500.0, "private until the turn ends");
        let after = a.standing(start, at("2026-11-30T11:07:00"));
        assert_eq!(after.amounts[0], (460.0, later));
        assert!(after.stages[1].changed);
        // Round 2 starts 11:11:00: b0 (460) now leads, so b1 (480) goes first.
        let round2 = a.standing(start, at("2026-11-30T11:11:00"));
        assert_eq!(
            (round2.stages[4].bidder, round2.stages[5].bidder),
            (Some(1), Some(0))
        );
        assert_eq!(a.results(start)[0], (460.0, later));
        assert_eq!(
            a.results(start)[1].0,
            480.0,
            "a bidder who posts nothing keeps its amount"
        );
    }

    #[test]
    fn posts_are_checked_in_upstream_s_order() {
        let a = auction(&[
            (500.0, "2026-11-23T10:00", 1),
            (480.0, "2026-11-23T11:00", 1),
        ]);
        let start = at(START);
        let pause = at("2026-11-30T11:01");
        assert_eq!(
            a.check_post(start, pause, 0, Some(400.0), 10.0),
            Err(Refused::NotForBidding)
        );
        let turn = at("2026-11-30T11:05:10");
        assert_eq!(
            a.check_post(start, turn, 1, Some(400.0), 10.0),
            Err(Refused::NotValidBidder)
        );
        assert_eq!(
            a.check_post(start, turn, 0, None, 10.0),
            Err(Refused::Required)
        );
        assert_eq!(
            a.check_post(start, turn, 0, Some(0.0), 10.0),
            Err(Refused::Required)
        );
        assert_eq!(
            a.check_post(start, turn, 0, Some(-5.0), 10.0),
            Err(Refused::TooLow)
        );
        assert_eq!(
            a.check_post(start, turn, 0, Some(490.01), 10.0),
            Err(Refused::TooHigh)
        );
        assert_eq!(
            a.check_post(start, turn, 0, Some(490.0), 10.0),
            Ok(1),
            "inclusive"
        );
        assert_eq!(a.check_post(start, turn, 0, Some(CANCEL), 10.0), Ok(1));
        let end = at("2026-11-30T11:21:00");
        assert_eq!(
            a.check_post(start, end, 0, Some(100.0), 10.0),
            Err(Refused::NotForBidding)
        );
    }

    #[test]
    fn a_cancelled_post_keeps_the_amount_and_ties_go_to_the_earlier_bid_last() {
        let mut a = auction(&[
            (500.0, "2026-11-23T10:00", 1),
            (500.0, "2026-11-23T11:00", 1),
        ]);
        let start = at(START);
        let s = a.standing(start, start);
        assert_eq!(
            (s.stages[1].bidder, s.stages[2].bidder),
            (Some(1), Some(0)),
            "equal amounts: the later bid first, the earlier keeps the better place"
        );
        a.posts.push(Post {
            bid_id: "b1".into(),
            stage: 1,
            amount: 450.0,
            at: at("2026-11-30T11:05:10"),
        });
        a.posts.push(Post {
            bid_id: "b1".into(),
            stage: 1,
            amount: CANCEL,
            at: at("2026-11-30T11:05:20"),
        });
        assert_eq!(a.results(start)[1].0, 500.0);
    }

    #[test]
    fn features_weigh_on_the_order_by_the_normalised_price() {
        // Vmax 0.1: b0 answered 0.1 (weight 1.0), b1 nothing (weight 0.9). 500 / 1.0 = 500
        // against 460 / 0.9 = 511.1: b1 holds the higher normalised price and goes first.
        let a = auction(&[
            (500.0, "2026-11-23T10:00", 10_000),
            (460.0, "2026-11-23T11:00", 9_000),
        ]);
        let s = a.standing(at(START), at(START));
        assert_eq!((s.stages[1].bidder, s.stages[2].bidder), (Some(1), Some(0)));
    }
}
