//! The chat API (Zulip's REST API under `/api/v1`): the pieces are children (`routes`, the one
//! table of every endpoint; `auth`, its credentials; handlers in one file per area, thin: parse,
//! call a domain function, render); this file holds the API's paths and [`answer`], which parses
//! an admitted request's parameters and calls its endpoint. Only this module and its children
//! know Zulip's wire format. Must not contain SQL, and must not name `web`: the chat listener
//! (`listeners::chat`) joins this table with the web client's pages and sessions, and the web
//! client's pages name the chat API, not the other way round.

pub mod auth;
pub mod bot_storage;
pub mod bots;
pub mod channel_folders;
pub mod channels;
pub mod delivery;
pub mod emoji;
pub mod envelope;
pub mod invites;
pub mod messages;
pub mod notifications;
pub mod outgoing_webhooks;
pub mod params;
pub mod presence;
pub mod realm;
pub mod realtime;
pub mod records;
pub mod register_state;
pub mod routes;
pub mod scheduled;
pub mod server;
mod state;
pub mod topics;
pub mod uploads;
pub mod user_groups;
pub mod users;
pub mod webhooks;
pub mod wire;

use hyper::header::SET_COOKIE;

use crate::error::Error;
use crate::http::route;
use crate::http::server::LARGE_BODY;
use crate::http::{Request, Response};
use crate::model::User;

use envelope::error_response;
use params::{Params, RawParams};
use routes::{Renew, Reply};

pub use routes::{Endpoint, SAMPLE_ROUTES, route};
pub use server::EMOJI_DATA_PATH;
pub use state::ChatState;

/// Splits `/api/v1/a/b%40c` into decoded segments after the prefix; `None` outside the API.
pub fn api_segments(path: &str) -> Option<Vec<String>> {
    let rest = path
        .strip_prefix("/api/v1/")
        .or_else(|| (path == "/api/v1").then_some(""))?;
    route::segments(rest)
}

/// The same for the web client's `/json/a/b` (the same table, with session credentials).
pub fn json_segments(path: &str) -> Option<Vec<String>> {
    let rest = path
        .strip_prefix("/json/")
        .or_else(|| (path == "/json").then_some(""))?;
    route::segments(rest)
}

/// An endpoint's answer, and whether it changed the caller's credentials (a new password or
/// API key ends the user's web sessions): then a browser that asked through its session needs
/// a new one, which the listener that knows sessions gives it.
pub struct Answered {
    pub response: Response,
    pub credentials_changed: bool,
}

impl Answered {
    fn plain(response: Response) -> Answered {
        Answered {
            response,
            credentials_changed: false,
        }
    }

    /// Adds a `Set-Cookie` header (the renewed session's).
    pub fn set_cookie(mut self, cookie: hyper::header::HeaderValue) -> Response {
        self.response.headers_mut().append(SET_COOKIE, cookie);
        self.response
    }
}

/// Answers an admitted request for `endpoint`: parses its parameters (large form bodies on
/// the CPU threads, not on an async worker), calls the row's handler and renders the result
/// or the error in Zulip's envelope. `caller` is the one admission authenticated.
pub async fn answer(
    state: &ChatState,
    endpoint: Endpoint,
    caller: Option<&User>,
    req: Request,
) -> Answered {
    let max_params = state.config.limits.max_params;
    let parsed = if req.body.len() > LARGE_BODY {
        let raw = RawParams::of(&req);
        state
            .db
            .cpu(move || raw.parse(max_params))
            .await
            .and_then(|r| r)
    } else {
        Params::from_request(&req, max_params)
    };
    let mut params = match parsed {
        Ok(p) => p,
        Err(e) => return Answered::plain(error_response(&e)),
    };
    let credentials_changed = match endpoint.policy().renew {
        Renew::Never => false,
        Renew::Always => true,
        Renew::WithParam(name) => params.has(name),
    };
    // Authenticated endpoints always have a caller (checked at admission).
    let me = || caller.ok_or_else(|| Error::internal("no caller on an authenticated route"));
    match routes::call(endpoint, state, &me, &mut params, req).await {
        Ok(Reply::Raw(res)) => Answered::plain(res),
        Ok(Reply::Json(success)) => Answered {
            response: success.finish(params.unused()),
            credentials_changed,
        },
        Err(e) => Answered::plain(error_response(&e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::http::route::{ListOptions, NoRoute};
    use hyper::Method;
    use users::UserRef;

    fn segs(p: &str) -> Vec<String> {
        api_segments(p).unwrap()
    }

    #[test]
    fn every_endpoint_has_a_sample_route_that_reaches_it() {
        route::check_samples::<Endpoint>(|p| p.replace("{id}", "7"), ListOptions::No);
    }

    #[test]
    fn routes_resolve_with_typed_ids() {
        assert_eq!(
            route(&Method::GET, &segs("/api/v1/users/me")),
            Ok(Endpoint::GetOwnUser)
        );
        assert_eq!(
            route(&Method::HEAD, &segs("/api/v1/users/12")),
            Ok(Endpoint::GetUser(UserRef::Id(12)))
        );
        assert_eq!(
            route(&Method::PATCH, &segs("/api/v1/users/a%40b.c")),
            Ok(Endpoint::UpdateUser(UserRef::Email("a@b.c".into())))
        );
        assert_eq!(
            route(&Method::GET, &segs("/api/v1//users/5/status")),
            Ok(Endpoint::GetUserStatus(5))
        );
        assert_eq!(
            route(&Method::GET, &segs("/api/v1/users/x/status")),
            Err(NoRoute::NotFound)
        );
        assert_eq!(
            route(&Method::PUT, &segs("/api/v1/users")),
            Err(NoRoute::Method(vec!["GET", "HEAD", "POST"]))
        );
        assert!(api_segments("/other").is_none());
        assert_eq!(json_segments("/json/users/me").unwrap(), ["users", "me"]);
    }
}
