//! Who is calling: brokers identified by the HTTP Basic user name, and the access tokens
//! that bind a tender or a bid to the broker that created it.

use super::error::ApiError;
use crate::domain::Refusal;
use base64::Engine;
use salvo::http::header::AUTHORIZATION;
use salvo::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// Accreditation levels a broker gets when its entry names none.
const ALL_LEVELS: &str = "1234";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broker {
    /// The entry name: it becomes the `owner` of what the broker creates.
    pub name: String,
    levels: String,
}

/// Accreditation a write needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Level 1: creating tenders.
    Tenders,
    /// Level 2: bids and questions.
    Participation,
}

impl Broker {
    pub fn accredited(&self, level: Level) -> bool {
        let needed = match level {
            Level::Tenders => '1',
            Level::Participation => '2',
        };
        self.levels.contains(needed)
    }

    /// A broker accredited for test tenders only (level `t`).
    pub fn test_only(&self) -> bool {
        self.levels.contains('t')
    }

    /// May this broker create `what` (a tender, bid or question) on a tender in or out of
    /// test mode? Refused as upstream: 403 on `procurementMethodType`.
    pub fn may_create(&self, level: Level, test_tender: bool, what: &str) -> Result<(), Refusal> {
        let refused = |name| Refusal::Forbidden {
            location: "procurementMethodType",
            name,
            description: format!("Broker Accreditation level does not permit {what} creation"),
        };
        if !self.accredited(level) {
            Err(refused("accreditation"))
        } else if self.test_only() && !test_tender {
            Err(refused("mode"))
        } else {
            Ok(())
        }
    }
}

/// The brokers known to the server, by API key.
#[derive(Debug, Clone)]
pub struct Brokers {
    by_key: HashMap<String, Broker>,
}

impl Brokers {
    /// `broker`, `broker1` and `broker2`, each with its name as key and every level.
    pub fn builtin() -> Brokers {
        let by_key = ["broker", "broker1", "broker2"]
            .iter()
            .map(|n| {
                (
                    n.to_string(),
                    Broker {
                        name: n.to_string(),
                        levels: ALL_LEVELS.into(),
                    },
                )
            })
            .collect();
        Brokers { by_key }
    }

    /// Reads an upstream-style `auth.ini`: sections are groups, entries `name = key[,levels]`.
    /// Only the `[brokers]` group may act through this API.
    pub fn load(path: &Path) -> Result<Brokers, String> {
        let ini = ini::Ini::load_from_file(path)
            .map_err(|e| format!("cannot read brokers file {}: {e}", path.display()))?;
        let section = ini
            .section(Some("brokers"))
            .ok_or_else(|| format!("{} has no [brokers] section", path.display()))?;
        let mut by_key = HashMap::new();
        for (name, entry) in section.iter() {
            let (key, levels) = entry.split_once(',').unwrap_or((entry, ALL_LEVELS));
            let key = key.trim();
            if key.is_empty() {
                return Err(format!(
                    "broker {name} in {} has an empty key",
                    path.display()
                ));
            }
            by_key.insert(
                key.to_string(),
                Broker {
                    name: name.to_string(),
                    levels: levels.trim().to_string(),
                },
            );
        }
        Ok(Brokers { by_key })
    }

    /// The broker named by the request's `Authorization` (Basic user name, or Bearer key).
    /// An unknown key is the same as none.
    pub fn identify(&self, req: &Request) -> Option<&Broker> {
        let header = req.headers().get(AUTHORIZATION)?.to_str().ok()?;
        let (scheme, credentials) = header.trim().split_once(' ')?;
        let key = if scheme.eq_ignore_ascii_case("basic") {
            basic(req)?.0
        } else if scheme.eq_ignore_ascii_case("bearer") {
            credentials.trim().to_string()
        } else {
            return None;
        };
        self.by_key.get(&key)
    }

    /// Who a request's credentials name: `None` when it carries no `Authorization`. Credentials
    /// that name no known broker are refused (403, as a write of the API refuses them), never
    /// taken for none: on the testing routes "none" may mean the server's own runner.
    pub fn caller(&self, req: &Request) -> Result<Option<&Broker>, ApiError> {
        if !req.headers().contains_key(AUTHORIZATION) {
            return Ok(None);
        }
        self.identify(req).map(Some).ok_or_else(ApiError::forbidden)
    }

