//! The catalogue's rows for the `[metrics]` listener.
//! Rows only, in catalogue order; the assembly in `keys/mod.rs` fixes where they go. Must
//! not touch: the network, the database or global state.

use super::{Key, Kind, key};

pub(super) const METRICS: &[Key] = &[
    key(
        "metrics",
        "enabled",
        boolean!(metrics.enabled, false),
        "Serve GET /metrics (Prometheus text format) and GET /health on their own listener.",
    ),
    key(
        "metrics",
        "listen",
        addr!(metrics.listen, "127.0.0.1:9464"),
        "Address and port of that listener; keep it on loopback or a private network.",
    ),
];
