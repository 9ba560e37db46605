//! The world: one scenario's state, and what a scenario does through it: every exchange checked
//! as a whole (`verify`), time moved on the target (`timeline`). It may use the exchange,
//! checks and target layers; the steps drive it.
//!
//! The World of one scenario: what it has created on the target, and the last request and
//! response, so that a failing step can be reported with both.

pub mod offered;
mod timeline;
mod verify;

use std::{
    hash::{DefaultHasher, Hash, Hasher},
    sync::Arc,
};

use reqwest::Method;
use serde_json::Value;
use time::{Duration, OffsetDateTime};

use crate::{
    checks::facts::Facts,
    exchange::bodies::Fakes,
    exchange::settings::Broker,
    exchange::short,
    exchange::timestamps,
    exchange::{Exchange, ReceivedResponse, SentRequest},
    target::clock_pool::{self, Lease},
    target::ledger::ScenarioRef,
    target::made::MadeTender,
    target::{ClockMode, ClockReading, FAULTS, Target},
};

/// Who sends a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    /// The broker that creates the tenders (`--broker`).
    Owner,
    /// The other broker (`--other-broker`): bidder, questioner, or intruder with a stolen token.
    Other,
    /// No `Authorization` header at all.
    Anonymous,
}

impl Actor {
    /// The party a read step names: `an anonymous client` (no credentials at all) or `another
    /// broker` (its credentials, no token). The spec shows only the listing read without
    /// credentials, so its other public reads go as another broker.
    pub fn reader(named: &str) -> Result<Actor, String> {
        match named {
            "an anonymous client" => Ok(Actor::Anonymous),
            "another broker" => Ok(Actor::Other),
            other => Err(format!("harness: unknown reader {other:?}")),
        }
    }
}

/// The body of a request.
#[derive(Clone, Debug)]
pub enum Payload {
    None,
    /// Sent as `application/json`.
    Json(Value),
    /// Sent as it is, with the given Content-Type (or none).
    Raw {
        content_type: Option<String>,
        text: String,
    },
}

/// Something the scenario created on the target.
#[derive(Clone, Debug, Default)]
pub struct Record {
    pub id: String,
    pub token: Option<String>,
    /// Its latest representation as read or returned.
    pub data: Value,
    /// The body that created it.
    pub sent: Value,
}

#[derive(Debug, cucumber::World)]
#[world(init = Self::new)]
pub struct TenderWorld {
    target: Option<Arc<Target>>,
    tags: Vec<String>,
    /// `Feature: scenario`, for the waits shown while the run goes.
    scenario: String,
    pub fakes: Fakes,
    /// The last exchange with the target.
    pub last: Option<Exchange>,
    /// The last response body as JSON (`Null` when it was not JSON).
    pub body: Value,
    pub tender: Option<Record>,
    /// The tender as it was before the last change the scenario made.
    pub tender_before: Value,
    pub documents: Vec<Record>,
    /// The document as it was before the last change the scenario made.
    pub document_before: Value,
    pub questions: Vec<Record>,
    pub bids: Vec<Record>,
    /// Rows collected by paging through the list.
    pub listed: Vec<Value>,
    /// Tenders created, in order; the last creation request, for repeating it.
    pub created: Vec<Record>,
    pub last_creation: Option<Value>,
    /// The target's own time just before the scenario's first tender was created.
    pub listed_from: Option<OffsetDateTime>,
    /// Values a step chose that a later step checks.
    pub noted: serde_json::Map<String, Value>,
    /// What the scenario learned about its records, re-checked on every later response.
    pub facts: Facts,
    /// Where the scenario is written, as the run's ledger names it.
    place: ScenarioRef,
    /// What the scenario's exchanges broke, by check: the first message and how many exchanges
    /// broke it. It fails the scenario once its steps are done (the run's ledger has it too).
    broken: Vec<(&'static crate::checks::rules::Check, String, usize)>,
    /// The test clock the scenario runs on, taken at its first need (a scenario that moves
    /// time, on a target that offers test clocks).
    clock: tokio::sync::OnceCell<Lease>,
}

impl TenderWorld {
    fn new() -> Self {
        TenderWorld {
            target: None,
            tags: Vec::new(),
            scenario: String::new(),
            fakes: Fakes::new(0),
            last: None,
            body: Value::Null,
            tender: None,
            tender_before: Value::Null,
            documents: Vec::new(),
            document_before: Value::Null,
            questions: Vec::new(),
            bids: Vec::new(),
            listed: Vec::new(),
            created: Vec::new(),
            last_creation: None,
            listed_from: None,
            noted: serde_json::Map::new(),
            facts: Facts::default(),
            place: ScenarioRef::default(),
            broken: Vec::new(),
            clock: tokio::sync::OnceCell::new(),
        }
    }

