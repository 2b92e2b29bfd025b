//! Whether a user is idle, as upstream decides it when a notification is due: off Zulip (no
//! queue accepting messages that is polled or was polled within the offline time) or idle by
//! presence (no active presence report within the offline threshold). Reads the in-memory
//! presence and queue tables it is given; never the clock, never the database.

use std::time::{Duration, Instant};

use crate::domain::presence::{OFFLINE_THRESHOLD_SECS, PresenceTable};
use crate::events::queues::Queues;
use crate::ids::UserId;

/// What the notification pass knows of who is around.
pub trait Activity: Send + Sync {
    /// Whether `user` counts as idle at `now_secs` (UNIX seconds) / `now` (monotonic).
    fn is_idle(&self, user: UserId, now_secs: i64, now: Instant) -> bool;
    /// How long after a job came due an active user's notification gets its second look
    /// (the time an unpolled queue still counts as connected).
    fn offline_after(&self) -> Duration;
}

/// The server's presence and event queues.
pub struct Live<'a> {
    pub presence: &'a PresenceTable,
    pub queues: &'a Queues,
    /// How long an unpolled queue still counts as connected (the queue idle timeout).
    pub offline_after: Duration,
}

impl Activity for Live<'_> {
    fn is_idle(&self, user: UserId, now_secs: i64, now: Instant) -> bool {
        let off_zulip = !self
            .queues
            .receives_messages_online(user, now, self.offline_after);
        let presence_idle = self
            .presence
            .get(user)
            .is_none_or(|e| e.active_timestamp < now_secs - OFFLINE_THRESHOLD_SECS);
        off_zulip || presence_idle
    }

    fn offline_after(&self) -> Duration {
        self.offline_after
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::queues::QueueOptions;

    #[test]
    fn idle_unless_polling_and_recently_active() {
        let presence = PresenceTable::default();
        let queues = Queues::new(100, Duration::from_secs(600));
        let live = Live {
            presence: &presence,
            queues: &queues,
            offline_after: Duration::from_secs(600),
        };
        let u = UserId(7);
        let t0 = Instant::now();
        assert!(live.is_idle(u, 1_000, t0), "nobody connected");
        queues.register(u, QueueOptions::default(), 0);
        assert!(live.is_idle(u, 1_000, t0), "a queue but no presence");
        presence.report(u, true, 1_000);
        assert!(!live.is_idle(u, 1_100, t0));
        // Presence older than the threshold makes the user idle again.
        assert!(live.is_idle(u, 1_000 + OFFLINE_THRESHOLD_SECS + 1, t0));
        // A queue nobody polled for the offline time counts as off Zulip.
        assert!(live.is_idle(u, 1_100, t0 + Duration::from_secs(601)));
        // A queue that does not take messages does not count.
        let v = UserId(8);
        presence.report(v, true, 1_000);
        let opts = QueueOptions {
            event_types: Some(vec!["presence".into()]),
            ..QueueOptions::default()
        };
        queues.register(v, opts, 0);
        assert!(live.is_idle(v, 1_000, t0));
    }
}
