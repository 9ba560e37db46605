//! The addresses of the document service: building them, and checking one a client sends.

use super::signing::Signer;
use crate::domain::document::Addresses;

/// How long a temporary address stays valid, in seconds.
pub const TEMPORARY_SECONDS: i64 = 300;

/// Why an address that claims to be the service's own was refused (upstream's messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressFault {
    /// Not `/get/<key>` with a query of exactly `Signature` and `KeyID`.
    Invalid,
    /// A `KeyID` the server does not have.
    UnknownKey,
    /// The signature does not vouch for this key and hash.
    BadSignature,
}

impl AddressFault {
    pub fn message(self) -> &'static str {
        match self {
            AddressFault::Invalid => "Document url invalid.",
            AddressFault::UnknownKey => "Document url expired.",
            AddressFault::BadSignature => "Document url signature invalid.",
        }
    }
}

/// The permanent download address of `key`, whose content has the md5 `md5` (hex).
pub fn permanent(root: &str, signer: &Signer, key: &str, md5: &str) -> String {
    format!("{root}/get/{key}?{}", signer.permanent_query(key, md5))
}

/// A download address of `key` valid until `expires` (unix seconds).
pub fn temporary(root: &str, signer: &Signer, key: &str, expires: i64) -> String {
    format!("{root}/get/{key}?{}", signer.temporary_query(key, expires))
}

/// The upload address of a registered `key`.
pub fn upload(root: &str, signer: &Signer, key: &str) -> String {
    format!("{root}/upload/{key}?{}", signer.upload_query(key))
}

/// `url` checked as a document address: `Ok(None)` for an address of another store,
/// `Ok(Some(key))` for a permanent address of this service (under `root`) whose signature
/// vouches for `hash`.
pub fn check(
    url: &str,
    hash: &str,
    root: &str,
    signer: &Signer,
) -> Result<Option<String>, AddressFault> {
    let Some(rest) = url.strip_prefix(root).filter(|r| r.starts_with('/')) else {
        return Ok(None);
    };
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let key = path
        .strip_prefix("/get/")
        .filter(|k| super::is_key(k))
        .ok_or(AddressFault::Invalid)?;
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    let value = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let mut names: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
    names.sort_unstable();
    if names != ["KeyID", "Signature"] {
        return Err(AddressFault::Invalid);
    }
    let md5 = hash.strip_prefix("md5:").unwrap_or("").to_ascii_lowercase();
    match signer.verify(&format!("{key}\0{md5}"), value("Signature"), value("KeyID")) {
        Ok(()) => Ok(Some(key.to_string())),
        Err(super::signing::SignatureFault::UnknownKey) => Err(AddressFault::UnknownKey),
        Err(_) => Err(AddressFault::BadSignature),
    }
}

