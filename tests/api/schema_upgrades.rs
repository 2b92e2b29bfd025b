//! Upgrades from every schema version main has had: each `tests/fixtures/schema/vNN.sql` is what
//! a new database got from the Outpost of that version (see its `generate.py`). Opening such a
//! file with today's code must give exactly the schema a new database gets today (tables,
//! columns with their types, defaults and keys, indexes, triggers), keep every row, and pass
//! SQLite's integrity and foreign-key checks. The text of the schema (`sqlite_schema`) is
//! compared too, for these files and for databases of every version rebuilt from version 1 by
//! the upgrade steps (`outpost::db::upgrade::STEPS`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use outpost::config::Synchronous;
use outpost::db::migrate::{SCHEMA_VERSION, open_writer};
use outpost::db::upgrade::STEPS;
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

/// One `sqlite_schema` row: type, name, table, normalised SQL (none for automatic indexes).
type SchemaRow = (String, String, String, Option<String>);

/// `sql` with its whitespace normalised: runs of whitespace become one space, and none is kept
/// next to `(`, `)` or `,` (`ALTER TABLE ADD COLUMN` splices `, <column>` in right before the
/// closing parenthesis, after whatever whitespace was there). A `--` comment counts as
/// whitespace, as SQLite's tokenizer has it: a table keeps the comments of the statement that
/// created it, and a column added later comes without one. Quoted text is kept as it is.
fn normalise(sql: &str) -> String {
    let mut out = String::new();
    let mut space = false;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '-' && chars.peek() == Some(&'-') {
            for c in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
            space = true;
            continue;
        }
        if c.is_whitespace() {
            space = true;
            continue;
        }
        let tight = matches!(c, '(' | ')' | ',') || out.ends_with(['(', ',']);
        if space && !tight && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
        if c == '\'' || c == '"' {
            for q in chars.by_ref() {
                out.push(q);
                if q == c {
                    break;
                }
            }
        }
    }
    out
}