    /// Binds the World to the run's target and to its scenario: where it is written, its
    /// tags, and a random source derived from the run seed and the scenario name, so one
    /// scenario generates the same data whatever else runs beside it.
    pub fn enter(&mut self, target: Arc<Target>, place: ScenarioRef, tags: &[String]) {
        let mut hasher = DefaultHasher::new();
        (&place.feature, &place.name).hash(&mut hasher);
        self.fakes = Fakes::new(target.seed ^ hasher.finish());
        self.target = Some(target);
        self.tags = tags.to_vec();
        self.scenario = format!("{}: {}", place.feature, place.name);
        self.place = place;
    }

    /// What the scenario's exchanges broke, one line per check, each naming its rule.
    pub fn broken(&self) -> Vec<String> {
        self.broken
            .iter()
            .map(|(check, first, count)| {
                format!(
                    "{} by {count} exchange(s) ({}): {}",
                    crate::checks::rules::broken(check.rule),
                    check.text,
                    crate::exchange::short(first)
                )
            })
            .collect()
    }

    /// Gives the scenario's test clock back to the run, for the next scenario that moves time.
    pub fn release_clock(&mut self) {
        self.clock.take();
    }

    /// The test clock the scenario's time lives on: taken from the run at its first need in a
    /// scenario that moves time, on a target that offers them; `None` elsewhere.
    pub async fn scenario_clock(&self) -> Result<Option<&str>, String> {
        let target = self.target()?;
        let Some(pool) = target.test_clocks.as_ref() else {
            return Ok(None);
        };
        // The run makes a pool only when it moves the target's clock through its API. A
        // scenario failing requests on demand takes one too where the target scopes its rules
        // to a clock, so that they hit its own requests alone.
        let takes_one = self.has_tag("clock") || (self.has_tag("faults") && target.faults_by_clock);
        if !takes_one {
            return Ok(None);
        }
        let lease = self
            .clock
            .get_or_try_init(|| target.take_test_clock(pool))
            .await?;
        Ok(Some(lease.id.as_str()))
    }

    /// `now` and `frozen` of the clock the scenario's tenders live on: its test clock, else the
    /// owner's (the target's clock control API).
    pub async fn clock_reading(&self) -> Result<ClockReading, String> {
        let target = self.target()?;
        match self.scenario_clock().await? {
            Some(id) => target.test_clock_reading(id).await,
            None => target.clock_reading().await,
        }
    }

    /// `Feature: scenario` of the scenario this World runs.
    pub fn scenario_name(&self) -> &str {
        &self.scenario
    }

    pub fn target(&self) -> Result<Arc<Target>, String> {
        self.target
            .clone()
            .ok_or_else(|| "harness: the World was not bound to a target".to_owned())
    }

    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }

    pub fn tender(&self) -> Result<&Record, String> {
        self.tender
            .as_ref()
            .ok_or_else(|| "harness: the scenario has no tender yet".to_owned())
    }

