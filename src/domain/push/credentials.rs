//! The server's registration with Zulip's push notification service: its `zulip_org_id`
//! (a UUIDv4), `zulip_org_key` (64 random characters) and the realm's UUID, kept in
//! `<data_dir>/push/bouncer.json` (directory 0700, file 0600, written whole through a
//! temporary file and a rename). Created by `outpost push register`, read by whoever calls
//! the service.
//!
//! Files only: no network, no database. The key is never logged nor shown by `Debug`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use rand::RngExt as _;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Length of an org key, as upstream's `register_server` makes them.
pub const ORG_KEY_LENGTH: usize = 64;

/// The stored registration.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credentials {
    pub zulip_org_id: String,
    pub zulip_org_key: String,
    /// The realm's UUID, as upstream sends `realm_uuid` (Outpost has one realm).
    pub realm_uuid: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("zulip_org_id", &self.zulip_org_id)
            .field("zulip_org_key", &"***")
            .field("realm_uuid", &self.realm_uuid)
            .finish()
    }
}

impl Credentials {
    /// New random credentials.
    pub fn generate() -> Credentials {
        Credentials {
            zulip_org_id: uuid::Uuid::new_v4().to_string(),
            zulip_org_key: new_org_key(),
            realm_uuid: uuid::Uuid::new_v4().to_string(),
        }
    }
}

/// A new random org key: 64 letters and digits.
pub fn new_org_key() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut rng = rand::rng();
    (0..ORG_KEY_LENGTH)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

/// Where the credentials live.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("push").join("bouncer.json")
}

fn valid(c: &Credentials) -> bool {
    uuid::Uuid::parse_str(&c.zulip_org_id).is_ok_and(|u| u.get_version_num() == 4)
        && c.zulip_org_key.len() == ORG_KEY_LENGTH
        && c.zulip_org_key.bytes().all(|b| b.is_ascii_alphanumeric())
        && uuid::Uuid::parse_str(&c.realm_uuid).is_ok()
}

/// The stored credentials; `None` when the server was never registered.
pub fn load(data_dir: &Path) -> Result<Option<Credentials>> {
    let file = path(data_dir);
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Error::internal(format!(
                "cannot read {}: {e}",
                file.display()
            )));
        }
    };
    let c: Credentials = serde_json::from_str(&text)
        .map_err(|e| Error::internal(format!("{} is not valid: {e}", file.display())))?;
    if !valid(&c) {
        return Err(Error::internal(format!(
            "{} holds no usable zulip_org_id, zulip_org_key and realm_uuid",
            file.display()
        )));
    }
    Ok(Some(c))
}

/// Writes the credentials, owner-only, replacing what was there.
pub fn store(data_dir: &Path, c: &Credentials) -> Result<()> {
    let file = path(data_dir);
    let dir = file.parent().unwrap_or(data_dir);
    let fail = |e: std::io::Error| Error::internal(format!("cannot write {}: {e}", file.display()));
    crate::private_files::private_dir(data_dir).map_err(fail)?;
    crate::private_files::private_dir(dir).map_err(fail)?;
    let tmp = dir.join(format!("bouncer.json.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let text = serde_json::to_string_pretty(c).map_err(|e| Error::internal(e.to_string()))?;
    let mut f = crate::private_files::new_private_file(&tmp).map_err(fail)?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.write_all(b"\n"))
        .and_then(|_| f.sync_all())
        .map_err(fail)?;
    std::fs::rename(&tmp, &file).map_err(fail)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn stored_owner_only_and_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        assert_eq!(load(&data).unwrap(), None);
        let c = Credentials::generate();
        assert_eq!(c.zulip_org_key.len(), 64);
        store(&data, &c).unwrap();
        assert_eq!(load(&data).unwrap(), Some(c.clone()));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path(&data)), 0o600);
        assert_eq!(mode(&data.join("push")), 0o700);
        assert!(!format!("{c:?}").contains(&c.zulip_org_key));
        std::fs::write(path(&data), "{}").unwrap();
        assert!(load(&data).is_err());
    }
}
