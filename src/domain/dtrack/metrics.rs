//! Metrics: project, component and portfolio snapshots with their history, the vulnerability
//! database's monthly counts, and the facts the badges are drawn from.
//!
//! A refresh counts each component's findings (grouped queries; aliases of one vulnerability
//! in one component once) and policy violations (suppressed ones apart), sums them into the
//! project's snapshot (a collection project sums its children's latest) and then sums the
//! latest snapshots of the active non-collection projects into the portfolio's. History is
//! kept as upstream keeps it: a new row when a counter changed, else the latest row's last
//! occurrence moves on. Badges read the latest project snapshot. Must not touch HTTP types or
//! SQL.

use std::collections::HashMap;
use std::sync::Arc;

use crate::db::dtrack_findings as db;
use crate::db::dtrack_metrics::{self as mdb, Scope};
use crate::db::dtrack_portfolio as pdb;
use crate::db::dtrack_projects as more;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::ids::{ComponentId, ProjectId, TeamId};

use super::portfolio::{
    COMPONENT_FORBIDDEN, COMPONENT_NOT_FOUND, PROJECT_NOT_FOUND, visible, visible_project,
};
use super::state::write;
use crate::model::dtrack::permissions::Permission;
use crate::model::dtrack::{PortfolioMetrics, Principal, ProjectMetrics, VulnerabilityMetric};

/// What a badge needs to know about a project.
#[derive(Clone, Debug, PartialEq)]
pub struct BadgeFacts {
    pub project: ProjectId,
    /// Teams mapped to the project (for the ACL check).
    pub access_teams: Vec<TeamId>,
    /// (fail, warn, info) of the latest snapshot; `None` = no metrics yet.
    pub violations: Option<(i64, i64, i64)>,
    /// The latest snapshot's vulnerability counts; `None` = no metrics yet.
    pub vulns: Option<VulnCounts>,
}

/// What the vulnerability badge shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VulnCounts {
    pub vulnerabilities: i64,
    pub critical: i64,
    pub high: i64,
    pub medium: i64,
    pub low: i64,
    pub unassigned: i64,
}

/// How many days of history `…/days` may ask for.
pub const MAX_DAYS: i64 = 3650;
/// How many history rows one answer holds at most (the most recent ones).
pub const MAX_HISTORY_ROWS: usize = 10_000;
const DAY_MS: i64 = 86_400_000;

/// Counts one component's findings and violations (suppressed ones apart).
fn compute_components(
    c: &rusqlite::Connection,
    project: ProjectId,
    now: i64,
) -> Result<Vec<(ComponentId, ProjectMetrics)>> {
    let blank = ProjectMetrics {
        first_occurrence_ms: now,
        last_occurrence_ms: now,
        components: 1,
        ..ProjectMetrics::default()
    };
    let ids = mdb::component_ids(c, project)?;
    let mut by: HashMap<ComponentId, ProjectMetrics> =
        ids.iter().map(|id| (*id, blank.clone())).collect();
    // Grouped counts; aliases of one vulnerability in one component count once.
    for (id, n) in db::finding_counts(c, project)? {
        let m = by.entry(id).or_insert_with(|| blank.clone());
        m.suppressed = n.suppressed;
        m.vulnerabilities = n.total;
        m.critical = n.critical;
        m.high = n.high;
        m.medium = n.medium;
        m.low = n.low;
        m.unassigned = n.unassigned;
        m.findings_audited = n.audited;
    }
    for g in mdb::violation_groups(c, project)? {
        let m = by.entry(g.component).or_insert_with(|| blank.clone());
        match g.state.as_str() {
            "FAIL" => m.policy_violations_fail += g.count,
            "WARN" => m.policy_violations_warn += g.count,
            _ => m.policy_violations_info += g.count,
        }
        let audited = if g.audited { g.count } else { 0 };
        m.policy_violations_audited += audited;
        let (total, aud) = match g.kind.as_str() {
            "SECURITY" => (
                &mut m.policy_violations_security_total,
                &mut m.policy_violations_security_audited,
            ),
            "LICENSE" => (
                &mut m.policy_violations_license_total,
                &mut m.policy_violations_license_audited,
            ),
            _ => (
                &mut m.policy_violations_operational_total,
                &mut m.policy_violations_operational_audited,
            ),
        };
        *total += g.count;
        *aud += audited;
    }
    let mut out: Vec<(ComponentId, ProjectMetrics)> = by
        .into_iter()
        .map(|(id, mut m)| {
            m.findings_total = m.vulnerabilities;
            m.vulnerable_components = i64::from(m.vulnerabilities > 0);
            (id, m)
        })
        .collect();
    out.sort_by_key(|(id, _)| *id);
    Ok(out)
}

