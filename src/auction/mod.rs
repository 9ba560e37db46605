//! The live auction's room: its pages and its JSON interface (`api`), and what they show of
//! an auction at a moment (`view`). The auction's rules, which the tender's lifecycle runs
//! on the clock, are the domain's (`domain::records::course::live`).

pub mod api;
pub mod view;
