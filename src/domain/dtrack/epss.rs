//! Importing EPSS scores from the CSV FIRST publishes (`epss_scores-YYYY-MM-DD.csv.gz`, gzip or
//! plain): the `#model_version:…,score_date:…` comment line, the `cve,epss,percentile` header,
//! then one row per CVE. Read on a reader thread within [`MAX_BYTES`] and [`MAX_ROWS`] (lines
//! within [`MAX_LINE`]), written in batches of [`BATCH`] rows, one write transaction each; rows
//! the file no longer lists are dropped once it was read to the end. A file already imported
//! (same model version and score date) changes nothing; an older one than the last import is
//! refused. Findings show a vulnerability's score through its CVE id (its own or an alias).
//!
//! Must not touch HTTP types or SQL.

use std::io::{BufRead as _, Read as _};
use std::path::Path;

use crate::db::dtrack_epss as db;
use crate::domain::core::Core;
use crate::domain::dtrack::state::write;
use crate::error::{Error, Result};

/// Largest (decompressed) file read.
pub const MAX_BYTES: u64 = 1024 * 1024 * 1024;
/// Most data rows read.
pub const MAX_ROWS: usize = 5_000_000;
/// Longest line read.
pub const MAX_LINE: usize = 512;
/// Rows per write transaction.
pub const BATCH: usize = 10_000;
/// Problems kept verbatim in a report (the rest are counted).
const MAX_REPORTED: usize = 100;

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EpssReport {
    pub model_version: String,
    /// The file's score date (`YYYY-MM-DD`).
    pub score_date: String,
    /// Data rows read (refused ones included).
    pub rows: usize,
    /// Rows new or with a changed score or percentile.
    pub changed: usize,
    /// Rows of earlier files this one no longer lists, dropped.
    pub dropped: usize,
    /// The file was imported before: nothing changed.
    pub unchanged: bool,
    pub problems: Vec<String>,
    pub problem_count: usize,
}

impl EpssReport {
    fn problem(&mut self, p: String) {
        self.problem_count += 1;
        if self.problems.len() < MAX_REPORTED {
            self.problems.push(p);
        }
    }
}

/// The model version and score date (`YYYY-MM-DD`) of the comment line.
pub fn parse_comment(line: &str) -> Option<(String, String)> {
    let rest = line.trim().strip_prefix('#')?;
    let (mut model, mut date) = (None, None);
    for part in rest.split(',') {
        let (k, v) = part.split_once(':')?;
        match k.trim() {
            "model_version" => model = Some(v.trim().to_string()),
            "score_date" => date = Some(v.trim().to_string()),
            _ => {}
        }
    }
    let model = model.filter(|m| {
        !m.is_empty() && m.len() <= 64 && m.chars().all(|c| c.is_ascii_alphanumeric() || c == '.')
    })?;
    let date = date?;
    let day = date.get(..10)?;
    let b = day.as_bytes();
    let shape = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    shape.then(|| (model, day.to_string()))
}

/// One data row: (CVE id, score, percentile), or why it was refused.
pub fn parse_row(line: &str) -> std::result::Result<(String, f64, f64), String> {
    let mut cols = line.trim_end_matches('\r').split(',');
    let (Some(cve), Some(score), Some(pct), None) =
        (cols.next(), cols.next(), cols.next(), cols.next())
    else {
        return Err("not three columns".into());
    };
    let cve = cve.trim();
    let digits_ok = cve
        .strip_prefix("CVE-")
        .and_then(|r| r.split_once('-'))
        .is_some_and(|(y, n)| {
            y.len() == 4
                && y.bytes().all(|c| c.is_ascii_digit())
                && (4..=12).contains(&n.len())
                && n.bytes().all(|c| c.is_ascii_digit())
        });
    if !digits_ok {
        return Err(format!("{cve:?} is not a CVE id"));
    }
    let number = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && (0.0..=1.0).contains(v))
    };
    match (number(score), number(pct)) {
        (Some(s), Some(p)) => Ok((cve.to_string(), s, p)),
        _ => Err(format!("{cve}: a score or percentile outside 0..1")),
    }
}

