//! The layering rules of the code map, checked over the source: domain code holds no SQL text
//! and never imports the chat API's modules; the storage layer builds no JSON. (Issue 11,
//! section 5.) Reads the source tree only.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("source directory is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `(file, line)` under `src/{dir}` whose text contains one of `needles`.
fn offenders(dir: &str, needles: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("source file is readable");
        for (i, line) in text.lines().enumerate() {
            if needles.iter().any(|n| line.contains(n)) {
                found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn domain_code_holds_no_sql_text() {
    let sql = [
        "SELECT ",
        "INSERT INTO ",
        "DELETE FROM ",
        "COLLATE ",
        "\"m.",
        " AND m.",
        " OR m.",
    ];
    let found = offenders("domain", &sql);
    assert!(
        found.is_empty(),
        "SQL text outside db/:\n{}",
        found.join("\n")
    );
}

#[test]
fn domain_code_never_imports_the_chat_api() {
    let found = offenders("domain", &["zulip::"]);
    assert!(
        found.is_empty(),
        "domain/ uses zulip::\n{}",
        found.join("\n")
    );
}

#[test]
fn storage_code_builds_no_json() {
    let found = offenders("db", &["json!"]);
    assert!(found.is_empty(), "JSON built in db/:\n{}", found.join("\n"));
}
