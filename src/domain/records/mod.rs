//! The tender aggregate: the tender and the records it holds (bids, questions, awards,
//! contracts, claims, cancellations), what each may do and what each reader sees of it.

pub mod attachments;
pub mod award;
pub mod bid;
pub mod cancellation;
pub mod complaint;
pub mod course;
pub mod lot;
pub mod question;
pub mod tender;
pub mod tender_contract;
pub mod views;
