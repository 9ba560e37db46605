//! Moving time on the target: through the clock control API when it has one (the scenario's
//! own test clock where the target offers them), otherwise by waiting on the target's own
//! clock within a bounded budget.
use std::time::Instant;

use reqwest::Method;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::{
    exchange::timestamps,
    target::{BUDGET_SKIP, ClockMode, clock_pool::CLOCKS, date_header, waits::Waiting},
    world::{Actor, Payload, TenderWorld},
};

/// How long a target with a clock API may take to show a transition that became due.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(5);
const POLL: std::time::Duration = std::time::Duration::from_millis(200);

impl TenderWorld {
    fn require_clock_tag(&self) -> Result<(), String> {
        if self.has_tag("clock") {
            Ok(())
        } else {
            Err(
                "harness: this step moves time, so its scenario must be tagged @clock (and @serial, for a target without test clocks)"
                    .into(),
            )
        }
    }

    /// Sets the scenario's clock forward to `at` (never back): its test clock, else the
    /// target's. The move is asked at once, without reading the clock first (a round trip saved
    /// on every move of a remote target): a clock already past `at` refuses it, and a read then
    /// tells that this is fine.
    async fn set_clock(&mut self, at: OffsetDateTime) -> Result<(), String> {
        let target = self.target()?;
        let body = json!({"data": {"now": timestamps::format(at)}});
        let clock = self.scenario_clock().await?.map(str::to_owned);
        // A test clock, or a broker's own clock, is moved by its owner alone.
        let (mover, path) = match (&clock, &target.own_clock) {
            (Some(id), _) => (Actor::Owner, format!("{CLOCKS}/{id}")),
            (None, Some(_)) => (Actor::Owner, "/testing/clock".to_owned()),
            (None, None) => (Actor::Anonymous, "/testing/clock".to_owned()),
        };
        self.send(mover, Method::POST, &path, Payload::Json(body))
            .await?;
        match self.status()? {
            200 => {
                match (&clock, &target.test_clocks) {
                    (Some(_), Some(pool)) => pool.moved(),
                    _ => target.moved_clock(),
                }
                Ok(())
            }
            _ if self.clock_reading().await?.now >= at => Ok(()),
            status => Err(format!(
                "moving the clock to {}: expected 200, got {status}: {}",
                timestamps::format(at),
                crate::exchange::short(&self.response()?.body)
            )),
        }
    }

    /// Makes time reach `due` and then waits until the tender satisfies `done`.
    pub async fn reach(
        &mut self,
        due: OffsetDateTime,
        what: &str,
        done: impl Fn(&Value) -> bool,
    ) -> Result<(), String> {
        self.require_clock_tag()?;
        let target = self.target()?;
        match target.clock {
            ClockMode::ControlApi => {
                self.set_clock(due + Duration::milliseconds(1)).await?;
                let started = Instant::now();
                loop {
                    self.refresh_tender().await?;
                    if done(&self.tender()?.data) {
                        return Ok(());
                    }
                    if started.elapsed() > SETTLE {
                        return Err(format!(
                            "{what}: the clock was moved to {} but the tender did not change (status {})",
                            timestamps::format(due),
                            self.tender()?.data["status"]
                        ));
                    }
                    tokio::time::sleep(POLL).await;
                }
            }
            ClockMode::RealTime => self.wait_for(due, what, done).await,
        }
    }

    /// With `--keep-clock` a frozen clock never reaches `due`: such a wait is skipped at once.
    async fn refuse_frozen_wait(&self, due: OffsetDateTime, what: &str) -> Result<(), String> {
        let target = self.target()?;
        if !target.clock_api {
            return Ok(());
        }
        let reading = self.clock_reading().await?;
        if reading.frozen && reading.now < due {
            return Err(format!(
                "{BUDGET_SKIP}{what}: due at {}, but the target's clock is frozen at {} and --keep-clock leaves it there",
                timestamps::format(due),
                timestamps::format(reading.now)
            ));
        }
        Ok(())
    }

