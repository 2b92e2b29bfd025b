//! The catalogue's rows for the `[bots]` table.
//! Rows only, in catalogue order; the assembly in `keys/mod.rs` fixes where they go. Must
//! not touch: the network, the database or global state.

use std::time::Duration;

use super::{Key, Kind, key};

pub(super) const BOTS: &[Key] = &[
    key(
        "bots",
        "outgoing_webhook_allow_private",
        boolean!(bots.outgoing_webhook_allow_private, false),
        "Whether outgoing webhooks may be sent to loopback, private, link-local and other\n\
         non-public addresses (a bot's URL could otherwise reach services on this host's\n\
         network); refused webhooks post upstream's failure notice.",
    ),
    key(
        "bots",
        "outgoing_webhook_timeout",
        secs!(bots.outgoing_webhook_timeout, 10, 1, 300),
        "Seconds one outgoing-webhook request may take in all (upstream's 10); a request that\n\
         times out or cannot connect is retried 3 times with backoff, then the bot posts\n\
         \"Failure! Bot is unavailable\" and tells its owner.",
    ),
];
