//! Process-wide Dependency-Track state: the JWT signing key, the system UUID, and the caches
//! that keep hot paths (API-key checks, badges, rendered findings) free of hashing and SQL.
//!
//! Every Dependency-Track write goes through [`write()`], which bumps a generation counter after
//! the commit; a cache entry is only used while the generation it was read under is current, so
//! no cached answer outlives a change. Must not touch HTTP types.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use rand::RngExt as _;

use crate::db::WriteTx;
use crate::domain::core::Core;
use crate::error::{Error, Result};

/// Entries kept per cache before it is emptied (bounds memory under key-guessing traffic).
const CACHE_LIMIT: usize = 10_000;

pub struct DtState {
    secret_key: [u8; 32],
    generation: AtomicU64,
    /// Bumped after each OSV import batch commits (what the imported data covers changes only then).
    osv_generation: AtomicU64,
    system_uuid: OnceLock<String>,
    /// Verified API keys (full key text) → principal.
    pub keys: Cache<Arc<crate::model::dtrack::Principal>>,
    /// Badge facts by project uuid or `name\0version`.
    pub badges: Cache<Arc<super::metrics::BadgeFacts>>,
    /// Rendered findings answers (JSON, SARIF) by project and parameters, with their count.
    pub rendered: ByteCache,
    /// What the imported OSV data covers, and the portfolio's evaluation summary.
    pub evaluation: super::evaluation::EvaluationCache,
    /// Wakes the BOM worker when an upload has been accepted.
    pub bom_ready: tokio::sync::Notify,
    /// A password hash checked for unknown usernames, so they cost as much as known ones.
    pub dummy_hash: OnceLock<String>,
    /// API keys used since the last flush: key id → epoch ms of the latest use.
    pub key_usage: std::sync::Mutex<HashMap<i64, i64>>,
    /// Failed password checks per username (`/user/login`, `/user/forceChangePassword`), with
    /// the chat login's limits.
    pub logins: crate::domain::credentials::LoginLimiter,
}

impl DtState {
    /// Loads (creating on first use) the 32-byte signing key `keys/secret.key` in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<DtState> {
        let dir = data_dir.join("keys");
        let path = dir.join("secret.key");
        let key = match std::fs::read(&path) {
            Ok(bytes) if bytes.len() == 32 => {
                let mut k = [0u8; 32];
                k.copy_from_slice(&bytes);
                k
            }
            Ok(_) => {
                return Err(Error::internal(format!(
                    "{} must hold exactly 32 bytes",
                    path.display()
                )));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut k = [0u8; 32];
                rand::rng().fill(&mut k[..]);
                std::fs::create_dir_all(&dir)
                    .and_then(|_| write_private(&path, &k))
                    .map_err(|e| {
                        Error::internal(format!("cannot write {}: {e}", path.display()))
                    })?;
                k
            }
            Err(e) => {
                return Err(Error::internal(format!(
                    "cannot read {}: {e}",
                    path.display()
                )));
            }
        };
        Ok(DtState {
            secret_key: key,
            generation: AtomicU64::new(0),
            osv_generation: AtomicU64::new(0),
            system_uuid: OnceLock::new(),
            keys: Cache::default(),
            badges: Cache::default(),
            rendered: ByteCache::default(),
            evaluation: Default::default(),
            bom_ready: tokio::sync::Notify::new(),
            dummy_hash: OnceLock::new(),
            key_usage: std::sync::Mutex::new(HashMap::new()),
            logins: crate::domain::credentials::LoginLimiter::default(),
        })
    }

    pub fn secret_key(&self) -> &[u8] {
        &self.secret_key
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    fn bump(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Changes when this process has imported OSV data (see [`DtState::osv_data_changed`]).
    pub fn osv_generation(&self) -> u64 {
        self.osv_generation.load(Ordering::Acquire)
    }

    /// Called after an OSV import batch has committed (and after [`write`] has bumped the
    /// generation): bumps the generation again, so nothing cached under the generation from
    /// the earlier coverage outlives the new one.
    pub fn osv_data_changed(&self) {
        self.osv_generation.fetch_add(1, Ordering::AcqRel);
        self.bump();
    }

    /// Called when another connection committed (another process's import, or this one's
    /// writes, seen by `db::health::ChangeWatch`): everything cached, the OSV coverage
    /// included, is read again.
    pub fn data_changed_elsewhere(&self) {
        self.osv_data_changed();
    }

    pub fn system_uuid(&self) -> &str {
        self.system_uuid.get().map(String::as_str).unwrap_or("")
    }

    pub fn set_system_uuid(&self, uuid: String) {
        let _ = self.system_uuid.set(uuid);
    }
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.mode(0o600);
    }
    opts.open(path)?.write_all(bytes)
}