    pub fn tender_mut(&mut self) -> Result<&mut Record, String> {
        self.tender
            .as_mut()
            .ok_or_else(|| "harness: the scenario has no tender yet".to_owned())
    }

    pub fn tender_token(&self) -> Result<String, String> {
        self.tender()?
            .token
            .clone()
            .ok_or_else(|| "the tender creation returned no access token".to_owned())
    }

    pub fn tender_path(&self) -> Result<String, String> {
        Ok(format!("/api/2.3/tenders/{}", self.tender()?.id))
    }

    pub fn bid(&self, index: usize) -> Result<&Record, String> {
        self.bids
            .get(index)
            .ok_or_else(|| format!("harness: the scenario has no bid number {}", index + 1))
    }

    pub fn last_bid_index(&self) -> Result<usize, String> {
        self.bids
            .len()
            .checked_sub(1)
            .ok_or_else(|| "harness: the scenario has no bid yet".to_owned())
    }

    pub fn document(&self) -> Result<&Record, String> {
        self.documents
            .last()
            .ok_or_else(|| "harness: the scenario has no document yet".to_owned())
    }

    pub fn question(&self) -> Result<&Record, String> {
        self.questions
            .last()
            .ok_or_else(|| "harness: the scenario has no question yet".to_owned())
    }

    /// The status code of the last response.
    pub fn status(&self) -> Result<u16, String> {
        self.response().map(|r| r.status)
    }

    pub fn response(&self) -> Result<&ReceivedResponse, String> {
        let last = self
            .last
            .as_ref()
            .ok_or_else(|| "harness: no request was sent yet".to_owned())?;
        last.response.as_ref().ok_or_else(|| {
            format!(
                "no response: {}",
                last.transport_error
                    .as_deref()
                    .unwrap_or("unknown transport error")
            )
        })
    }

    /// `data` of the last response.
    pub fn data(&self) -> &Value {
        &self.body["data"]
    }

    /// `data` of the last response as a list; `what` names it in the error when it is not one.
    pub fn data_list(&self, what: &str) -> Result<&Vec<Value>, String> {
        self.data()
            .as_array()
            .ok_or_else(|| format!("{what} is not a list"))
    }

    /// Sends one request and keeps it with its response as the last exchange. Fails only when
    /// no response arrives; what the response says is for the steps to judge.
    pub async fn send(
        &mut self,
        actor: Actor,
        method: Method,
        path_and_query: &str,
        payload: Payload,
    ) -> Result<(), String> {
        self.send_with_headers(actor, method, path_and_query, payload, &[])
            .await
    }

    /// [`Self::send`] of `data` in the envelope every write of the interface is sent in
    /// (`{"data": …}`).
    pub async fn send_data(
        &mut self,
        actor: Actor,
        method: Method,
        path_and_query: &str,
        data: Value,
    ) -> Result<(), String> {
        let payload = Payload::Json(serde_json::json!({ "data": data }));
        self.send(actor, method, path_and_query, payload).await
    }

    /// [`Self::send`] with extra request headers. Every exchange of the interface is then
    /// checked as a whole (see [`Self::judge`]): a statement of the spec it breaks is recorded,
    /// naming the rule, and fails the scenario once its steps are done.
    pub async fn send_with_headers(
        &mut self,
        actor: Actor,
        method: Method,
        path_and_query: &str,
        payload: Payload,
        extra_headers: &[(&str, String)],
    ) -> Result<(), String> {
        if method == Method::POST && creates_a_tender(path_and_query) {
            self.note_listing_start().await?;
        }
        let (exchange, body) = self
            .exchange(
                actor,
                method.clone(),
                path_and_query,
                payload,
                extra_headers,
            )
            .await?;
        self.body = body;
        let failed = exchange
            .transport_error
            .as_ref()
            .map(|e| format!("{method} {}: no response: {e}", exchange.request.url));
        self.last = Some(exchange);
        if let Some(message) = failed {
            return Err(message);
        }
        self.judge(actor).await;
        Ok(())
    }

