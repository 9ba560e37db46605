//! Every exchange of the interface is checked as a whole, whatever the scenario is about: its
//! shape ([`crate::checks::shape`]), the facts learned so far ([`crate::checks::facts`]) and, after an accepted
//! write, the reads that prove the write was stored ([`crate::checks::readback`]), under a tender or a
//! contract under management alike.
use reqwest::Method;
use serde_json::Value;

use crate::{
    checks::readback,
    checks::rules::{self, Check},
    checks::shape::{self, Violation},
    exchange::Exchange,
    exchange::short,
    world::{Actor, Payload, TenderWorld},
};

impl TenderWorld {
    /// Judges the last exchange as a whole. What it breaks is recorded (in the run's ledger
    /// and the scenario's own list) and the step goes on, so that one run names every rule the
    /// target breaks, not only the first.
    pub(crate) async fn judge(&mut self, actor: Actor) {
        let Some(last) = self.last.take() else {
            return;
        };
        let body = std::mem::take(&mut self.body);
        let found = self.verify_exchange(actor, &last, &body).await;
        self.record(&last, found);
        self.last = Some(last);
        self.body = body;
    }

    /// Records what `exchange` broke in the run's ledger and in the scenario's own list, which
    /// fails the scenario once its steps are done.
    pub(crate) fn record(&mut self, exchange: &Exchange, found: Vec<Violation>) {
        if found.is_empty() {
            return;
        }
        let Ok(target) = self.target() else {
            return;
        };
        target.ledger.record(&self.place, exchange, &found);
        // What upstream did beyond the spec fails a scenario only under `--strict`. Each check
        // counts the exchange once, as the ledger does.
        let mut counted: Vec<&'static str> = Vec::new();
        for v in found
            .iter()
            .filter(|v| v.check.mandatory() || target.strict)
        {
            if counted.contains(&v.check.text) {
                continue;
            }
            counted.push(v.check.text);
            match self.broken.iter_mut().find(|b| b.0.text == v.check.text) {
                Some(seen) => seen.2 += 1,
                None => self.broken.push((v.check, v.message.clone(), 1)),
            }
        }
    }

    /// Checks one exchange sent by `actor`, whether or not it is the scenario's last.
    pub(crate) async fn verify_exchange(
        &mut self,
        actor: Actor,
        last: &Exchange,
        body: &Value,
    ) -> Vec<Violation> {
        let Some(response) = last.response.as_ref() else {
            return Vec::new();
        };
        if !shape::is_interface(&last.request) {
            return Vec::new();
        }
        let mut found = shape::check(&last.request, response, body);
        found.extend(self.facts.observe(&last.request, response.status, body));
        if let Some(plan) = readback::plan(&last.request, response, body) {
            let before = self
                .tender
                .as_ref()
                .filter(|t| plan.merge && t.id == plan.id)
                .map(|t| t.data.clone());
            found.extend(self.prove_stored(actor, &plan, before).await);
        }
        found
    }

    /// A read made to check another exchange. Its own shape and the facts are checked too;
    /// the scenario's last exchange stays as it was.
    fn checked(
        &mut self,
        url: &str,
        read: Result<(Exchange, Value), String>,
        check: &'static Check,
        found: &mut Vec<Violation>,
    ) -> Option<(Exchange, Value)> {
        let (exchange, body) = match read {
            Ok(read) => read,
            Err(e) => {
                found.push(Violation::new(check, format!("reading {url}: {e}")));
                return None;
            }
        };
        let Some(response) = exchange.response.as_ref() else {
            found.push(
                Violation::new(
                    check,
                    format!(
                        "reading {url}: no response: {}",
                        exchange.transport_error.as_deref().unwrap_or("")
                    ),
                )
                .seen_in(&exchange),
            );
            return None;
        };
        let mut own = shape::check(&exchange.request, response, &body);
        own.extend(
            self.facts
                .observe(&exchange.request, response.status, &body),
        );
        found.extend(own.into_iter().map(|v| v.seen_in(&exchange)));
        Some((exchange, body))
    }

    /// A read of an object, which must answer 200 with its id; returns it when it does.
    fn answers(
        &mut self,
        url: &str,
        read: Result<(Exchange, Value), String>,
        id: &str,
        check: &'static Check,
        found: &mut Vec<Violation>,
    ) -> Option<(Exchange, Value)> {
        let (exchange, body) = self.checked(url, read, check, found)?;
        let status = exchange.response.as_ref().map_or(0, |r| r.status);
        if status == 200 && body["data"]["id"] == id {
            return Some((exchange, body));
        }
        found.push(
            Violation::new(
                check,
                format!(
                    "reading {url} answered {status} with data.id {}, expected 200 with id {id:?}: {}",
                    body["data"]["id"],
                    short(&body.to_string())
                ),
            )
            .seen_in(&exchange),
        );
        None
    }

