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
/// from version 7 (which added it as version 8).
pub const INVITES_SQL: &str = include_str!("invites.sql");

/// The per-user records (muted users, drafts, saved snippets, push devices): applied after
/// [`SCHEMA_SQL`] to a new database, and by the upgrade from version 8 (which added them).
pub const USER_RECORDS_SQL: &str = include_str!("user_records.sql");

/// The bots' key-value storage: applied after [`SCHEMA_SQL`] to a new database, and by the
/// upgrade from version 9 (which added it as version 10).
pub const BOT_STORAGE_SQL: &str = include_str!("bot_storage.sql");

/// The scheduled messages and reminders: applied after [`SCHEMA_SQL`] to a new database, and
/// by the upgrade from version 10 (which added them as version 11).
pub const SCHEDULED_SQL: &str = include_str!("scheduled.sql");

/// Uploaded files and the messages linking them: applied after [`SCHEMA_SQL`] to a new
/// database, and by the upgrade from version 11 (which added them as version 12).
pub const UPLOADS_SQL: &str = include_str!("uploads.sql");

/// The bots' services (outgoing webhooks, embedded bots): applied after [`SCHEMA_SQL`] to a new
/// database, and by the upgrade from version 12 (which added them as version 13).
pub const BOT_SERVICES_SQL: &str = include_str!("bot_services.sql");

/// The outgoing-webhook delivery jobs: applied after [`SCHEMA_SQL`] to a new database, and by
/// the upgrade from version 13 (which added them as version 14).
pub const OUTGOING_WEBHOOKS_SQL: &str = include_str!("outgoing_webhooks.sql");

/// The bots' default channels: applied after [`SCHEMA_SQL`] to a new database, and by the
/// upgrade from version 14 (which added them as version 15).
pub const BOT_DEFAULTS_SQL: &str = include_str!("bot_defaults.sql");

/// Custom emoji and what uploaded images are: applied after [`SCHEMA_SQL`] to a new database,
/// and by the upgrade from version 15 (which added them as version 16).
pub const REALM_EMOJI_SQL: &str = include_str!("realm_emoji.sql");

/// The Dependency-Track project details (4.13 fields, collection tag) and project properties:
/// applied after [`SCHEMA_SQL`] to a new database, and by the upgrade from version 16 (which
/// added them as version 17).
pub const DTRACK_PROJECTS_SQL: &str = include_str!("dtrack_projects.sql");

/// OSV vulnerability data and the internal analyzer's state: applied after [`SCHEMA_SQL`] to a
/// new database, and by the upgrade from version 17 (which added them as version 18).
pub const OSV_SQL: &str = include_str!("osv.sql");

/// The browser client's sessions: applied after [`SCHEMA_SQL`] to a new database, and by the
/// upgrade from version 18 (which added them as version 19).
pub const WEB_SESSIONS_SQL: &str = include_str!("web_sessions.sql");

/// The files of tables added after [`SCHEMA_SQL`], each with the schema version that added it:
/// applied in this order after [`SCHEMA_SQL`] to a new database, and each one by the upgrade
/// into its version, so each file is the one place its DDL lives.
pub const ADDED_FILES: &[(i64, &str)] = &[
    (8, INVITES_SQL),
    (9, USER_RECORDS_SQL),
    (10, BOT_STORAGE_SQL),
    (11, SCHEDULED_SQL),
    (12, UPLOADS_SQL),
    (13, BOT_SERVICES_SQL),
    (14, OUTGOING_WEBHOOKS_SQL),
    (15, BOT_DEFAULTS_SQL),
    (16, REALM_EMOJI_SQL),
    (17, DTRACK_PROJECTS_SQL),
    (18, OSV_SQL),
    (19, WEB_SESSIONS_SQL),
];

