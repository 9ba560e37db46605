//! Whole tender flows per second, time travelling through the clock control API.
//!
//! The clock is global to the server, so flows run in waves: one flow per connection, all
//! flows of a wave take each step together, and between steps the benchmark moves the clock
//! once for the whole wave. A flow: create a draft → publish → a question → its answer →
//! (clock past the enquiries) → two bids, each posted as a draft and activated → (clock past
//! tendering, then past the auction) → read the pending award → activate it → (clock past its
//! complaint period) → read the contract → sign it → read the tender, which must be
//! `complete`.

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

/// One flow's bodies and what it learned so far.
struct Flow {
    tender: Value,
    bids: [Value; 2],
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
    ReadAward,
    Award,
    Contract,
}

fn data_str(body: &Value, pointer: &str) -> Option<String> {
    body.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
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
            Step::ReadAward => {
                let tender = self
                    .call(conn, Call::get(self.tender_path("")), "read the tender")
                    .await?;
                self.award = tender["data"]["awards"].as_array().and_then(|awards| {
                    awards
                        .iter()
                        .find(|a| a["status"] == "pending")
                        .and_then(|a| a["id"].as_str().map(str::to_owned))
                });
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

/// One wave of `conns.len()` flows.
async fn wave(
    conns: &mut [Option<Conn>],
    control: &mut Conn,
    bodies: &mut Bodies,
    parties: &Arc<Parties>,
    stats: &mut FlowStats,
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
/// finished, and counted).
pub async fn run(
    conns: &mut Vec<Conn>,
    control: &mut Conn,
    bodies: &mut Bodies,
    parties: Parties,
    duration: Duration,
) -> FlowStats {
    let parties = Arc::new(parties);
    let mut slots: Vec<Option<Conn>> = std::mem::take(conns).into_iter().map(Some).collect();
    let mut stats = FlowStats::default();
    let started = Instant::now();
    while started.elapsed() < duration {
        let wave_started = Instant::now();
        if let Err(e) = wave(&mut slots, control, bodies, &parties, &mut stats).await {
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
