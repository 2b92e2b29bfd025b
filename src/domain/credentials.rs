//! In-memory helpers for authentication: the user cache and the login failure limiter.
//!
//! The cache maps lower-cased emails to user rows so that an authenticated request costs no
//! database read. Entries are stamped with a generation number; every committed change to users
//! bumps the generation (see `AppState::open`), which makes all older entries misses. A miss
//! reads the database, so users created by another process (`outpost create-user`) are seen at
//! once. Must not touch the database itself.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::model::User;

/// Beyond this many entries the cache starts over instead of growing.
const MAX_ENTRIES: usize = 100_000;

#[derive(Default)]
pub struct UserCache {
    generation: AtomicU64,
    /// Lower-cased email → (generation when read, row).
    by_email: RwLock<HashMap<String, (u64, Arc<User>)>>,
}

impl UserCache {
    /// The current generation; read it before a database lookup and pass it to [`Self::put`].
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    pub fn get(&self, email_lower: &str) -> Option<Arc<User>> {
        let current = self.generation();
        let map = self.by_email.read().ok()?;
        match map.get(email_lower) {
            Some((g, user)) if *g == current => Some(Arc::clone(user)),
            _ => None,
        }
    }

    /// Stores a row read while the generation was `read_at`. If users changed since, the entry
    /// is born stale and the next lookup reads again.
    pub fn put(&self, email_lower: String, read_at: u64, user: Arc<User>) {
        if let Ok(mut map) = self.by_email.write() {
            if map.len() >= MAX_ENTRIES {
                map.clear();
            }
            map.insert(email_lower, (read_at, user));
        }
    }

    /// Marks every entry stale. Called after a commit that changed users.
    pub fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }
}

/// Zulip allows 5 failed password logins per username in 30 minutes.
const MAX_FAILURES: usize = 5;
const FAILURE_WINDOW: Duration = Duration::from_secs(30 * 60);

/// Counts failed password logins per (lower-cased) username.
#[derive(Default)]
pub struct LoginLimiter {
    failures: Mutex<HashMap<String, Vec<Instant>>>,
}

impl LoginLimiter {
    /// `Some(wait)` when `username` has used up its failures for now.
    pub fn blocked_for(&self, username: &str) -> Option<Duration> {
        let mut map = self.failures.lock().ok()?;
        let now = Instant::now();
        let list = map.get_mut(username)?;
        list.retain(|t| now.duration_since(*t) < FAILURE_WINDOW);
        if list.len() < MAX_FAILURES {
            return None;
        }
        let oldest = list.iter().min().copied()?;
        Some(FAILURE_WINDOW.saturating_sub(now.duration_since(oldest)))
    }

    pub fn record_failure(&self, username: &str) {
        if let Ok(mut map) = self.failures.lock() {
            if map.len() >= MAX_ENTRIES {
                map.clear();
            }
            map.entry(username.to_string())
                .or_default()
                .push(Instant::now());
        }
    }

    pub fn clear(&self, username: &str) {
        if let Ok(mut map) = self.failures.lock() {
            map.remove(username);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limiter_blocks_after_five_failures() {
        let l = LoginLimiter::default();
        for _ in 0..4 {
            l.record_failure("a@x");
        }
        assert!(l.blocked_for("a@x").is_none());
        l.record_failure("a@x");
        let wait = l.blocked_for("a@x").unwrap();
        assert!(wait > Duration::from_secs(29 * 60));
        assert!(l.blocked_for("b@x").is_none());
        l.clear("a@x");
        assert!(l.blocked_for("a@x").is_none());
    }
}
