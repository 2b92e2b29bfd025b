//! In-memory helpers for authentication: the user cache and the login failure limiter.
//!
//! The cache maps login keys (`domain::email_keys::login_key`: ASCII case folded, the equality
//! the database lookup applies) to user rows so that an authenticated request costs no
//! database read, and remembers keys that have no user for a short while, so that an unknown
//! email is answered as fast as a known one. Callers file an entry only under the key the
//! database was asked for. Entries are stamped with a generation number; every committed
//! change to users bumps the generation (see `domain::core::OnCommit`), which makes all older entries
//! misses. A miss reads the database, so users created by another process
//! (`outpost create-user`) are seen at once. The limiter counts failures per login key too.
//! Must not touch the database itself.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::model::User;

/// Beyond this many entries the cache starts over instead of growing.
const MAX_ENTRIES: usize = 100_000;
/// Beyond this many remembered unknown emails that list starts over (it never evicts users).
const MAX_ABSENT: usize = 10_000;
/// How long an unknown email is remembered as unknown (within one generation). Bounded so that
/// a user created by another process (`outpost create-user`) is seen within this time.
const ABSENT_TTL: Duration = Duration::from_secs(30);

/// What the cache knows about an email.
#[derive(Clone, Debug)]
pub enum Cached {
    User(Arc<User>),
    /// Looked up recently and not found: answered without the database, as fast as a user,
    /// so response times do not tell which emails have accounts.
    NoSuchUser,
}

pub struct UserCache {
    generation: AtomicU64,
    /// Login key → (generation when read, row).
    by_email: RwLock<HashMap<String, (u64, Arc<User>)>>,
    /// Login key → (generation when looked up, when) for keys with no user.
    absent: RwLock<HashMap<String, (u64, Instant)>>,
    absent_ttl: Duration,
}

impl Default for UserCache {
    fn default() -> Self {
        UserCache::with_absent_ttl(ABSENT_TTL)
    }
}

impl UserCache {
    /// A cache that remembers unknown emails for `ttl`.
    pub fn with_absent_ttl(ttl: Duration) -> UserCache {
        UserCache {
            generation: AtomicU64::new(0),
            by_email: RwLock::default(),
            absent: RwLock::default(),
            absent_ttl: ttl,
        }
    }

    /// The current generation; read it before a database lookup and pass it to [`Self::put`].
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The user with this email, or that there is none; `None` when the cache does not know.
    pub fn get(&self, email_lower: &str) -> Option<Cached> {
        let current = self.generation();
        if let Some((g, user)) = self.by_email.read().ok()?.get(email_lower)
            && *g == current
        {
            return Some(Cached::User(Arc::clone(user)));
        }
        match self.absent.read().ok()?.get(email_lower) {
            Some((g, at)) if *g == current && at.elapsed() < self.absent_ttl => {
                Some(Cached::NoSuchUser)
            }
            _ => None,
        }
    }

    /// Stores what a lookup made while the generation was `read_at` found (a user, or none).
    /// If users changed since, the entry is born stale and the next lookup reads again.
    pub fn put(&self, email_lower: String, read_at: u64, user: Option<Arc<User>>) {
        match user {
            Some(user) => {
                if let Ok(mut map) = self.by_email.write() {
                    if map.len() >= MAX_ENTRIES {
                        map.clear();
                    }
                    map.insert(email_lower, (read_at, user));
                }
            }
            None => {
                if let Ok(mut map) = self.absent.write() {
                    if map.len() >= MAX_ABSENT {
                        map.clear();
                    }
                    map.insert(email_lower, (read_at, Instant::now()));
                }
            }
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

/// Counts failed password checks (logins, `old_password`) per login key.
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

    fn someone() -> Arc<User> {
        Arc::new(User {
            id: crate::ids::UserId(7),
            email: "a@x.org".into(),
            full_name: "A".into(),
            role: crate::model::Role::Member,
            is_active: true,
            is_bot: false,
            bot_type: None,
            bot_owner_id: None,
            api_key: crate::model::Secret("k".repeat(32)),
            timezone: String::new(),
            date_joined: 0,
            avatar_source: "G".into(),
            avatar_version: 1,
            email_visibility: crate::model::EmailVisibility::Everyone,
            can_create_users: false,
            can_change_user_emails: false,
            presence_enabled: true,
            is_system_bot: false,
        })
    }

    #[test]
    fn unknown_emails_are_remembered_until_users_change_or_the_ttl_ends() {
        let c = UserCache::default();
        assert!(c.get("nobody@x.org").is_none());
        c.put("nobody@x.org".into(), c.generation(), None);
        assert!(matches!(c.get("nobody@x.org"), Some(Cached::NoSuchUser)));
        c.put("a@x.org".into(), c.generation(), Some(someone()));
        assert!(matches!(c.get("a@x.org"), Some(Cached::User(_))));
        // Any change to users (a new account, say) makes both kinds of entry stale.
        c.invalidate();
        assert!(c.get("nobody@x.org").is_none());
        assert!(c.get("a@x.org").is_none());
        let short = UserCache::with_absent_ttl(Duration::ZERO);
        short.put("nobody@x.org".into(), short.generation(), None);
        assert!(short.get("nobody@x.org").is_none());
    }

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
