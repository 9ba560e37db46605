//! The lots of a tender as the lifecycle sees them: each is judged on its own offers,
//! auctioned, awarded and settled. A tender without lots is one implicit lot, named `None`,
//! whose offers are the bids' values, whose auction is the tender's and whose status is read
//! from the tender's; it never shows in the output.

use super::live::{self, LiveAuction};
use crate::domain::records::award::{Award, AwardStatus};
use crate::domain::records::bid::{Bid, BidStatus};
use crate::domain::records::lot::LotStatus;
use crate::domain::records::tender::{AuctionPeriod, Tender, TenderStatus};
use crate::domain::records::tender_contract::ContractStatus;
use crate::domain::values::ids;
use crate::domain::values::item::{Feature, Item};
use crate::domain::values::money::Money;
use crate::domain::values::time::Timestamp;
use std::sync::Arc;

/// A lot of a tender: `Some(lot id)`, or `None` for the implicit lot of a tender without lots.
pub type LotRef = Option<String>;

/// A bid's offer on one lot.
#[derive(Debug, Clone, Copy)]
pub struct Offer<'a> {
    pub bid: &'a Bid,
    pub value: &'a Money,
    /// When the offer was made or its amount last changed; ties go to the earlier.
    pub date: Timestamp,
}

impl Tender {
    pub fn lot_ids(&self) -> Vec<&str> {
        self.lots.iter().map(|l| l.id.as_str()).collect()
    }

    /// Every lot of the tender, the implicit one when it has none.
    pub fn lot_refs(&self) -> Vec<LotRef> {
        if self.lots.is_empty() {
            vec![None]
        } else {
            self.lots.iter().map(|l| Some(l.id.clone())).collect()
        }
    }

    /// The lots still active.
    pub fn active_lots(&self) -> Vec<LotRef> {
        self.lot_refs()
            .into_iter()
            .filter(|l| self.lot_status(l) == LotStatus::Active)
            .collect()
    }

    /// A lot's status; the implicit lot's is the tender's once it has ended.
    pub fn lot_status(&self, lot: &LotRef) -> LotStatus {
        match lot {
            Some(id) => self
                .lots
                .iter()
                .find(|l| &l.id == id)
                .map_or(LotStatus::Active, |l| l.status),
            None => match self.status {
                TenderStatus::Complete => LotStatus::Complete,
                TenderStatus::Unsuccessful => LotStatus::Unsuccessful,
                TenderStatus::Cancelled => LotStatus::Cancelled,
                _ => LotStatus::Active,
            },
        }
    }

