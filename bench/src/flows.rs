//! Whole tender flows per second, time travelling through the clock control API.
//!
//! The flows' records all live on the server's clock (their brokers keep no clocks of their
//! own), which the benchmark moves for all of them at once, so flows run in waves: one flow
//! per connection, all flows of a wave take each step together, and between steps the
//! benchmark moves the clock once for the whole wave. A flow: create a draft → publish → a
//! question → its answer → (clock past the enquiries) → two bids, each posted as a draft and
//! activated → (clock past tendering, then past the auction) → read the pending award →
//! activate it → (clock past its complaint period) → read the contract → sign it → read the
//! tender, which must be `complete`.
//!
//! A whole procurement with a live auction is the same flow with the auction taken part in:
//! once tendering ends, each bidder reads its bid's `participationUrl` and its view of the
//! auction; the clock is moved into the first bidding turn of each auction (a wave's auctions
//! share a few slots), where the bidder in its turn posts an amount below the other bid; the
//! pending award must then be that bid at the amount posted.

use crate::Error;
use crate::bodies::{Bodies, Periods, format_time, parse_time};
use crate::client::{Broker, Call, Conn};
use crate::load::Failures;
use hyper::Method;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use time::OffsetDateTime;

/// The brokers of a flow: the procuring entity, and two other parties (bidders, askers).
#[derive(Clone, Debug)]
pub struct Parties {
    pub owner: Broker,
    pub bidder: Broker,
    pub asker: Broker,
}

/// The server's clock, through `GET`/`POST /testing/clock`.
pub struct Clock<'a> {
    pub conn: &'a mut Conn,
}

impl Clock<'_> {
    pub async fn now(&mut self) -> Result<OffsetDateTime, Error> {
        let reply = self
            .conn
            .send(&Call::get("/testing/clock"))
            .await?
            .checked("GET /testing/clock")?;
        let body = reply.json();
        parse_time(body["data"]["now"].as_str().unwrap_or_default())
    }

    async fn set(&mut self, data: Value) -> Result<(), Error> {
        let call =
            Call::new(Method::POST, "/testing/clock").json(json!({ "data": data }).to_string());
        self.conn
            .send(&call)
            .await?
            .checked(&format!("POST /testing/clock {data}"))?;
        Ok(())
    }

    /// Moves the clock by an ISO 8601 duration; answered once due transitions are applied.
    pub async fn advance(&mut self, duration: &str) -> Result<(), Error> {
        self.set(json!({ "advance": duration })).await
    }

    pub async fn move_to(&mut self, moment: OffsetDateTime) -> Result<(), Error> {
        self.set(json!({ "now": format_time(moment) })).await
    }
}

/// A bidder's seat in its flow's live auction.
#[derive(Clone, Debug)]
struct Seat {
    /// The path (with its query) of the bidder's `participationUrl`.
    page: String,
    /// The bid's id.
    bid: String,
    /// The other bid's amount, which the post goes below.
    other: f64,
    /// The start of the auction's first bidding turn, which is this bidder's.
    turn: OffsetDateTime,
    posted: Option<f64>,
}

/// One flow's bodies and what it learned so far.
struct Flow {
    tender: Value,
    bids: [Value; 2],
    /// The bids placed: id, token and amount.
    placed: Vec<(String, String, f64)>,
    /// In a procurement with a live auction, the bidder that bids in it.
    seat: Option<Seat>,
    question: Value,
    answer: Value,
    id: String,
    token: String,
    award: Option<String>,
    complaint_end: Option<OffsetDateTime>,
    /// The contract signed, once the tender completed.
    contract: Option<String>,
    failed: Option<Error>,
    requests: u64,
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Open,
    Bid,
    /// Read both bidders' seats in the live auction.
    Join,
    /// Post in the first bidding turn.
    Outbid,
    ReadAward,
    Award,
    Contract,
}

fn data_str(body: &Value, pointer: &str) -> Option<String> {
    body.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The path and query of an absolute address (`http://host:port/path?query`).
fn path_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.find('/').map(|i| &rest[i..])
}

