//! The arrows between a crate's modules, read from its sources, held to a table of rooms:
//! a room (a module and everything beneath it) names only itself and the rooms the table lets
//! it use, the table stands in layers, and no modules name each other in a circle. The
//! server's rooms and the harness's layers are both checked here, so that one reading of
//! `use` lines serves both and a fix to it reaches both.

mod paths;
mod rooms;

pub use paths::{Named, module_of, named_paths, plant, sources};
pub use rooms::Rooms;
