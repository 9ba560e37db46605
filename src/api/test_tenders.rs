//! The test helper `POST /testing/tenders` (with `--testing` or `--sandbox`): a tender in any
//! status in one call, made on a new test clock of its own by sending the API's own requests,
//! one by one, through the server's service as the brokers involved would send them.
//!
//! Nothing is written directly: the clock is created, the tender created and published, bids
//! placed (by the other brokers on a server its runner owns; on a public sandbox by the
//! caller alone, each for a tenderer of its own), the clock moved past each date the tender announces, awards
//! decided, contracts signed and handed over, each by a request every rule and token check of
//! the API judges. The shape is checked before anything is made, so a refused shape leaves
//! nothing behind; a tender the API refuses to create takes its new clock with it. The
//! helper's own requests skip the fault layer (faults set for a broker's requests must not
//! break a procurement halfway), the request to the helper itself meets it as any other.

use crate::http::auth::Level;
use crate::http::error::{ApiError, Handled};
use crate::http::{API_PREFIX, App, app, body, reply};
use salvo::Service;
use salvo::http::header::{AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue};
use salvo::http::{Method, ReqBody, ResBody, StatusCode};
use salvo::prelude::*;
use serde_json::{Map, Value as Json, json};
use std::sync::Arc;
use time::format_description::well_known::Rfc3339;

/// The statuses the helper reaches, in the order a procurement meets them.
pub const STATUSES: &[&str] = &[
    "draft",
    "active.enquiries",
    "active.tendering",
    "active.auction",
    "active.qualification",
    "active.awarded",
    "complete",
    "unsuccessful",
    "cancelled",
];

/// The most lots a made tender holds.
pub const MOST_LOTS: u64 = 10;

/// The handler, holding how to build the service its requests go through (the server's own,
/// without the fault layer).
pub struct Create(pub fn(Arc<App>) -> Service);

#[async_trait]
impl Handler for Create {
    async fn handle(
        &self,
        req: &mut Request,
        depot: &mut Depot,
        res: &mut Response,
        _ctrl: &mut FlowCtrl,
    ) {
        match create(self.0, req, depot, res).await {
            Ok(()) => {}
            Err(e) => e.render(res),
        }
    }
}

/// What the caller asked for, checked.
struct Shape {
    status: &'static str,
    bids: usize,
    lots: u64,
    features: bool,
    live: bool,
    contract: Option<&'static str>,
    bidders: Vec<String>,
    tender: Map<String, Json>,
}

fn refuse(name: &str, description: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "body", name, description)
}

fn one_of(
    data: &Map<String, Json>,
    name: &str,
    offered: &[&'static str],
) -> Result<Option<&'static str>, ApiError> {
    match data.get(name) {
        None | Some(Json::Null) => Ok(None),
        Some(v) => v
            .as_str()
            .and_then(|s| offered.iter().find(|o| **o == s).copied())
            .map(Some)
            .ok_or_else(|| refuse(name, format!("Value must be one of {offered:?}."))),
    }
}

fn count(data: &Map<String, Json>, name: &str) -> Result<Option<u64>, ApiError> {
    match data.get(name) {
        None | Some(Json::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| refuse(name, "Should be a whole number, 0 or more.")),
    }
}

/// The names `bidders` holds, if given (a list of strings), in order.
fn listed_bidders(data: &Map<String, Json>) -> Result<Option<Vec<&str>>, ApiError> {
    match data.get("bidders") {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Array(names)) => names
            .iter()
            .map(|name| {
                name.as_str()
                    .ok_or_else(|| refuse("bidders", "Should hold brokers' names."))
            })
            .collect::<Result<Vec<&str>, ApiError>>()
            .map(Some),
        Some(_) => Err(refuse("bidders", "Should hold brokers' names.")),
    }
}

/// The bidder of each of `bids` bids on a public sandbox: the caller, every time. `bidders`
/// may name the caller; any other name is refused (403) without saying whether a broker of
/// that name exists.
fn own_bidders(
    data: &Map<String, Json>,
    caller: &str,
    bids: usize,
) -> Result<Vec<String>, ApiError> {
    if let Some(names) = listed_bidders(data)?
        && let Some(other) = names.iter().find(|n| **n != caller)
    {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "body",
            "bidders",
            format!(
                "On a public sandbox the test helper bids in its caller's name alone, and \
                 {other} is not {caller}: nobody acts as another broker here. Leave bidders \
                 out, or name only {caller}: the bids are then {caller}'s own, each from a \
                 tenderer of its own."
            ),
        ));
    }
    Ok(vec![caller.to_string(); bids])
}

