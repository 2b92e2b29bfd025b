//! SQL of Dependency-Track vulnerabilities, findings (component × vulnerability), analyses
//! with their audit trail.
//!
//! Synchronous functions over a connection; no HTTP types.

use rusqlite::{Connection, OptionalExtension as _, Row, params};

use crate::db::dtrack_portfolio::{ComponentCols, component_at};
use crate::error::Result;
use crate::ids::{AnalysisId, ComponentId, ProjectId, VulnerabilityId};
use crate::model::dtrack::{Analysis, AnalysisComment, Finding, Vulnerability};

const VULN_COLS: &str = "v.id, v.uuid, v.vuln_id, v.source, v.severity, v.title, v.description,
    v.recommendation, v.cvss_v3_vector, v.created_ms, v.published_ms, v.cvss_v3_score,
    v.updated_ms, v.refs, v.cwes";
/// How many columns [`VULN_COLS`] lists.
const VULN_COLUMNS: usize = 15;

/// CWE numbers stored comma-separated.
fn cwe_list(s: Option<String>) -> Vec<i64> {
    s.map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_default()
}

fn cwe_text(cwes: &[i64]) -> Option<String> {
    (!cwes.is_empty()).then(|| {
        cwes.iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    })
}

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
        cvss_v3_score: r.get(11)?,
        updated_ms: r.get(12)?,
        references: r.get(13)?,
        cwes: cwe_list(r.get(14)?),
        aliases: Vec::new(),
    })
}

pub fn insert_vulnerability(c: &Connection, v: &Vulnerability) -> Result<VulnerabilityId> {
    c.execute(
        "INSERT INTO dt_vulnerabilities (uuid, vuln_id, source, severity, title, description,
             recommendation, cvss_v3_vector, created_ms, published_ms, cvss_v3_score,
             updated_ms, refs, cwes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
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
            v.published_ms,
            v.cvss_v3_score,
            v.updated_ms,
            v.references,
            cwe_text(&v.cwes)
        ],
    )?;
    Ok(VulnerabilityId(c.last_insert_rowid()))
}

/// Rewrites an imported vulnerability's descriptive fields (its id, uuid and source stay).
pub fn update_vulnerability(c: &Connection, id: VulnerabilityId, v: &Vulnerability) -> Result<()> {
    c.execute(
        "UPDATE dt_vulnerabilities SET severity = ?2, title = ?3, description = ?4,
             recommendation = ?5, cvss_v3_vector = ?6, created_ms = ?7, published_ms = ?8,
             cvss_v3_score = ?9, updated_ms = ?10, refs = ?11, cwes = ?12
         WHERE id = ?1",
        params![
            id.0,
            v.severity,
            v.title,
            v.description,
            v.recommendation,
            v.cvss_v3_vector,
            v.created_ms,
            v.published_ms,
            v.cvss_v3_score,
            v.updated_ms,
            v.references,
            cwe_text(&v.cwes)
        ],
    )?;
    Ok(())
}

/// The id of a vulnerability by source and vulnerability id.
pub fn vulnerability_id_by_key(
    c: &Connection,
    source: &str,
    vuln_id: &str,
) -> Result<Option<VulnerabilityId>> {
    Ok(
        c.prepare_cached("SELECT id FROM dt_vulnerabilities WHERE source = ?1 AND vuln_id = ?2")?
            .query_row(params![source, vuln_id], |r| r.get(0).map(VulnerabilityId))
            .optional()?,
    )
}

/// A vulnerability by source and vulnerability id, with its aliases.
pub fn vulnerability_by_key(
    c: &Connection,
    source: &str,
    vuln_id: &str,
) -> Result<Option<Vulnerability>> {
    let sql = format!(
        "SELECT {VULN_COLS} FROM dt_vulnerabilities v WHERE v.source = ?1 AND v.vuln_id = ?2"
    );
    let found = c
        .prepare_cached(&sql)?
        .query_row(params![source, vuln_id], vuln_row)
        .optional()?;
    match found {
        Some(mut v) => {
            v.aliases = aliases(c, v.vulnerability_id())?;
            Ok(Some(v))
        }
        None => Ok(None),
    }
}

