//! Opening a database file: pragmas, schema creation and upgrades.
//!
//! `schema.sql` (embedded at build time) is the whole current schema and is applied to an empty
//! database. An existing database is upgraded one version at a time by `upgrade_from` inside
//! one transaction, so a failed upgrade leaves the file as it was. A database whose
//! `user_version` is newer than this binary is refused, never touched.
//!
//! Must not contain queries of the application; those live in the sibling modules.

use std::path::Path;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::config::Synchronous;
use crate::error::{Error, Result};

/// The schema this binary writes and understands.
pub const SCHEMA_SQL: &str = include_str!("../../schema.sql");

/// The Dependency-Track tables: applied after [`SCHEMA_SQL`] to a new database, and by the
/// upgrade from version 1 (the one place their DDL lives).
pub const DTRACK_SQL: &str = include_str!("dtrack.sql");

/// The system bots' rows: applied after [`SCHEMA_SQL`] to a new database, and by the upgrade
/// from version 4 (which added them).
pub const SYSTEM_BOTS_SQL: &str = include_str!("system_bots.sql");

/// The invitation table: applied after [`SCHEMA_SQL`] to a new database, and by the upgrade
/// from version 6 (which added it).
pub const INVITES_SQL: &str = include_str!("invites.sql");

/// The scheduled messages and reminders: applied after [`SCHEMA_SQL`] to a new database, and
/// by the upgrade from version 7 (which added them).
pub const SCHEDULED_SQL: &str = include_str!("scheduled.sql");

/// `PRAGMA user_version` of [`SCHEMA_SQL`] plus [`DTRACK_SQL`], [`INVITES_SQL`] and
/// [`SCHEDULED_SQL`].
pub const SCHEMA_VERSION: i64 = 8;

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
        tx.execute_batch(DTRACK_SQL)?;
        tx.execute_batch(SYSTEM_BOTS_SQL)?;
        tx.execute_batch(INVITES_SQL)?;
        tx.execute_batch(SCHEDULED_SQL)?;
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

/// Upgrades a database from schema version `from` to `from + 1`. Each future schema change adds
/// an arm here and the same change to `schema.sql`.
fn upgrade_from(tx: &rusqlite::Transaction<'_>, from: i64) -> Result<()> {
    match from {
        1 => Ok(tx.execute_batch(DTRACK_SQL)?),
        2 => Ok(tx.execute_batch(
            "CREATE TABLE user_settings (
                 user_id INTEGER NOT NULL REFERENCES users (id),
                 name    TEXT NOT NULL,
                 value   TEXT NOT NULL,
                 PRIMARY KEY (user_id, name)
             ) WITHOUT ROWID;",
        )?),
        3 => Ok(tx.execute_batch(
            "CREATE TABLE submessages (
                 id         INTEGER PRIMARY KEY,
                 message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
                 sender_id  INTEGER NOT NULL REFERENCES users (id),
                 msg_type   TEXT NOT NULL,
                 content    TEXT NOT NULL
             );
             CREATE INDEX submessages_message ON submessages (message_id, id);",
        )?),
        4 => {
            tx.execute_batch(
                "ALTER TABLE users ADD COLUMN is_system_bot INTEGER NOT NULL DEFAULT 0;
                 CREATE TABLE realm_settings (
                     name  TEXT PRIMARY KEY,
                     value TEXT NOT NULL
                 ) WITHOUT ROWID;",
            )?;
            Ok(tx.execute_batch(SYSTEM_BOTS_SQL)?)
        }
        5 => Ok(tx.execute_batch(
            "CREATE TABLE channel_folders (
                 id                   INTEGER PRIMARY KEY,
                 name                 TEXT NOT NULL,
                 description          TEXT NOT NULL,
                 rendered_description TEXT NOT NULL,
                 creator_id           INTEGER REFERENCES users (id),
                 date_created         INTEGER NOT NULL,
                 is_archived          INTEGER NOT NULL DEFAULT 0
             );",
        )?),
        6 => Ok(tx.execute_batch(INVITES_SQL)?),
        7 => Ok(tx.execute_batch(SCHEDULED_SQL)?),
        _ => Err(Error::internal(format!(
            "no upgrade is known from schema version {from}"
        ))),
    }
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
    fn version_1_database_gains_the_dtrack_settings_and_submessage_tables() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        {
            let c = Connection::open(&path).unwrap();
            // Version 1 had neither the dtrack tables nor `user_settings` nor `submessages`.
            let start = SCHEMA_SQL.find("CREATE TABLE user_settings").unwrap();
            let end = start + SCHEMA_SQL[start..].find("WITHOUT ROWID;").unwrap() + 14;
            let v1 = format!("{}{}", &SCHEMA_SQL[..start], &SCHEMA_SQL[end..]);
            let start = v1.find("CREATE TABLE submessages").unwrap();
            let end = v1.find("-- The Dependency-Track tables").unwrap();
            let v1 = format!("{}{}", &v1[..start], &v1[end..])
                .replace("PRAGMA user_version = 8;", "PRAGMA user_version = 1;");
            // Nor the system bots' column and the realm settings.
            let v1 = v1.replace(
                ",\n    is_system_bot            INTEGER NOT NULL DEFAULT 0\n",
                "\n",
            );
            let start = v1.find("CREATE TABLE channel_folders").unwrap();
            let end = start + v1[start..].find(");").unwrap() + 2;
            let v1 = format!("{}{}", &v1[..start], &v1[end..]);
            let start = v1.find("CREATE TABLE realm_settings").unwrap();
            let end = start + v1[start..].find("WITHOUT ROWID;").unwrap() + 14;
            let v1 = format!("{}{}", &v1[..start], &v1[end..]);
            assert!(!v1.contains("is_system_bot            INTEGER"));
            assert!(!v1.contains("CREATE TABLE realm_settings"));
            c.execute_batch(&v1).unwrap();
        }
        let conn = open_writer(&path, Synchronous::Normal).unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name LIKE 'dt_%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 21);
        let settings: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name = 'user_settings'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(settings, 1);
        let submessages: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name IN ('submessages', 'submessages_message')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(submessages, 2);
        let bots: i64 = conn
            .query_row(
                "SELECT count(*) FROM users WHERE is_system_bot AND is_bot",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(bots, 2);
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
