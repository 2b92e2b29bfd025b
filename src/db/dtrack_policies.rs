//! SQL of Dependency-Track policies, conditions, violations and violation analyses.
//!
//! Synchronous functions over a connection; no HTTP types.

use rusqlite::{Connection, OptionalExtension as _, Row, params};

use crate::db::dtrack_portfolio::{ComponentCols, component_at};
use crate::error::Result;
use crate::ids::{ProjectId, TeamId};
use crate::model::dtrack::{
    AnalysisComment, Component, Policy, PolicyCondition, PolicyViolation, ViolationAnalysis,
};

fn policy_row(r: &Row<'_>) -> rusqlite::Result<Policy> {
    Ok(Policy {
        id: r.get(0)?,
        uuid: r.get(1)?,
        name: r.get(2)?,
        operator: r.get(3)?,
        violation_state: r.get(4)?,
        include_children: r.get(5)?,
        only_latest_project_version: r.get(6)?,
        conditions: Vec::new(),
        projects: Vec::new(),
        tags: Vec::new(),
    })
}

const POLICY_COLS: &str =
    "id, uuid, name, operator, violation_state, include_children, only_latest_project_version";

fn conditions(c: &Connection, policy: i64) -> Result<Vec<PolicyCondition>> {
    let mut st = c.prepare_cached(
        "SELECT id, uuid, subject, operator, value FROM dt_policy_conditions
         WHERE policy_id = ?1 ORDER BY id",
    )?;
    let rows = st.query_map([policy], |r| {
        Ok(PolicyCondition {
            id: r.get(0)?,
            uuid: r.get(1)?,
            subject: r.get(2)?,
            operator: r.get(3)?,
            value: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every policy with its conditions, by name.
pub fn policies(c: &Connection) -> Result<Vec<Policy>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {POLICY_COLS} FROM dt_policies ORDER BY name, id"
    ))?;
    let rows = st.query_map([], policy_row)?;
    let mut out: Vec<Policy> = rows.collect::<rusqlite::Result<_>>()?;
    for p in &mut out {
        p.conditions = conditions(c, p.id)?;
    }
    Ok(out)
}

/// Reads a policy's scope: its projects (whole, by name and version) and tags.
pub fn load_scope(c: &Connection, p: &mut Policy) -> Result<()> {
    p.tags = super::dtrack_tags::policy_tags(c, p.id)?;
    p.projects = Vec::new();
    for id in super::dtrack_tags::policy_projects(c, p.id)? {
        if let Some(project) = super::dtrack_portfolio::project_by_id(c, id)? {
            p.projects.push(project);
        }
    }
    Ok(())
}

pub fn policy_by_uuid(c: &Connection, uuid: &str) -> Result<Option<Policy>> {
    let p = c
        .prepare_cached(&format!(
            "SELECT {POLICY_COLS} FROM dt_policies WHERE uuid = ?1"
        ))?
        .query_row([uuid], policy_row)
        .optional()?;
    match p {
        Some(mut p) => {
            p.conditions = conditions(c, p.id)?;
            Ok(Some(p))
        }
        None => Ok(None),
    }
}

pub fn policy_name_taken(c: &Connection, name: &str, except: i64) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT 1 FROM dt_policies WHERE name = ?1 AND id != ?2")?
            .exists(params![name, except])?,
    )
}

pub fn insert_policy(c: &Connection, p: &Policy) -> Result<i64> {
    c.execute(
        "INSERT INTO dt_policies (uuid, name, operator, violation_state, include_children,
             only_latest_project_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            p.uuid,
            p.name,
            p.operator,
            p.violation_state,
            p.include_children,
            p.only_latest_project_version
        ],
    )?;
    Ok(c.last_insert_rowid())
}

pub fn update_policy(c: &Connection, p: &Policy) -> Result<()> {
    c.execute(
        "UPDATE dt_policies SET name = ?2, operator = ?3, violation_state = ?4,
             include_children = ?5, only_latest_project_version = ?6 WHERE id = ?1",
        params![
            p.id,
            p.name,
            p.operator,
            p.violation_state,
            p.include_children,
            p.only_latest_project_version
        ],
    )?;
    Ok(())
}