/// The bidders of `bids` bids on a server its runner owns: one bid per broker, those
/// `bidders` names or by default the other known brokers in name order.
fn named_bidders(
    app: &App,
    data: &Map<String, Json>,
    caller: &str,
    bids: usize,
) -> Result<Vec<String>, ApiError> {
    let bidders: Vec<String> = match listed_bidders(data)? {
        None => {
            let mut others: Vec<String> = app
                .brokers
                .names()
                .into_iter()
                .filter(|n| *n != caller)
                .map(str::to_string)
                .collect();
            others.sort();
            others
        }
        Some(names) => {
            let mut bidders: Vec<String> = Vec::new();
            for name in names {
                if !app.brokers.knows(name) {
                    return Err(refuse("bidders", format!("No broker is named {name}.")));
                }
                if bidders.iter().any(|b| b == name) {
                    return Err(refuse(
                        "bidders",
                        format!("{name} is named twice: each bidder places one bid."),
                    ));
                }
                bidders.push(name.to_string());
            }
            bidders
        }
    };
    if bids > bidders.len() {
        return Err(refuse(
            "bids",
            format!(
                "{bids} bids need {bids} bidders, one bid each; {} {} known: {}.",
                bidders.len(),
                if bidders.len() == 1 { "is" } else { "are" },
                if bidders.is_empty() {
                    "none".to_string()
                } else {
                    bidders.join(", ")
                }
            ),
        ));
    }
    let mut bidders = bidders;
    bidders.truncate(bids);
    Ok(bidders)
}