    /// Notes the target's own time before the scenario's first tender is created: the
    /// listing is ordered by it, whichever clock the tenders live on.
    pub async fn note_listing_start(&mut self) -> Result<(), String> {
        if self.listed_from.is_none() {
            self.listed_from = Some(self.target()?.server_now().await?);
        }
        Ok(())
    }

    /// One request and its response, touching nothing of the scenario's state.
    pub(crate) async fn exchange(
        &self,
        actor: Actor,
        method: Method,
        path_and_query: &str,
        payload: Payload,
        extra_headers: &[(&str, String)],
    ) -> Result<(Exchange, Value), String> {
        let target = self.target()?;
        let url = if path_and_query.starts_with("http://") || path_and_query.starts_with("https://")
        {
            path_and_query.to_owned()
        } else {
            target.url(path_and_query)
        };
        let payload = match payload {
            Payload::Json(mut body)
                if method == Method::POST && creates_a_tender(path_and_query) =>
            {
                target
                    .acceleration
                    .add_to(&mut body, self.has_tag("live-auction"));
                Payload::Json(body)
            }
            other => other,
        };
        // A tender the owner creates in a scenario that moves time lives on its test clock, and
        // the owner's fault rules are set for that clock's requests.
        let on_clock = match actor {
            Actor::Owner if method == Method::POST && creates_a_tender(path_and_query) => {
                self.scenario_clock().await?
            }
            Actor::Owner if path_and_query.starts_with(FAULTS) => self.scenario_clock().await?,
            _ => None,
        };
        let mut request = target.client.request(method.clone(), &url);
        let mut sent = SentRequest {
            method: method.to_string(),
            url: url.clone(),
            ..SentRequest::default()
        };
        let broker: Option<&Broker> = match actor {
            Actor::Owner => Some(&target.owner),
            Actor::Other => Some(&target.other),
            Actor::Anonymous => None,
        };
        if let Some(broker) = broker {
            request = request.basic_auth(&broker.name, Some(&broker.password));
            sent.headers.push((
                "Authorization".into(),
                // The password stays out of reports.
                format!("Basic <credentials of broker {:?}>", broker.name),
            ));
        }
        if let Some(id) = on_clock {
            request = request.header(clock_pool::HEADER, id);
            sent.headers
                .push((clock_pool::HEADER.to_owned(), id.to_owned()));
        }
        for (name, value) in extra_headers {
            request = request.header(*name, value.as_str());
            sent.headers.push(((*name).to_owned(), value.clone()));
        }
        match payload {
            Payload::None => {}
            Payload::Json(value) => {
                let text = value.to_string();
                request = request
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(text.clone());
                sent.headers
                    .push(("Content-Type".into(), "application/json".into()));
                sent.body = Some(text);
            }
            Payload::Raw { content_type, text } => {
                if let Some(ct) = content_type {
                    request = request.header(reqwest::header::CONTENT_TYPE, ct.clone());
                    sent.headers.push(("Content-Type".into(), ct));
                }
                request = request.body(text.clone());
                sent.body = Some(text);
            }
        }
        // A read the target asks to repeat later (429 or 503 with `Retry-After`) is repeated
        // after the wait it names, and a read that timed out is asked again once the pace has
        // slowed, a few times at most; a write only after a 429, which refused it undone: a 5xx
        // or a timeout may have carried it out, and repeating it could do twice what was asked
        // once.
        let reads = method == Method::GET || method == Method::HEAD;
        let (mut asked, mut timed_out) = (0, 0);
        let answer = loop {
            let again = if asked < ASKED_REPEATS || (reads && timed_out < TIMEOUT_REPEATS) {
                request.try_clone()
            } else {
                None
            };
            let flight = target.pace.begin(method.as_str(), &url).await;
            let answer = match request.send().await {
                Ok(response) => {
                    let got = Got::read(response).await;
                    target.pace.answered(flight);
                    Ok(got)
                }
                Err(e) => {
                    if e.is_timeout() {
                        target.pace.timed_out(flight);
                    } else {
                        target.pace.failed(flight);
                    }
                    Err(e)
                }
            };
            let Some(again) = again else {
                break answer;
            };
            match &answer {
                // A 429 refused the request before doing it, so a write may be repeated after it
                // too; after a 503 only a read is (a write may have been carried out).
                Ok(got) if asked < ASKED_REPEATS && (reads || got.status.as_u16() == 429) => {
                    match got.asked_wait() {
                        Some(wait) => {
                            target.waited_as_asked(wait);
                            tokio::time::sleep(wait).await;
                            asked += 1;
                        }
                        None => break answer,
                    }
                }
                Err(e) if e.is_timeout() && timed_out < TIMEOUT_REPEATS => timed_out += 1,
                _ => break answer,
            }
            request = again;
        };
        match answer {
            Ok(got) => {
                let body = serde_json::from_str(&got.text).unwrap_or(Value::Null);
                note_made(
                    &target,
                    actor,
                    &method,
                    path_and_query,
                    got.status.as_u16(),
                    &body,
                );
                let exchange = Exchange {
                    request: sent,
                    response: Some(ReceivedResponse {
                        status: got.status.as_u16(),
                        reason: got.status.canonical_reason().unwrap_or("").to_owned(),
                        headers: got.headers,
                        body: got.text,
                    }),
                    transport_error: None,
                };
                Ok((exchange, body))
            }
            Err(e) => Ok((
                Exchange {
                    request: sent,
                    response: None,
                    transport_error: Some(if e.is_timeout() {
                        format!(
                            "no answer within {} s (--timeout){}",
                            target.timeout.as_secs(),
                            if timed_out > 0 {
                                format!(", asked {} time(s) at a slower pace", timed_out + 1)
                            } else {
                                String::new()
                            }
                        )
                    } else {
                        e.to_string()
                    }),
                },
                Value::Null,
            )),
        }
    }