pub fn delete_policy(c: &Connection, id: i64) -> Result<()> {
    c.execute("DELETE FROM dt_policies WHERE id = ?1", [id])?;
    Ok(())
}

pub fn insert_condition(c: &Connection, policy: i64, cond: &PolicyCondition) -> Result<i64> {
    c.execute(
        "INSERT INTO dt_policy_conditions (uuid, policy_id, subject, operator, value)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![cond.uuid, policy, cond.subject, cond.operator, cond.value],
    )?;
    Ok(c.last_insert_rowid())
}

/// A condition by uuid.
pub fn condition_by_uuid(c: &Connection, uuid: &str) -> Result<Option<PolicyCondition>> {
    Ok(c.prepare_cached(
        "SELECT id, uuid, subject, operator, value FROM dt_policy_conditions WHERE uuid = ?1",
    )?
    .query_row([uuid], |r| {
        Ok(PolicyCondition {
            id: r.get(0)?,
            uuid: r.get(1)?,
            subject: r.get(2)?,
            operator: r.get(3)?,
            value: r.get(4)?,
        })
    })
    .optional()?)
}

pub fn update_condition(c: &Connection, cond: &PolicyCondition) -> Result<()> {
    c.execute(
        "UPDATE dt_policy_conditions SET subject = ?2, operator = ?3, value = ?4 WHERE id = ?1",
        params![cond.id, cond.subject, cond.operator, cond.value],
    )?;
    Ok(())
}

pub fn delete_condition(c: &Connection, id: i64) -> Result<()> {
    c.execute("DELETE FROM dt_policy_conditions WHERE id = ?1", [id])?;
    Ok(())
}

/// The (component, condition) pairs currently violated in a project.
pub fn violation_keys(c: &Connection, project: ProjectId) -> Result<Vec<(i64, i64)>> {
    let mut st = c.prepare_cached(
        "SELECT component_id, condition_id FROM dt_policy_violations WHERE project_id = ?1",
    )?;
    let rows = st.query_map([project.0], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn insert_violation(
    c: &Connection,
    uuid: &str,
    kind: &str,
    project: ProjectId,
    component: i64,
    condition: i64,
    now_ms: i64,
) -> Result<()> {
    c.execute(
        "INSERT OR IGNORE INTO dt_policy_violations
             (uuid, type, project_id, component_id, condition_id, timestamp_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![uuid, kind, project.0, component, condition, now_ms],
    )?;
    Ok(())
}

pub fn delete_violation(c: &Connection, component: i64, condition: i64) -> Result<()> {
    c.execute(
        "DELETE FROM dt_policy_violations WHERE component_id = ?1 AND condition_id = ?2",
        params![component, condition],
    )?;
    Ok(())
}

/// Unsuppressed violations of a project by the owning policy's state: (fail, warn, info).
pub fn violation_counts(c: &Connection, project: ProjectId) -> Result<(i64, i64, i64)> {
    let mut st = c.prepare_cached(
        "SELECT p.violation_state, count(*) FROM dt_policy_violations v
         JOIN dt_policy_conditions pc ON pc.id = v.condition_id
         JOIN dt_policies p ON p.id = pc.policy_id
         LEFT JOIN dt_violation_analyses a ON a.violation_id = v.id
         WHERE v.project_id = ?1 AND coalesce(a.suppressed, 0) = 0
         GROUP BY p.violation_state",
    )?;
    let rows = st.query_map([project.0], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
    })?;
    let mut out = (0, 0, 0);
    for row in rows {
        let (state, n) = row?;
        match state.as_str() {
            "FAIL" => out.0 += n,
            "WARN" => out.1 += n,
            _ => out.2 += n,
        }
    }
    Ok(out)
}

fn violation_analysis(c: &Connection, violation: i64) -> Result<Option<(i64, ViolationAnalysis)>> {
    let head = c
        .prepare_cached(
            "SELECT id, state, suppressed FROM dt_violation_analyses WHERE violation_id = ?1",
        )?
        .query_row([violation], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                ViolationAnalysis {
                    state: r.get(1)?,
                    suppressed: r.get(2)?,
                    comments: Vec::new(),
                },
            ))
        })
        .optional()?;
    let Some((id, mut a)) = head else {
        return Ok(None);
    };
    let mut st = c.prepare_cached(
        "SELECT timestamp_ms, comment, commenter FROM dt_violation_analysis_comments
         WHERE analysis_id = ?1 ORDER BY timestamp_ms, id",
    )?;
    let rows = st.query_map([id], |r| {
        Ok(AnalysisComment {
            timestamp_ms: r.get(0)?,
            comment: r.get(1)?,
            commenter: r.get(2)?,
        })
    })?;
    a.comments = rows.collect::<rusqlite::Result<_>>()?;
    Ok(Some((id, a)))
}

