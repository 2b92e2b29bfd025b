//! The catalogue's rows for where state lives: the top-level `data_dir` and the `[database]` table.
//! Rows only, in catalogue order; the assembly in `keys/mod.rs` fixes where they go. Must
//! not touch: the network, the database or global state.

use std::path::PathBuf;

use super::{Key, Kind, key};
use crate::config::Synchronous;

pub(super) const DATA_DIR: &[Key] = &[key(
    "",
    "data_dir",
    Kind::Str {
        default: "./outpost-data",
        check: |v| !v.is_empty(),
        problem: "data_dir must not be empty",
        get: |c| c.data_dir.display().to_string(),
        set: |c, v| c.data_dir = PathBuf::from(v),
    },
    "Directory for the SQLite database and other state; created on first start. Back it up.",
)];

pub(super) const DATABASE: &[Key] = &[
    key(
        "database",
        "synchronous",
        Kind::Choice {
            default: "full",
            options: &["full", "normal"],
            get: |c| match c.database.synchronous {
                Synchronous::Full => "full",
                Synchronous::Normal => "normal",
            },
            set: |c, v| {
                c.database.synchronous = match v {
                    "full" => Synchronous::Full,
                    "normal" => Synchronous::Normal,
                    _ => return false,
                };
                true
            },
        },
        "\"full\" survives power loss (fsync per commit batch); \"normal\" survives process crashes only.",
    ),
    key(
        "database",
        "read_threads",
        int!(database.read_threads, 2, 1, 64),
        "Number of dedicated reader threads and pooled read connections.",
    ),
    key(
        "database",
        "cache_mib",
        int!(database.cache_mib, 8, 1, 4096),
        "SQLite's page cache of the writer connection in MiB: the server's memory grows to it as the database grows (the file's pages stay in the OS page cache either way).",
    ),
    key(
        "database",
        "read_cache_mib",
        int!(database.read_cache_mib, 2, 1, 4096),
        "SQLite's page cache of each read connection (read_threads of them) in MiB.",
    ),
];
