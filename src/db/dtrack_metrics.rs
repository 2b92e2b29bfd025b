//! SQL of Dependency-Track metrics: the history of project, component and portfolio
//! snapshots (a new row when a counter changes, else the latest row's last occurrence moves
//! on), the per-component counts a snapshot is made from, and the day buckets of the
//! vulnerability database's creation dates.
//!
//! Synchronous functions over a connection; no HTTP types, no calendar arithmetic (days are
//! counted as epoch-millisecond buckets; `time` names them).

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension as _, Row, ToSql, params_from_iter};

use crate::error::Result;
use crate::ids::{ComponentId, ProjectId};
use crate::model::dtrack::{PortfolioMetrics, ProjectMetrics};

/// The counters every metrics table stores, in this order.
const COLS: &str = "first_occurrence_ms, last_occurrence_ms, components,
    vulnerable_components, vulnerabilities, critical, high, medium, low, unassigned, suppressed,
    findings_total, findings_audited, policy_violations_fail, policy_violations_warn,
    policy_violations_info, policy_violations_audited, policy_violations_security_total,
    policy_violations_security_audited, policy_violations_license_total,
    policy_violations_license_audited, policy_violations_operational_total,
    policy_violations_operational_audited";
/// How many columns [`COLS`] lists.
const NCOLS: usize = 23;

/// Whose history a query reads or writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scope {
    Project(ProjectId),
    Component(ComponentId),
    Portfolio,
}

impl Scope {
    fn table(self) -> &'static str {
        match self {
            Scope::Project(_) => "dt_project_metrics",
            Scope::Component(_) => "dt_component_metrics",
            Scope::Portfolio => "dt_portfolio_metrics",
        }
    }

    /// The `WHERE` condition (with `?1` bound to [`Scope::key`]) selecting this scope's rows.
    fn cond(self) -> &'static str {
        match self {
            Scope::Project(_) => "project_id = ?1",
            Scope::Component(_) => "component_id = ?1",
            Scope::Portfolio => "?1 IS NULL",
        }
    }

    fn key(self) -> Option<i64> {
        match self {
            Scope::Project(p) => Some(p.0),
            Scope::Component(c) => Some(c.0),
            Scope::Portfolio => None,
        }
    }

    /// The extra leading columns a row has (the portfolio's project counts).
    fn extra(self) -> &'static str {
        match self {
            Scope::Portfolio => "projects, vulnerable_projects",
            _ => "0, 0",
        }
    }
}

fn metrics_at(r: &Row<'_>, at: usize) -> rusqlite::Result<ProjectMetrics> {
    let g = |i: usize| r.get::<_, i64>(at + i);
    Ok(ProjectMetrics {
        first_occurrence_ms: g(0)?,
        last_occurrence_ms: g(1)?,
        components: g(2)?,
        vulnerable_components: g(3)?,
        vulnerabilities: g(4)?,
        critical: g(5)?,
        high: g(6)?,
        medium: g(7)?,
        low: g(8)?,
        unassigned: g(9)?,
        suppressed: g(10)?,
        findings_total: g(11)?,
        findings_audited: g(12)?,
        policy_violations_fail: g(13)?,
        policy_violations_warn: g(14)?,
        policy_violations_info: g(15)?,
        policy_violations_audited: g(16)?,
        policy_violations_security_total: g(17)?,
        policy_violations_security_audited: g(18)?,
        policy_violations_license_total: g(19)?,
        policy_violations_license_audited: g(20)?,
        policy_violations_operational_total: g(21)?,
        policy_violations_operational_audited: g(22)?,
    })
}

fn values(m: &ProjectMetrics) -> [i64; NCOLS] {
    [
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
        m.policy_violations_info,
        m.policy_violations_audited,
        m.policy_violations_security_total,
        m.policy_violations_security_audited,
        m.policy_violations_license_total,
        m.policy_violations_license_audited,
        m.policy_violations_operational_total,
        m.policy_violations_operational_audited,
    ]
}

fn row(r: &Row<'_>) -> rusqlite::Result<(i64, PortfolioMetrics)> {
    Ok((
        r.get(0)?,
        PortfolioMetrics {
            projects: r.get(1)?,
            vulnerable_projects: r.get(2)?,
            m: metrics_at(r, 3)?,
        },
    ))
}

