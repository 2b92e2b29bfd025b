//! SQL of NVD data imported offline: the imported CVE records with their `lastModified`
//! stamps, the vulnerable CPEs of their configurations (looked up by part, vendor and
//! product), and the CPE each component is matched as.
//!
//! Synchronous functions over a connection; no HTTP types and no matching rules.

use rusqlite::{Connection, OptionalExtension as _, params};

use super::dtrack_osv::{SUBJECT_COLS, SUBJECT_JOIN, Subject, subject_at};
use crate::error::Result;
use crate::ids::{ComponentId, ProjectId, VulnerabilityId};

/// One vulnerable CPE of a record: part, the ten other attributes (canonical, lowercased),
/// and the bounds `versionStartIncluding`, `versionStartExcluding`, `versionEndIncluding`,
/// `versionEndExcluding`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CpeRow {
    pub part: String,
    pub attrs: [String; 10],
    pub bounds: [Option<String>; 4],
}

const CPE_COLS: &str = "part, vendor, product, version, upd, edition, language, sw_edition,
     target_sw, target_hw, other, version_start_including, version_start_excluding,
     version_end_including, version_end_excluding";

fn cpe_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<CpeRow> {
    let mut attrs: [String; 10] = Default::default();
    for (i, a) in attrs.iter_mut().enumerate() {
        *a = r.get(at + 1 + i)?;
    }
    Ok(CpeRow {
        part: r.get(at)?,
        attrs,
        bounds: [
            r.get(at + 11)?,
            r.get(at + 12)?,
            r.get(at + 13)?,
            r.get(at + 14)?,
        ],
    })
}

/// The vulnerability and `lastModified` (epoch ms) of an imported CVE record.
pub fn record(c: &Connection, cve_id: &str) -> Result<Option<(VulnerabilityId, i64)>> {
    Ok(c.prepare_cached(
        "SELECT vulnerability_id, last_modified_ms FROM dt_nvd_records WHERE cve_id = ?1",
    )?
    .query_row([cve_id], |r| Ok((VulnerabilityId(r.get(0)?), r.get(1)?)))
    .optional()?)
}

pub fn upsert_record(
    c: &Connection,
    vuln: VulnerabilityId,
    cve_id: &str,
    last_modified_ms: i64,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO dt_nvd_records (vulnerability_id, cve_id, last_modified_ms)
         VALUES (?1, ?2, ?3)
         ON CONFLICT (vulnerability_id) DO UPDATE SET cve_id = excluded.cve_id,
             last_modified_ms = excluded.last_modified_ms",
    )?
    .execute(params![vuln.0, cve_id, last_modified_ms])?;
    Ok(())
}