/// An address of another store as the server shows it: the address as sent with the server's
/// `KeyID` and a `Signature` of `<address without them>\0<hash>`, so that a reader can check
/// that this registry recorded this address with this hash.
pub fn endorsed(url: &str, hash: &str, signer: &Signer) -> String {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let kept: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .filter(|(k, _)| k != "Signature" && k != "KeyID")
        .collect();
    let mut out = form_urlencoded::Serializer::new(String::new());
    out.extend_pairs(kept.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let bare = match out.finish() {
        q if q.is_empty() => base.to_string(),
        q => format!("{base}?{q}"),
    };
    let mut out = form_urlencoded::Serializer::new(String::new());
    out.extend_pairs(kept.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    out.append_pair("Signature", &signer.sign(&format!("{bare}\0{hash}")));
    out.append_pair("KeyID", signer.key_id());
    format!("{base}?{}", out.finish())
}

/// The server's key vouches for the addresses a document shows.
impl Addresses for Signer {
    fn check(&self, url: &str, hash: &str, root: &str) -> Result<Option<String>, &'static str> {
        check(url, hash, root, self).map_err(AddressFault::message)
    }
    fn permanent(&self, root: &str, key: &str, md5: &str) -> String {
        permanent(root, self, key, md5)
    }
    fn endorsed(&self, url: &str, hash: &str) -> String {
        endorsed(url, hash, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::document::{DocumentInput, DocumentRecord, Filing, Unfiled, UrlStyle};
    use crate::domain::parse::{Cx, FromJson, Problem};
    use serde_json::{Value as Json, json};

    const KEY: &str = "0123456789abcdef0123456789abcdef";
    const MD5: &str = "5d41402abc4b2a76b9719d911017c592";

    #[test]
    fn the_services_own_addresses_are_checked() {
        let signer = Signer::generate().expect("key");
        let root = "http://h:1";
        let good = permanent(root, &signer, KEY, MD5);
        let hash = format!("md5:{MD5}");
        assert_eq!(check(&good, &hash, root, &signer), Ok(Some(KEY.into())));
        assert_eq!(
            check("http://elsewhere/get/x", &hash, root, &signer),
            Ok(None)
        );
        let other_hash = "md5:00000000000000000000000000000000";
        assert_eq!(
            check(&good, other_hash, root, &signer),
            Err(AddressFault::BadSignature)
        );
        let expiring = temporary(root, &signer, KEY, 1);
        assert_eq!(
            check(&expiring, &hash, root, &signer),
            Err(AddressFault::Invalid)
        );
        let wrong_path = good.replace("/get/", "/got/");
        assert_eq!(
            check(&wrong_path, &hash, root, &signer),
            Err(AddressFault::Invalid)
        );
        let other_key = good.replace(signer.key_id(), "00000000");
        assert_eq!(
            check(&other_key, &hash, root, &signer),
            Err(AddressFault::UnknownKey)
        );
    }

    #[test]
    fn other_stores_addresses_are_endorsed_verifiably() {
        let signer = Signer::generate().expect("key");
        let shown = endorsed("http://ds/f?a=1&Signature=old&KeyID=x", "md5:0", &signer);
        assert!(shown.starts_with("http://ds/f?a=1&Signature="), "{shown}");
        assert!(shown.ends_with(&format!("&KeyID={}", signer.key_id())));
        let sig = form_urlencoded::parse(shown.split_once('?').expect("query").1.as_bytes())
            .find(|(k, _)| k == "Signature")
            .map(|(_, v)| v.into_owned());
        assert_eq!(
            signer.verify(
                "http://ds/f?a=1\0md5:0",
                sig.as_deref(),
                Some(signer.key_id())
            ),
            Ok(())
        );
    }

    fn cx() -> Cx {
        Cx::kyiv(false)
    }

    fn body(url: &str) -> Json {
        json!({"title": "Notice.pdf", "url": url, "hash": "md5:00000000000000000000000000000000", "format": "application/pdf"})
    }

    #[test]
    fn addresses_of_the_service_are_checked_and_others_endorsed() {
        let signer = Signer::generate().expect("key");
        let filing = Filing {
            addresses: &signer,
            ds_root: "http://h".into(),
            ds_only: false,
            style: UrlStyle::Signed,
        };
        let t0 = cx().zone.parse("2017-01-01T10:00").expect("date");
        let key = "0123456789abcdef0123456789abcdef";
        let md5 = "00000000000000000000000000000000";
        let own = permanent("http://h", &signer, key, md5);
        let input = DocumentInput::from_value(&body(&own), &cx()).expect("valid");
        let doc = DocumentRecord::upload(input, t0, &filing).expect("accepted");
        assert_eq!(doc.current.url, own);
        assert_eq!(doc.current.key, key);
        let forged = own.replace(key, "1123456789abcdef0123456789abcdef");
        let input = DocumentInput::from_value(&body(&forged), &cx()).expect("valid");
        let err = DocumentRecord::upload(input, t0, &filing).expect_err("forged");
        assert_eq!(
            err,
            Unfiled::Invalid(Problem::field(
                "url",
                Problem::msg("Document url signature invalid.")
            ))
        );
        let input = DocumentInput::from_value(&body("http://ds/1"), &cx()).expect("valid");
        let doc = DocumentRecord::upload(input.clone(), t0, &filing).expect("accepted");
        assert!(doc.current.url.starts_with("http://ds/1?Signature="));
        let strict = Filing {
            ds_only: true,
            ..filing
        };
        assert!(matches!(
            DocumentRecord::upload(input, t0, &strict),
            Err(Unfiled::ForeignStore)
        ));
    }
}