/// The latest row of a scope, with its row id.
fn latest_row(c: &Connection, scope: Scope) -> Result<Option<(i64, PortfolioMetrics)>> {
    let sql = format!(
        "SELECT id, {}, {COLS} FROM {} WHERE {} ORDER BY last_occurrence_ms DESC, id DESC LIMIT 1",
        scope.extra(),
        scope.table(),
        scope.cond()
    );
    Ok(c.prepare_cached(&sql)?
        .query_row([scope.key()], row)
        .optional()?)
}

/// The latest snapshot of a scope (the portfolio's project counts are 0 for other scopes).
pub fn latest(c: &Connection, scope: Scope) -> Result<Option<PortfolioMetrics>> {
    Ok(latest_row(c, scope)?.map(|(_, m)| m))
}

/// The latest snapshot of a project.
pub fn latest_metrics(c: &Connection, project: ProjectId) -> Result<Option<ProjectMetrics>> {
    Ok(latest(c, Scope::Project(project))?.map(|p| p.m))
}

/// The rows of a scope last seen at or after `since_ms`, oldest first; at most `limit` (the
/// most recent ones).
pub fn history(
    c: &Connection,
    scope: Scope,
    since_ms: i64,
    limit: usize,
) -> Result<Vec<PortfolioMetrics>> {
    let sql = format!(
        "SELECT * FROM (SELECT id, {}, {COLS} FROM {} WHERE {} AND last_occurrence_ms >= ?2
         ORDER BY last_occurrence_ms DESC, id DESC LIMIT ?3) ORDER BY last_occurrence_ms, id",
        scope.extra(),
        scope.table(),
        scope.cond()
    );
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map(
        rusqlite::params![scope.key(), since_ms, limit as i64],
        |r| row(r).map(|(_, m)| m),
    )?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn insert(c: &Connection, scope: Scope, p: &PortfolioMetrics) -> Result<()> {
    let (key_col, key) = match scope {
        Scope::Project(id) => ("project_id", id.0),
        Scope::Component(id) => ("component_id", id.0),
        Scope::Portfolio => ("projects, vulnerable_projects", p.projects),
    };
    let mut args: Vec<i64> = vec![key];
    if scope == Scope::Portfolio {
        args.push(p.vulnerable_projects);
    }
    args.extend(values(&p.m));
    let marks = (1..=args.len())
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "INSERT INTO {} ({key_col}, {COLS}) VALUES ({marks})",
        scope.table()
    );
    c.prepare_cached(&sql)?
        .execute(params_from_iter(args.iter().map(|v| v as &dyn ToSql)))?;
    Ok(())
}

fn touch(c: &Connection, scope: Scope, id: i64, now: i64) -> Result<()> {
    let sql = format!(
        "UPDATE {} SET last_occurrence_ms = ?1 WHERE id = ?2",
        scope.table()
    );
    c.prepare_cached(&sql)?.execute([now, id])?;
    Ok(())
}

/// Records a snapshot as upstream keeps history: when every counter equals the latest row's,
/// that row's last occurrence becomes `p.m.last_occurrence_ms`; otherwise a new row is added.
pub fn record(c: &Connection, scope: Scope, p: &PortfolioMetrics) -> Result<()> {
    match latest_row(c, scope)? {
        Some((id, old))
            if old.projects == p.projects
                && old.vulnerable_projects == p.vulnerable_projects
                && old.m.same_counts(&p.m) =>
        {
            touch(c, scope, id, p.m.last_occurrence_ms)
        }
        _ => insert(c, scope, p),
    }
}

/// Records the snapshots of a project's components (`now` their time), in one pass over the
/// latest rows: an unchanged component's row is touched, a changed one gets a new row.
pub fn record_components(
    c: &Connection,
    snapshots: &[(ComponentId, ProjectMetrics)],
    project: ProjectId,
    now: i64,
) -> Result<()> {
    let sql = format!(
        "SELECT m.id, m.component_id, {COLS} FROM dt_component_metrics m
         JOIN (SELECT x.component_id, max(x.id) AS id FROM dt_component_metrics x
               JOIN dt_components k ON k.id = x.component_id
               WHERE k.project_id = ?1 GROUP BY x.component_id) l ON l.id = m.id"
    );
    let mut latest: HashMap<ComponentId, (i64, ProjectMetrics)> = HashMap::new();
    {
        let mut st = c.prepare_cached(&sql)?;
        let rows = st.query_map([project.0], |r| {
            Ok((
                ComponentId(r.get(1)?),
                (r.get::<_, i64>(0)?, metrics_at(r, 2)?),
            ))
        })?;
        for r in rows {
            let (k, v) = r?;
            latest.insert(k, v);
        }
    }
    for (id, m) in snapshots {
        match latest.get(id) {
            Some((row_id, old)) if old.same_counts(m) => {
                touch(c, Scope::Component(*id), *row_id, now)?
            }
            _ => insert(
                c,
                Scope::Component(*id),
                &PortfolioMetrics {
                    m: m.clone(),
                    ..PortfolioMetrics::default()
                },
            )?,
        }
    }
    Ok(())
}

