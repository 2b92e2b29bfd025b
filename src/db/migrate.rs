//! Opening a database file: pragmas, schema creation and upgrades.
//!
//! `schema.sql` (embedded at build time) is the whole current schema: an empty database is
//! created from it alone, and it stamps the database with [`SCHEMA_VERSION`]. An existing
//! database is upgraded one version at a time by the steps of `db::upgrade`, all inside one
//! transaction, so a failed upgrade leaves the file as it was. A database whose `user_version`
//! is newer than this binary is refused, never touched.
//!
//! Must not contain DDL (that lives in `schema.sql` and `src/db/upgrades/`) nor queries of the
//! application (those live in the sibling modules).

use std::path::Path;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::config::Synchronous;
use crate::db::upgrade::upgrade_from;
use crate::error::{Error, Result};

/// The whole current schema, which a new database is created from.
pub const SCHEMA_SQL: &str = include_str!("../../schema.sql");

/// The schema version this binary writes and understands: the `PRAGMA user_version` that
/// [`SCHEMA_SQL`] sets, and the version the last step of `db::upgrade::STEPS` makes.
pub const SCHEMA_VERSION: i64 = 31;

/// Sets the per-connection pragmas every connection needs.
pub fn configure(conn: &Connection, sync: Synchronous, cache_kib: i64) -> rusqlite::Result<()> {
    let sync = match sync {
        Synchronous::Full => "FULL",
        Synchronous::Normal => "NORMAL",
    };
    conn.execute_batch(&format!(
        "PRAGMA foreign_keys = ON;
         PRAGMA busy_timeout = 5000;
         PRAGMA synchronous = {sync};
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -{cache_kib};"
    ))
}

/// Opens (creating if needed) the database at `path` for writing and brings its schema to
/// [`SCHEMA_VERSION`].
pub fn open_writer(path: &Path, sync: Synchronous) -> Result<Connection> {
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| Error::internal(format!("cannot open {}: {e}", path.display())))?;
    // WAL persists in the file; it must be set outside a transaction.
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Error::internal(format!(
            "{} does not support WAL (journal_mode is {mode}); is it on a network filesystem?",
            path.display()
        )));
    }
    conn.execute_batch("PRAGMA journal_size_limit = 67108864;")?;
    configure(&conn, sync, 65536)?;
    migrate(&mut conn)?;
    Ok(conn)
}

/// Checks a database file before it replaces the live one (`outpost restore`): SQLite's full
/// `integrity_check` passes, it is an Outpost database (a `meta` table and a schema version),
/// and its version is not newer than this binary's (an older one is upgraded at the next
/// start). Give it a private copy (opening may leave a write-ahead log next to it, and an
/// Outpost database is always in WAL mode); returns its schema version.
pub fn verify_restorable(path: &Path) -> Result<i64> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(|e| Error::bad_request(format!("cannot open {}: {e}", path.display())))?;
    let not_a_database = |e: rusqlite::Error| {
        Error::bad_request(format!("{} is not a database: {e}", path.display()))
    };
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .map_err(not_a_database)?;
    if check != "ok" {
        return Err(Error::bad_request(format!(
            "{} fails SQLite's integrity check: {check}",
            path.display()
        )));
    }
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(not_a_database)?;
    let has_meta: bool = conn
        .query_row(
            "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'",
            [],
            |r| r.get(0),
        )
        .map_err(not_a_database)?;
    if version < 1 || !has_meta {
        return Err(Error::bad_request(format!(
            "{} is not an Outpost database",
            path.display()
        )));
    }
    if version > SCHEMA_VERSION {
        return Err(Error::bad_request(format!(
            "{} has schema version {version}, but this Outpost understands only up to \
             {SCHEMA_VERSION}; restore it with a newer Outpost",
            path.display()
        )));
    }
    Ok(version)
}

/// Moves everything in the write-ahead log of the database at `path` into the file and empties
/// the log, so the file alone holds the data (before `outpost restore` sets it aside).
pub fn checkpoint_file(path: &Path) -> Result<()> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(|e| Error::internal(format!("cannot open {}: {e}", path.display())))?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
    if busy != 0 {
        return Err(Error::internal(format!(
            "{} is in use; cannot checkpoint it",
            path.display()
        )));
    }
    Ok(())
}

/// Creates or upgrades the schema of an open connection.
pub fn migrate(conn: &mut Connection) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(Error::internal(format!(
            "the database has schema version {version}, but this Outpost understands only up to \
             {SCHEMA_VERSION}; run a newer Outpost or restore a backup"
        )));
    }
    if version == 0 {
        let tables: i64 = tx.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table'",
            [],
            |r| r.get(0),
        )?;
        if tables > 0 {
            return Err(Error::internal(
                "the database has tables but no schema version; it was not created by Outpost",
            ));
        }
        tx.execute_batch(SCHEMA_SQL)?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('created_at', ?1)",
            [crate::time::now_secs().to_string()],
        )?;
    } else {
        for from in version..SCHEMA_VERSION {
            upgrade_from(&tx, from)?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", from + 1))?;
        }
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_database_gets_the_current_schema() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open_writer(&dir.path().join("db.sqlite"), Synchronous::Normal).unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let fk: i64 = conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        assert_eq!(fk, 1);
        drop(conn);
        // Opening again is a no-op.
        open_writer(&dir.path().join("db.sqlite"), Synchronous::Normal).unwrap();
    }

    #[test]
    fn newer_database_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch("CREATE TABLE future (x); PRAGMA user_version = 99;")
                .unwrap();
        }
        let err = open_writer(&path, Synchronous::Normal).unwrap_err();
        assert!(err.detail.unwrap().contains("schema version 99"));
        let c = Connection::open(&path).unwrap();
        let v: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 99);
    }

    #[test]
    fn foreign_database_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE other (x);")
            .unwrap();
        let err = open_writer(&path, Synchronous::Normal).unwrap_err();
        assert!(err.detail.unwrap().contains("not created by Outpost"));
    }
}