impl Shape {
    /// Reads and checks the shape for `caller`: every refusal here comes before anything is
    /// made.
    fn read(app: &App, caller: &str, data: &Json) -> Result<Shape, ApiError> {
        let data = data
            .as_object()
            .ok_or_else(|| refuse("data", "Data not available"))?;
        let known = [
            "status", "bids", "lots", "features", "auction", "contract", "bidders", "tender",
        ];
        if let Some(rogue) = data.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(refuse(rogue, "Rogue field"));
        }
        let status = one_of(data, "status", STATUSES)?
            .ok_or_else(|| refuse("status", "This field is required."))?;
        let lots = count(data, "lots")?.unwrap_or(0);
        if lots > MOST_LOTS {
            return Err(refuse(
                "lots",
                format!("A made tender holds at most {MOST_LOTS} lots."),
            ));
        }
        let features = match data.get("features") {
            None | Some(Json::Null) => false,
            Some(Json::Bool(b)) => *b,
            Some(_) => return Err(refuse("features", "Should be true or false.")),
        };
        let tender = match data.get("tender") {
            None | Some(Json::Null) => Map::new(),
            Some(Json::Object(o)) => o.clone(),
            Some(_) => return Err(refuse("tender", "Should be an object.")),
        };
        let before_tendering = matches!(status, "draft" | "active.enquiries");
        let default_bids = if before_tendering || matches!(status, "unsuccessful" | "cancelled") {
            0
        } else {
            2
        };
        let bids = count(data, "bids")?.map_or(default_bids, |n| n as usize);
        let reason = match status {
            _ if before_tendering && bids > 0 => Some(format!(
                "A tender in {status} holds no bids: bids are placed once tendering starts."
            )),
            "active.auction" if bids < 2 => Some(
                "A tender reaches active.auction with 2 bids or more: with fewer it goes from \
                 tendering straight to qualification or to unsuccessful."
                    .to_string(),
            ),
            "active.qualification" | "active.awarded" | "complete" if bids < 1 => Some(format!(
                "A tender reaches {status} with a bid at least: without one it ends unsuccessful."
            )),
            "unsuccessful" if bids > 0 => Some(
                "A tender with bids does not end unsuccessful here: it is awarded. Ask for 0 bids."
                    .to_string(),
            ),
            _ => None,
        };
        if let Some(reason) = reason {
            return Err(refuse("bids", reason));
        }
        let auction = one_of(data, "auction", &["fast-forward", "live"])?;
        let live = match (status, auction) {
            ("active.auction", Some("fast-forward")) => {
                return Err(refuse(
                    "auction",
                    "A fast-forwarded auction is settled the moment tendering ends: a tender \
                     in active.auction has its auction live.",
                ));
            }
            ("active.auction", _) => true,
            (_, auction) => auction == Some("live"),
        };
        let contract = one_of(data, "contract", &["active", "terminated"])?;
        if contract.is_some() && status != "complete" {
            return Err(refuse(
                "contract",
                "A contract is under management once its tender is complete: ask for status \
                 complete.",
            ));
        }
        // On a public sandbox nobody acts as another broker, the helper included: its bids
        // are the caller's own, each from a tenderer of its own. A server its runner owns
        // (`--testing`) lets it place them in the other brokers' names.
        let public = app.mode.is_public();
        let bidders = if public {
            own_bidders(data, caller, bids)?
        } else {
            named_bidders(app, data, caller, bids)?
        };
        for name in &bidders {
            if !app
                .brokers
                .of_name(name)
                .is_some_and(|b| b.accredited(Level::Participation))
            {
                return Err(refuse(
                    "bidders",
                    format!("{name} is not accredited to place bids."),
                ));
            }
        }
        Ok(Shape {
            status,
            bids,
            lots,
            features,
            live,
            contract,
            bidders,
            tender,
        })
    }

    /// The tender to create: a default below-threshold tender dated from `now`, the asked lots
    /// and features, and the caller's fields merged over it.
    fn body(&self, now: &str) -> Result<Json, ApiError> {
        let after = |days: i64| -> Result<String, ApiError> {
            let t = time::OffsetDateTime::parse(now, &Rfc3339)
                .map_err(|_| failed("read the test clock's time", now))?;
            (t + time::Duration::days(days))
                .format(&Rfc3339)
                .map_err(|_| failed("date the tender", now))
        };
        let organization = json!({
            "name": "Державне управління справами",
            "identifier": {"scheme": "UA-EDR", "id": "00037256"},
            "address": {"countryName": "Україна", "postalCode": "01220", "region": "м. Київ", "streetAddress": "вул. Банкова, 11", "locality": "м. Київ"},
            "contactPoint": {"name": "Державне управління справами", "telephone": "0440000000"}
        });
        let mut entity = organization;
        entity["kind"] = json!("general");
        let item = json!({
            "description": "Послуги шкільних їдалень",
            "classification": {"scheme": "ДК021", "id": "55523100-3", "description": "Послуги з харчування у школах"},
            "unit": {"code": "44617100-9", "name": "item"},
            "quantity": 5,
            "deliveryDate": {"endDate": after(30)?},
            "deliveryAddress": {"countryName": "Україна", "postalCode": "79000", "region": "м. Київ", "streetAddress": "вул. Банкова 1", "locality": "м. Київ"}
        });
        let mut body = json!({
            "procurementMethodType": "belowThreshold",
            "title": "Тендер, зроблений тестовим помічником",
            "value": {"amount": 500 * self.lots.max(1), "currency": "UAH"},
            "minimalStep": {"amount": 15, "currency": "UAH"},
            "enquiryPeriod": {"endDate": after(1)?},
            "tenderPeriod": {"endDate": after(4)?},
            "procuringEntity": entity,
        });
        if self.lots == 0 {
            let mut item = item;
            item["id"] = json!("item-1");
            body["items"] = json!([item]);
        } else {
            let lots: Vec<Json> = (1..=self.lots)
                .map(|n| json!({"id": format!("{n:032x}"), "title": format!("Лот {n}"), "value": {"amount": 500}, "minimalStep": {"amount": 15}}))
                .collect();
            let items: Vec<Json> = (1..=self.lots)
                .map(|n| {
                    let mut item = item.clone();
                    item["id"] = json!(format!("item-{n}"));
                    item["relatedLot"] = json!(format!("{n:032x}"));
                    item
                })
                .collect();
            body["lots"] = json!(lots);
            body["items"] = json!(items);
        }
        if self.features {
            body["features"] = json!([{"code": "delivery", "featureOf": "tenderer", "title": "Доставка",
                "enum": [{"value": 0.0, "title": "ні"}, {"value": 0.1, "title": "так"}]}]);
        }
        merge(&mut body, &Json::Object(self.tender.clone()));
        // The helper settles or holds the auction itself: its own word, whatever was merged.
        body["submissionMethodDetails"] = json!(if self.live {
            "quick"
        } else {
            "quick(mode:fast-forward)"
        });
        if self.status == "draft" {
            body["status"] = json!("draft");
        }
        Ok(body)
    }
}

