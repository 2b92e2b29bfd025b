//! Importing NVD data offline (`outpost dtrack import-nvd --from`): the NVD CVE JSON 2.0 feed
//! files (`nvdcve-2.0-YYYY.json.gz`, `nvdcve-2.0-modified.json.gz`) or CVE API 2.0 pages, plain
//! or gzip, or a directory of them. The top-level `vulnerabilities` array is streamed item by
//! item on a reader thread (each item read within [`MAX_RECORD_BYTES`]; a yearly file is never
//! held whole), converted as Dependency-Track converts NVD records, and written in batches of
//! [`BATCH`] records, one write transaction per batch.
//!
//! Conversion: the `en` descriptions joined by a blank line, references sorted and
//! de-duplicated, `en` CWE ids, CVSS v4, v3.1 (else v3.0) and v2 with Primary entries before
//! Secondary and the first vector that parses winning, severity v4 > v3 > v2; configurations
//! without negated configurations or nodes, only `vulnerable != false` matches, in an AND node
//! with both application and OS CPEs only the application ones, unparseable CPEs skipped,
//! duplicates removed. Records are stored as source `NVD` in the vulnerability table OSV
//! records use (so findings, vulnerability reads, EPSS and metrics need nothing more).
//!
//! Incremental: a record replaces the stored one only when its `lastModified` is newer, so the
//! yearly and modified files import in any order and importing a file again changes nothing.
//! A batch then re-checks only the components whose CPE the changed records name or named,
//! with policies and metrics of the projects whose findings changed, in the same transaction.
//!
//! One idea a file: reading one CVE item ([`record`]), streaming a file's items and finding
//! the files ([`stream`]); here, the batches and what they change. Must not touch HTTP types
//! or SQL.

pub mod record;
pub mod stream;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use record::{NvdRecord, convert};

use super::state::write;
use crate::db::dtrack_findings as fdb;
use crate::db::dtrack_nvd as db;
use crate::db::dtrack_osv as odb;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::ids::VulnerabilityId;

/// Largest CVE item read (bigger ones stop the file: the stream cannot resume inside one).
pub const MAX_RECORD_BYTES: u64 = 8 * 1024 * 1024;
/// Records per write transaction.
pub const BATCH: usize = 500;
/// Problems kept verbatim in a report (the rest are counted).
const MAX_REPORTED: usize = 200;
/// Files and directory levels walked under a directory.
const MAX_FILES: usize = 10_000;
const MAX_DEPTH: usize = 8;

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportReport {
    pub files: usize,
    /// CVE items read and converted.
    pub records: usize,
    /// Records stored or replacing an older copy.
    pub imported: usize,
    /// Records whose `lastModified` was already stored.
    pub unchanged: usize,
    /// Records older than the stored copy (skipped).
    pub older: usize,
    /// Files and items refused whole.
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
    Batch(Vec<NvdRecord>),
    Problem(String),
    Refused(String),
    File,
}

/// The reader thread: streams every file and sends converted records in batches. Stops
/// when the receiver is gone.
fn read_all(files: Vec<PathBuf>, tx: tokio::sync::mpsc::Sender<Item>) {
    let send = |item: Item| tx.blocking_send(item).is_ok();
    let mut batch: Vec<NvdRecord> = Vec::with_capacity(BATCH);
    for path in files {
        let shown = path.display().to_string();
        if !send(Item::File) {
            return;
        }
        let mut gone = false;
        let mut sink = |item: Value| {
            // A panic while converting one item refuses that item, not the import.
            let converted = std::panic::catch_unwind(move || convert(item))
                .unwrap_or_else(|_| Err("an item could not be read (internal error)".into()));
            let ok = match converted {
                Ok(mut r) => {
                    let problems = std::mem::take(&mut r.problems);
                    batch.push(r);
                    problems.into_iter().all(|p| send(Item::Problem(p)))
                        && (batch.len() < BATCH || send(Item::Batch(std::mem::take(&mut batch))))
                }
                Err(e) => send(Item::Refused(format!("{shown}: {e}"))),
            };
            gone |= !ok;
            ok
        };
        let outcome = stream::stream_file(&path, &mut sink);
        if gone {
            return;
        }
        if let Err(e) = outcome
            && !send(Item::Refused(format!("{shown}: {e}")))
        {
            return;
        }
    }
    if !batch.is_empty() {
        send(Item::Batch(batch));
    }
}

/// What one batch changed.
#[derive(Default)]
struct Stored {
    imported: usize,
    unchanged: usize,
    older: usize,
    projects: usize,
}

/// Stores one batch and re-checks what it touched (inside the caller's write).
fn store_batch(c: &rusqlite::Connection, batch: &[NvdRecord]) -> Result<Stored> {
    let mut out = Stored::default();
    let mut touched: HashSet<(String, String, String)> = HashSet::new();
    for r in batch {
        let existing = db::record(c, &r.cve_id)?;
        if let Some((_, stored)) = existing {
            if stored == r.last_modified_ms {
                out.unchanged += 1;
                continue;
            }
            if stored > r.last_modified_ms {
                out.older += 1;
                continue;
            }
        }
        let v = &r.vulnerability;
        let id: VulnerabilityId = match existing {
            Some((id, _)) => {
                fdb::update_vulnerability(c, id, v)?;
                id
            }
            // The same CVE may already be stored (an OSV record with a CVE id): one row.
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
        touched.extend(db::cpe_keys_of(c, id)?);
        odb::set_cvss(c, id, &(r.cvss_v2.clone(), r.cvss_v4.clone()))?;
        db::upsert_record(c, id, &r.cve_id, r.last_modified_ms)?;
        db::replace_cpes(c, id, &r.cpes)?;
        touched.extend(
            r.cpes
                .iter()
                .map(|row| (row.part.clone(), row.attrs[0].clone(), row.attrs[1].clone())),
        );
        out.imported += 1;
    }
    out.projects = super::osv::matching::recheck_cpes(c, &touched)?;
    Ok(out)
}

/// Imports NVD CVE JSON 2.0 data from a file (plain or gzip) or a directory of them.
pub async fn import_path(state: &Core, path: &Path) -> Result<ImportReport> {
    if !path.exists() {
        return Err(Error::bad_request(format!(
            "{} does not exist",
            path.display()
        )));
    }
    let mut files = Vec::new();
    stream::files_under(path, &mut files, MAX_DEPTH, MAX_FILES)
        .map_err(|e| Error::bad_request(format!("cannot read {}: {e}", path.display())))?;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Item>(4);
    let reader = std::thread::Builder::new()
        .name("outpost-nvd-read".into())
        .spawn(move || read_all(files, tx))
        .map_err(|e| Error::internal(format!("cannot start the NVD reader: {e}")))?;
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
                report.imported += s.imported;
                report.unchanged += s.unchanged;
                report.older += s.older;
                report.projects_changed += s.projects;
            }
        }
    }
    let _ = reader.join();
    tracing::info!(
        files = report.files,
        records = report.records,
        imported = report.imported,
        unchanged = report.unchanged,
        older = report.older,
        refused = report.refused,
        problems = report.problem_count,
        "NVD import finished"
    );
    Ok(report)
}
