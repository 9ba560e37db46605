//! The document service's own users, as upstream's service kept them: an ini file whose
//! sections are groups and whose entries are `user = <SHA-512 hex of the password>`. Only the
//! groups `uploaders` and `api` may upload; a user of any other group is known but refused,
//! as upstream's access list refused it. Brokers keep uploading with their API credentials.

use sha2::{Digest, Sha512};
use std::collections::HashMap;
use std::path::Path;
use subtle::ConstantTimeEq;

/// The groups whose users may upload.
const UPLOADING_GROUPS: [&str; 2] = ["uploaders", "api"];

#[derive(Debug, Clone)]
struct User {
    uploads: bool,
    password: [u8; 64],
}

/// The document service's users by name.
#[derive(Debug, Clone, Default)]
pub struct Users {
    by_name: HashMap<String, User>,
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
    /// A file of users only (`--ds-users`): every section is a group.
    pub fn load(path: &Path) -> Result<Users, String> {
        let ini = ini::Ini::load_from_file(path).map_err(|e| {
            format!(
                "cannot read the document service's users file {}: {e}",
                path.display()
            )
        })?;
        let mut users = Users::default();
        users.add(&ini, path, |_| true)?;
        Ok(users)
    }

    /// The uploading groups of a brokers file, where a broker platform may keep its document
    /// service users beside its brokers.
    pub fn in_brokers_file(path: &Path) -> Result<Users, String> {
        let ini = ini::Ini::load_from_file(path)
            .map_err(|e| format!("cannot read brokers file {}: {e}", path.display()))?;
        let mut users = Users::default();
        users.add(&ini, path, |group| UPLOADING_GROUPS.contains(&group))?;
        Ok(users)
    }

    /// Adds the users of the sections `wanted` takes; a name met again is the later one's, as
    /// upstream merged its sections.
    fn add(
        &mut self,
        ini: &ini::Ini,
        path: &Path,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<(), String> {
        for (group, section) in ini.iter() {
            let Some(group) = group.filter(|g| wanted(g)) else {
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
                self.by_name.insert(
                    name.to_lowercase(),
                    User {
                        uploads: UPLOADING_GROUPS.contains(&group),
                        password,
                    },
                );
            }
        }
        Ok(())
    }

    /// The users of `other` join these (its own win).
    pub fn join(&mut self, other: Users) {
        self.by_name.extend(other.by_name);
    }

    /// Whether `user` with `password` may upload. The password's digest is compared in
    /// constant time.
    pub fn may_upload(&self, user: &str, password: &str) -> bool {
        let Some(known) = self.by_name.get(user) else {
            return false;
        };
        let digest: [u8; 64] = Sha512::digest(password.as_bytes()).into();
        let same: bool = digest.ct_eq(&known.password).into();
        same && known.uploads
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
        let users = Users::load(f.path()).expect("a valid file");
        assert_eq!(users.len(), 3);
        assert!(users.may_upload("broker", "broker"));
        assert!(users.may_upload("api", "api"));
        assert!(!users.may_upload("broker", "api"), "a wrong password");
        assert!(!users.may_upload("nobody", "broker"), "an unknown user");
        assert!(
            !users.may_upload("reader", "reader"),
            "a group that may not upload"
        );
        assert!(
            !users.may_upload("Broker", "broker"),
            "names are matched as upstream lowered them"
        );
    }

    #[test]
    fn a_brokers_file_lends_only_its_uploading_groups() {
        let f = file(&format!(
            "[brokers]\nacme = 7d1f0c1e9a\n[uploaders]\nAcme.DS = {}\n[auction]\nauction = auction\n",
            sha512_hex("secret")
        ));
        let users = Users::in_brokers_file(f.path()).expect("a valid file");
        assert_eq!(users.len(), 1);
        assert!(users.may_upload("acme.ds", "secret"));
    }

    #[test]
    fn a_password_not_written_as_its_digest_is_refused_with_its_name() {
        let f = file("[uploaders]\nbroker = broker\n");
        let message = Users::load(f.path()).expect_err("refused");
        assert!(message.contains("user broker of [uploaders]"), "{message}");
        assert!(message.contains("SHA-512"), "{message}");
    }
}
