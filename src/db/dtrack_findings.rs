//! SQL of Dependency-Track vulnerabilities, findings (component × vulnerability), analyses
//! with their audit trail, and project metrics snapshots.
//!
//! Synchronous functions over a connection; no HTTP types.

use rusqlite::{Connection, OptionalExtension as _, Row, params};

use crate::db::dtrack_portfolio::{ComponentCols, component_at};
use crate::error::Result;
use crate::ids::{AnalysisId, ComponentId, ProjectId, VulnerabilityId};
use crate::model::dtrack::{Analysis, AnalysisComment, Finding, ProjectMetrics, Vulnerability};

const VULN_COLS: &str = "v.id, v.uuid, v.vuln_id, v.source, v.severity, v.title, v.description,
    v.recommendation, v.cvss_v3_vector, v.created_ms, v.published_ms";
/// How many columns [`VULN_COLS`] lists.
const VULN_COLUMNS: usize = 11;

fn vuln_row(r: &Row<'_>) -> rusqlite::Result<Vulnerability> {
    Ok(Vulnerability {
        id: r.get(0)?,
        uuid: r.get(1)?,
        vuln_id: r.get(2)?,
        source: r.get(3)?,
        severity: r.get(4)?,
        title: r.get(5)?,
        description: r.get(6)?,
        recommendation: r.get(7)?,
        cvss_v3_vector: r.get(8)?,
        created_ms: r.get(9)?,
        published_ms: r.get(10)?,
    })
}

pub fn insert_vulnerability(c: &Connection, v: &Vulnerability) -> Result<VulnerabilityId> {
    c.execute(
        "INSERT INTO dt_vulnerabilities (uuid, vuln_id, source, severity, title, description,
             recommendation, cvss_v3_vector, created_ms, published_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            v.uuid,
            v.vuln_id,
            v.source,
            v.severity,
            v.title,
            v.description,
            v.recommendation,
            v.cvss_v3_vector,
            v.created_ms,
            v.published_ms
        ],
    )?;
    Ok(VulnerabilityId(c.last_insert_rowid()))
}

pub fn vulnerability_by_uuid(c: &Connection, uuid: &str) -> Result<Option<Vulnerability>> {
    let sql = format!("SELECT {VULN_COLS} FROM dt_vulnerabilities v WHERE v.uuid = ?1");
    Ok(c.prepare_cached(&sql)?
        .query_row([uuid], vuln_row)
        .optional()?)
}

pub fn vulnerability_exists(c: &Connection, source: &str, vuln_id: &str) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT 1 FROM dt_vulnerabilities WHERE source = ?1 AND vuln_id = ?2")?
            .exists(params![source, vuln_id])?,
    )
}

/// Attributes a vulnerability to a component (no-op if already attributed).
pub fn assign(c: &Connection, comp: ComponentId, vuln: VulnerabilityId, now_ms: i64) -> Result<()> {
    c.execute(
        "INSERT OR IGNORE INTO dt_component_vulnerabilities
             (component_id, vulnerability_id, attributed_on_ms) VALUES (?1, ?2, ?3)",
        params![comp.0, vuln.0, now_ms],
    )?;
    Ok(())
}

pub fn unassign(c: &Connection, comp: ComponentId, vuln: VulnerabilityId) -> Result<()> {
    c.execute(
        "DELETE FROM dt_component_vulnerabilities WHERE component_id = ?1 AND vulnerability_id = ?2",
        params![comp.0, vuln.0],
    )?;
    Ok(())
}

