//! The owners a run's tenders show, broker by broker (Authentication 1).

/// The `owner` each broker's tenders showed first in the run: every later tender of that
/// broker must show the same, and the other broker's tenders another (Authentication 1, read
/// either way: the owner is the broker's key, or the name an auth file gives it).
#[derive(Debug, Default)]
pub struct OwnersSeen {
    /// The owner broker's, then the other broker's.
    seen: std::sync::Mutex<[Option<String>; 2]>,
}

impl OwnersSeen {
    /// Notes `owner` on a tender the owner broker (`of_owner`) or the other broker created;
    /// the contradiction with the run so far, if any.
    pub fn note(&self, of_owner: bool, owner: &str) -> Result<(), String> {
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (mine, theirs) = if of_owner { (0, 1) } else { (1, 0) };
        if let Some(first) = &seen[mine]
            && first != owner
        {
            return Err(format!(
                "another tender of the same broker showed the owner {first:?}, this one {owner:?}"
            ));
        }
        if seen[theirs].as_deref() == Some(owner) {
            return Err(format!(
                "the other broker's tenders show the same owner {owner:?}"
            ));
        }
        seen[mine] = Some(owner.to_owned());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::target::owners::OwnersSeen;

    #[test]
    fn each_broker_keeps_one_owner_and_the_two_differ() {
        let seen = OwnersSeen::default();
        assert_eq!(seen.note(true, "acme"), Ok(()));
        assert_eq!(seen.note(true, "acme"), Ok(()));
        assert!(seen.note(true, "7d1f0c1e9a").is_err());
        assert!(seen.note(false, "acme").is_err());
        assert_eq!(seen.note(false, "beta"), Ok(()));
        assert!(seen.note(false, "gamma").is_err());
    }
}