/// What the reader thread sends.
enum Item {
    Head(String, String),
    Rows(Vec<(String, f64, f64)>),
    Problem(String),
    /// The file could not be read to the end (the import keeps what was written, drops nothing).
    Failed(String),
    Done(usize),
}

/// Reads the next line into `buf` (without its newline) within [`MAX_LINE`]; `Ok(false)` at the
/// end. An overlong line is consumed and reported as `Err`.
fn next_line<R: std::io::BufRead>(r: &mut R, buf: &mut Vec<u8>) -> std::io::Result<Result<bool>> {
    buf.clear();
    let n = r
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(Ok(false));
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(Ok(true));
    }
    if buf.len() > MAX_LINE {
        // Skip the rest of the line.
        loop {
            let mut rest = Vec::new();
            let n = r.by_ref().take(64 * 1024).read_until(b'\n', &mut rest)?;
            if n == 0 || rest.last() == Some(&b'\n') {
                break;
            }
        }
        return Ok(Err(Error::bad_request("a line too long")));
    }
    Ok(Ok(true))
}

fn read_all(path: &Path, tx: tokio::sync::mpsc::Sender<Item>) {
    let send = |i: Item| tx.blocking_send(i).is_ok();
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            send(Item::Failed(format!("cannot open {}: {e}", path.display())));
            return;
        }
    };
    let mut file = std::io::BufReader::new(file);
    let gzip = match file.fill_buf() {
        Ok(b) => b.starts_with(&[0x1f, 0x8b]),
        Err(e) => {
            send(Item::Failed(format!("cannot read {}: {e}", path.display())));
            return;
        }
    };
    let inner: Box<dyn std::io::Read> = if gzip {
        Box::new(flate2::bufread::MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut r = std::io::BufReader::new(inner.take(MAX_BYTES));
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    let mut line = |r: &mut std::io::BufReader<_>, buf: &mut Vec<u8>| {
        line_no += 1;
        next_line(r, buf).map(|res| (line_no, res))
    };
    // The comment line, then the header.
    let head = match line(&mut r, &mut buf) {
        Ok((_, Ok(true))) => String::from_utf8_lossy(&buf).into_owned(),
        Ok(_) => {
            send(Item::Failed(
                "the file is empty or its first line too long".into(),
            ));
            return;
        }
        Err(e) => {
            send(Item::Failed(format!("not readable ({e})")));
            return;
        }
    };
    let Some((model, date)) = parse_comment(&head) else {
        send(Item::Failed(
            "the first line is not EPSS's `#model_version:…,score_date:…` comment".into(),
        ));
        return;
    };
    if !send(Item::Head(model, date)) {
        return;
    }
    match line(&mut r, &mut buf) {
        Ok((_, Ok(true))) if buf.trim_ascii() == b"cve,epss,percentile" => {}
        Ok(_) => {
            send(Item::Failed(
                "the second line is not the `cve,epss,percentile` header".into(),
            ));
            return;
        }
        Err(e) => {
            send(Item::Failed(format!("not readable ({e})")));
            return;
        }
    }
    let mut rows = 0usize;
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        let (no, res) = match line(&mut r, &mut buf) {
            Ok(x) => x,
            Err(e) => {
                send(Item::Failed(format!(
                    "not readable after line {} ({e})",
                    line_no - 1
                )));
                return;
            }
        };
        match res {
            Ok(false) => break,
            Ok(true) if buf.trim_ascii().is_empty() => continue,
            Ok(true) => {}
            Err(_) => {
                rows += 1;
                if !send(Item::Problem(format!(
                    "line {no}: longer than {MAX_LINE} bytes"
                ))) {
                    return;
                }
                continue;
            }
        }
        rows += 1;
        if rows > MAX_ROWS {
            send(Item::Failed(format!("more than {MAX_ROWS} rows")));
            return;
        }
        match parse_row(&String::from_utf8_lossy(&buf)) {
            Ok(row) => {
                batch.push(row);
                if batch.len() >= BATCH && !send(Item::Rows(std::mem::take(&mut batch))) {
                    return;
                }
            }
            Err(e) => {
                if !send(Item::Problem(format!("line {no}: {e}"))) {
                    return;
                }
            }
        }
    }
    if r.get_ref().limit() == 0 {
        send(Item::Failed(format!("larger than {MAX_BYTES} bytes")));
        return;
    }
    if !batch.is_empty() && !send(Item::Rows(batch)) {
        return;
    }
    send(Item::Done(rows));
}

