//! The live auction (`@live-auction`): bidders, named by the order they registered in,
//! lower their prices in rounds through the auction's JSON interface beside its page
//! (`…/state` and `…/bids` on their participation address), on the target's clock.
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use super::{bids, lots, tenders};
use crate::{
    checks::ensure,
    checks::shape::interface,
    exchange::short,
    exchange::timestamps,
    world::{Actor, Payload, TenderWorld},
};

/// `first` → 0, `second` → 1, `third` → 2.
fn place_of(word: &str) -> Result<usize, String> {
    ["first", "second", "third"]
        .iter()
        .position(|w| *w == word)
        .ok_or_else(|| format!("harness: no bidder {word:?}"))
}

/// The lot `n` names, when the step names one.
fn lot_of(n: &str) -> Result<Option<usize>, String> {
    if n.is_empty() {
        return Ok(None);
    }
    n.parse()
        .map(Some)
        .map_err(|_| format!("harness: lot {n:?}"))
}

/// `percent` % of the tender's value (or lot `lot`'s), in whole hryvnias.
fn share(w: &TenderWorld, percent: u64, lot: Option<usize>) -> Result<f64, String> {
    let value = match lot {
        Some(n) => lots::lot(w, n)?["value"].clone(),
        None => w.tender_field("/value")?,
    };
    let worth = lots::amount(&value).ok_or("the value has no amount")?;
    Ok((worth * percent as f64 / 100.0).round())
}

/// The bidder's participation address for the tender's auction (or lot `lot`'s), read with
/// its bid's token when the scenario has not read it yet.
async fn address(w: &mut TenderWorld, bidder: usize, lot: Option<usize>) -> Result<String, String> {
    let lot_id = lot.map(|n| lots::lot_id(w, n)).transpose()?;
    let find = |data: &Value| -> Option<String> {
        match &lot_id {
            None => data["participationUrl"].as_str().map(str::to_owned),
            Some(id) => data["lotValues"]
                .as_array()?
                .iter()
                .find(|v| v["relatedLot"] == id.as_str())?["participationUrl"]
                .as_str()
                .map(str::to_owned),
        }
    };
    if let Some(found) = find(&w.bid(bidder)?.data) {
        return Ok(found);
    }
    let path = bids::bid_path(w, bidder, &bids::bid_token(w, bidder)?)?;
    let (_, body) = w
        .exchange(Actor::Other, Method::GET, &path, Payload::None, &[])
        .await?;
    let data = body["data"].clone();
    let found = find(&data).ok_or_else(|| {
        format!(
            "bid {} read with its token shows no participationUrl{}: {}",
            bidder + 1,
            lot.map(|n| format!(" for lot {n}")).unwrap_or_default(),
            short(&data.to_string())
        )
    })?;
    w.bids[bidder].data = data;
    Ok(found)
}

/// The auction address anyone may watch: the tender's `auctionUrl`, or lot `lot`'s.
async fn viewer(w: &mut TenderWorld, lot: Option<usize>) -> Result<String, String> {
    w.refresh_tender().await?;
    let url = match lot {
        Some(n) => lots::lot(w, n)?["auctionUrl"].clone(),
        None => w.tender_field("/auctionUrl")?,
    };
    url.as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("the tender shows no auctionUrl: {url}"))
}

/// The auction's state as the holder of `address` reads it.
async fn state(w: &TenderWorld, address: &str) -> Result<Value, String> {
    let url = interface(address, "state");
    let (exchange, body) = w
        .exchange(Actor::Anonymous, Method::GET, &url, Payload::None, &[])
        .await?;
    match exchange.response.as_ref().map(|r| r.status) {
        Some(200) => Ok(body["data"].clone()),
        status => Err(format!(
            "reading the auction's state at {url}: expected 200, got {status:?}: {}",
            short(&body.to_string())
        )),
    }
}

/// The auction as the bidder sees it: its participation address, the state there, and its
/// place among the auction's bidders.
async fn own_view(
    w: &mut TenderWorld,
    bidder: usize,
    lot: Option<usize>,
) -> Result<(String, Value, u64), String> {
    let address = address(w, bidder, lot).await?;
    let own = state(w, &address).await?;
    let place = own
        .pointer("/participant/place")
        .and_then(Value::as_u64)
        .ok_or_else(|| {
            format!(
                "the auction's state at bidder {}'s participation address names no participant: {}",
                bidder + 1,
                short(&own.to_string())
            )
        })?;
    Ok((address, own, place))
}

