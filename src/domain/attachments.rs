//! Documents attached to a tender, a bid, an award, a contract or a cancellation: who may
//! attach them and when. One mechanism for all of them: versions, dates and addresses come
//! from [`DocumentRecord`]; only the windows differ.

use super::Change;
use super::Refusal;
use super::contract::ContractStatus;
use super::document::{DocumentInput, DocumentRecord, UrlStyle, check_related};
use super::parse::{Cx, FromJson};
use super::tender::{Tender, TenderStatus};
use super::time::Timestamp;
use serde_json::Value as Json;

/// What a document belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    Tender,
    Bid(String),
    Award(String),
    Contract(String),
    Cancellation(String),
}

impl Holder {
    /// The role recorded as `author` of what the holder's writer uploads: award documents
    /// name it (upstream's `tender_owner`); the other holders record none.
    fn author(&self) -> Option<&'static str> {
        match self {
            Holder::Award(_) => Some("tender_owner"),
            _ => None,
        }
    }
}

/// Upload (POST), new version (PUT) or metadata change (PATCH).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Add,
    Update,
}

impl Tender {
    pub fn documents_of(&self, holder: &Holder) -> Result<&[DocumentRecord], Refusal> {
        match holder {
            Holder::Tender => Ok(&self.documents),
            Holder::Bid(id) => Ok(&self.bid(id)?.documents),
            Holder::Award(id) => Ok(&self.award(id)?.documents),
            Holder::Contract(id) => Ok(&self.contract(id)?.documents),
            Holder::Cancellation(id) => Ok(&self.cancellation(id)?.documents),
        }
    }

    fn documents_of_mut(&mut self, holder: &Holder) -> Result<&mut Vec<DocumentRecord>, Refusal> {
        match holder {
            Holder::Tender => Ok(&mut self.documents),
            Holder::Bid(id) => Ok(&mut self.bid_mut(id)?.documents),
            Holder::Award(id) => self
                .awards
                .iter_mut()
                .find(|a| &a.id == id)
                .map(|a| &mut a.documents)
                .ok_or(Refusal::NotFound("award_id")),
            Holder::Contract(id) => self
                .contracts
                .iter_mut()
                .find(|c| &c.id == id)
                .map(|c| &mut c.documents)
                .ok_or(Refusal::NotFound("contract_id")),
            Holder::Cancellation(id) => self
                .cancellations
                .iter_mut()
                .find(|c| &c.id == id)
                .map(|c| &mut c.documents)
                .ok_or(Refusal::NotFound("cancellation_id")),
        }
    }

    pub fn document(&self, holder: &Holder, id: &str) -> Result<&DocumentRecord, Refusal> {
        self.documents_of(holder)?
            .iter()
            .find(|d| d.id() == id)
            .ok_or(Refusal::NotFound("document_id"))
    }

    /// Whether documents of `holder` may be added or changed now.
    pub fn document_window(
        &self,
        holder: &Holder,
        action: Action,
        now: Timestamp,
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
        match holder {
            Holder::Tender if self.status == TenderStatus::ActiveEnquiries => Ok(()),
            Holder::Tender => refused(),
            // The decision protocol: any award, but only while qualification is open.
            Holder::Award(_) if self.status == TenderStatus::ActiveQualification => Ok(()),
            Holder::Award(_) => refused(),
            Holder::Cancellation(_) if !self.status.is_terminal() => Ok(()),
            Holder::Cancellation(_) => refused(),
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
        }
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
        data: &Json,
        cx: &Cx,
        now: Timestamp,
        style: &UrlStyle<'_>,
    ) -> Result<(String, Change), Refusal> {
        let input = DocumentInput::from_json(data, cx)?;
        check_related(&input, &self.item_ids())?;
        self.documents_of(holder)?;
        self.document_window(holder, Action::Add, now)?;
        let record = DocumentRecord::upload(input, now, style).by(holder.author());
        let id = record.id().to_string();
        let change = self.document_change(holder);
        self.documents_of_mut(holder)?.push(record);
        Ok((id, change))
    }

    /// A new version of a document (PUT).
    pub fn replace_document(
        &mut self,
        holder: &Holder,
        id: &str,
        data: &Json,
        cx: &Cx,
        now: Timestamp,
        style: &UrlStyle<'_>,
    ) -> Result<Change, Refusal> {
        self.document(holder, id)?;
        self.document_window(holder, Action::Update, now)?;
        let change = self.document_change(holder);
        let record = self
            .documents_of_mut(holder)?
            .iter_mut()
            .find(|d| d.id() == id)
            .ok_or(Refusal::NotFound("document_id"))?;
        record.replace(data, cx, now, style)?;
        Ok(change)
    }

    /// A metadata change of a document (PATCH).
    pub fn describe_document(
        &mut self,
        holder: &Holder,
        id: &str,
        data: &Json,
        cx: &Cx,
        now: Timestamp,
    ) -> Result<Change, Refusal> {
        self.document(holder, id)?;
        self.document_window(holder, Action::Update, now)?;
        let change = self.document_change(holder);
        let item_ids: Vec<String> = self.item_ids().iter().map(|s| s.to_string()).collect();
        let record = self
            .documents_of_mut(holder)?
            .iter_mut()
            .find(|d| d.id() == id)
            .ok_or(Refusal::NotFound("document_id"))?;
        let changed = record.patch(data, cx, now)?;
        if let Some(related) = record.current.related_item()
            && !item_ids.iter().any(|i| i == related)
        {
            return Err(Refusal::field(
                "relatedItem",
                super::parse::Problem::msg("relatedItem should be one of items"),
            ));
        }
        Ok(if changed { change } else { Change::None })
    }
}
