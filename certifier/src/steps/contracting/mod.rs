//! Contract management after signing, an upstream extension (`@contracting`): a tender's
//! signed contract is handed over to `/api/2.3/contracts` when its tender (or its lot)
//! completes; the tender owner's broker takes its credentials with the tender token and then
//! writes with the contract's own token, as upstream's broker client did (the token in
//! `X-Access-Token`): changes, documents, the whole contract sent back, the amount paid and
//! termination.

mod changes;
mod contract;
mod credentials;
mod handover;
mod payment;
mod sent_back;
