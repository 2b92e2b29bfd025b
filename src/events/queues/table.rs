//! The queue table's index: queues by id (keyed by the counter part of the id, the whole id
//! compared on lookup) and by owner, and each owner's count of parked polls; and how queue ids
//! are made. Only [`super::Queues`] uses it, under its lock.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use super::Queue;
use crate::ids::UserId;

/// The queue table, indexed by id and by owner. Queue ids end in a unique counter
/// (`<random>:<n>`); the index is keyed by that number and a lookup compares the whole id.
#[derive(Default)]
pub(super) struct Table {
    pub(super) by_id: HashMap<u64, Arc<Queue>>,
    pub(super) by_user: HashMap<UserId, Vec<Arc<Queue>>>,
    /// Each user's count of queues with a waiting blocking poll (see [`Queue::owner_parked`]).
    pub(super) parked: HashMap<UserId, Arc<AtomicUsize>>,
}

/// The counter part of a queue id.
pub(super) fn id_key(id: &str) -> Option<u64> {
    id.rsplit_once(':')?.1.parse().ok()
}

impl Table {
    pub(super) fn insert(&mut self, key: u64, q: Arc<Queue>) {
        self.by_user
            .entry(q.user_id)
            .or_default()
            .push(Arc::clone(&q));
        self.by_id.insert(key, q);
    }

    pub(super) fn get(&self, id: &str) -> Option<&Arc<Queue>> {
        self.by_id.get(&id_key(id)?).filter(|q| q.id == id)
    }

    /// Takes a queue out of the table and closes it (its polls wake and answer an error).
    pub(super) fn remove(&mut self, id: &str) -> Option<Arc<Queue>> {
        self.get(id)?;
        let q = self.by_id.remove(&id_key(id)?)?;
        if let Some(list) = self.by_user.get_mut(&q.user_id) {
            list.retain(|x| x.id != id);
            if list.is_empty() {
                self.by_user.remove(&q.user_id);
            }
        }
        q.close();
        Some(q)
    }
}

/// A random-looking, unique queue id (`<16 hex>:<counter>`), like Zulip's opaque ids.
pub(super) fn new_queue_id(n: u64) -> String {
    use rand::RngExt as _;
    let r: u64 = rand::rng().random();
    format!("{r:016x}:{n}")
}
