//! Every exchange of the interface is checked as a whole, whatever the scenario is about: its
//! shape ([`crate::shape`]), the facts learned so far ([`crate::facts`]) and, after an accepted
//! write, the reads that prove the write was stored ([`crate::readback`]).
use reqwest::Method;
use serde_json::Value;

use crate::{
    exchange::Exchange,
    readback,
    rules::{self, Check},
    shape::{self, Violation},
    world::{Actor, Payload, TenderWorld, short},
};

impl TenderWorld {
    /// Checks the last exchange; what it finds fails the step that sent it.
    pub(crate) async fn verify(&mut self, actor: Actor) -> Vec<Violation> {
        let Some(last) = self.last.clone() else {
            return Vec::new();
        };
        let Some(response) = last.response.as_ref() else {
            return Vec::new();
        };
        if !shape::is_interface(&last.request) {
            return Vec::new();
        }
        let body = self.body.clone();
        let mut found = shape::check(&last.request, response, &body);
        found.extend(self.facts.observe(&last.request, response.status, &body));
        if let Some(plan) = readback::plan(&last.request, response, &body) {
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
    async fn check_read(
        &mut self,
        actor: Actor,
        url: &str,
        check: &'static Check,
        found: &mut Vec<Violation>,
    ) -> Option<(Exchange, Value)> {
        let (exchange, body) = match self
            .exchange(actor, Method::GET, url, Payload::None, &[])
            .await
        {
            Ok(read) => read,
            Err(e) => {
                found.push(Violation::new(check, format!("reading {url}: {e}")));
                return None;
            }
        };
        let Some(response) = exchange.response.as_ref() else {
            found.push(Violation::new(
                check,
                format!(
                    "reading {url}: no response: {}",
                    exchange.transport_error.as_deref().unwrap_or("")
                ),
            ));
            self.read_back.get_or_insert(exchange);
            return None;
        };
        let mut own = shape::check(&exchange.request, response, &body);
        own.extend(
            self.facts
                .observe(&exchange.request, response.status, &body),
        );
        if !own.is_empty() {
            self.read_back.get_or_insert(exchange.clone());
            found.extend(own);
        }
        Some((exchange, body))
    }

    /// Reads an object that must answer 200 with its id; returns the read when it does.
    async fn read_answers(
        &mut self,
        actor: Actor,
        url: &str,
        id: &str,
        check: &'static Check,
        found: &mut Vec<Violation>,
    ) -> Option<(Exchange, Value)> {
        let (exchange, body) = self.check_read(actor, url, check, found).await?;
        let status = exchange.response.as_ref().map_or(0, |r| r.status);
        if status == 200 && body["data"]["id"] == id {
            return Some((exchange, body));
        }
        found.push(Violation::new(
            check,
            format!(
                "reading {url} answered {status} with data.id {}, expected 200 with id {id:?}: {}",
                body["data"]["id"],
                short(&body.to_string())
            ),
        ));
        self.read_back.get_or_insert(exchange);
        None
    }

    /// Reads back what one accepted write changed.
    async fn prove_stored(
        &mut self,
        actor: Actor,
        plan: &readback::Plan,
        before: Option<Value>,
    ) -> Vec<Violation> {
        let mut found = Vec::new();
        if let Some(location) = plan
            .location
            .as_ref()
            .filter(|l| plan.object.as_ref() != Some(*l))
        {
            self.read_answers(
                actor,
                location,
                &plan.id,
                &rules::CHECK_LOCATION,
                &mut found,
            )
            .await;
        }
        if let Some(url) = &plan.object {
            let read_check = if plan.location.as_ref() == Some(url) {
                &rules::CHECK_LOCATION
            } else {
                plan.check
            };
            if let Some((exchange, body)) = self
                .read_answers(actor, url, &plan.id, read_check, &mut found)
                .await
            {
                let mut wrong = readback::differences(&plan.sent, &body["data"]);
                if !wrong.is_empty() {
                    found.push(Violation::new(
                        plan.check,
                        format!("read back from {url}: {}", wrong.join("; ")),
                    ));
                }
                if let Some(before) = &before {
                    let changed = readback::changed_besides(before, &body["data"], &plan.sent);
                    if !changed.is_empty() {
                        found.push(Violation::new(
                            &rules::STORED_MERGE,
                            format!("read back from {url}: {}", changed.join("; ")),
                        ));
                    }
                    wrong.extend(changed);
                }
                if !wrong.is_empty() {
                    self.read_back.get_or_insert(exchange);
                }
            }
        }
        if let Some(list) = plan.in_tender {
            let tender = plan.tender.clone();
            if let Some((exchange, body)) = self
                .check_read(Actor::Anonymous, &tender, plan.check, &mut found)
                .await
            {
                self.shown_in(
                    plan,
                    &exchange,
                    readback::member(&body["data"], list, &plan.id),
                    &format!("the tender's {list}"),
                    &mut found,
                );
            }
        }
        if let Some(url) = &plan.listed
            && let Some((exchange, body)) =
                self.check_read(actor, url, plan.check, &mut found).await
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
        &mut self,
        plan: &readback::Plan,
        exchange: &Exchange,
        shown: Option<&Value>,
        place: &str,
        found: &mut Vec<Violation>,
    ) {
        let url = &exchange.request.url;
        let problem = match shown {
            None => Some(format!("{place} read from {url} do not show {}", plan.id)),
            Some(object) => {
                let wrong = readback::differences(&plan.sent, object);
                (!wrong.is_empty())
                    .then(|| format!("{place} read from {url}: {}", wrong.join("; ")))
            }
        };
        if let Some(problem) = problem {
            found.push(Violation::new(plan.check, problem));
            self.read_back.get_or_insert(exchange.clone());
        }
    }
}
