//! A contract's documents: of the contract itself (unless the broker says otherwise), of one
//! of its changes, or of an item, a lot or the tender; written with the contract's token
//! while the contract is active, with versions, dates and addresses as every document has.
//! A document bound to a change needs the change still pending.

use super::change::ChangeStatus;
use super::managed::Contract;
use crate::domain::input::Input;
use crate::domain::lookup::ById;
use crate::domain::values::document::{DocumentInput, DocumentOf, DocumentRecord, Filing};
use crate::domain::values::parse::{Cx, Problem, Sent};
use crate::domain::values::time::Timestamp;
use crate::domain::{Change, Refusal};
use std::sync::Arc;

/// What a contract's documents may be of.
pub const DOCUMENT_OF: DocumentOf = DocumentOf {
    choices: &["tender", "item", "lot", "contract", "change"],
    default: "contract",
};

impl Contract {
    pub fn document(&self, id: &str) -> Result<&DocumentRecord, Refusal> {
        self.documents.by_id(id, "document_id").map(Arc::as_ref)
    }

    /// A document of a change names one of the contract's changes, a document of an item one
    /// of its items.
    fn check_related(&self, of: &str, related: Option<&str>) -> Result<(), Refusal> {
        let (known, message) = match of {
            "change" => (
                self.changes.iter().any(|c| Some(c.id.as_str()) == related),
                "relatedItem should be one of changes",
            ),
            "item" => (
                self.items.iter().any(|i| Some(i.id.as_str()) == related),
                "relatedItem should be one of items",
            ),
            _ => return Ok(()),
        };
        if known {
            Ok(())
        } else {
            Err(Refusal::field("relatedItem", Problem::msg(message)))
        }
    }

    /// A document is bound only to a change not yet applied.
    fn check_change_open(&self, of: &str, related: Option<&str>) -> Result<(), Refusal> {
        let applied = of == "change"
            && self
                .changes
                .iter()
                .any(|c| Some(c.id.as_str()) == related && c.status != ChangeStatus::Pending);
        if applied {
            Err(Refusal::phase("Can't add document to 'active' change"))
        } else {
            Ok(())
        }
    }

    /// Registers a document; returns its id.
    pub fn attach(
        &mut self,
        data: &Input<'_>,
        cx: &Cx,
        now: Timestamp,
        filing: &Filing<'_>,
    ) -> Result<String, Refusal> {
        let input = DocumentInput::read(data, cx, DOCUMENT_OF)?;
        self.check_related(&input.document_of, input.related_item.as_deref())?;
        self.writable("add document")?;
        self.check_change_open(&input.document_of, input.related_item.as_deref())?;
        let record = DocumentRecord::upload(input, now, filing)?;
        let id = record.id().to_string();
        self.documents.push(Arc::new(record));
        Ok(id)
    }

    fn document_mut(&mut self, id: &str) -> Result<&mut DocumentRecord, Refusal> {
        self.documents
            .by_id_mut(id, "document_id")
            .map(Arc::make_mut)
    }

    /// A new version of a document (PUT).
    pub fn replace_document(
        &mut self,
        id: &str,
        data: &Input<'_>,
        cx: &Cx,
        now: Timestamp,
        filing: &Filing<'_>,
    ) -> Result<Change, Refusal> {
        self.document(id)?;
        self.writable("update document")?;
        let mut next = self.clone();
        let record = next.document_mut(id)?;
        record.replace(data, cx, DOCUMENT_OF, now, filing)?;
        // A version that names its binding is held to the rules of a binding, as a PATCH is.
        if data.get("relatedItem").is_some() || data.get("documentOf").is_some() {
            let (of, related) = (
                record.current.document_of().to_string(),
                record.current.related_item().map(str::to_string),
            );
            next.check_related(&of, related.as_deref())?;
            next.check_change_open(&of, related.as_deref())?;
        }
        *self = next;
        Ok(Change::Public)
    }

    /// A metadata change of a document (PATCH), a binding to a change among them.
    pub fn describe_document(&mut self, id: &str, sent: &Sent<'_>) -> Result<Change, Refusal> {
        let &Sent { data, cx, now } = sent;
        self.document(id)?;
        let mut next = self.clone();
        let record = next.document_mut(id)?;
        let changed = record.patch(data, cx, DOCUMENT_OF, now)?;
        let (of, related) = (
            record.current.document_of().to_string(),
            record.current.related_item().map(str::to_string),
        );
        next.check_related(&of, related.as_deref())?;
        self.writable("update document")?;
        let binds = data.get("relatedItem").is_some() || data.get("documentOf").is_some();
        if binds {
            next.check_change_open(&of, related.as_deref())?;
        }
        if !changed {
            return Ok(Change::None);
        }
        *self = next;
        Ok(Change::Public)
    }
}
