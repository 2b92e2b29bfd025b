//! Client event queues: the in-memory table behind `POST /register` and `GET /events`.
//!
//! Each queue belongs to one user and holds already-serialized events with increasing ids.
//! Reading never removes anything; a client acknowledges events by sending `last_event_id` on
//! its next request, which prunes them (so a dropped connection loses nothing). Waiting is
//! cancel-safe: a poller registers for wake-ups before it looks at the queue. A queue that
//! grows past its bound is dropped, so its client re-registers instead of the server growing
//! without limit; queues idle longer than the timeout are swept; a deactivated user's queues
//! all end at once. Each user may hold a bounded number of queues (one more evicts their
//! stalest) and have a bounded number of blocking polls waiting (one more is refused), so one
//! account cannot grow the table or the parked tasks. Heartbeats and shutdown reach parked
//! polls through the table (one periodic pass, one wake-up of all) rather than a timer and a
//! watch per poll, which keeps a parked poll cheap. Must not touch the database.
//!
//! One idea per file: [`queue`] is one queue and its events (acknowledgement, appending,
//! closing); [`polls`] the long-polls waiting on a queue (their admission under the per-user
//! cap, the heartbeat pass, the wake-up at shutdown); [`sweep`] the idle lifetimes and the
//! sweep of expired queues; [`saved`] the export and restore of the queues across a graceful
//! restart; [`table`] the index by id and by owner. This file is the table's front: creating,
//! finding, deleting and counting queues.

mod polls;
mod queue;
mod saved;
mod sweep;
mod table;

pub use polls::{ParkGuard, PollGuard, PollState, TooManyPolls};
pub use queue::{AckError, Queue};
pub use saved::SavedQueue;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::ids::UserId;
use crate::model::Narrow;

use queue::Inner;
#[cfg(test)]
use table::id_key;
use table::{Table, new_queue_id};

/// One serialized event without its `id`: a JSON object missing the closing brace, so the
/// queue can append `,"id":N}` when it delivers it. Shared between all queues it goes to.
pub type EventJson = Arc<str>;

/// What a queue asked for at registration, used to filter and shape events.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueOptions {
    /// `None`: every event type.
    pub event_types: Option<Vec<String>>,
    pub apply_markdown: bool,
    pub client_gravatar: bool,
    pub slim_presence: bool,
    pub all_public_streams: bool,
    /// The narrow its message events must match (resolved for the queue's owner at
    /// registration; empty: no narrow).
    pub narrow: Narrow,
    pub bulk_message_deletion: bool,
    pub user_settings_object: bool,
    pub stream_typing_notifications: bool,
    pub empty_topic_name: bool,
    pub user_avatar_url_field_optional: bool,
    pub archived_channels: bool,
    /// Deactivated user groups are listed and updated rather than removed.
    pub include_deactivated_groups: bool,
    /// `queue_lifespan_secs`: a longer idle lifetime the client asked for (never shorter than
    /// the configured timeout, never longer than [`MAX_QUEUE_LIFESPAN`]).
    pub lifespan: Option<Duration>,
}

/// The longest idle lifetime a client may ask for (upstream's cap: one week).
pub const MAX_QUEUE_LIFESPAN: Duration = Duration::from_secs(7 * 24 * 3600);

impl QueueOptions {
    /// Whether this queue wants events of this type (heartbeats always pass).
    pub fn wants(&self, event_type: &str) -> bool {
        event_type == "heartbeat"
            || self
                .event_types
                .as_ref()
                .is_none_or(|types| types.iter().any(|t| t == event_type))
    }
}

/// What [`Queues::stats`] counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueStats {
    pub queues: usize,
    pub waiting_polls: usize,
    pub events: usize,
}

/// All queues of one server.
pub struct Queues {
    table: Mutex<Table>,
    max_events: usize,
    idle_timeout: Duration,
    /// Queues one user may hold; registering one more evicts one of theirs.
    max_per_user: usize,
    /// Blocking long-polls one user may have waiting at once.
    max_parked_per_user: usize,
    counter: AtomicU64,
}

impl Queues {
    pub fn new(max_events: usize, idle_timeout: Duration) -> Queues {
        Queues {
            table: Mutex::new(Table::default()),
            max_events,
            idle_timeout,
            max_per_user: usize::MAX,
            max_parked_per_user: usize::MAX,
            counter: AtomicU64::new(0),
        }
    }

