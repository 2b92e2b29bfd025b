//! The Dependency-Track listener: the [`Api`] over the Dependency-Track API's route table
//! (`dtrack::routes`), admitting each request from its head by its row (route, credentials
//! through `dtrack::auth`, permission, media type, body limit, rate limit) before the body is
//! read, and answering through `dtrack::answer`. Every answer, errors of the listener loop
//! included, gets upstream's headers (`dtrack::respond::decorate`).
//!
//! Here beside the other listeners, so that `dtrack` is the API (its table, handlers and wire
//! forms) and this module is how one listener serves it. Must not hold API logic, nor share
//! anything with the chat listener but the rate limits and counters `app` gives it.

use std::borrow::Cow;
use std::net::IpAddr;
use std::sync::Arc;

use hyper::http::request::Parts;
use hyper::{Method, StatusCode};

use crate::dtrack::respond::{self, decorate};
use crate::dtrack::{self, Access, DtrackState, Endpoint, api_segments, auth, route};
use crate::error::{Error, ErrorKind};
use crate::http::rate_limit::{self, Limited, RateKey, RateState};
use crate::http::route::{NoRoute, RouteTable};
use crate::http::server::{Admission, Api, BoxFuture};
use crate::http::{self, Request, Response};
use crate::model::dtrack::{Principal, PrincipalKind};

/// The Dependency-Track listener's API.
pub struct DtrackListener {
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

impl DtrackListener {
    pub fn new(state: DtrackState) -> DtrackListener {
        DtrackListener { state }
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
        let mut res = dtrack::answer(&self.state.core, endpoint, who.as_deref(), req).await;
        if let Some(s) = &rate {
            rate_limit::add_headers(&mut res, s);
        }
        res
    }
}

impl Api for DtrackListener {
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
