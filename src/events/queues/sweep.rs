//! Idle lifetimes: how long a queue nobody polls lives (the configured timeout, stretched by
//! `queue_lifespan_secs` up to [`super::MAX_QUEUE_LIFESPAN`]) and the sweep that removes the
//! expired ones as of a given `now`. Must not read the clock or touch the database.

use std::time::{Duration, Instant};

use super::{MAX_QUEUE_LIFESPAN, QueueOptions, Queues};

impl Queues {
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

    /// The idle lifetime of a queue with these options.
    pub(super) fn timeout_of(&self, options: &QueueOptions) -> Duration {
        options
            .lifespan
            .map_or(self.idle_timeout, |l| l.min(MAX_QUEUE_LIFESPAN))
            .max(self.idle_timeout)
    }
}
