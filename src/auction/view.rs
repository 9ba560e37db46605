//! What the auction's pages and its JSON interface show of a lot's auction at a moment: the
//! same for every viewer (bidders by alias, amounts public once their turn ended, normalised
//! prices only while features weigh on the order), and for a participant its own turn too.
//! Real names appear once the tender is past the auction, as upstream announced them.

use crate::domain::records::course::live::{Stage, StageKind};
use crate::domain::records::course::lots::LotRef;
use crate::domain::tender::Tender;
use crate::domain::time::Timestamp;
use serde_json::{Value as Json, json};

/// A bidder's alias: upstream's "Учасник №N", N its bid's place among the auction's bids.
pub fn alias(place: usize) -> String {
    format!("Учасник №{}", place + 1)
}

fn stage_json(
    stage: &Stage,
    name: &dyn Fn(usize) -> String,
    shown: &dyn Fn(usize, f64) -> f64,
) -> Json {
    let mut s = json!({
        "type": stage.kind.as_str(),
        "start": stage.start,
        "round": stage.round,
    });
    if let Some(b) = stage.bidder {
        s["bidder"] = json!(name(b));
        s["place"] = json!(b);
    }
    if let (Some(b), Some(amount)) = (stage.bidder, stage.amount) {
        s["amount"] = json!(shown(b, amount));
        s["time"] = json!(stage.time);
        s["changed"] = json!(stage.changed);
    }
    s
}

/// The state of the lot's auction at `now`; `participant`, the place of the bidder whose
/// page asks, adds what only it may see.
pub fn state(
    tender: &Tender,
    lot: &LotRef,
    now: Timestamp,
    participant: Option<usize>,
) -> Option<Json> {
    let (period, url) = tender.auction_of(lot);
    let url = url?;
    let lot_title = lot
        .as_ref()
        .and_then(|id| tender.lot(id).ok())
        .map(|l| l.terms.title.to_string());
    let (value, step) = match lot.as_ref().and_then(|id| tender.lot(id).ok()) {
        Some(l) => (&l.terms.value, &l.terms.minimal_step),
        None => (&tender.terms.value, &tender.terms.minimal_step),
    };
    let items: Vec<Json> = tender
        .items_of(lot)
        .iter()
        .map(|i| json!({"description": i.description, "quantity": i.quantity, "unit": i.unit}))
        .collect();
    let revealed = tender.status.reveals_bids();
    let offers = tender.offers(lot);
    let mut out = json!({
        "auctionUrl": url,
        "tenderID": tender.tender_id,
        "title": tender.terms.title,
        "procuringEntity": tender.terms.procuring_entity.name,
        "items": items,
        "value": value,
        "minimalStep": step,
        "now": now,
        "startDate": period.start_date,
        "endDate": period.end_date,
        "namesRevealed": revealed,
    });
    if let Some(title) = lot_title {
        out["lot"] = json!({"title": title});
    }
    let Some(live) = period.live.as_deref() else {
        // An auction settled at once (or before the live auction existed): finished, its
        // results the offers as they stand.
        let mut ranked: Vec<(String, f64)> = offers
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let name = if revealed {
                    o.bid
                        .tenderers
                        .first()
                        .map_or_else(|| alias(i), |t| t.name.to_string())
                } else {
                    alias(i)
                };
                (name, o.value.amount)
            })
            .collect();
        ranked.sort_by(|a, b| a.1.total_cmp(&b.1).reverse());
        out["status"] = json!("finished");
        out["stage"] = json!({"type": "announcement"});
        out["results"] = json!(
            ranked
                .iter()
                .map(|(n, a)| json!({"bidder": n, "amount": a}))
                .collect::<Vec<_>>()
        );
        return Some(out);
    };
    let start = period.start_date?;
    let standing = live.standing(start, now);
    let finished = period.end_date.is_some();
    let name = |place: usize| -> String {
        if revealed {
            let bid_id = &live.bidders[place].bid_id;
            if let Some(bid) = tender.bids.iter().find(|b| &b.id == bid_id)
                && let Some(t) = bid.tenderers.first()
            {
                return t.name.to_string();
            }
        }
        if participant == Some(place) {
            return "Ви".to_string();
        }
        alias(place)
    };
    // Viewers see normalised prices while features weigh on the order; a bidder its own
    // full price.
    let hide_full = live.weighted() && !finished;
    let shown = |place: usize, amount: f64| -> f64 {
        if hide_full && participant != Some(place) {
            live.normalised(place, amount)
        } else {
            amount
        }
    };
    let stages: Vec<Json> = standing
        .stages
        .iter()
        .map(|s| stage_json(s, &name, &shown))
        .collect();
    let current = standing.current;
    let end_of = |i: usize| standing.stages.get(i + 1).map(|s| s.start);
    out["status"] = json!(if finished {
        "finished"
    } else if current.is_none() {
        "waiting"
    } else {
        "running"
    });
    out["stage"] = match current {
        None => json!({"type": "waiting", "index": -1, "end": start}),
        Some(i) => {
            let mut s = stage_json(&standing.stages[i], &name, &shown);
            s["index"] = json!(i);
            s["end"] =
                json!(end_of(i).filter(|_| standing.stages[i].kind != StageKind::Announcement));
            s
        }
    };
    out["stages"] = json!(stages);
    out["normalised"] = json!(hide_full);
    let initial: Vec<Json> = live
        .bidders
        .iter()
        .enumerate()
        .map(|(i, b)| json!({"bidder": name(i), "place": i, "amount": shown(i, b.amount), "time": b.date}))
        .collect();
    out["initial"] = json!(initial);
    // Highest first, the leader last, as upstream's possible results read.
    let mut order: Vec<usize> = (0..live.bidders.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (
            live.normalised(a, standing.amounts[a].0),
            live.normalised(b, standing.amounts[b].0),
        );
        y.total_cmp(&x)
            .then(standing.amounts[b].1.cmp(&standing.amounts[a].1))
    });
    let results: Vec<Json> = order
        .iter()
        .map(|&i| json!({"bidder": name(i), "place": i, "amount": shown(i, standing.amounts[i].0), "time": standing.amounts[i].1}))
        .collect();
    out["results"] = json!(results);
    if let Some(place) = participant {
        let mut me =
            json!({"bidder": name(place), "place": place, "bidder_id": live.bidders[place].bid_id});
        if let Some(i) = current
            && standing.stages[i].kind == StageKind::Bids
            && standing.stages[i].bidder == Some(place)
        {
            me["turn"] = json!(true);
            me["max"] = json!(live.most(&standing, place, step.amount));
            let posted = live
                .posts
                .iter()
                .rev()
                .find(|p| p.stage == i && p.bid_id == live.bidders[place].bid_id)
                .map(|p| p.amount)
                .filter(|a| *a != crate::domain::records::course::live::CANCEL);
            me["posted"] = json!(posted);
        } else {
            me["turn"] = json!(false);
            let next = standing
                .stages
                .iter()
                .enumerate()
                .skip(current.map_or(0, |c| c + 1))
                .find(|(_, s)| s.kind == StageKind::Bids && s.bidder == Some(place))
                .map(|(_, s)| s.start);
            me["nextTurn"] = json!(next);
        }
        out["participant"] = me;
    }
    Some(out)
}