/// The bidder's place among the auction's bidders, as its own view names it.
async fn own_place(w: &mut TenderWorld, bidder: usize, lot: Option<usize>) -> Result<u64, String> {
    own_view(w, bidder, lot).await.map(|(_, _, place)| place)
}

/// The bidding stage (its index and itself) of the bidder at `place` in round `round`.
fn turn(state: &Value, place: u64, round: u64) -> Option<(usize, Value)> {
    state["stages"]
        .as_array()?
        .iter()
        .enumerate()
        .find(|(_, s)| s["type"] == "bids" && s["round"] == round && s["place"] == place)
        .map(|(i, s)| (i, s.clone()))
}

async fn post(
    w: &mut TenderWorld,
    bidder: usize,
    lot: Option<usize>,
    data: Value,
) -> Result<(), String> {
    let address = address(w, bidder, lot).await?;
    w.send_data(
        Actor::Anonymous,
        Method::POST,
        &interface(&address, "bids"),
        data,
    )
    .await
}

#[given(
    regex = r"^a (?:second )?bidder has registered an active bid at (\d+)% of the (tender's value|value of every lot)(?:, answering the feature with ([\d.]+))?$"
)]
async fn has_bid_at(
    w: &mut TenderWorld,
    percent: u64,
    of: String,
    answer: String,
) -> Result<(), String> {
    let mut body = if of == "value of every lot" {
        let count = lots::lots(w)?.len();
        let ns: Vec<usize> = (1..=count).collect();
        let mut body = lots::bid_on(w, &ns, None).await?;
        for (i, n) in ns.iter().enumerate() {
            body["data"]["lotValues"][i]["value"]["amount"] = json!(share(w, percent, Some(*n))?);
        }
        body
    } else {
        let amount = share(w, percent, None)?;
        let mut body = w.fakes.bid(Some(amount as u64));
        if let Some(data) = body["data"].as_object_mut() {
            data.remove("status");
        }
        body
    };
    if !answer.is_empty() {
        let value: f64 = answer
            .parse()
            .map_err(|_| format!("harness: answer {answer:?}"))?;
        body["data"]["parameters"] = json!([{"code": "delivery", "value": value}]);
    }
    bids::register(w, body).await?;
    bids::require_registered(w, "registering an active bid")
}

#[given(regex = r"^the owner has published a tender with a tenderer feature worth up to ([\d.]+)$")]
async fn has_published_with_feature(w: &mut TenderWorld, most: f64) -> Result<(), String> {
    let mut body = tenders::draft(w.tender_body().await?);
    body["data"]["features"] = json!([{
        "code": "delivery",
        "featureOf": "tenderer",
        "title": "Доставка власним транспортом",
        "enum": [{"value": 0.0, "title": "ні"}, {"value": most, "title": "так"}],
    }]);
    tenders::create(w, Actor::Owner, body).await?;
    tenders::require_created(w, "creating a draft tender with a feature")?;
    tenders::publish(w).await?;
    super::common::expect_status(w, "publishing the draft", 200)
}

#[when(
    regex = r"^the auction(?: of lot (\d+))? reaches the (first|second|third) bidder's turn in round (\d)$"
)]
async fn reaches_turn(
    w: &mut TenderWorld,
    lot: String,
    bidder: String,
    round: u64,
) -> Result<(), String> {
    let (lot, bidder) = (lot_of(&lot)?, place_of(&bidder)?);
    let (address, own, place) = own_view(w, bidder, lot).await?;
    let (_, stage) = turn(&own, place, round).ok_or_else(|| {
        format!(
            "the auction's stages show no turn of bidder {} in round {round}",
            bidder + 1
        )
    })?;
    let start = stage["start"]
        .as_str()
        .and_then(timestamps::parse)
        .ok_or_else(|| format!("the turn has no start: {stage}"))?;
    w.pass_time_to(
        start,
        &format!("bidder {}'s turn in round {round}", bidder + 1),
    )
    .await?;
    let now = state(w, &address).await?;
    match now.pointer("/participant/turn") {
        Some(Value::Bool(true)) => Ok(()),
        _ => Err(format!(
            "at {} the auction does not give bidder {} its turn: {}",
            timestamps::format(start),
            bidder + 1,
            short(&now.to_string())
        )),
    }
}

