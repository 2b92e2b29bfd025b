//! Vulnerabilities, their attribution to components, findings, and analysis decisions with
//! upstream's audit-trail comments.
//!
//! Error texts are upstream's. Must not touch HTTP types or SQL.

use crate::db::dtrack_findings as db;
use crate::db::dtrack_portfolio as pdb;
use crate::domain::core::Core;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::ProjectId;

use super::portfolio::{
    COMPONENT_FORBIDDEN, COMPONENT_NOT_FOUND, PROJECT_FORBIDDEN, PROJECT_NOT_FOUND, visible,
    visible_project,
};
use super::state::write;
use crate::model::dtrack::{Analysis, Finding, Principal, Project, Vulnerability};

pub const VULN_NOT_FOUND: &str = "The vulnerability could not be found.";

/// `PUT /vulnerability`: an internal vulnerability.
pub async fn create_vulnerability(state: &Core, mut v: Vulnerability) -> Result<Vulnerability> {
    write(state, move |tx| {
        v.source = "INTERNAL".into();
        if db::vulnerability_exists(tx, &v.source, &v.vuln_id)? {
            return Err(Error::new(
                ErrorKind::Conflict { code: "CONFLICT" },
                "A vulnerability with the specified vulnId already exists.",
            ));
        }
        v.uuid = uuid::Uuid::new_v4().to_string();
        v.created_ms = Some(crate::time::now_millis());
        db::insert_vulnerability(tx, &v)?;
        db::vulnerability_by_uuid(tx, &v.uuid)?
            .ok_or_else(|| Error::internal("vulnerability vanished"))
    })
    .await
}

pub async fn vulnerability(state: &Core, uuid: &str) -> Result<Vulnerability> {
    let uuid = uuid.to_string();
    state
        .db
        .read(move |c| db::vulnerability_by_uuid(c, &uuid))
        .await?
        .ok_or_else(|| Error::not_found(VULN_NOT_FOUND))
}

/// `POST|DELETE /vulnerability/{uuid}/component/{uuid}`: (un)attributes a vulnerability.
pub async fn set_assignment(
    state: &Core,
    who: &Principal,
    vuln: &str,
    component: &str,
    assigned: bool,
) -> Result<()> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, vuln, component) = (who.clone(), vuln.to_string(), component.to_string());
    write(state, move |tx| {
        let v = db::vulnerability_by_uuid(tx, &vuln)?
            .ok_or_else(|| Error::not_found(VULN_NOT_FOUND))?;
        let (c, _) = visible(
            tx,
            acl,
            &who,
            pdb::component_by_uuid(tx, &component)?,
            COMPONENT_NOT_FOUND,
            COMPONENT_FORBIDDEN,
        )?;
        if assigned {
            db::assign(
                tx,
                c.component_id(),
                v.vulnerability_id(),
                crate::time::now_millis(),
            )
        } else {
            db::unassign(tx, c.component_id(), v.vulnerability_id())
        }
    })
    .await
}

/// `GET /finding/project/{uuid}` (JSON or SARIF) and its FPF export: the project's findings
/// (with suppressed ones when asked, optionally only of one vulnerability source), handed to
/// `render` with the project on the reader thread, so the answer is bytes before it leaves it.
pub async fn findings<T, R>(
    state: &Core,
    who: &Principal,
    project: &str,
    suppressed: bool,
    source: Option<String>,
    render: R,
) -> Result<T>
where
    T: Send + 'static,
    R: FnOnce(&Project, &[Finding]) -> T + Send + 'static,
{
    let acl = state.config.dtrack.acl_enabled;
    let (who, project) = (who.clone(), project.to_string());
    state
        .db
        .read(move |c| {
            let id = visible_project(c, acl, &who, &project)?;
            let p =
                pdb::project_by_id(c, id)?.ok_or_else(|| Error::not_found(PROJECT_NOT_FOUND))?;
            let filter = db::FindingFilter {
                project: Some(id),
                suppressed,
                source,
                inactive: true,
                ..db::FindingFilter::default()
            };
            let fs = db::findings_page(c, &filter)?.0;
            Ok(render(&p, &fs))
        })
        .await
}