    /// Sends and requires one status code; the message names what was attempted.
    pub async fn send_expecting(
        &mut self,
        what: &str,
        expected: u16,
        actor: Actor,
        method: Method,
        path: &str,
        payload: Payload,
    ) -> Result<(), String> {
        self.send(actor, method, path, payload).await?;
        let status = self.status()?;
        if status != expected {
            return Err(format!(
                "{what}: expected status {expected}, got {status}: {}",
                short(&self.response()?.body)
            ));
        }
        Ok(())
    }

    /// Reads `path` as `actor` and requires 200; the message names what was read.
    pub async fn read(&mut self, what: &str, actor: Actor, path: &str) -> Result<(), String> {
        self.send_expecting(what, 200, actor, Method::GET, path, Payload::None)
            .await
    }

    /// The scenario's "now": its test clock's, else the target's (clock API or `Date` header).
    pub async fn now(&self) -> Result<OffsetDateTime, String> {
        match self.scenario_clock().await? {
            Some(id) => Ok(self.target()?.test_clock_reading(id).await?.now),
            None => self.target()?.now().await,
        }
    }

    /// End dates for a new tender's periods, from the target's now: a week each, or seconds
    /// long when the scenario must wait for them in real time. With an accelerator they stay
    /// the week the target's compressed durations (stand-stills of days) fit in, compressed
    /// the same (never shorter than `--period`).
    pub async fn period_ends(&self) -> Result<(OffsetDateTime, OffsetDateTime), String> {
        let target = self.target()?;
        let now = self.now().await?;
        let week = Duration::days(7);
        if target.clock == ClockMode::RealTime && self.has_tag("clock") {
            let mut step = Duration::try_from(target.period).map_err(|e| e.to_string())?;
            if let Some(factor) = target.acceleration.factor() {
                step = step.max(week / factor);
            }
            Ok((now + step, now + step * 2))
        } else {
            Ok((now + week, now + week * 2))
        }
    }

