//! Service-assigned identifiers and access tokens.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A 32-character lowercase hexadecimal identifier.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// An access token as handed to its owner once; the service keeps only its hash.
pub fn new_token() -> (String, TokenHash) {
    let token = new_id();
    let hash = TokenHash::of(&token);
    (token, hash)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenHash([u8; 32]);

impl TokenHash {
    pub fn of(token: &str) -> TokenHash {
        TokenHash(Sha256::digest(token.as_bytes()).into())
    }

    /// Constant-time comparison with a presented token.
    pub fn matches(&self, token: &str) -> bool {
        bool::from(self.0.ct_eq(&TokenHash::of(token).0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_32_lowercase_hex() {
        let id = new_id();
        assert_eq!(id.len(), 32);
        assert!(
            id.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(id, new_id());
    }

    #[test]
    fn tokens_match_only_themselves() {
        let (token, hash) = new_token();
        assert!(hash.matches(&token));
        assert!(!hash.matches(&new_id()));
        assert!(!hash.matches(""));
    }
}
