//! Importing OSV exports: a zip (`all.zip`, one JSON record per entry), a JSON record, or a
//! directory of them, streamed entry by entry on a reader thread (each entry read within
//! [`MAX_RECORD_BYTES`]) and written in batches of [`BATCH`] records, one write transaction
//! per batch, so memory stays bounded and an interrupted import keeps whole batches only.
//!
//! A batch stores or updates the records whose `modified` stamp changed (a withdrawn record
//! keeps its vulnerability but affects nothing any more), then re-checks only the components
//! of the packages those records name or named, with policies and metrics of the projects
//! whose findings changed, in the same transaction. Corrupt or truncated files, records that
//! violate the schema and unusable parts are reported and skipped. Must not touch HTTP types
//! or SQL.

use std::collections::HashSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use super::record::{self, Advisory};
use crate::db::dtrack_findings as fdb;
use crate::db::dtrack_osv as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::ids::VulnerabilityId;

use crate::domain::dtrack::state::write;

/// Largest OSV record read (bigger entries are reported and skipped).
pub const MAX_RECORD_BYTES: u64 = 4 * 1024 * 1024;
/// Records per write transaction.
pub const BATCH: usize = 500;
/// Problems kept verbatim in a report (the rest are counted).
const MAX_REPORTED: usize = 200;
/// Files and directory levels walked under a directory.
const MAX_FILES: usize = 100_000;
const MAX_DEPTH: usize = 8;

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportReport {
    pub files: usize,
    /// Records read and parsed.
    pub records: usize,
    /// Records stored or updated.
    pub stored: usize,
    /// Records whose `modified` stamp was already stored.
    pub unchanged: usize,
    pub withdrawn: usize,
    /// Files, entries and records that were refused whole.
    pub refused: usize,
    /// Projects whose findings changed.
    pub projects_changed: usize,
    /// Problems, the first [`MAX_REPORTED`] of them.
    pub problems: Vec<String>,
    /// All problems, counted.
    pub problem_count: usize,
}

impl ImportReport {
    fn problem(&mut self, p: String) {
        self.problem_count += 1;
        if self.problems.len() < MAX_REPORTED {
            self.problems.push(p);
        }
    }
}

/// What the reader thread sends.
enum Item {
    Batch(Vec<Advisory>),
    Problem(String),
    Refused(String),
    File,
}

/// The files to read under `path`, sorted; a file is read whatever its name.
fn files_under(path: &Path, out: &mut Vec<PathBuf>, depth: usize) -> std::io::Result<()> {
    if path.is_file() || depth == 0 {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for e in entries {
        if out.len() >= MAX_FILES {
            break;
        }
        if e.is_dir() {
            if depth > 1 {
                files_under(&e, out, depth - 1)?;
            }
        } else if has_ext(&e, "zip") || has_ext(&e, "json") {
            out.push(e);
        }
    }
    Ok(())
}

fn has_ext(p: &Path, ext: &str) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// Reads a reader fully within the record limit; `Err` names the problem.
fn read_record(r: &mut dyn std::io::Read) -> std::result::Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    r.take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("unreadable ({e})"))?;
    if buf.len() as u64 > MAX_RECORD_BYTES {
        return Err(format!("larger than {MAX_RECORD_BYTES} bytes"));
    }
    Ok(buf)
}

/// The reader thread: walks the files and sends parsed records in batches. Stops when the
/// receiver is gone.
fn read_all(files: Vec<PathBuf>, tx: tokio::sync::mpsc::Sender<Item>) {
    let mut batch = Vec::with_capacity(BATCH);
    let send = |item: Item| tx.blocking_send(item).is_ok();
    let take =
        |name: &str, bytes: std::result::Result<Vec<u8>, String>, batch: &mut Vec<Advisory>| {
            // A panic while reading one record refuses that record, not the import.
            let parsed = bytes.and_then(|b| {
                std::panic::catch_unwind(|| record::parse(&b))
                    .unwrap_or_else(|_| Err("the record could not be read (internal error)".into()))
            });
            match parsed {
                Ok(mut a) => {
                    for p in a.problems.drain(..) {
                        if !send(Item::Problem(p)) {
                            return false;
                        }
                    }
                    batch.push(a);
                    if batch.len() >= BATCH {
                        return send(Item::Batch(std::mem::take(batch)));
                    }
                    true
                }
                Err(e) => send(Item::Refused(format!("{name}: {e}"))),
            }
        };
    for path in files {
        let shown = path.display().to_string();
        if !send(Item::File) {
            return;
        }
        if has_ext(&path, "json") {
            let bytes = std::fs::File::open(&path)
                .map_err(|e| format!("cannot open ({e})"))
                .and_then(|mut f| read_record(&mut f));
            if !take(&shown, bytes, &mut batch) {
                return;
            }
            continue;
        }
        let archive = std::fs::File::open(&path)
            .map_err(|e| e.to_string())
            .and_then(|f| {
                zip::ZipArchive::new(std::io::BufReader::new(f)).map_err(|e| e.to_string())
            });
        let mut archive = match archive {
            Ok(a) => a,
            Err(e) => {
                if !send(Item::Refused(format!("{shown}: not a readable zip ({e})"))) {
                    return;
                }
                continue;
            }
        };
        for i in 0..archive.len() {
            let mut entry = match archive.by_index(i) {
                Ok(e) => e,
                Err(e) => {
                    if !send(Item::Refused(format!(
                        "{shown} entry {i}: unreadable ({e})"
                    ))) {
                        return;
                    }
                    continue;
                }
            };
            let entry_name = entry
                .name()
                .map(|n| n.into_owned())
                .unwrap_or_else(|_| format!("entry {i}"));
            let name = format!("{shown}:{entry_name}");
            if entry.is_dir() || !entry_name.to_ascii_lowercase().ends_with(".json") {
                continue;
            }
            let bytes = if entry.size() > MAX_RECORD_BYTES {
                Err(format!("larger than {MAX_RECORD_BYTES} bytes"))
            } else {
                read_record(&mut entry)
            };
            drop(entry);
            if !take(&name, bytes, &mut batch) {
                return;
            }
        }
    }
    if !batch.is_empty() {
        send(Item::Batch(batch));
    }
}