/// `PRAGMA user_version` of [`SCHEMA_SQL`] plus the files applied after it.
pub const SCHEMA_VERSION: i64 = 19;

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
        tx.execute_batch(DTRACK_SQL)?;
        tx.execute_batch(SYSTEM_BOTS_SQL)?;
        for (_, sql) in ADDED_FILES {
            tx.execute_batch(sql)?;
        }
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
        6 => Ok(tx.execute_batch(
            "ALTER TABLE user_groups ADD COLUMN can_add_members_group TEXT NOT NULL DEFAULT '1';
             ALTER TABLE user_groups ADD COLUMN can_join_group TEXT NOT NULL DEFAULT '1';
             ALTER TABLE user_groups ADD COLUMN can_leave_group TEXT NOT NULL DEFAULT '1';
             ALTER TABLE user_groups ADD COLUMN can_manage_group TEXT NOT NULL DEFAULT '1';
             ALTER TABLE user_groups ADD COLUMN can_mention_group TEXT NOT NULL DEFAULT '1';
             ALTER TABLE user_groups ADD COLUMN can_remove_members_group TEXT NOT NULL DEFAULT '1';
             CREATE INDEX user_group_members_user ON user_group_members (user_id);
             CREATE TABLE user_groups_generation (token INTEGER NOT NULL);
             INSERT INTO user_groups_generation (token) VALUES (0);
             CREATE TRIGGER user_groups_ins AFTER INSERT ON user_groups
                 BEGIN UPDATE user_groups_generation SET token = random(); END;
             CREATE TRIGGER user_groups_upd AFTER UPDATE ON user_groups
                 BEGIN UPDATE user_groups_generation SET token = random(); END;
             CREATE TRIGGER user_group_members_ins AFTER INSERT ON user_group_members
                 BEGIN UPDATE user_groups_generation SET token = random(); END;
             CREATE TRIGGER user_group_members_del AFTER DELETE ON user_group_members
                 BEGIN UPDATE user_groups_generation SET token = random(); END;
             CREATE TRIGGER user_group_subgroups_ins AFTER INSERT ON user_group_subgroups
                 BEGIN UPDATE user_groups_generation SET token = random(); END;
             CREATE TRIGGER user_group_subgroups_del AFTER DELETE ON user_group_subgroups
                 BEGIN UPDATE user_groups_generation SET token = random(); END;",
        )?),
        _ => match ADDED_FILES.iter().find(|(v, _)| *v == from + 1) {
            Some((_, sql)) => Ok(tx.execute_batch(sql)?),
            None => Err(Error::internal(format!(
                "no upgrade is known from schema version {from}"
            ))),
        },
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
            let v1 = format!("{}{}", &v1[..start], &v1[end..]).replace(
                &format!("PRAGMA user_version = {SCHEMA_VERSION};"),
                "PRAGMA user_version = 1;",
            );
            // Nor the system bots' column and the realm settings.
            let v1 = v1.replace(
                ",\n    is_system_bot            INTEGER NOT NULL DEFAULT 0\n",
                "\n",
            );
            // Nor the groups' own permission columns and the membership index (version 7).
            let start = v1
                .find("    date_created    INTEGER,\n    -- The group's own")
                .unwrap();
            let end = start + v1[start..].find("\n);").unwrap();
            let v1 = format!("{}    date_created    INTEGER{}", &v1[..start], &v1[end..]).replace(
                "CREATE INDEX user_group_members_user ON user_group_members (user_id);",
                "",
            );
            let start = v1.find("-- A token that changes").unwrap();
            let end = v1.find("-- Channels (Zulip's streams)").unwrap();
            let v1 = format!("{}{}", &v1[..start], &v1[end..]);
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
        assert_eq!(n, 28);
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

    /// The tables a file creates, by name.
    fn tables_of(sql: &str) -> Vec<&str> {
        sql.split("CREATE TABLE ")
            .skip(1)
            .map(|rest| rest.split([' ', '(', '\n']).next().unwrap())
            .collect()
    }

    #[test]
    fn each_added_file_is_the_upgrade_into_its_version() {
        assert_eq!(ADDED_FILES.last().map(|(v, _)| *v), Some(SCHEMA_VERSION));
        for (i, (version, sql)) in ADDED_FILES.iter().enumerate() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("db.sqlite");
            {
                let c = Connection::open(&path).unwrap();
                let before = SCHEMA_SQL.replace(
                    &format!("PRAGMA user_version = {SCHEMA_VERSION};"),
                    &format!("PRAGMA user_version = {};", version - 1),
                );
                c.execute_batch(&before).unwrap();
                c.execute_batch(DTRACK_SQL).unwrap();
                c.execute_batch(SYSTEM_BOTS_SQL).unwrap();
                for (_, earlier) in &ADDED_FILES[..i] {
                    c.execute_batch(earlier).unwrap();
                }
            }
            let conn = open_writer(&path, Synchronous::Normal).unwrap();
            let tables = tables_of(sql);
            assert!(!tables.is_empty(), "version {version} adds no table");
            for table in tables {
                let n: i64 = conn
                    .query_row(
                        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                        [table],
                        |r| r.get(0),
                    )
                    .unwrap();
                assert_eq!(n, 1, "the upgrade into {version} made no {table}");
            }
            let v: i64 = conn
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .unwrap();
            assert_eq!(v, SCHEMA_VERSION);
        }
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
