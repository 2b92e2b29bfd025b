//! Portfolio rules: projects (parents, latest flag, tags, access teams), components, the
//! portfolio ACL and team-to-project mappings.
//!
//! Error texts are upstream's. Must not touch HTTP types or SQL.

use crate::db::dtrack_identity as idb;
use crate::db::dtrack_portfolio as db;
use crate::db::dtrack_portfolio::ProjectQuery;
use crate::domain::core::Core;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::{ProjectId, TeamId};

use super::state::write;
use crate::model::dtrack::permissions::Permission;
use crate::model::dtrack::{Component, Principal, Project, ProjectFields, TeamRef};

pub const PROJECT_NOT_FOUND: &str = "The project could not be found.";
pub const PROJECT_FORBIDDEN: &str = "Access to the specified project is forbidden";
pub const COMPONENT_NOT_FOUND: &str = "The component could not be found.";
pub const COMPONENT_FORBIDDEN: &str = "Access to the specified component is forbidden";

/// Upstream's `hasAccess`: ACL off, or `ACCESS_MANAGEMENT`, or a team mapped to the project.
pub fn has_access(
    c: &rusqlite::Connection,
    acl_enabled: bool,
    who: &Principal,
    project: ProjectId,
) -> Result<bool> {
    if !acl_enabled || who.permissions.contains(Permission::AccessManagement) {
        return Ok(true);
    }
    let teams: Vec<TeamId> = who.teams.iter().map(|(t, _)| *t).collect();
    db::has_access_team(c, project, &teams)
}

/// Something that lives in one project: that project's id, a project, or a component with
/// its project's id.
pub trait InProject {
    fn project(&self) -> ProjectId;
}

impl InProject for ProjectId {
    fn project(&self) -> ProjectId {
        *self
    }
}

impl InProject for Project {
    fn project(&self) -> ProjectId {
        self.id
    }
}

impl InProject for (Component, ProjectId) {
    fn project(&self) -> ProjectId {
        self.1
    }
}

/// The lookup-then-ACL check every project-scoped rule starts with: nothing `found` is a 404
/// with `not_found`; something in a project the caller may not see (see [`has_access`]) is a
/// 403 with `forbidden`.
pub fn visible<T: InProject>(
    c: &rusqlite::Connection,
    acl_enabled: bool,
    who: &Principal,
    found: Option<T>,
    not_found: &'static str,
    forbidden: &'static str,
) -> Result<T> {
    let found = found.ok_or_else(|| Error::not_found(not_found))?;
    if !has_access(c, acl_enabled, who, found.project())? {
        return Err(Error::forbidden(forbidden));
    }
    Ok(found)
}

/// [`visible`] for the common case: a project named by UUID, with upstream's usual texts.
pub fn visible_project(
    c: &rusqlite::Connection,
    acl_enabled: bool,
    who: &Principal,
    uuid: &str,
) -> Result<ProjectId> {
    visible(
        c,
        acl_enabled,
        who,
        db::project_id_by_uuid(c, uuid)?,
        PROJECT_NOT_FOUND,
        PROJECT_FORBIDDEN,
    )
}

/// The team filter of listings under the ACL (`None` = everything visible). A principal with
/// no teams gets no filter, as upstream.
pub fn visibility(acl_enabled: bool, who: &Principal) -> Option<Vec<TeamId>> {
    if !acl_enabled
        || who.permissions.contains(Permission::AccessManagement)
        || who.teams.is_empty()
    {
        None
    } else {
        Some(who.teams.iter().map(|(t, _)| *t).collect())
    }
}

fn conflict(msg: &'static str) -> Error {
    Error::new(ErrorKind::Conflict { code: "CONFLICT" }, msg)
}

