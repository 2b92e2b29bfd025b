//! Presence: who is active or idle, kept in memory because it is the most frequent write of a
//! chat server and only matters for minutes. Reports are published as events.
//!
//! The one persisted trace is a user's last activity (for the weekly digest, which goes only
//! to users away for days): [`record_activity`] writes it from an active report at most once
//! an hour per user ([`PresenceTable::activity_due`] remembers when it last did). No SQL text,
//! no HTTP.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, RwLock};

use crate::db::digest_emails as db;
use crate::domain::core::Core;
use crate::error::Result;
use crate::ids::UserId;

/// Least time between two persisted activity times of one user.
pub const ACTIVITY_WRITE_SECS: i64 = 3600;

/// How often clients are told to report presence (`server_presence_ping_interval_seconds`).
pub const PING_INTERVAL_SECS: i64 = 60;

/// A user is shown offline after this long without a report
/// (`server_presence_offline_threshold_seconds`).
pub const OFFLINE_THRESHOLD_SECS: i64 = 200;

/// One user's latest activity.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PresenceEntry {
    /// Last time the user was active (UNIX seconds), 0 if never.
    pub active_timestamp: i64,
    /// Last time the user reported anything, active or idle (Zulip's "last connected").
    pub idle_timestamp: i64,
    /// Increasing change counter (`presence_last_update_id`).
    pub last_update_id: i64,
}

impl PresenceEntry {
    /// The status Zulip reports: active if the latest report was an active one.
    pub fn status_active(&self) -> bool {
        self.active_timestamp > 0 && self.active_timestamp == self.idle_timestamp
    }
}

#[derive(Default)]
pub struct PresenceTable {
    entries: RwLock<HashMap<UserId, PresenceEntry>>,
    last_update_id: AtomicI64,
    /// When each user's activity was last persisted (this process).
    persisted: Mutex<HashMap<UserId, i64>>,
}

impl PresenceTable {
    /// Records a report; returns whether others should hear about it (the status changed, or
    /// the user was not seen for a minute).
    pub fn report(&self, user: UserId, active: bool, now: i64) -> bool {
        let Ok(mut map) = self.entries.write() else {
            return false;
        };
        let e = map.entry(user).or_default();
        let was_active = e.status_active();
        let last_seen = e.idle_timestamp;
        e.idle_timestamp = now;
        if active {
            e.active_timestamp = now;
        }
        let changed = last_seen == 0 || was_active != e.status_active() || now - last_seen >= 60;
        if changed {
            e.last_update_id = self.last_update_id.fetch_add(1, Ordering::AcqRel) + 1;
        }
        changed
    }

    pub fn get(&self, user: UserId) -> Option<PresenceEntry> {
        self.entries.read().ok()?.get(&user).copied()
    }

    pub fn all(&self) -> Vec<(UserId, PresenceEntry)> {
        self.entries
            .read()
            .map(|m| m.iter().map(|(u, e)| (*u, *e)).collect())
            .unwrap_or_default()
    }

    pub fn last_update_id(&self) -> i64 {
        self.last_update_id.load(Ordering::Acquire)
    }

    /// Whether `user`'s activity at `now` should be persisted: true at most once per
    /// [`ACTIVITY_WRITE_SECS`] (and then remembered as done).
    pub fn activity_due(&self, user: UserId, now: i64) -> bool {
        let Ok(mut map) = self.persisted.lock() else {
            return false;
        };
        match map.get(&user) {
            Some(at) if now - *at < ACTIVITY_WRITE_SECS && now >= *at => false,
            _ => {
                map.insert(user, now);
                true
            }
        }
    }
}

/// Persists that `user` was active at `now` (callers ask [`PresenceTable::activity_due`]
/// first, so this is at most one write an hour per user).
pub async fn record_activity(core: &Core, user: UserId, now: i64) -> Result<()> {
    core.db
        .write(move |tx| db::record_activity(tx, user, now))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activity_is_persisted_at_most_once_an_hour() {
        let t = PresenceTable::default();
        assert!(t.activity_due(UserId(1), 1_000));
        assert!(!t.activity_due(UserId(1), 1_000 + ACTIVITY_WRITE_SECS - 1));
        assert!(t.activity_due(UserId(2), 1_001));
        assert!(t.activity_due(UserId(1), 1_000 + ACTIVITY_WRITE_SECS));
    }
}