    /// Reads back what one accepted write changed (the object, and the tender or contract that
    /// holds it). The reads are independent, so they are sent together.
    async fn prove_stored(
        &mut self,
        actor: Actor,
        plan: &readback::Plan,
        before: Option<Value>,
    ) -> Vec<Violation> {
        let location = plan
            .location
            .clone()
            .filter(|l| plan.object.as_ref() != Some(l));
        // Every read goes with the writer's credentials: the spec shows only the listing
        // read without them.
        let reads = [
            (actor, location.clone()),
            (actor, plan.object.clone()),
            (actor, plan.in_holder.map(|_| plan.holder.clone())),
            (actor, plan.listed.clone()),
        ];
        let world = &*self;
        let fetched = futures::future::join_all(reads.iter().map(|(who, url)| async move {
            match url {
                Some(url) => Some(
                    world
                        .exchange(*who, Method::GET, url, Payload::None, &[])
                        .await,
                ),
                None => None,
            }
        }))
        .await;
        let [location_read, object_read, holder_read, listed_read]: [_; 4] =
            match fetched.try_into() {
                Ok(all) => all,
                Err(_) => return Vec::new(),
            };
        let mut found = Vec::new();
        if let (Some(url), Some(read)) = (&location, location_read) {
            self.answers(url, read, &plan.id, plan.located, &mut found);
        }
        if let (Some(url), Some(read)) = (&plan.object, object_read) {
            let read_check = if plan.location.as_ref() == Some(url) {
                plan.located
            } else {
                plan.check
            };
            if let Some((exchange, body)) =
                self.answers(url, read, &plan.id, read_check, &mut found)
            {
                for (check, wrong) in stored_as_sent(plan, &body["data"]) {
                    found.push(
                        Violation::new(
                            check,
                            format!("read back from {url}: {}", wrong.join("; ")),
                        )
                        .seen_in(&exchange),
                    );
                }
                if let Some(before) = &before {
                    let changed = readback::changed_besides(before, &body["data"], &plan.sent);
                    if !changed.is_empty() {
                        found.push(
                            Violation::new(
                                &rules::STORED_MERGE,
                                format!("read back from {url}: {}", changed.join("; ")),
                            )
                            .seen_in(&exchange),
                        );
                    }
                }
                if let Some(secret) = &plan.secret
                    && exchange
                        .response
                        .as_ref()
                        .is_some_and(|r| r.body.contains(secret.as_str()))
                {
                    found.push(
                        Violation::new(
                            plan.check,
                            format!("reading {url} shows the token the answer handed out"),
                        )
                        .seen_in(&exchange),
                    );
                }
            }
        }
        if let (Some(list), Some(read)) = (plan.in_holder, holder_read)
            && let Some((exchange, body)) = self.checked(&plan.holder, read, plan.check, &mut found)
        {
            let shown = readback::member(&body["data"], list, &plan.id);
            self.shown_in(
                plan,
                &exchange,
                shown,
                &format!("the {}'s {list}", plan.holder_name()),
                &mut found,
            );
        }
        if let (Some(url), Some(read)) = (&plan.listed, listed_read)
            && let Some((exchange, body)) = self.checked(url, read, plan.check, &mut found)
        {
            let row = body["data"]
                .as_array()
                .and_then(|rows| rows.iter().find(|r| r["id"] == plan.id.as_str()));
            self.shown_in(plan, &exchange, row, "the bid's documents", &mut found);
        }
        found
    }

    /// The object as another read shows it must hold what was sent.
    fn shown_in(
        &self,
        plan: &readback::Plan,
        exchange: &Exchange,
        shown: Option<&Value>,
        place: &str,
        found: &mut Vec<Violation>,
    ) {
        let url = &exchange.request.url;
        let Some(object) = shown else {
            found.push(
                Violation::new(
                    plan.check,
                    format!("{place} read from {url} do not show {}", plan.id),
                )
                .seen_in(exchange),
            );
            return;
        };
        for (check, wrong) in stored_as_sent(plan, object) {
            found.push(
                Violation::new(
                    check,
                    format!("{place} read from {url}: {}", wrong.join("; ")),
                )
                .seen_in(exchange),
            );
        }
    }
}

/// Where `stored` differs from what the write sent, by the check each difference answers to:
/// the write's own for the fields the spec's table names, upstream's for the rest.
fn stored_as_sent(plan: &readback::Plan, stored: &Value) -> Vec<(&'static Check, Vec<String>)> {
    let (stated, beyond) = readback::split_by_spec(&plan.sent, plan.resource);
    let beyond_check = match plan.resource {
        readback::Resource::BeyondSpec => plan.check,
        _ => &rules::UP_STORED_FIELDS,
    };
    [(plan.check, stated), (beyond_check, beyond)]
        .into_iter()
        .map(|(check, sent)| (check, readback::differences(&sent, stored)))
        .filter(|(_, wrong)| !wrong.is_empty())
        .collect()
}