/// The ids of a project's components.
pub fn component_ids(c: &Connection, project: ProjectId) -> Result<Vec<ComponentId>> {
    let mut st =
        c.prepare_cached("SELECT id FROM dt_components WHERE project_id = ?1 ORDER BY id")?;
    let rows = st.query_map([project.0], |r| Ok(ComponentId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One group of a project's unsuppressed policy violations.
#[derive(Clone, Debug, PartialEq)]
pub struct ViolationGroup {
    pub component: ComponentId,
    /// The policy's violation state: FAIL, WARN or INFO.
    pub state: String,
    /// The violation type: SECURITY, LICENSE or OPERATIONAL.
    pub kind: String,
    /// Whether an analysis other than NOT_SET was recorded.
    pub audited: bool,
    pub count: i64,
}

/// A project's unsuppressed policy violations, grouped by component, state, type and audit.
pub fn violation_groups(c: &Connection, project: ProjectId) -> Result<Vec<ViolationGroup>> {
    let mut st = c.prepare_cached(
        "SELECT v.component_id, p.violation_state, v.type,
                coalesce(a.state, 'NOT_SET') <> 'NOT_SET' AS audited, count(*)
         FROM dt_policy_violations v
         JOIN dt_policy_conditions pc ON pc.id = v.condition_id
         JOIN dt_policies p ON p.id = pc.policy_id
         LEFT JOIN dt_violation_analyses a ON a.violation_id = v.id
         WHERE v.project_id = ?1 AND coalesce(a.suppressed, 0) = 0
         GROUP BY v.component_id, p.violation_state, v.type, audited",
    )?;
    let rows = st.query_map([project.0], |r| {
        Ok(ViolationGroup {
            component: ComponentId(r.get(0)?),
            state: r.get(1)?,
            kind: r.get(2)?,
            audited: r.get(3)?,
            count: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The latest snapshot of every active non-collection project (`None` for a project without
/// one): what the portfolio's snapshot sums.
pub fn portfolio_members(c: &Connection) -> Result<Vec<Option<ProjectMetrics>>> {
    let sql = format!(
        "SELECT {} FROM dt_projects p LEFT JOIN dt_project_metrics m ON m.id =
           (SELECT x.id FROM dt_project_metrics x WHERE x.project_id = p.id
            ORDER BY x.last_occurrence_ms DESC, x.id DESC LIMIT 1)
         WHERE p.active = 1 AND p.collection_logic = 'NONE'",
        COLS.split(',')
            .map(|c| format!("m.{}", c.trim()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map([], |r| {
        if r.get::<_, Option<i64>>(0)?.is_none() {
            return Ok(None);
        }
        metrics_at(r, 0).map(Some)
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every project's id (active or not), for a portfolio refresh.
pub fn project_ids(c: &Connection) -> Result<Vec<ProjectId>> {
    let mut st = c.prepare_cached("SELECT id FROM dt_projects ORDER BY id")?;
    let rows = st.query_map([], |r| Ok(ProjectId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How many vulnerabilities were created (or, without a creation date, published) on each
/// UTC day, as (day number since the epoch, count), for the vulnerability metrics.
pub fn vulnerability_days(c: &Connection) -> Result<Vec<(i64, i64)>> {
    let mut st = c.prepare_cached(
        "SELECT coalesce(created_ms, published_ms) / 86400000 -
                (coalesce(created_ms, published_ms) % 86400000 < 0) AS day, count(*)
         FROM dt_vulnerabilities WHERE coalesce(created_ms, published_ms) IS NOT NULL
         GROUP BY day ORDER BY day",
    )?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_column_list_names_every_counter() {
        assert_eq!(COLS.split(',').count(), NCOLS);
    }
}
