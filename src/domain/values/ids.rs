//! Service-assigned identifiers and access tokens.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A 32-character lowercase hexadecimal identifier.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Whether `text` has the form of [`new_id`]'s identifiers.
pub fn is_id(text: &str) -> bool {
    text.len() == 32
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `bytes` as lowercase hexadecimal digits, two per byte.
pub fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(2 * bytes.len());
    text.extend(bytes.iter().flat_map(|b| hex_digits(*b)).map(char::from));
    text
}

fn hex_digits(byte: u8) -> [u8; 2] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    [
        DIGITS[usize::from(byte >> 4)],
        DIGITS[usize::from(byte & 15)],
    ]
}

/// An access token as handed to its owner once; the service keeps only its hash.
pub fn new_token() -> (String, TokenHash) {
    let token = new_id();
    let hash = TokenHash::of(&token);
    (token, hash)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenHash([u8; 32]);

/// Only the stored form writes a hash (views skip it): as 64 hexadecimal digits, written
/// on the stack (every stored tender and bid carries one).
impl Serialize for TokenHash {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut digits = [0u8; 64];
        for (pair, byte) in digits.chunks_exact_mut(2).zip(self.0) {
            pair.copy_from_slice(&hex_digits(byte));
        }
        s.serialize_str(std::str::from_utf8(&digits).map_err(serde::ser::Error::custom)?)
    }
}

impl<'de> Deserialize<'de> for TokenHash {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let mut bytes = [0u8; 32];
        let valid = text.len() == 64
            && bytes.iter_mut().enumerate().all(|(i, b)| {
                text.get(2 * i..2 * i + 2)
                    .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                    .map(|v| *b = v)
                    .is_some()
            });
        if valid {
            Ok(TokenHash(bytes))
        } else {
            Err(serde::de::Error::custom(
                "a token hash is 64 hexadecimal digits",
            ))
        }
    }
}

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
        assert!(is_id(&id));
        assert_ne!(id, new_id());
        for other in [&id[1..], &id.to_uppercase(), &format!("{}g", &id[1..]), ""] {
            assert!(!is_id(other), "{other}");
        }
    }

    #[test]
    fn hex_digits_of_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        let expected: String = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&all), expected);
        assert_eq!(hex(&[]), "");
    }

    /// The stored form of a hash is its digits, and reads back as the same hash.
    #[test]
    fn a_hash_is_stored_as_64_digits_and_read_back() {
        let hash = TokenHash::of("token");
        let json = serde_json::to_string(&hash).unwrap();
        assert_eq!(json, format!("\"{}\"", hex(&Sha256::digest(b"token"))));
        assert_eq!(serde_json::from_str::<TokenHash>(&json).unwrap(), hash);
    }

    #[test]
    fn tokens_match_only_themselves() {
        let (token, hash) = new_token();
        assert!(hash.matches(&token));
        assert!(!hash.matches(&new_id()));
        assert!(!hash.matches(""));
    }
}
