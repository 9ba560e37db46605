//! Extensions beyond the spec (`@qualification`, `@cancellations`, …) that a target may not
//! offer at all. A 404 on an extension's collection ends the scenario as "not offered" rather
//! than as a failure, and the report names the extension once instead of listing failures. The
//! world tells it from an answer (`world::offered`); the verdict reads it back.

/// A step failure with this prefix means "the target does not offer this extension": the run
/// reports the scenario as skipped, and the report lists the extension as not offered.
pub const NOT_OFFERED: &str = "[not offered] ";

/// The extension named by a not-offered reason.
pub fn extension(reason: &str) -> Option<&str> {
    reason.strip_prefix(NOT_OFFERED)?.split(':').next()
}
