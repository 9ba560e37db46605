//! The belowThreshold state machine: transitions by date (`next_check`) and awarding.

use super::auction::{self, AuctionCalendar};
use super::live;
use super::lots::{LotRef, Offer};
use crate::domain::Change;
use crate::domain::records::award::{Award, AwardStatus};
use crate::domain::records::bid::BidStatus;
use crate::domain::records::lot::LotStatus;
use crate::domain::records::tender::{Tender, TenderStatus};
use crate::domain::values::time::{Timestamp, Zone};

/// The accelerator N of `procurementMethodDetails: "quick, accelerator=N"`; it must follow
/// at least one other character, as upstream matched it.
pub fn accelerator(tender: &Tender) -> Option<u32> {
    let details = tender.procurement_method_details.as_deref()?;
    let at = details.find("accelerator=").filter(|i| *i > 0)?;
    let digits: String = details[at + "accelerator=".len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok().filter(|n| *n > 0)
}

/// How a sandbox tender's auction runs, by upstream's `submissionMethodDetails`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuctionMode {
    /// On the calendar: the next working day's slots.
    Scheduled,
    /// `quick`: soon after tendering, on upstream's quick plan (12 to 27 minutes after it).
    Quick,
    /// `quick(mode:no-auction)`: none at all; qualification follows tendering on the sealed
    /// bids, and no auction address exists.
    NoAuction,
    /// `quick(mode:fast-forward)`: settled the moment tendering ends on the sealed bids; its
    /// addresses show the finished auction.
    FastForward,
}

impl AuctionMode {
    /// The mode a tender asked for. The field stays free text, as upstream kept it: a mode is
    /// read from its end, and any other text with `quick` in it is plain quick.
    pub fn of(tender: &Tender) -> AuctionMode {
        let details = tender.submission_method_details.as_deref().unwrap_or("");
        if !details.contains("quick") {
            AuctionMode::Scheduled
        } else if details.ends_with("(mode:no-auction)") {
            AuctionMode::NoAuction
        } else if details.ends_with("(mode:fast-forward)") {
            AuctionMode::FastForward
        } else {
            AuctionMode::Quick
        }
    }

    /// The auction is not planned on the calendar's slots.
    pub fn quick(self) -> bool {
        self != AuctionMode::Scheduled
    }
}