/// `over` merged into `base`: objects key by key, anything else replaced, `null` removing.
fn merge(base: &mut Json, over: &Json) {
    match (base, over) {
        (Json::Object(base), Json::Object(over)) => {
            for (key, value) in over {
                if value.is_null() {
                    base.remove(key);
                } else {
                    merge(base.entry(key.clone()).or_insert(Json::Null), value);
                }
            }
        }
        (base, over) => *base = over.clone(),
    }
}

/// A step the API refused although the shape allowed it: the tender made so far stays, on its
/// clock, as any broker's would.
fn failed(step: &str, why: &str) -> ApiError {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "body",
        "data",
        format!("The test helper could not {step}: {why}"),
    )
}

/// One answer of the API to the helper's request.
struct Answer {
    status: u16,
    body: Json,
}

impl Answer {
    fn why(&self) -> String {
        let e = &self.body["errors"][0];
        match (e["name"].as_str(), e["description"].as_str()) {
            (Some(name), Some(d)) => format!("{} ({name}: {d})", self.status),
            _ => format!("{}", self.status),
        }
    }

    /// The answer, which must have the status `want`; anything else fails the helper at
    /// `step`.
    fn want(self, step: &str, want: u16) -> Result<Answer, ApiError> {
        if self.status == want {
            Ok(self)
        } else {
            Err(failed(step, &self.why()))
        }
    }

    fn text(&self, pointer: &str) -> String {
        self.body
            .pointer(pointer)
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_string()
    }
}

/// Sends the helper's requests through the service, as the request it answers came: its host
/// and scheme, so that every address the API hands out is the caller's.
struct Driver {
    service: Service,
    host: Option<HeaderValue>,
    scheme: salvo::http::uri::Scheme,
    remote: salvo::conn::SocketAddr,
    local: salvo::conn::SocketAddr,
}

impl Driver {
    async fn send(
        &self,
        method: Method,
        path: &str,
        key: &str,
        data: Option<Json>,
        headers: &[(&'static str, &str)],
    ) -> Result<Answer, ApiError> {
        let mut req = Request::new();
        *req.method_mut() = method;
        *req.uri_mut() = path
            .parse()
            .map_err(|_| failed("address a request", path))?;
        *req.scheme_mut() = self.scheme.clone();
        *req.remote_addr_mut() = self.remote.clone();
        let h = req.headers_mut();
        if let Some(host) = &self.host {
            h.insert(HOST, host.clone());
        }
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let bearer = HeaderValue::from_str(&format!("Bearer {key}"))
            .map_err(|_| failed("present a broker's key", "it is no header value"))?;
        h.insert(AUTHORIZATION, bearer);
        for (name, value) in headers {
            let value = HeaderValue::from_str(value)
                .map_err(|_| failed("send a header", "it is no header value"))?;
            h.insert(*name, value);
        }
        if let Some(data) = data {
            *req.body_mut() = ReqBody::Once(json!({ "data": data }).to_string().into());
        }
        let mut res = self
            .service
            .hyper_handler(
                self.local.clone(),
                self.remote.clone(),
                self.scheme.clone(),
                None,
                salvo::ConnCtrl::new(),
                None,
            )
            .handle(req)
            .await;
        let status = res.status_code.map_or(200, |s| s.as_u16());
        let bytes: Vec<u8> = match res.take_body() {
            ResBody::Once(b) => b.to_vec(),
            ResBody::Chunks(chunks) => chunks.iter().flat_map(|c| c.iter().copied()).collect(),
            _ => Vec::new(),
        };
        let body = serde_json::from_slice(&bytes).unwrap_or(Json::Null);
        Ok(Answer { status, body })
    }
}

/// A moment a second past `at` (RFC 3339), where the clock goes to pass a date.
fn second_past(at: &str) -> Result<String, ApiError> {
    let t = time::OffsetDateTime::parse(at, &Rfc3339)
        .map_err(|_| failed("read a date the tender announced", at))?;
    (t + time::Duration::seconds(1))
        .format(&Rfc3339)
        .map_err(|_| failed("move the clock past", at))
}

/// One procurement being driven: the driver, the owner's key, the clock and the tender.
struct Run<'a> {
    driver: &'a Driver,
    owner_key: &'a str,
    clock: String,
    tender: String,
    token: String,
}

impl Run<'_> {
    async fn read(&self) -> Result<Json, ApiError> {
        let path = format!("{API_PREFIX}/tenders/{}", self.tender);
        let answer = self
            .driver
            .send(Method::GET, &path, self.owner_key, None, &[])
            .await?
            .want("read the tender", 200)?;
        Ok(answer.body["data"].clone())
    }