/// The auction's JSON interface beside a page: `what` (`state`, `bids`) before the query.
fn interface(page: &str, what: &str) -> String {
    match page.split_once('?') {
        Some((path, query)) => format!("{path}/{what}?{query}"),
        None => format!("{page}/{what}"),
    }
}

/// Two amounts equal to the kopiyka.
fn same(a: Option<f64>, b: Option<f64>) -> bool {
    a.zip(b).is_some_and(|(a, b)| (a - b).abs() < 0.005)
}

/// An amount below `other` (by 5 %, to the kopiyka) and at most `max`.
fn below(other: f64, max: f64) -> f64 {
    ((other * 0.95 * 100.0).floor() / 100.0).min(max)
}

impl Flow {
    async fn call(&mut self, conn: &mut Conn, call: Call, what: &str) -> Result<Value, Error> {
        self.requests += 1;
        Ok(conn.send(&call).await?.checked(what)?.json())
    }

    fn tender_path(&self, rest: &str) -> String {
        format!("/api/2.3/tenders/{}{rest}", self.id)
    }

    fn owned(&self, rest: &str) -> String {
        format!(
            "/api/2.3/tenders/{}{rest}?acc_token={}",
            self.id, self.token
        )
    }

    async fn step(&mut self, step: Step, conn: &mut Conn, parties: &Parties) -> Result<(), Error> {
        let owner = &parties.owner;
        match step {
            Step::Open => {
                let body = self.tender.to_string();
                let created = self
                    .call(
                        conn,
                        Call::new(Method::POST, "/api/2.3/tenders")
                            .by(owner)
                            .json(body),
                        "create a draft tender",
                    )
                    .await?;
                self.id = data_str(&created, "/data/id").unwrap_or_default();
                self.token = data_str(&created, "/access/token").unwrap_or_default();
                let publish = json!({"data": {"status": "active.enquiries"}}).to_string();
                self.call(
                    conn,
                    Call::new(Method::PATCH, self.owned(""))
                        .by(owner)
                        .json(publish),
                    "publish the tender",
                )
                .await?;
                let question = self.question.to_string();
                let asked = self
                    .call(
                        conn,
                        Call::new(Method::POST, self.tender_path("/questions"))
                            .by(&parties.asker)
                            .json(question),
                        "ask a question",
                    )
                    .await?;
                let q = data_str(&asked, "/data/id").unwrap_or_default();
                let answer = self.answer.to_string();
                self.call(
                    conn,
                    Call::new(Method::PATCH, self.owned(&format!("/questions/{q}")))
                        .by(owner)
                        .json(answer),
                    "answer the question",
                )
                .await?;
            }
            Step::Bid => {
                for i in 0..2 {
                    let body = self.bids[i].to_string();
                    let placed = self
                        .call(
                            conn,
                            Call::new(Method::POST, self.tender_path("/bids"))
                                .by(&parties.bidder)
                                .json(body),
                            "place a draft bid",
                        )
                        .await?;
                    let bid = data_str(&placed, "/data/id").unwrap_or_default();
                    let token = data_str(&placed, "/access/token").unwrap_or_default();
                    let amount = self.bids[i]["data"]["value"]["amount"]
                        .as_f64()
                        .unwrap_or_default();
                    self.placed.push((bid.clone(), token.clone(), amount));
                    let activate = json!({"data": {"status": "active"}}).to_string();
                    self.call(
                        conn,
                        Call::new(
                            Method::PATCH,
                            self.tender_path(&format!("/bids/{bid}?acc_token={token}")),
                        )
                        .by(&parties.bidder)
                        .json(activate),
                        "activate the bid",
                    )
                    .await?;
                }
            }
            Step::Join => {
                let placed = self.placed.clone();
                let mut seats = Vec::new();
                for (i, (bid, token, _)) in placed.iter().enumerate() {
                    let path = self.tender_path(&format!("/bids/{bid}?acc_token={token}"));
                    let read = self
                        .call(conn, Call::get(path).by(&parties.bidder), "read a bid")
                        .await?;
                    let url = data_str(&read, "/data/participationUrl").ok_or_else(|| {
                        Error::new(format!(
                            "a bid in the auction without participationUrl: {read}"
                        ))
                    })?;
                    let page = path_of(&url)
                        .ok_or_else(|| Error::new(format!("participationUrl {url:?} has no path")))?
                        .to_owned();
                    let state = self
                        .call(
                            conn,
                            Call::get(interface(&page, "state")),
                            "read the auction as a bidder",
                        )
                        .await?;
                    let next = data_str(&state, "/data/participant/nextTurn").ok_or_else(|| {
                        Error::new(format!(
                            "a bidder's view of the auction without nextTurn: {state}"
                        ))
                    })?;
                    let other = placed.get((i + 1) % placed.len()).map_or(0.0, |p| p.2);
                    seats.push(Seat {
                        page,
                        bid: bid.clone(),
                        other,
                        turn: parse_time(&next)?,
                        posted: None,
                    });
                }
                self.seat = seats.into_iter().min_by_key(|s| s.turn);
            }
            Step::Outbid => {
                let Some(mut seat) = self.seat.clone() else {
                    return Err(Error::new("no seat in the auction"));
                };
                let state = self
                    .call(
                        conn,
                        Call::get(interface(&seat.page, "state")),
                        "read the auction in its turn",
                    )
                    .await?;
                let me = &state["data"]["participant"];
                let max = me["max"]
                    .as_f64()
                    .filter(|_| me["turn"] == true)
                    .ok_or_else(|| {
                        Error::new(format!("not the bidder's turn at its turn's start: {me}"))
                    })?;
                let amount = below(seat.other, max);
                let posted = self
                    .call(
                        conn,
                        Call::new(Method::POST, interface(&seat.page, "bids"))
                            .json(json!({"data": {"bid": amount}}).to_string()),
                        "post in the auction",
                    )
                    .await?;
                if !same(posted["data"]["bid"].as_f64(), Some(amount)) {
                    return Err(Error::new(format!("a post of {amount} answered {posted}")));
                }
                seat.posted = Some(amount);
                self.seat = Some(seat);
            }
            Step::ReadAward => {
                let tender = self
                    .call(conn, Call::get(self.tender_path("")), "read the tender")
                    .await?;
                let pending = tender["data"]["awards"]
                    .as_array()
                    .and_then(|awards| awards.iter().find(|a| a["status"] == "pending"));
                if let (Some(award), Some(seat)) = (pending, &self.seat) {
                    let won = award["bid_id"] == seat.bid.as_str()
                        && same(award["value"]["amount"].as_f64(), seat.posted);
                    if !won {
                        return Err(Error::new(format!(
                            "the award is bid {} at {}, not bid {} at its post of {}",
                            award["bid_id"],
                            award["value"]["amount"],
                            seat.bid,
                            seat.posted.unwrap_or(f64::NAN)
                        )));
                    }
                }
                self.award = pending.and_then(|a| a["id"].as_str().map(str::to_owned));
            }
            Step::Award => {
                let award = self.award.clone().unwrap_or_default();
                let decided = self
                    .call(
                        conn,
                        Call::new(Method::PATCH, self.owned(&format!("/awards/{award}")))
                            .by(owner)
                            .json(json!({"data": {"status": "active"}}).to_string()),
                        "activate the award",
                    )
                    .await?;
                let end = data_str(&decided, "/data/complaintPeriod/endDate").ok_or_else(|| {
                    Error::new(format!(
                        "an active award without complaintPeriod.endDate: {decided}"
                    ))
                })?;
                self.complaint_end = Some(parse_time(&end)?);
            }
            Step::Contract => {
                let tender = self
                    .call(conn, Call::get(self.tender_path("")), "read the tender")
                    .await?;
                let contract = tender["data"]["contracts"]
                    .as_array()
                    .and_then(|c| c.iter().find(|c| c["status"] == "pending"))
                    .and_then(|c| c["id"].as_str())
                    .ok_or_else(|| Error::new("no pending contract after the award"))?
                    .to_owned();
                let sign = json!({"data": {"contractNumber": format!("№ {}/2026", self.id.chars().take(6).collect::<String>()), "status": "active"}});
                self.call(
                    conn,
                    Call::new(Method::PATCH, self.owned(&format!("/contracts/{contract}")))
                        .by(owner)
                        .json(sign.to_string()),
                    "sign the contract",
                )
                .await?;
                let done = self
                    .call(conn, Call::get(self.tender_path("")), "read the tender")
                    .await?;
                if done["data"]["status"] != "complete" {
                    return Err(Error::new(format!(
                        "the tender is {} after signing, not complete",
                        done["data"]["status"]
                    )));
                }
                self.contract = Some(contract);
            }
        }
        Ok(())
    }
}

