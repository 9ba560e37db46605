//! Settling what the run left live, through the API and with the tokens it holds, as a broker
//! would: a tender still live is cancelled (a cancellation made `active` at once), and a
//! contract under management still active is terminated with what was paid, its credentials
//! taken with the tender's token when the run never took them; each fault rule the run set is
//! removed. Then the run's test clocks hold nothing live and can be deleted.
use serde_json::{Value, json};

use crate::{
    exchange::short,
    target::{
        FAULTS, Target,
        made::{MadeTender, SettleRecord},
    },
};

/// The reason a settling cancellation gives.
const REASON: &str = "tender-certify: the certification run that made this tender is over";
/// A tender status from which nothing moves on.
const FINAL: [&str; 3] = ["complete", "cancelled", "unsuccessful"];

/// What became of one tender the run made.
enum Settled {
    /// Already finished, nothing to do.
    Finished,
    /// Cancelled, after its contracts under management (how many) were terminated.
    Cancelled(usize),
    /// Finished, its contracts under management terminated (how many).
    Terminated(usize),
    Left(String),
}

impl Target {
    /// Settles every record the run left live, each at the run's pace, and says what became of
    /// them.
    pub async fn settle(&self) -> SettleRecord {
        let tenders = self.made.tenders();
        let settled =
            futures::future::join_all(tenders.iter().map(|t| self.settle_tender(t))).await;
        let mut record = SettleRecord {
            tenders: tenders.len(),
            ..SettleRecord::default()
        };
        let rules = self.made.fault_rules();
        record.rules = rules.len();
        for (id, by_owner) in rules {
            let path = format!("{FAULTS}/{id}");
            match self
                .as_broker(by_owner, reqwest::Method::DELETE, &path, None)
                .await
            {
                Ok((200 | 204, _)) => record.rules_removed += 1,
                Ok((status, body)) => record.left.push(format!(
                    "fault rule {id}: removing it answered {status}: {}",
                    short(&body.to_string())
                )),
                Err(e) => record.left.push(format!("fault rule {id}: {e}")),
            }
        }
        for outcome in settled {
            match outcome {
                Settled::Finished => {}
                Settled::Cancelled(n) => {
                    record.cancelled += 1;
                    record.terminated += n;
                }
                Settled::Terminated(n) => record.terminated += n,
                Settled::Left(why) => record.left.push(why),
            }
        }
        record
    }

    async fn settle_tender(&self, tender: &MadeTender) -> Settled {
        let path = format!("/api/2.3/tenders/{}", tender.id);
        let data = match self
            .as_broker(tender.by_owner, reqwest::Method::GET, &path, None)
            .await
        {
            Ok((200, body)) => body["data"].clone(),
            Ok((status, body)) => {
                return Settled::Left(format!(
                    "tender {}: reading it answered {status}: {}",
                    tender.id,
                    short(&body.to_string())
                ));
            }
            Err(e) => return Settled::Left(format!("tender {}: {e}", tender.id)),
        };
        // A signed contract lives on under management once its tender (or its lot) completes,
        // whatever the rest of the tender does.
        let terminated = match self.terminate_contracts(tender, &data).await {
            Ok(n) => n,
            Err(why) => return Settled::Left(why),
        };
        let status = data["status"].as_str().unwrap_or("");
        if FINAL.contains(&status) {
            return if terminated > 0 {
                Settled::Terminated(terminated)
            } else {
                Settled::Finished
            };
        }
        let cancel = format!("{path}/cancellations?acc_token={}", tender.token);
        let body = json!({"data": {"reason": REASON, "status": "active"}});
        match self
            .as_broker(tender.by_owner, reqwest::Method::POST, &cancel, Some(&body))
            .await
        {
            Ok((201, _)) => Settled::Cancelled(terminated),
            Ok((status, answer)) => Settled::Left(format!(
                "tender {} ({}): cancelling it answered {status}: {}",
                tender.id,
                data["status"].as_str().unwrap_or("?"),
                short(&answer.to_string())
            )),
            Err(e) => Settled::Left(format!("tender {}: {e}", tender.id)),
        }
    }

    /// The tender's contracts still active under management, terminated with their value
    /// paid: how many.
    async fn terminate_contracts(
        &self,
        tender: &MadeTender,
        data: &Value,
    ) -> Result<usize, String> {
        let signed: Vec<String> = data["contracts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["status"] == "active")
            .filter_map(|c| c["id"].as_str().map(str::to_owned))
            .collect();
        let mut terminated = 0;
        for id in signed {
            match self.terminate_contract(tender, &id).await {
                Ok(true) => terminated += 1,
                Ok(false) => {}
                Err(e) => return Err(format!("contract {id}: {e}")),
            }
        }
        Ok(terminated)
    }

    /// `true` when the contract was active and is now terminated; `false` when there was
    /// nothing to do (no contract management, or already ended).
    async fn terminate_contract(&self, tender: &MadeTender, id: &str) -> Result<bool, String> {
        let path = format!("/api/2.3/contracts/{id}");
        let get = self.as_broker(tender.by_owner, reqwest::Method::GET, &path, None);
        let contract = match get.await? {
            (200, body) if body["data"]["status"] == "active" => body["data"].clone(),
            _ => return Ok(false),
        };
        let token = match self.made.contract_token(id) {
            Some(token) => token,
            None => {
                let credentials = format!("{path}/credentials?acc_token={}", tender.token);
                let taken = self
                    .as_broker(tender.by_owner, reqwest::Method::PATCH, &credentials, None)
                    .await?;
                match taken {
                    (200, body) => body["access"]["token"]
                        .as_str()
                        .map(str::to_owned)
                        .ok_or("its credentials came without a token")?,
                    (status, body) => {
                        return Err(format!(
                            "taking its credentials answered {status}: {}",
                            short(&body.to_string())
                        ));
                    }
                }
            }
        };
        let paid = contract["value"]["amount"].clone();
        let end = json!({"data": {
            "status": "terminated",
            "amountPaid": {"amount": paid},
            "terminationDetails": REASON,
        }});
        let change = format!("{path}?acc_token={token}");
        match self
            .as_broker(tender.by_owner, reqwest::Method::PATCH, &change, Some(&end))
            .await?
        {
            (200, _) => Ok(true),
            (status, body) => Err(format!(
                "terminating it answered {status}: {}",
                short(&body.to_string())
            )),
        }
    }
}
