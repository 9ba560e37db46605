//! Documents attached to a tender, a bid, an award, a contract, a cancellation or a claim: who
//! may attach them and when. One mechanism for all of them: versions, dates and addresses come
//! from [`DocumentRecord`]; only the windows differ.

use super::complaint::{Actor, ComplaintStatus, Target};
use super::lot::LotStatus;
use super::tender::{Tender, TenderStatus};
use super::tender_contract::ContractStatus;
use crate::domain::Change;
use crate::domain::Refusal;
use crate::domain::input::Input;
use crate::domain::lookup::ById;
use crate::domain::values::document::{
    DocumentInput, DocumentOf, DocumentRecord, Documents, Filing, check_related,
};
use crate::domain::values::parse::{Cx, FromJson};
use crate::domain::values::time::Timestamp;
use std::sync::Arc;

/// What a document belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    Tender,
    Bid(String),
    Award(String),
    Contract(String),
    Cancellation(String),
    /// A claim on the tender or on an award.
    Complaint(Target, String),
}

impl Holder {
    /// The role recorded as `author` of what the holder's writer uploads: award documents
    /// name it (upstream's `tender_owner`), a claim's documents name the party that wrote
    /// them (`by`); the other holders record none.
    fn author(&self, by: Option<Actor>) -> Option<&'static str> {
        match self {
            Holder::Award(_) => Some("tender_owner"),
            Holder::Complaint(..) => by.map(Actor::role),
            _ => None,
        }
    }
}

/// When a document is written, and by which party of a claim (none for other holders).
#[derive(Debug, Clone, Copy)]
pub struct Stamp {
    pub now: Timestamp,
    pub by: Option<Actor>,
}

/// Upload (POST), new version (PUT) or metadata change (PATCH).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Add,
    Update,
}

impl Tender {
    pub fn documents_of(&self, holder: &Holder) -> Result<&[Arc<DocumentRecord>], Refusal> {
        match holder {
            Holder::Tender => Ok(&self.documents),
            Holder::Bid(id) => Ok(&self.bid(id)?.documents),
            Holder::Award(id) => Ok(&self.award(id)?.documents),
            Holder::Contract(id) => Ok(&self.contract(id)?.documents),
            Holder::Cancellation(id) => Ok(&self.cancellation(id)?.documents),
            Holder::Complaint(target, id) => Ok(&self.complaint(target, id)?.documents),
        }
    }

    fn documents_of_mut(&mut self, holder: &Holder) -> Result<&mut Documents, Refusal> {
        match holder {
            Holder::Tender => Ok(&mut self.documents),
            Holder::Bid(id) => Ok(&mut self.bid_mut(id)?.documents),
            Holder::Award(id) => self
                .awards
                .by_id_mut(id, "award_id")
                .map(|a| &mut a.documents),
            Holder::Contract(id) => self
                .contracts
                .by_id_mut(id, "contract_id")
                .map(|c| &mut c.documents),
            Holder::Cancellation(id) => self
                .cancellations
                .by_id_mut(id, "cancellation_id")
                .map(|c| &mut c.documents),
            Holder::Complaint(target, id) => Ok(&mut self.complaint_mut(target, id)?.documents),
        }
    }

    pub fn document(&self, holder: &Holder, id: &str) -> Result<&DocumentRecord, Refusal> {
        self.documents_of(holder)?
            .by_id(id, "document_id")
            .map(Arc::as_ref)
    }