/// Imports an EPSS CSV file (gzip or plain).
pub async fn import_file(state: &Core, path: &Path) -> Result<EpssReport> {
    if !path.is_file() {
        return Err(Error::bad_request(format!(
            "{} is not a readable file",
            path.display()
        )));
    }
    let last = state.db.read(db::last_import).await?;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Item>(4);
    let owned = path.to_path_buf();
    let reader = std::thread::Builder::new()
        .name("outpost-epss-read".into())
        .spawn(move || read_all(&owned, tx))
        .map_err(|e| Error::internal(format!("cannot start the EPSS reader: {e}")))?;
    let mut report = EpssReport::default();
    let mut outcome = Ok(());
    while let Some(item) = rx.recv().await {
        match item {
            Item::Head(model, date) => {
                if let Some((m, d)) = &last {
                    if *d == date && *m == model {
                        report.unchanged = true;
                    } else if date < *d {
                        outcome = Err(Error::bad_request(format!(
                            "this file's scores ({date}) are older than those imported ({d})"
                        )));
                    }
                }
                report.model_version = model;
                report.score_date = date;
                if report.unchanged || outcome.is_err() {
                    break;
                }
            }
            Item::Rows(rows) => {
                let date = report.score_date.clone();
                report.changed += write(state, move |tx| db::upsert(tx, &date, &rows)).await?;
            }
            Item::Problem(p) => report.problem(p),
            Item::Failed(e) => {
                outcome = Err(Error::bad_request(format!("{}: {e}", path.display())));
                break;
            }
            Item::Done(rows) => {
                report.rows = rows;
                let (m, d) = (report.model_version.clone(), report.score_date.clone());
                let now = crate::time::now_millis();
                report.dropped = write(state, move |tx| db::finish(tx, &m, &d, now)).await?;
            }
        }
    }
    drop(rx);
    let _ = reader.join();
    outcome?;
    tracing::info!(
        model_version = %report.model_version,
        score_date = %report.score_date,
        rows = report.rows,
        changed = report.changed,
        dropped = report.dropped,
        unchanged = report.unchanged,
        problems = report.problem_count,
        "EPSS import finished"
    );
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_lines_of_old_and_new_files() {
        assert_eq!(
            parse_comment("#model_version:v2025.03.14,score_date:2025-03-14T00:00:00+0000"),
            Some(("v2025.03.14".into(), "2025-03-14".into()))
        );
        assert_eq!(
            parse_comment("#model_version:v2023.03.01,score_date:2026-11-30T12:00:22Z"),
            Some(("v2023.03.01".into(), "2026-11-30".into()))
        );
        for bad in [
            "cve,epss,percentile",
            "#score_date:2025-03-14",
            "#model_version:v1,score_date:soon",
        ] {
            assert_eq!(parse_comment(bad), None, "{bad}");
        }
    }

    #[test]
    fn rows_are_checked() {
        assert_eq!(
            parse_row("CVE-1999-0001,0.0046,0.7385\r"),
            Ok(("CVE-1999-0001".into(), 0.0046, 0.7385))
        );
        for bad in [
            "CVE-1999-0001,0.1",
            "CVE-1999-0001,0.1,0.2,0.3",
            "GHSA-aaaa-bbbb-cccc,0.1,0.2",
            "CVE-1999-0001,1.5,0.2",
            "CVE-1999-0001,NaN,0.2",
            "CVE-99-1,0.1,0.2",
        ] {
            assert!(parse_row(bad).is_err(), "{bad}");
        }
    }
}
