//! SQL of OSV vulnerability data and the internal analyzer: imported records with their CVSS
//! v2/v4 scores, the packages they affect, what each component is matched by (purl, version,
//! the source package a BOM named) and as, the analyzer's findings and undecidable matches,
//! and queued re-analysis requests.
//!
//! Synchronous functions over a connection; no HTTP types and no matching rules.

use rusqlite::{Connection, OptionalExtension as _, params};

use crate::error::Result;
use crate::ids::{ComponentId, ProjectId, VulnerabilityId};
use crate::model::dtrack::SourcePackage;

/// What a component is matched by: its purl, its own version (for a purl without one), the
/// source package its BOM named, and its CPE (matched against NVD data).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Subject {
    pub purl: Option<String>,
    pub version: Option<String>,
    pub source: Option<SourcePackage>,
    pub cpe: Option<String>,
}

/// Columns of a component (alias `c`) and its source (alias `s`) read by [`subject_at`].
pub(crate) const SUBJECT_COLS: &str = "c.purl, c.version, s.name, s.version, c.cpe";
pub(crate) const SUBJECT_JOIN: &str = "LEFT JOIN dt_component_sources s ON s.component_id = c.id";

pub(crate) fn subject_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Subject> {
    let name: Option<String> = r.get(at + 2)?;
    let source_version: Option<String> = r.get(at + 3)?;
    Ok(Subject {
        purl: r.get(at)?,
        version: r.get(at + 1)?,
        source: name.map(|name| SourcePackage {
            name,
            version: source_version,
        }),
        cpe: r.get(at + 4)?,
    })
}

/// Records (or clears) the source package a BOM names for a component.
pub fn set_component_source(
    c: &Connection,
    comp: ComponentId,
    source: Option<&SourcePackage>,
) -> Result<()> {
    match source {
        Some(s) => c
            .prepare_cached(
                "INSERT INTO dt_component_sources (component_id, name, version) VALUES (?1, ?2, ?3)
                 ON CONFLICT (component_id) DO UPDATE SET name = excluded.name,
                     version = excluded.version",
            )?
            .execute(params![comp.0, s.name, s.version])?,
        None => c
            .prepare_cached("DELETE FROM dt_component_sources WHERE component_id = ?1")?
            .execute([comp.0])?,
    };
    Ok(())
}

/// What one component is matched by.
pub fn component_subject(c: &Connection, comp: ComponentId) -> Result<Option<Subject>> {
    Ok(c.prepare_cached(&format!(
        "SELECT {SUBJECT_COLS} FROM dt_components c {SUBJECT_JOIN} WHERE c.id = ?1"
    ))?
    .query_row([comp.0], |r| subject_at(r, 0))
    .optional()?)
}

/// CVSS v2 and v4 (vector, score) of an imported record.
pub type OtherCvss = (Option<(String, f64)>, Option<(String, f64)>);

/// Records the CVSS v2 and v4 vectors and scores of a vulnerability (none: the row goes).
pub fn set_cvss(c: &Connection, vuln: VulnerabilityId, cvss: &OtherCvss) -> Result<()> {
    let (v2, v4) = cvss;
    if v2.is_none() && v4.is_none() {
        c.prepare_cached("DELETE FROM dt_vulnerability_cvss WHERE vulnerability_id = ?1")?
            .execute([vuln.0])?;
        return Ok(());
    }
    c.prepare_cached(
        "INSERT INTO dt_vulnerability_cvss (vulnerability_id, v2_vector, v2_score, v4_vector,
             v4_score) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (vulnerability_id) DO UPDATE SET v2_vector = excluded.v2_vector,
             v2_score = excluded.v2_score, v4_vector = excluded.v4_vector,
             v4_score = excluded.v4_score",
    )?
    .execute(params![
        vuln.0,
        v2.as_ref().map(|v| &v.0),
        v2.as_ref().map(|v| v.1),
        v4.as_ref().map(|v| &v.0),
        v4.as_ref().map(|v| v.1)
    ])?;
    Ok(())
}

/// The CVSS v2 and v4 vectors and scores stored for a vulnerability.
pub fn cvss(c: &Connection, vuln: VulnerabilityId) -> Result<OtherCvss> {
    let row = c
        .prepare_cached(
            "SELECT v2_vector, v2_score, v4_vector, v4_score FROM dt_vulnerability_cvss
             WHERE vulnerability_id = ?1",
        )?
        .query_row([vuln.0], |r| {
            let pair = |a: Option<String>, b: Option<f64>| a.zip(b);
            Ok((pair(r.get(0)?, r.get(1)?), pair(r.get(2)?, r.get(3)?)))
        })
        .optional()?;
    Ok(row.unwrap_or((None, None)))
}