/// `GET /finding/project/{uuid}` as JSON or SARIF: the answer `render` makes of the project's
/// findings, and how many there are. The access check runs for every request; the rendered
/// answer is reused until the next Dependency-Track write (`kind` names the rendering).
pub async fn findings_rendered(
    state: &Core,
    who: &Principal,
    project: &str,
    suppressed: bool,
    source: Option<String>,
    kind: &'static str,
    render: fn(&[Finding]) -> Vec<u8>,
) -> Result<(bytes::Bytes, usize)> {
    let acl = state.config.dtrack.acl_enabled;
    let read_at = state.dtrack.generation();
    let (who2, uuid) = (who.clone(), project.to_string());
    let id = state
        .db
        .read(move |c| visible_project(c, acl, &who2, &uuid))
        .await?;
    let key = format!(
        "{kind}\0{}\0{suppressed}\0{}",
        id.0,
        source.as_deref().unwrap_or("")
    );
    if let Some(hit) = state.dtrack.rendered.get(&key, read_at) {
        return Ok(hit);
    }
    let (bytes, count) = state
        .db
        .read(move |c| {
            let filter = db::FindingFilter {
                project: Some(id),
                suppressed,
                source,
                inactive: true,
                ..db::FindingFilter::default()
            };
            let fs = db::findings_page(c, &filter)?.0;
            Ok((bytes::Bytes::from(render(&fs)), fs.len()))
        })
        .await?;
    let dt = &state.dtrack;
    dt.rendered
        .put(&key, bytes.clone(), count, read_at, dt.generation());
    Ok((bytes, count))
}

/// `GET /vulnerability/project/{uuid}`: upstream's list of a project's vulnerabilities, one
/// entry per component and vulnerability (so a vulnerability of two components is there
/// twice), each vulnerability with its aliases; suppressed ones only when asked.
pub async fn project_vulnerabilities(
    state: &Core,
    who: &Principal,
    project: &str,
    suppressed: bool,
) -> Result<Vec<Finding>> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, project) = (who.clone(), project.to_string());
    state
        .db
        .read(move |c| {
            let id = visible_project(c, acl, &who, &project)?;
            let filter = db::FindingFilter {
                project: Some(id),
                suppressed,
                inactive: true,
                ..db::FindingFilter::default()
            };
            let mut fs = db::findings_page(c, &filter)?.0;
            // One alias query per distinct vulnerability, however many components share it.
            let mut known: std::collections::HashMap<i64, Vec<String>> = Default::default();
            for f in &mut fs {
                let v = &mut f.vulnerability;
                let aliases = match known.entry(v.id) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(db::aliases(c, v.vulnerability_id())?)
                    }
                };
                v.aliases = aliases.clone();
            }
            Ok(fs)
        })
        .await
}

/// `GET /finding`: the portfolio's findings the caller may see (the ACL's team filter), a
/// page of them rendered by `render` on the reader thread, and the total.
pub async fn portfolio_findings<T, R>(
    state: &Core,
    who: &Principal,
    mut filter: db::FindingFilter,
    render: R,
) -> Result<(T, i64)>
where
    T: Send + 'static,
    R: FnOnce(&[Finding]) -> T + Send + 'static,
{
    let acl = state.config.dtrack.acl_enabled;
    filter.project = None;
    filter.teams = super::portfolio::visibility(acl, who)
        .map(|teams| teams.into_iter().map(|t| t.0).collect());
    state
        .db
        .read(move |c| {
            let (fs, total) = db::findings_page(c, &filter)?;
            Ok((render(&fs), total))
        })
        .await
}

/// `GET /vulnerability`: a page of vulnerabilities matching the search text, and the total.
pub async fn vulnerabilities(
    state: &Core,
    search: Option<String>,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<Vulnerability>, i64)> {
    state
        .db
        .read(move |c| db::vulnerabilities(c, search.as_deref(), offset, limit))
        .await
}

/// `GET /vulnerability/source/{source}/vuln/{vuln}`.
pub async fn vulnerability_by_key(state: &Core, source: &str, vuln: &str) -> Result<Vulnerability> {
    let (source, vuln) = (source.to_string(), vuln.to_string());
    state
        .db
        .read(move |c| db::vulnerability_by_key(c, &source, &vuln))
        .await?
        .ok_or_else(|| Error::not_found(VULN_NOT_FOUND))
}

