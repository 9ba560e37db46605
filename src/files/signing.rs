//! The server's one signing key (Ed25519) and the signed addresses of the document service.
//!
//! Three messages are signed, as upstream's document service signed them: `<key>` for an
//! upload address, `<key>\0<md5 hex>` for a permanent download address (it also vouches for
//! the content's hash) and `<key>\0<expires>` for a temporary one. `KeyID` is the first eight
//! hex digits of the public key, which `GET /keys` publishes so anyone can verify offline.

use crate::domain::ids::hex;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use std::io;
use std::path::Path;

/// Why a presented signature was not accepted, in upstream's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureFault {
    /// No `Signature` parameter.
    Missing,
    /// `KeyID` names no key of the server.
    UnknownKey,
    /// Not base64 of 64 bytes.
    Malformed,
    /// Well formed, but not the server's signature of the message.
    Mismatch,
}

#[derive(Clone)]
pub struct Signer {
    key: SigningKey,
    key_id: String,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Signer({})", self.key_id)
    }
}

impl Signer {
    fn from_secret(secret: [u8; 32]) -> Signer {
        let key = SigningKey::from_bytes(&secret);
        let key_id = hex(key.verifying_key().as_bytes())[..8].to_string();
        Signer { key, key_id }
    }

    /// A fresh key, for a server that keeps nothing across restarts.
    pub fn generate() -> io::Result<Signer> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| io::Error::other(e.to_string()))?;
        Ok(Signer::from_secret(secret))
    }

    /// The key kept in `path` (32 raw bytes), made there on first use, so that addresses
    /// handed out before a restart still verify after it.
    pub fn load_or_create(path: &Path) -> io::Result<Signer> {
        match std::fs::read(path) {
            Ok(bytes) => {
                let secret: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
                    io::Error::other(format!("{} does not hold a 32-byte key", path.display()))
                })?;
                Ok(Signer::from_secret(secret))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let signer = Signer::generate()?;
                let tmp = path.with_extension("tmp");
                write_private(&tmp, signer.key.as_bytes())?;
                std::fs::rename(&tmp, path)?;
                Ok(signer)
            }
            Err(e) => Err(e),
        }
    }

    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The public key, hex.
    pub fn public_key(&self) -> String {
        hex(self.key.verifying_key().as_bytes())
    }

    fn verifying_key(&self) -> VerifyingKey {
        self.key.verifying_key()
    }

    /// The base64 signature of `message`.
    pub fn sign(&self, message: &str) -> String {
        STANDARD.encode(self.key.sign(message.as_bytes()).to_bytes())
    }

    /// Checks a presented `Signature`/`KeyID` pair over `message`.
    pub fn verify(
        &self,
        message: &str,
        signature: Option<&str>,
        key_id: Option<&str>,
    ) -> Result<(), SignatureFault> {
        let signature = signature.ok_or(SignatureFault::Missing)?;
        if key_id != Some(self.key_id.as_str()) {
            return Err(SignatureFault::UnknownKey);
        }
        // A `+` sent unescaped in a query reads back as a space.
        let bytes = STANDARD
            .decode(signature.replace(' ', "+"))
            .map_err(|_| SignatureFault::Malformed)?;
        let signature = Signature::from_slice(&bytes).map_err(|_| SignatureFault::Malformed)?;
        self.verifying_key()
            .verify_strict(message.as_bytes(), &signature)
            .map_err(|_| SignatureFault::Mismatch)
    }

    /// `Signature=…&KeyID=…` of a permanent download address.
    pub fn permanent_query(&self, key: &str, md5: &str) -> String {
        self.query(&[], &format!("{key}\0{md5}"))
    }

    /// `Expires=…&KeyID=…&Signature=…` of a temporary download address.
    pub fn temporary_query(&self, key: &str, expires: i64) -> String {
        let expires = expires.to_string();
        self.query(&[("Expires", &expires)], &format!("{key}\0{expires}"))
    }

    /// `KeyID=…&Signature=…` of an upload address.
    pub fn upload_query(&self, key: &str) -> String {
        self.query(&[], key)
    }

    fn query(&self, first: &[(&str, &str)], message: &str) -> String {
        let mut out = form_urlencoded::Serializer::new(String::new());
        out.extend_pairs(first.iter().copied());
        out.append_pair("KeyID", &self.key_id);
        out.append_pair("Signature", &self.sign(message));
        out.finish()
    }
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    std::fs::write(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_verify_with_the_published_key_only() {
        let signer = Signer::generate().expect("key");
        let sig = signer.sign("k\0abc");
        assert_eq!(
            signer.verify("k\0abc", Some(&sig), Some(signer.key_id())),
            Ok(())
        );
        assert_eq!(
            signer.verify("k\0abd", Some(&sig), Some(signer.key_id())),
            Err(SignatureFault::Mismatch)
        );
        assert_eq!(
            signer.verify("k\0abc", Some("%%%"), Some(signer.key_id())),
            Err(SignatureFault::Malformed)
        );
        assert_eq!(
            signer.verify("k\0abc", Some(&sig), Some("00000000")),
            Err(SignatureFault::UnknownKey)
        );
        assert_eq!(
            signer.verify("k\0abc", None, Some(signer.key_id())),
            Err(SignatureFault::Missing)
        );
        // Anyone holding the public key can check it.
        let public: [u8; 32] = (0..32)
            .map(|i| u8::from_str_radix(&signer.public_key()[2 * i..2 * i + 2], 16).expect("hex"))
            .collect::<Vec<_>>()
            .try_into()
            .expect("32 bytes");
        let key = VerifyingKey::from_bytes(&public).expect("key");
        let bytes = STANDARD.decode(sig).expect("base64");
        let sig = Signature::from_slice(&bytes).expect("signature");
        assert!(key.verify_strict(b"k\0abc", &sig).is_ok());
        assert!(signer.public_key().starts_with(signer.key_id()));
    }

    #[test]
    fn a_kept_key_survives_a_restart() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("signing.key");
        let first = Signer::load_or_create(&path).expect("made");
        let again = Signer::load_or_create(&path).expect("read");
        assert_eq!(first.public_key(), again.public_key());
        std::fs::write(&path, b"short").expect("write");
        assert!(Signer::load_or_create(&path).is_err());
    }
}
