//! What the run made on the target, with the tokens it holds: every tender it created and the
//! credentials it took of a contract under management. At its end the run settles what is
//! still live through the API, as a broker would (see `settle`), so that a sandbox shared for
//! months is left as it was found.
use std::{
    collections::BTreeMap,
    sync::{Mutex, PoisonError},
};

/// A tender the run created, with its token and whether the owner broker created it (else the
/// other broker).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MadeTender {
    pub id: String,
    pub token: String,
    pub by_owner: bool,
}

/// Everything the run made.
#[derive(Debug, Default)]
pub struct Made {
    tenders: Mutex<Vec<MadeTender>>,
    /// The token of each contract under management whose credentials the run took, by id.
    contracts: Mutex<BTreeMap<String, String>>,
    /// Each fault rule the run set, by id, and whether the owner broker set it.
    fault_rules: Mutex<Vec<(String, bool)>>,
}

/// What settling the run's records came to, for the certificate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SettleRecord {
    /// Tenders the run created.
    pub tenders: usize,
    /// Of them, those cancelled at the end (they were still live).
    pub cancelled: usize,
    /// Contracts under management terminated at the end.
    pub terminated: usize,
    /// Fault rules the run set, and of them those removed at the end.
    pub rules: usize,
    pub rules_removed: usize,
    /// What is still live, each with why it could not be settled.
    pub left: Vec<String>,
    /// Settling was not asked for (`--keep-records`).
    pub kept: bool,
    /// The run was interrupted before its scenarios ended.
    pub interrupted: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Made {
    pub fn tender(&self, made: MadeTender) {
        let mut tenders = lock(&self.tenders);
        if !tenders.iter().any(|t| t.id == made.id) {
            tenders.push(made);
        }
    }

    pub fn contract(&self, id: &str, token: &str) {
        lock(&self.contracts).insert(id.to_owned(), token.to_owned());
    }

    pub fn tenders(&self) -> Vec<MadeTender> {
        lock(&self.tenders).clone()
    }

    pub fn fault_rule(&self, id: &str, by_owner: bool) {
        lock(&self.fault_rules).push((id.to_owned(), by_owner));
    }

    pub fn fault_rules(&self) -> Vec<(String, bool)> {
        lock(&self.fault_rules).clone()
    }

    /// The latest token the run holds for a contract under management.
    pub fn contract_token(&self, id: &str) -> Option<String> {
        lock(&self.contracts).get(id).cloned()
    }
}

#[cfg(test)]
mod tests {
    use crate::target::made::{Made, MadeTender};

    #[test]
    fn a_tender_is_kept_once_and_a_contract_by_its_latest_token() {
        let made = Made::default();
        let tender = MadeTender {
            id: "t".into(),
            token: "k".into(),
            by_owner: true,
        };
        made.tender(tender.clone());
        made.tender(tender.clone());
        assert_eq!(made.tenders(), [tender]);
        made.contract("c", "one");
        made.contract("c", "two");
        assert_eq!(made.contract_token("c").as_deref(), Some("two"));
        assert_eq!(made.contract_token("d"), None);
    }
}
