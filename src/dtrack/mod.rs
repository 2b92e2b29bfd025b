//! The Dependency-Track API (part of OWASP Dependency-Track 4.14's REST API under `/api`) on
//! its own listener: route table, authentication, dispatch.
//!
//! `routes` is the one table of every endpoint (one `routes!` row each: method, path,
//! permission, consumed and produced media types, handler); this file holds the API's paths,
//! the listener's state and [`answer`], which calls an admitted request's endpoint. Admission by
//! those rows (credentials through [`auth`], permission, media type, rate limit) is the
//! Dependency-Track listener's, `listeners::dtrack`. Handlers live in one file per area and stay thin (parse, call a domain function in
//! `domain::dtrack`, render with [`wire`]). Shares nothing of its wire format or auth with the
//! chat API. Must not contain SQL.

pub mod acl;
pub mod auth;
pub mod badges;
pub mod bom;
pub mod evaluation;
pub mod exchange;
pub mod findings;
pub mod identity;
pub mod licenses;
pub mod metrics;
pub mod params;
pub mod policies;
pub mod portfolio;
pub mod projects;
pub mod respond;
pub mod routes;
pub mod search;
pub mod svg;
pub mod tags;
pub mod wire;

use std::sync::Arc;

use hyper::StatusCode;

use crate::domain::Core;
use crate::error::Error;
use crate::http::route::RouteTable;
use crate::http::{self, Request, Response};
use crate::model::dtrack::Principal;

use params::Query;
use respond::{Out, fail_response};

pub use routes::{Access, Endpoint, SAMPLE_ROUTES, route};

/// Every endpoint's name, indexed by its position in the table: the bounded `route` label
/// of the request metrics.
pub const ROUTE_NAMES: &[&str] = Endpoint::NAMES;

/// Splits `/api/a/b%20c` into decoded segments after `/api/`; `None` outside the API.
pub fn api_segments(path: &str) -> Option<Vec<String>> {
    http::route::segments(path.strip_prefix("/api/")?)
}

/// # `GET /api/version`
///
/// Unauthenticated: upstream's About (application, version, build and framework facts) with
/// this installation's stable `systemUuid`.
fn version(state: &Core) -> Out {
    Ok(respond::json(
        StatusCode::OK,
        &wire::about(state.dtrack.system_uuid()),
    ))
}

/// What the Dependency-Track listener holds, built by `app`: the domain handle and the
/// objects it shares with the other listeners (rate limits, its request counters).
pub struct DtrackState {
    pub core: Arc<Core>,
    /// Request rate limits per principal and address (`[limits]`), shared with the chat API.
    pub rates: Arc<crate::http::rate_limit::Rates>,
    /// This listener's requests per route (read by `/metrics`).
    pub requests: Arc<crate::metrics::RequestMetrics>,
}

/// Answers an admitted request for `endpoint`: parses its query, calls the row's handler and
/// renders a failure in upstream's form for the endpoint's media type. `who` is the principal
/// admission authenticated (none on public endpoints and badges).
pub async fn answer(
    state: &Core,
    endpoint: Endpoint,
    who: Option<&Principal>,
    req: Request,
) -> Response {
    let produces = endpoint.policy().produces;
    let query = Query::parse(req.query());
    let me = || who.ok_or_else(|| Error::internal("no principal on an authenticated route"));
    let call = routes::call(endpoint, state, &me, &query, &req.body[..], &req);
    match call.await {
        Ok(res) => res,
        Err(f) => fail_response(&f, produces),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::route::NoRoute;
    use hyper::Method;

    fn segs(p: &str) -> Vec<String> {
        api_segments(p).unwrap()
    }

    #[test]
    fn every_endpoint_has_a_sample_route_that_reaches_it() {
        crate::http::route::check_samples::<Endpoint>(
            |p| {
                // `{team}` → `xteam`, and so on for every placeholder.
                let mut out = String::new();
                for (i, part) in p.split('{').enumerate() {
                    match part.split_once('}') {
                        Some((name, rest)) if i > 0 => {
                            out.push('x');
                            out.push_str(name);
                            out.push_str(rest);
                        }
                        _ => out.push_str(part),
                    }
                }
                out
            },
            crate::http::route::ListOptions::Yes,
        );
    }

    #[test]
    fn routes_resolve() {
        assert_eq!(
            route(&Method::GET, &segs("/api/version")),
            Ok(Endpoint::Version)
        );
        assert_eq!(
            route(
                &Method::GET,
                &segs("/api/v1/badge/violations/project/a%2Fb/1.0")
            ),
            Ok(Endpoint::BadgeByName("a/b".into(), "1.0".into()))
        );
        assert_eq!(
            route(&Method::DELETE, &segs("/api/v1/team/key/abc")),
            Ok(Endpoint::DeleteKey("abc".into()))
        );
        assert_eq!(
            route(&Method::POST, &segs("/api/v1/analysis")),
            Err(NoRoute::Method(vec!["GET", "HEAD", "OPTIONS", "PUT"]))
        );
        assert_eq!(
            route(&Method::GET, &segs("/api/v2/x")),
            Err(NoRoute::NotFound)
        );
        assert!(api_segments("/v1/team").is_none());
    }
}