    /// Whether a broker of this name (the `owner` it gets) is known.
    pub fn knows(&self, name: &str) -> bool {
        self.by_key.values().any(|b| b.name == name)
    }

    /// The broker of this name, if known.
    pub fn of_name(&self, name: &str) -> Option<&Broker> {
        self.by_key.values().find(|b| b.name == name)
    }

    /// The key of the broker of this name, with which the server's own test helper acts for it.
    pub fn key_of(&self, name: &str) -> Option<&str> {
        self.by_key
            .iter()
            .find(|(_, b)| b.name == name)
            .map(|(key, _)| key.as_str())
    }

    /// The names of the known brokers.
    pub fn names(&self) -> Vec<&str> {
        self.by_key.values().map(|b| b.name.as_str()).collect()
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

/// Who asks on the testing routes that set what a broker's own requests meet (fault rules,
/// EDR answers), and whether the server is theirs alone (`--testing`): a broker's setting
/// applies to that broker's requests only; settings without credentials, or for another
/// broker, only on a server its runner owns. A shared sandbox turns that one switch off.
pub struct Asker {
    broker: Option<String>,
    owns_server: bool,
}

impl Asker {
    /// Credentials that name no known broker are refused (403), never taken for none.
    pub fn of(app: &super::App, req: &Request) -> Result<Asker, ApiError> {
        Ok(Asker {
            broker: app.brokers.caller(req)?.map(|b| b.name.clone()),
            owns_server: app.mode.is_owned(),
        })
    }

    /// Whose requests a new setting applies to, when `named` is the broker the body names:
    /// the caller's own; any broker's or everyone's only on a server the caller owns.
    pub fn whose(
        &self,
        named: Option<&str>,
        what: SettingKind,
    ) -> Result<Option<String>, ApiError> {
        match (&self.broker, named) {
            (Some(me), None) => Ok(Some(me.clone())),
            (Some(me), Some(other)) if other != me => Err(what.foreign(me, other)),
            (Some(me), Some(_)) => Ok(Some(me.clone())),
            (None, named) if self.owns_server => Ok(named.map(str::to_string)),
            (None, _) => Err(ApiError::forbidden_because(format!(
                "on a public sandbox {} hits one broker's own requests: set it with your \
                 broker's credentials",
                what.one
            ))),
        }
    }

    /// Whether the caller may see and remove a setting for `broker`'s requests (everyone's
    /// when `None`).
    pub fn sees(&self, broker: Option<&str>) -> bool {
        self.owns_server || (self.broker.is_some() && broker == self.broker.as_deref())
    }

    /// Whether the caller may see and remove a setting for `broker`'s requests that `set_by`
    /// made: one for its own requests, or one it made on its test clock for anyone's.
    pub fn sees_made(&self, broker: Option<&str>, set_by: Option<&str>) -> bool {
        self.sees(broker) || (set_by.is_some() && set_by == self.broker.as_deref())
    }

    /// Whose requests a new setting on the caller's test clock applies to: anyone's on the
    /// clock, or the caller's own alone when the body names the caller (naming another is 403).
    pub fn whose_on_clock(
        &self,
        named: Option<&str>,
        what: SettingKind,
    ) -> Result<Option<String>, ApiError> {
        match (&self.broker, named) {
            (Some(me), Some(other)) if other != me => Err(what.foreign(me, other)),
            (Some(me), named) => Ok(named.map(|_| me.clone())),
            (None, _) => Err(ApiError::forbidden_because(format!(
                "{} on a test clock is set by the clock's owner, with its broker's credentials",
                what.one
            ))),
        }
    }

    /// The broker asking, if any.
    pub fn broker(&self) -> Option<&str> {
        self.broker.as_deref()
    }
}

/// A setting made for one broker's requests (a fault rule, an EDR answer), as a refusal
/// names it: its kind, and the field of the body naming its broker.
#[derive(Clone, Copy)]
pub struct SettingKind {
    pub one: &'static str,
    pub many: &'static str,
    pub field: &'static str,
}

impl SettingKind {
    fn foreign(self, me: &str, other: &str) -> ApiError {
        ApiError::forbidden_because(format!(
            "a broker's {} hit its own requests alone, and {} names {other}; leave it out, or \
             name {me}",
            self.many, self.field
        ))
    }
}

/// The user name and password of a request's HTTP Basic `Authorization`.
pub fn basic(req: &Request) -> Option<(String, String)> {
    let header = req.headers().get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, credentials) = header.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(credentials.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    Some(match text.split_once(':') {
        Some((user, password)) => (user.to_string(), password.to_string()),
        None => (text, String::new()),
    })
}

/// The access token a request presents: `?acc_token=`, `X-Access-Token`, or `access.token`
/// in a JSON body (passed in by the caller once the body is read).
pub fn presented_token(req: &Request, body_token: Option<&str>) -> Option<String> {
    req.query::<String>("acc_token")
        .filter(|t| !t.is_empty())
        .or_else(|| {
            req.headers()
                .get("X-Access-Token")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        })
        .or_else(|| body_token.map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const KIND: SettingKind = SettingKind {
        one: "a fault rule",
        many: "fault rules",
        field: "match.broker",
    };

    #[test]
    fn loads_brokers_with_levels() {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        writeln!(
            file,
            "[brokers]\nbroker = secret\ntester = t1,1t\n[auction]\nauction = auction"
        )
        .expect("write");
        let brokers = Brokers::load(file.path()).expect("valid file");
        assert_eq!(brokers.len(), 2);
        let b = &brokers.by_key["secret"];
        assert_eq!(b.name, "broker");
        assert!(
            b.accredited(Level::Tenders) && b.accredited(Level::Participation) && !b.test_only()
        );
        let t = &brokers.by_key["t1"];
        assert!(
            t.accredited(Level::Tenders) && !t.accredited(Level::Participation) && t.test_only()
        );
        assert!(!brokers.by_key.contains_key("auction"));
    }

    fn asker(broker: Option<&str>, owns_server: bool) -> Asker {
        Asker {
            broker: broker.map(str::to_string),
            owns_server,
        }
    }

    fn status(r: Result<Option<String>, ApiError>) -> Result<Option<String>, u16> {
        r.map_err(|e| e.status.as_u16())
    }

    #[test]
    fn a_broker_sets_what_its_own_requests_meet_alone() {
        for owns_server in [true, false] {
            let a = asker(Some("a"), owns_server);
            assert_eq!(status(a.whose(None, KIND)), Ok(Some("a".into())));
            assert_eq!(status(a.whose(Some("a"), KIND)), Ok(Some("a".into())));
            assert_eq!(status(a.whose(Some("b"), KIND)), Err(403));
        }
    }

    #[test]
    fn on_a_shared_server_a_broker_sees_only_its_own_settings() {
        let (mine, theirs, anyones) = (Some("a"), Some("b"), None);
        let shared = asker(Some("a"), false);
        assert!(shared.sees(mine) && !shared.sees(theirs) && !shared.sees(anyones));
        let nobody = asker(None, false);
        assert!(!nobody.sees(mine) && !nobody.sees(anyones));
        let owner = asker(None, true);
        assert!(owner.sees(mine) && owner.sees(theirs) && owner.sees(anyones));
    }

    #[test]
    fn settings_without_credentials_only_on_an_owned_server() {
        let owner = asker(None, true);
        assert_eq!(status(owner.whose(None, KIND)), Ok(None));
        assert_eq!(status(owner.whose(Some("b"), KIND)), Ok(Some("b".into())));
        let shared = asker(None, false);
        assert_eq!(status(shared.whose(None, KIND)), Err(403));
        assert_eq!(status(shared.whose(Some("b"), KIND)), Err(403));
    }

    #[test]
    fn a_file_without_brokers_is_refused() {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        writeln!(file, "[auction]\nauction = auction").expect("write");
        assert!(Brokers::load(file.path()).is_err());
    }
}
