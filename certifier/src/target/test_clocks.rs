//! The target's test clocks: whether the owner may make them, and making, reading and deleting
//! the run's (see `clock_pool` for how scenarios share them).
use std::sync::Arc;

use serde_json::{Value, json};

use crate::{
    exchange::short,
    target::{
        ClockReading, FAULTS, Target,
        clock_pool::{CLOCKS, HEADER, Lease, TestClockRecord, TestClocks},
    },
};

/// The records a deletion's answer says it finished first (`settled`), each as `kind id`.
fn settled_by(answer: &Value) -> Vec<String> {
    let settled = &answer["data"]["settled"];
    let of = |kind: &str, key: &str| -> Vec<String> {
        settled[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|id| format!("{kind} {id}"))
            .collect()
    };
    let mut records = of("tender", "tenders");
    records.extend(of("contract", "contracts"));
    records
}

impl Target {
    /// A clock for one scenario: one given back, else a new one; when the target holds no more
    /// (or the run made its most), the next one given back.
    pub async fn take_test_clock(&self, pool: &Arc<TestClocks>) -> Result<Lease, String> {
        loop {
            if let Some(lease) = pool.idle() {
                return Ok(lease);
            }
            if let Some(number) = pool.reserve() {
                match self.make_test_clock(pool, number).await? {
                    Some(id) => return Ok(pool.lease(id)),
                    None => pool.full(),
                }
            }
            pool.released().await;
        }
    }

    /// Makes the run's first clock, before any scenario: a target that offers test clocks but
    /// will not make one for the owner (it holds as many as it may) is certified without them.
    pub(super) async fn first_test_clock(&self, pool: &TestClocks) -> Result<(), String> {
        let number = pool
            .reserve()
            .ok_or_else(|| "the run makes no test clock".to_owned())?;
        let id = self
            .make_test_clock(pool, number)
            .await?
            .ok_or_else(|| format!("POST {CLOCKS} made no clock"))?;
        pool.give_back(id);
        Ok(())
    }

    /// Makes clock `number` of the reservation at the owner's clock's time, running if the
    /// owner's ran; `None` when the target holds no more for the owner while the run has some to
    /// wait for. The reservation is freed when no clock was made, and kept once one was (also
    /// when setting it running fails), so the run never makes more than its most.
    async fn make_test_clock(
        &self,
        pool: &TestClocks,
        number: usize,
    ) -> Result<Option<String>, String> {
        let body = json!({"data": {"name": format!("{} {number}", pool.prefix)}});
        let (status, answer) = match self
            .owner_json(reqwest::Method::POST, CLOCKS, Some(&body))
            .await
        {
            Ok(answer) => answer,
            Err(e) => {
                pool.unreserve();
                return Err(e);
            }
        };
        let id = match (status, answer.pointer("/data/id").and_then(Value::as_str)) {
            (201, Some(id)) => id.to_owned(),
            (409, _) if !pool.made_so_far().is_empty() => {
                pool.unreserve();
                return Ok(None);
            }
            _ => {
                pool.unreserve();
                return Err(format!(
                    "making a test clock: POST {CLOCKS} answered {status}: {}",
                    short(&answer.to_string())
                ));
            }
        };
        pool.made(&id);
        if pool.running {
            let path = format!("{CLOCKS}/{id}");
            let run = json!({"data": {"frozen": false}});
            let (status, answer) = self
                .owner_json(reqwest::Method::POST, &path, Some(&run))
                .await?;
            if status != 200 {
                return Err(format!(
                    "setting the test clock {id} running: POST {path} answered {status}: {}",
                    short(&answer.to_string())
                ));
            }
        }
        Ok(Some(id))
    }

