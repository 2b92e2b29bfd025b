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

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::ids::UserId;
use crate::model::Narrow;

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

struct Inner {
    events: VecDeque<(i64, EventJson)>,
    next_id: i64,
    /// The newest id pruned by an acknowledgement; -1 before any.
    newest_pruned: i64,
    last_access: Instant,
    /// Long-polls currently waiting on this queue.
    connected: usize,
    /// Of those, the blocking ones (admitted by [`Queues::admit_poll`]).
    parked: usize,
    /// Bumped when a new poll starts, so an older one finishes early.
    poll_generation: u64,
    /// When the newest waiting poll is owed a heartbeat (see [`Queues::heartbeats`]).
    heartbeat_due: Option<Instant>,
    /// Set once the queue leaves the table (deleted, overflowed or swept).
    closed: bool,
}

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

/// One client's queue.
pub struct Queue {
    pub id: String,
    pub user_id: UserId,
    /// The hub sequence number at registration; only later events are delivered.
    pub since_seq: u64,
    pub options: QueueOptions,
    inner: Mutex<Inner>,
    notify: Notify,
    /// Queues of this queue's owner that have a blocking poll waiting; shared by all the owner's
    /// queues, so admitting a poll costs one atomic, not a scan of the owner's queues.
    owner_parked: Arc<AtomicUsize>,
}

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

/// What [`Queues::stats`] counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueStats {
    pub queues: usize,
    pub waiting_polls: usize,
    pub events: usize,
}