    /// The clock moved a second past `at`.
    async fn past(&self, at: &str) -> Handled {
        let path = format!("/testing/clocks/{}", self.clock);
        let data = json!({"now": second_past(at)?});
        self.driver
            .send(Method::POST, &path, self.owner_key, Some(data), &[])
            .await?
            .want("move the test clock", 200)?;
        Ok(())
    }

    /// The tender, read, which must be in `status`.
    async fn in_status(&self, status: &str) -> Result<Json, ApiError> {
        let t = self.read().await?;
        if t["status"] == status {
            Ok(t)
        } else {
            Err(failed(
                &format!("bring the tender to {status}"),
                &format!("it is in {}", t["status"]),
            ))
        }
    }

    /// An owner's write on a path under the tender.
    async fn owner(
        &self,
        step: &str,
        want: u16,
        method: Method,
        under: &str,
        data: Json,
    ) -> Result<Answer, ApiError> {
        let path = format!(
            "{API_PREFIX}/tenders/{}{under}?acc_token={}",
            self.tender, self.token
        );
        self.driver
            .send(method, &path, self.owner_key, Some(data), &[])
            .await?
            .want(step, want)
    }

    async fn cancel(&self) -> Handled {
        let data = json!({"reason": "Скасовано тестовим помічником", "status": "active"});
        self.owner(
            "cancel the tender",
            201,
            Method::POST,
            "/cancellations",
            data,
        )
        .await?;
        Ok(())
    }
}

async fn create(
    make: fn(Arc<App>) -> Service,
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Handled {
    let app = app(depot)?;
    let body = body::read(req, app.max_body).await?;
    let (caller, owner_key) = match app.brokers.caller(req)? {
        Some(broker) => (broker.name.clone(), app.brokers.key_of(&broker.name)),
        None => {
            return Err(ApiError::forbidden_because(
                "the test helper makes a broker's tender: call with your broker's credentials",
            ));
        }
    };
    let owner_key = owner_key.ok_or_else(ApiError::forbidden)?.to_string();
    let data = body.data()?.to_value();
    let shape = Shape::read(&app, &caller, &data)?;
    let pretty = reply::wants_pretty(req) || body.pretty();
    let driver = Driver {
        service: make(app.clone()),
        host: req.headers().get(HOST).cloned(),
        scheme: req.scheme().clone(),
        remote: req.remote_addr().clone(),
        local: req.local_addr().clone(),
    };
    let key = owner_key.as_str();

    let clock = driver
        .send(
            Method::POST,
            "/testing/clocks",
            key,
            Some(json!({"name": format!("{} by the test helper", shape.status)})),
            &[],
        )
        .await?;
    // A broker at its limit of clocks is told so, as the clock API tells it (409), and
    // nothing is made.
    if clock.status == 409 {
        let why = clock.body["errors"][0]["description"]
            .as_str()
            .unwrap_or_default();
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "body",
            "data",
            format!("The test helper makes the tender a test clock of its own: {why}"),
        ));
    }
    let clock = clock.want("create a test clock", 201)?;
    let clock_id = clock.text("/data/id");
    let tender_body = shape.body(&clock.text("/data/now"))?;
    let made = driver
        .send(
            Method::POST,
            &format!("{API_PREFIX}/tenders"),
            key,
            Some(tender_body),
            &[(super::test_clocks::HEADER, &clock_id)],
        )
        .await?;
    if made.status != 201 {
        // The tender's own fields were refused: the new clock goes with it, and the refusal
        // is the caller's to read.
        driver
            .send(
                Method::DELETE,
                &format!("/testing/clocks/{clock_id}"),
                key,
                None,
                &[],
            )
            .await?;
        let status = StatusCode::from_u16(made.status).unwrap_or(StatusCode::UNPROCESSABLE_ENTITY);
        error_answer(res, status, made.body);
        return Ok(());
    }
    let run = Run {
        driver: &driver,
        owner_key: key,
        clock: clock_id,
        tender: made.text("/data/id"),
        token: made.text("/access/token"),
    };
    let (bids, contracts) = drive(&app, &run, &shape, &made.body["data"]).await?;

    let tender = run.read().await?;
    let clock = driver
        .send(
            Method::GET,
            &format!("/testing/clocks/{}", run.clock),
            key,
            None,
            &[],
        )
        .await?
        .want("read the test clock", 200)?;
    let location = format!("{}/tenders/{}", app.api_root(req), run.tender);
    let answer = json!({
        "access": {"token": run.token, "owner": caller},
        "data": tender,
        "clock": clock.body["data"],
        "bids": bids,
        "contracts": contracts,
    });
    reply::created_rendered(res, &location, reply::to_text(&answer, pretty));
    Ok(())
}

