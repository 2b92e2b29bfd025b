//! The chat API's state, [`ChatState`]: the domain handle ([`Core`], reached through `Deref`)
//! and what only the chat API, its pages, its listener and the background tasks use (event
//! queues, presence, cached bodies, counters). `app` builds it once per
//! server and shares its rate limits and counters with the other listeners. Holds no logic:
//! must not open anything, bind listeners or spawn tasks.

use std::sync::Arc;

use crate::domain::Core;
use crate::events::queues::Queues;

/// Everything a chat request handler may need: the domain handle, [`Core`] (reached through
/// `Deref`, so `state.db` and `domain::x(&state, ..)` work on a `ChatState`), and what only the
/// chat API, its listener and the background tasks use.
pub struct ChatState {
    pub core: Arc<Core>,
    /// Client event queues (`POST /register`, `GET /events`).
    pub queues: Arc<Queues>,
    /// Who reported presence, and when (kept in memory).
    pub presence: crate::domain::presence::PresenceTable,
    /// Becomes true when the server starts shutting down (long-polls answer at once).
    pub stopping: tokio::sync::watch::Sender<bool>,
    /// Request rate limits per user, principal and address (`[limits]`), shared with the
    /// Dependency-Track listener.
    pub rates: Arc<crate::http::rate_limit::Rates>,
    /// `GET /users/me` answers, serialized once per state of the caller's record.
    pub own_user_bodies: crate::zulip::users::OwnUserBodies,
    /// The hub sequence number of the newest event the delivery task has handled.
    pub delivered: tokio::sync::watch::Sender<u64>,
    /// When this process opened the state (seconds since the epoch): register's
    /// `server_generation`.
    pub started_at: i64,
    /// Open connections of all listeners (capped by `[limits] max_connections`).
    pub connections: Arc<std::sync::atomic::AtomicUsize>,
    /// Requests of the chat listener per route (`/metrics`).
    pub chat_requests: Arc<crate::metrics::RequestMetrics>,
    /// Requests of the Dependency-Track listener per route (`/metrics`).
    pub dtrack_requests: Arc<crate::metrics::RequestMetrics>,
}

impl std::ops::Deref for ChatState {
    type Target = Core;

    fn deref(&self) -> &Core {
        &self.core
    }
}
