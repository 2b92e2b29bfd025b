//! Upgrades from every schema version main has had: each `tests/fixtures/schema/vNN.sql` is what
//! a new database got from the Outpost of that version (see its `generate.py`). Opening such a
//! file with today's code must give exactly the schema a new database gets today (tables,
//! columns with their types, defaults and keys, indexes, triggers), keep every row, and pass
//! SQLite's integrity and foreign-key checks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use outpost::config::Synchronous;
use outpost::db::migrate::{SCHEMA_VERSION, open_writer};
use rusqlite::Connection;

fn fixtures() -> Vec<(i64, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema");
    let mut out: Vec<(i64, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name()?.to_str()?.to_owned();
            let v = name.strip_prefix('v')?.strip_suffix(".sql")?.parse().ok()?;
            Some((v, path))
        })
        .collect();
    out.sort();
    out
}

/// Every schema object, by kind and name, with what defines it (columns sorted by name, since
/// `ALTER TABLE ADD COLUMN` appends where a new schema may list a column earlier).
fn shape(c: &Connection) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let objects: Vec<(String, String, String)> = c
        .prepare("SELECT type, name, tbl_name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (kind, name, table) in objects {
        let detail = match kind.as_str() {
            "table" => {
                let mut cols: Vec<String> = c
                    .prepare(&format!("PRAGMA table_xinfo(\"{name}\")"))
                    .unwrap()
                    .query_map([], |r| {
                        Ok(format!(
                            "{} {} notnull={} default={:?} pk={} hidden={}",
                            r.get::<_, String>(1)?,
                            r.get::<_, String>(2)?.to_uppercase(),
                            r.get::<_, i64>(3)?,
                            r.get::<_, Option<String>>(4)?,
                            r.get::<_, i64>(5)?,
                            r.get::<_, i64>(6)?,
                        ))
                    })
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                cols.sort();
                let fks: Vec<String> = c
                    .prepare(&format!("PRAGMA foreign_key_list(\"{name}\")"))
                    .unwrap()
                    .query_map([], |r| {
                        Ok(format!(
                            "fk {}.{:?} -> {}.{:?} on delete {}",
                            name,
                            r.get::<_, String>(3)?,
                            r.get::<_, String>(2)?,
                            r.get::<_, Option<String>>(4)?,
                            r.get::<_, String>(6)?,
                        ))
                    })
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                format!("{cols:?} {fks:?}")
            }
            "index" => {
                let cols: Vec<String> = c
                    .prepare(&format!("PRAGMA index_xinfo(\"{name}\")"))
                    .unwrap()
                    .query_map([], |r| {
                        Ok(format!(
                            "{:?} desc={} key={}",
                            r.get::<_, Option<String>>(2)?,
                            r.get::<_, i64>(3)?,
                            r.get::<_, i64>(5)?
                        ))
                    })
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                let unique: i64 = c
                    .query_row(
                        &format!(
                            "SELECT \"unique\" FROM pragma_index_list(\"{table}\") WHERE name = ?1"
                        ),
                        [&name],
                        |r| r.get(0),
                    )
                    .unwrap();
                format!("on {table} unique={unique} {cols:?}")
            }
            _ => format!("on {table}"),
        };
        out.insert(format!("{kind} {name}"), detail);
    }
    out
}

fn row_counts(c: &Connection) -> BTreeMap<String, i64> {
    let tables: Vec<String> = c
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    tables
        .into_iter()
        .map(|t| {
            let n = c
                .query_row(&format!("SELECT count(*) FROM \"{t}\""), [], |r| r.get(0))
                .unwrap();
            (t, n)
        })
        .collect()
}

#[test]
fn every_earlier_schema_version_upgrades_to_todays_schema_keeping_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let fresh_path = dir.path().join("fresh.sqlite3");
    let today = shape(&open_writer(&fresh_path, Synchronous::Normal).unwrap());

    let versions = fixtures();
    let listed: Vec<i64> = versions.iter().map(|(v, _)| *v).collect();
    let expected: Vec<i64> = (1..=SCHEMA_VERSION).filter(|v| *v != 14).collect();
    assert!(
        expected.iter().all(|v| listed.contains(v)),
        "tests/fixtures/schema has versions {listed:?}; run its generate.py after a schema change \
         (every version up to {SCHEMA_VERSION} but 14 needs a file)"
    );

    for (version, file) in versions {
        let path = dir.path().join(format!("v{version}.sqlite3"));
        let before = {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(&std::fs::read_to_string(&file).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let v: i64 = c
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .unwrap();
            assert_eq!(v, version, "{} sets user_version {v}", file.display());
            row_counts(&c)
        };

        let c = open_writer(&path, Synchronous::Normal)
            .unwrap_or_else(|e| panic!("upgrading from version {version}: {e:?}"));
        let v: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(
            v, SCHEMA_VERSION,
            "version {version} was not upgraded all the way"
        );
        let check: String = c
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok", "version {version}");
        let fk_problems: i64 = c
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(fk_problems, 0, "version {version}: foreign keys broken");

        let upgraded = shape(&c);
        let missing: Vec<_> = today
            .keys()
            .filter(|k| !upgraded.contains_key(*k))
            .collect();
        let extra: Vec<_> = upgraded
            .keys()
            .filter(|k| !today.contains_key(*k))
            .collect();
        let differing: Vec<_> = today
            .iter()
            .filter(|(k, d)| upgraded.get(*k).is_some_and(|u| u != *d))
            .map(|(k, d)| format!("{k}\n  new database: {d}\n  upgraded:     {}", upgraded[k]))
            .collect();
        assert!(
            missing.is_empty() && extra.is_empty() && differing.is_empty(),
            "upgrading from version {version}: missing {missing:?}, extra {extra:?}, differing:\n{}",
            differing.join("\n")
        );

        let after = row_counts(&c);
        for (table, n) in before {
            let now = after.get(&table).copied().unwrap_or(0);
            assert!(
                now >= n,
                "upgrading from version {version}: {table} had {n} rows, now {now}"
            );
        }
    }
}
