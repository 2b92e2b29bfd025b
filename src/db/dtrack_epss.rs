//! SQL of EPSS scores (`dt_epss`, by CVE id) and the file last imported whole
//! (`dt_epss_import`). Synchronous functions over a connection; no HTTP types and no parsing.

use rusqlite::{Connection, OptionalExtension as _, params};

use crate::error::Result;

/// The (model version, score date) of the EPSS file last imported whole.
pub fn last_import(c: &Connection) -> Result<Option<(String, String)>> {
    Ok(
        c.prepare_cached("SELECT model_version, score_date FROM dt_epss_import WHERE id = 1")?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?,
    )
}

/// Stores rows of one file: (CVE id, score, percentile), all dated `score_date`. Returns how
/// many rows were new or changed their score or percentile.
pub fn upsert(c: &Connection, score_date: &str, rows: &[(String, f64, f64)]) -> Result<usize> {
    let mut st = c.prepare_cached(
        "INSERT INTO dt_epss (cve_id, score, percentile, score_date) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (cve_id) DO UPDATE SET score = excluded.score,
             percentile = excluded.percentile, score_date = excluded.score_date
         WHERE score <> excluded.score OR percentile <> excluded.percentile
             OR score_date <> excluded.score_date",
    )?;
    let mut before =
        c.prepare_cached("SELECT score = ?2 AND percentile = ?3 FROM dt_epss WHERE cve_id = ?1")?;
    let mut changed = 0;
    for (cve, score, percentile) in rows {
        let same: Option<bool> = before
            .query_row(params![cve, score, percentile], |r| r.get(0))
            .optional()?;
        if same != Some(true) {
            changed += 1;
        }
        st.execute(params![cve, score, percentile, score_date])?;
    }
    Ok(changed)
}

/// Ends an import of the file dated `score_date`: drops the rows it did not list and records it.
/// Returns how many rows were dropped.
pub fn finish(c: &Connection, model_version: &str, score_date: &str, now_ms: i64) -> Result<usize> {
    let dropped = c
        .prepare_cached("DELETE FROM dt_epss WHERE score_date <> ?1")?
        .execute([score_date])?;
    c.prepare_cached(
        "INSERT INTO dt_epss_import (id, model_version, score_date, imported_ms)
         VALUES (1, ?1, ?2, ?3)
         ON CONFLICT (id) DO UPDATE SET model_version = excluded.model_version,
             score_date = excluded.score_date, imported_ms = excluded.imported_ms",
    )?
    .execute(params![model_version, score_date, now_ms])?;
    Ok(dropped)
}
