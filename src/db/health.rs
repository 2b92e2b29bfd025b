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

/// A connection of its own that tells whether the database changed since it last looked
/// (SQLite's `PRAGMA data_version`: commits by any other connection, of this process or of
/// another, such as `outpost dtrack import-osv` beside a running server).
pub struct ChangeWatch {
    conn: Connection,
    last: Option<i64>,
}

impl ChangeWatch {
    /// Opens the watch's read-only connection.
    pub fn open(path: &std::path::Path) -> Result<ChangeWatch> {
        let conn = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        Ok(ChangeWatch { conn, last: None })
    }

    /// Whether another connection committed since the previous call (false on the first).
    pub fn changed(&mut self) -> Result<bool> {
        let v: i64 = self
            .conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))?;
        let changed = self.last.is_some_and(|l| l != v);
        self.last = Some(v);
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_by_another_connection_is_seen_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.sqlite3");
        let other = Connection::open(&path).unwrap();
        other
            .execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER);")
            .unwrap();
        let mut watch = ChangeWatch::open(&path).unwrap();
        assert!(!watch.changed().unwrap(), "the first look sees no change");
        assert!(!watch.changed().unwrap(), "nothing committed yet");
        other.execute("INSERT INTO t VALUES (1)", []).unwrap();
        assert!(watch.changed().unwrap(), "a commit elsewhere is seen");
        assert!(!watch.changed().unwrap(), "and only once");
    }
}