/// `GET /vulnerability/source/{source}/vuln/{vuln}/projects`: the projects (visible to the
/// caller, active ones only when asked) with a component the vulnerability is attributed to.
pub async fn vulnerability_projects(
    state: &Core,
    who: &Principal,
    source: &str,
    vuln: &str,
    exclude_inactive: bool,
) -> Result<Vec<Project>> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, source, vuln) = (who.clone(), source.to_string(), vuln.to_string());
    state
        .db
        .read(move |c| {
            let id = db::vulnerability_id_by_key(c, &source, &vuln)?
                .ok_or_else(|| Error::not_found(VULN_NOT_FOUND))?;
            let mut out = Vec::new();
            for p in db::affected_projects(c, id)? {
                if !super::portfolio::has_access(c, acl, &who, p)? {
                    continue;
                }
                if let Some(project) = pdb::project_by_id(c, p)?
                    && (project.active || !exclude_inactive)
                {
                    out.push(project);
                }
            }
            Ok(out)
        })
        .await
}

/// The component an analysis request names, checked in upstream's order (the named project
/// exists, the component exists), then what upstream leaves out: a named project must be the
/// component's own (otherwise the component is not found in it), and the caller must have
/// access to that project under the portfolio ACL.
fn analysed_component(
    c: &rusqlite::Connection,
    acl: bool,
    who: &Principal,
    project: Option<&str>,
    component: &str,
) -> Result<(crate::model::dtrack::Component, ProjectId)> {
    let named = match project {
        Some(p) => Some(
            pdb::project_id_by_uuid(c, p)?.ok_or_else(|| Error::not_found(PROJECT_NOT_FOUND))?,
        ),
        None => None,
    };
    let found = pdb::component_by_uuid(c, component)?
        .filter(|(_, owner)| named.is_none_or(|p| p == *owner));
    visible(c, acl, who, found, COMPONENT_NOT_FOUND, PROJECT_FORBIDDEN)
}

/// `GET /analysis`: existence and access checks (see `analysed_component`), then the analysis.
pub async fn analysis(
    state: &Core,
    who: &Principal,
    project: Option<&str>,
    component: &str,
    vuln: &str,
) -> Result<Analysis> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, project, component, vuln) = (
        who.clone(),
        project.map(str::to_string),
        component.to_string(),
        vuln.to_string(),
    );
    state
        .db
        .read(move |c| {
            let (comp, _) = analysed_component(c, acl, &who, project.as_deref(), &component)?;
            let v = db::vulnerability_by_uuid(c, &vuln)?
                .ok_or_else(|| Error::not_found(VULN_NOT_FOUND))?;
            let id = db::analysis_id(c, comp.component_id(), v.vulnerability_id())?
                .ok_or_else(|| Error::not_found("No analysis exists."))?;
            db::analysis(c, id)?.ok_or_else(|| Error::not_found("No analysis exists."))
        })
        .await
}

/// An analysis decision as requested (`None` enums mean `NOT_SET`, as upstream).
#[derive(Clone, Debug, Default)]
pub struct AnalysisChange {
    pub project: Option<String>,
    pub component: String,
    pub vulnerability: String,
    pub state: Option<String>,
    pub justification: Option<String>,
    pub response: Option<String>,
    pub details: Option<String>,
    pub comment: Option<String>,
    pub suppressed: Option<bool>,
}

/// The audit-trail comments of a change, in upstream's order (the free comment is not included).
pub fn audit_comments(old: &Analysis, new: &AnalysisChange) -> Vec<String> {
    let mut out = Vec::new();
    let set = |v: &Option<String>| v.clone().unwrap_or_else(|| "NOT_SET".into());
    let pairs = [
        ("Analysis", Some(old.state.clone()), &new.state),
        (
            "Justification",
            old.justification.clone(),
            &new.justification,
        ),
        ("Vendor Response", old.response.clone(), &new.response),
    ];
    for (label, before, after) in pairs {
        let (before, after) = (set(&before), set(after));
        if before != after {
            out.push(format!("{label}: {before} \u{2192} {after}"));
        }
    }
    if let Some(d) = &new.details
        && old.details.as_deref() != Some(d.as_str())
    {
        out.push(format!("Details: {d}"));
    }
    if let Some(s) = new.suppressed
        && s != old.suppressed
    {
        out.push(if s { "Suppressed" } else { "Unsuppressed" }.to_string());
    }
    out
}

