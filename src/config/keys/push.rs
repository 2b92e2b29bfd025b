//! The catalogue's rows for the `[push]` table.
//! Rows only, in catalogue order; the assembly in `keys/mod.rs` fixes where they go. Must
//! not touch: the network, the database or global state.

use super::{Key, Kind, key};

pub(super) const PUSH: &[Key] = &[
    key(
        "push",
        "enabled",
        boolean!(push.enabled, false),
        "Whether mobile devices may register for push notifications (POST /mobile_push/register);\nOutpost keeps the registrations but does not deliver notifications itself.",
    ),
    key(
        "push",
        "max_devices_per_user",
        int!(push.max_devices_per_user, 20, 1, 1000),
        "Push devices (tokens and registrations together) one user may register.",
    ),
];
