//! The questions operations ask the database: does it answer (`/health`), and how much
//! background work is waiting (`/metrics`). Counts only; no rows leave.

use rusqlite::Connection;

use crate::error::Result;

/// Fails unless the database answers a trivial read.
pub fn check(c: &Connection) -> Result<()> {
    c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))?;
    Ok(())
}

/// Background work waiting in the database.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backlog {
    /// Scheduled messages and reminders still pending.
    pub scheduled: i64,
    /// Accepted BOM uploads not yet imported (when Dependency-Track is enabled).
    pub bom_uploads: Option<i64>,
}

/// Counts the waiting background work (both through partial or leading indexes).
pub fn backlog(c: &Connection, dtrack: bool) -> Result<Backlog> {
    let scheduled = c
        .prepare_cached("SELECT count(*) FROM scheduled_messages WHERE state = 0")?
        .query_row([], |r| r.get(0))?;
    let bom_uploads = if dtrack {
        Some(
            c.prepare_cached("SELECT count(*) FROM dt_bom_uploads WHERE processed_ms IS NULL")?
                .query_row([], |r| r.get(0))?,
        )
    } else {
        None
    };
    Ok(Backlog {
        scheduled,
        bom_uploads,
    })
}
