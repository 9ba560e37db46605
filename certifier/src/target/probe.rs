//! Probing the target once, before the first scenario: is it reachable and this interface, are
//! the brokers known there, does it offer the clock control API, how far is its clock from
//! ours, and (when asked for) does it take upstream's sandbox acceleration fields.
use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, AtomicUsize},
    },
    time::{Duration as StdDuration, Instant},
};

use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::{
    exchange::{
        bodies::Fakes,
        client::{self, Connection},
        pace::{self, Pace},
        settings::{Broker, Settings},
        short, timestamps,
    },
    target::{
        ClockMode, Target,
        acceleration::{Acceleration, FAST_FORWARD, LIVE, QUICK_AUCTION_LEAD, sandbox_fields},
        clock_pool::TestClocks,
        date_header,
        documents::Documents,
        ledger::Ledger,
        waits::Unseen,
    },
};

/// Tries, 250 ms apart, to reach a target that is still starting.
const STARTUP_ATTEMPTS: u32 = 40;

impl Target {
    /// Probes the target once: is it reachable, does it offer the clock control API, how far is
    /// its clock from ours, and (when asked for) does it take the sandbox acceleration fields.
    pub async fn probe(settings: &Settings, seed: u64) -> Result<Target, String> {
        let base_url = service_base(&settings.base_url)?;
        let client = client::build(settings)?;
        let mut target = Target {
            base_url,
            client,
            owner: settings.owner.clone(),
            other: settings.other.clone(),
            clock: ClockMode::RealTime,
            clock_api: false,
            own_clock: None,
            clock_at_start: None,
            test_clocks: None,
            test_clocks_refused: None,
            faults_by_clock: false,
            moves: AtomicUsize::new(0),
            still_stamps: AtomicUsize::new(0),
            asked_waits: AtomicUsize::new(0),
            asked_wait_ms: AtomicU64::new(0),
            timeout: settings.timeout,
            skew: StdDuration::ZERO,
            skew_ahead: false,
            period: settings.period,
            wait_budget: settings.wait_budget,
            seed,
            acceleration: Acceleration::Off,
            waits: Arc::new(Unseen),
            connection: Connection::default(),
            ledger: Ledger::default(),
            strict: settings.strict,
            owners: Default::default(),
            documents: Documents::Unsigned("not looked for yet".into()),
            pace: Pace::new(pace::MOST),
            made: Default::default(),
            settings: settings.clone(),
        };
        // A target started just before the run may still be binding its socket; a certificate
        // or a proxy that refuses will not change, so those stop the run at once.
        let mut attempts = 0;
        let (local, listing) = loop {
            let local = OffsetDateTime::now_utc();
            match target
                .client
                .get(target.url("/api/2.3/tenders"))
                .send()
                .await
            {
                Ok(response) => break (local, response),
                Err(e) => {
                    let failure = target.failure(&e);
                    attempts += 1;
                    if !failure.transient || attempts >= STARTUP_ATTEMPTS {
                        return Err(failure.line);
                    }
                    tokio::time::sleep(StdDuration::from_millis(250)).await;
                }
            }
        };
        target.connection = Connection::of(settings, &listing);
        if target.connection.presented.is_none()
            && target.connection.scheme == "https"
            && target.connection.proxy.is_some()
            && let (Some(proxy), Some(host), Some(port)) = (
                settings.proxies.https.clone(),
                listing.url().host_str().map(str::to_owned),
                listing.url().port_or_known_default(),
            )
        {
            // Through a proxy the client does not hand out the certificate it checked.
            target.connection.presented = tokio::task::spawn_blocking(move || {
                crate::exchange::tunnel::presented(&proxy, &host, port)
            })
            .await
            .ok()
            .flatten();
        }
        if let Some(server) = date_header(listing.headers()) {
            let diff = server - local;
            target.skew_ahead = diff.is_positive();
            target.skew = diff.unsigned_abs();
        }
        is_this_api(&target.base_url, listing).await?;
        for (broker, option) in [
            (&target.owner, "--broker"),
            (&target.other, "--other-broker"),
        ] {
            target.knows(broker, option).await?;
        }
        target.documents =
            super::uploads::find(&target, settings.document_service.as_deref()).await?;
        if let Ok((reading, broker)) = target.clock_read().await {
            target.clock_api = true;
            // A clock read with the owner's credentials that names a broker is that broker's own;
            // told the name the owner's key stands for, the run checks it is that one.
            target.own_clock =
                broker.filter(|b| target.owner.owner.as_deref().is_none_or(|name| name == b));
            target.clock_at_start = Some(reading);
            if !settings.keep_clock {
                target.clock = ClockMode::ControlApi;
                if settings.test_clocks > 0 && target.offers_test_clocks().await {
                    let pool = TestClocks::new(
                        format!("tender-certify {seed}"),
                        !reading.frozen,
                        settings.test_clocks,
                    );
                    match target.first_test_clock(&pool).await {
                        Ok(()) => {
                            if let Some(first) = pool.made_so_far().first() {
                                target.faults_by_clock = target.scopes_faults_by_clock(first).await;
                            }
                            target.test_clocks = Some(Arc::new(pool));
                        }
                        Err(e) => {
                            // Never a silent fallback: moving the broker's own clock would move
                            // every tender of the broker, its other jobs' too.
                            target.test_clocks_refused = Some(e);
                            if !settings.move_own_clock {
                                target.clock = ClockMode::RealTime;
                            }
                        }
                    }
                }
            }
        }
        target.acceleration = match (settings.accelerator, target.clock) {
            (None, _) => Acceleration::Off,
            (Some(factor), ClockMode::ControlApi) => Acceleration::NotNeeded { factor },
            (Some(factor), ClockMode::RealTime) => acceleration(&target, factor).await,
        };
        Ok(target)
    }