/// A collection's snapshot: the sum of the latest snapshots of the children its logic
/// selects (children without metrics count as zero), as upstream aggregates collections.
fn aggregate(
    c: &rusqlite::Connection,
    project: ProjectId,
    logic: &str,
    tag: Option<&str>,
    now: i64,
) -> Result<ProjectMetrics> {
    let mut m = ProjectMetrics {
        first_occurrence_ms: now,
        last_occurrence_ms: now,
        ..ProjectMetrics::default()
    };
    for child in more::collection_members(c, project, logic, tag)? {
        if let Some(x) = mdb::latest_metrics(c, child)? {
            m.add(&x);
        }
    }
    Ok(m)
}

/// How many collection ancestors one refresh updates at most.
const MAX_COLLECTION_DEPTH: usize = 64;

/// Records one project's snapshot (and its components') and then its collection ancestors',
/// nearest first, as upstream schedules them; not the portfolio's.
fn record_project(c: &rusqlite::Connection, project: ProjectId, now: i64) -> Result<()> {
    let mut current = project;
    for _ in 0..MAX_COLLECTION_DEPTH {
        let Some((logic, tag)) = more::collection_of(c, current)? else {
            return Ok(());
        };
        let m = if logic == "NONE" {
            let parts = compute_components(c, current, now)?;
            mdb::record_components(c, &parts, current, now)?;
            let mut m = ProjectMetrics {
                first_occurrence_ms: now,
                last_occurrence_ms: now,
                ..ProjectMetrics::default()
            };
            for (_, x) in &parts {
                m.add(x);
            }
            m
        } else {
            aggregate(c, current, &logic, tag.as_deref(), now)?
        };
        let snapshot = PortfolioMetrics {
            m,
            ..PortfolioMetrics::default()
        };
        mdb::record(c, Scope::Project(current), &snapshot)?;
        match more::parent_of(c, current)? {
            Some(parent) if more::collection_of(c, parent)?.is_some_and(|(l, _)| l != "NONE") => {
                current = parent;
            }
            _ => return Ok(()),
        }
    }
    Ok(())
}

/// Records the portfolio's snapshot from the latest snapshots of its active non-collection
/// projects.
fn record_portfolio(c: &rusqlite::Connection, now: i64) -> Result<()> {
    let members = mdb::portfolio_members(c)?;
    let mut p = PortfolioMetrics {
        projects: members.len() as i64,
        m: ProjectMetrics {
            first_occurrence_ms: now,
            last_occurrence_ms: now,
            ..ProjectMetrics::default()
        },
        ..PortfolioMetrics::default()
    };
    for m in members.iter().flatten() {
        p.m.add(m);
        p.vulnerable_projects += i64::from(m.vulnerabilities > 0);
    }
    mdb::record(c, Scope::Portfolio, &p)
}

/// Records a fresh metrics snapshot of a project (inside the caller's write): its
/// components', its own, its collection ancestors' and the portfolio's.
pub fn record(c: &rusqlite::Connection, project: ProjectId) -> Result<()> {
    let now = crate::time::now_millis();
    record_project(c, project, now)?;
    record_portfolio(c, now)
}

