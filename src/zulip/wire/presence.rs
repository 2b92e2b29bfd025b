//! Presence entries as Zulip reports them: the legacy per-client form and the slim form.

use serde_json::{Value, json};

use crate::domain::presence::PresenceEntry;

/// The legacy presence entry: `{"website": {...}, "aggregated": {...}}`; `with_client` adds
/// the `client` (and, for `website`, `pushable`) keys realm-wide listings carry.
pub fn legacy_presence(e: &PresenceEntry, with_client: bool) -> Value {
    let status = if e.status_active() { "active" } else { "idle" };
    let ts = e.idle_timestamp.max(e.active_timestamp);
    let (website, aggregated) = if with_client {
        (
            json!({"client": "website", "status": status, "timestamp": ts, "pushable": false}),
            json!({"client": "website", "status": status, "timestamp": ts}),
        )
    } else {
        (
            json!({"status": status, "timestamp": ts}),
            json!({"status": status, "timestamp": ts}),
        )
    };
    json!({"website": website, "aggregated": aggregated})
}

/// The slim (modern) presence entry, keyed by user id by the caller.
pub fn slim_presence(e: &PresenceEntry) -> Value {
    json!({"active_timestamp": e.active_timestamp, "idle_timestamp": e.idle_timestamp})
}

/// One user's presence (`GET /users/{id}/presence`): the legacy entry without client keys,
/// the aggregated status `offline` once the user is past the offline threshold.
pub fn user_presence(e: &PresenceEntry, offline: bool) -> Value {
    let mut v = legacy_presence(e, false);
    if offline {
        v["aggregated"]["status"] = json!("offline");
    }
    v
}
