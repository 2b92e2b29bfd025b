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
//! Must not touch HTTP types or SQL.

use std::cell::Cell;
use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::cpe::{Cpe, Part};
use super::osv::severity;
use super::state::write;
use crate::db::dtrack_findings as fdb;
use crate::db::dtrack_nvd::{self as db, CpeRow};
use crate::db::dtrack_osv as odb;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::ids::VulnerabilityId;
use crate::model::dtrack::Vulnerability;

/// Largest CVE item read (bigger ones stop the file: the stream cannot resume inside one).
pub const MAX_RECORD_BYTES: u64 = 8 * 1024 * 1024;
/// Records per write transaction.
pub const BATCH: usize = 500;
/// Problems kept verbatim in a report (the rest are counted).
const MAX_REPORTED: usize = 200;
/// Files and directory levels walked under a directory.
const MAX_FILES: usize = 10_000;
const MAX_DEPTH: usize = 8;
/// Bounds on what one record may hold.
const MAX_LIST: usize = 10_000;
const MAX_CPES: usize = 50_000;
const MAX_ID_LEN: usize = 64;

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

// ---- The record shape (NVD CVE API 2.0 schema) ----

#[derive(Deserialize)]
struct RawItem {
    cve: RawCve,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCve {
    id: String,
    published: Option<String>,
    last_modified: Option<String>,
    #[serde(default)]
    descriptions: Vec<LangValue>,
    #[serde(default)]
    references: Vec<RawReference>,
    #[serde(default)]
    weaknesses: Vec<RawWeakness>,
    metrics: Option<RawMetrics>,
    #[serde(default)]
    configurations: Vec<RawConfig>,
}

#[derive(Deserialize)]
struct LangValue {
    lang: String,
    value: String,
}

#[derive(Deserialize)]
struct RawReference {
    url: String,
}

#[derive(Deserialize)]
struct RawWeakness {
    #[serde(default)]
    description: Vec<LangValue>,
}

#[derive(Deserialize, Default)]
struct RawMetrics {
    #[serde(rename = "cvssMetricV40", default)]
    v40: Vec<RawMetric>,
    #[serde(rename = "cvssMetricV31", default)]
    v31: Vec<RawMetric>,
    #[serde(rename = "cvssMetricV30", default)]
    v30: Vec<RawMetric>,
    #[serde(rename = "cvssMetricV2", default)]
    v2: Vec<RawMetric>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMetric {
    #[serde(rename = "type")]
    kind: Option<String>,
    cvss_data: RawCvssData,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCvssData {
    vector_string: Option<String>,
    base_score: Option<f64>,
}

#[derive(Deserialize)]
struct RawConfig {
    #[serde(default)]
    negate: Option<bool>,
    #[serde(default)]
    nodes: Vec<RawNode>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawNode {
    operator: Option<String>,
    #[serde(default)]
    negate: Option<bool>,
    #[serde(default)]
    cpe_match: Vec<RawCpeMatch>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCpeMatch {
    vulnerable: Option<bool>,
    criteria: String,
    version_start_including: Option<String>,
    version_start_excluding: Option<String>,
    version_end_including: Option<String>,
    version_end_excluding: Option<String>,
}

/// A CVE record ready to store.
#[derive(Clone, Debug)]
pub struct NvdRecord {
    pub cve_id: String,
    pub last_modified_ms: i64,
    /// `uuid`, `id` unset.
    pub vulnerability: Vulnerability,
    pub cvss_v2: Option<(String, f64)>,
    pub cvss_v4: Option<(String, f64)>,
    /// The vulnerable CPEs, de-duplicated.
    pub cpes: Vec<CpeRow>,
    /// What was dropped and why.
    pub problems: Vec<String>,
}

fn cve_id_ok(id: &str) -> bool {
    let Some(rest) = id.strip_prefix("CVE-") else {
        return false;
    };
    let mut it = rest.splitn(2, '-');
    let (year, num) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
    id.len() <= MAX_ID_LEN
        && year.len() == 4
        && year.bytes().all(|b| b.is_ascii_digit())
        && num.len() >= 4
        && num.bytes().all(|b| b.is_ascii_digit())
}

/// Primary entries first (stable otherwise), as upstream sorts each metric list.
fn primary_first(list: &[RawMetric]) -> Vec<&RawMetric> {
    let mut out: Vec<&RawMetric> = list.iter().collect();
    out.sort_by_key(|m| match m.kind.as_deref() {
        Some(k) if k.eq_ignore_ascii_case("Primary") => 0,
        Some(k) if k.eq_ignore_ascii_case("Secondary") => 1,
        _ => 2,
    });
    out
}

fn first_parsed(
    lists: &[&[RawMetric]],
    score: impl Fn(&str) -> Option<f64>,
) -> Option<(String, f64)> {
    lists.iter().find_map(|list| {
        primary_first(list).into_iter().find_map(|m| {
            let v = m.cvss_data.vector_string.as_deref()?.trim();
            score(v).map(|s| (v.to_string(), s))
        })
    })
}

fn v3_score(v: &str) -> Option<f64> {
    v.parse::<cvss::v3::Vector>()
        .ok()
        .map(|v| v.score().value())
}

fn v2_score(v: &str) -> Option<f64> {
    let v = v
        .strip_prefix('(')
        .and_then(|v| v.strip_suffix(')'))
        .unwrap_or(v);
    v.parse::<cvss::v2::Vector>()
        .ok()
        .map(|v| v.score().value())
}

/// Reads one `{cve: {...}}` item. `Err` refuses the record (its reason); otherwise the
/// problems of parts that were dropped are in [`NvdRecord::problems`].
pub fn convert(item: Value) -> std::result::Result<NvdRecord, String> {
    let hint = item
        .get("cve")
        .and_then(|c| c.get("id"))
        .and_then(Value::as_str)
        .filter(|s| s.len() <= MAX_ID_LEN)
        .unwrap_or("a CVE item")
        .to_string();
    let raw: RawItem =
        serde_json::from_value(item).map_err(|e| format!("{hint}: not an NVD CVE item: {e}"))?;
    let cve = raw.cve;
    if !cve_id_ok(&cve.id) {
        return Err(format!("{hint}: the id is not a CVE id"));
    }
    let id = cve.id;
    let Some(last_modified_ms) = cve
        .last_modified
        .as_deref()
        .and_then(crate::time::parse_rfc3339_millis)
    else {
        return Err(format!("{id}: `lastModified` is missing or not a time"));
    };
    if [
        cve.descriptions.len(),
        cve.references.len(),
        cve.weaknesses.len(),
        cve.configurations.len(),
    ]
    .iter()
    .any(|n| *n > MAX_LIST)
    {
        return Err(format!("{id}: too many entries in a list"));
    }
    let mut problems = Vec::new();
    let description: Vec<&str> = cve
        .descriptions
        .iter()
        .filter(|d| d.lang.eq_ignore_ascii_case("en") && !d.value.trim().is_empty())
        .map(|d| d.value.as_str())
        .collect();
    let description = (!description.is_empty()).then(|| description.join("\n\n"));
    let mut urls: Vec<&str> = cve
        .references
        .iter()
        .map(|r| r.url.trim())
        .filter(|u| !u.is_empty() && !u.chars().any(char::is_control))
        .collect();
    urls.sort_unstable();
    urls.dedup();
    let references: String = urls
        .iter()
        .take(1000)
        .map(|u| format!("* [{u}]({u})\n"))
        .collect();
    let mut cwes: Vec<i64> = cve
        .weaknesses
        .iter()
        .flat_map(|w| w.description.iter())
        .filter(|d| d.lang.eq_ignore_ascii_case("en"))
        .filter_map(|d| d.value.trim().strip_prefix("CWE-")?.parse::<i64>().ok())
        .collect();
    cwes.sort_unstable();
    cwes.dedup();
    cwes.truncate(100);

    let metrics = cve.metrics.unwrap_or_default();
    let v4_lists: [&[RawMetric]; 1] = [&metrics.v40];
    let cvss_v4 = v4_lists.iter().find_map(|list| {
        primary_first(list).into_iter().find_map(|m| {
            let v = m.cvss_data.vector_string.as_deref()?.trim();
            v.parse::<cvss::v4::Vector>().ok()?;
            // Upstream keeps the record's own base score for v4.
            let s = m.cvss_data.base_score.unwrap_or_else(|| {
                v.parse::<cvss::v4::Vector>()
                    .map_or(0.0, |x| x.score().value())
            });
            Some((v.to_string(), s))
        })
    });
    // v3.0 is read only when no v3.1 vector is usable.
    let cvss_v3 = first_parsed(&[&metrics.v31, &metrics.v30], v3_score);
    let cvss_v2 = first_parsed(&[&metrics.v2], v2_score);
    let unread = [
        (&metrics.v40, cvss_v4.is_none(), "v4.0"),
        (&metrics.v31, cvss_v3.is_none(), "v3.1"),
        (&metrics.v2, cvss_v2.is_none(), "v2"),
    ];
    for (list, missing, name) in unread {
        if missing && !list.is_empty() {
            problems.push(format!("{id}: no CVSS {name} vector could be read"));
        }
    }
    let severity = if let Some((_, s)) = &cvss_v4 {
        severity::of_score(*s)
    } else if let Some((_, s)) = &cvss_v3 {
        severity::of_score(*s)
    } else if let Some((_, s)) = &cvss_v2 {
        severity::of_v2_score(*s)
    } else {
        "UNASSIGNED"
    };

    let cpes = configurations(&id, &cve.configurations, &mut problems)?;
    let published_ms = cve
        .published
        .as_deref()
        .and_then(crate::time::parse_rfc3339_millis);
    let vulnerability = Vulnerability {
        vuln_id: id.clone(),
        source: "NVD".into(),
        severity: Some(severity.to_string()),
        description,
        cvss_v3_vector: cvss_v3.as_ref().map(|v| v.0.clone()),
        cvss_v3_score: cvss_v3.as_ref().map(|v| v.1),
        created_ms: published_ms,
        published_ms,
        updated_ms: Some(last_modified_ms),
        references: (!references.is_empty()).then_some(references),
        cwes,
        ..Vulnerability::default()
    };
    Ok(NvdRecord {
        cve_id: id,
        last_modified_ms,
        vulnerability,
        cvss_v2,
        cvss_v4,
        cpes,
        problems,
    })
}

fn bound(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty() && s.len() <= 256)
        .map(str::to_string)
}

/// The vulnerable CPEs of a record's configurations, as upstream selects them.
fn configurations(
    id: &str,
    configs: &[RawConfig],
    problems: &mut Vec<String>,
) -> std::result::Result<Vec<CpeRow>, String> {
    let mut out: Vec<CpeRow> = Vec::new();
    let mut seen: HashSet<CpeRow> = HashSet::new();
    let mut count = 0usize;
    for config in configs {
        if config.negate == Some(true) {
            continue;
        }
        for node in &config.nodes {
            if node.negate == Some(true) {
                continue;
            }
            count += node.cpe_match.len();
            if count > MAX_CPES {
                return Err(format!("{id}: more than {MAX_CPES} CPE matches"));
            }
            let parsed: Vec<(Cpe, &RawCpeMatch)> = node
                .cpe_match
                .iter()
                .filter_map(|m| match Cpe::parse(&m.criteria) {
                    Ok(c) => Some((c, m)),
                    Err(e) => {
                        problems.push(format!("{id}: a CPE that does not parse ({e}) was skipped"));
                        None
                    }
                })
                .collect();
            let and = node
                .operator
                .as_deref()
                .is_some_and(|o| o.eq_ignore_ascii_case("AND"));
            let has = |p: Part| parsed.iter().any(|(c, _)| c.part == p);
            let only_apps = and && has(Part::Application) && has(Part::OperatingSystem);
            for (cpe, m) in parsed {
                if only_apps && cpe.part != Part::Application {
                    continue;
                }
                if m.vulnerable == Some(false) {
                    continue;
                }
                let row = CpeRow {
                    part: cpe.part.as_str().to_string(),
                    attrs: cpe.attrs,
                    bounds: [
                        bound(&m.version_start_including),
                        bound(&m.version_start_excluding),
                        bound(&m.version_end_including),
                        bound(&m.version_end_excluding),
                    ],
                };
                if seen.insert(row.clone()) {
                    out.push(row);
                }
            }
        }
    }
    Ok(out)
}

// ---- Streaming the file ----

/// A reader that fails once more than the limit was read since the counter was last reset
/// (before each item), so one item cannot make the reader hold more.
struct Limited<R> {
    inner: R,
    used: Rc<Cell<u64>>,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.used.get() > MAX_RECORD_BYTES {
            return Err(std::io::Error::other(format!(
                "an item larger than {MAX_RECORD_BYTES} bytes"
            )));
        }
        let n = self.inner.read(buf)?;
        self.used.set(self.used.get() + n as u64);
        Ok(n)
    }
}

/// Receives each item; false stops the file.
type Sink<'a> = &'a mut dyn FnMut(Value) -> bool;

struct TopVisitor<'a> {
    sink: Sink<'a>,
    used: Rc<Cell<u64>>,
}

impl<'de> Visitor<'de> for TopVisitor<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an NVD CVE JSON 2.0 object with `vulnerabilities`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<bool, A::Error> {
        let mut found = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "vulnerabilities" && !found {
                found = true;
                map.next_value_seed(Items {
                    sink: &mut *self.sink,
                    used: Rc::clone(&self.used),
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
            self.used.set(0);
        }
        Ok(found)
    }
}

struct Items<'a> {
    sink: Sink<'a>,
    used: Rc<Cell<u64>>,
}

impl<'de> DeserializeSeed<'de> for Items<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Items<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of CVE items")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        loop {
            self.used.set(0);
            let Some(item) = seq.next_element::<Value>()? else {
                return Ok(());
            };
            if !(self.sink)(item) {
                return Err(de::Error::custom("stopped"));
            }
        }
    }
}

