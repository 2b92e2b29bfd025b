//! The catalogue's rows for the `[log]` table.
//! Rows only, in catalogue order; the assembly in `keys/mod.rs` fixes where they go. Must
//! not touch: the network, the database or global state.

use super::{Key, Kind, key};
use crate::config::LogFormat;

pub(super) const LOG: &[Key] = &[
    key(
        "log",
        "level",
        Kind::Str {
            default: "info",
            check: |v| !v.is_empty() && tracing_subscriber::EnvFilter::try_new(v).is_ok(),
            problem: "log.level is not a valid filter (try \"info\" or \"outpost=debug,info\")",
            get: |c| c.log.level.clone(),
            set: |c, v| c.log.level = v,
        },
        "Log filter, e.g. \"info\", \"debug\" or \"outpost=debug,info\".",
    ),
    key(
        "log",
        "format",
        Kind::Choice {
            default: "text",
            options: &["text", "json"],
            get: |c| match c.log.format {
                LogFormat::Text => "text",
                LogFormat::Json => "json",
            },
            set: |c, v| {
                c.log.format = match v {
                    "text" => LogFormat::Text,
                    "json" => LogFormat::Json,
                    _ => return false,
                };
                true
            },
        },
        "Log line format: \"text\" or \"json\".",
    ),
];