/// The findings of a project, optionally with suppressed ones, ordered as upstream (by
/// component name, then vulnerability id).
pub fn findings(c: &Connection, project: ProjectId, suppressed: bool) -> Result<Vec<Finding>> {
    let sql = format!(
        "SELECT {VULN_COLS}, {}, cv.attributed_on_ms, a.state, coalesce(a.suppressed, 0)
         FROM dt_component_vulnerabilities cv
         JOIN dt_components c ON c.id = cv.component_id
         JOIN dt_projects p ON p.id = c.project_id
         JOIN dt_vulnerabilities v ON v.id = cv.vulnerability_id
         LEFT JOIN dt_analyses a ON a.component_id = c.id AND a.vulnerability_id = v.id
         WHERE c.project_id = ?1 AND (?2 OR coalesce(a.suppressed, 0) = 0)
         ORDER BY c.name, c.version, v.vuln_id, c.id",
        ComponentCols::Full.select("c", "p")
    );
    // The vulnerability's columns, the component's, then the finding's own.
    let at = VULN_COLUMNS;
    let own = at + ComponentCols::Full.count();
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map(params![project.0, suppressed], |r| {
        Ok(Finding {
            vulnerability: vuln_row(r)?,
            component: component_at(r, at, ComponentCols::Full)?,
            attributed_on_ms: r.get(own)?,
            state: r.get(own + 1)?,
            suppressed: r.get(own + 2)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn analysis_id(
    c: &Connection,
    comp: ComponentId,
    vuln: VulnerabilityId,
) -> Result<Option<AnalysisId>> {
    Ok(c.prepare_cached(
        "SELECT id FROM dt_analyses WHERE component_id = ?1 AND vulnerability_id = ?2",
    )?
    .query_row(params![comp.0, vuln.0], |r| r.get(0).map(AnalysisId))
    .optional()?)
}

pub fn analysis(c: &Connection, id: AnalysisId) -> Result<Option<Analysis>> {
    let head = c
        .prepare_cached(
            "SELECT state, justification, response, details, suppressed FROM dt_analyses
             WHERE id = ?1",
        )?
        .query_row([id.0], |r| {
            Ok(Analysis {
                state: r.get(0)?,
                justification: r.get(1)?,
                response: r.get(2)?,
                details: r.get(3)?,
                suppressed: r.get(4)?,
                comments: Vec::new(),
            })
        })
        .optional()?;
    let Some(mut a) = head else {
        return Ok(None);
    };
    let mut st = c.prepare_cached(
        "SELECT timestamp_ms, comment, commenter FROM dt_analysis_comments
         WHERE analysis_id = ?1 ORDER BY timestamp_ms, id",
    )?;
    let rows = st.query_map([id.0], |r| {
        Ok(AnalysisComment {
            timestamp_ms: r.get(0)?,
            comment: r.get(1)?,
            commenter: r.get(2)?,
        })
    })?;
    a.comments = rows.collect::<rusqlite::Result<_>>()?;
    Ok(Some(a))
}

pub fn insert_analysis(
    c: &Connection,
    project: ProjectId,
    comp: ComponentId,
    vuln: VulnerabilityId,
) -> Result<AnalysisId> {
    c.execute(
        "INSERT INTO dt_analyses (project_id, component_id, vulnerability_id, state,
             justification, response, suppressed)
         VALUES (?1, ?2, ?3, 'NOT_SET', 'NOT_SET', 'NOT_SET', 0)",
        params![project.0, comp.0, vuln.0],
    )?;
    Ok(AnalysisId(c.last_insert_rowid()))
}

pub fn update_analysis(c: &Connection, id: AnalysisId, a: &Analysis) -> Result<()> {
    c.execute(
        "UPDATE dt_analyses SET state = ?2, justification = ?3, response = ?4, details = ?5,
             suppressed = ?6 WHERE id = ?1",
        params![
            id.0,
            a.state,
            a.justification,
            a.response,
            a.details,
            a.suppressed
        ],
    )?;
    Ok(())
}

pub fn insert_comment(
    c: &Connection,
    id: AnalysisId,
    timestamp_ms: i64,
    comment: &str,
    commenter: &str,
) -> Result<()> {
    c.execute(
        "INSERT INTO dt_analysis_comments (analysis_id, timestamp_ms, comment, commenter)
         VALUES (?1, ?2, ?3, ?4)",
        params![id.0, timestamp_ms, comment, commenter],
    )?;
    Ok(())
}

const METRIC_COLS: &str = "first_occurrence_ms, last_occurrence_ms, components,
    vulnerable_components, vulnerabilities, critical, high, medium, low, unassigned, suppressed,
    findings_total, findings_audited, policy_violations_fail, policy_violations_warn,
    policy_violations_info";

/// The most recent metrics snapshot of a project.
pub fn latest_metrics(c: &Connection, project: ProjectId) -> Result<Option<ProjectMetrics>> {
    let sql = format!(
        "SELECT {METRIC_COLS} FROM dt_project_metrics WHERE project_id = ?1
         ORDER BY last_occurrence_ms DESC, id DESC LIMIT 1"
    );
    Ok(c.prepare_cached(&sql)?
        .query_row([project.0], |r| {
            Ok(ProjectMetrics {
                first_occurrence_ms: r.get(0)?,
                last_occurrence_ms: r.get(1)?,
                components: r.get(2)?,
                vulnerable_components: r.get(3)?,
                vulnerabilities: r.get(4)?,
                critical: r.get(5)?,
                high: r.get(6)?,
                medium: r.get(7)?,
                low: r.get(8)?,
                unassigned: r.get(9)?,
                suppressed: r.get(10)?,
                findings_total: r.get(11)?,
                findings_audited: r.get(12)?,
                policy_violations_fail: r.get(13)?,
                policy_violations_warn: r.get(14)?,
                policy_violations_info: r.get(15)?,
            })
        })
        .optional()?)
}

pub fn insert_metrics(c: &Connection, project: ProjectId, m: &ProjectMetrics) -> Result<()> {
    let sql = format!(
        "INSERT INTO dt_project_metrics (project_id, {METRIC_COLS})
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"
    );
    c.execute(
        &sql,
        params![
            project.0,
            m.first_occurrence_ms,
            m.last_occurrence_ms,
            m.components,
            m.vulnerable_components,
            m.vulnerabilities,
            m.critical,
            m.high,
            m.medium,
            m.low,
            m.unassigned,
            m.suppressed,
            m.findings_total,
            m.findings_audited,
            m.policy_violations_fail,
            m.policy_violations_warn,
            m.policy_violations_info
        ],
    )?;
    Ok(())
}

/// Number of components of a project.
pub fn component_count(c: &Connection, project: ProjectId) -> Result<i64> {
    Ok(c.query_row(
        "SELECT count(*) FROM dt_components WHERE project_id = ?1",
        [project.0],
        |r| r.get(0),
    )?)
}
