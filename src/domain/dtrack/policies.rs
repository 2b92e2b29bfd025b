//! Policies, their conditions, evaluation into violations, and analysis of violations.
//!
//! Evaluation runs inside the write that changed a project's components (or after a BOM is
//! processed, or after a policy change for every project), then records a metrics snapshot,
//! as upstream's chain of evaluation and metrics update ends. Error texts are upstream's.
//! Must not touch HTTP types or SQL.

use std::collections::HashSet;

use rusqlite::Connection;

use crate::db::dtrack_policies as db;
use crate::db::dtrack_portfolio as pdb;
use crate::db::dtrack_tags as tdb;
use crate::domain::core::Core;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::ProjectId;

use super::portfolio::visible_project;
use super::state::write;
use crate::model::dtrack::{
    Policy, PolicyCondition, PolicyViolation, Principal, PrincipalKind, ViolationAnalysis,
};

pub const POLICY_NOT_FOUND: &str = "The policy could not be found.";
pub const POLICY_UUID_NOT_FOUND: &str = "The UUID of the policy could not be found.";
pub const CONDITION_NOT_FOUND: &str = "The UUID of the policy condition could not be found.";
pub const TAG_NOT_FOUND: &str = "The tag could not be found.";

/// Re-evaluates every policy against a project's components, keeping violations that still
/// hold (with their analyses), adding new ones and removing the rest; then records metrics.
pub fn evaluate_project(c: &Connection, project: ProjectId) -> Result<()> {
    let is_latest = pdb::project_by_id(c, project)?.is_some_and(|p| p.is_latest);
    // Policies limited to the latest version of a project skip the other versions.
    // Global policies, and those scoped to the project, an ancestor or one of its tags.
    let applicable = crate::db::dtrack_tags::applicable_policies(c, project)?;
    let policies: Vec<Policy> = db::policies(c)?
        .into_iter()
        .filter(|p| applicable.contains(&p.id))
        .filter(|p| is_latest || !p.only_latest_project_version)
        .collect();
    let components = db::components_for_evaluation(c, project)?;
    // The catalogue's maps are built only when some condition compares licenses.
    let lic = if policies.iter().any(|p| {
        p.conditions
            .iter()
            .any(|k| k.subject == "LICENSE" || k.subject == "LICENSE_GROUP")
    }) {
        super::licenses::facts(c)?
    } else {
        super::licenses::LicenseFacts::default()
    };
    let mut wanted: HashSet<(i64, i64)> = HashSet::new();
    let now = crate::time::now_millis();
    for (comp, vulns) in &components {
        for p in &policies {
            for cond in super::policy_eval::evaluate_with(p, comp, vulns, &lic) {
                if wanted.insert((comp.id, cond.id)) {
                    db::insert_violation(
                        c,
                        &uuid::Uuid::new_v4().to_string(),
                        cond.violation_type(),
                        project,
                        comp.id,
                        cond.id,
                        now,
                    )?;
                }
            }
        }
    }
    for key in db::violation_keys(c, project)? {
        if !wanted.contains(&key) {
            db::delete_violation(c, key.0, key.1)?;
        }
    }
    super::metrics::record(c, project)
}

pub(super) fn evaluate_all(c: &Connection) -> Result<()> {
    for p in db::project_ids(c)? {
        evaluate_project(c, p)?;
    }
    Ok(())
}

pub async fn policies(state: &Core) -> Result<Vec<Policy>> {
    state
        .db
        .read(|c| {
            let mut ps = db::policies(c)?;
            for p in &mut ps {
                db::load_scope(c, p)?;
            }
            Ok(ps)
        })
        .await
}

/// A policy with its conditions and scope.
fn whole(c: &Connection, uuid: &str, missing: &'static str) -> Result<Policy> {
    let mut p = db::policy_by_uuid(c, uuid)?.ok_or_else(|| Error::not_found(missing))?;
    db::load_scope(c, &mut p)?;
    Ok(p)
}

pub async fn policy(state: &Core, uuid: &str) -> Result<Policy> {
    let uuid = uuid.to_string();
    state
        .db
        .read(move |c| whole(c, &uuid, POLICY_NOT_FOUND))
        .await
}

/// What scoping a policy changed: the policy as it is now, or nothing (upstream's 304).
pub type Scoped = Option<Policy>;

/// `POST`/`DELETE /policy/{policy}/project/{project}`: adds a project to a policy's scope or
/// removes it, then re-evaluates the portfolio. Nothing changes (and `None` is returned) when
/// the project already is, or is not, in the scope.
pub async fn scope_project(state: &Core, policy: &str, project: &str, add: bool) -> Result<Scoped> {
    let (policy, project) = (policy.to_string(), project.to_string());
    write(state, move |tx| {
        let p = whole(tx, &policy, POLICY_NOT_FOUND)?;
        let id = pdb::project_id_by_uuid(tx, &project)?
            .ok_or_else(|| Error::not_found(super::portfolio::PROJECT_NOT_FOUND))?;
        let changed = if add {
            tdb::add_policy_project(tx, p.id, id)?
        } else {
            tdb::remove_policy_project(tx, p.id, id)?
        };
        if !changed {
            return Ok(None);
        }
        evaluate_all(tx)?;
        whole(tx, &policy, POLICY_NOT_FOUND).map(Some)
    })
    .await
}

