//! Presence as Zulip reports it, as typed `Serialize` structs: the legacy per-client entry, the
//! slim entry, one user's presence and the realm-wide map keyed by user (`POST /register`'s
//! `presences`, `GET /realm/presence`, `POST /users/me/presence`).
//!
//! Must not touch the presence table or decide who is listed: `zulip::presence` picks the
//! entries; this only renders them. Fields are declared in alphabetical order, the order a
//! `serde_json::Map` keeps its keys.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::domain::presence::PresenceEntry;
use crate::model::User;

use super::api_email;

/// One client's part of a legacy entry (`website` or `aggregated`).
#[derive(Serialize)]
struct ClientPresence {
    /// Realm-wide listings only.
    #[serde(skip_serializing_if = "Option::is_none")]
    client: Option<&'static str>,
    /// Realm-wide listings only, and only under `website`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pushable: Option<bool>,
    status: &'static str,
    timestamp: i64,
}

/// The legacy presence entry: `{"aggregated": {...}, "website": {...}}`.
#[derive(Serialize)]
pub struct LegacyPresence {
    aggregated: ClientPresence,
    website: ClientPresence,
}

/// The slim (modern) presence entry, keyed by user id.
#[derive(Serialize)]
pub struct SlimPresence {
    active_timestamp: i64,
    idle_timestamp: i64,
}

/// The legacy entry; `with_client` adds the `client` (and, for `website`, `pushable`) keys
/// realm-wide listings carry.
pub fn legacy_presence(e: &PresenceEntry, with_client: bool) -> LegacyPresence {
    let status = if e.status_active() { "active" } else { "idle" };
    let timestamp = e.idle_timestamp.max(e.active_timestamp);
    let client = with_client.then_some("website");
    LegacyPresence {
        aggregated: ClientPresence {
            client,
            pushable: None,
            status,
            timestamp,
        },
        website: ClientPresence {
            client,
            pushable: with_client.then_some(false),
            status,
            timestamp,
        },
    }
}

/// The slim entry.
pub fn slim_presence(e: &PresenceEntry) -> SlimPresence {
    SlimPresence {
        active_timestamp: e.active_timestamp,
        idle_timestamp: e.idle_timestamp,
    }
}

/// One user's presence (`GET /users/{id}/presence`): the legacy entry without client keys,
/// the aggregated status `offline` once the user is past the offline threshold.
pub fn user_presence(e: &PresenceEntry, offline: bool) -> Value {
    let mut p = legacy_presence(e, false);
    if offline {
        p.aggregated.status = "offline";
    }
    serde_json::to_value(p).expect("presence serializes")
}

/// Everyone's presence, as a map keyed by user: by user id with the slim entry, or (legacy) by
/// API email with the legacy entry and its client keys. A later entry for the same key wins.
pub fn realm_presences<'a>(
    slim: bool,
    entries: impl IntoIterator<Item = (&'a User, &'a PresenceEntry)>,
    host: &str,
) -> Value {
    let v = if slim {
        let map: BTreeMap<String, SlimPresence> = entries
            .into_iter()
            .map(|(u, e)| (u.id.0.to_string(), slim_presence(e)))
            .collect();
        serde_json::to_value(map)
    } else {
        let map: BTreeMap<String, LegacyPresence> = entries
            .into_iter()
            .map(|(u, e)| (api_email(u, host), legacy_presence(e, true)))
            .collect();
        serde_json::to_value(map)
    };
    v.expect("presence serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_both_ways<T: Serialize>(v: &T) -> String {
        let direct = serde_json::to_string(v).unwrap();
        let via_value = serde_json::to_string(&serde_json::to_value(v).unwrap()).unwrap();
        assert_eq!(direct, via_value, "fields out of a JSON map's order");
        direct
    }

    #[test]
    fn entries_keep_their_keys_and_a_json_maps_order() {
        let e = PresenceEntry {
            active_timestamp: 100,
            idle_timestamp: 100,
            last_update_id: 1,
        };
        assert_eq!(
            same_both_ways(&legacy_presence(&e, true)),
            r#"{"aggregated":{"client":"website","status":"active","timestamp":100},"website":{"client":"website","pushable":false,"status":"active","timestamp":100}}"#
        );
        assert_eq!(
            same_both_ways(&legacy_presence(&e, false)),
            r#"{"aggregated":{"status":"active","timestamp":100},"website":{"status":"active","timestamp":100}}"#
        );
        assert_eq!(
            same_both_ways(&slim_presence(&e)),
            r#"{"active_timestamp":100,"idle_timestamp":100}"#
        );
        let idle = PresenceEntry {
            active_timestamp: 100,
            idle_timestamp: 160,
            last_update_id: 2,
        };
        assert_eq!(
            user_presence(&idle, true).to_string(),
            r#"{"aggregated":{"status":"offline","timestamp":160},"website":{"status":"idle","timestamp":160}}"#
        );
    }
}
