//! Identity endpoints: login, forced password change, teams, team API keys, permissions.
//!
//! Thin handlers: parse, call `domain::dtrack::identity`, render with `wire`.
//!
//! Must not contain SQL or domain rules.

use hyper::StatusCode;
use serde_json::Value;

use crate::domain::Core;
use crate::domain::dtrack::identity as domain;
use crate::http;
use crate::model::dtrack::Principal;
use crate::model::dtrack::permissions::PermSet;

use super::params::{Query, check_name, json_body, valid_uuids};
use super::respond::{Out, json, json_list};
use super::wire;

fn form(body: &[u8]) -> Query {
    Query::parse(std::str::from_utf8(body).unwrap_or(""))
}

/// # `POST /api/v1/user/login`
///
/// Form `username`, `password`; 200 `text/plain` JWT. 401 `INVALID_CREDENTIALS` or
/// `FORCE_PASSWORD_CHANGE`, 403 `SUSPENDED`.
pub async fn login(state: &Core, body: &[u8]) -> Out {
    let f = form(body);
    let token = domain::login(
        state,
        f.get("username").unwrap_or(""),
        f.get("password").unwrap_or(""),
    )
    .await?;
    Ok(http::with_body(StatusCode::OK, "text/plain", token))
}

/// # `POST /api/v1/user/forceChangePassword`
///
/// Form `username`, `password`, `newPassword`, `confirmPassword`; 200 empty. 406 when the
/// passwords do not match or the new one equals the old.
pub async fn force_change_password(state: &Core, body: &[u8]) -> Out {
    let f = form(body);
    domain::change_password(
        state,
        f.get("username").unwrap_or(""),
        f.get("password").unwrap_or(""),
        f.get("newPassword").unwrap_or(""),
        f.get("confirmPassword").unwrap_or(""),
    )
    .await?;
    Ok(http::empty(StatusCode::OK))
}

/// # `GET /api/v1/team`
///
/// Every team, with `X-Total-Count`.
pub async fn get_teams(state: &Core) -> Out {
    let teams = domain::teams(state).await?;
    let body: Vec<Value> = teams.iter().map(wire::team).collect();
    Ok(json_list(&body, teams.len() as i64))
}

/// # `GET /api/v1/team/{uuid}`
pub async fn get_team(state: &Core, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getTeam.arg0")])?;
    let t = domain::team(state, uuid).await?;
    Ok(json(StatusCode::OK, &wire::team(&t)))
}

/// # `PUT /api/v1/team`
///
/// `{"name"}`; 201 Team (no API keys).
pub async fn create_team(state: &Core, body: &[u8]) -> Out {
    let t: wire::TeamIn = json_body(body)?;
    let name = check_name(t.name.as_deref(), "name")?;
    let team = domain::create_team(state, &name, PermSet::default(), false).await?;
    Ok(json(StatusCode::CREATED, &wire::team(&team)))
}

/// # `POST /api/v1/team`
///
/// `{"uuid","name"}`: renames the team; 404 `The team could not be found.`
pub async fn update_team(state: &Core, body: &[u8]) -> Out {
    let t: wire::TeamIn = json_body(body)?;
    let name = check_name(t.name.as_deref(), "name")?;
    let uuid = t.uuid.unwrap_or_default();
    let team = domain::rename_team(state, &uuid, &name).await?;
    Ok(json(StatusCode::OK, &wire::team(&team)))
}

/// # `DELETE /api/v1/team`
///
/// `{"uuid"}`: deletes the team with its keys; 204.
pub async fn delete_team(state: &Core, body: &[u8]) -> Out {
    let t: wire::TeamIn = json_body(body)?;
    domain::delete_team(state, &t.uuid.unwrap_or_default()).await?;
    Ok(http::empty(StatusCode::NO_CONTENT))
}

/// # `GET /api/v1/team/self`
///
/// The team of the calling API key; 400 `Invalid API key supplied.` for users.
pub async fn team_self(state: &Core, who: &Principal) -> Out {
    let t = domain::own_team(state, who).await?;
    Ok(json(StatusCode::OK, &wire::team_self(&t)))
}

/// # `PUT /api/v1/team/{uuid}/key`
///
/// 201 ApiKey including the full `key` (shown only here).
pub async fn create_key(state: &Core, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "generateApiKey.arg0")])?;
    let k = domain::create_key(state, uuid).await?;
    Ok(json(StatusCode::CREATED, &wire::api_key(&k)))
}

/// # `DELETE /api/v1/team/key/{publicIdOrKey}`
///
/// 204; 404 `The API key could not be found.`
pub async fn delete_key(state: &Core, key: &str) -> Out {
    domain::delete_key(state, key).await?;
    Ok(http::empty(StatusCode::NO_CONTENT))
}

/// # `GET /api/v1/permission`
///
/// All 14 permissions in upstream's order.
pub fn get_permissions() -> Out {
    Ok(json(StatusCode::OK, &wire::permissions(PermSet::all())))
}

/// # `POST|DELETE /api/v1/permission/{permission}/team/{uuid}`
///
/// 200 Team; 304 when already granted (or not held); 404 for team or permission.
pub async fn set_permission(state: &Core, permission: &str, uuid: &str, grant: bool) -> Out {
    let method = if grant {
        "addPermissionToTeam.arg0"
    } else {
        "removePermissionFromTeam.arg0"
    };
    valid_uuids(&[(uuid, method)])?;
    let t = domain::set_team_permission(state, permission, uuid, grant).await?;
    Ok(json(StatusCode::OK, &wire::team(&t)))
}