/// Upstream's turn rule sets the limit by the bidder's own amount at the start of its turn, not
/// by the leader's: this checks that `percent` % of the value tells the two apart, from the
/// auction as the bidder sees it in its turn (its `max`, the lowest amount standing, the step).
#[then(
    regex = r"^(\d+)% of the tender's value lies above the leader's amount less the minimal step and within the (first|second|third) bidder's own limit$"
)]
async fn between_leader_and_own_limit(
    w: &mut TenderWorld,
    percent: u64,
    bidder: String,
) -> Result<(), String> {
    let bidder = place_of(&bidder)?;
    let amount = share(w, percent, None)?;
    let (_, own, _) = own_view(w, bidder, None).await?;
    let figures = (
        own.pointer("/participant/max").and_then(Value::as_f64),
        own.pointer("/minimalStep/amount").and_then(Value::as_f64),
        own["results"].as_array().and_then(|rows| {
            rows.iter()
                .filter_map(|r| r["amount"].as_f64())
                .reduce(f64::min)
        }),
    );
    let (Some(limit), Some(step), Some(leader)) = figures else {
        return Err(format!(
            "bidder {}'s view of the auction in its turn shows no max, minimalStep or results: {}",
            bidder + 1,
            short(&own.to_string())
        ));
    };
    ensure(amount > leader - step && amount <= limit, || {
        format!(
            "{amount} does not lie above the leader's {leader} less the step {step} and within bidder {}'s limit {limit}: {}",
            bidder + 1,
            short(&own.to_string())
        )
    })
}

#[when(
    regex = r"^the (first|second|third) bidder bids (\d+)% of the (?:tender's|lot's) value in the auction(?: of lot (\d+))?$"
)]
async fn bids_in_auction(
    w: &mut TenderWorld,
    bidder: String,
    percent: u64,
    lot: String,
) -> Result<(), String> {
    let (lot, bidder) = (lot_of(&lot)?, place_of(&bidder)?);
    let amount = share(w, percent, lot)?;
    post(w, bidder, lot, json!({ "bid": amount })).await
}

#[when(regex = r"^the (first|second|third) bidder cancels its bid in the auction$")]
async fn cancels(w: &mut TenderWorld, bidder: String) -> Result<(), String> {
    post(w, place_of(&bidder)?, None, json!({"bid": -1})).await
}

#[when(regex = r"^the (first|second|third) bidder posts a bid without an amount in the auction$")]
async fn posts_nothing(w: &mut TenderWorld, bidder: String) -> Result<(), String> {
    post(w, place_of(&bidder)?, None, json!({})).await
}

#[when(
    regex = r"^the (first|second|third) bidder bids (\d+)% of the tender's value with the secret of its participation address changed$"
)]
async fn bids_with_wrong_secret(
    w: &mut TenderWorld,
    bidder: String,
    percent: u64,
) -> Result<(), String> {
    let bidder = place_of(&bidder)?;
    let address = address(w, bidder, None).await?;
    let mut url = reqwest::Url::parse(&address).map_err(|e| format!("{address:?}: {e}"))?;
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            let v = if k == "hash" {
                format!("{v}0")
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    url.query_pairs_mut().clear().extend_pairs(pairs);
    let amount = share(w, percent, None)?;
    w.send_data(
        Actor::Anonymous,
        Method::POST,
        &interface(url.as_str(), "bids"),
        json!({"bid": amount}),
    )
    .await
}

/// The stage of the bidder's turn in round `round` as anyone watching sees it.
async fn watched_turn(
    w: &mut TenderWorld,
    bidder: usize,
    round: u64,
) -> Result<(Value, String), String> {
    let place = own_place(w, bidder, None).await?;
    let url = viewer(w, None).await?;
    let watched = state(w, &url).await?;
    let (_, stage) = turn(&watched, place, round).ok_or_else(|| {
        format!(
            "the auction's stages show no turn of bidder {} in round {round}",
            bidder + 1
        )
    })?;
    Ok((stage, short(&watched.to_string())))
}

#[then(
    regex = r"^the auction does not show the (first|second|third) bidder's round (\d) amount yet$"
)]
async fn amount_private(w: &mut TenderWorld, bidder: String, round: u64) -> Result<(), String> {
    let bidder = place_of(&bidder)?;
    let (stage, _) = watched_turn(w, bidder, round).await?;
    match stage.get("amount") {
        None | Some(Value::Null) => Ok(()),
        Some(shown) => Err(format!(
            "while bidder {}'s turn runs, anyone watching sees its amount {shown}",
            bidder + 1
        )),
    }
}

