//! A write's answer proves nothing by itself: after every accepted write the harness reads the
//! object back (and the tender or the contract under management that holds it) and checks that
//! what was sent is stored, and, for a tender PATCH, that everything not sent is unchanged
//! (nested objects merged).

mod compare;
mod plan;

pub use compare::{Resource, changed_besides, differences, editable, member, split_by_spec};
pub use plan::{Plan, plan};
