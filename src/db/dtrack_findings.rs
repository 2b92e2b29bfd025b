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
    v.updated_ms, v.refs, v.cwes, vc.v2_vector, vc.v2_score, vc.v4_vector, vc.v4_score";
/// How many columns [`VULN_COLS`] lists.
const VULN_COLUMNS: usize = 19;
/// The join [`VULN_COLS`] needs after `dt_vulnerabilities v`: CVSS v2 and v4, where imported.
const VULN_JOIN: &str = "LEFT JOIN dt_vulnerability_cvss vc ON vc.vulnerability_id = v.id";

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
        cvss_v2_vector: r.get(15)?,
        cvss_v2_score: r.get(16)?,
        cvss_v4_vector: r.get(17)?,
        cvss_v4_score: r.get(18)?,
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
        "SELECT {VULN_COLS} FROM dt_vulnerabilities v {VULN_JOIN} WHERE v.source = ?1 AND v.vuln_id = ?2"
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
        "SELECT {VULN_COLS} FROM dt_vulnerabilities v {VULN_JOIN} WHERE {filter}
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

/// A vulnerability by UUID, with its aliases.
pub fn vulnerability_by_uuid(c: &Connection, uuid: &str) -> Result<Option<Vulnerability>> {
    let sql = format!("SELECT {VULN_COLS} FROM dt_vulnerabilities v {VULN_JOIN} WHERE v.uuid = ?1");
    let found = c
        .prepare_cached(&sql)?
        .query_row([uuid], vuln_row)
        .optional()?;
    match found {
        Some(mut v) => {
            v.aliases = aliases(c, v.vulnerability_id())?;
            Ok(Some(v))
        }
        None => Ok(None),
    }
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
    // EPSS of the vulnerability's own CVE id, else of its first CVE alias.
    let epss = "LEFT JOIN dt_epss e ON e.cve_id = CASE WHEN v.vuln_id LIKE 'CVE-%'
             THEN v.vuln_id ELSE (SELECT min(x.alias) FROM dt_vulnerability_aliases x
                 WHERE x.vulnerability_id = v.id AND x.alias LIKE 'CVE-%') END";
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
             coalesce(a.suppressed, 0), a.details, e.score, e.percentile
         {from} {VULN_JOIN} {epss} WHERE {filter}
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
            details: r.get(own + 4)?,
            epss: match (r.get(own + 5)?, r.get(own + 6)?) {
                (Some(s), Some(p)) => Some((s, p)),
                _ => None,
            },
        })
    })?;
    let mut found: Vec<Finding> = rows.collect::<rusqlite::Result<_>>()?;
    // Each vulnerability's aliases, read once however many components it affects.
    let mut seen: std::collections::HashMap<i64, Vec<String>> = std::collections::HashMap::new();
    for f in &mut found {
        let id = f.vulnerability.vulnerability_id();
        let list = match seen.entry(id.0) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(aliases(c, id)?),
        };
        f.vulnerability.aliases = list.clone();
    }
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

/// A project's findings counted for its metrics, per component, in two grouped queries:
/// (suppressed, and of the unsuppressed ones: total, audited, critical, high, medium, low
/// (with INFO), unassigned; `vulnerable_components` is 1 where there is any). Within one
/// component, a finding whose vulnerability is an alias of an earlier one's (by id) counts
/// once, as upstream's metrics skip aliases already seen. Components without findings are
/// not listed.
pub fn finding_counts(
    c: &Connection,
    project: ProjectId,
) -> Result<Vec<(ComponentId, FindingCounts)>> {
    let mut by: std::collections::BTreeMap<i64, FindingCounts> = Default::default();
    let mut st = c.prepare_cached(
        "SELECT cv.component_id, count(*) FROM dt_component_vulnerabilities cv
         JOIN dt_components c ON c.id = cv.component_id
         JOIN dt_analyses a ON a.component_id = cv.component_id
             AND a.vulnerability_id = cv.vulnerability_id
         WHERE c.project_id = ?1 AND a.suppressed = 1
         GROUP BY cv.component_id",
    )?;
    let rows = st.query_map([project.0], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
    })?;
    for row in rows {
        let (comp, n) = row?;
        by.entry(comp).or_default().suppressed = n;
    }
    let sql = "WITH f AS (
            SELECT cv.component_id AS comp, v.id AS vid, v.vuln_id AS vuln_id,
                coalesce(v.severity, 'UNASSIGNED') AS sev, coalesce(a.state, 'NOT_SET') AS state
            FROM dt_component_vulnerabilities cv
            JOIN dt_components c ON c.id = cv.component_id
            JOIN dt_vulnerabilities v ON v.id = cv.vulnerability_id
            LEFT JOIN dt_analyses a ON a.component_id = cv.component_id
                AND a.vulnerability_id = cv.vulnerability_id
            WHERE c.project_id = ?1 AND coalesce(a.suppressed, 0) = 0)
        SELECT comp, count(*), coalesce(sum(state NOT IN ('NOT_SET', 'IN_TRIAGE')), 0),
            coalesce(sum(sev = 'CRITICAL'), 0), coalesce(sum(sev = 'HIGH'), 0),
            coalesce(sum(sev = 'MEDIUM'), 0), coalesce(sum(sev IN ('LOW', 'INFO')), 0),
            coalesce(sum(sev NOT IN ('CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO')), 0)
        FROM f WHERE NOT EXISTS (
            SELECT 1 FROM f g WHERE g.comp = f.comp AND g.vid < f.vid AND (
                EXISTS (SELECT 1 FROM dt_vulnerability_aliases x
                        WHERE x.vulnerability_id = g.vid AND x.alias = f.vuln_id)
                OR EXISTS (SELECT 1 FROM dt_vulnerability_aliases x
                        WHERE x.vulnerability_id = f.vid AND x.alias = g.vuln_id)))
        GROUP BY comp";
    let mut st = c.prepare_cached(sql)?;
    let rows = st.query_map([project.0], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            [
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
            ],
        ))
    })?;
    for row in rows {
        let (comp, [total, audited, critical, high, medium, low, unassigned]) = row?;
        let n = by.entry(comp).or_default();
        n.total = total;
        n.audited = audited;
        n.vulnerable_components = i64::from(total > 0);
        (n.critical, n.high, n.medium, n.low, n.unassigned) =
            (critical, high, medium, low, unassigned);
    }
    Ok(by.into_iter().map(|(k, v)| (ComponentId(k), v)).collect())
}

/// What [`finding_counts`] counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FindingCounts {
    pub suppressed: i64,
    pub total: i64,
    pub audited: i64,
    pub vulnerable_components: i64,
    pub critical: i64,
    pub high: i64,
    pub medium: i64,
    pub low: i64,
    pub unassigned: i64,
}