#[then(
    regex = r"^the auction shows the (first|second|third) bidder's round (\d) amount as (\d+)% of the tender's value$"
)]
async fn amount_shown(
    w: &mut TenderWorld,
    bidder: String,
    round: u64,
    percent: u64,
) -> Result<(), String> {
    let bidder = place_of(&bidder)?;
    let expected = share(w, percent, None)?;
    let (stage, watched) = watched_turn(w, bidder, round).await?;
    ensure(stage["amount"].as_f64() == Some(expected), || {
        format!(
            "after bidder {}'s turn in round {round} the auction shows {}, expected {expected}: {watched}",
            bidder + 1,
            stage["amount"]
        )
    })
}

#[then(
    regex = r"^in round (\d) of the auction the (first|second|third) bidder takes its turn before the (first|second|third) bidder$"
)]
async fn turns_in_order(
    w: &mut TenderWorld,
    round: u64,
    earlier: String,
    later: String,
) -> Result<(), String> {
    let (earlier, later) = (place_of(&earlier)?, place_of(&later)?);
    let (a, b) = (
        own_place(w, earlier, None).await?,
        own_place(w, later, None).await?,
    );
    let url = viewer(w, None).await?;
    let watched = state(w, &url).await?;
    let index = |place| turn(&watched, place, round).map(|(i, _)| i);
    match (index(a), index(b)) {
        (Some(x), Some(y)) if x < y => Ok(()),
        (x, y) => Err(format!(
            "in round {round} bidder {}'s turn is stage {x:?} and bidder {}'s stage {y:?}: {}",
            earlier + 1,
            later + 1,
            short(&watched.to_string())
        )),
    }
}

#[then(regex = r"^each lot has a live auction of its own with (\d+) bidders$")]
async fn auction_per_lot(w: &mut TenderWorld, count: usize) -> Result<(), String> {
    w.refresh_tender().await?;
    let mut seen = Vec::new();
    for n in 1..=lots::lots(w)?.len() {
        let url = viewer(w, Some(n)).await?;
        if seen.contains(&url) {
            return Err(format!("two lots share the auction {url}"));
        }
        let watched = state(w, &url).await?;
        let bidders = watched["initial"].as_array().map_or(0, Vec::len);
        if bidders != count {
            return Err(format!(
                "lot {n}'s auction has {bidders} bidders, expected {count}: {}",
                short(&watched.to_string())
            ));
        }
        seen.push(url);
    }
    Ok(())
}

#[then(
    regex = r"^the pending award(?: of lot (\d+))? is for the (first|second|third) bidder at (\d+)% of the (?:tender's|lot's) value$"
)]
async fn award_at(
    w: &mut TenderWorld,
    lot: String,
    bidder: String,
    percent: u64,
) -> Result<(), String> {
    let (lot, bidder) = (lot_of(&lot)?, place_of(&bidder)?);
    w.refresh_tender().await?;
    let expected = share(w, percent, lot)?;
    let lot_id = lot.map(|n| lots::lot_id(w, n)).transpose()?;
    let awards = w.tender_field("/awards")?;
    let award = awards
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| a["status"] == "pending")
        .find(|a| lot_id.as_ref().is_none_or(|id| a["lotID"] == id.as_str()))
        .ok_or_else(|| format!("no pending award: {}", short(&awards.to_string())))?;
    let bid_id = w.bid(bidder)?.id.clone();
    if award["bid_id"] != bid_id.as_str() || lots::amount(&award["value"]) != Some(expected) {
        return Err(format!(
            "the pending award is for bid {} at {}, expected bid {bid_id} (bidder {}) at {expected}",
            award["bid_id"],
            award["value"]["amount"],
            bidder + 1
        ));
    }
    // The auction's result is written back into the bid, as upstream's auction reported it.
    let bid = w
        .tender_field("/bids")?
        .as_array()
        .and_then(|b| b.iter().find(|b| b["id"] == bid_id.as_str()).cloned())
        .ok_or_else(|| format!("the tender shows no bid {bid_id}"))?;
    let offered = match &lot_id {
        None => lots::amount(&bid["value"]),
        Some(id) => bid["lotValues"]
            .as_array()
            .and_then(|v| v.iter().find(|v| v["relatedLot"] == id.as_str()))
            .and_then(|v| lots::amount(&v["value"])),
    };
    ensure(offered == Some(expected), || {
        format!("the auction left bid {bid_id} at {expected}, the tender shows it at {offered:?}")
    })
}