/// What one batch changed.
#[derive(Default)]
struct Stored {
    stored: usize,
    unchanged: usize,
    withdrawn: usize,
    projects: usize,
}

fn spec_rows(a: &Advisory) -> Result<Vec<(String, String, String)>> {
    a.affected
        .iter()
        .map(|(eco, key, spec)| {
            let json = serde_json::to_string(spec)
                .map_err(|e| Error::internal(format!("cannot encode a range: {e}")))?;
            Ok((eco.purl_type().to_string(), key.clone(), json))
        })
        .collect()
}

/// Stores one batch and re-checks what it touched (inside the caller's write).
fn store_batch(c: &rusqlite::Connection, batch: &[Advisory]) -> Result<Stored> {
    let mut out = Stored::default();
    let mut touched: HashSet<(String, String)> = HashSet::new();
    for a in batch {
        let existing = db::record(c, &a.osv_id)?;
        if let Some((_, modified)) = &existing
            && *modified == a.modified
        {
            out.unchanged += 1;
            continue;
        }
        let v = &a.vulnerability;
        let id: VulnerabilityId = match existing {
            Some((id, _)) => {
                fdb::update_vulnerability(c, id, v)?;
                id
            }
            None => match fdb::vulnerability_id_by_key(c, &v.source, &v.vuln_id)? {
                Some(id) => {
                    fdb::update_vulnerability(c, id, v)?;
                    id
                }
                None => {
                    let mut new = v.clone();
                    new.uuid = uuid::Uuid::new_v4().to_string();
                    fdb::insert_vulnerability(c, &new)?
                }
            },
        };
        touched.extend(db::affected_packages(c, id)?);
        fdb::set_aliases(c, id, &v.aliases)?;
        db::upsert_record(c, id, &a.osv_id, &a.modified, a.withdrawn)?;
        db::set_cvss(c, id, &(a.rating.v2.clone(), a.rating.v4.clone()))?;
        let rows = if a.withdrawn {
            out.withdrawn += 1;
            Vec::new()
        } else {
            spec_rows(a)?
        };
        db::replace_affected(c, id, &rows)?;
        touched.extend(rows.into_iter().map(|(e, p, _)| (e, p)));
        out.stored += 1;
    }
    out.projects = super::matching::recheck_packages(c, &touched)?;
    Ok(out)
}

/// Imports OSV data from a zip, a JSON record or a directory of them.
pub async fn import_path(state: &Core, path: &Path) -> Result<ImportReport> {
    if !path.exists() {
        return Err(Error::bad_request(format!(
            "{} does not exist",
            path.display()
        )));
    }
    let mut files = Vec::new();
    files_under(path, &mut files, MAX_DEPTH)
        .map_err(|e| Error::bad_request(format!("cannot read {}: {e}", path.display())))?;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Item>(4);
    let reader = std::thread::Builder::new()
        .name("outpost-osv-read".into())
        .spawn(move || read_all(files, tx))
        .map_err(|e| Error::internal(format!("cannot start the OSV reader: {e}")))?;
    let mut report = ImportReport::default();
    while let Some(item) = rx.recv().await {
        match item {
            Item::File => report.files += 1,
            Item::Problem(p) => report.problem(p),
            Item::Refused(p) => {
                report.refused += 1;
                report.problem(p);
            }
            Item::Batch(batch) => {
                report.records += batch.len();
                let s = write(state, move |tx| store_batch(tx, &batch)).await;
                state.dtrack.osv_data_changed();
                let s = s?;
                report.stored += s.stored;
                report.unchanged += s.unchanged;
                report.withdrawn += s.withdrawn;
                report.projects_changed += s.projects;
            }
        }
    }
    let _ = reader.join();
    tracing::info!(
        files = report.files,
        records = report.records,
        stored = report.stored,
        unchanged = report.unchanged,
        refused = report.refused,
        problems = report.problem_count,
        "OSV import finished"
    );
    Ok(report)
}