    /// A `{"data": {url, title, hash, format}}` body of a new PDF document: a file uploaded to
    /// the run's document service (its answer gives the address, hash and format), or, without
    /// one, an address of a store that does not exist.
    pub async fn document_body(&mut self) -> Result<Value, String> {
        let mut body = self.fakes.document();
        let title = crate::checks::as_text(&body["data"]["title"]);
        if let Some(uploaded) = self.target()?.upload_document(&title).await? {
            for field in ["url", "hash", "format", "title"] {
                if let Some(value) = uploaded.get(field) {
                    body["data"][field] = value.clone();
                }
            }
        }
        Ok(body)
    }

    /// A tender body with periods from [`Self::period_ends`], dates written with offsets.
    pub async fn tender_body(&mut self) -> Result<Value, String> {
        Ok(self.tender_bodies(1).await?.remove(0))
    }

    /// `count` different tender bodies with the same periods.
    pub async fn tender_bodies(&mut self, count: usize) -> Result<Vec<Value>, String> {
        let (enquiry_end, tender_end) = self.period_ends().await?;
        let delivery = tender_end + Duration::days(60);
        let dates = [enquiry_end, tender_end, delivery].map(timestamps::format);
        Ok((0..count.max(1))
            .map(|_| self.fakes.tender(&dates[0], &dates[1], &dates[2]))
            .collect())
    }

    /// Reads the tender and keeps its representation: as the owner, without a token (the spec
    /// shows only the listing read without credentials).
    pub async fn refresh_tender(&mut self) -> Result<(), String> {
        let path = self.tender_path()?;
        self.read("reading the tender", Actor::Owner, &path).await?;
        let data = self.data().clone();
        self.tender_mut()?.data = data;
        Ok(())
    }

    /// A tender field of the latest representation, by JSON pointer (`/tenderPeriod/endDate`).
    pub fn tender_field(&self, pointer: &str) -> Result<Value, String> {
        self.tender()?
            .data
            .pointer(pointer)
            .cloned()
            .ok_or_else(|| format!("the tender has no {pointer}"))
    }

    pub fn tender_instant(&self, pointer: &str) -> Result<OffsetDateTime, String> {
        let value = self.tender_field(pointer)?;
        value
            .as_str()
            .and_then(timestamps::parse)
            .ok_or_else(|| format!("the tender's {pointer} is not a timestamp: {value}"))
    }
}

/// Notes what an answer made with a token the run now holds: a tender created, a contract
/// under management's credentials taken. The run settles them at its end.
fn note_made(
    target: &Target,
    actor: Actor,
    method: &Method,
    path_and_query: &str,
    status: u16,
    body: &Value,
) {
    let path = path_and_query.split('?').next().unwrap_or("");
    let id = body.pointer("/data/id").and_then(Value::as_str);
    if let Some(rule) = id.filter(|_| *method == Method::POST && status == 201 && path == FAULTS) {
        target.made.fault_rule(rule, actor == Actor::Owner);
        return;
    }
    let (Some(id), Some(token)) = (id, body.pointer("/access/token").and_then(Value::as_str))
    else {
        return;
    };
    if *method == Method::POST && status == 201 && creates_a_tender(path_and_query) {
        target.made.tender(MadeTender {
            id: id.to_owned(),
            token: token.to_owned(),
            by_owner: actor == Actor::Owner,
        });
    } else if *method == Method::PATCH
        && status == 200
        && path.strip_prefix("/api/2.3/contracts/") == Some(&format!("{id}/credentials"))
    {
        target.made.contract(id, token);
    }
}

/// Whether a request to `path_and_query` creates a tender (when it is a POST).
fn creates_a_tender(path_and_query: &str) -> bool {
    path_and_query.split('?').next() == Some("/api/2.3/tenders")
}