/// The analyzer identity of findings made from OSV data.
pub const ANALYZER: &str = "INTERNAL_ANALYZER";

/// The vulnerability and `modified` stamp of an imported OSV record.
pub fn record(c: &Connection, osv_id: &str) -> Result<Option<(VulnerabilityId, String)>> {
    Ok(
        c.prepare_cached(
            "SELECT vulnerability_id, modified FROM dt_osv_records WHERE osv_id = ?1",
        )?
        .query_row([osv_id], |r| Ok((VulnerabilityId(r.get(0)?), r.get(1)?)))
        .optional()?,
    )
}

pub fn upsert_record(
    c: &Connection,
    vuln: VulnerabilityId,
    osv_id: &str,
    modified: &str,
    withdrawn: bool,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO dt_osv_records (vulnerability_id, osv_id, modified, withdrawn)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (vulnerability_id) DO UPDATE SET osv_id = excluded.osv_id,
             modified = excluded.modified, withdrawn = excluded.withdrawn",
    )?
    .execute(params![vuln.0, osv_id, modified, withdrawn])?;
    Ok(())
}

/// The (ecosystem, package) pairs a vulnerability affects.
pub fn affected_packages(c: &Connection, vuln: VulnerabilityId) -> Result<Vec<(String, String)>> {
    let mut st = c.prepare_cached(
        "SELECT DISTINCT ecosystem, package FROM dt_osv_affected WHERE vulnerability_id = ?1",
    )?;
    let rows = st.query_map([vuln.0], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Replaces what a vulnerability affects: (ecosystem, package, spec JSON) rows.
pub fn replace_affected(
    c: &Connection,
    vuln: VulnerabilityId,
    rows: &[(String, String, String)],
) -> Result<()> {
    c.prepare_cached("DELETE FROM dt_osv_affected WHERE vulnerability_id = ?1")?
        .execute([vuln.0])?;
    let mut st = c.prepare_cached(
        "INSERT INTO dt_osv_affected (vulnerability_id, ecosystem, package, spec)
         VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (eco, pkg, spec) in rows {
        st.execute(params![vuln.0, eco, pkg, spec])?;
    }
    Ok(())
}

/// The affected entries of one package: (vulnerability, spec JSON).
pub fn affected_of_package(
    c: &Connection,
    ecosystem: &str,
    package: &str,
) -> Result<Vec<(VulnerabilityId, String)>> {
    let mut st = c.prepare_cached(
        "SELECT vulnerability_id, spec FROM dt_osv_affected
         WHERE ecosystem = ?1 AND package = ?2 ORDER BY vulnerability_id, id",
    )?;
    let rows = st.query_map(params![ecosystem, package], |r| {
        Ok((VulnerabilityId(r.get(0)?), r.get(1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Records the package a component is matched as (`("", "")` when its purl names none).
pub fn set_component_package(
    c: &Connection,
    comp: ComponentId,
    ecosystem: &str,
    package: &str,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO dt_component_packages (component_id, ecosystem, package) VALUES (?1, ?2, ?3)
         ON CONFLICT (component_id) DO UPDATE SET ecosystem = excluded.ecosystem,
             package = excluded.package",
    )?
    .execute(params![comp.0, ecosystem, package])?;
    Ok(())
}

/// The components matched as a package: (component, its project, what it is matched by).
pub fn components_of_package(
    c: &Connection,
    ecosystem: &str,
    package: &str,
) -> Result<Vec<(ComponentId, ProjectId, Subject)>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT c.id, c.project_id, {SUBJECT_COLS} FROM dt_component_packages k
         JOIN dt_components c ON c.id = k.component_id {SUBJECT_JOIN}
         WHERE k.ecosystem = ?1 AND k.package = ?2 ORDER BY c.id"
    ))?;
    let rows = st.query_map(params![ecosystem, package], |r| {
        Ok((
            ComponentId(r.get(0)?),
            ProjectId(r.get(1)?),
            subject_at(r, 2)?,
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Components never matched yet (created before the analyzer existed, or matched under keys
/// an upgrade changed), with their project and what they are matched by, at most `limit`.
pub fn unmatched_components(
    c: &Connection,
    limit: i64,
) -> Result<Vec<(ComponentId, ProjectId, Subject)>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT c.id, c.project_id, {SUBJECT_COLS} FROM dt_components c {SUBJECT_JOIN}
         WHERE NOT EXISTS (SELECT 1 FROM dt_component_packages k WHERE k.component_id = c.id)
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

/// The components of a project with what they are matched by.
pub fn project_components(
    c: &Connection,
    project: ProjectId,
) -> Result<Vec<(ComponentId, Subject)>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT c.id, {SUBJECT_COLS} FROM dt_components c {SUBJECT_JOIN}
         WHERE c.project_id = ?1 ORDER BY c.id"
    ))?;
    let rows = st.query_map([project.0], |r| {
        Ok((ComponentId(r.get(0)?), subject_at(r, 1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The vulnerabilities the analyzer has attributed to a component.
pub fn analyzer_findings(c: &Connection, comp: ComponentId) -> Result<Vec<VulnerabilityId>> {
    let mut st = c.prepare_cached(
        "SELECT vulnerability_id FROM dt_component_vulnerabilities
         WHERE component_id = ?1 AND analyzer = ?2",
    )?;
    let rows = st.query_map(params![comp.0, ANALYZER], |r| r.get(0).map(VulnerabilityId))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Adds an analyzer finding (an existing attribution, by hand or not, is kept as it is).
pub fn add_finding(
    c: &Connection,
    comp: ComponentId,
    vuln: VulnerabilityId,
    now_ms: i64,
) -> Result<bool> {
    Ok(c.prepare_cached(
        "INSERT OR IGNORE INTO dt_component_vulnerabilities
             (component_id, vulnerability_id, attributed_on_ms, analyzer)
         VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![comp.0, vuln.0, now_ms, ANALYZER])?
        > 0)
}

/// Removes an analyzer finding (attributions by hand stay).
pub fn remove_finding(c: &Connection, comp: ComponentId, vuln: VulnerabilityId) -> Result<()> {
    c.prepare_cached(
        "DELETE FROM dt_component_vulnerabilities
         WHERE component_id = ?1 AND vulnerability_id = ?2 AND analyzer = ?3",
    )?
    .execute(params![comp.0, vuln.0, ANALYZER])?;
    Ok(())
}

/// Replaces a component's undecidable matches: (vulnerability, reason).
pub fn set_unknown(
    c: &Connection,
    comp: ComponentId,
    unknown: &[(VulnerabilityId, String)],
) -> Result<()> {
    c.prepare_cached("DELETE FROM dt_unknown_matches WHERE component_id = ?1")?
        .execute([comp.0])?;
    let mut st = c.prepare_cached(
        "INSERT OR REPLACE INTO dt_unknown_matches (component_id, vulnerability_id, reason)
         VALUES (?1, ?2, ?3)",
    )?;
    for (v, reason) in unknown {
        st.execute(params![comp.0, v.0, reason])?;
    }
    Ok(())
}

/// An undecidable match: project name and version, component name and version, purl,
/// vulnerability id, reason.
pub type UnknownMatch = (
    String,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    String,
    String,
);

/// Every undecidable match, by project, component and vulnerability.
pub fn unknown_matches(c: &Connection) -> Result<Vec<UnknownMatch>> {
    let mut st = c.prepare_cached(
        "SELECT p.name, p.version, c.name, c.version, c.purl, v.vuln_id, u.reason
         FROM dt_unknown_matches u
         JOIN dt_components c ON c.id = u.component_id
         JOIN dt_projects p ON p.id = c.project_id
         JOIN dt_vulnerabilities v ON v.id = u.vulnerability_id
         ORDER BY p.name, p.version, c.name, c.version, v.vuln_id",
    )?;
    let rows = st.query_map([], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
            r.get(6)?,
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Number of OSV records imported and of those withdrawn.
pub fn record_counts(c: &Connection) -> Result<(i64, i64)> {
    Ok(c.query_row(
        "SELECT count(*), coalesce(sum(withdrawn), 0) FROM dt_osv_records",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

pub fn insert_analysis_request(
    c: &Connection,
    token: &str,
    project: ProjectId,
    now_ms: i64,
) -> Result<()> {
    c.execute(
        "INSERT INTO dt_analysis_requests (token, project_id, received_ms) VALUES (?1, ?2, ?3)",
        params![token, project.0, now_ms],
    )?;
    Ok(())
}

/// The oldest pending analysis request.
pub fn next_analysis_request(c: &Connection) -> Result<Option<(String, ProjectId)>> {
    Ok(c.prepare_cached(
        "SELECT token, project_id FROM dt_analysis_requests WHERE processed_ms IS NULL
         ORDER BY received_ms, token LIMIT 1",
    )?
    .query_row([], |r| Ok((r.get(0)?, ProjectId(r.get(1)?))))
    .optional()?)
}

pub fn finish_analysis_request(c: &Connection, token: &str, now_ms: i64) -> Result<()> {
    c.execute(
        "UPDATE dt_analysis_requests SET processed_ms = ?2 WHERE token = ?1",
        params![token, now_ms],
    )?;
    Ok(())
}

pub fn analysis_request_pending(c: &Connection, token: &str) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT 1 FROM dt_analysis_requests WHERE token = ?1 AND processed_ms IS NULL",
    )?
    .exists([token])?)
}
