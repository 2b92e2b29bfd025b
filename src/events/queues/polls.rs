//! The long-polls waiting on a queue: starting and ending one (a newer poll supersedes an
//! older one on the same queue), what a waiting poll should do next, the per-user cap on
//! blocking polls ([`super::Queues::admit_poll`]), the one periodic heartbeat pass and the
//! wake-up of every poll at shutdown. Holds no timer: the timer task in `app` passes `now`.
//! Must not touch the database.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{EventJson, Queue, Queues};
use crate::ids::UserId;

/// What a waiting poll should do next, read under one lock.
#[derive(Debug, PartialEq)]
pub enum PollState {
    /// Answer now: there are events, or a newer poll took over.
    Ready,
    /// Nothing yet: keep waiting.
    Wait,
    /// The queue is gone.
    Closed,
}

impl Queue {
    /// Adds `heartbeat` if a poll is waiting, its heartbeat is due and nothing else is queued;
    /// wakes the poll. Returns whether it did.
    fn heartbeat_if_due(&self, now: Instant, heartbeat: &EventJson) -> bool {
        let mut q = self.lock();
        let due = q.connected > 0
            && q.events.is_empty()
            && !q.closed
            && q.heartbeat_due.is_some_and(|at| at <= now);
        if !due {
            return false;
        }
        q.heartbeat_due = None;
        let id = q.next_id;
        q.next_id += 1;
        q.events.push_back((id, Arc::clone(heartbeat)));
        drop(q);
        self.notify.notify_waiters();
        true
    }

    /// Starts a long-poll that is owed a heartbeat at `heartbeat_at`: marks the queue connected
    /// and returns this poll's generation.
    pub fn begin_poll(&self, heartbeat_at: Instant) -> u64 {
        let mut q = self.lock();
        q.connected += 1;
        q.poll_generation += 1;
        q.last_access = Instant::now();
        q.heartbeat_due = Some(heartbeat_at);
        let older_polls = q.connected > 1;
        let generation = q.poll_generation;
        drop(q);
        if older_polls {
            // Finish the older poll on this queue.
            self.notify.notify_waiters();
        }
        generation
    }

    /// What the poll of `generation` should do, checked under one lock.
    pub fn poll_state(&self, generation: u64) -> PollState {
        let q = self.lock();
        if q.closed {
            PollState::Closed
        } else if !q.events.is_empty() || q.poll_generation != generation {
            PollState::Ready
        } else {
            PollState::Wait
        }
    }

    /// Ends a long-poll.
    pub fn end_poll(&self) {
        let mut q = self.lock();
        q.connected = q.connected.saturating_sub(1);
        if q.connected == 0 {
            q.heartbeat_due = None;
        }
        q.last_access = Instant::now();
    }
}

/// Ends a poll when dropped, so a cancelled request still releases the queue.
pub struct PollGuard<'a>(pub &'a Queue);

impl Drop for PollGuard<'_> {
    fn drop(&mut self) {
        self.0.end_poll();
    }
}

/// A blocking long-poll admitted under the per-user cap; releases its place when dropped.
pub struct ParkGuard<'a>(&'a Queue);

impl Drop for ParkGuard<'_> {
    fn drop(&mut self) {
        let mut q = self.0.lock();
        q.parked = q.parked.saturating_sub(1);
        if q.parked == 0 {
            self.0.owner_parked.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// Why a blocking long-poll was not admitted.
#[derive(Debug, PartialEq)]
pub struct TooManyPolls {
    pub limit: usize,
}

impl Queues {
    /// Admits a blocking long-poll on `q` under the per-user cap of waiting polls. A poll on a
    /// queue that already has one waiting is always admitted: it supersedes that one.
    pub fn admit_poll<'a>(&self, q: &'a Queue) -> Result<ParkGuard<'a>, TooManyPolls> {
        let mut own = q.lock();
        if own.parked == 0 {
            // Queues with a waiting poll, counted once each: one atomic, no table lock.
            let before = q.owner_parked.fetch_add(1, Ordering::Relaxed);
            if before >= self.max_parked_per_user {
                q.owner_parked.fetch_sub(1, Ordering::Relaxed);
                return Err(TooManyPolls {
                    limit: self.max_parked_per_user,
                });
            }
        }
        own.parked += 1;
        drop(own);
        Ok(ParkGuard(q))
    }

    /// How many of this user's queues have a blocking long-poll waiting.
    pub fn parked_of_user(&self, user: UserId) -> usize {
        self.table()
            .parked
            .get(&user)
            .map_or(0, |n| n.load(Ordering::Relaxed))
    }

    /// Gives every waiting poll whose heartbeat is due at `now` a heartbeat; returns how many.
    /// One periodic pass replaces a timer per parked poll; the timer task passes the real clock
    /// and the heartbeat event's text (without its closing brace, like every queued event),
    /// which the API's wire module owns.
    pub fn heartbeats(&self, now: Instant, heartbeat: &EventJson) -> usize {
        self.all()
            .iter()
            .filter(|q| q.heartbeat_if_due(now, heartbeat))
            .count()
    }

    /// Wakes every waiting poll so it looks again (used once the server's stop signal is set:
    /// polls check that signal after they register for wake-ups, so none can miss it).
    pub fn wake_all(&self) {
        for q in self.all() {
            q.notify.notify_waiters();
        }
    }
}
