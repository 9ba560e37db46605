//! Value types that know nothing of a tender: money and periods, time, ids and tokens,
//! parties, items and features, documents, the parsing and merging of JSON bodies, and
//! the writing of JSON text. `src/rooms.rs` holds them to naming nothing outside this room.

pub mod document;
pub mod ids;
pub mod input;
pub mod item;
pub mod json;
pub mod merge;
pub mod money;
pub mod organization;
pub mod parse;
pub mod stored;
pub mod test_mode;
pub mod text;
pub mod time;