fn schema_text(c: &Connection) -> Vec<SchemaRow> {
    let mut rows: Vec<SchemaRow> = c
        .prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema")
        .unwrap()
        .query_map([], |r| {
            let sql: Option<String> = r.get(3)?;
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                sql.as_deref().map(normalise),
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    rows.sort();
    rows
}

/// Every row the two schemas do not share, labelled with the side that has it.
fn text_differences(new: &[SchemaRow], other: &[SchemaRow]) -> Vec<String> {
    let only = |a: &[SchemaRow], b: &[SchemaRow], side: &str| -> Vec<String> {
        a.iter()
            .filter(|row| !b.contains(row))
            .map(|(kind, name, _, sql)| format!("only in the {side}: {kind} {name}: {sql:?}"))
            .collect()
    };
    let mut out = only(new, other, "new database");
    out.extend(only(other, new, "upgraded database"));
    out
}

/// A database of `version` rebuilt from what the first release created and the upgrade steps
/// `steps` up to that version.
fn rebuilt(path: &Path, version: i64, steps: &[(i64, &str)]) {
    let (first, v1) = &fixtures()[0];
    assert_eq!(*first, 1, "the oldest fixture is version 1");
    let c = Connection::open(path).unwrap();
    c.execute_batch(&std::fs::read_to_string(v1).unwrap())
        .unwrap();
    for (to, sql) in steps.iter().filter(|(to, _)| *to <= version) {
        c.execute_batch(sql)
            .unwrap_or_else(|e| panic!("the step into {to}: {e}"));
    }
    c.execute_batch(&format!("PRAGMA user_version = {version};"))
        .unwrap();
}

fn new_schema_text(dir: &Path) -> Vec<SchemaRow> {
    schema_text(&open_writer(&dir.join("new.sqlite3"), Synchronous::Normal).unwrap())
}

#[test]
fn new_and_upgraded_databases_have_the_same_schema_text() {
    let dir = tempfile::tempdir().unwrap();
    let new = new_schema_text(dir.path());
    assert!(
        new.len() > 100,
        "schema.sql made only {} objects",
        new.len()
    );

    let mut problems = Vec::new();
    for version in 1..=SCHEMA_VERSION {
        let path = dir.path().join(format!("rebuilt{version}.sqlite3"));
        rebuilt(&path, version, STEPS);
        let upgraded = schema_text(&open_writer(&path, Synchronous::Normal).unwrap());
        for d in text_differences(&new, &upgraded) {
            problems.push(format!("from version {version} (rebuilt): {d}"));
        }
    }
    for (version, file) in fixtures() {
        let path = dir.path().join(format!("fixture{version}.sqlite3"));
        Connection::open(&path)
            .unwrap()
            .execute_batch(&std::fs::read_to_string(&file).unwrap())
            .unwrap();
        let upgraded = schema_text(&open_writer(&path, Synchronous::Normal).unwrap());
        for d in text_differences(&new, &upgraded) {
            problems.push(format!("from {}: {d}", file.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_column_missing_from_an_upgrade_step_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let new = new_schema_text(dir.path());
    let dropped = "ALTER TABLE dt_projects ADD COLUMN supplier TEXT;\n";
    let steps: Vec<(i64, String)> = STEPS
        .iter()
        .map(|(to, sql)| (*to, sql.replace(dropped, "")))
        .collect();
    assert_ne!(
        steps.iter().map(|(_, s)| s.len()).sum::<usize>(),
        STEPS.iter().map(|(_, s)| s.len()).sum::<usize>(),
        "no step adds dt_projects.supplier any more; pick another column"
    );
    let steps: Vec<(i64, &str)> = steps.iter().map(|(to, s)| (*to, s.as_str())).collect();
    let path = dir.path().join("broken.sqlite3");
    rebuilt(&path, SCHEMA_VERSION, &steps);
    let upgraded = schema_text(&open_writer(&path, Synchronous::Normal).unwrap());
    let differences = text_differences(&new, &upgraded);
    assert_eq!(differences.len(), 2, "{differences:#?}");
    assert!(
        differences.iter().all(|d| d.contains("table dt_projects")),
        "{differences:#?}"
    );
    assert!(differences[0].contains("supplier"), "{differences:#?}");
    assert!(!differences[1].contains("supplier"), "{differences:#?}");
}

#[test]
fn normalising_touches_only_whitespace_and_comments() {
    assert_eq!(
        normalise("CREATE TABLE t (\n    a  INTEGER, -- note\n    b TEXT DEFAULT '  x--y '\n, c)"),
        "CREATE TABLE t(a INTEGER,b TEXT DEFAULT '  x--y ',c)"
    );
    assert_ne!(
        normalise("CREATE TABLE t (a, b)"),
        normalise("CREATE TABLE t (b, a)")
    );
    assert_ne!(normalise("a TEXT"), normalise("a  INTEGER"));
}

#[test]
fn upgrading_to_24_stores_tags_as_upstream_does() {
    // Version 23 kept project tags as written; 24 trims and lower-cases them (as upstream's tag
    // store does), merges the ones that become equal on one project, and records every tag.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v23.sqlite3");
    let (_, file) = fixtures().into_iter().find(|(v, _)| *v == 23).unwrap();
    {
        let c = Connection::open(&path).unwrap();
        c.execute_batch(&std::fs::read_to_string(&file).unwrap())
            .unwrap();
        c.execute_batch(
            "INSERT INTO dt_projects (id, uuid, name, collection_logic, collection_tag)
                 VALUES (1, 'u1', 'a', 'AGGREGATE_DIRECT_CHILDREN_WITH_TAG', ' Team ');
             INSERT INTO dt_projects (id, uuid, name) VALUES (2, 'u2', 'b');
             INSERT INTO dt_project_tags (project_id, name)
                 VALUES (1, 'Prod'), (1, 'prod '), (1, 'edge'), (2, 'PROD');",
        )
        .unwrap();
    }
    let c = open_writer(&path, Synchronous::Normal).unwrap();
    let rows = |sql: &str| -> Vec<String> {
        let mut st = c.prepare(sql).unwrap();
        st.query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(
        rows("SELECT project_id || ':' || name FROM dt_project_tags ORDER BY 1"),
        ["1:edge", "1:prod", "2:prod"]
    );
    assert_eq!(
        rows("SELECT name FROM dt_tags ORDER BY 1"),
        ["edge", "prod", "team"]
    );
    assert_eq!(
        rows("SELECT collection_tag FROM dt_projects WHERE id = 1"),
        ["team"]
    );
}