    /// The active bids' offers on a lot, in the order the bids came.
    pub fn offers(&self, lot: &LotRef) -> Vec<Offer<'_>> {
        let active = self.bids.iter().filter(|b| b.status == BidStatus::Active);
        match lot {
            None => active
                .filter_map(|bid| {
                    bid.value.as_ref().map(|value| Offer {
                        bid,
                        value,
                        date: bid.date,
                    })
                })
                .collect(),
            Some(id) => active
                .filter_map(|bid| {
                    let lv = bid.lot_values.iter().find(|v| &v.related_lot == id)?;
                    Some(Offer {
                        bid,
                        value: &lv.value,
                        date: lv.date,
                    })
                })
                .collect(),
        }
    }

    /// The features that weigh on offers for the given lots: the tenderer's, those of the
    /// lots and those of their items (every feature in a tender without lots).
    pub fn features_of_lots(&self, lots: &[&str]) -> Vec<Feature> {
        if self.lots.is_empty() {
            return self.terms.features.clone();
        }
        let items_of_lots: Vec<&str> = self
            .terms
            .items
            .iter()
            .filter(|i| i.related_lot.as_deref().is_some_and(|l| lots.contains(&l)))
            .map(|i| i.id.as_str())
            .collect();
        self.terms
            .features
            .iter()
            .filter(|f| {
                let related = f.related_item.as_deref().unwrap_or_default();
                match f.feature_of.as_str() {
                    "lot" => lots.contains(&related),
                    "item" => items_of_lots.contains(&related),
                    _ => true,
                }
            })
            .cloned()
            .collect()
    }

    pub fn features_of(&self, lot: &LotRef) -> Vec<Feature> {
        self.features_of_lots(lot.as_deref().as_slice())
    }

    /// The items a contract of the lot delivers.
    pub fn items_of(&self, lot: &LotRef) -> Vec<Item> {
        self.terms
            .items
            .iter()
            .filter(|i| lot.is_none() || i.related_lot.as_deref() == lot.as_deref())
            .cloned()
            .collect()
    }

    pub fn awards_of<'a>(&'a self, lot: &'a LotRef) -> impl Iterator<Item = &'a Award> + 'a {
        self.awards.iter().filter(move |a| &a.lot_id == lot)
    }

    /// The lot's auction: its period and address.
    pub fn auction_of(&self, lot: &LotRef) -> (&AuctionPeriod, Option<&str>) {
        match lot
            .as_ref()
            .and_then(|id| self.lots.iter().find(|l| &l.id == id))
        {
            Some(l) => (&l.auction_period, l.auction_url.as_deref()),
            None => (&self.auction_period, self.auction_url.as_deref()),
        }
    }

    pub fn auction_of_mut(&mut self, lot: &LotRef) -> (&mut AuctionPeriod, &mut Option<String>) {
        let index = lot
            .as_ref()
            .and_then(|id| self.lots.iter().position(|l| &l.id == id));
        match index {
            Some(i) => {
                let l = &mut self.lots[i];
                (&mut l.auction_period, &mut l.auction_url)
            }
            None => (&mut self.auction_period, &mut self.auction_url),
        }
    }

    /// Opens the lot's auction: its address and each offer's participation address; a live
    /// auction (`live`) also takes its bidders, each with the secret its address carries.
    pub fn open_auction(&mut self, lot: &LotRef, live: bool) {
        let url = match lot {
            None => format!("{}/auctions/{}", self.origin, self.id),
            Some(id) => format!("{}/auctions/{}_{id}", self.origin, self.id),
        };
        let auction = live.then(|| self.live_auction(lot));
        let bidders: Vec<String> = self.offers(lot).iter().map(|o| o.bid.id.clone()).collect();
        for bid in self.bids.iter_mut().filter(|b| bidders.contains(&b.id)) {
            let bid = Arc::make_mut(bid);
            let secret = auction
                .as_ref()
                .and_then(|a| a.bidders.iter().find(|b| b.bid_id == bid.id))
                .map(|b| format!("&hash={}", b.secret))
                .unwrap_or_default();
            let address = Some(format!("{url}?key_for_bid={}{secret}", bid.id));
            match lot {
                None => bid.participation_url = address,
                Some(id) => {
                    if let Some(lv) = bid.lot_values.iter_mut().find(|v| &v.related_lot == id) {
                        lv.participation_url = address;
                    }
                }
            }
        }
        let (period, address) = self.auction_of_mut(lot);
        *address = Some(url);
        period.live = auction.map(Box::new);
    }

    /// An offer as its lot's auction left it: its amount and when it was last lowered.
    pub fn settle_offer(&mut self, lot: &LotRef, bid_id: &str, amount: f64, date: Timestamp) {
        let Some(bid) = self.bids.iter_mut().find(|b| b.id == bid_id) else {
            return;
        };
        let bid = Arc::make_mut(bid);
        match lot {
            None => {
                if let Some(value) = &mut bid.value {
                    value.amount = amount;
                }
                bid.date = date;
            }
            Some(id) => {
                if let Some(lv) = bid.lot_values.iter_mut().find(|v| &v.related_lot == id) {
                    lv.value.amount = amount;
                    lv.date = date;
                }
            }
        }
    }

    /// A bidder's post in its turn of the lot's live auction, at `now`: checked as upstream's
    /// auction checked it, kept private until the turn ends. Bid activity stays out of the
    /// feed until the results are written back.
    pub fn post_to_auction(
        &mut self,
        lot: &LotRef,
        bid_id: &str,
        amount: Option<f64>,
        now: Timestamp,
    ) -> Result<crate::domain::Change, crate::domain::Refusal> {
        use crate::domain::Refusal;
        use crate::domain::values::parse::Problem;
        let step = self.minimal_step_of(lot);
        let (period, _) = self.auction_of_mut(lot);
        let start = period.start_date;
        let (Some(auction), Some(start)) = (period.live.as_deref_mut(), start) else {
            return Err(Refusal::NotFound("auction"));
        };
        let place = auction.place(bid_id).ok_or(Refusal::Forbidden {
            location: "url",
            name: "permission",
            description: "Forbidden".into(),
        })?;
        let refused = |r: live::Refused| match r {
            live::Refused::NotForBidding | live::Refused::NotValidBidder => Refusal::Forbidden {
                location: "body",
                name: "bid",
                description: r.message().into(),
            },
            _ => Refusal::field("bid", Problem::msg(r.message())),
        };
        let stage = auction
            .check_post(start, now, place, amount, step)
            .map_err(refused)?;
        auction.posts.push(live::Post {
            bid_id: bid_id.into(),
            stage,
            amount: amount.unwrap_or_default(),
            at: now,
        });
        Ok(crate::domain::Change::Silent)
    }

    /// The minimal step of a lot (the tender's for the implicit lot).
    pub fn minimal_step_of(&self, lot: &LotRef) -> f64 {
        lot.as_ref()
            .and_then(|id| self.lots.iter().find(|l| &l.id == id))
            .map_or(self.terms.minimal_step.amount, |l| {
                l.terms.minimal_step.amount
            })
    }

    /// The live auction of a lot's offers: each bidder with its offer, its weight from the
    /// features that weigh on the lot, and a secret of its own.
    fn live_auction(&self, lot: &LotRef) -> LiveAuction {
        let features = self.features_of(lot);
        let scale = |v: f64| (v * live::WEIGHT_SCALE as f64).round() as i64;
        let most = scale(features.iter().map(Feature::max_value).sum());
        let bidders = self
            .offers(lot)
            .into_iter()
            .map(|o| live::Bidder {
                bid_id: o.bid.id.as_str().into(),
                amount: o.value.amount,
                date: o.date,
                weight: live::WEIGHT_SCALE - most + scale(super::auction::answered(&o, &features)),
                secret: ids::new_id().into(),
            })
            .collect();
        LiveAuction {
            base: live::WEIGHT_SCALE - most,
            bidders,
            posts: Vec::new(),
        }
    }

    /// Moves a lot on: a real lot takes the status and the tender follows its lots; the
    /// implicit lot's end is the tender's.
    pub fn set_lot_status(&mut self, lot: &LotRef, status: LotStatus, at: Timestamp) {
        match lot
            .as_ref()
            .and_then(|id| self.lots.iter_mut().find(|l| &l.id == id))
        {
            Some(l) => {
                l.status = status;
                l.date = at;
                self.conclude(at);
            }
            None => match status {
                LotStatus::Active => {}
                LotStatus::Complete => self.end(TenderStatus::Complete, at),
                LotStatus::Unsuccessful => self.end(TenderStatus::Unsuccessful, at),
                LotStatus::Cancelled => self.end(TenderStatus::Cancelled, at),
            },
        }
        self.ignore_claims();
    }

    /// The tender's status from its lots' once none is active: every lot cancelled, it is
    /// cancelled; none complete, unsuccessful; else complete.
    fn conclude(&mut self, at: Timestamp) {
        let statuses: Vec<LotStatus> = self.lots.iter().map(|l| l.status).collect();
        if statuses.contains(&LotStatus::Active) || self.status.is_terminal() {
            return;
        }
        let status = if statuses.iter().all(|s| *s == LotStatus::Cancelled) {
            TenderStatus::Cancelled
        } else if statuses.contains(&LotStatus::Complete) {
            TenderStatus::Complete
        } else {
            TenderStatus::Unsuccessful
        };
        self.end(status, at);
    }

    /// The tender ends: a cancelled one loses the bids not yet revealed, a completed one
    /// closes its award period; unanswered claims are ignored.
    pub fn end(&mut self, status: TenderStatus, at: Timestamp) {
        if status == TenderStatus::Cancelled
            && matches!(
                self.status,
                TenderStatus::ActiveTendering | TenderStatus::ActiveAuction
            )
        {
            self.bids.clear();
        }
        if status == TenderStatus::Complete
            && let Some(period) = &mut self.award_period
        {
            period.end_date = period.end_date.or(Some(at));
        }
        self.status = status;
        self.date = at;
        self.ignore_claims();
    }

    /// When an active lot settles by date: its last award was refused, nothing blocks it and
    /// the stand-stills of its awards are over.
    pub fn lot_settles_at(&self, lot: &LotRef) -> Option<Timestamp> {
        let last_refused = self
            .awards_of(lot)
            .last()
            .is_some_and(|a| a.status == AwardStatus::Unsuccessful);
        if !last_refused || self.lot_blocked(lot) {
            return None;
        }
        self.awards_of(lot)
            .filter_map(|a| a.complaint_period.end_date)
            .max()
    }

    /// Whether the lot is done: its last award is active with a signed contract.
    pub fn lot_fulfilled(&self, lot: &LotRef) -> bool {
        self.awards_of(lot).last().is_some_and(|a| {
            a.status == AwardStatus::Active
                && self
                    .contracts
                    .iter()
                    .any(|c| c.award_id == a.id && c.status == ContractStatus::Active)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::input::Input;
    use crate::domain::parse::Sent;
    use crate::domain::records::tender::tests::published;

    #[test]
    fn a_tender_without_lots_is_one_implicit_lot_that_ends_as_the_tender() {
        let (mut t, _, now) = published();
        assert_eq!(t.lot_refs(), vec![None]);
        assert_eq!(t.lot_status(&None), LotStatus::Active);
        t.set_lot_status(&None, LotStatus::Unsuccessful, now);
        assert_eq!(t.status, TenderStatus::Unsuccessful);
        assert_eq!(t.lot_status(&None), LotStatus::Unsuccessful);
    }

    #[test]
    fn a_tender_with_lots_follows_them_once_none_is_active() {
        let (mut t, cx, now) = published();
        let lot = |id: &str| serde_json::json!({"id": id, "title": "Л", "value": {"amount": 10}, "minimalStep": {"amount": 1}});
        let a = t
            .add_lot(&Sent {
                data: &Input::view(&lot(&"a".repeat(32))),
                cx: &cx,
                now,
            })
            .expect("added");
        let b = t
            .add_lot(&Sent {
                data: &Input::view(&lot(&"b".repeat(32))),
                cx: &cx,
                now,
            })
            .expect("added");
        assert_eq!(t.terms.value.amount, 20.0, "the value sums the lots");
        t.set_lot_status(&Some(a), LotStatus::Unsuccessful, now);
        assert_eq!(t.status, TenderStatus::ActiveEnquiries, "lot b is active");
        t.set_lot_status(&Some(b.clone()), LotStatus::Cancelled, now);
        assert_eq!(t.status, TenderStatus::Unsuccessful);
        assert_eq!(t.lot_status(&Some(b)), LotStatus::Cancelled);
    }
}
