//! The layering the code map in `src/lib.rs` states, checked by reading the sources: which
//! module may name which, that SQL text stays in `db/`, that DDL stays in `schema.sql` and the
//! upgrade steps, and that `json!` stays in the wire modules. A failure names the file and line;
//! the fix is to move the code. The exceptions below each say in one line why they are not a
//! layering breach.
//!
//! Lines from a file's `#[cfg(test)]` onwards (unit tests sit at the end of their file), modules
//! declared only under `#[cfg(test)]` and `//` comments are not checked.

use std::fs;
use std::path::{Path, PathBuf};

/// Each area (a path under `src/`) and the crate modules it must not name.
const FORBIDDEN: &[(&str, &[&str], &str)] = &[
    (
        "db/",
        &["domain", "zulip", "dtrack", "http"],
        "storage knows no rules and no API",
    ),
    (
        "domain/",
        &["zulip", "dtrack", "http", "web", "app", "cli"],
        "rules are shared by every entry point",
    ),
    (
        "events/",
        &["db", "domain", "zulip", "dtrack", "http"],
        "the hub carries plain records",
    ),
    (
        "model/",
        &["db", "domain", "zulip", "dtrack", "http", "events"],
        "plain records",
    ),
    (
        "ids.rs",
        &["db", "domain", "zulip", "dtrack", "http", "events"],
        "plain records",
    ),
    (
        "markdown/",
        &["db", "domain", "zulip", "dtrack", "http", "events"],
        "pure rendering",
    ),
    (
        "http/",
        &["db", "domain", "zulip", "dtrack", "events"],
        "transport knows no API semantics",
    ),
    ("zulip/", &["dtrack"], "the two APIs are independent"),
    ("dtrack/", &["zulip"], "the two APIs are independent"),
];

/// Where JSON values may be built (`json!`, `serde_json::Map`, `Value::Object`): the wire
/// modules and the envelopes that wrap them.
const JSON_HOMES: &[&str] = &[
    "zulip/wire/",
    "zulip/envelope.rs",
    "dtrack/wire.rs",
    "dtrack/wire/",
    "dtrack/respond.rs",
];

/// Files outside the wire modules that build JSON for a reason other than an API shape.
const JSON_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "domain/messages/widgets.rs",
        "widget state is JSON data stored and relayed verbatim, not a response shape",
    ),
    (
        "domain/dtrack/jwt.rs",
        "a JWT's claims are JSON by definition",
    ),
    ("cli.rs", "`--json` output of the command line, not an API"),
    ("bin/", "the load generator writes requests, not responses"),
    (
        "db/dtrack_projects.rs",
        "a project's JSON columns (authors, supplier, manufacturer) are rebuilt as stored values",
    ),
    (
        "domain/profile_fields/",
        "a select field's choices are JSON data stored verbatim, as upstream stores them",
    ),
    (
        "zulip/bots.rs",
        "a bot's service configuration is user-provided JSON relayed as given",
    ),
    (
        "zulip/register_state/mod.rs",
        "register's answer is one object whose keys depend on the requested types, assembled \
         key by key from the table of builders (each builder's values come from `zulip::wire`)",
    ),
    (
        "zulip/bot_storage.rs",
        "a bot's storage is user-provided keys and values relayed as given",
    ),
];

/// What marks JSON being built (a pattern that only takes a value apart is not building).
fn builds_json(line: &str) -> Option<&'static str> {
    if line.contains("json!") {
        return Some("`json!`");
    }
    // `Map::new()` of serde_json, not of `BTreeMap`/`HashMap`.
    let bare_map_new = line.match_indices("Map::new()").any(|(i, _)| {
        !line[..i]
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    });
    if bare_map_new || line.contains("collect::<Map<") {
        return Some("a `serde_json::Map`");
    }
    if line.contains("Map<String, Value> =") {
        return Some("a `serde_json::Map`");
    }
    let pattern = line.contains("=>")
        || line.contains("let Value::Object")
        || line.contains("let Some(Value::Object")
        || line.contains("if let");
    if line.contains("Value::Object(") && !pattern {
        return Some("`Value::Object`");
    }
    None
}

