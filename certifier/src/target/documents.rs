//! Where the run's documents come from. Upstream's API, as it ran, took only document addresses
//! its own document service had signed, so every document the run sends is a file it uploads
//! first, by that service's protocol (`POST /upload`, Basic credentials, one multipart `file`
//! part, answered with a signed `url` and its `hash`): to the service `--document-service`
//! names, or to the target itself when it is its own document service. Without one, documents
//! carry addresses of a store that does not exist, which such a target refuses. The uploads
//! themselves are the target's (`uploads`).
use std::sync::atomic::{AtomicUsize, Ordering};

use reqwest::Url;

/// How the run's documents get their addresses.
#[derive(Debug)]
pub enum Documents {
    /// Uploaded to a document service, whose answers give each document its address.
    Service(Service),
    /// Addresses of a store that does not exist, and why no service is used.
    Unsigned(String),
}

/// A document service the run uploads to.
#[derive(Debug)]
pub struct Service {
    /// Its `POST /upload` address, credentials taken out.
    pub upload: String,
    pub user: String,
    pub password: String,
    /// Named by `--document-service`, rather than found at the target's root.
    pub given: bool,
    /// Files uploaded so far.
    pub(super) uploads: AtomicUsize,
}

impl Service {
    /// The service at `address` (a base URL, its credentials in the user part as curl takes
    /// them, else those of `broker`).
    pub fn at(address: &str, user: &str, password: &str, given: bool) -> Result<Service, String> {
        let mut url = Url::parse(address)
            .map_err(|e| format!("--document-service {address:?} is not a URL: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "--document-service {address:?} is not an http:// or https:// address"
            ));
        }
        let (user, password) = match url.username() {
            "" => (user.to_owned(), password.to_owned()),
            named => (
                decoded(named),
                url.password().map(decoded).unwrap_or_default(),
            ),
        };
        let _ = url.set_username("");
        let _ = url.set_password(None);
        let base = url.as_str().trim_end_matches('/').to_owned();
        Ok(Service {
            upload: format!("{base}/upload"),
            user,
            password,
            given,
            uploads: AtomicUsize::new(0),
        })
    }

    pub fn uploads(&self) -> usize {
        self.uploads.load(Ordering::Relaxed)
    }
}

/// A percent-encoded user or password, as a URL carries it.
fn decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

impl Documents {
    /// What the certificate says of the run's documents.
    pub fn describe(&self) -> String {
        match self {
            Documents::Service(s) => format!(
                "{} file(s) uploaded to {} document service at `{}` (as `{}`), each document carrying the address it signed",
                s.uploads(),
                if s.given { "the" } else { "the target's own" },
                s.upload,
                s.user
            ),
            Documents::Unsigned(why) => format!(
                "addresses of a store that does not exist, unsigned ({why}); a target that takes documents only from its document service refuses them: name it with `--document-service URL`"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::target::documents::Service;

    #[test]
    fn credentials_come_from_the_address_else_from_the_broker() {
        let s = Service::at("https://ds.example.test/", "broker", "", true).unwrap();
        assert_eq!(
            (s.upload.as_str(), s.user.as_str(), s.password.as_str()),
            ("https://ds.example.test/upload", "broker", "")
        );
        let s = Service::at(
            "http://uploader:p%40ss@ds.example.test:8080",
            "broker",
            "",
            true,
        )
        .unwrap();
        assert_eq!(
            (s.upload.as_str(), s.user.as_str(), s.password.as_str()),
            ("http://ds.example.test:8080/upload", "uploader", "p@ss")
        );
        assert!(Service::at("ds.example.test", "broker", "", true).is_err());
        assert!(Service::at("ftp://ds.example.test", "broker", "", true).is_err());
    }
}