impl TenderWorld {
    /// Keeps the last response as the tender's representation when it is one.
    pub fn adopt_tender(&mut self) {
        let ok = matches!(self.status(), Ok(200 | 201));
        let data = self.body["data"].clone();
        if let (true, Some(tender)) = (ok, self.tender.as_mut())
            && data["id"] == tender.id.as_str()
        {
            tender.data = data;
        }
    }

    /// Remembers the tender as it is now, before a change.
    pub fn remember_tender(&mut self) {
        self.tender_before = self
            .tender
            .as_ref()
            .map(|t| t.data.clone())
            .unwrap_or_default();
    }

    /// What the last response created, when it answered 201: its id, its data and its access
    /// token (where it carries one), with the body that was sent.
    pub fn created_record(&self, sent: Value) -> Result<Option<Record>, String> {
        if self.status()? != 201 {
            return Ok(None);
        }
        let data = self.data().clone();
        Ok(Some(Record {
            id: crate::checks::as_text(&data["id"]),
            token: self
                .body
                .pointer("/access/token")
                .and_then(Value::as_str)
                .map(str::to_owned),
            data,
            sent,
        }))
    }

    /// The value a step noted under `key`.
    pub fn recall(&self, key: &str) -> Result<Value, String> {
        self.noted
            .get(key)
            .cloned()
            .ok_or_else(|| format!("harness: nothing was noted as {key}"))
    }

    /// [`Self::recall`] as text.
    pub fn recall_text(&self, key: &str) -> Result<String, String> {
        Ok(crate::checks::as_text(&self.recall(key)?))
    }

    /// The ids a step noted under `key`, in order (none when nothing was noted).
    pub fn noted_ids(&self, key: &str) -> Vec<String> {
        self.noted
            .get(key)
            .and_then(Value::as_array)
            .map(|ids| ids.iter().map(crate::checks::as_text).collect())
            .unwrap_or_default()
    }

    /// The body of the scenario's last creation request.
    pub fn last_creation(&self) -> Result<Value, String> {
        self.last_creation
            .clone()
            .ok_or_else(|| "harness: nothing was created yet".to_owned())
    }

    /// The tender path with the tender token as `acc_token`.
    pub fn tender_path_with_token(&self) -> Result<String, String> {
        Ok(format!(
            "{}?acc_token={}",
            self.tender_path()?,
            self.tender_token()?
        ))
    }
}

/// How many times a read is repeated after a `Retry-After`.
const ASKED_REPEATS: u32 = 3;
/// How many times a read that timed out is asked again, at the slower pace the timeout left.
const TIMEOUT_REPEATS: u32 = 2;
/// A longer `Retry-After` is not waited for: the answer stands, and the scenario judges it.
const LONGEST_ASKED_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// A response read whole: its status, headers and body.
struct Got {
    status: reqwest::StatusCode,
    headers: Vec<(String, String)>,
    text: String,
}

impl Got {
    async fn read(response: reqwest::Response) -> Got {
        let status = response.status();
        let headers = response
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let text = response.text().await.unwrap_or_default();
        Got {
            status,
            headers,
            text,
        }
    }

    /// The wait a `429` or `503` asks for in `Retry-After` (seconds, or an HTTP date), when it
    /// is one the run may honour.
    fn asked_wait(&self) -> Option<std::time::Duration> {
        let status = self.status.as_u16();
        if status != 429 && status != 503 {
            return None;
        }
        let text = self
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("retry-after"))?
            .1
            .trim();
        let wait = match text.parse::<u64>() {
            Ok(seconds) => std::time::Duration::from_secs(seconds),
            Err(_) => httpdate::parse_http_date(text)
                .ok()?
                .duration_since(std::time::SystemTime::now())
                .unwrap_or_default(),
        };
        (wait <= LONGEST_ASKED_WAIT).then_some(wait)
    }
}