/// `PUT /analysis`: creates or updates the analysis and appends the audit trail.
pub async fn update_analysis(
    state: &Core,
    who: &Principal,
    change: AnalysisChange,
) -> Result<Analysis> {
    let commenter = who.commenter();
    let acl = state.config.dtrack.acl_enabled;
    let who = who.clone();
    write(state, move |tx| {
        let (comp, project) =
            analysed_component(tx, acl, &who, change.project.as_deref(), &change.component)?;
        let v = db::vulnerability_by_uuid(tx, &change.vulnerability)?
            .ok_or_else(|| Error::not_found(VULN_NOT_FOUND))?;
        let (id, old) = analysis_of(tx, project, comp.component_id(), v.vulnerability_id())?;
        let comments = audit_comments(&old, &change);
        let not_set = |v: &Option<String>| Some(v.clone().unwrap_or_else(|| "NOT_SET".into()));
        let new = Analysis {
            state: not_set(&change.state).unwrap_or_default(),
            justification: not_set(&change.justification),
            response: not_set(&change.response),
            details: change.details.clone().or(old.details.clone()),
            suppressed: change.suppressed.unwrap_or(old.suppressed),
            comments: Vec::new(),
        };
        let trail = comments.iter().chain(change.comment.iter());
        store_analysis(tx, id, &new, trail, crate::time::now_millis(), &commenter)?;
        db::analysis(tx, id)?.ok_or_else(|| Error::internal("analysis vanished"))
    })
    .await
}

/// The analysis of `comp` for `vuln` (created, empty, in `project` when there is none yet) and
/// what it holds now.
pub(crate) fn analysis_of(
    tx: &rusqlite::Connection,
    project: ProjectId,
    comp: crate::ids::ComponentId,
    vuln: crate::ids::VulnerabilityId,
) -> Result<(crate::ids::AnalysisId, Analysis)> {
    let id = match db::analysis_id(tx, comp, vuln)? {
        Some(id) => id,
        None => db::insert_analysis(tx, project, comp, vuln)?,
    };
    let old = db::analysis(tx, id)?.ok_or_else(|| Error::internal("analysis vanished"))?;
    Ok((id, old))
}

/// Stores `new` as analysis `id`, with `trail` added to its audit trail by `commenter` at
/// `now_ms`.
pub(crate) fn store_analysis<'a>(
    tx: &rusqlite::Connection,
    id: crate::ids::AnalysisId,
    new: &Analysis,
    trail: impl IntoIterator<Item = &'a String>,
    now_ms: i64,
    commenter: &str,
) -> Result<()> {
    db::update_analysis(tx, id, new)?;
    for c in trail {
        db::insert_comment(tx, id, now_ms, c, commenter)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn old() -> Analysis {
        Analysis {
            state: "NOT_AFFECTED".into(),
            justification: Some("CODE_NOT_REACHABLE".into()),
            response: Some("WILL_NOT_FIX".into()),
            details: Some("d".into()),
            suppressed: true,
            comments: Vec::new(),
        }
    }

    #[test]
    fn audit_trail_follows_upstream_order_and_labels() {
        let change = AnalysisChange {
            state: Some("EXPLOITABLE".into()),
            response: Some("UPDATE".into()),
            details: Some("New".into()),
            suppressed: Some(false),
            ..AnalysisChange::default()
        };
        assert_eq!(
            audit_comments(&old(), &change),
            vec![
                "Analysis: NOT_AFFECTED \u{2192} EXPLOITABLE",
                "Justification: CODE_NOT_REACHABLE \u{2192} NOT_SET",
                "Vendor Response: WILL_NOT_FIX \u{2192} UPDATE",
                "Details: New",
                "Unsuppressed",
            ]
        );
    }

    #[test]
    fn unchanged_values_leave_no_comment() {
        let change = AnalysisChange {
            state: Some("NOT_AFFECTED".into()),
            justification: Some("CODE_NOT_REACHABLE".into()),
            response: Some("WILL_NOT_FIX".into()),
            details: Some("d".into()),
            suppressed: Some(true),
            ..AnalysisChange::default()
        };
        assert!(audit_comments(&old(), &change).is_empty());
    }
}