/// `GET /metrics/project/{uuid}/refresh`: records a new snapshot.
pub async fn refresh(state: &Core, who: &Principal, uuid: &str) -> Result<()> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    write(state, move |tx| {
        let id = visible_project(tx, acl, &who, &uuid)?;
        record(tx, id)
    })
    .await
}

/// Since when a history listing reads: the last `n` days, or from a day's start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Since {
    /// `…/days/{n}`: now minus `n` days (`0..=MAX_DAYS`, checked by the caller).
    Days(i64),
    /// `…/since/{date}`: epoch milliseconds of the day's start (UTC).
    Millis(i64),
}

impl Since {
    fn millis(self) -> i64 {
        match self {
            Since::Days(n) => crate::time::now_millis() - n.clamp(0, MAX_DAYS) * DAY_MS,
            Since::Millis(ms) => ms,
        }
    }
}

/// `GET /metrics/project/{uuid}/days/{n}` and `…/since/{date}`: the project's history.
pub async fn project_history(
    state: &Core,
    who: &Principal,
    uuid: &str,
    since: Since,
) -> Result<Vec<ProjectMetrics>> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    let since = since.millis();
    state
        .db
        .read(move |c| {
            let id = visible_project(c, acl, &who, &uuid)?;
            let rows = mdb::history(c, Scope::Project(id), since, MAX_HISTORY_ROWS)?;
            Ok(rows.into_iter().map(|p| p.m).collect())
        })
        .await
}

/// The component a component-metrics request names, under the ACL of its project.
fn visible_component(
    c: &rusqlite::Connection,
    acl: bool,
    who: &Principal,
    uuid: &str,
) -> Result<(ComponentId, ProjectId)> {
    let (comp, project) = visible(
        c,
        acl,
        who,
        pdb::component_by_uuid(c, uuid)?,
        COMPONENT_NOT_FOUND,
        COMPONENT_FORBIDDEN,
    )?;
    Ok((ComponentId(comp.id), project))
}

/// `GET /metrics/component/{uuid}/current`: the component's latest snapshot, if any.
pub async fn component_current(
    state: &Core,
    who: &Principal,
    uuid: &str,
) -> Result<Option<ProjectMetrics>> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    state
        .db
        .read(move |c| {
            let (id, _) = visible_component(c, acl, &who, &uuid)?;
            Ok(mdb::latest(c, Scope::Component(id))?.map(|p| p.m))
        })
        .await
}

/// `GET /metrics/component/{uuid}/days/{n}` and `…/since/{date}`.
pub async fn component_history(
    state: &Core,
    who: &Principal,
    uuid: &str,
    since: Since,
) -> Result<Vec<ProjectMetrics>> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    let since = since.millis();
    state
        .db
        .read(move |c| {
            let (id, _) = visible_component(c, acl, &who, &uuid)?;
            let rows = mdb::history(c, Scope::Component(id), since, MAX_HISTORY_ROWS)?;
            Ok(rows.into_iter().map(|p| p.m).collect())
        })
        .await
}

/// `GET /metrics/component/{uuid}/refresh`: records its project's snapshot anew (which
/// records each of its components').
pub async fn component_refresh(state: &Core, who: &Principal, uuid: &str) -> Result<()> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    write(state, move |tx| {
        let (_, project) = visible_component(tx, acl, &who, &uuid)?;
        record(tx, project)
    })
    .await
}

/// `GET /metrics/portfolio/current`: the portfolio's latest snapshot, if any.
pub async fn portfolio_current(state: &Core) -> Result<Option<PortfolioMetrics>> {
    state.db.read(|c| mdb::latest(c, Scope::Portfolio)).await
}

/// `GET /metrics/portfolio/{n}/days` and `…/since/{date}`.
pub async fn portfolio_history(state: &Core, since: Since) -> Result<Vec<PortfolioMetrics>> {
    let since = since.millis();
    state
        .db
        .read(move |c| mdb::history(c, Scope::Portfolio, since, MAX_HISTORY_ROWS))
        .await
}