/// `PUT /project`: creates a project; under the ACL an API key's team gets mapped to it.
pub async fn create_project(state: &Core, who: &Principal, f: ProjectFields) -> Result<Project> {
    let acl = state.config.dtrack.acl_enabled;
    let who = who.clone();
    write(state, move |tx| {
        if db::project_id_by_name(tx, &f.name, f.version.as_deref())?.is_some() {
            return Err(conflict("A project with the specified name already exists."));
        }
        if f.is_latest {
            check_latest_access(tx, acl, &who, &f.name)?;
        }
        let parent = match &f.parent_uuid {
            Some(u) => Some(visible(
                tx,
                acl,
                &who,
                db::project_id_by_uuid(tx, u)?,
                "The UUID of the parent project could not be found.",
                "Access to the specified parent project is forbidden",
            )?),
            None => None,
        };
        let admin = who.permissions.contains(Permission::AccessManagement);
        let mut teams = Vec::new();
        for t in &f.access_teams {
            let found = match t {
                TeamRef::Uuid(u) => idb::team_id_by_uuid(tx, u)?,
                TeamRef::Name(n) => idb::team_id_by_name(tx, n)?,
            }
            .filter(|id| admin || who.teams.iter().any(|(mine, _)| mine == id));
            let Some(id) = found else {
                let what = match t {
                    TeamRef::Uuid(u) => format!("UUID {u}"),
                    TeamRef::Name(n) => format!("name {n}"),
                };
                return Err(Error::bad_request(format!(
                    "The team with {what} can not be assigned because it does not exist, or is not accessible to the authenticated principal."
                )));
            };
            teams.push(id);
        }
        let uuid = uuid::Uuid::new_v4().to_string();
        let id = db::insert_project(tx, &uuid, &f, parent)?;
        if f.is_latest {
            db::clear_latest(tx, &f.name, id)?;
        }
        for t in teams {
            db::add_access_team(tx, id, t)?;
        }
        if acl && matches!(who.kind, crate::model::dtrack::PrincipalKind::ApiKey { .. })
            && let Some((t, _)) = who.teams.first()
        {
            db::add_access_team(tx, id, *t)?;
        }
        let mut p = db::project_by_id(tx, id)?.ok_or_else(|| Error::internal("project vanished"))?;
        p.children = Some(Vec::new());
        Ok(p)
    })
    .await
}

/// `POST /project`: updates the project named by `uuid`.
pub async fn update_project(
    state: &Core,
    who: &Principal,
    uuid: &str,
    f: ProjectFields,
) -> Result<Project> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    write(state, move |tx| {
        let cur = visible(
            tx,
            acl,
            &who,
            db::project_by_uuid(tx, &uuid)?,
            "The UUID of the project could not be found.",
            PROJECT_FORBIDDEN,
        )?;
        apply_update(tx, acl, &who, &cur, f)
    })
    .await
}

/// Upstream's 403 when a project is made the latest version while the caller may not see the
/// current latest version of that name.
pub fn check_latest_access(
    c: &rusqlite::Connection,
    acl: bool,
    who: &Principal,
    name: &str,
) -> Result<()> {
    if let Some(old) = crate::db::dtrack_projects::latest_version(c, name)?
        && !has_access(c, acl, who, old)?
    {
        return Err(Error::forbidden(
            "Cannot set this project version to latest. Access to current latest version is forbidden!",
        ));
    }
    Ok(())
}

/// Writes `f` over the visible project `cur` (a full update: `POST /project`, and
/// `PATCH /project/{uuid}` after merging): name kept when blank, name and version unique,
/// parent checks, collection and active-children rules, latest flag moved.
pub fn apply_update(
    tx: &rusqlite::Connection,
    acl: bool,
    who: &Principal,
    cur: &Project,
    mut f: ProjectFields,
) -> Result<Project> {
    use crate::db::dtrack_projects as more;
    if f.name.is_empty() {
        f.name = cur.name.clone();
    }
    if f.is_latest && !cur.is_latest {
        check_latest_access(tx, acl, who, &f.name)?;
    }
    if let Some(other) = db::project_id_by_name(tx, &f.name, f.version.as_deref())?
        && other != cur.id
    {
        return Err(conflict(
            "A project with the specified name and version already exists.",
        ));
    }
    let parent = match &f.parent_uuid {
        Some(u) => {
            if *u == cur.uuid {
                return Err(conflict("A project cannot select itself as a parent"));
            }
            let p = db::project_by_uuid(tx, u)?.ok_or_else(|| {
                Error::not_found("The UUID of the parent project could not be found.")
            })?;
            if !has_access(tx, acl, who, p.id)? {
                return Err(Error::forbidden(
                    "Access to the specified parent project is forbidden",
                ));
            }
            if db::is_self_or_ancestor(tx, p.id, cur.id)? {
                return Err(conflict(
                    "The new parent project cannot be a descendant of the current project.",
                ));
            }
            if !p.active {
                return Err(conflict(
                    "An inactive project cannot be selected as a parent",
                ));
            }
            Some(p.id)
        }
        None => None,
    };
    let logic = if f.collection_logic.is_empty() {
        "NONE"
    } else {
        f.collection_logic.as_str()
    };
    if logic != cur.collection_logic && logic != "NONE" && more::has_components(tx, cur.id)? {
        return Err(conflict(
            "Project cannot be made a collection project while it has components or services!",
        ));
    }
    if cur.active && !f.active && more::has_active_child(tx, cur.id)? {
        return Err(conflict(
            "Project cannot be set to inactive if active children are present.",
        ));
    }
    db::update_project(tx, cur.id, &f, parent)?;
    if f.is_latest {
        db::clear_latest(tx, &f.name, cur.id)?;
    }
    let mut p =
        db::project_by_id(tx, cur.id)?.ok_or_else(|| Error::internal("project vanished"))?;
    p.children = Some(db::children(tx, cur.id)?);
    Ok(p)
}

