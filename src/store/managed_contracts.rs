//! Contracts under management in the store: handed over in the write that completes their
//! lot (committed with it), listed in the order the server changed them as tenders are, each
//! changed by writes of its own that take turns and work on a copy, as a tender's do.

use super::Store;
use super::database::Write;
use super::feed::{Entry, Page, PageRequest};
use super::indexes::Indexes;
use super::listed_fields::ListedFields;
use super::runs_to_end::RunsToEnd;
use super::shelf::{Place, lock};
use crate::contracting::Contract;
use crate::contracting::managed::handed_over;
use crate::domain::stored;
use crate::domain::tender::Tender;
use crate::domain::time::Timestamp;
use crate::domain::{Change, Refusal};
use salvo::hyper::body::Bytes;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// A contract's fields held in its listing, in this order; others are read from the contract.
pub const CONTRACT_FIELDS: [&str; 6] = [
    "contractID",
    "status",
    "title",
    "owner",
    "tender_id",
    "mode",
];

/// A contract being handed over: its row in the database file, and the contract.
pub(super) struct Handed {
    row: i64,
    contract: Contract,
}

/// The listed fields' texts, written straight from the contract (its view shows them as
/// kept): a write renders six short texts, not the whole contract.
fn listed_fields(c: &Contract) -> ListedFields {
    ListedFields::of(&CONTRACT_FIELDS, |name, out| {
        let text = match name {
            "contractID" => Some(&c.contract_id),
            "title" => c.title.as_ref(),
            "owner" => Some(&c.owner),
            "tender_id" => Some(&c.tender_id),
            "mode" => c.mode.as_ref(),
            _ => None,
        };
        // Writing into a Vec cannot fail.
        let _ = match (name, text) {
            ("status", _) => serde_json::to_writer(&mut *out, &c.status),
            (_, Some(text)) => serde_json::to_writer(&mut *out, text),
            _ => Ok(()),
        };
    })
}

/// Lists a contract, and under its test clock when it lives on one.
fn list(indexes: &mut Indexes, contract: &Contract) {
    let entry = listed(contract);
    indexes.contracts.insert(entry, listed_fields(contract));
    if let Some(clock) = &contract.clock {
        let on_clock = &mut indexes.on_clock(clock).contracts;
        on_clock.push(contract.id.to_string());
    }
}

fn listed(contract: &Contract) -> Entry<'_> {
    Entry {
        id: &contract.id,
        key: contract.listing_key(),
        date_modified: contract.date_modified,
        test: contract.is_test(),
    }
}

impl Store {
    /// Takes in the contracts of an earlier run; answers the last row they hold.
    pub(super) fn restore_contracts(
        &mut self,
        contracts: Vec<(i64, Contract)>,
    ) -> Result<i64, String> {
        let mut last_row = 0;
        let mut contracts = contracts;
        contracts.sort_unstable_by_key(|(_, c)| c.listing_key());
        let indexes = self.indexes.get_mut().unwrap_or_else(|p| p.into_inner());
        let places = self.contracts.loading();
        for (row, contract) in contracts {
            last_row = last_row.max(row);
            indexes.contracts.restore(
                contract.clock_key(),
                contract.listing_key(),
                contract.date_modified,
            );
            list(indexes, &contract);
            let id = contract.id.clone();
            if places.insert(id, Place::new(contract, row, ())).is_some() {
                return Err(format!("a contract is stored twice (row {row})"));
            }
        }
        Ok(last_row)
    }

    /// The contracts a tender write hands over (see [`handed_over`]), each stamped with its
    /// `dateModified` (held back from the listing until [`Store::hand_over`]) and given a row.
    pub(super) fn handing_over(
        &self,
        before: &Tender,
        after: &Tender,
        now: Timestamp,
    ) -> Vec<Handed> {
        let contracts = handed_over(before, after, now);
        if contracts.is_empty() {
            return Vec::new();
        }
        let mut indexes = lock(&self.indexes);
        contracts
            .into_iter()
            .map(|mut contract| {
                let stamp = self.stamp(&mut indexes.contracts, contract.clock_key(), now, None);
                (contract.date_modified, contract.listed_at) =
                    (stamp.date_modified, stamp.listed_at());
                let row = self
                    .durable
                    .as_ref()
                    .map_or(0, |d| d.next_contract_row.fetch_add(1, Ordering::Relaxed));
                Handed { row, contract }
            })
            .collect()
    }