/// An envelope the API gave, passed on as it came.
fn error_answer(res: &mut Response, status: StatusCode, body: Json) {
    crate::http::error::write_json(res, status, body.to_string());
}

/// Drives the created tender to the shape's status: (each bid with its broker and token,
/// each signed contract with its token).
async fn drive(
    app: &App,
    run: &Run<'_>,
    shape: &Shape,
    created: &Json,
) -> Result<(Vec<Json>, Vec<Json>), ApiError> {
    let target = shape.status;
    if target == "draft" {
        return Ok((vec![], vec![]));
    }
    if target == "cancelled" && shape.bids == 0 {
        run.cancel().await?;
        run.in_status("cancelled").await?;
        return Ok((vec![], vec![]));
    }
    if target == "active.enquiries" {
        run.in_status(target).await?;
        return Ok((vec![], vec![]));
    }
    run.past(&text(&created["enquiryPeriod"]["endDate"]))
        .await?;
    let t = run.in_status("active.tendering").await?;
    let bids = place_bids(app, run, shape, &t).await?;
    if target == "active.tendering" {
        return Ok((bids, vec![]));
    }
    if target == "cancelled" {
        run.cancel().await?;
        run.in_status("cancelled").await?;
        return Ok((bids, vec![]));
    }
    run.past(&text(&t["tenderPeriod"]["endDate"])).await?;
    if matches!(target, "unsuccessful" | "active.auction") {
        run.in_status(target).await?;
        return Ok((bids, vec![]));
    }
    // A live auction runs its course as the clock passes each moment it announces.
    for _ in 0..12 {
        let t = run.read().await?;
        if t["status"] != "active.auction" {
            break;
        }
        let due = text(&t["next_check"]);
        if due.is_empty() {
            return Err(failed(
                "end the auction",
                "the tender announces no next check",
            ));
        }
        run.past(&due).await?;
    }
    let t = run.in_status("active.qualification").await?;
    if target == "active.qualification" {
        return Ok((bids, vec![]));
    }
    let mut stand_stills = Vec::new();
    for award in t["awards"].as_array().into_iter().flatten() {
        if award["status"] != "pending" {
            continue;
        }
        let under = format!("/awards/{}", text(&award["id"]));
        let decided = run
            .owner(
                "award the bid",
                200,
                Method::PATCH,
                &under,
                json!({"status": "active"}),
            )
            .await?;
        stand_stills.push(decided.text("/data/complaintPeriod/endDate"));
    }
    let t = run.in_status("active.awarded").await?;
    if target == "active.awarded" {
        return Ok((bids, vec![]));
    }
    if let Some(last) = stand_stills.iter().max() {
        run.past(last).await?;
    }
    for contract in t["contracts"].as_array().into_iter().flatten() {
        if contract["status"] != "pending" {
            continue;
        }
        let under = format!("/contracts/{}", text(&contract["id"]));
        run.owner(
            "sign the contract",
            200,
            Method::PATCH,
            &under,
            json!({"status": "active"}),
        )
        .await?;
    }
    let t = run.in_status("complete").await?;
    let mut contracts = Vec::new();
    for contract in t["contracts"].as_array().into_iter().flatten() {
        if contract["status"] != "active" {
            continue;
        }
        let id = text(&contract["id"]);
        let path = format!("{API_PREFIX}/contracts/{id}/credentials");
        let credentials = run
            .driver
            .send(
                Method::PATCH,
                &path,
                run.owner_key,
                None,
                &[("X-Access-Token", &run.token)],
            )
            .await?
            .want("take the contract's credentials", 200)?;
        let token = credentials.text("/access/token");
        let mut status = "active";
        if shape.contract == Some("terminated") {
            let paid = contract["value"]["amount"].clone();
            let data = json!({"status": "terminated", "amountPaid": {"amount": paid}, "terminationDetails": "Виконано"});
            run.driver
                .send(
                    Method::PATCH,
                    &format!("{API_PREFIX}/contracts/{id}?acc_token={token}"),
                    run.owner_key,
                    Some(data),
                    &[],
                )
                .await?
                .want("terminate the contract", 200)?;
            status = "terminated";
        }
        contracts.push(json!({"id": id, "token": token, "status": status}));
    }
    Ok((bids, contracts))
}