    /// A broker whose credentials the target refuses would fail every scenario: the run stops
    /// before the first. Asked with a creation whose body holds nothing, which the target
    /// refuses whoever asks (422), so the question creates nothing; a 401, or a 403
    /// `permission` (the spec's answer to credentials it does not know), is the refusal.
    async fn knows(&self, broker: &Broker, option: &str) -> Result<(), String> {
        let response = self
            .client
            .post(self.url("/api/2.3/tenders"))
            .basic_auth(&broker.name, Some(&broker.password))
            .json(&serde_json::json!({"data": {}}))
            .send()
            .await
            .map_err(|e| self.failure(&e).line)?;
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        let permission =
            body.pointer("/errors/0/name").and_then(Value::as_str) == Some("permission");
        if status == 401 || (status == 403 && permission) {
            return Err(format!(
                "the target at {} refuses the credentials of {option} {}: POST /api/2.3/tenders answered {status}; name a broker the target knows",
                self.base_url, broker.name
            ));
        }
        Ok(())
    }
}

/// The service's base URL as `--base-url` gives it, without a trailing slash; a line saying what
/// to write instead when it is not an `http://` or `https://` address of the service itself.
pub fn service_base(given: &str) -> Result<String, String> {
    let trimmed = given.trim().trim_end_matches('/');
    let url = match reqwest::Url::parse(trimmed) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => url,
        _ => {
            return Err(format!(
                "--base-url {given:?} is not an http:// or https:// address: write it with its scheme, as in --base-url http://{}",
                trimmed.split("://").last().unwrap_or(trimmed)
            ));
        }
    };
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "--base-url {given:?} holds a query or a fragment: give the service's base address alone"
        ));
    }
    if let Some(base) = trimmed.strip_suffix("/api/2.3") {
        return Err(format!(
            "--base-url {given:?} ends with /api/2.3: give the service's base URL without it (--base-url {base}); every path the run asks for begins with /api/2.3"
        ));
    }
    Ok(trimmed.to_owned())
}

/// The first listing must be this API's: a JSON page with a `data` array and a `next_page`.
/// Anything else (a web page, another service, an error) stops the run before any scenario.
async fn is_this_api(base_url: &str, listing: reqwest::Response) -> Result<(), String> {
    let not_it = |what: String| {
        format!(
            "the target at {base_url} is not a Tender Procurement Service Interface 2.3: GET {base_url}/api/2.3/tenders {what}"
        )
    };
    let status = listing.status();
    let content_type = listing
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("no content type")
        .to_owned();
    if !status.is_success() {
        return Err(not_it(format!("answered {status} ({content_type})")));
    }
    if !content_type.starts_with("application/json") {
        return Err(not_it(format!(
            "answered {status} with {content_type}, not JSON"
        )));
    }
    let body: Value = listing
        .json()
        .await
        .map_err(|_| not_it(format!("answered {status} with a body that is not JSON")))?;
    if !body.get("data").is_some_and(Value::is_array) || body.get("next_page").is_none() {
        return Err(not_it(
            "answered JSON without a `data` array and a `next_page`".to_owned(),
        ));
    }
    Ok(())
}

/// Creates one tender with the sandbox fields and reads back what the target made of them:
/// refused, dropped, or stored; and once its tendering starts, whether its auction was
/// brought forward to the end of tendering. The fast-forward mode is tried first; a target
/// that refuses or drops it is probed again with plain `quick`.
async fn acceleration(target: &Target, factor: u32) -> Acceleration {
    match probe_with(target, factor, FAST_FORWARD).await {
        Acceleration::Refused { .. } => match probe_with(target, factor, LIVE).await {
            Acceleration::On {
                factor, evidence, ..
            } => Acceleration::On {
                factor,
                evidence,
                fast_forward: false,
            },
            other => other,
        },
        on => on,
    }
}