impl Tender {
    /// The next moment a transition by date is due, or none: the tender's own, or an
    /// answered claim's at the end of its stand-still.
    pub fn compute_next_check(&self, now: Timestamp) -> Option<Timestamp> {
        let own = self.status_due(now);
        if self.status.is_terminal() || self.status == TenderStatus::Draft {
            return own;
        }
        match (own, self.claims_due()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The next moment the tender's status is due to move: the tendering dates, an auction
    /// starting or ending, or a lot settling after its stand-still.
    fn status_due(&self, now: Timestamp) -> Option<Timestamp> {
        let period = &self.terms;
        match self.status {
            TenderStatus::ActiveEnquiries => period
                .tender_period
                .start_date
                .or(period.enquiry_period.end_date),
            TenderStatus::ActiveTendering => period.tender_period.end_date,
            TenderStatus::ActiveAuction => self
                .active_lots()
                .iter()
                .filter_map(|lot| {
                    let (auction, _) = self.auction_of(lot);
                    match (auction.start_date, auction.end_date) {
                        (Some(start), None) if now < start => Some(start),
                        (Some(_), None) => auction.planned_end,
                        _ => None,
                    }
                })
                .min(),
            TenderStatus::ActiveQualification | TenderStatus::ActiveAwarded => self
                .active_lots()
                .iter()
                .filter_map(|lot| self.lot_settles_at(lot))
                .min(),
            _ => None,
        }
    }

    /// The lots whose auction is running or waiting to start.
    fn auctions_pending(&self) -> Vec<LotRef> {
        self.active_lots()
            .into_iter()
            .filter(|lot| {
                let (auction, _) = self.auction_of(lot);
                auction.start_date.is_some() && auction.end_date.is_none()
            })
            .collect()
    }
}

/// Applies every transition that is due at `now`, each at the moment it fell due, so a
/// clock that jumps ahead still leaves a true timeline. Returns whether the tender changed.
pub fn advance(
    tender: &mut Tender,
    now: Timestamp,
    zone: &Zone,
    calendar: &mut AuctionCalendar,
) -> Change {
    let mut change = Change::None;
    // A move that an answered claim held back happens when the claim settled, not before.
    let mut held_until: Option<Timestamp> = None;
    // Each step settles claims or moves the tender forward, so a few rounds settle it.
    for _ in 0..64 {
        let due = match tender.compute_next_check(now) {
            Some(due) if due <= now => due,
            _ => break,
        };
        if tender.claims_due().is_some_and(|c| c <= due) {
            tender.settle_answered_claims(due);
            held_until = Some(due);
            change = Change::Public;
            continue;
        }
        let due = held_until.map_or(due, |h| h.max(due));
        let before = tender.status;
        match tender.status {
            TenderStatus::ActiveEnquiries => start_tendering(tender, due, zone, calendar),
            TenderStatus::ActiveTendering => end_tendering(tender, due),
            TenderStatus::ActiveAuction => {
                // The auction that ends first, if it has ended; one that only started shows
                // nothing until it ends.
                let ended = tender
                    .auctions_pending()
                    .into_iter()
                    .filter_map(|lot| Some((tender.auction_of(&lot).0.planned_end?, lot)))
                    .filter(|(end, _)| *end <= now)
                    .min_by_key(|(end, _)| *end);
                match ended {
                    Some((end, lot)) => finish_auction(tender, &lot, end),
                    None => break,
                }
                change = Change::Public;
            }
            TenderStatus::ActiveQualification | TenderStatus::ActiveAwarded => {
                let settling = tender
                    .active_lots()
                    .into_iter()
                    .find(|lot| tender.lot_settles_at(lot).is_some_and(|at| at <= due));
                match settling {
                    Some(lot) => tender.set_lot_status(&lot, LotStatus::Unsuccessful, due),
                    None => break,
                }
                change = Change::Public;
            }
            _ => break,
        }
        if tender.status != before {
            change = Change::Public;
        }
    }
    change
}

fn start_tendering(
    tender: &mut Tender,
    now: Timestamp,
    zone: &Zone,
    calendar: &mut AuctionCalendar,
) {
    tender.status = TenderStatus::ActiveTendering;
    tender.date = now;
    let Some(end) = tender.terms.tender_period.end_date else {
        return;
    };
    let mode = AuctionMode::of(tender);
    for lot in tender.active_lots() {
        let earliest = auction::should_start_after(zone, end, mode.quick());
        let (auction, _) = tender.auction_of_mut(&lot);
        auction.should_start_after = Some(earliest);
        auction.start_date = Some(match mode {
            AuctionMode::Scheduled => calendar.plan(zone, earliest),
            // Planned now, once its earliest start is known: `now` is the moment tendering
            // started, on the tender's own clock.
            AuctionMode::Quick => auction::quick_start(zone, earliest, now),
            // Settled on the sealed bids the moment tendering ends.
            AuctionMode::NoAuction | AuctionMode::FastForward => earliest,
        });
    }
}

/// Judges each lot on its offers: none, the lot is unsuccessful; one, it goes straight to
/// awarding; more, to its auction. The tender waits for the auctions, if any.
fn end_tendering(tender: &mut Tender, now: Timestamp) {
    tender.bids.retain(|b| b.status != BidStatus::Draft);
    tender.date = now;
    let mut auctions = false;
    for lot in tender.active_lots() {
        let offers = tender.offers(&lot).len();
        if offers < 2 {
            *tender.auction_of_mut(&lot).0 = Default::default();
        }
        if offers == 0 {
            tender.set_lot_status(&lot, LotStatus::Unsuccessful, now);
        } else if offers > 1 {
            match AuctionMode::of(tender) {
                AuctionMode::NoAuction => settle_at_once(tender, &lot, now),
                AuctionMode::FastForward => {
                    tender.open_auction(&lot, false);
                    settle_at_once(tender, &lot, now);
                }
                // Live, in real time: upstream's phases were never accelerated.
                AuctionMode::Scheduled | AuctionMode::Quick => {
                    auctions = true;
                    tender.open_auction(&lot, true);
                    let (period, _) = tender.auction_of_mut(&lot);
                    period.planned_end = period.start_date.map(|s| s.plus(live::length(offers)));
                }
            }
        }
    }
    if tender.status.is_terminal() {
        return;
    }
    if auctions {
        tender.status = TenderStatus::ActiveAuction;
    } else {
        add_next_award(tender, now);
    }
}

/// A sandbox auction that takes no time: it starts and ends when tendering does, on the
/// sealed bids.
fn settle_at_once(tender: &mut Tender, lot: &LotRef, now: Timestamp) {
    let (period, _) = tender.auction_of_mut(lot);
    period.start_date = Some(now);
    period.end_date = Some(now);
    period.should_start_after = None;
    period.planned_end = None;
}

/// A lot's auction ends: each bidder's amount as the auction left it is written back into
/// its offer, dated by its last accepted post (as upstream's auction reported its results);
/// awarding starts once every auction has ended.
fn finish_auction(tender: &mut Tender, lot: &LotRef, now: Timestamp) {
    let (period, _) = tender.auction_of_mut(lot);
    period.end_date = Some(now);
    period.should_start_after = None;
    let results = match (&period.live, period.start_date) {
        (Some(live), Some(start)) => live
            .bidders
            .iter()
            .map(|b| b.bid_id.to_string())
            .zip(live.results(start))
            .collect(),
        _ => Vec::new(),
    };
    for (bid_id, (amount, date)) in results {
        tender.settle_offer(lot, &bid_id, amount, date);
    }
    award_when_auctions_are_over(tender, now);
}

/// Starts awarding once no active lot waits for its auction.
pub fn award_when_auctions_are_over(tender: &mut Tender, now: Timestamp) {
    if tender.auctions_pending().is_empty() {
        add_next_award(tender, now);
    }
}

/// Awards, on each active lot, the best offer whose bid has no refused award on the lot,
/// unless an award of the lot is already pending or active; then puts the tender in
/// qualification (an award is pending) or awarded (none is).
pub fn add_next_award(tender: &mut Tender, now: Timestamp) {
    for lot in tender.active_lots() {
        let open = tender
            .awards_of(&lot)
            .last()
            .is_some_and(|a| matches!(a.status, AwardStatus::Pending | AwardStatus::Active));
        if open {
            continue;
        }
        let refused: Vec<&str> = tender
            .awards_of(&lot)
            .filter(|a| a.status == AwardStatus::Unsuccessful)
            .map(|a| a.bid_id.as_str())
            .collect();
        let candidates: Vec<Offer> = tender
            .offers(&lot)
            .into_iter()
            .filter(|o| !refused.contains(&o.bid.id.as_str()))
            .collect();
        let best = auction::ranking(candidates, &tender.features_of(&lot))
            .first()
            .map(|o| (o.bid.id.clone(), o.value.clone(), o.bid.tenderers.clone()));
        if let Some((bid_id, value, suppliers)) = best {
            tender
                .awards
                .push(Award::new(bid_id, lot.clone(), value, suppliers, now));
            let period = tender.award_period.get_or_insert_with(Default::default);
            period.start_date = period.start_date.or(Some(now));
        }
    }
    let pending = tender.active_lots().iter().any(|lot| {
        tender
            .awards_of(lot)
            .last()
            .is_some_and(|a| a.status == AwardStatus::Pending)
    });
    let period = tender.award_period.get_or_insert_with(Default::default);
    if pending {
        period.end_date = None;
        tender.status = TenderStatus::ActiveQualification;
    } else {
        period.end_date = Some(now);
        tender.status = TenderStatus::ActiveAwarded;
    }
    tender.date = now;
}
