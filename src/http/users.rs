//! The own users of upstream's services that this server also is, as upstream's services kept
//! them: an ini file whose sections are groups and whose entries are `user = <SHA-512 hex of
//! the password>`. Each service admits the users of its own groups, as each of upstream's
//! access lists did: the document service `[uploaders]` and `[api]`, the EDR service
//! `[platforms]`. A user of any other group is refused there. Brokers keep using their API
//! keys with both.

use sha2::{Digest, Sha512};
use std::collections::HashMap;
use std::path::Path;
use subtle::ConstantTimeEq;

/// A service with users of its own, and the groups it admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    /// The document service: its users upload.
    Documents,
    /// The EDR service: its users verify codes in the register.
    Edr,
}

impl Service {
    fn groups(self) -> &'static [&'static str] {
        match self {
            Service::Documents => &["uploaders", "api"],
            // Upstream's `robots` (its identification bot) were answered with the register's
            // details, which this server does not serve.
            Service::Edr => &["platforms"],
        }
    }

    fn admits(self, group: &str) -> bool {
        self.groups().contains(&group)
    }
}

/// One service's users by name.
#[derive(Debug, Clone, Default)]
pub struct Users {
    by_name: HashMap<String, [u8; 64]>,
}

fn digest_of(hex: &str) -> Option<[u8; 64]> {
    let hex = hex.trim();
    if hex.len() != 128 {
        return None;
    }
    let mut out = [0u8; 64];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

impl Users {
    /// The users `service` admits from a file of users only (`--ds-users`).
    pub fn load(path: &Path, service: Service) -> Result<Users, String> {
        let ini = ini::Ini::load_from_file(path)
            .map_err(|e| format!("cannot read the users file {}: {e}", path.display()))?;
        Users::of(&ini, path, service)
    }

    /// The users `service` admits from a brokers file, where a broker platform may keep its
    /// services' users beside its brokers.
    pub fn in_brokers_file(path: &Path, service: Service) -> Result<Users, String> {
        let ini = ini::Ini::load_from_file(path)
            .map_err(|e| format!("cannot read brokers file {}: {e}", path.display()))?;
        Users::of(&ini, path, service)
    }

    /// The users of the sections `service` admits; a name met again is the later one's, as
    /// upstream merged its sections.
    fn of(ini: &ini::Ini, path: &Path, service: Service) -> Result<Users, String> {
        let mut users = Users::default();
        for (group, section) in ini.iter() {
            let Some(group) = group.filter(|g| service.admits(g)) else {
                continue;
            };
            for (name, value) in section.iter() {
                let password = digest_of(value).ok_or_else(|| {
                    format!(
                        "user {name} of [{group}] in {}: the password must be given as its SHA-512 digest, 128 hexadecimal digits",
                        path.display()
                    )
                })?;
                // Upstream's ini reader lowered every name, so a name with capitals never matched.
                users.by_name.insert(name.to_lowercase(), password);
            }
        }
        Ok(users)
    }

    /// The users of `other` join these (its own win).
    pub fn join(&mut self, other: Users) {
        self.by_name.extend(other.by_name);
    }

    /// Whether `user` with `password` is one of these users. The password's digest is
    /// compared in constant time.
    pub fn admit(&self, user: &str, password: &str) -> bool {
        let Some(known) = self.by_name.get(user) else {
            return false;
        };
        let digest: [u8; 64] = Sha512::digest(password.as_bytes()).into();
        digest.ct_eq(known).into()
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn sha512_hex(text: &str) -> String {
        crate::domain::ids::hex(&Sha512::digest(text.as_bytes()))
    }

    fn file(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        f.write_all(text.as_bytes()).expect("written");
        f
    }

    #[test]
    fn upstream_s_test_file_admits_its_users_by_password() {
        let f = file(&format!(
            "[uploaders]\nbroker = {}\n[api]\napi = {}\n[readers]\nreader = {}\n",
            sha512_hex("broker"),
            sha512_hex("api"),
            sha512_hex("reader")
        ));
        let users = Users::load(f.path(), Service::Documents).expect("a valid file");
        assert_eq!(users.len(), 2);
        assert!(users.admit("broker", "broker"));
        assert!(users.admit("api", "api"));
        assert!(!users.admit("broker", "api"), "a wrong password");
        assert!(!users.admit("nobody", "broker"), "an unknown user");
        assert!(
            !users.admit("reader", "reader"),
            "a group that may not upload"
        );
        assert!(
            !users.admit("Broker", "broker"),
            "names are matched as upstream lowered them"
        );
    }

    #[test]
    fn each_service_admits_its_own_groups_of_one_file() {
        let f = file(&format!(
            "[uploaders]\nshared = {}\n[platforms]\nshared = {}\nplatform = {}\n[robots]\nrobot = {}\n",
            sha512_hex("ds"),
            sha512_hex("edr"),
            sha512_hex("platform"),
            sha512_hex("robot"),
        ));
        let documents = Users::load(f.path(), Service::Documents).expect("a valid file");
        let edr = Users::load(f.path(), Service::Edr).expect("a valid file");
        assert!(documents.admit("shared", "ds") && !documents.admit("shared", "edr"));
        assert!(edr.admit("shared", "edr") && !edr.admit("shared", "ds"));
        assert!(edr.admit("platform", "platform") && !documents.admit("platform", "platform"));
        assert!(!edr.admit("robot", "robot"), "robots are not served");
    }

    #[test]
    fn a_brokers_file_lends_only_its_services_groups() {
        let f = file(&format!(
            "[brokers]\nacme = 7d1f0c1e9a\n[uploaders]\nAcme.DS = {}\n[auction]\nauction = auction\n",
            sha512_hex("secret")
        ));
        let users = Users::in_brokers_file(f.path(), Service::Documents).expect("a valid file");
        assert_eq!(users.len(), 1);
        assert!(users.admit("acme.ds", "secret"));
        let edr = Users::in_brokers_file(f.path(), Service::Edr).expect("a valid file");
        assert!(edr.is_empty());
    }

    #[test]
    fn a_password_not_written_as_its_digest_is_refused_with_its_name() {
        let f = file("[uploaders]\nbroker = broker\n");
        let message = Users::load(f.path(), Service::Documents).expect_err("refused");
        assert!(message.contains("user broker of [uploaders]"), "{message}");
        assert!(message.contains("SHA-512"), "{message}");
        let f = file("[platforms]\nplatform = platform\n");
        let message = Users::load(f.path(), Service::Edr).expect_err("refused");
        assert!(
            message.contains("user platform of [platforms]"),
            "{message}"
        );
    }
}
