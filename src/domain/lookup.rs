//! One lookup by id over a record's collection: an unknown id is refused 404 on the name of
//! the path parameter that carried it (`award_id`, `document_id`, …).

use super::Refusal;
use super::records::{
    award::Award, bid::Bid, cancellation::Cancellation, complaint::Complaint, lot::Lot,
    question::Question, tender_contract::Contract,
};
use super::values::document::DocumentRecord;
use std::sync::Arc;

/// A record its collection finds by id.
pub trait Identified {
    fn id(&self) -> &str;
}

/// Records shared between copies of their aggregate are found as the records they hold.
impl<T: Identified> Identified for Arc<T> {
    fn id(&self) -> &str {
        T::id(self)
    }
}

/// A collection's items by id; `param` is the path parameter an unknown id is refused on.
pub trait ById<T> {
    fn by_id(&self, id: &str, param: &'static str) -> Result<&T, Refusal>;
    fn by_id_mut(&mut self, id: &str, param: &'static str) -> Result<&mut T, Refusal>;
    fn index_by_id(&self, id: &str, param: &'static str) -> Result<usize, Refusal>;
}

/// Any collection that lends its items, a vector of the records' own or a shared one.
impl<C: ?Sized, T: Identified> ById<T> for C
where
    for<'a> &'a C: IntoIterator<Item = &'a T>,
    for<'a> &'a mut C: IntoIterator<Item = &'a mut T>,
{
    fn by_id(&self, id: &str, param: &'static str) -> Result<&T, Refusal> {
        self.into_iter()
            .find(|t| t.id() == id)
            .ok_or(Refusal::NotFound(param))
    }

    fn by_id_mut(&mut self, id: &str, param: &'static str) -> Result<&mut T, Refusal> {
        self.into_iter()
            .find(|t| t.id() == id)
            .ok_or(Refusal::NotFound(param))
    }

    fn index_by_id(&self, id: &str, param: &'static str) -> Result<usize, Refusal> {
        self.into_iter()
            .position(|t| t.id() == id)
            .ok_or(Refusal::NotFound(param))
    }
}

/// The records of a tender, each found by its `id`.
macro_rules! by_their_id {
    ($($record:ty),*) => {
        $(impl Identified for $record {
            fn id(&self) -> &str {
                &self.id
            }
        })*
    };
}

by_their_id!(Award, Bid, Cancellation, Complaint, Contract, Lot, Question);

impl Identified for DocumentRecord {
    fn id(&self) -> &str {
        DocumentRecord::id(self)
    }
}
