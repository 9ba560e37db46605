//! The rules that move a tender through time: the lifecycle by date and awarding, the
//! embedded auction and its calendar, and working days.

pub mod auction;
pub mod lifecycle;
pub mod working_days;