/// `GET /project/{uuid}`: with children; ACL-checked.
pub async fn project(state: &Core, who: &Principal, uuid: &str) -> Result<Project> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    state
        .db
        .read(move |c| {
            let mut p = visible(
                c,
                acl,
                &who,
                db::project_by_uuid(c, &uuid)?,
                PROJECT_NOT_FOUND,
                PROJECT_FORBIDDEN,
            )?;
            p.children = Some(db::children(c, p.id)?);
            attach_metrics_and_versions(c, &mut p)?;
            Ok(p)
        })
        .await
}

/// `GET /project/lookup`: by exact name and version; ACL-checked; no children.
pub async fn lookup(
    state: &Core,
    who: &Principal,
    name: &str,
    version: Option<&str>,
) -> Result<Project> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, name, version) = (who.clone(), name.to_string(), version.map(str::to_string));
    state
        .db
        .read(move |c| {
            let id = visible(
                c,
                acl,
                &who,
                db::project_id_by_name(c, &name, version.as_deref())?,
                PROJECT_NOT_FOUND,
                PROJECT_FORBIDDEN,
            )?;
            let mut p =
                db::project_by_id(c, id)?.ok_or_else(|| Error::not_found(PROJECT_NOT_FOUND))?;
            attach_metrics_and_versions(c, &mut p)?;
            Ok(p)
        })
        .await
}

/// What upstream adds to single-project reads: the latest metrics and the name's versions.
fn attach_metrics_and_versions(c: &rusqlite::Connection, p: &mut Project) -> Result<()> {
    p.metrics = crate::db::dtrack_metrics::latest_metrics(c, p.id)?;
    p.versions = Some(db::versions(c, &p.name)?);
    Ok(())
}

/// A project listing; root listings carry children as upstream's `ALL` fetch group does, and
/// `with_metrics` adds each project's latest metrics.
pub async fn list(
    state: &Core,
    q: ProjectQuery,
    with_metrics: bool,
) -> Result<(Vec<Project>, i64)> {
    state
        .db
        .read(move |c| {
            let (mut ps, total) = db::projects(c, &q)?;
            for p in &mut ps {
                if q.only_root {
                    p.children = Some(db::children(c, p.id)?);
                }
                if with_metrics {
                    p.metrics = crate::db::dtrack_metrics::latest_metrics(c, p.id)?;
                }
            }
            Ok((ps, total))
        })
        .await
}

/// `DELETE /project/{uuid}`: with its children, components and findings.
pub async fn delete_project(state: &Core, who: &Principal, uuid: &str) -> Result<()> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    write(state, move |tx| {
        let id = visible(
            tx,
            acl,
            &who,
            db::project_id_by_uuid(tx, &uuid)?,
            "The UUID of the project could not be found.",
            PROJECT_FORBIDDEN,
        )?;
        db::delete_project(tx, id)
    })
    .await
}

/// `PUT /acl/mapping`.
pub async fn add_mapping(state: &Core, team: &str, project: &str) -> Result<()> {
    let (team, project) = (team.to_string(), project.to_string());
    write(state, move |tx| {
        let t = idb::team_id_by_uuid(tx, &team)?;
        let p = db::project_id_by_uuid(tx, &project)?;
        let (Some(t), Some(p)) = (t, p) else {
            return Err(Error::not_found("The UUID of the team could not be found."));
        };
        if !db::add_access_team(tx, p, t)? {
            return Err(conflict(
                "A mapping with the same team and project already exists.",
            ));
        }
        Ok(())
    })
    .await
}