    /// Caps the queues and the waiting long-polls of each user (see `[limits]`).
    pub fn with_user_limits(mut self, max_queues: usize, max_parked_polls: usize) -> Queues {
        self.max_per_user = max_queues.max(1);
        self.max_parked_per_user = max_parked_polls.max(1);
        self
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Creates a queue for a user.
    pub fn register(&self, user: UserId, options: QueueOptions, since_seq: u64) -> Arc<Queue> {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let id = new_queue_id(n);
        let mut table = self.table();
        let owner_parked = Arc::clone(table.parked.entry(user).or_default());
        let q = Arc::new(Queue {
            id: id.clone(),
            user_id: user,
            since_seq,
            options,
            inner: Mutex::new(Inner {
                events: VecDeque::new(),
                next_id: 0,
                newest_pruned: -1,
                last_access: Instant::now(),
                connected: 0,
                parked: 0,
                poll_generation: 0,
                heartbeat_due: None,
                closed: false,
            }),
            notify: Notify::new(),
            owner_parked,
        });
        table.insert(n, Arc::clone(&q));
        // Over the per-user cap: drop the user's stalest other queue (idle before polled, then
        // least recently used); its client's next poll gets BAD_EVENT_QUEUE_ID and re-registers,
        // as after a garbage-collected queue.
        let evict: Vec<String> = match table.by_user.get(&user) {
            Some(list) if list.len() > self.max_per_user => {
                let mut others: Vec<&Arc<Queue>> = list.iter().filter(|x| x.id != q.id).collect();
                others.sort_by_cached_key(|x| x.eviction_rank());
                let excess = list.len() - self.max_per_user;
                others.iter().take(excess).map(|x| x.id.clone()).collect()
            }
            _ => Vec::new(),
        };
        for id in &evict {
            tracing::info!(queue = %id, "user is over the event queue limit; dropping their stalest queue");
            table.remove(id);
        }
        drop(table);
        q
    }

    /// How many queues this user holds.
    pub fn count_of_user(&self, user: UserId) -> usize {
        self.table().by_user.get(&user).map_or(0, Vec::len)
    }

    /// The queue with this id if it belongs to `user`.
    pub fn get(&self, user: UserId, id: &str) -> Option<Arc<Queue>> {
        self.table().get(id).filter(|q| q.user_id == user).cloned()
    }

    /// Deletes a user's queue; false if there was none.
    pub fn delete(&self, user: UserId, id: &str) -> bool {
        let mut table = self.table();
        if table.get(id).is_some_and(|q| q.user_id == user) {
            table.remove(id);
            return true;
        }
        false
    }

    /// Ends every queue of a user (deactivated): their polls wake and answer an error, and
    /// the queue ids are unknown from then on. Returns how many there were.
    pub fn end_all_of(&self, user: UserId) -> usize {
        let mut table = self.table();
        let ids: Vec<String> = table
            .by_user
            .get(&user)
            .map(|list| list.iter().map(|q| q.id.clone()).collect())
            .unwrap_or_default();
        for id in &ids {
            table.remove(id);
        }
        ids.len()
    }

    /// The queues of these users (all users when `None`) registered before event `seq`.
    pub fn of_users(&self, seq: u64, users: Option<&[UserId]>) -> Vec<Arc<Queue>> {
        let table = self.table();
        match users {
            None => table
                .by_id
                .values()
                .filter(|q| q.since_seq < seq)
                .cloned()
                .collect(),
            Some(list) => list
                .iter()
                .filter_map(|u| table.by_user.get(u))
                .flatten()
                .filter(|q| q.since_seq < seq)
                .cloned()
                .collect(),
        }
    }

    /// Whether this user is connected for notification purposes as of `now`: a queue of theirs
    /// that accepts message events is being polled, or was polled less than `offline_after`
    /// ago (upstream: a client with such a queue is not "off Zulip"; a long-lived mobile queue
    /// nobody polls counts as offline once `offline_after` has passed).
    pub fn receives_messages_online(
        &self,
        user: UserId,
        now: Instant,
        offline_after: Duration,
    ) -> bool {
        let table = self.table();
        table.by_user.get(&user).is_some_and(|list| {
            list.iter().any(|q| {
                q.options.wants("message")
                    && q.idle_for(now).is_none_or(|idle| idle < offline_after)
            })
        })
    }

    /// Whether this user has any queue.
    pub fn has_user(&self, user: UserId) -> bool {
        self.table().by_user.contains_key(&user)
    }

    /// Appends an event to a queue, dropping the queue if it overflows.
    pub fn push(&self, q: &Queue, body: EventJson) {
        if !q.push(body, self.max_events) {
            tracing::info!(queue = %q.id, "event queue overflowed; dropping it");
            self.table().remove(&q.id);
        }
    }

    /// Whether a queue is still registered.
    #[cfg(test)]
    fn contains(&self, id: &str) -> bool {
        self.table().get(id).is_some()
    }

    /// Every queue, copied out so the table lock is not held while each is visited.
    fn all(&self) -> Vec<Arc<Queue>> {
        self.table().by_id.values().cloned().collect()
    }

    pub fn len(&self) -> usize {
        self.table().by_id.len()
    }

    /// Counts for `/metrics`: queues, polls waiting on them and events they hold. One pass
    /// over the queues, outside the table lock.
    pub fn stats(&self) -> QueueStats {
        let all = self.all();
        let mut stats = QueueStats {
            queues: all.len(),
            ..QueueStats::default()
        };
        for q in &all {
            let inner = q.lock();
            stats.waiting_polls += inner.connected;
            stats.events += inner.events.len();
        }
        stats
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests;
