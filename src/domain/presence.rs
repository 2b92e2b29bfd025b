//! Presence: who is active or idle, kept in memory because it is the most frequent write of a
//! chat server and only matters for minutes. Reports are published as events.

use std::collections::HashMap;
use std::sync::RwLock;
use std::sync::atomic::{AtomicI64, Ordering};

use crate::ids::UserId;

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
}
