//! Badge and metrics endpoints.
//!
//! Badges authenticate inside the handler, as upstream: unless badges are unauthenticated by
//! configuration, an API key (header, or `apiKey` query parameter) or a JWT with `VIEW_BADGES`
//! is needed, and with the ACL on the project must be visible to the caller.
//!
//! Must not contain SQL or domain rules.

use hyper::StatusCode;

use crate::domain::Core;
use crate::domain::dtrack::metrics::{self as domain, BadgeTarget};
use crate::domain::dtrack::portfolio::PROJECT_FORBIDDEN;
use crate::error::Error;
use crate::http::{self, Request};
use crate::model::dtrack::Principal;
use crate::model::dtrack::permissions::Permission;

use super::auth;
use super::params::{Query, valid_uuids};
use super::respond::{Out, json};
use super::{svg, wire};

async fn badge(state: &Core, req: &Request, target: BadgeTarget) -> Out {
    let cfg = &state.config.dtrack;
    let who = if cfg.badges_unauthenticated {
        None
    } else {
        let who = auth::authenticate(state, &req.parts, true).await?;
        if !who.permissions.contains(Permission::ViewBadges) {
            return Ok(http::empty(StatusCode::FORBIDDEN));
        }
        Some(who)
    };
    let facts = domain::badge_facts(state, target).await?;
    if let Some(who) = who
        && !domain::badge_access(cfg.acl_enabled, &who, &facts)
    {
        return Err(Error::forbidden(PROJECT_FORBIDDEN).into());
    }
    Ok(http::with_body(
        StatusCode::OK,
        "image/svg+xml",
        svg::violations(facts.violations),
    ))
}

/// # `GET /api/v1/badge/violations/project/{uuid}`
///
/// `image/svg+xml` policy-violations badge from the latest metrics.
pub async fn by_uuid(state: &Core, req: &Request, _q: &Query, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getProjectPolicyViolationsBadge.arg0")])?;
    badge(state, req, BadgeTarget::Uuid(uuid.to_string())).await
}

/// # `GET /api/v1/badge/violations/project/{name}/{version}`
pub async fn by_name(state: &Core, req: &Request, _q: &Query, name: &str, version: &str) -> Out {
    badge(
        state,
        req,
        BadgeTarget::NameVersion(name.to_string(), version.to_string()),
    )
    .await
}

/// # `GET /api/v1/metrics/project/{uuid}/refresh`
///
/// Records a new metrics snapshot; 200 empty.
pub async fn refresh_metrics(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "RefreshProjectMetrics.arg0")])?;
    domain::refresh(state, who, uuid).await?;
    Ok(http::empty(StatusCode::OK))
}

/// # `GET /api/v1/metrics/project/{uuid}/current`
///
/// The latest snapshot, with our own `notEvaluated` (components the analyzer could not
/// evaluate, counted now); 204 when there is none yet.
pub async fn current_metrics(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getProjectCurrentMetrics.arg0")])?;
    match crate::domain::dtrack::evaluation::current_metrics(state, who, uuid).await? {
        Some((m, n)) => Ok(json(StatusCode::OK, &wire::evaluation::metrics(&m, n))),
        None => Ok(http::empty(StatusCode::NO_CONTENT)),
    }
}