async fn probe_with(target: &Target, factor: u32, submission: &str) -> Acceleration {
    let refused = |why: String| Acceleration::Refused { factor, why };
    let now = match target.now().await {
        Ok(now) => now,
        Err(e) => return refused(format!("the target's time could not be read: {e}")),
    };
    let step = Duration::try_from(target.period).unwrap_or(Duration::seconds(4));
    let enquiry_end = now + Duration::seconds(2);
    let tender_end = enquiry_end + step;
    let dates = [enquiry_end, tender_end, tender_end + Duration::days(60)].map(timestamps::format);
    let mut body = Fakes::new(target.seed).tender(&dates[0], &dates[1], &dates[2]);
    let fields = sandbox_fields(factor, submission);
    for (name, value) in &fields {
        body["data"][*name] = json!(value);
    }
    let created = match target
        .owner_json(reqwest::Method::POST, "/api/2.3/tenders", Some(&body))
        .await
    {
        Ok((201, created)) => created,
        Ok((status, answer)) => {
            return refused(format!(
                "a tender with the sandbox fields was answered {status}: {}",
                short(&answer.to_string())
            ));
        }
        Err(e) => return refused(format!("a tender with the sandbox fields: {e}")),
    };
    let data = &created["data"];
    if let Some((name, _)) = fields.iter().find(|(name, value)| data[*name] != *value) {
        return refused(format!(
            "a tender created with them shows {name} as {}",
            data[*name]
        ));
    }
    let id = data["id"].as_str().unwrap_or_default().to_owned();
    let evidence = match auction_lead(target, &id, tender_end).await {
        Some(Ok(lead)) if lead <= QUICK_AUCTION_LEAD => format!(
            "taken and applied (a probe tender's auction was planned {} s after its tendering ends)",
            lead.whole_seconds()
        ),
        Some(Ok(lead)) => format!(
            "taken, but a probe tender's auction was still planned {} h after its tendering ends",
            lead.whole_hours()
        ),
        Some(Err(e)) => format!("taken (the probe tender's auction plan: {e})"),
        None => "taken (the probe tender did not start tendering within the time budget)".into(),
    };
    Acceleration::On {
        factor,
        evidence,
        fast_forward: submission == FAST_FORWARD,
    }
}

/// How long after the tendering ends the probe tender's auction is planned, read once its
/// tendering has started; `None` when it does not start within the budget.
async fn auction_lead(
    target: &Target,
    id: &str,
    tender_end: OffsetDateTime,
) -> Option<Result<Duration, String>> {
    let started = Instant::now();
    let path = format!("/api/2.3/tenders/{id}");
    while started.elapsed() < target.wait_budget {
        let (status, body) = match target.owner_json(reqwest::Method::GET, &path, None).await {
            Ok(answer) => answer,
            Err(e) => return Some(Err(e)),
        };
        let data = &body["data"];
        if status == 200 && data["status"] != "active.enquiries" {
            let start = data
                .pointer("/auctionPeriod/startDate")
                .or_else(|| data.pointer("/auctionPeriod/shouldStartAfter"))
                .and_then(Value::as_str)
                .and_then(timestamps::parse);
            let end = data
                .pointer("/tenderPeriod/endDate")
                .and_then(Value::as_str)
                .and_then(timestamps::parse)
                .unwrap_or(tender_end);
            return Some(
                start
                    .map(|start| start - end)
                    .ok_or_else(|| format!("no auctionPeriod in status {}", data["status"])),
            );
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    None
}

#[cfg(test)]
mod base_url_tests {
    use crate::target::probe::service_base;

    #[test]
    fn a_base_url_is_the_services_own_http_address() {
        assert_eq!(
            service_base("http://127.0.0.1:6543/").as_deref(),
            Ok("http://127.0.0.1:6543")
        );
        assert_eq!(
            service_base("https://sandbox.example.test/prozorro").as_deref(),
            Ok("https://sandbox.example.test/prozorro")
        );
        let bare = service_base("127.0.0.1:6543").unwrap_err();
        assert!(bare.contains("--base-url http://127.0.0.1:6543"), "{bare}");
        let versioned = service_base("http://127.0.0.1:6543/api/2.3").unwrap_err();
        assert!(
            versioned.contains("without it (--base-url http://127.0.0.1:6543)"),
            "{versioned}"
        );
        assert!(service_base("ftp://host").is_err());
        assert!(service_base("http://host/?x=1").is_err());
    }
}
