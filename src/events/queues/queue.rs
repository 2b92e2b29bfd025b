//! One client's queue and its events: appending with the bound, acknowledging (pruning) with
//! Zulip's checks, writing the events out, closing. The long-polls waiting on it are
//! [`super::polls`]; the table that holds it is [`super::table`]. Must not touch the database
//! and knows no wire format beyond appending `,"id":N}` to an event.

use std::collections::VecDeque;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::{EventJson, QueueOptions};
use crate::ids::UserId;

pub(super) struct Inner {
    pub(super) events: VecDeque<(i64, EventJson)>,
    pub(super) next_id: i64,
    /// The newest id pruned by an acknowledgement; -1 before any.
    pub(super) newest_pruned: i64,
    pub(super) last_access: Instant,
    /// Long-polls currently waiting on this queue.
    pub(super) connected: usize,
    /// Of those, the blocking ones (admitted by [`Queues::admit_poll`]).
    pub(super) parked: usize,
    /// Bumped when a new poll starts, so an older one finishes early.
    pub(super) poll_generation: u64,
    /// When the newest waiting poll is owed a heartbeat (see [`Queues::heartbeats`]).
    pub(super) heartbeat_due: Option<Instant>,
    /// Set once the queue leaves the table (deleted, overflowed or swept).
    pub(super) closed: bool,
}

/// One client's queue.
pub struct Queue {
    pub id: String,
    pub user_id: UserId,
    /// The hub sequence number at registration; only later events are delivered.
    pub since_seq: u64,
    pub options: QueueOptions,
    pub(super) inner: Mutex<Inner>,
    pub(super) notify: Notify,
    /// Queues of this queue's owner that have a blocking poll waiting; shared by all the owner's
    /// queues, so admitting a poll costs one atomic, not a scan of the owner's queues.
    pub(super) owner_parked: Arc<AtomicUsize>,
}

/// Why an acknowledgement was refused.
#[derive(Debug, PartialEq)]
pub enum AckError {
    AlreadyPruned(i64),
    NotInQueue(i64),
}

impl Queue {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Prunes events up to `last_event_id` with Zulip's checks.
    pub fn ack(&self, last_event_id: i64) -> Result<(), AckError> {
        let mut q = self.lock();
        if q.newest_pruned >= 0 && last_event_id < q.newest_pruned {
            return Err(AckError::AlreadyPruned(last_event_id));
        }
        while let Some((id, _)) = q.events.front() {
            if *id > last_event_id {
                break;
            }
            q.newest_pruned = *id;
            q.events.pop_front();
        }
        if q.newest_pruned != last_event_id {
            return Err(AckError::NotInQueue(last_event_id));
        }
        q.last_access = Instant::now();
        Ok(())
    }

    /// The queued events, each rendered as a JSON object with its id.
    #[cfg(test)]
    pub(super) fn snapshot(&self) -> Vec<String> {
        let q = self.lock();
        q.events
            .iter()
            .map(|(id, body)| format!("{body},\"id\":{id}}}"))
            .collect()
    }

    /// Appends the queued events to `out` as comma-separated JSON objects, each with its id.
    pub fn write_events(&self, out: &mut String) {
        use std::fmt::Write as _;
        let q = self.lock();
        for (i, (id, body)) in q.events.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(body);
            let _ = write!(out, ",\"id\":{id}}}");
        }
    }

    #[cfg(test)]
    pub(super) fn is_empty(&self) -> bool {
        self.lock().events.is_empty()
    }

    /// Appends an event; returns false if the queue is over its bound (and must be dropped).
    pub(super) fn push(&self, body: EventJson, max_events: usize) -> bool {
        let mut q = self.lock();
        if q.events.len() >= max_events {
            return false;
        }
        let id = q.next_id;
        q.next_id += 1;
        q.events.push_back((id, body));
        drop(q);
        self.notify.notify_waiters();
        true
    }

    /// Marks the queue gone and wakes its polls.
    pub(super) fn close(&self) {
        self.lock().closed = true;
        self.notify.notify_waiters();
    }

    /// A future that resolves at the next push (create it before checking the queue).
    pub fn notified(&self) -> tokio::sync::futures::Notified<'_> {
        self.notify.notified()
    }

    pub(super) fn idle_for(&self, now: Instant) -> Option<Duration> {
        let q = self.lock();
        (q.connected == 0).then(|| now.duration_since(q.last_access))
    }

    /// Eviction order among one user's queues: idle ones before polled ones, then the one
    /// used longest ago first.
    pub(super) fn eviction_rank(&self) -> (bool, Instant) {
        let q = self.lock();
        (q.connected > 0, q.last_access)
    }
}