/// Streams the items of one file (plain JSON or gzip) into `sink`; `Err` is why the file (or
/// its rest) could not be read.
fn stream_file(path: &Path, sink: Sink<'_>) -> std::result::Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open ({e})"))?;
    let mut buffered = std::io::BufReader::new(file);
    let gz = {
        use std::io::BufRead as _;
        let head = buffered
            .fill_buf()
            .map_err(|e| format!("unreadable ({e})"))?;
        head.starts_with(&[0x1f, 0x8b])
    };
    let inner: Box<dyn Read> = if gz {
        Box::new(std::io::BufReader::new(flate2::read::MultiGzDecoder::new(
            buffered,
        )))
    } else {
        Box::new(buffered)
    };
    let used = Rc::new(Cell::new(0));
    let reader = Limited {
        inner,
        used: Rc::clone(&used),
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let found = de::Deserializer::deserialize_map(&mut de, TopVisitor { sink, used })
        .map_err(|e| format!("not readable as NVD CVE JSON 2.0 ({e})"))?;
    if !found {
        return Err("no `vulnerabilities` array".into());
    }
    Ok(())
}

/// What the reader thread sends.
enum Item {
    Batch(Vec<NvdRecord>),
    Problem(String),
    Refused(String),
    File,
}

fn is_input(p: &Path) -> bool {
    let name = p
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    name.ends_with(".json") || name.ends_with(".json.gz")
}

/// The files to read under `path`, sorted; a file named directly is read whatever its name.
fn files_under(path: &Path, out: &mut Vec<PathBuf>, depth: usize) -> std::io::Result<()> {
    if path.is_file() || depth == 0 {
        out.push(path.to_path_buf());
        return Ok(());
    }
    // Directories still to walk, with their remaining depth (no recursion).
    let mut pending = vec![(path.to_path_buf(), depth)];
    while let Some((dir, left)) = pending.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        let mut subdirs = Vec::new();
        for e in entries {
            if out.len() >= MAX_FILES {
                return Ok(());
            }
            if e.is_dir() {
                if left > 1 {
                    subdirs.push((e, left - 1));
                }
            } else if is_input(&e) {
                out.push(e);
            }
        }
        // Walked in name order: the last pushed is taken first.
        pending.extend(subdirs.into_iter().rev());
    }
    Ok(())
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
        let outcome = stream_file(&path, &mut sink);
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
    files_under(path, &mut files, MAX_DEPTH)
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(cve: Value) -> Value {
        json!({ "cve": cve })
    }

    fn base(id: &str) -> Value {
        json!({"id": id, "published": "2024-01-02T03:04:05.000",
               "lastModified": "2024-02-01T00:00:00.000",
               "descriptions": [{"lang": "en", "value": "First."},
                                {"lang": "es", "value": "Primero."},
                                {"lang": "en", "value": "Second."}],
               "references": [{"url": "https://b.example/x"}, {"url": "https://a.example/y"},
                              {"url": "https://b.example/x"}]})
    }

    #[test]
    fn conversion_follows_upstream() {
        let mut c = base("CVE-2024-0001");
        c["weaknesses"] = json!([{"source": "nvd", "type": "Primary",
            "description": [{"lang": "en", "value": "CWE-79"}, {"lang": "en", "value": "NVD-CWE-Other"},
                            {"lang": "en", "value": "CWE-79"}, {"lang": "en", "value": "CWE-20"}]}]);
        c["metrics"] = json!({
            "cvssMetricV40": [{"source": "s", "type": "Secondary", "cvssData": {"version": "4.0",
                "vectorString": "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N",
                "baseScore": 9.3}}],
            "cvssMetricV31": [
                {"source": "s", "type": "Secondary", "cvssData": {"version": "3.1",
                  "vectorString": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N", "baseScore": 5.3}},
                {"source": "p", "type": "Primary", "cvssData": {"version": "3.1",
                  "vectorString": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "baseScore": 9.8}}],
            "cvssMetricV30": [{"source": "p", "type": "Primary", "cvssData": {"version": "3.0",
                  "vectorString": "CVSS:3.0/AV:L/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N", "baseScore": 4.0}}],
            "cvssMetricV2": [{"source": "p", "type": "Primary", "cvssData": {"version": "2.0",
                  "vectorString": "AV:N/AC:L/Au:N/C:P/I:P/A:P", "baseScore": 7.5}}]});
        let r = convert(item(c)).unwrap();
        let v = &r.vulnerability;
        assert_eq!(
            (v.source.as_str(), v.vuln_id.as_str()),
            ("NVD", "CVE-2024-0001")
        );
        assert_eq!(v.description.as_deref(), Some("First.\n\nSecond."));
        assert_eq!(
            v.references.as_deref(),
            Some(
                "* [https://a.example/y](https://a.example/y)\n* [https://b.example/x](https://b.example/x)\n"
            )
        );
        assert_eq!(v.cwes, vec![20, 79]);
        // Primary before Secondary; v3.1 over v3.0.
        assert_eq!(v.cvss_v3_score, Some(9.8));
        assert_eq!(r.cvss_v4.as_ref().map(|x| x.1), Some(9.3));
        assert_eq!(r.cvss_v2.as_ref().map(|x| x.1), Some(7.5));
        assert_eq!(v.severity.as_deref(), Some("CRITICAL"));
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        assert_eq!(
            r.last_modified_ms,
            crate::time::parse_rfc3339_millis("2024-02-01T00:00:00Z").unwrap()
        );

        // Only v3.0 and v2: v3.0 is used; only v2: its rating (no CRITICAL).
        let mut c = base("CVE-2024-0002");
        c["metrics"] = json!({"cvssMetricV30": [{"type": "Primary", "cvssData": {
            "vectorString": "CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N"}}]});
        let r = convert(item(c)).unwrap();
        assert_eq!(r.vulnerability.cvss_v3_score, Some(7.5));
        assert_eq!(r.vulnerability.severity.as_deref(), Some("HIGH"));
        let mut c = base("CVE-2024-0003");
        c["metrics"] = json!({"cvssMetricV2": [
            {"type": "Primary", "cvssData": {"vectorString": "not a vector"}},
            {"type": "Primary", "cvssData": {"vectorString": "AV:N/AC:L/Au:N/C:C/I:C/A:C"}}]});
        let r = convert(item(c)).unwrap();
        assert_eq!(r.vulnerability.severity.as_deref(), Some("HIGH"));
        assert_eq!(r.cvss_v2.as_ref().map(|x| x.1), Some(10.0));
        let r = convert(item(base("CVE-2024-0004"))).unwrap();
        assert_eq!(r.vulnerability.severity.as_deref(), Some("UNASSIGNED"));
    }

    #[test]
    fn configurations_follow_upstream() {
        let mut c = base("CVE-2024-0005");
        c["configurations"] = json!([
            {"nodes": [{"operator": "OR", "negate": false, "cpeMatch": [
                {"vulnerable": true, "criteria": "cpe:2.3:a:OpenSSL:openssl:*:*:*:*:*:*:*:*",
                 "matchCriteriaId": "x", "versionStartIncluding": "3.0.0", "versionEndExcluding": "3.0.7"},
                {"vulnerable": true, "criteria": "cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*",
                 "matchCriteriaId": "y", "versionStartIncluding": "3.0.0", "versionEndExcluding": "3.0.7"},
                {"vulnerable": false, "criteria": "cpe:2.3:a:openssl:openssl:1.0.2:*:*:*:*:*:*:*",
                 "matchCriteriaId": "z"},
                {"vulnerable": true, "criteria": "cpe:2.3:a:broken", "matchCriteriaId": "w"}]}]},
            {"operator": "AND", "nodes": [{"operator": "AND", "cpeMatch": [
                {"vulnerable": true, "criteria": "cpe:2.3:a:adobe:flash_player:*:*:*:*:*:*:*:*",
                 "matchCriteriaId": "a", "versionEndIncluding": "16.0.0.296"},
                {"vulnerable": true, "criteria": "cpe:2.3:o:microsoft:windows:-:*:*:*:*:*:*:*",
                 "matchCriteriaId": "b"}]}]},
            {"negate": true, "nodes": [{"operator": "OR", "cpeMatch": [
                {"vulnerable": true, "criteria": "cpe:2.3:a:negated:config:*:*:*:*:*:*:*:*",
                 "matchCriteriaId": "c"}]}]},
            {"nodes": [{"operator": "OR", "negate": true, "cpeMatch": [
                {"vulnerable": true, "criteria": "cpe:2.3:a:negated:node:*:*:*:*:*:*:*:*",
                 "matchCriteriaId": "d"}]}]}
        ]);
        let r = convert(item(c)).unwrap();
        let keys: Vec<(&str, &str, &str, Option<&str>)> = r
            .cpes
            .iter()
            .map(|c| {
                (
                    c.part.as_str(),
                    c.attrs[0].as_str(),
                    c.attrs[1].as_str(),
                    c.bounds[3].as_deref().or(c.bounds[2].as_deref()),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                ("a", "openssl", "openssl", Some("3.0.7")),
                ("a", "adobe", "flash_player", Some("16.0.0.296")),
            ]
        );
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
    }

    #[test]
    fn bad_items_are_refused() {
        assert!(convert(json!({"nope": 1})).is_err());
        assert!(
            convert(item(
                json!({"id": "GHSA-x", "lastModified": "2024-01-01T00:00:00"})
            ))
            .is_err()
        );
        assert!(convert(item(json!({"id": "CVE-2024-0001"}))).is_err());
        assert!(
            convert(item(
                json!({"id": "CVE-2024-0001", "lastModified": "yesterday"})
            ))
            .is_err()
        );
        assert!(cve_id_ok("CVE-2024-12345"));
        assert!(!cve_id_ok("CVE-24-1234"));
    }

    #[test]
    fn items_stream_one_at_a_time_and_oversized_ones_stop_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nvdcve-2.0-2024.json");
        let doc = json!({"resultsPerPage": 2, "format": "NVD_CVE", "version": "2.0",
            "vulnerabilities": [item(base("CVE-2024-0001")), item(base("CVE-2024-0002"))],
            "timestamp": "2024-03-01T00:00:00.000"});
        std::fs::write(&path, doc.to_string()).unwrap();
        let mut ids = Vec::new();
        stream_file(&path, &mut |v| {
            ids.push(v["cve"]["id"].as_str().unwrap().to_string());
            true
        })
        .unwrap();
        assert_eq!(ids, ["CVE-2024-0001", "CVE-2024-0002"]);

        // Gzip is read by its magic bytes.
        let gz = dir.path().join("nvdcve-2.0-2024.json.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, doc.to_string().as_bytes()).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let mut n = 0;
        stream_file(&gz, &mut |_| {
            n += 1;
            true
        })
        .unwrap();
        assert_eq!(n, 2);

        let mut huge = base("CVE-2024-0003");
        huge["descriptions"] = json!([{"lang": "en",
            "value": "x".repeat(MAX_RECORD_BYTES as usize + 10)}]);
        let doc = json!({"vulnerabilities": [item(base("CVE-2024-0001")), item(huge),
                                             item(base("CVE-2024-0002"))]});
        std::fs::write(&path, doc.to_string()).unwrap();
        let mut n = 0;
        let e = stream_file(&path, &mut |_| {
            n += 1;
            true
        })
        .unwrap_err();
        assert_eq!(n, 1);
        assert!(e.contains("larger than"), "{e}");

        std::fs::write(&path, b"[1, 2]").unwrap();
        assert!(stream_file(&path, &mut |_| true).is_err());
        std::fs::write(&path, b"{\"format\": \"NVD_CVE\"}").unwrap();
        assert!(stream_file(&path, &mut |_| true).is_err());
    }
}