/// Words that mark SQL inside a string literal.
const SQL_MARKERS: &[&str] = &[
    "SELECT ",
    "INSERT ",
    "UPDATE ",
    "DELETE ",
    " FROM ",
    " WHERE ",
    " AND ",
    " OR ",
    " JOIN ",
    "COLLATE ",
    "PRAGMA ",
    "CREATE TABLE",
];

/// Files outside `db/` that may hold SQL text, and why.
const SQL_EXCEPTIONS: &[(&str, &str)] = &[(
    "bin/",
    "the load generator seeds large histories straight into a database file",
)];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("source directory")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `(path relative to src/ with `/` separators, [(line number, code without comments)])`.
fn sources() -> Vec<(String, Vec<(usize, String)>)> {
    let root = src_dir();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files
        .into_iter()
        .filter(|p| {
            // A module compiled only under `#[cfg(test)]` is test code through and through.
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            !is_test_only_module(&root, &rel)
        })
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = fs::read_to_string(&p).expect("readable source");
            let mut lines = Vec::new();
            for (i, line) in text.lines().enumerate() {
                if line.trim_start().starts_with("#[cfg(test)]") {
                    break;
                }
                lines.push((i + 1, strip_comment(line)));
            }
            (rel, lines)
        })
        .collect()
}

/// The line without a trailing `//` comment (a `//` inside a string literal is kept).
fn strip_comment(line: &str) -> String {
    let mut in_string = false;
    let mut prev = ' ';
    let chars: Vec<char> = line.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '"' && prev != '\\' {
            in_string = !in_string;
        }
        if !in_string && c == '/' && chars.get(i + 1) == Some(&'/') {
            return chars[..i].iter().collect();
        }
        prev = c;
    }
    line.to_string()
}

/// The string literals of a line (enough for the one-line SQL and format strings we write).
fn literals(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    let mut prev = ' ';
    for c in line.chars() {
        match (&mut current, c) {
            (None, '"') => current = Some(String::new()),
            (Some(s), '"') if prev != '\\' => {
                out.push(std::mem::take(s));
                current = None;
            }
            (Some(s), c) => s.push(c),
            (None, _) => {}
        }
        prev = c;
    }
    // A literal continued on the next line still counts.
    if let Some(s) = current {
        out.push(s);
    }
    out
}

fn in_area(path: &str, area: &str) -> bool {
    path == area || path.starts_with(area)
}

