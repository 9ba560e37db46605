//! The rules that move a tender through time: the lifecycle by date and awarding over the
//! lots of a tender, the embedded auction and its calendar, and working days.

pub mod auction;
pub mod lifecycle;
pub mod live;
pub mod lots;
pub mod working_days;
