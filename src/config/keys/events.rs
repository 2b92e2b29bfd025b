//! The catalogue's rows for the `[events]` table (the event queues).
//! Rows only, in catalogue order; the assembly in `keys/mod.rs` fixes where they go. Must
//! not touch: the network, the database or global state.

use std::time::Duration;

use super::{Key, Kind, key};

pub(super) const EVENTS: &[Key] = &[
    key(
        "events",
        "queue_timeout_secs",
        secs!(events.queue_timeout, 600, 1, 7 * 24 * 3600),
        "A client event queue nobody polled for this many seconds is collected.",
    ),
    key(
        "events",
        "gc_interval_secs",
        secs!(events.gc_interval, 60, 1, 3600),
        "How often idle event queues are swept, in seconds.",
    ),
    key(
        "events",
        "heartbeat_secs",
        secs!(events.heartbeat, 45, 1, 3600),
        "An idle GET /api/v1/events answers with a heartbeat after this many seconds...",
    ),
    key(
        "events",
        "heartbeat_jitter_secs",
        secs!(events.heartbeat_jitter, 10, 0, 3600),
        "...plus a random extra of up to this many seconds.",
    ),
    key(
        "events",
        "max_queue_events",
        int!(events.max_queue_events, 10_000, 1, 10_000_000),
        "A queue holding more unacknowledged events than this is dropped (its client re-registers).",
    ),
];