/// `DELETE /acl/mapping/team/{t}/project/{p}`: idempotent.
pub async fn remove_mapping(state: &Core, team: &str, project: &str) -> Result<()> {
    let (team, project) = (team.to_string(), project.to_string());
    write(state, move |tx| {
        let t = idb::team_id_by_uuid(tx, &team)?;
        let p = db::project_id_by_uuid(tx, &project)?;
        let (Some(t), Some(p)) = (t, p) else {
            return Err(Error::not_found(
                "The UUID of the team or project could not be found.",
            ));
        };
        db::remove_access_team(tx, p, t)
    })
    .await
}

/// The team id of a team uuid for listings; 404 with the ACL listing's text.
pub async fn team_for_listing(state: &Core, uuid: &str) -> Result<TeamId> {
    let uuid = uuid.to_string();
    state
        .db
        .read(move |c| idb::team_id_by_uuid(c, &uuid))
        .await?
        .ok_or_else(|| Error::not_found("The UUID of the team could not be found."))
}

/// `PUT /component/project/{uuid}`.
pub async fn create_component(
    state: &Core,
    who: &Principal,
    project: &str,
    mut f: Component,
) -> Result<Component> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, project) = (who.clone(), project.to_string());
    write(state, move |tx| {
        let p = visible(
            tx,
            acl,
            &who,
            db::project_by_uuid(tx, &project)?,
            PROJECT_NOT_FOUND,
            PROJECT_FORBIDDEN,
        )?;
        if p.collection_logic != "NONE" {
            return Err(Error::bad_request(
                "Collection project cannot contain components.",
            ));
        }
        f.uuid = uuid::Uuid::new_v4().to_string();
        let id = db::insert_component(tx, p.id, &f)?;
        super::osv::matching::match_stored_component(tx, id, &mut Default::default())?;
        super::policies::evaluate_project(tx, p.id)?;
        Ok(db::component_by_uuid(tx, &f.uuid)?
            .ok_or_else(|| Error::internal("component vanished"))?
            .0)
    })
    .await
}

/// `POST /component`: updates the component named by `f.uuid`.
pub async fn update_component(state: &Core, who: &Principal, f: Component) -> Result<Component> {
    let acl = state.config.dtrack.acl_enabled;
    let who = who.clone();
    write(state, move |tx| {
        let (cur, project) = visible(
            tx,
            acl,
            &who,
            db::component_by_uuid(tx, &f.uuid)?,
            COMPONENT_NOT_FOUND,
            COMPONENT_FORBIDDEN,
        )?;
        db::update_component(tx, cur.component_id(), &f)?;
        super::osv::matching::match_stored_component(
            tx,
            cur.component_id(),
            &mut Default::default(),
        )?;
        super::policies::evaluate_project(tx, project)?;
        Ok(db::component_by_uuid(tx, &f.uuid)?
            .ok_or_else(|| Error::internal("component vanished"))?
            .0)
    })
    .await
}

/// `GET /component/{uuid}`.
pub async fn component(state: &Core, who: &Principal, uuid: &str) -> Result<Component> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    state
        .db
        .read(move |c| {
            let (comp, _) = visible(
                c,
                acl,
                &who,
                db::component_by_uuid(c, &uuid)?,
                COMPONENT_NOT_FOUND,
                COMPONENT_FORBIDDEN,
            )?;
            Ok(comp)
        })
        .await
}

/// `DELETE /component/{uuid}`.
pub async fn delete_component(state: &Core, who: &Principal, uuid: &str) -> Result<()> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    write(state, move |tx| {
        let (comp, project) = visible(
            tx,
            acl,
            &who,
            db::component_by_uuid(tx, &uuid)?,
            "The UUID of the component could not be found.",
            COMPONENT_FORBIDDEN,
        )?;
        db::delete_component(tx, comp.component_id())?;
        super::policies::evaluate_project(tx, project)
    })
    .await
}

/// `GET /component/project/{uuid}`: a page of components and the total.
pub async fn components(
    state: &Core,
    who: &Principal,
    project: &str,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<Component>, i64)> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, project) = (who.clone(), project.to_string());
    state
        .db
        .read(move |c| {
            let id = visible_project(c, acl, &who, &project)?;
            db::components(c, id, offset, limit)
        })
        .await
}