    /// Deletes every clock the run made that the target lets go, and says what became of them.
    /// With `settle`, each deletion asks the target to finish what still lives on the clock
    /// (`?settle=true`): the records whose tokens the run never held, a creation whose answer
    /// was lost; a target that does not settle lets go of a clock once its records are
    /// finished.
    pub(super) async fn finish_test_clocks(
        &self,
        pool: &TestClocks,
        settle: bool,
    ) -> TestClockRecord {
        let made = pool.made_so_far();
        let deletions = made.iter().map(|id| async move {
            let path = match settle {
                true => format!("{CLOCKS}/{id}?settle=true"),
                false => format!("{CLOCKS}/{id}"),
            };
            match self.owner_json(reqwest::Method::DELETE, &path, None).await {
                Ok((200 | 204, answer)) => (id.clone(), Some(settled_by(&answer))),
                _ => (id.clone(), None),
            }
        });
        let results = futures::future::join_all(deletions).await;
        let mut record = TestClockRecord {
            prefix: pool.prefix.clone(),
            made,
            moves: pool.moves(),
            ..TestClockRecord::default()
        };
        for (id, deleted) in results {
            match deleted {
                Some(settled) => {
                    record.deleted += 1;
                    record.settled.extend(settled);
                }
                None => record.left.push(id),
            }
        }
        record
    }

    /// Whether the target scopes fault rules to a test clock: a rule set with the clock's
    /// header answers naming the clock in its `match`. The rule asked for (a 503 on reading a
    /// tender no one has) is removed at once.
    pub(super) async fn scopes_faults_by_clock(&self, clock: &str) -> bool {
        let rule = json!({"data": {
            "match": {"method": "GET", "path": "/api/2.3/tenders/tender-certify-probe"},
            "fault": "error-before-commit",
            "times": 1,
        }});
        let set = self
            .owner_on_clock(reqwest::Method::POST, FAULTS, Some(&rule), clock)
            .await;
        let Ok((201, answer)) = set else {
            return false;
        };
        if let Some(id) = answer.pointer("/data/id").and_then(Value::as_str) {
            let path = format!("{FAULTS}/{id}");
            let _ = self
                .owner_on_clock(reqwest::Method::DELETE, &path, None, clock)
                .await;
        }
        answer.pointer("/data/match/clock").and_then(Value::as_str) == Some(clock)
    }

    /// One request as the owner broker on its test clock `clock` (the clock's header sent).
    async fn owner_on_clock(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        clock: &str,
    ) -> Result<(u16, Value), String> {
        self.broker_json(true, method, path, body, Some(clock))
            .await
    }

    /// One request as the owner broker: the status and the body as JSON (`Null` when not JSON).
    pub async fn owner_json(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value), String> {
        self.as_broker(true, method, path, body).await
    }

    /// One request as the owner broker (`owner`) or the other one, at the run's pace: the
    /// status and the body as JSON (`Null` when not JSON).
    pub async fn as_broker(
        &self,
        owner: bool,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value), String> {
        self.broker_json(owner, method, path, body, None).await
    }

    async fn broker_json(
        &self,
        owner: bool,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        clock: Option<&str>,
    ) -> Result<(u16, Value), String> {
        let broker = if owner { &self.owner } else { &self.other };
        let mut request = self
            .client
            .request(method.clone(), self.url(path))
            .basic_auth(&broker.name, Some(&broker.password));
        if let Some(clock) = clock {
            request = request.header(HEADER, clock);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = self
            .paced(request)
            .await
            .map_err(|e| format!("{method} {path}: {}", self.failure(&e).line))?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(|e| e.to_string())?;
        Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
    }

    /// A test clock's `now` and `frozen`.
    pub async fn test_clock_reading(&self, id: &str) -> Result<ClockReading, String> {
        let path = format!("{CLOCKS}/{id}");
        let request = self
            .client
            .get(self.url(&path))
            .basic_auth(&self.owner.name, Some(&self.owner.password));
        self.read_clock(request, &path)
            .await
            .map(|(reading, _)| reading)
    }

    /// Whether the owner may make test clocks here: `GET /testing/clocks` with its credentials
    /// answers 200 with a list.
    pub(super) async fn offers_test_clocks(&self) -> bool {
        matches!(
            self.owner_json(reqwest::Method::GET, CLOCKS, None).await,
            Ok((200, body)) if body.get("data").is_some_and(Value::is_array)
        )
    }
}