/// What the flows case saw.
#[derive(Debug, Default)]
pub struct FlowStats {
    pub completed: u64,
    pub started: u64,
    /// HTTP requests sent by the flows, clock requests included.
    pub requests: u64,
    pub elapsed: Duration,
    /// Durations of waves (each flow of a wave takes as long as its wave), microseconds.
    pub wave_latencies: Vec<u32>,
    pub failures: Failures,
    /// The contracts the completed flows signed, with their tenders' tokens.
    pub contracts: Vec<(String, String)>,
}

impl FlowStats {
    pub fn per_second(&self) -> f64 {
        self.completed as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn requests_per_second(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Runs one step for every flow still going, concurrently, one connection each.
async fn run_step(
    step: Step,
    conns: &mut [Option<Conn>],
    flows: &mut [Option<Flow>],
    parties: &Arc<Parties>,
    only: impl Fn(&Flow) -> bool,
) {
    let mut tasks = Vec::new();
    for (i, (conn, flow)) in conns.iter_mut().zip(flows.iter_mut()).enumerate() {
        let ready = conn.is_some() && flow.as_ref().is_some_and(|f| f.failed.is_none() && only(f));
        if !ready {
            continue;
        }
        let (Some(mut c), Some(mut f)) = (conn.take(), flow.take()) else {
            continue;
        };
        let parties = parties.clone();
        tasks.push((
            i,
            tokio::spawn(async move {
                if let Err(e) = f.step(step, &mut c, &parties).await {
                    f.failed = Some(e);
                }
                (c, f)
            }),
        ));
    }
    for (i, task) in tasks {
        // A task only ends in Err if it panicked; its flow and connection are then lost
        // and the wave goes on with the others.
        if let Ok((c, f)) = task.await {
            conns[i] = Some(c);
            flows[i] = Some(f);
        }
    }
}

/// One wave of `conns.len()` flows, taking part in their live auctions when `live`.
async fn wave(
    conns: &mut [Option<Conn>],
    control: &mut Conn,
    bodies: &mut Bodies,
    parties: &Arc<Parties>,
    stats: &mut FlowStats,
    live: bool,
) -> Result<(), Error> {
    let mut clock = Clock { conn: control };
    let now = clock.now().await?;
    stats.requests += 1;
    let periods = Periods {
        enquiry: time::Duration::days(1),
        tender: time::Duration::days(4),
    };
    let mut flows: Vec<Option<Flow>> = Vec::new();
    for _ in 0..conns.len() {
        let tender = bodies.tender(now, periods, true)?;
        flows.push(Some(Flow {
            bids: [
                bodies.bid(tender.value_amount)?,
                bodies.bid(tender.value_amount)?,
            ],
            tender: tender.body,
            placed: Vec::new(),
            seat: None,
            question: bodies.question()?,
            answer: bodies.answer()?,
            id: String::new(),
            token: String::new(),
            award: None,
            complaint_end: None,
            contract: None,
            failed: None,
            requests: 0,
        }));
    }
    let all = |_: &Flow| true;
    run_step(Step::Open, conns, &mut flows, parties, all).await;
    clock.advance("P1DT1M").await?;
    run_step(Step::Bid, conns, &mut flows, parties, all).await;
    clock.advance("P3D").await?;
    stats.requests += 2;
    if live {
        // Tendering ended a minute ago: every auction is planned and none has started.
        run_step(Step::Join, conns, &mut flows, parties, all).await;
        let mut turns: Vec<OffsetDateTime> = flows
            .iter()
            .flatten()
            .filter(|f| f.failed.is_none())
            .filter_map(|f| f.seat.as_ref().map(|s| s.turn))
            .collect();
        turns.sort_unstable();
        turns.dedup();
        for turn in turns {
            clock.move_to(turn + time::Duration::seconds(5)).await?;
            stats.requests += 1;
            let at = |f: &Flow| f.seat.as_ref().is_some_and(|s| s.turn == turn);
            run_step(Step::Outbid, conns, &mut flows, parties, at).await;
        }
    }
    // The auction starts in a morning slot of the next working day; move on until every
    // flow has its pending award (a week at most).
    for round in 0..7 {
        clock
            .advance(if round == 0 { "P2D" } else { "P1D" })
            .await?;
        stats.requests += 1;
        run_step(Step::ReadAward, conns, &mut flows, parties, |f| {
            f.award.is_none()
        })
        .await;
        let waiting = flows
            .iter()
            .flatten()
            .any(|f| f.failed.is_none() && f.award.is_none());
        if !waiting {
            break;
        }
    }
    for f in flows.iter_mut().flatten() {
        if f.failed.is_none() && f.award.is_none() {
            f.failed = Some(Error::new("no pending award a week after the auction"));
        }
    }
    run_step(Step::Award, conns, &mut flows, parties, all).await;
    let latest = flows
        .iter()
        .flatten()
        .filter(|f| f.failed.is_none())
        .filter_map(|f| f.complaint_end)
        .max();
    if let Some(end) = latest {
        clock.move_to(end + time::Duration::seconds(1)).await?;
        stats.requests += 1;
    }
    run_step(Step::Contract, conns, &mut flows, parties, all).await;
    for flow in flows.iter().flatten() {
        stats.started += 1;
        stats.requests += flow.requests;
        match &flow.failed {
            None => {
                stats.completed += 1;
                if let Some(contract) = &flow.contract {
                    stats.contracts.push((contract.clone(), flow.token.clone()));
                }
            }
            Some(e) => stats.failures.add("flow".into(), || e.to_string()),
        }
    }
    let lost = conns.len() - flows.iter().flatten().count();
    for _ in 0..lost {
        stats.started += 1;
        stats
            .failures
            .add("flow".into(), || "a flow task failed".into());
    }
    Ok(())
}

/// Runs waves of one flow per connection until `duration` has passed (the last wave is
/// finished, and counted); with `live`, whole procurements that bid in their live auctions.
pub async fn run(
    conns: &mut Vec<Conn>,
    control: &mut Conn,
    bodies: &mut Bodies,
    parties: Parties,
    duration: Duration,
    live: bool,
) -> FlowStats {
    let parties = Arc::new(parties);
    let mut slots: Vec<Option<Conn>> = std::mem::take(conns).into_iter().map(Some).collect();
    let mut stats = FlowStats::default();
    let started = Instant::now();
    while started.elapsed() < duration {
        let wave_started = Instant::now();
        if let Err(e) = wave(&mut slots, control, bodies, &parties, &mut stats, live).await {
            stats.failures.add("wave".into(), || e.to_string());
            break;
        }
        let took = u32::try_from(wave_started.elapsed().as_micros()).unwrap_or(u32::MAX);
        stats.wave_latencies.push(took);
    }
    stats.elapsed = started.elapsed();
    stats.wave_latencies.sort_unstable();
    conns.extend(slots.into_iter().flatten());
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_participation_address_gives_its_interface_on_the_same_server() {
        let url = "http://127.0.0.1:6543/auctions/ab12?key_for_bid=cd34&hash=ef56";
        let page = path_of(url).unwrap();
        assert_eq!(page, "/auctions/ab12?key_for_bid=cd34&hash=ef56");
        assert_eq!(
            interface(page, "bids"),
            "/auctions/ab12/bids?key_for_bid=cd34&hash=ef56"
        );
        assert_eq!(interface("/auctions/ab12", "state"), "/auctions/ab12/state");
        assert_eq!(path_of("http://127.0.0.1:6543"), None);
    }

    #[test]
    fn a_post_goes_below_the_other_bid_within_the_turn_s_limit() {
        assert_eq!(below(1000.0, 1500.0), 950.0);
        assert_eq!(below(1000.01, 1500.0), 950.0);
        assert_eq!(below(1000.0, 900.0), 900.0);
    }
}