/// `GET /metrics/portfolio/refresh`: every project's snapshot anew, then the portfolio's.
pub async fn portfolio_refresh(state: &Core) -> Result<()> {
    write(state, |tx| {
        let now = crate::time::now_millis();
        for id in mdb::project_ids(tx)? {
            record_project(tx, id, now)?;
        }
        record_portfolio(tx, now)
    })
    .await
}

/// `GET /metrics/vulnerability`: the vulnerability database by year and by month of creation
/// (publication when there is no creation date), years before their months, ascending.
pub async fn vulnerability_metrics(state: &Core) -> Result<Vec<VulnerabilityMetric>> {
    let days = state.db.read(mdb::vulnerability_days).await?;
    let mut months: std::collections::BTreeMap<(i64, i64), i64> = Default::default();
    for (day, n) in days {
        let (y, m) = crate::time::year_month_of_day(day);
        *months.entry((y, m)).or_default() += n;
    }
    let mut out: Vec<VulnerabilityMetric> = Vec::new();
    for (&(y, m), &n) in &months {
        if out.last().is_none_or(|l: &VulnerabilityMetric| l.year != y) {
            let total = months.range((y, 0)..=(y, 12)).map(|(_, n)| n).sum();
            out.push(VulnerabilityMetric {
                year: y,
                month: None,
                count: total,
            });
        }
        out.push(VulnerabilityMetric {
            year: y,
            month: Some(m),
            count: n,
        });
    }
    Ok(out)
}

/// Which project a badge is for.
pub enum BadgeTarget {
    Uuid(String),
    NameVersion(String, String),
}

/// The badge facts of a project (cached until the next write); 404 if there is no project.
pub async fn badge_facts(state: &Core, target: BadgeTarget) -> Result<Arc<BadgeFacts>> {
    let key = match &target {
        BadgeTarget::Uuid(u) => u.clone(),
        BadgeTarget::NameVersion(n, v) => format!("{n}\0{v}"),
    };
    let dt = &state.dtrack;
    let read_at = dt.generation();
    if let Some(f) = dt.badges.get(&key, read_at) {
        return Ok(f);
    }
    let facts = state
        .db
        .read(move |c| {
            let id = match &target {
                BadgeTarget::Uuid(u) => pdb::project_id_by_uuid(c, u)?,
                BadgeTarget::NameVersion(n, v) => pdb::project_id_by_name(c, n, Some(v))?,
            };
            let Some(id) = id else {
                return Ok(None);
            };
            let m = mdb::latest_metrics(c, id)?;
            Ok(Some(BadgeFacts {
                project: id,
                access_teams: pdb::access_teams(c, id)?,
                violations: m.as_ref().map(|m| {
                    (
                        m.policy_violations_fail,
                        m.policy_violations_warn,
                        m.policy_violations_info,
                    )
                }),
                vulns: m.as_ref().map(|m| VulnCounts {
                    vulnerabilities: m.vulnerabilities,
                    critical: m.critical,
                    high: m.high,
                    medium: m.medium,
                    low: m.low,
                    unassigned: m.unassigned,
                }),
            }))
        })
        .await?
        .ok_or_else(|| Error::not_found(PROJECT_NOT_FOUND))?;
    let facts = Arc::new(facts);
    dt.badges
        .put(&key, Arc::clone(&facts), read_at, dt.generation());
    Ok(facts)
}

/// The badge ACL check (only when the ACL is on): `ACCESS_MANAGEMENT` or a mapped team.
pub fn badge_access(acl_enabled: bool, who: &Principal, facts: &BadgeFacts) -> bool {
    !acl_enabled
        || who.permissions.contains(Permission::AccessManagement)
        || who
            .teams
            .iter()
            .any(|(t, _)| facts.access_teams.contains(t))
}