/// The policy violations query up to its `WHERE`: the violation's columns, its condition's,
/// its policy's, then the component's (read by [`component_at`]).
fn violation_sql() -> String {
    format!(
        "SELECT v.id, v.uuid, v.type, v.timestamp_ms,
        pc.id, pc.uuid, pc.subject, pc.operator, pc.value,
        p.id, p.uuid, p.name, p.operator, p.violation_state, p.include_children,
        p.only_latest_project_version,
        (NOT EXISTS (SELECT 1 FROM dt_policy_projects WHERE policy_id = p.id)
         AND NOT EXISTS (SELECT 1 FROM dt_policy_tags WHERE policy_id = p.id)),
        {}
    FROM dt_policy_violations v
    JOIN dt_policy_conditions pc ON pc.id = v.condition_id
    JOIN dt_policies p ON p.id = pc.policy_id
    JOIN dt_components c ON c.id = v.component_id
    JOIN dt_projects pr ON pr.id = v.project_id",
        ComponentCols::Brief.select("c", "pr")
    )
}

fn violation_row(r: &Row<'_>) -> rusqlite::Result<PolicyViolation> {
    Ok(PolicyViolation {
        id: r.get(0)?,
        uuid: r.get(1)?,
        kind: r.get(2)?,
        timestamp_ms: r.get(3)?,
        condition: PolicyCondition {
            id: r.get(4)?,
            uuid: r.get(5)?,
            subject: r.get(6)?,
            operator: r.get(7)?,
            value: r.get(8)?,
        },
        policy: Policy {
            id: r.get(9)?,
            uuid: r.get(10)?,
            name: r.get(11)?,
            operator: r.get(12)?,
            violation_state: r.get(13)?,
            include_children: r.get(14)?,
            only_latest_project_version: r.get(15)?,
            conditions: Vec::new(),
            projects: Vec::new(),
            tags: Vec::new(),
        },
        policy_global: r.get(16)?,
        component: component_at(r, 17, ComponentCols::Brief)?,
        analysis: None,
    })
}

/// A project's violations (suppressed ones only if asked), oldest first, with the total.
pub fn violations(
    c: &Connection,
    project: ProjectId,
    suppressed: bool,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<PolicyViolation>, i64)> {
    violations_in(
        c,
        &ViolationScope::Project(project),
        suppressed,
        offset,
        limit,
    )
}

/// Whose violations a listing reads.
#[derive(Clone, Debug, PartialEq)]
pub enum ViolationScope {
    Project(ProjectId),
    Component(i64),
    /// The portfolio: projects the teams are mapped to (`None` = every project), active
    /// ones only unless `inactive`.
    Portfolio {
        teams: Option<Vec<TeamId>>,
        inactive: bool,
    },
}

