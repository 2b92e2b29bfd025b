//! Per-user caches for `GET /users/me`: each user's newest received message id
//! (`max_message_id`) and their custom profile values (`profile_data`).
//!
//! Entries are stamped with a generation that every committed change of the underlying data
//! bumps (see `domain::core::OnCommit`: message changes for the first, user and profile-field changes
//! for the second), so a value is reused only while nothing it depends on changed.

use std::collections::HashMap;
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ids::UserId;

/// A user-keyed cache whose entries expire when the generation moves on.
pub struct GenerationCache<V> {
    generation: AtomicU64,
    values: RwLock<HashMap<UserId, (u64, V)>>,
}

impl<V> Default for GenerationCache<V> {
    fn default() -> Self {
        GenerationCache {
            generation: AtomicU64::new(0),
            values: RwLock::new(HashMap::new()),
        }
    }
}

/// Newest received message id per user.
pub type MaxReceivedCache = GenerationCache<i64>;

impl<V: Clone> GenerationCache<V> {
    /// Read before computing a value, pass to [`Self::put`].
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    pub fn get(&self, user: UserId) -> Option<V> {
        let current = self.generation();
        let map = self.values.read().ok()?;
        match map.get(&user) {
            Some((g, v)) if *g == current => Some(v.clone()),
            _ => None,
        }
    }

    pub fn put(&self, user: UserId, computed_at: u64, value: V) {
        if let Ok(mut map) = self.values.write() {
            if map.len() > 100_000 {
                map.clear();
            }
            map.insert(user, (computed_at, value));
        }
    }

    /// Called after a commit that changed what the values are computed from.
    pub fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }
}
