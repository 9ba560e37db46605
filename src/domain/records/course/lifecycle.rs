//! The belowThreshold state machine: transitions by date (`next_check`) and awarding.

use super::auction::{self, AuctionCalendar};
use crate::domain::Change;
use crate::domain::records::award::{Award, AwardStatus};
use crate::domain::records::bid::BidStatus;
use crate::domain::records::tender::{Tender, TenderStatus};
use crate::domain::values::time::{Timestamp, Zone};
use time::Duration;

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

/// `submissionMethodDetails` asking for an auction right after tendering.
pub fn quick(tender: &Tender) -> bool {
    tender
        .submission_method_details
        .as_deref()
        .is_some_and(|d| d.contains("quick"))
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

    /// The next moment the tender's status is due to move.
    fn status_due(&self, now: Timestamp) -> Option<Timestamp> {
        let period = &self.terms;
        match self.status {
            TenderStatus::ActiveEnquiries => period
                .tender_period
                .start_date
                .or(period.enquiry_period.end_date),
            TenderStatus::ActiveTendering => period.tender_period.end_date,
            TenderStatus::ActiveAuction => {
                match (self.auction_period.start_date, self.auction_period.end_date) {
                    (Some(start), None) if now < start => Some(start),
                    (Some(_), None) => self.auction_end(),
                    _ => None,
                }
            }
            TenderStatus::ActiveAwarded => {
                let last_unsuccessful = self
                    .awards
                    .last()
                    .is_some_and(|a| a.status == AwardStatus::Unsuccessful);
                // An answered claim holds the tender open until it is settled.
                if last_unsuccessful && !self.has_blocking_complaints() {
                    self.awards
                        .iter()
                        .filter_map(|a| a.complaint_period.end_date)
                        .max()
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// The planned end of the embedded auction.
    pub fn auction_end(&self) -> Option<Timestamp> {
        self.auction_period.planned_end
    }
}

/// Applies every transition that is due at `now`, each at the moment it fell due, so a
/// clock that jumps ahead still leaves a true timeline. `quick_auction` is the least length
/// of an accelerated auction. Returns whether the tender changed.
pub fn advance(
    tender: &mut Tender,
    now: Timestamp,
    zone: &Zone,
    calendar: &mut AuctionCalendar,
    quick_auction: Duration,
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
            TenderStatus::ActiveTendering => end_tendering(tender, due, quick_auction),
            TenderStatus::ActiveAuction => match tender.auction_end() {
                Some(end) if end <= now => finish_auction(tender, end),
                // The auction has started; nothing shows until it ends.
                _ => break,
            },
            TenderStatus::ActiveAwarded => {
                tender.status = TenderStatus::Unsuccessful;
                tender.date = due;
                tender.ignore_claims();
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
    if let Some(end) = tender.terms.tender_period.end_date {
        let quick = quick(tender);
        let earliest = auction::should_start_after(zone, end, quick);
        tender.auction_period.should_start_after = Some(earliest);
        tender.auction_period.start_date = Some(if quick {
            earliest
        } else {
            calendar.plan(zone, earliest)
        });
    }
}

fn end_tendering(tender: &mut Tender, now: Timestamp, quick_auction: Duration) {
    tender.bids.retain(|b| b.status != BidStatus::Draft);
    tender.date = now;
    match tender.bids.len() {
        0 => {
            tender.status = TenderStatus::Unsuccessful;
            tender.auction_period = Default::default();
            tender.ignore_claims();
        }
        1 => {
            tender.auction_period = Default::default();
            add_next_award(tender, now);
        }
        _ => {
            tender.status = TenderStatus::ActiveAuction;
            let url = format!("{}/auctions/{}", tender.origin, tender.id);
            for bid in &mut tender.bids {
                bid.participation_url = Some(format!("{url}?key_for_bid={}", bid.id));
            }
            tender.auction_url = Some(url);
            let length = auction::duration(tender.bids.len(), accelerator(tender), quick_auction);
            tender.auction_period.planned_end =
                tender.auction_period.start_date.map(|s| s.plus(length));
        }
    }
}

fn finish_auction(tender: &mut Tender, now: Timestamp) {
    tender.auction_period.end_date = Some(now);
    tender.auction_period.should_start_after = None;
    add_next_award(tender, now);
}

/// Awards the best bid that has no unsuccessful award yet, unless an award is already
/// pending or active; then puts the tender in qualification (an award is pending) or
/// awarded (none is).
pub fn add_next_award(tender: &mut Tender, now: Timestamp) {
    let open = tender
        .awards
        .last()
        .is_some_and(|a| matches!(a.status, AwardStatus::Pending | AwardStatus::Active));
    if !open {
        let refused: Vec<&str> = tender
            .awards
            .iter()
            .filter(|a| a.status == AwardStatus::Unsuccessful)
            .map(|a| a.bid_id.as_str())
            .collect();
        let candidates = tender
            .bids
            .iter()
            .filter(|b| b.status == BidStatus::Active && !refused.contains(&b.id.as_str()));
        let best = auction::ranking(candidates, &tender.terms.features)
            .first()
            .map(|b| (b.id.clone(), b.value.clone(), b.tenderers.clone()));
        if let Some((bid_id, value, suppliers)) = best {
            tender
                .awards
                .push(Award::new(bid_id, value, suppliers, now));
            let period = tender.award_period.get_or_insert_with(Default::default);
            period.start_date = period.start_date.or(Some(now));
        }
    }
    let pending = tender
        .awards
        .last()
        .is_some_and(|a| a.status == AwardStatus::Pending);
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
