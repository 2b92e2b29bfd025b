//! Project metrics snapshots and the facts a violations badge is drawn from.
//!
//! A refresh counts the project's components, findings (one grouped query; aliases of one
//! vulnerability in one component once) and policy violations (suppressed ones
//! apart) into a new snapshot; badges read the latest snapshot. Must not touch HTTP types or SQL.

use std::sync::Arc;

use crate::db::dtrack_findings as db;
use crate::db::dtrack_portfolio as pdb;
use crate::db::dtrack_projects as more;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::ids::{ProjectId, TeamId};

use super::portfolio::{PROJECT_NOT_FOUND, visible_project};
use super::state::write;
use crate::model::dtrack::permissions::Permission;
use crate::model::dtrack::{Principal, ProjectMetrics};

/// What a violations badge needs to know about a project.
#[derive(Clone, Debug, PartialEq)]
pub struct BadgeFacts {
    pub project: ProjectId,
    /// Teams mapped to the project (for the ACL check).
    pub access_teams: Vec<TeamId>,
    /// (fail, warn, info) of the latest snapshot; `None` = no metrics yet.
    pub violations: Option<(i64, i64, i64)>,
}

/// Computes a fresh snapshot of a project from its current findings.
fn compute(c: &rusqlite::Connection, project: ProjectId, now: i64) -> Result<ProjectMetrics> {
    // One grouped query; aliases of one vulnerability in one component count once.
    let n = db::finding_counts(c, project)?;
    let mut m = ProjectMetrics {
        first_occurrence_ms: now,
        last_occurrence_ms: now,
        components: db::component_count(c, project)?,
        vulnerable_components: n.vulnerable_components,
        vulnerabilities: n.total,
        critical: n.critical,
        high: n.high,
        medium: n.medium,
        low: n.low,
        unassigned: n.unassigned,
        suppressed: n.suppressed,
        findings_total: n.total,
        findings_audited: n.audited,
        ..ProjectMetrics::default()
    };
    let (fail, warn, info) = crate::db::dtrack_policies::violation_counts(c, project)?;
    m.policy_violations_fail = fail;
    m.policy_violations_warn = warn;
    m.policy_violations_info = info;
    Ok(m)
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
        let Some(x) = db::latest_metrics(c, child)? else {
            continue;
        };
        m.components += x.components;
        m.vulnerable_components += x.vulnerable_components;
        m.vulnerabilities += x.vulnerabilities;
        m.critical += x.critical;
        m.high += x.high;
        m.medium += x.medium;
        m.low += x.low;
        m.unassigned += x.unassigned;
        m.suppressed += x.suppressed;
        m.findings_total += x.findings_total;
        m.findings_audited += x.findings_audited;
        m.policy_violations_fail += x.policy_violations_fail;
        m.policy_violations_warn += x.policy_violations_warn;
        m.policy_violations_info += x.policy_violations_info;
    }
    Ok(m)
}

/// How many collection ancestors one refresh updates at most.
const MAX_COLLECTION_DEPTH: usize = 64;

/// Records a fresh metrics snapshot of a project (inside the caller's write): counted from its
/// findings, or for a collection project aggregated from its children. Collection ancestors
/// are then refreshed in turn, nearest first, as upstream schedules them.
pub fn record(c: &rusqlite::Connection, project: ProjectId) -> Result<()> {
    let now = crate::time::now_millis();
    let mut current = project;
    for _ in 0..MAX_COLLECTION_DEPTH {
        let Some((logic, tag)) = more::collection_of(c, current)? else {
            return Ok(());
        };
        let m = if logic == "NONE" {
            compute(c, current, now)?
        } else {
            aggregate(c, current, &logic, tag.as_deref(), now)?
        };
        db::insert_metrics(c, current, &m)?;
        match more::parent_of(c, current)? {
            Some(parent) if more::collection_of(c, parent)?.is_some_and(|(l, _)| l != "NONE") => {
                current = parent;
            }
            _ => return Ok(()),
        }
    }
    Ok(())
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

/// `GET /metrics/project/{uuid}/current`: the latest snapshot, if any.
pub async fn current(state: &Core, who: &Principal, uuid: &str) -> Result<Option<ProjectMetrics>> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    state
        .db
        .read(move |c| {
            let id = visible_project(c, acl, &who, &uuid)?;
            db::latest_metrics(c, id)
        })
        .await
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
            let m = db::latest_metrics(c, id)?;
            Ok(Some(BadgeFacts {
                project: id,
                access_teams: pdb::access_teams(c, id)?,
                violations: m.map(|m| {
                    (
                        m.policy_violations_fail,
                        m.policy_violations_warn,
                        m.policy_violations_info,
                    )
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
