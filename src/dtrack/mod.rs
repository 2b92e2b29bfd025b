//! The Dependency-Track API (part of OWASP Dependency-Track 4.14's REST API under `/api`) on
//! its own listener: route table, authentication, dispatch.
//!
//! `routes` is the one table of every endpoint (one `routes!` row each: method, path,
//! permission, consumed and produced media types, handler); this file admits requests by
//! those rows and dispatches them. Handlers live in one file per area and stay thin (parse, call a domain function in
//! `domain::dtrack`, render with [`wire`]). Shares nothing of its wire format or auth with the
//! chat API. Must not contain SQL.

pub mod acl;
pub mod auth;
pub mod badges;
pub mod bom;
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
pub mod wire;

use std::borrow::Cow;
use std::net::IpAddr;
use std::sync::Arc;

use hyper::http::request::Parts;
use hyper::{Method, StatusCode};

use crate::domain::Core;
use crate::error::{Error, ErrorKind};
use crate::http::rate_limit::{self, Limited, RateKey, RateState};
use crate::http::route::{NoRoute, RouteTable};
use crate::http::server::{Admission, Api, BoxFuture};
use crate::http::{self, Request, Response};
use crate::model::dtrack::{Principal, PrincipalKind};

use params::Query;
use respond::{Out, decorate, fail_response};

pub use routes::{Access, Endpoint, SAMPLE_ROUTES, route};

/// Every endpoint's name, indexed by its position in the table: the bounded `route` label
/// of the request metrics.
pub const ROUTE_NAMES: &[&str] = Endpoint::NAMES;