    /// The rows of contracts handed over, for the commit of the tender that hands them.
    pub(super) fn contract_writes(&self, handed: &[Handed]) -> Result<Vec<Write>, Refusal> {
        if self.durable.is_none() {
            return Ok(Vec::new());
        }
        handed
            .iter()
            .map(|h| contract_write(h.row, &h.contract))
            .collect()
    }

    /// Makes the contracts handed over known once their tender's write is committed (or
    /// only releases their stamps when it is not).
    pub(super) fn hand_over(&self, handed: Vec<Handed>, committed: bool) {
        for Handed { row, contract } in handed {
            let mut indexes = lock(&self.indexes);
            indexes.contracts.release(contract.listing_key());
            if !committed {
                continue;
            }
            list(&mut indexes, &contract);
            drop(indexes);
            let id = contract.id.clone();
            self.contracts.add(id, Place::new(contract, row, ()));
        }
    }

    /// Reads a contract under its lock.
    pub fn read_contract<R>(&self, id: &str, f: impl FnOnce(&Contract) -> R) -> Option<R> {
        self.contracts.read(id, f)
    }

    /// The public representation `{"data": contract}` as compact JSON, built once per change.
    pub fn contract_json(
        &self,
        id: &str,
        build: impl FnOnce(&Contract) -> Vec<u8>,
    ) -> Option<Bytes> {
        self.contracts.public_json(id, build)
    }

    /// A page of the contracts' listing.
    pub fn contract_page(&self, request: &PageRequest) -> Page {
        lock(&self.indexes).contracts.page(request)
    }

    /// Applies a write to a contract and returns `view` of the result: `op` works on a copy,
    /// which replaces the contract only if `op` succeeds and the change is committed.
    ///
    /// `op` is given "now" on the contract's clock (its tender's), read once its turn came.
    pub async fn update_contract<V>(
        self: &Arc<Self>,
        id: &str,
        op: impl FnOnce(&mut Contract, Timestamp) -> Result<Change, Refusal>,
        view: impl FnOnce(&Contract) -> V,
    ) -> Result<V, Refusal> {
        let place = self
            .contracts
            .place(id)
            .ok_or(Refusal::NotFound("contract_id"))?;
        let turn = place.turn.clone().lock_owned().await;
        let mut copy = lock(&place.entry).record.clone();
        let now = self.now_for(copy.clock_key());
        if op(&mut copy, now)? != Change::None {
            if self.durable.is_none() {
                self.save_contract(&place, copy, now).await?;
            } else {
                // Once handed to the database, the change ends in memory as in the file.
                let (store, held) = (self.clone(), place.clone());
                RunsToEnd::new(async move { store.save_contract(&held, copy, now).await }).await?;
            }
        }
        let seen = view(&lock(&place.entry).record);
        drop(turn);
        Ok(seen)
    }

    /// Commits a changed contract, stamped anew, then makes it the current state.
    async fn save_contract(
        &self,
        place: &Place<Contract, ()>,
        mut contract: Contract,
        now: Timestamp,
    ) -> Result<(), Refusal> {
        let before = lock(&place.entry).record.date_modified;
        let stamp = {
            let mut indexes = lock(&self.indexes);
            self.stamp(
                &mut indexes.contracts,
                contract.clock_key(),
                now,
                Some(before),
            )
        };
        (contract.date_modified, contract.listed_at) = (stamp.date_modified, stamp.listed_at());
        let committed = match &self.durable {
            None => Ok(()),
            Some(durable) => match contract_write(place.row, &contract) {
                Ok(write) => durable
                    .database
                    .committed(vec![write])
                    .await
                    .map_err(Refusal::Unavailable),
                Err(refused) => Err(refused),
            },
        };
        let mut entry = lock(&place.entry);
        let mut indexes = lock(&self.indexes);
        indexes.contracts.release(contract.listing_key());
        committed?;
        indexes.contracts.remove(entry.record.listing_key());
        indexes
            .contracts
            .insert(listed(&contract), listed_fields(&contract));
        drop(indexes);
        entry.record = contract;
        entry.public = None;
        Ok(())
    }
}

fn contract_write(row: i64, contract: &Contract) -> Result<Write, Refusal> {
    let record = stored::to_json(contract)
        .map_err(|e| Refusal::Unavailable(format!("the contract cannot be stored: {e}")))?;
    Ok(Write::Contract {
        row,
        id: contract.id.to_string(),
        record,
    })
}