#[test]
fn modules_name_only_what_the_code_map_allows() {
    let mut problems = Vec::new();
    for (path, lines) in sources() {
        for (area, forbidden, why) in FORBIDDEN {
            if !in_area(&path, area) {
                continue;
            }
            for (n, line) in &lines {
                for module in *forbidden {
                    let needle = format!("crate::{module}");
                    let named = line.match_indices(&needle).any(|(i, _)| {
                        let rest = &line[i + needle.len()..];
                        rest.starts_with("::") || rest.starts_with(';') || rest.starts_with(' ')
                    });
                    if named {
                        problems.push(format!(
                            "src/{path}:{n}: names `{needle}` ({area} must not: {why})"
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn sql_text_lives_in_db() {
    let mut problems = Vec::new();
    for (path, lines) in sources() {
        if in_area(&path, "db/") || SQL_EXCEPTIONS.iter().any(|(p, _)| in_area(&path, p)) {
            continue;
        }
        for (n, line) in &lines {
            for lit in literals(line) {
                if let Some(m) = SQL_MARKERS.iter().find(|m| lit.contains(**m)) {
                    problems.push(format!("src/{path}:{n}: SQL text ({m:?}) outside src/db/"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn json_is_built_in_the_wire_modules() {
    let mut problems = Vec::new();
    for (path, lines) in sources() {
        let home = JSON_HOMES.iter().any(|h| in_area(&path, h));
        let excepted = JSON_EXCEPTIONS.iter().any(|(p, _)| in_area(&path, p));
        if home || excepted {
            continue;
        }
        for (n, line) in &lines {
            if let Some(what) = builds_json(line) {
                problems.push(format!(
                    "src/{path}:{n}: {what} outside the wire modules (move the shape to a wire module)"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checks_see_what_they_look_for() {
    assert_eq!(builds_json("let v = json!({});"), Some("`json!`"));
    assert_eq!(
        builds_json("    Ok(Value::Object(m))"),
        Some("`Value::Object`")
    );
    assert_eq!(
        builds_json("let mut m = serde_json::Map::new();"),
        Some("a `serde_json::Map`")
    );
    assert_eq!(builds_json("Some(Value::Object(o)) => o,"), None);
    assert_eq!(builds_json("let m = BTreeMap::new();"), None);
    assert_eq!(builds_json("let Value::Object(o) = v else {"), None);
    assert_eq!(strip_comment("let a = 1; // crate::zulip"), "let a = 1; ");
    assert_eq!(
        strip_comment(r#"let u = "http://x"; // y"#),
        r#"let u = "http://x"; "#
    );
    assert_eq!(
        literals(r#"c.execute("SELECT 1 FROM t WHERE a = ?1", [x])"#),
        vec!["SELECT 1 FROM t WHERE a = ?1"]
    );
    assert!(in_area("db/users.rs", "db/"));
    assert!(!in_area("dbx.rs", "db/"));
    // The checks run over the real tree: it has files in every area they name.
    let files: Vec<String> = sources().into_iter().map(|(p, _)| p).collect();
    for (area, _, _) in FORBIDDEN {
        assert!(files.iter().any(|f| in_area(f, area)), "no files in {area}");
    }
}

/// The most lines a file may have before its `#[cfg(test)]` module (issue 25): a file is one
/// idea, and one that grows past this holds more than one.
const MAX_FILE_LINES: usize = 650;

/// Files still over [`MAX_FILE_LINES`], each with why; the list only shrinks.
const LARGE_FILE_EXCEPTIONS: &[(&str, &str)] = &[];

/// Whether the file at `rel` (under `src/`) is a module its parent declares only under
/// `#[cfg(test)]` (`#[cfg(test)] mod x;`, on one line or two).
pub fn is_test_only_module(root: &Path, rel: &str) -> bool {
    let path = Path::new(rel);
    let (name, dir) = if path.file_name().is_some_and(|f| f == "mod.rs") {
        let dir = path.parent().unwrap_or(Path::new(""));
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        (name, dir.parent().unwrap_or(Path::new("")).to_path_buf())
    } else {
        let name = path.file_stem().map(|n| n.to_string_lossy().into_owned());
        (name, path.parent().unwrap_or(Path::new("")).to_path_buf())
    };
    let Some(name) = name else { return false };
    // The parent: `dir/mod.rs`, `dir/lib.rs`, `dir/main.rs` or `dir.rs` next to `dir`.
    let mut parents = vec![
        root.join(&dir).join("mod.rs"),
        root.join(&dir).join("lib.rs"),
        root.join(&dir).join("main.rs"),
    ];
    if let Some(d) = dir.file_name() {
        let up = dir.parent().unwrap_or(Path::new(""));
        parents.push(root.join(up).join(format!("{}.rs", d.to_string_lossy())));
    }
    let decl = format!("mod {name};");
    parents
        .iter()
        .filter_map(|p| fs::read_to_string(p).ok())
        .any(|text| {
            let lines: Vec<&str> = text.lines().map(str::trim).collect();
            lines.iter().enumerate().any(|(i, line)| {
                let Some(rest) = line.strip_prefix("#[cfg(test)]") else {
                    return false;
                };
                let rest = rest.trim();
                rest == decl || (rest.is_empty() && lines.get(i + 1) == Some(&decl.as_str()))
            })
        })
}

#[test]
fn no_file_is_a_large_room() {
    let root = src_dir();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut problems = Vec::new();
    let mut still_large = Vec::new();
    for p in files {
        let rel = p
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = fs::read_to_string(&p).expect("readable source");
        let lines = text
            .lines()
            .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
            .count();
        if lines <= MAX_FILE_LINES || is_test_only_module(&root, &rel) {
            continue;
        }
        if LARGE_FILE_EXCEPTIONS.iter().any(|(f, _)| *f == rel) {
            still_large.push(rel);
            continue;
        }
        problems.push(format!(
            "src/{rel}: {lines} lines before its tests (at most {MAX_FILE_LINES}: split it into a folder of one idea each)"
        ));
    }
    // An exception that no longer applies is taken off the list.
    for (f, _) in LARGE_FILE_EXCEPTIONS {
        if !still_large.iter().any(|s| s == f) {
            problems.push(format!(
                "src/{f} is listed in LARGE_FILE_EXCEPTIONS but is not over the limit (or gone): drop it from the list"
            ));
        }
    }
    assert!(is_test_only_module(&root, "events/queues/tests.rs"));
    assert!(!is_test_only_module(&root, "markdown/render/mod.rs"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The statements that define the schema (checked case-insensitively, whitespace collapsed).
const DDL: &[&str] = &[
    "CREATE TABLE",
    "CREATE UNIQUE INDEX",
    "CREATE INDEX",
    "CREATE TRIGGER",
    "CREATE VIEW",
    "CREATE VIRTUAL TABLE",
    "CREATE TEMP ",
    "CREATE TEMPORARY ",
    "ALTER TABLE",
    "DROP TABLE",
    "DROP INDEX",
    "DROP TRIGGER",
    "DROP VIEW",
];

/// Files under `src/` besides the upgrade steps that may hold DDL text, and why.
const DDL_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "db/upgrades/",
        "the upgrade steps, the one other home of DDL",
    ),
    (
        "db/digest.rs",
        "matches `sqlite_schema.sql` against 'CREATE VIRTUAL TABLE%' (a query, not DDL)",
    ),
];

/// The DDL statement a line of code starts or names, if any.
fn ddl_in(line: &str) -> Option<&'static str> {
    let flat = line.split_whitespace().collect::<Vec<_>>().join(" ") + " ";
    let flat = flat.to_uppercase();
    DDL.iter().find(|d| flat.contains(**d)).copied()
}

/// `(path relative to src/, [(line number, text without `--` comments)])` of every `.sql` file
/// under `src/`.
fn sql_sources(dir: &Path, out: &mut Vec<(String, Vec<(usize, String)>)>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("source directory")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sql_sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "sql") {
            let rel = p
                .strip_prefix(src_dir())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = fs::read_to_string(&p).expect("readable SQL");
            let lines = text
                .lines()
                .enumerate()
                .map(|(i, l)| (i + 1, l.split("--").next().unwrap_or("").to_string()))
                .collect();
            out.push((rel, lines));
        }
    }
}

#[test]
fn ddl_lives_only_in_schema_sql_and_the_upgrade_steps() {
    let mut files = sources();
    sql_sources(&src_dir(), &mut files);
    let mut problems = Vec::new();
    for (path, lines) in &files {
        if DDL_EXCEPTIONS.iter().any(|(p, _)| in_area(path, p)) {
            continue;
        }
        for (n, line) in lines {
            if let Some(d) = ddl_in(line) {
                problems.push(format!(
                    "src/{path}:{n}: {d} outside schema.sql and src/db/upgrades/"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // The check sees what it looks for: the steps and schema.sql hold DDL, in any spelling.
    assert!(files.iter().any(|(p, lines)| {
        in_area(p, "db/upgrades/") && lines.iter().any(|(_, l)| ddl_in(l) == Some("ALTER TABLE"))
    }));
    let schema = fs::read_to_string(src_dir().join("../schema.sql")).expect("schema.sql");
    assert!(schema.lines().any(|l| ddl_in(l) == Some("CREATE TRIGGER")));
    assert_eq!(
        ddl_in("  c.execute_batch(\"create  table x (a)\")"),
        Some("CREATE TABLE")
    );
    assert_eq!(ddl_in("let created_table = 1; // table"), None);
}
