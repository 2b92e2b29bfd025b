//! The badge endpoints: policy violations and vulnerabilities.
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
use crate::model::dtrack::permissions::Permission;

use super::auth;
use super::params::{Query, valid_uuids};
use super::respond::Out;
use super::svg;

/// Which badge is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Violations,
    Vulns,
}

async fn badge(state: &Core, req: &Request, target: BadgeTarget, kind: Kind) -> Out {
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
        match kind {
            Kind::Violations => svg::violations(facts.violations),
            Kind::Vulns => svg::vulns(facts.vulns.map(|v| {
                [
                    v.vulnerabilities,
                    v.critical,
                    v.high,
                    v.medium,
                    v.low,
                    v.unassigned,
                ]
            })),
        },
    ))
}

/// # `GET /api/v1/badge/violations/project/{uuid}`
///
/// `image/svg+xml` policy-violations badge from the latest metrics.
pub async fn by_uuid(state: &Core, req: &Request, _q: &Query, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getProjectPolicyViolationsBadge.arg0")])?;
    badge(
        state,
        req,
        BadgeTarget::Uuid(uuid.to_string()),
        Kind::Violations,
    )
    .await
}

/// # `GET /api/v1/badge/violations/project/{name}/{version}`
pub async fn by_name(state: &Core, req: &Request, _q: &Query, name: &str, version: &str) -> Out {
    badge(
        state,
        req,
        BadgeTarget::NameVersion(name.to_string(), version.to_string()),
        Kind::Violations,
    )
    .await
}

/// # `GET /api/v1/badge/vulns/project/{uuid}`
///
/// `image/svg+xml` vulnerability badge from the latest metrics (the violations badge's rules).
pub async fn vulns_by_uuid(state: &Core, req: &Request, _q: &Query, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getProjectVulnerabilitiesBadge.arg0")])?;
    badge(state, req, BadgeTarget::Uuid(uuid.to_string()), Kind::Vulns).await
}

/// # `GET /api/v1/badge/vulns/project/{name}/{version}`
pub async fn vulns_by_name(
    state: &Core,
    req: &Request,
    _q: &Query,
    name: &str,
    version: &str,
) -> Out {
    badge(
        state,
        req,
        BadgeTarget::NameVersion(name.to_string(), version.to_string()),
        Kind::Vulns,
    )
    .await
}