/// Splits `/api/a/b%20c` into decoded segments after `/api/`; `None` outside the API.
fn api_segments(path: &str) -> Option<Vec<String>> {
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

/// The Dependency-Track API as served on its listener.
pub struct DtrackApi {
    state: DtrackState,
}

/// What admission decided for a Dependency-Track request: its endpoint and principal.
pub struct DtTicket {
    endpoint: Endpoint,
    who: Option<Arc<Principal>>,
    rate: Option<RateState>,
}

/// Dependency-Track's 429 (plain text, `Retry-After`), with the rate-limit headers.
fn rate_limited(l: Limited) -> Response {
    let mut res = respond::respond(
        &Error::new(
            ErrorKind::RateLimited {
                retry_after: l.retry_after,
            },
            "Too many requests; try again later",
        ),
        "text/plain",
    );
    rate_limit::add_headers(&mut res, &l.state);
    res
}

/// Largest body of an unauthenticated request (the login forms).
const UNAUTHENTICATED_BODY: usize = 16 * 1024;

impl DtrackApi {
    pub fn new(state: DtrackState) -> DtrackApi {
        DtrackApi { state }
    }

    /// Counts the request against its rate limit when its row says so (badges are not): the
    /// principal's, or for the login forms the client address's.
    fn rate_check(
        &self,
        metered: bool,
        who: Option<&Principal>,
        peer: IpAddr,
    ) -> Result<Option<RateState>, Limited> {
        if !metered {
            return Ok(None);
        }
        let caller = who.map(|p| {
            let key = match &p.kind {
                PrincipalKind::ApiKey { id } => format!("key:{}", id.0),
                PrincipalKind::User { username, .. } => format!("user:{username}"),
            };
            (RateKey::Principal(key), false)
        });
        self.state.rates.admit(caller, peer)
    }

    /// Route, credentials, permission, media type and rate limit, from the head alone.
    async fn admit_head(
        &self,
        head: &Parts,
        peer: IpAddr,
    ) -> Result<Admission<DtTicket>, Response> {
        let Some(segs) = api_segments(head.uri.path()) else {
            return Err(http::empty(StatusCode::NOT_FOUND));
        };
        let endpoint = match route(&head.method, &segs) {
            Ok(e) => e,
            Err(NoRoute::NotFound) => return Err(http::empty(StatusCode::NOT_FOUND)),
            Err(NoRoute::Method(allowed)) => {
                if head.method == Method::OPTIONS {
                    return Err(http::route::allow_response(StatusCode::OK, &allowed, ","));
                }
                return Err(respond::respond(
                    &Error::new(ErrorKind::MethodNotAllowed(allowed), ""),
                    "text/plain",
                ));
            }
        };
        let policy = endpoint.policy();
        let produces = policy.produces;
        let who = match policy.access {
            Access::Public | Access::Badge => None,
            Access::Authenticated | Access::Needs(_) => {
                match auth::authenticate(&self.state.core, head, false).await {
                    Ok(p) => Some(p),
                    Err(e) => return Err(respond::respond(&e, produces)),
                }
            }
        };
        if let (Access::Needs(p), Some(who)) = (policy.access, &who)
            && !who.permissions.contains(p)
        {
            return Err(http::empty(StatusCode::FORBIDDEN));
        }
        if let Some(wanted) = policy.consumes {
            // The declared media type is required: a body without one is not read.
            let given = head
                .headers
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .map(|v| v.split(';').next().unwrap_or("").trim());
            if !given.is_some_and(|g| g.eq_ignore_ascii_case(wanted)) {
                return Err(http::empty(StatusCode::UNSUPPORTED_MEDIA_TYPE));
            }
        }
        let rate = self
            .rate_check(policy.metered, who.as_deref(), peer)
            .map_err(rate_limited)?;
        let limits = &self.state.core.config.limits;
        let upload = policy.upload;
        let body_limit = match policy.access {
            _ if upload => limits.max_upload_bytes,
            Access::Public | Access::Badge => limits.max_body_bytes.min(UNAUTHENTICATED_BODY),
            _ => limits.max_body_bytes,
        };
        Ok(Admission {
            ticket: DtTicket {
                endpoint,
                who,
                rate,
            },
            body_limit,
            upload,
        })
    }

    async fn dispatch(&self, ticket: DtTicket, req: Request) -> Response {
        let DtTicket {
            endpoint,
            who,
            rate,
        } = ticket;
        let produces = endpoint.policy().produces;
        let query = Query::parse(req.query());
        let who = who.as_deref();
        let me = || who.ok_or_else(|| Error::internal("no principal on an authenticated route"));
        let call = routes::call(endpoint, &self.state.core, &me, &query, &req.body[..], &req);
        let mut res = match call.await {
            Ok(res) => res,
            Err(f) => fail_response(&f, produces),
        };
        if let Some(s) = &rate {
            rate_limit::add_headers(&mut res, s);
        }
        res
    }
}

impl Api for DtrackApi {
    type Ticket = DtTicket;

    async fn admit(
        &self,
        head: &Parts,
        peer: std::net::SocketAddr,
    ) -> Result<Admission<DtTicket>, Response> {
        self.admit_head(head, peer.ip()).await.map_err(|mut res| {
            decorate(&mut res);
            res
        })
    }

    fn handle(self: Arc<Self>, ticket: DtTicket, req: Request) -> BoxFuture<Response> {
        Box::pin(async move {
            let mut res = self.dispatch(ticket, req).await;
            decorate(&mut res);
            res
        })
    }

    fn payload_too_large(&self, _limit: usize) -> Response {
        let mut res = http::empty(StatusCode::PAYLOAD_TOO_LARGE);
        decorate(&mut res);
        res
    }

    fn body_failed(&self, timed_out: bool) -> Response {
        let err = if timed_out {
            Error::new(
                ErrorKind::Timeout,
                "The request body did not arrive in time",
            )
        } else {
            Error::bad_request("The request body could not be read")
        };
        let mut res = respond::respond(&err, "text/plain");
        decorate(&mut res);
        res
    }

    fn overloaded(&self) -> Response {
        let mut res = respond::respond(
            &Error::new(
                ErrorKind::Unavailable,
                "The server is busy (too many connections or uploads at once); try again shortly",
            ),
            "text/plain",
        );
        decorate(&mut res);
        res
    }

    fn internal_error(&self) -> Response {
        let mut res = respond::internal_error_response();
        decorate(&mut res);
        res
    }

    fn metrics(&self) -> Option<&crate::metrics::RequestMetrics> {
        Some(&self.state.requests)
    }

    fn route_index(&self, ticket: &DtTicket) -> Option<usize> {
        Some(ticket.endpoint.route_index())
    }

    /// API keys travel in `DELETE /api/v1/team/key/{key}`: never log them.
    fn loggable_path<'a>(&self, path: &'a str) -> Cow<'a, str> {
        match path.find("/v1/team/key/") {
            Some(i) => Cow::Owned(format!("{}/v1/team/key/***", &path[..i])),
            None => Cow::Borrowed(path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