    /// Polls the tender until `done`, giving the target its budget past `due` on its own clock.
    /// A due date further away than the budget is not waited for at all.
    async fn wait_for(
        &mut self,
        due: OffsetDateTime,
        what: &str,
        done: impl Fn(&Value) -> bool,
    ) -> Result<(), String> {
        let target = self.target()?;
        let budget = Duration::try_from(target.wait_budget).map_err(|e| e.to_string())?;
        self.refresh_tender().await?;
        if done(&self.tender()?.data) {
            return Ok(());
        }
        self.refuse_frozen_wait(due, what).await?;
        let start_now = self.now().await?;
        if due - start_now > budget {
            self.refresh_tender().await?;
            if done(&self.tender()?.data) {
                return Ok(());
            }
            return Err(format!(
                "{BUDGET_SKIP}{what}: due at {}, {} s away on the target's clock, beyond the budget of {} s",
                timestamps::format(due),
                (due - start_now).whole_seconds(),
                budget.whole_seconds()
            ));
        }
        let deadline = due + budget;
        let started = Instant::now();
        // Guards against a target whose Date header stands still.
        let local_limit = (deadline - start_now).max(Duration::ZERO) + Duration::seconds(5);
        let _shown = Waiting::on(&*target.waits, self.scenario_name(), what, due);
        loop {
            self.refresh_tender().await?;
            if done(&self.tender()?.data) {
                return Ok(());
            }
            // A clock API's reading is the target's time; its Date header may be the host's.
            let server_now = if target.clock_api {
                self.clock_reading().await.ok().map(|r| r.now)
            } else {
                self.response()
                    .ok()
                    .and_then(|r| r.header("date").map(str::to_owned))
                    .and_then(|text| {
                        let mut headers = reqwest::header::HeaderMap::new();
                        headers.insert(reqwest::header::DATE, text.parse().ok()?);
                        date_header(&headers)
                    })
            };
            let over_budget = server_now.is_some_and(|now| now > deadline)
                || Duration::try_from(started.elapsed()).unwrap_or(Duration::MAX) > local_limit;
            if over_budget {
                return Err(format!(
                    "{BUDGET_SKIP}{what}: the target had not acted {} s after {} by its own clock (status {})",
                    budget.whole_seconds(),
                    timestamps::format(due),
                    self.tender()?.data["status"]
                ));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Makes time pass until `due` without waiting for any change of the tender.
    pub async fn pass_time_to(&mut self, due: OffsetDateTime, what: &str) -> Result<(), String> {
        self.require_clock_tag()?;
        let target = self.target()?;
        match target.clock {
            ClockMode::ControlApi => self.set_clock(due + Duration::milliseconds(1)).await,
            ClockMode::RealTime => {
                let budget = Duration::try_from(target.wait_budget).map_err(|e| e.to_string())?;
                self.refuse_frozen_wait(due, what).await?;
                let now = self.now().await?;
                if due - now > budget {
                    return Err(format!(
                        "{BUDGET_SKIP}{what}: due at {}, {} s away on the target's clock, beyond the budget of {} s",
                        timestamps::format(due),
                        (due - now).whole_seconds(),
                        budget.whole_seconds()
                    ));
                }
                // The local clock only guards against a target whose Date header stands still.
                let started = Instant::now();
                let local_limit = target.wait_budget + std::time::Duration::from_secs(5);
                let _shown = Waiting::on(&*target.waits, self.scenario_name(), what, due);
                while self.now().await? <= due {
                    if started.elapsed() > local_limit {
                        return Err(format!(
                            "{BUDGET_SKIP}{what}: the target's Date header did not pass {} within {} s",
                            timestamps::format(due),
                            local_limit.as_secs()
                        ));
                    }
                    tokio::time::sleep(POLL).await;
                }
                Ok(())
            }
        }
    }

    /// A timestamp the target refreshes "to the time of the change" (`stamp`) must be later than
    /// the one it replaced (`before`). The same moment passes only when the target's clock
    /// provably stood still there: its control API still reads that moment, and a clock only
    /// moves forward. An earlier one never passes.
    pub async fn check_refreshed(
        &self,
        what: &str,
        before: OffsetDateTime,
        stamp: OffsetDateTime,
    ) -> Result<(), String> {
        let shown = |at| timestamps::format(at);
        if stamp > before {
            return Ok(());
        }
        if stamp < before {
            return Err(format!(
                "{what} is {}, earlier than the {} it replaced",
                shown(stamp),
                shown(before)
            ));
        }
        let target = self.target()?;
        if !target.clock_api {
            return Err(format!(
                "{what} is {}, not later than before (the target has no clock control API to show that its clock stood still)",
                shown(stamp)
            ));
        }
        let clock = self.clock_reading().await?;
        if clock.now == stamp {
            target.accepted_still_stamp();
            return Ok(());
        }
        Err(format!(
            "{what} is {}, the same as before, yet the target's clock did not stand still there: it reads {}{}",
            shown(stamp),
            shown(clock.now),
            if clock.frozen { " (frozen)" } else { "" }
        ))
    }

    /// The earliest auction start of the tender's lots, for a tender divided into lots.
    fn first_lot_auction(&self) -> Result<OffsetDateTime, String> {
        self.tender_field("/lots")?
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|lot| lot.pointer("/auctionPeriod/startDate")?.as_str())
            .filter_map(timestamps::parse)
            .min()
            .ok_or_else(|| "no lot of the tender has an auction start".to_owned())
    }

    /// Lets the auction run to its end (every lot's, for a tender divided into lots): the
    /// tender leaves `active.auction`.
    pub async fn run_auction(&mut self) -> Result<(), String> {
        self.require_clock_tag()?;
        let in_auction = |t: &Value| t["status"] != "active.auction";
        let start = self
            .tender_instant("/auctionPeriod/startDate")
            .or_else(|_| self.first_lot_auction())
            .or_else(|_| self.tender_instant("/tenderPeriod/endDate"))?;
        let target = self.target()?;
        if target.clock == ClockMode::RealTime {
            // Once it runs, an auction's planned end is the tender's next_check, when shown.
            let end = self
                .tender_instant("/next_check")
                .ok()
                .filter(|end| *end > start);
            return match end {
                Some(end) => {
                    self.wait_for(end, "the end of the auction", in_auction)
                        .await
                }
                None => self.wait_for(start, "the auction", in_auction).await,
            };
        }
        // The auction's length is the target's business: step an hour at a time, two days at most.
        let mut at = start;
        for _ in 0..48 {
            self.set_clock(at + Duration::milliseconds(1)).await?;
            self.refresh_tender().await?;
            if in_auction(&self.tender()?.data) {
                return Ok(());
            }
            at = self.clock_reading().await?.now.max(at) + Duration::hours(1);
        }
        Err("the tender stayed in active.auction for two days of target time".into())
    }
}