    /// Whether documents of `holder` may be added or changed now, by `by` where the holder
    /// is a claim.
    pub fn document_window(
        &self,
        holder: &Holder,
        action: Action,
        now: Timestamp,
        by: Option<Actor>,
    ) -> Result<(), Refusal> {
        let verb = match action {
            Action::Add => "add",
            Action::Update => "update",
        };
        let refused = || {
            Err(Refusal::phase(format!(
                "Can't {verb} document in current ({}) tender status",
                self.status
            )))
        };
        let window = match holder {
            Holder::Tender if self.status == TenderStatus::ActiveEnquiries => Ok(()),
            Holder::Tender => refused(),
            // The decision protocol: any award, but only while qualification is open.
            Holder::Award(_) if self.status == TenderStatus::ActiveQualification => Ok(()),
            Holder::Award(_) => refused(),
            Holder::Cancellation(_) if !self.status.is_terminal() => Ok(()),
            Holder::Cancellation(_) => refused(),
            Holder::Complaint(target, id) => {
                if !Tender::claim_statuses(target, false).contains(&self.status) {
                    return refused();
                }
                let status = self.complaint(target, id)?.status;
                let allowed = match by {
                    Some(Actor::Complainant) => {
                        matches!(status, ComplaintStatus::Draft | ComplaintStatus::Answered)
                    }
                    Some(Actor::TenderOwner) => status == ComplaintStatus::Claim,
                    None => false,
                };
                if allowed {
                    Ok(())
                } else {
                    Err(Refusal::phase(format!(
                        "Can't {verb} document in current ({}) complaint status",
                        status.as_str()
                    )))
                }
            }
            Holder::Bid(id) => self.bid_document_window(
                id,
                now,
                if action == Action::Add {
                    "added"
                } else {
                    "updated"
                },
            ),
            Holder::Contract(id) => {
                if !matches!(
                    self.status,
                    TenderStatus::ActiveQualification | TenderStatus::ActiveAwarded
                ) {
                    return refused();
                }
                match self.contract(id)?.status {
                    ContractStatus::Pending | ContractStatus::Active => Ok(()),
                    _ => Err(Refusal::phase(format!(
                        "Can't {verb} document in current contract status"
                    ))),
                }
            }
        };
        window?;
        // Documents of a lot's awards, contracts and award claims wait on an active lot.
        let lot = match holder {
            Holder::Award(id) | Holder::Complaint(Target::Award(id), _) => {
                self.award(id)?.lot_id.clone()
            }
            Holder::Contract(id) => {
                let award_id = &self.contract(id)?.award_id;
                self.award(award_id)?.lot_id.clone()
            }
            _ => None,
        };
        if lot.is_some() && self.lot_status(&lot) != LotStatus::Active {
            return Err(Refusal::phase(format!(
                "Can {verb} document only in active lot status"
            )));
        }
        Ok(())
    }

    /// A claim's document is changed only by the party that uploaded it.
    fn document_author_check(
        &self,
        holder: &Holder,
        id: &str,
        by: Option<Actor>,
    ) -> Result<(), Refusal> {
        let doc = self.document(holder, id)?;
        if matches!(holder, Holder::Complaint(..)) && doc.current.author != holder.author(by) {
            return Err(Refusal::Forbidden {
                location: "url",
                name: "role",
                description: "Can update document only author".into(),
            });
        }
        Ok(())
    }

    /// Bid activity during tendering stays out of the public feed.
    fn document_change(&self, holder: &Holder) -> Change {
        match holder {
            Holder::Bid(_) if !self.status.reveals_bids() => Change::Silent,
            _ => Change::Public,
        }
    }

    /// Registers a document; returns its id.
    pub fn attach(
        &mut self,
        holder: &Holder,
        data: &Input<'_>,
        cx: &Cx,
        Stamp { now, by }: Stamp,
        filing: &Filing<'_>,
    ) -> Result<(String, Change), Refusal> {
        let input = DocumentInput::from_json(data, cx)?;
        check_related(&input, &self.item_ids(), &self.lot_ids())?;
        self.documents_of(holder)?;
        self.document_window(holder, Action::Add, now, by)?;
        let record = DocumentRecord::upload(input, now, filing)?.by(holder.author(by));
        let id = record.id().to_string();
        let change = self.document_change(holder);
        self.documents_of_mut(holder)?.push(Arc::new(record));
        Ok((id, change))
    }

    /// A new version of a document (PUT).
    pub fn replace_document(
        &mut self,
        holder: &Holder,
        id: &str,
        data: &Input<'_>,
        cx: &Cx,
        Stamp { now, by }: Stamp,
        filing: &Filing<'_>,
    ) -> Result<Change, Refusal> {
        self.document_author_check(holder, id, by)?;
        self.document_window(holder, Action::Update, now, by)?;
        let change = self.document_change(holder);
        let record = self
            .documents_of_mut(holder)?
            .by_id_mut(id, "document_id")?;
        Arc::make_mut(record).replace(data, cx, DocumentOf::TENDER, now, filing)?;
        Ok(change)
    }

    /// A metadata change of a document (PATCH).
    pub fn describe_document(
        &mut self,
        holder: &Holder,
        id: &str,
        data: &Input<'_>,
        cx: &Cx,
        Stamp { now, by }: Stamp,
    ) -> Result<Change, Refusal> {
        self.document_author_check(holder, id, by)?;
        self.document_window(holder, Action::Update, now, by)?;
        let change = self.document_change(holder);
        let item_ids: Vec<String> = self
            .item_ids()
            .into_iter()
            .chain(self.lot_ids())
            .map(str::to_string)
            .collect();
        let record = self
            .documents_of_mut(holder)?
            .by_id_mut(id, "document_id")?;
        let record = Arc::make_mut(record);
        let changed = record.patch(data, cx, DocumentOf::TENDER, now)?;
        if let Some(related) = record.current.related_item()
            && !item_ids.iter().any(|i| i == related)
        {
            return Err(Refusal::field(
                "relatedItem",
                crate::domain::values::parse::Problem::msg("relatedItem should be one of items"),
            ));
        }
        Ok(if changed { change } else { Change::None })
    }
}