/// A page of violations in a scope (oldest first), suppressed ones only when asked, and the
/// total.
pub fn violations_in(
    c: &Connection,
    scope: &ViolationScope,
    suppressed: bool,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<PolicyViolation>, i64)> {
    let (cond, key) = match scope {
        ViolationScope::Project(p) => ("v.project_id = ?1".to_string(), p.0),
        ViolationScope::Component(id) => ("v.component_id = ?1".to_string(), *id),
        ViolationScope::Portfolio { teams, inactive } => {
            let mut cond = String::from("?1 = ?1");
            if !inactive {
                cond.push_str(
                    " AND EXISTS (SELECT 1 FROM dt_projects ap WHERE ap.id = v.project_id AND ap.active = 1)",
                );
            }
            if let Some(teams) = teams {
                cond.push_str(" AND ");
                cond.push_str(&crate::db::dtrack_portfolio::mapped_to_teams(
                    "v.project_id",
                    teams,
                ));
            }
            (cond, 0)
        }
    };
    let filter = format!(
        "{cond} AND (?2 OR NOT EXISTS (SELECT 1 FROM dt_violation_analyses a
                  WHERE a.violation_id = v.id AND a.suppressed = 1))"
    );
    let total: i64 = c.query_row(
        &format!("SELECT count(*) FROM dt_policy_violations v WHERE {filter}"),
        params![key, suppressed],
        |r| r.get(0),
    )?;
    let sql = format!(
        "{} WHERE {filter} ORDER BY v.timestamp_ms, v.id LIMIT ?3 OFFSET ?4",
        violation_sql()
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(
        params![key, suppressed, limit.unwrap_or(-1), offset.max(0)],
        violation_row,
    )?;
    let mut out: Vec<PolicyViolation> = rows.collect::<rusqlite::Result<_>>()?;
    for v in &mut out {
        v.analysis = violation_analysis(c, v.id)?.map(|(_, a)| a);
    }
    Ok((out, total))
}

/// A violation by uuid with its component id.
pub fn violation_by_uuid(c: &Connection, uuid: &str) -> Result<Option<PolicyViolation>> {
    let sql = format!("{} WHERE v.uuid = ?1", violation_sql());
    Ok(c.prepare_cached(&sql)?
        .query_row([uuid], violation_row)
        .optional()?)
}

/// The analysis of a violation (id and record), if any.
pub fn analysis_of(c: &Connection, violation: i64) -> Result<Option<(i64, ViolationAnalysis)>> {
    violation_analysis(c, violation)
}

pub fn insert_violation_analysis(c: &Connection, violation: i64) -> Result<i64> {
    c.execute(
        "INSERT INTO dt_violation_analyses (violation_id, state, suppressed)
         VALUES (?1, 'NOT_SET', 0)",
        [violation],
    )?;
    Ok(c.last_insert_rowid())
}

pub fn update_violation_analysis(
    c: &Connection,
    id: i64,
    state: &str,
    suppressed: bool,
) -> Result<()> {
    c.execute(
        "UPDATE dt_violation_analyses SET state = ?2, suppressed = ?3 WHERE id = ?1",
        params![id, state, suppressed],
    )?;
    Ok(())
}

pub fn insert_violation_comment(
    c: &Connection,
    analysis: i64,
    now_ms: i64,
    comment: &str,
    commenter: Option<&str>,
) -> Result<()> {
    c.execute(
        "INSERT INTO dt_violation_analysis_comments (analysis_id, timestamp_ms, comment, commenter)
         VALUES (?1, ?2, ?3, ?4)",
        params![analysis, now_ms, comment, commenter],
    )?;
    Ok(())
}

/// Ids of every project (for re-evaluation after policy changes).
pub fn project_ids(c: &Connection) -> Result<Vec<ProjectId>> {
    let mut st = c.prepare_cached("SELECT id FROM dt_projects ORDER BY id")?;
    let rows = st.query_map([], |r| r.get(0).map(ProjectId))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A component with its unsuppressed vulnerabilities as (vulnId, severity).
pub type EvalInput = (Component, Vec<(String, String)>);

/// A project's components with their unsuppressed vulnerabilities.
pub fn components_for_evaluation(c: &Connection, project: ProjectId) -> Result<Vec<EvalInput>> {
    let (components, _) = super::dtrack_portfolio::components(c, project, 0, None)?;
    let mut st = c.prepare_cached(
        "SELECT v.vuln_id, coalesce(v.severity, 'UNASSIGNED') FROM dt_component_vulnerabilities cv
         JOIN dt_vulnerabilities v ON v.id = cv.vulnerability_id
         LEFT JOIN dt_analyses a ON a.component_id = cv.component_id AND a.vulnerability_id = v.id
         WHERE cv.component_id = ?1 AND coalesce(a.suppressed, 0) = 0",
    )?;
    let mut out = Vec::with_capacity(components.len());
    for comp in components {
        let vulns = st
            .query_map([comp.id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        out.push((comp, vulns));
    }
    Ok(out)
}