/// Why an acknowledgement was refused.
#[derive(Debug, PartialEq)]
pub enum AckError {
    AlreadyPruned(i64),
    NotInQueue(i64),
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
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
    fn snapshot(&self) -> Vec<String> {
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
    fn is_empty(&self) -> bool {
        self.lock().events.is_empty()
    }

    /// Appends an event; returns false if the queue is over its bound (and must be dropped).
    fn push(&self, body: EventJson, max_events: usize) -> bool {
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

    /// Adds a heartbeat if a poll is waiting, its heartbeat is due and nothing else is queued;
    /// wakes the poll. Returns whether it did.
    fn heartbeat_if_due(&self, now: Instant) -> bool {
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
        q.events
            .push_back((id, Arc::from("{\"type\":\"heartbeat\"")));
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

    /// Marks the queue gone and wakes its polls.
    fn close(&self) {
        self.lock().closed = true;
        self.notify.notify_waiters();
    }

    /// A future that resolves at the next push (create it before checking the queue).
    pub fn notified(&self) -> tokio::sync::futures::Notified<'_> {
        self.notify.notified()
    }

    fn idle_for(&self, now: Instant) -> Option<Duration> {
        let q = self.lock();
        (q.connected == 0).then(|| now.duration_since(q.last_access))
    }

    /// Eviction order among one user's queues: idle ones before polled ones, then the one
    /// used longest ago first.
    fn eviction_rank(&self) -> (bool, Instant) {
        let q = self.lock();
        (q.connected > 0, q.last_access)
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

/// The queue table, indexed by id and by owner. Queue ids end in a unique counter
/// (`<random>:<n>`); the index is keyed by that number and a lookup compares the whole id.
#[derive(Default)]
struct Table {
    by_id: HashMap<u64, Arc<Queue>>,
    by_user: HashMap<UserId, Vec<Arc<Queue>>>,
    /// Each user's count of queues with a waiting blocking poll (see [`Queue::owner_parked`]).
    parked: HashMap<UserId, Arc<AtomicUsize>>,
}

/// The counter part of a queue id.
fn id_key(id: &str) -> Option<u64> {
    id.rsplit_once(':')?.1.parse().ok()
}

impl Table {
    fn insert(&mut self, key: u64, q: Arc<Queue>) {
        self.by_user
            .entry(q.user_id)
            .or_default()
            .push(Arc::clone(&q));
        self.by_id.insert(key, q);
    }

    fn get(&self, id: &str) -> Option<&Arc<Queue>> {
        self.by_id.get(&id_key(id)?).filter(|q| q.id == id)
    }

    /// Takes a queue out of the table and closes it (its polls wake and answer an error).
    fn remove(&mut self, id: &str) -> Option<Arc<Queue>> {
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

    /// How many queues this user holds.
    pub fn count_of_user(&self, user: UserId) -> usize {
        self.table().by_user.get(&user).map_or(0, Vec::len)
    }

    /// How many of this user's queues have a blocking long-poll waiting.
    pub fn parked_of_user(&self, user: UserId) -> usize {
        self.table()
            .parked
            .get(&user)
            .map_or(0, |n| n.load(Ordering::Relaxed))
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

    /// Gives every waiting poll whose heartbeat is due at `now` a heartbeat; returns how many.
    /// One periodic pass replaces a timer per parked poll; the timer task passes the real clock.
    pub fn heartbeats(&self, now: Instant) -> usize {
        self.all()
            .iter()
            .filter(|q| q.heartbeat_if_due(now))
            .count()
    }

    /// Wakes every waiting poll so it looks again (used once the server's stop signal is set:
    /// polls check that signal after they register for wake-ups, so none can miss it).
    pub fn wake_all(&self) {
        for q in self.all() {
            q.notify.notify_waiters();
        }
    }

    /// Removes queues nobody polled for their idle timeout as of `now`; returns how many.
    /// The timer task passes the real clock; tests pass explicit times instead of sleeping.
    pub fn sweep(&self, now: Instant) -> usize {
        let mut table = self.table();
        let expired: Vec<String> = table
            .by_id
            .values()
            .filter(|q| {
                let timeout = self.timeout_of(&q.options);
                q.idle_for(now).is_some_and(|idle| idle >= timeout)
            })
            .map(|q| q.id.clone())
            .collect();
        for id in &expired {
            table.remove(id);
        }
        expired.len()
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

    /// The idle lifetime of a queue with these options.
    fn timeout_of(&self, options: &QueueOptions) -> Duration {
        options
            .lifespan
            .map_or(self.idle_timeout, |l| l.min(MAX_QUEUE_LIFESPAN))
            .max(self.idle_timeout)
    }

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

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A random-looking, unique queue id (`<16 hex>:<counter>`), like Zulip's opaque ids.
fn new_queue_id(n: u64) -> String {
    use rand::RngExt as _;
    let r: u64 = rand::rng().random();
    format!("{r:016x}:{n}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(s: &str) -> EventJson {
        Arc::from(format!("{{\"type\":\"{s}\""))
    }

    #[test]
    fn ack_prunes_and_checks_like_zulip() {
        let qs = Queues::new(100, Duration::from_secs(600));
        let q = qs.register(UserId(1), QueueOptions::default(), 0);
        assert_eq!(q.ack(-1), Ok(()));
        qs.push(&q, body("a"));
        qs.push(&q, body("b"));
        qs.push(&q, body("c"));
        assert_eq!(
            q.snapshot(),
            vec![
                "{\"type\":\"a\",\"id\":0}",
                "{\"type\":\"b\",\"id\":1}",
                "{\"type\":\"c\",\"id\":2}"
            ]
        );
        assert_eq!(q.ack(1), Ok(()));
        assert_eq!(q.snapshot().len(), 1);
        assert_eq!(q.ack(1), Ok(()));
        assert_eq!(q.ack(0), Err(AckError::AlreadyPruned(0)));
        assert_eq!(q.ack(7), Err(AckError::NotInQueue(7)));
    }

    #[test]
    fn overflow_drops_the_queue_and_foreign_queues_are_invisible() {
        let qs = Queues::new(2, Duration::from_secs(600));
        let q = qs.register(UserId(1), QueueOptions::default(), 0);
        assert!(qs.get(UserId(2), &q.id).is_none());
        qs.push(&q, body("a"));
        qs.push(&q, body("b"));
        assert!(qs.contains(&q.id));
        qs.push(&q, body("c"));
        assert!(!qs.contains(&q.id));
    }

    #[test]
    fn ending_a_users_queues_spares_everyone_elses() {
        let qs = Queues::new(10, Duration::from_secs(600));
        let a = qs.register(UserId(1), QueueOptions::default(), 0);
        let b = qs.register(UserId(1), QueueOptions::default(), 0);
        let other = qs.register(UserId(2), QueueOptions::default(), 0);
        assert_eq!(qs.end_all_of(UserId(1)), 2);
        assert!(!qs.contains(&a.id) && !qs.contains(&b.id));
        assert!(!qs.has_user(UserId(1)));
        assert!(qs.contains(&other.id));
        assert_eq!(qs.end_all_of(UserId(1)), 0);
    }

    #[test]
    fn sweep_spares_connected_and_recent_queues() {
        let timeout = Duration::from_secs(600);
        let qs = Queues::new(10, timeout);
        let idle = qs.register(UserId(1), QueueOptions::default(), 0);
        let busy = qs.register(UserId(1), QueueOptions::default(), 0);
        // Taken after both registrations: at `expiry` both have been idle the whole timeout.
        let expiry = Instant::now() + timeout;
        let _g = busy.begin_poll(expiry + Duration::from_secs(60));
        assert_eq!(qs.sweep(expiry), 1);
        assert!(!qs.contains(&idle.id));
        assert!(qs.contains(&busy.id));
    }

    #[test]
    fn sweep_waits_for_the_full_idle_timeout() {
        let timeout = Duration::from_secs(600);
        let qs = Queues::new(10, timeout);
        let before = Instant::now();
        let q = qs.register(UserId(1), QueueOptions::default(), 0);
        let after = Instant::now();
        // One second short of the timeout (even counted from before registering): kept.
        assert_eq!(qs.sweep(before + timeout - Duration::from_secs(1)), 0);
        assert!(qs.contains(&q.id));
        assert_eq!(qs.sweep(after + timeout), 1);
        assert_eq!(q.poll_state(0), PollState::Closed);
    }

    #[test]
    fn an_acknowledged_or_polled_queue_is_idle_from_then_on() {
        let timeout = Duration::from_secs(600);
        let qs = Queues::new(10, timeout);
        let acked = qs.register(UserId(1), QueueOptions::default(), 0);
        let polled = qs.register(UserId(1), QueueOptions::default(), 0);
        let stale = qs.register(UserId(1), QueueOptions::default(), 0);
        // Later than every registration, earlier than the ack and the poll below.
        let mark = Instant::now();
        assert_eq!(acked.ack(-1), Ok(()));
        polled.begin_poll(mark + timeout);
        polled.end_poll();
        assert_eq!(qs.sweep(mark + timeout), 1);
        assert!(!qs.contains(&stale.id));
        assert!(qs.contains(&acked.id) && qs.contains(&polled.id));
    }

    #[test]
    fn queue_lifespan_stretches_the_timeout_up_to_a_week() {
        let timeout = Duration::from_secs(600);
        let qs = Queues::new(10, timeout);
        let with = |secs: u64| QueueOptions {
            lifespan: Some(Duration::from_secs(secs)),
            ..QueueOptions::default()
        };
        let plain = qs.register(UserId(1), QueueOptions::default(), 0);
        let hour = qs.register(UserId(1), with(3600), 0);
        let short = qs.register(UserId(1), with(60), 0);
        let huge = qs.register(UserId(1), with(30 * 24 * 3600), 0);
        let t0 = Instant::now();
        assert_eq!(qs.sweep(t0 + timeout), 2);
        assert!(!qs.contains(&plain.id) && !qs.contains(&short.id));
        assert_eq!(qs.sweep(t0 + Duration::from_secs(3599)), 0);
        assert_eq!(qs.sweep(t0 + Duration::from_secs(3600)), 1);
        assert!(!qs.contains(&hour.id));
        let week = MAX_QUEUE_LIFESPAN;
        assert_eq!(qs.sweep(t0 + week - Duration::from_secs(1)), 0);
        assert_eq!(qs.sweep(t0 + week), 1);
        assert!(!qs.contains(&huge.id));
    }

    #[test]
    fn heartbeats_go_only_to_waiting_polls_that_are_due() {
        let qs = Queues::new(10, Duration::from_secs(600));
        let due = qs.register(UserId(1), QueueOptions::default(), 0);
        let later = qs.register(UserId(1), QueueOptions::default(), 0);
        let idle = qs.register(UserId(1), QueueOptions::default(), 0);
        let t0 = Instant::now();
        let g1 = due.begin_poll(t0 + Duration::from_secs(45));
        let g2 = later.begin_poll(t0 + Duration::from_secs(60));
        assert_eq!(qs.heartbeats(t0 + Duration::from_millis(44_999)), 0);
        assert_eq!(due.poll_state(g1), PollState::Wait);
        assert_eq!(qs.heartbeats(t0 + Duration::from_secs(45)), 1);
        assert_eq!(due.poll_state(g1), PollState::Ready);
        assert_eq!(due.snapshot(), vec!["{\"type\":\"heartbeat\",\"id\":0}"]);
        assert_eq!(later.poll_state(g2), PollState::Wait);
        assert!(idle.is_empty());
        // Already answered: no second heartbeat for the same poll.
        assert_eq!(qs.heartbeats(t0 + Duration::from_secs(50)), 0);
        assert_eq!(qs.heartbeats(t0 + Duration::from_secs(60)), 1);
        assert_eq!(later.poll_state(g2), PollState::Ready);
    }

    #[test]
    fn no_heartbeat_once_the_poll_ended_or_events_are_waiting() {
        let qs = Queues::new(10, Duration::from_secs(600));
        let ended = qs.register(UserId(1), QueueOptions::default(), 0);
        let busy = qs.register(UserId(1), QueueOptions::default(), 0);
        let t0 = Instant::now();
        ended.begin_poll(t0);
        ended.end_poll();
        busy.begin_poll(t0);
        qs.push(&busy, body("a"));
        assert_eq!(qs.heartbeats(t0 + Duration::from_secs(3600)), 0);
        assert!(ended.is_empty());
        assert_eq!(busy.snapshot(), vec!["{\"type\":\"a\",\"id\":0}"]);
    }

    #[test]
    fn removed_queues_close_and_newer_polls_supersede() {
        let qs = Queues::new(10, Duration::from_secs(600));
        let q = qs.register(UserId(1), QueueOptions::default(), 0);
        let far = Instant::now() + Duration::from_secs(60);
        let first = q.begin_poll(far);
        let second = q.begin_poll(far);
        assert_eq!(q.poll_state(first), PollState::Ready);
        assert_eq!(q.poll_state(second), PollState::Wait);
        assert!(!qs.delete(UserId(2), &q.id));
        // The same counter with another random part is another (unknown) queue.
        let (random, n) = q.id.rsplit_once(':').expect("id shape");
        let other = if random.starts_with('0') { "1" } else { "0" };
        let forged = format!("{other}{}:{n}", &random[1..]);
        assert!(qs.get(UserId(1), &forged).is_none());
        assert!(!qs.delete(UserId(1), &forged));
        assert!(qs.delete(UserId(1), &q.id));
        assert_eq!(q.poll_state(second), PollState::Closed);
        assert!(qs.get(UserId(1), &q.id).is_none());
    }

    #[test]
    fn a_user_over_the_queue_cap_loses_the_stalest_queue() {
        let qs = Queues::new(10, Duration::from_secs(600)).with_user_limits(2, 10);
        let polled = qs.register(UserId(1), QueueOptions::default(), 0);
        let _g = polled.begin_poll(Instant::now() + Duration::from_secs(60));
        let idle = qs.register(UserId(1), QueueOptions::default(), 0);
        let other_user = qs.register(UserId(2), QueueOptions::default(), 0);
        let newest = qs.register(UserId(1), QueueOptions::default(), 0);
        // The idle queue goes before the older one a client is waiting on.
        assert!(!qs.contains(&idle.id));
        assert_eq!(idle.poll_state(0), PollState::Closed);
        assert!(qs.contains(&polled.id) && qs.contains(&newest.id));
        assert!(qs.contains(&other_user.id));
        assert_eq!(qs.count_of_user(UserId(1)), 2);
        assert_eq!(qs.len(), 3);
    }

    #[test]
    fn waiting_polls_are_capped_per_user_but_a_queue_may_replace_its_own() {
        let qs = Queues::new(10, Duration::from_secs(600)).with_user_limits(10, 2);
        let a = qs.register(UserId(1), QueueOptions::default(), 0);
        let b = qs.register(UserId(1), QueueOptions::default(), 0);
        let c = qs.register(UserId(1), QueueOptions::default(), 0);
        let d = qs.register(UserId(2), QueueOptions::default(), 0);
        let pa = qs.admit_poll(&a).expect("first");
        let _pb = qs.admit_poll(&b).expect("second");
        assert_eq!(qs.admit_poll(&c).err(), Some(TooManyPolls { limit: 2 }));
        // Another user is unaffected; a new poll on a busy queue supersedes the old one.
        let _pd = qs.admit_poll(&d).expect("other user");
        let _again = qs.admit_poll(&a).expect("same queue");
        drop(pa);
        assert!(qs.admit_poll(&c).is_err());
        drop(_again);
        let _pc = qs.admit_poll(&c).expect("a place freed up");
    }

    #[test]
    fn export_and_restore_keep_ids_events_and_acknowledgements() {
        let timeout = Duration::from_secs(600);
        let old = Queues::new(10, timeout);
        let q = old.register(UserId(1), QueueOptions::default(), 0);
        let stale = old.register(UserId(2), QueueOptions::default(), 0);
        old.push(&q, body("a"));
        old.push(&q, body("b"));
        assert_eq!(q.ack(0), Ok(()));
        let now = Instant::now();
        let mut saved = old.export(now);
        assert_eq!(saved.len(), 2);
        // One of them had been idle almost the whole timeout.
        for s in saved.iter_mut().filter(|s| s.id == stale.id) {
            s.idle = timeout - Duration::from_secs(30);
        }
        let new = Queues::new(10, timeout);
        // Down for a minute: the nearly expired queue is dropped.
        let restored = new.restore(saved, Duration::from_secs(60), now);
        assert_eq!(restored.len(), 1);
        let r = new.get(UserId(1), &q.id).expect("restored");
        assert!(new.get(UserId(2), &stale.id).is_none());
        assert_eq!(r.snapshot(), vec!["{\"type\":\"b\",\"id\":1}"]);
        assert_eq!(r.ack(0), Ok(()));
        new.push(&r, body("c"));
        assert_eq!(r.ack(1), Ok(()));
        assert_eq!(r.snapshot(), vec!["{\"type\":\"c\",\"id\":2}"]);
        // New queues never reuse a restored id.
        let fresh = new.register(UserId(1), QueueOptions::default(), 0);
        assert!(id_key(&fresh.id).unwrap() > id_key(&q.id).unwrap());
        assert!(id_key(&fresh.id).unwrap() > id_key(&stale.id).unwrap());
    }

    #[tokio::test]
    async fn waiters_registered_before_reading_see_the_push() {
        let qs = Arc::new(Queues::new(10, Duration::from_secs(600)));
        let q = qs.register(UserId(1), QueueOptions::default(), 0);
        let notified = q.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        assert!(q.is_empty());
        qs.push(&q, body("a"));
        tokio::time::timeout(Duration::from_secs(1), notified)
            .await
            .expect("woken");
    }
}