/// `POST`/`DELETE /policy/{policy}/tag/{tag}` (upstream's deprecated forms of the tag
/// resource's policy operations), as [`scope_project`] for a tag that must exist.
pub async fn scope_tag(state: &Core, policy: &str, tag: &str, add: bool) -> Result<Scoped> {
    let (policy, tag) = (policy.to_string(), crate::model::dtrack::tag_name(tag));
    write(state, move |tx| {
        let p = whole(tx, &policy, POLICY_NOT_FOUND)?;
        let tag = match tag {
            Some(t) if tdb::exists(tx, &t)? => t,
            _ => return Err(Error::not_found(TAG_NOT_FOUND)),
        };
        let changed = if add {
            tdb::tag_policy(tx, p.id, &tag)?
        } else {
            tdb::untag_policy(tx, p.id, &tag)?
        };
        if !changed {
            return Ok(None);
        }
        evaluate_all(tx)?;
        whole(tx, &policy, POLICY_NOT_FOUND).map(Some)
    })
    .await
}

/// The fields a client sets on a policy.
#[derive(Clone, Debug)]
pub struct PolicyFields {
    pub name: String,
    pub operator: String,
    pub violation_state: String,
    pub include_children: bool,
    pub only_latest_project_version: bool,
}

fn conflict() -> Error {
    Error::new(
        ErrorKind::Conflict { code: "CONFLICT" },
        "A policy with the specified name already exists.",
    )
}

pub async fn create_policy(state: &Core, f: PolicyFields) -> Result<Policy> {
    write(state, move |tx| {
        if db::policy_name_taken(tx, &f.name, -1)? {
            return Err(conflict());
        }
        let p = Policy {
            id: 0,
            uuid: uuid::Uuid::new_v4().to_string(),
            name: f.name,
            operator: f.operator,
            violation_state: f.violation_state,
            include_children: f.include_children,
            only_latest_project_version: f.only_latest_project_version,
            conditions: Vec::new(),
            projects: Vec::new(),
            tags: Vec::new(),
        };
        db::insert_policy(tx, &p)?;
        whole(tx, &p.uuid, POLICY_NOT_FOUND)
    })
    .await
}

pub async fn update_policy(state: &Core, uuid: &str, f: PolicyFields) -> Result<Policy> {
    let uuid = uuid.to_string();
    write(state, move |tx| {
        let mut p =
            db::policy_by_uuid(tx, &uuid)?.ok_or_else(|| Error::not_found(POLICY_NOT_FOUND))?;
        if db::policy_name_taken(tx, &f.name, p.id)? {
            return Err(conflict());
        }
        p.name = f.name;
        p.operator = f.operator;
        p.violation_state = f.violation_state;
        p.include_children = f.include_children;
        p.only_latest_project_version = f.only_latest_project_version;
        db::update_policy(tx, &p)?;
        evaluate_all(tx)?;
        whole(tx, &uuid, POLICY_NOT_FOUND)
    })
    .await
}

pub async fn delete_policy(state: &Core, uuid: &str) -> Result<()> {
    let uuid = uuid.to_string();
    write(state, move |tx| {
        let p = db::policy_by_uuid(tx, &uuid)?
            .ok_or_else(|| Error::not_found(POLICY_UUID_NOT_FOUND))?;
        db::delete_policy(tx, p.id)?;
        evaluate_all(tx)
    })
    .await
}

/// `PUT /policy/{uuid}/condition`: adds a condition and re-evaluates the portfolio.
pub async fn add_condition(
    state: &Core,
    policy: &str,
    subject: &str,
    operator: &str,
    value: &str,
) -> Result<PolicyCondition> {
    let (policy, mut cond) = (
        policy.to_string(),
        PolicyCondition {
            id: 0,
            uuid: uuid::Uuid::new_v4().to_string(),
            subject: subject.to_string(),
            operator: operator.to_string(),
            value: value.to_string(),
        },
    );
    write(state, move |tx| {
        let p = db::policy_by_uuid(tx, &policy)?
            .ok_or_else(|| Error::not_found(POLICY_UUID_NOT_FOUND))?;
        cond.id = db::insert_condition(tx, p.id, &cond)?;
        evaluate_all(tx)?;
        Ok(cond)
    })
    .await
}

/// `POST /policy/condition`: changes a condition.
pub async fn update_condition(
    state: &Core,
    uuid: &str,
    subject: &str,
    operator: &str,
    value: &str,
) -> Result<PolicyCondition> {
    let (uuid, subject, operator, value) = (
        uuid.to_string(),
        subject.to_string(),
        operator.to_string(),
        value.to_string(),
    );
    write(state, move |tx| {
        let mut cond = db::condition_by_uuid(tx, &uuid)?
            .ok_or_else(|| Error::not_found(CONDITION_NOT_FOUND))?;
        cond.subject = subject;
        cond.operator = operator;
        cond.value = value;
        db::update_condition(tx, &cond)?;
        evaluate_all(tx)?;
        Ok(cond)
    })
    .await
}