/// Runs a Dependency-Track write and invalidates every cache once it has committed.
pub async fn write<T, F>(state: &Core, f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&mut WriteTx<'_>) -> Result<T> + Send + 'static,
{
    let res = state.db.write(f).await;
    state.dtrack.bump();
    res
}

/// A map whose entries are valid for one generation.
pub struct Cache<V> {
    inner: RwLock<(u64, HashMap<String, V>)>,
}

impl<V> Default for Cache<V> {
    fn default() -> Self {
        Cache {
            inner: RwLock::new((0, HashMap::new())),
        }
    }
}

impl<V: Clone> Cache<V> {
    /// The entry for `key` if it was stored under generation `current`.
    pub fn get(&self, key: &str, current: u64) -> Option<V> {
        let g = self.inner.read().ok()?;
        if g.0 != current {
            return None;
        }
        g.1.get(key).cloned()
    }

    /// Stores a value read under generation `read_at`, unless a write has happened since.
    pub fn put(&self, key: &str, value: V, read_at: u64, current: u64) {
        if read_at != current {
            return;
        }
        let Ok(mut g) = self.inner.write() else {
            return;
        };
        if g.0 > current {
            return;
        }
        if g.0 != current || g.1.len() >= CACHE_LIMIT {
            g.1.clear();
            g.0 = current;
        }
        g.1.insert(key.to_string(), value);
    }
}

/// Bytes kept by a [`ByteCache`] in all; an answer larger than a quarter of it is not kept.
const BYTE_CACHE_LIMIT: usize = 64 * 1024 * 1024;

/// A rendered answer and the count it shows.
type Rendered = (bytes::Bytes, usize);

/// Rendered answers valid for one generation, bounded by their total size.
#[derive(Default)]
pub struct ByteCache {
    /// (generation, entries, bytes held).
    inner: std::sync::Mutex<(u64, HashMap<String, Rendered>, usize)>,
}

impl ByteCache {
    /// The answer and its count for `key` if stored under generation `current`.
    pub fn get(&self, key: &str, current: u64) -> Option<Rendered> {
        let g = self.inner.lock().ok()?;
        if g.0 != current {
            return None;
        }
        g.1.get(key).cloned()
    }

    /// Stores an answer rendered under generation `read_at`, unless a write happened since.
    pub fn put(&self, key: &str, bytes: bytes::Bytes, count: usize, read_at: u64, current: u64) {
        if read_at != current || bytes.len() > BYTE_CACHE_LIMIT / 4 {
            return;
        }
        let Ok(mut g) = self.inner.lock() else {
            return;
        };
        if g.0 > current {
            return;
        }
        if g.0 != current || g.2 + bytes.len() > BYTE_CACHE_LIMIT || g.1.len() >= CACHE_LIMIT {
            g.1.clear();
            g.2 = 0;
            g.0 = current;
        }
        g.2 += bytes.len();
        if let Some((old, _)) = g.1.insert(key.to_string(), (bytes, count)) {
            g.2 -= old.len();
        }
    }
}
