//! The queues across a graceful restart: [`Queues::export`] copies every queue's state out for
//! the snapshot (`events::snapshot` writes and reads the file), [`Queues::restore`] puts saved
//! queues back. Must not touch files, the database or the clock.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::queue::Inner;
use super::table::id_key;
use super::{EventJson, Queue, QueueOptions, Queues};
use crate::ids::UserId;

/// One queue as a graceful stop saves it (see [`Queues::export`] and [`Queues::restore`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SavedQueue {
    pub id: String,
    pub user_id: UserId,
    pub options: QueueOptions,
    /// Unacknowledged events with their ids.
    pub events: Vec<(i64, EventJson)>,
    pub next_id: i64,
    pub newest_pruned: i64,
    /// How long nobody had polled it (zero while a poll was waiting).
    pub idle: Duration,
}

impl Queues {
    /// Every queue's state as of `now`, for the snapshot a graceful stop writes
    /// (`events::snapshot`). Call it once no request can change the queues any more.
    pub fn export(&self, now: Instant) -> Vec<SavedQueue> {
        let mut out: Vec<SavedQueue> = self
            .all()
            .iter()
            .filter_map(|q| {
                let inner = q.lock();
                if inner.closed {
                    return None;
                }
                // A queue with a poll waiting is in use right now.
                let idle = if inner.connected > 0 {
                    Duration::ZERO
                } else {
                    now.saturating_duration_since(inner.last_access)
                };
                Some(SavedQueue {
                    id: q.id.clone(),
                    user_id: q.user_id,
                    options: q.options.clone(),
                    events: inner.events.iter().cloned().collect(),
                    next_id: inner.next_id,
                    newest_pruned: inner.newest_pruned,
                    idle,
                })
            })
            .collect();
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    /// Puts saved queues back, as of `now`: each keeps its id, options, pending events and
    /// acknowledgement state, and takes every event of this process (the hub's numbering starts
    /// again). A queue whose idle time (`extra_idle` added: how long the server was down) reached
    /// its timeout, or that is over the event bound, is left out, and so is one whose id is
    /// malformed or taken. Returns the queues restored. Call it before any queue is registered.
    pub fn restore(
        &self,
        saved: Vec<SavedQueue>,
        extra_idle: Duration,
        now: Instant,
    ) -> Vec<Arc<Queue>> {
        let mut table = self.table();
        let mut restored = Vec::new();
        for s in saved {
            let idle = s.idle.saturating_add(extra_idle);
            let Some(key) = id_key(&s.id) else { continue };
            // Even a queue left out keeps its number: a new queue never reuses an old id.
            self.counter
                .fetch_max(key.saturating_add(1), Ordering::Relaxed);
            if idle >= self.timeout_of(&s.options)
                || s.events.len() > self.max_events
                || table.by_id.contains_key(&key)
            {
                continue;
            }
            let owner_parked = Arc::clone(table.parked.entry(s.user_id).or_default());
            let q = Arc::new(Queue {
                id: s.id,
                user_id: s.user_id,
                since_seq: 0,
                options: s.options,
                inner: Mutex::new(Inner {
                    events: s.events.into(),
                    next_id: s.next_id,
                    newest_pruned: s.newest_pruned,
                    last_access: now.checked_sub(idle).unwrap_or(now),
                    connected: 0,
                    parked: 0,
                    poll_generation: 0,
                    heartbeat_due: None,
                    closed: false,
                }),
                notify: Notify::new(),
                owner_parked,
            });
            table.insert(key, Arc::clone(&q));
            restored.push(q);
        }
        restored
    }
}
