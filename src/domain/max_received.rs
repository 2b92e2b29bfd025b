//! A cache of each user's newest received message id (`max_message_id` of `GET /users/me`).
//!
//! Entries are stamped with a generation that every committed message change bumps (see
//! `AppState::open`), so a value is reused only while no message was sent, edited or deleted.

use std::collections::HashMap;
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ids::UserId;

#[derive(Default)]
pub struct MaxReceivedCache {
    generation: AtomicU64,
    values: RwLock<HashMap<UserId, (u64, i64)>>,
}

impl MaxReceivedCache {
    /// Read before computing a value, pass to [`Self::put`].
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    pub fn get(&self, user: UserId) -> Option<i64> {
        let current = self.generation();
        let map = self.values.read().ok()?;
        match map.get(&user) {
            Some((g, v)) if *g == current => Some(*v),
            _ => None,
        }
    }

    pub fn put(&self, user: UserId, computed_at: u64, value: i64) {
        if let Ok(mut map) = self.values.write() {
            if map.len() > 100_000 {
                map.clear();
            }
            map.insert(user, (computed_at, value));
        }
    }

    /// Called after a commit that sent, moved or deleted messages.
    pub fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }
}