/// The aliases of a vulnerability, sorted.
pub fn aliases(c: &Connection, id: VulnerabilityId) -> Result<Vec<String>> {
    let mut st = c.prepare_cached(
        "SELECT alias FROM dt_vulnerability_aliases WHERE vulnerability_id = ?1 ORDER BY alias",
    )?;
    let rows = st.query_map([id.0], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Replaces the aliases of a vulnerability.
pub fn set_aliases(c: &Connection, id: VulnerabilityId, aliases: &[String]) -> Result<()> {
    c.prepare_cached("DELETE FROM dt_vulnerability_aliases WHERE vulnerability_id = ?1")?
        .execute([id.0])?;
    let mut st = c.prepare_cached(
        "INSERT OR IGNORE INTO dt_vulnerability_aliases (vulnerability_id, alias) VALUES (?1, ?2)",
    )?;
    for a in aliases {
        st.execute(params![id.0, a])?;
    }
    Ok(())
}

/// A page of vulnerabilities whose id, title or aliases contain `search` (case-insensitive),
/// ordered by vulnerability id, with the total.
pub fn vulnerabilities(
    c: &Connection,
    search: Option<&str>,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<Vulnerability>, i64)> {
    let pattern = search.map(|s| {
        format!(
            "%{}%",
            s.trim()
                .to_lowercase()
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        )
    });
    let filter = "(?1 IS NULL OR lower(v.vuln_id) LIKE ?1 ESCAPE '\\'
        OR lower(coalesce(v.title, '')) LIKE ?1 ESCAPE '\\'
        OR EXISTS (SELECT 1 FROM dt_vulnerability_aliases a WHERE a.vulnerability_id = v.id
                   AND lower(a.alias) LIKE ?1 ESCAPE '\\'))";
    let total: i64 = c
        .prepare_cached(&format!(
            "SELECT count(*) FROM dt_vulnerabilities v WHERE {filter}"
        ))?
        .query_row(params![pattern], |r| r.get(0))?;
    let sql = format!(
        "SELECT {VULN_COLS} FROM dt_vulnerabilities v WHERE {filter}
         ORDER BY v.vuln_id, v.source LIMIT ?2 OFFSET ?3"
    );
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map(params![pattern, limit.unwrap_or(-1), offset], vuln_row)?;
    let mut out: Vec<Vulnerability> = rows.collect::<rusqlite::Result<_>>()?;
    for v in &mut out {
        v.aliases = aliases(c, v.vulnerability_id())?;
    }
    Ok((out, total))
}

/// The projects with a component the vulnerability is attributed to, by id.
pub fn affected_projects(c: &Connection, vuln: VulnerabilityId) -> Result<Vec<ProjectId>> {
    let mut st = c.prepare_cached(
        "SELECT DISTINCT c.project_id FROM dt_component_vulnerabilities cv
         JOIN dt_components c ON c.id = cv.component_id
         WHERE cv.vulnerability_id = ?1 ORDER BY c.project_id",
    )?;
    let rows = st.query_map([vuln.0], |r| r.get(0).map(ProjectId))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
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

/// Which findings a listing shows.
#[derive(Clone, Debug, Default)]
pub struct FindingFilter {
    /// One project's findings; `None` = the whole portfolio.
    pub project: Option<ProjectId>,
    pub suppressed: bool,
    /// Only vulnerabilities of this source.
    pub source: Option<String>,
    /// Portfolio listing: include inactive projects.
    pub inactive: bool,
    /// Portfolio listing: only projects mapped to one of these teams (the ACL).
    pub teams: Option<Vec<i64>>,
    /// Comma-separated severities.
    pub severity: Option<String>,
    /// Comma-separated analysis states (`NOT_SET` for findings without an analysis).
    pub analysis_state: Option<String>,
    /// Case-insensitive text in the vulnerability id or title or the component name.
    pub text: Option<String>,
    pub offset: i64,
    pub limit: Option<i64>,
}

/// The findings a filter selects, optionally with suppressed ones, ordered as upstream (by
/// component name, then vulnerability id), and their total before paging.
pub fn findings_page(c: &Connection, f: &FindingFilter) -> Result<(Vec<Finding>, i64)> {
    let teams = f
        .teams
        .as_ref()
        .map(|t| t.iter().map(i64::to_string).collect::<Vec<_>>().join(","));
    let text = f.text.as_ref().map(|s| {
        format!(
            "%{}%",
            s.to_lowercase()
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        )
    });
    // One project's findings start from its components (the index); the portfolio's from all.
    let project_filter = if f.project.is_some() {
        "c.project_id = ?1"
    } else {
        "?1 IS NULL"
    };
    let filter = format!(
        "{project_filter} AND (?2 OR coalesce(a.suppressed, 0) = 0)
         AND (?3 IS NULL OR v.source = ?3) AND (?4 OR p.active = 1)
         AND (?5 IS NULL OR EXISTS (SELECT 1 FROM dt_project_access_teams t
              WHERE t.project_id = p.id AND instr(',' || ?5 || ',', ',' || t.team_id || ',') > 0))
         AND (?6 IS NULL OR instr(',' || ?6 || ',', ',' || coalesce(v.severity, 'UNASSIGNED') || ',') > 0)
         AND (?7 IS NULL OR instr(',' || ?7 || ',', ',' || coalesce(a.state, 'NOT_SET') || ',') > 0)
         AND (?8 IS NULL OR lower(v.vuln_id) LIKE ?8 ESCAPE '\\'
              OR lower(coalesce(v.title, '')) LIKE ?8 ESCAPE '\\'
              OR lower(c.name) LIKE ?8 ESCAPE '\\')"
    );
    let from = "FROM dt_component_vulnerabilities cv
         JOIN dt_components c ON c.id = cv.component_id
         JOIN dt_projects p ON p.id = c.project_id
         JOIN dt_vulnerabilities v ON v.id = cv.vulnerability_id
         LEFT JOIN dt_analyses a ON a.component_id = c.id AND a.vulnerability_id = v.id";
    let args = params![
        f.project.map(|p| p.0),
        f.suppressed,
        f.source,
        f.inactive,
        teams,
        f.severity,
        f.analysis_state,
        text,
        f.limit.unwrap_or(-1),
        f.offset
    ];
    let sql = format!(
        "SELECT {VULN_COLS}, {}, cv.attributed_on_ms, cv.analyzer, a.state,
             coalesce(a.suppressed, 0)
         {from} WHERE {filter}
         ORDER BY p.name, p.version, c.name, c.version, v.vuln_id, c.id, v.id
         LIMIT ?9 OFFSET ?10",
        ComponentCols::Full.select("c", "p")
    );
    // The vulnerability's columns, the component's, then the finding's own.
    let at = VULN_COLUMNS;
    let own = at + ComponentCols::Full.count();
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map(args, |r| {
        Ok(Finding {
            vulnerability: vuln_row(r)?,
            component: component_at(r, at, ComponentCols::Full)?,
            attributed_on_ms: r.get(own)?,
            analyzer: r.get(own + 1)?,
            state: r.get(own + 2)?,
            suppressed: r.get(own + 3)?,
        })
    })?;
    let found: Vec<Finding> = rows.collect::<rusqlite::Result<_>>()?;
    // Without paging the rows are the total.
    let total = if f.limit.is_none() && f.offset == 0 {
        found.len() as i64
    } else {
        c.prepare_cached(&format!("SELECT count(*) {from} WHERE {filter}"))?
            .query_row(&args[..8], |r| r.get(0))?
    };
    Ok((found, total))
}

/// The findings of a project, optionally with suppressed ones.
pub fn findings(c: &Connection, project: ProjectId, suppressed: bool) -> Result<Vec<Finding>> {
    let filter = FindingFilter {
        project: Some(project),
        suppressed,
        inactive: true,
        ..FindingFilter::default()
    };
    Ok(findings_page(c, &filter)?.0)
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

/// Number of components of a project.
pub fn component_count(c: &Connection, project: ProjectId) -> Result<i64> {
    Ok(c.query_row(
        "SELECT count(*) FROM dt_components WHERE project_id = ?1",
        [project.0],
        |r| r.get(0),
    )?)
}
