//! The upgrade steps: each file under `src/db/upgrades/` turns a database of schema version N
//! into N + 1 (the file is named after N + 1), and [`upgrade_from`] picks the step for a version.
//!
//! The steps are history: once released a step never changes, since databases of its version
//! exist. A new database never runs them; it is created from `schema.sql` alone (see
//! `db::migrate`), and `tests/api/schema_upgrades.rs` checks that both roads end in the same
//! schema. A schema change edits `schema.sql`, adds the next step here, and raises
//! `migrate::SCHEMA_VERSION`.
//!
//! Must not hold the current schema or queries of the application, nor open or commit
//! transactions (`db::migrate` runs every step of an upgrade in one transaction).

use rusqlite::Connection;

use crate::error::{Error, Result};

/// Every upgrade step, oldest first, as (the version it makes, its SQL): the SQL turns a
/// database of the version before into that version. The last one makes
/// `migrate::SCHEMA_VERSION`; version 1 (the first release) has no step into it.
pub const STEPS: &[(i64, &str)] = &[
    (2, include_str!("upgrades/0002_dtrack.sql")),
    (3, include_str!("upgrades/0003_user_settings.sql")),
    (4, include_str!("upgrades/0004_submessages.sql")),
    (5, include_str!("upgrades/0005_system_bots.sql")),
    (6, include_str!("upgrades/0006_channel_folders.sql")),
    (7, include_str!("upgrades/0007_group_permissions.sql")),
    (8, include_str!("upgrades/0008_invitations.sql")),
    (9, include_str!("upgrades/0009_user_records.sql")),
    (10, include_str!("upgrades/0010_bot_storage.sql")),
    (11, include_str!("upgrades/0011_scheduled.sql")),
    (12, include_str!("upgrades/0012_uploads.sql")),
    (13, include_str!("upgrades/0013_bot_services.sql")),
    (14, include_str!("upgrades/0014_outgoing_webhooks.sql")),
    (15, include_str!("upgrades/0015_bot_defaults.sql")),
    (16, include_str!("upgrades/0016_realm_emoji.sql")),
    (17, include_str!("upgrades/0017_dtrack_projects.sql")),
    (18, include_str!("upgrades/0018_osv.sql")),
    (19, include_str!("upgrades/0019_auth_indexes.sql")),
    (20, include_str!("upgrades/0020_web_sessions.sql")),
    (21, include_str!("upgrades/0021_matching_sources.sql")),
    (22, include_str!("upgrades/0022_findings.sql")),
    (23, include_str!("upgrades/0023_portfolio_metrics.sql")),
    (24, include_str!("upgrades/0024_tags.sql")),
    (25, include_str!("upgrades/0025_nvd.sql")),
    (26, include_str!("upgrades/0026_notifications.sql")),
    (27, include_str!("upgrades/0027_push_bouncer.sql")),
    (28, include_str!("upgrades/0028_mail.sql")),
    (29, include_str!("upgrades/0029_notify_indexes.sql")),
    (30, include_str!("upgrades/0030_push_e2ee.sql")),
    (31, include_str!("upgrades/0031_digest.sql")),
];

/// The step into version `to`, if there is one.
pub fn step_into(to: i64) -> Option<&'static str> {
    STEPS.iter().find(|(v, _)| *v == to).map(|(_, sql)| *sql)
}

/// Upgrades a database (inside the caller's transaction) from schema version `from` to
/// `from + 1`; the caller then stamps the new version.
pub fn upgrade_from(conn: &Connection, from: i64) -> Result<()> {
    // Version 7 once meant the invitations (merged as 7 in 53b77e2, renumbered to 8 by the
    // next merge, which gave 7 to the user-group changes): such a database has the
    // invitations and lacks the group changes, so its step to 8 is the groups' step.
    let to = if from == 7 && has_table(conn, "invitations")? {
        7
    } else {
        from + 1
    };
    match step_into(to) {
        Some(sql) => Ok(conn.execute_batch(sql)?),
        None => Err(Error::internal(format!(
            "no upgrade is known from schema version {from}"
        ))),
    }
}

fn has_table(conn: &Connection, name: &str) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = ?1",
        [name],
        |r| r.get(0),
    )?)
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;
    use crate::config::Synchronous;
    use crate::db::migrate::{SCHEMA_VERSION, open_writer};

    /// What the first release gave a new database (schema version 1).
    const V1_SQL: &str = include_str!("../../tests/fixtures/schema/v01.sql");

    #[test]
    fn version_1_database_gains_the_dtrack_settings_and_submessage_tables() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        {
            let c = Connection::open(&path).unwrap();
            // Version 1 (what the first release gave a new database) had neither the dtrack
            // tables nor `user_settings` nor `submessages`, nor the system bots' column and the
            // realm settings, nor the groups' own permission columns and the membership index.
            let v1 = V1_SQL;
            assert!(!v1.contains("is_system_bot            INTEGER"));
            assert!(!v1.contains("CREATE TABLE realm_settings"));
            c.execute_batch(v1).unwrap();
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
        assert_eq!(n, 42);
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

    /// The tables and indexes a file creates, by name.
    fn objects_of(sql: &str) -> Vec<&str> {
        ["CREATE TABLE ", "CREATE INDEX ", "CREATE UNIQUE INDEX "]
            .iter()
            .flat_map(|create| sql.split(create).skip(1))
            .map(|rest| rest.split([' ', '(', '\n']).next().unwrap())
            .collect()
    }

    #[test]
    fn each_step_is_the_upgrade_into_its_version() {
        assert_eq!(STEPS.last().map(|(v, _)| *v), Some(SCHEMA_VERSION));
        for (i, (version, sql)) in STEPS.iter().enumerate() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("db.sqlite");
            {
                // A database of the version before: version 1 and the steps up to it.
                let c = Connection::open(&path).unwrap();
                c.execute_batch(V1_SQL).unwrap();
                for (_, earlier) in &STEPS[..i] {
                    c.execute_batch(earlier).unwrap();
                }
                c.execute_batch(&format!("PRAGMA user_version = {};", version - 1))
                    .unwrap();
            }
            let conn = open_writer(&path, Synchronous::Normal).unwrap();
            let objects = objects_of(sql);
            assert!(
                !objects.is_empty(),
                "version {version} adds no table or index"
            );
            for table in objects {
                let n: i64 = conn
                    .query_row(
                        "SELECT count(*) FROM sqlite_schema WHERE type IN ('table', 'index') \
                         AND name = ?1",
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
}