fn text(v: &Json) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// Each bidder's bid, 4 % below the one before (the first 4 % below the tender's or each
/// lot's value), with the features' values alternating.
async fn place_bids(
    app: &App,
    run: &Run<'_>,
    shape: &Shape,
    t: &Json,
) -> Result<Vec<Json>, ApiError> {
    let mut placed = Vec::new();
    // A broker placing several bids (the caller's own, on a public sandbox) places each for a
    // tenderer of its own.
    let several = |bidder: &String| shape.bidders.iter().filter(|b| *b == bidder).count() > 1;
    for (i, bidder) in shape.bidders.iter().enumerate() {
        let tenderer = if several(bidder) {
            format!("Учасник {} {bidder}", i + 1)
        } else {
            format!("Учасник {bidder}")
        };
        let below = |value: &Json| {
            let amount = value["amount"].as_f64().unwrap_or(0.0);
            // Always above zero, however many bidders a brokers file names.
            (amount * 0.96f64.powi(i as i32 + 1) * 100.0).round() / 100.0
        };
        let mut bid = json!({"tenderers": [{
            "name": tenderer,
            "identifier": {"scheme": "UA-EDR", "id": format!("{:08}", 10_000_000 + i)},
            "address": {"countryName": "Україна", "postalCode": "01001", "region": "м. Київ", "streetAddress": "вул. Хрещатик, 1", "locality": "м. Київ"},
            "contactPoint": {"name": tenderer, "telephone": "0440000001"}
        }]});
        match t["lots"].as_array() {
            Some(lots) if !lots.is_empty() => {
                let values: Vec<Json> = lots
                    .iter()
                    .map(|lot| json!({"relatedLot": lot["id"], "value": {"amount": below(&lot["value"])}}))
                    .collect();
                bid["lotValues"] = json!(values);
            }
            _ => bid["value"] = json!({"amount": below(&t["value"])}),
        }
        if let Some(features) = t["features"].as_array() {
            let parameters: Vec<Json> = features
                .iter()
                .map(|f| {
                    let values = f["enum"].as_array().cloned().unwrap_or_default();
                    let value = values
                        .get(i % values.len().max(1))
                        .map_or(json!(0.0), |v| v["value"].clone());
                    json!({"code": f["code"], "value": value})
                })
                .collect();
            if !parameters.is_empty() {
                bid["parameters"] = json!(parameters);
            }
        }
        let key = app
            .brokers
            .key_of(bidder)
            .ok_or_else(|| failed("place a bid", &format!("no key is known for {bidder}")))?;
        let path = format!("{API_PREFIX}/tenders/{}/bids", run.tender);
        let answer = run
            .driver
            .send(Method::POST, &path, key, Some(bid), &[])
            .await?
            .want(&format!("place {bidder}'s bid"), 201)?;
        placed.push(json!({
            "id": answer.text("/data/id"),
            "token": answer.text("/access/token"),
            "broker": bidder,
        }));
    }
    Ok(placed)
}

#[cfg(test)]
mod tests {
    use super::merge;
    use serde_json::json;

    #[test]
    fn fields_merge_over_the_default_key_by_key_and_null_removes() {
        let mut base = json!({"title": "a", "value": {"amount": 500, "currency": "UAH"}, "x": 1});
        merge(
            &mut base,
            &json!({"value": {"amount": 900}, "x": null, "lots": [1]}),
        );
        assert_eq!(
            base,
            json!({"title": "a", "value": {"amount": 900, "currency": "UAH"}, "lots": [1]})
        );
    }
}