pub async fn delete_condition(state: &Core, uuid: &str) -> Result<()> {
    let uuid = uuid.to_string();
    write(state, move |tx| {
        let cond = db::condition_by_uuid(tx, &uuid)?
            .ok_or_else(|| Error::not_found(CONDITION_NOT_FOUND))?;
        db::delete_condition(tx, cond.id)?;
        evaluate_all(tx)
    })
    .await
}

/// `GET /violation/project/{uuid}`.
pub async fn violations(
    state: &Core,
    who: &Principal,
    project: &str,
    suppressed: bool,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<PolicyViolation>, i64)> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, project) = (who.clone(), project.to_string());
    state
        .db
        .read(move |c| {
            let id = visible_project(c, acl, &who, &project)?;
            db::violations(c, id, suppressed, offset, limit)
        })
        .await
}

/// `GET /violation`: the portfolio's violations the caller may see (under the ACL, those of
/// projects mapped to its teams), active projects' only unless `inactive`.
pub async fn portfolio_violations(
    state: &Core,
    who: &Principal,
    suppressed: bool,
    inactive: bool,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<PolicyViolation>, i64)> {
    let teams = super::portfolio::visibility(state.config.dtrack.acl_enabled, who);
    let scope = db::ViolationScope::Portfolio { teams, inactive };
    state
        .db
        .read(move |c| db::violations_in(c, &scope, suppressed, offset, limit))
        .await
}

/// `GET /violation/component/{uuid}`: one component's violations, under its project's ACL.
pub async fn component_violations(
    state: &Core,
    who: &Principal,
    uuid: &str,
    suppressed: bool,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<PolicyViolation>, i64)> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    state
        .db
        .read(move |c| {
            let (comp, _) = super::portfolio::visible(
                c,
                acl,
                &who,
                pdb::component_by_uuid(c, &uuid)?,
                super::portfolio::COMPONENT_NOT_FOUND,
                super::portfolio::COMPONENT_FORBIDDEN,
            )?;
            let scope = db::ViolationScope::Component(comp.id);
            db::violations_in(c, &scope, suppressed, offset, limit)
        })
        .await
}

/// `PUT /violation/analysis`: state and suppression of one violation, with upstream's
/// comments (`OLD → NEW`, `Suppressed`/`Unsuppressed`, then the comment). Users comment under
/// their username; API keys comment anonymously, as upstream.
pub async fn analyze_violation(
    state: &Core,
    who: &Principal,
    component: &str,
    violation: &str,
    new_state: Option<String>,
    comment: Option<String>,
    suppressed: Option<bool>,
) -> Result<ViolationAnalysis> {
    let commenter = match &who.kind {
        PrincipalKind::User { username, .. } => Some(username.clone()),
        PrincipalKind::ApiKey { .. } => None,
    };
    let (component, violation) = (component.to_string(), violation.to_string());
    write(state, move |tx| {
        pdb::component_by_uuid(tx, &component)?
            .ok_or_else(|| Error::not_found("The component could not be found."))?;
        let v = db::violation_by_uuid(tx, &violation)?
            .ok_or_else(|| Error::not_found("The policy violation could not be found."))?;
        let state = new_state.unwrap_or_else(|| "NOT_SET".into());
        let now = crate::time::now_millis();
        let who = commenter.as_deref();
        let id = match db::analysis_of(tx, v.id)? {
            Some((id, old)) => {
                if old.state != state {
                    db::insert_violation_comment(
                        tx,
                        id,
                        now,
                        &format!("{} \u{2192} {state}", old.state),
                        who,
                    )?;
                }
                if let Some(s) = suppressed
                    && s != old.suppressed
                {
                    db::insert_violation_comment(
                        tx,
                        id,
                        now,
                        if s { "Suppressed" } else { "Unsuppressed" },
                        who,
                    )?;
                }
                db::update_violation_analysis(
                    tx,
                    id,
                    &state,
                    suppressed.unwrap_or(old.suppressed),
                )?;
                id
            }
            None => {
                let id = db::insert_violation_analysis(tx, v.id)?;
                db::update_violation_analysis(tx, id, &state, suppressed.unwrap_or(false))?;
                if state != "NOT_SET" {
                    db::insert_violation_comment(
                        tx,
                        id,
                        now,
                        &format!("NOT_SET \u{2192} {state}"),
                        who,
                    )?;
                }
                id
            }
        };
        if let Some(c) = &comment {
            db::insert_violation_comment(tx, id, now, c, who)?;
        }
        db::analysis_of(tx, v.id)?
            .map(|(_, a)| a)
            .ok_or_else(|| Error::internal("violation analysis vanished"))
    })
    .await
}
