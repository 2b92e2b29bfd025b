//! The catalogue's rows for the `[push]` table.
//! Rows only, in catalogue order; the assembly in `keys/mod.rs` fixes where they go. Must
//! not touch: the network, the database or global state.

use super::{Key, Kind, key};

pub(super) const PUSH: &[Key] = &[
    key(
        "push",
        "enabled",
        boolean!(push.enabled, false),
        "Send mobile push notifications through Zulip's push notification service (bouncer_url);\nthe server must be registered with it first (`outpost push register`).",
    ),
    key(
        "push",
        "max_devices_per_user",
        int!(push.max_devices_per_user, 20, 1, 1000),
        "Push devices (tokens and registrations together) one user may register.",
    ),
    key(
        "push",
        "bouncer_url",
        Kind::Str {
            default: "https://push.zulipchat.com",
            check: |v| {
                (v.starts_with("http://") || v.starts_with("https://"))
                    && v.len() > 8
                    && !v.chars().any(|c| c.is_whitespace() || c.is_control())
            },
            problem: "push.bouncer_url must be an http:// or https:// URL",
            get: |c| c.push.bouncer_url.clone(),
            set: |c, v| c.push.bouncer_url = v.trim_end_matches('/').to_string(),
        },
        "Zulip's push notification service (the bouncer), without /api/v1.",
    ),
];