/// The (part, vendor, product) keys of a record's CPEs.
pub fn cpe_keys_of(c: &Connection, vuln: VulnerabilityId) -> Result<Vec<(String, String, String)>> {
    let mut st = c.prepare_cached(
        "SELECT DISTINCT part, vendor, product FROM dt_nvd_cpes WHERE vulnerability_id = ?1",
    )?;
    let rows = st.query_map([vuln.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Replaces the vulnerable CPEs of a record.
pub fn replace_cpes(c: &Connection, vuln: VulnerabilityId, rows: &[CpeRow]) -> Result<()> {
    c.prepare_cached("DELETE FROM dt_nvd_cpes WHERE vulnerability_id = ?1")?
        .execute([vuln.0])?;
    let mut st = c.prepare_cached(&format!(
        "INSERT INTO dt_nvd_cpes (vulnerability_id, {CPE_COLS})
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
    ))?;
    for row in rows {
        let a = &row.attrs;
        let b = &row.bounds;
        st.execute(params![
            vuln.0, row.part, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], b[0],
            b[1], b[2], b[3]
        ])?;
    }
    Ok(())
}

/// How one of part, vendor, product is looked up for a component's value: any stored value
/// for ANY (`*`), else the value itself or a stored `*` (NA, `-`, is a value here too). Every
/// parameter is named in the text, so all three are bound.
fn key_condition(column: &str, value: &str, param: usize) -> String {
    if value == "*" {
        format!(" AND ?{param} = '*'")
    } else {
        format!(" AND {column} IN ('*', ?{param})")
    }
}

/// The candidate CPEs for a component's (part, vendor, product): rows whose value equals the
/// component's or is ANY, every row where the component's value is ANY. Wildcards inside
/// stored values are not looked up (as upstream).
pub fn candidates(
    c: &Connection,
    part: &str,
    vendor: &str,
    product: &str,
) -> Result<Vec<(VulnerabilityId, CpeRow)>> {
    let sql = format!(
        "SELECT vulnerability_id, {CPE_COLS} FROM dt_nvd_cpes WHERE 1 = 1{}{}{}
         ORDER BY vulnerability_id, id",
        key_condition("part", part, 1),
        key_condition("vendor", vendor, 2),
        key_condition("product", product, 3)
    );
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map(params![part, vendor, product], |r| {
        Ok((VulnerabilityId(r.get(0)?), cpe_at(r, 1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Records (or clears) the (part, vendor, product) a component is matched as.
pub fn set_component_cpe(
    c: &Connection,
    comp: ComponentId,
    key: Option<(&str, &str, &str)>,
) -> Result<()> {
    match key {
        Some((part, vendor, product)) => c
            .prepare_cached(
                "INSERT INTO dt_component_cpes (component_id, part, vendor, product)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (component_id) DO UPDATE SET part = excluded.part,
                     vendor = excluded.vendor, product = excluded.product",
            )?
            .execute(params![comp.0, part, vendor, product])?,
        None => c
            .prepare_cached("DELETE FROM dt_component_cpes WHERE component_id = ?1")?
            .execute([comp.0])?,
    };
    Ok(())
}

/// The components a record's (part, vendor, product) may match: those matched as the same
/// values, where either side is ANY (`*`) for an attribute; with their project and what they
/// are matched by.
pub fn components_of_cpe(
    c: &Connection,
    part: &str,
    vendor: &str,
    product: &str,
) -> Result<Vec<(ComponentId, ProjectId, Subject)>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT c.id, c.project_id, {SUBJECT_COLS} FROM dt_component_cpes k
         JOIN dt_components c ON c.id = k.component_id {SUBJECT_JOIN}
         WHERE 1 = 1{}{}{} ORDER BY c.id",
        key_condition("k.part", part, 1),
        key_condition("k.vendor", vendor, 2),
        key_condition("k.product", product, 3)
    ))?;
    let rows = st.query_map(params![part, vendor, product], |r| {
        Ok((
            ComponentId(r.get(0)?),
            ProjectId(r.get(1)?),
            subject_at(r, 2)?,
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Components with a CPE never keyed yet (created before NVD matching existed), with their
/// project and what they are matched by, at most `limit`.
pub fn unkeyed_components(
    c: &Connection,
    limit: i64,
) -> Result<Vec<(ComponentId, ProjectId, Subject)>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT c.id, c.project_id, {SUBJECT_COLS} FROM dt_components c {SUBJECT_JOIN}
         WHERE c.cpe IS NOT NULL AND c.cpe != ''
           AND NOT EXISTS (SELECT 1 FROM dt_component_cpes k WHERE k.component_id = c.id)
         ORDER BY c.id LIMIT ?1"
    ))?;
    let rows = st.query_map([limit], |r| {
        Ok((
            ComponentId(r.get(0)?),
            ProjectId(r.get(1)?),
            subject_at(r, 2)?,
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether any vulnerable CPE is stored (NVD data has been imported).
pub fn has_cpes(c: &Connection) -> Result<bool> {
    Ok(c.prepare_cached("SELECT 1 FROM dt_nvd_cpes LIMIT 1")?
        .exists([])?)
}

/// Number of NVD records imported.
pub fn record_count(c: &Connection) -> Result<i64> {
    Ok(c.query_row("SELECT count(*) FROM dt_nvd_records", [], |r| r.get(0))?)
}
