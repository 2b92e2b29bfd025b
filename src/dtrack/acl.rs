//! Portfolio access-control endpoints: team-to-project mappings and a team's projects.
//!
//! Thin handlers over `domain::dtrack::portfolio`. No portfolio-ACL check here, as upstream.
//!
//! Must not contain SQL or domain rules.

use hyper::StatusCode;
use serde_json::Value;

use crate::db::dtrack_portfolio::ProjectQuery;
use crate::domain::Core;
use crate::domain::dtrack::portfolio as domain;
use crate::error::Error;
use crate::http;

use super::params::{Query, is_uuid, json_body, valid_uuids, violation};
use super::portfolio::{DEFAULT_ORDER, project_order};
use super::respond::{Out, json_list};
use super::wire;

/// # `PUT /api/v1/acl/mapping`
///
/// `{"team","project"}`: 200 empty; 404 `The UUID of the team could not be found.` (for either);
/// 409 `A mapping with the same team and project already exists.`; 400 (plain text) for a
/// `null` team or project, where upstream crashes.
pub async fn add_mapping(state: &Core, body: &[u8]) -> Out {
    let m: wire::AclMappingIn = json_body(body)?;
    for (field, v, msg) in [
        (
            "team",
            &m.team,
            "The team must be a valid 36 character UUID",
        ),
        (
            "project",
            &m.project,
            "The project must be a valid 36 character UUID",
        ),
    ] {
        if let Some(v) = v
            && !is_uuid(v)
        {
            return Err(violation(msg, msg, field, Value::from(v.as_str())));
        }
    }
    // Upstream crashes on a null UUID; a clear 400 instead.
    let (Some(team), Some(project)) = (m.team, m.project) else {
        return Err(
            Error::bad_request("The team and the project of a mapping must not be null.").into(),
        );
    };
    domain::add_mapping(state, &team, &project).await?;
    Ok(http::empty(StatusCode::OK))
}

/// # `DELETE /api/v1/acl/mapping/team/{teamUuid}/project/{projectUuid}`
///
/// 200 empty (also when there was no mapping); 404
/// `The UUID of the team or project could not be found.`
pub async fn delete_mapping(state: &Core, team: &str, project: &str) -> Out {
    valid_uuids(&[
        (team, "deleteMapping.arg0"),
        (project, "deleteMapping.arg1"),
    ])?;
    domain::remove_mapping(state, team, project).await?;
    Ok(http::empty(StatusCode::OK))
}

/// # `GET /api/v1/acl/team/{uuid}`
///
/// The projects mapped to a team: paginated and sortable, `excludeInactive`, `onlyRoot`,
/// exact `X-Total-Count`; 404 `The UUID of the team could not be found.`
pub async fn team_projects(state: &Core, uuid: &str, q: &Query) -> Out {
    valid_uuids(&[(uuid, "retrieveProjects.arg0")])?;
    let order = project_order(q, DEFAULT_ORDER)?;
    let team = domain::team_for_listing(state, uuid).await?;
    let page = q.page();
    let query = ProjectQuery {
        team: Some(team),
        visible_to: None,
        name: None,
        search: None,
        not_assigned_to: None,
        exclude_inactive: q.flag("excludeInactive"),
        only_root: q.flag("onlyRoot"),
        tag: None,
        classifier: None,
        parent: None,
        order,
        offset: page.offset,
        limit: page.limit,
    };
    let (projects, total) = domain::list(state, query, false).await?;
    let body: Vec<Value> = projects.iter().map(wire::project).collect();
    Ok(json_list(&body, total))
}
