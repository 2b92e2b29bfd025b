//! The chat API (Zulip's REST API under `/api/v1`) as served on its listener: the pieces are
//! children (`routes`, the one table of every endpoint; `pages`, the pages and files outside
//! the API; `admission`; handlers in one file per area, thin: parse, call a domain function,
//! render); this file holds the [`ChatApi`] that joins them and dispatch. Only this module and
//! its children know Zulip's wire format. Must not contain SQL.

pub mod admission;
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
pub mod outgoing_webhooks;
pub mod pages;
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

use std::sync::Arc;

use hyper::http::request::Parts;

use crate::error::{Error, ErrorKind};
use crate::http::rate_limit::{self, RateState};
use crate::http::route::RouteTable;
use crate::http::server::{Admission, Api, BoxFuture, LARGE_BODY};
use crate::http::{Request, Response};
use crate::model::User;

use envelope::error_response;
use params::{Params, RawParams};
use routes::{Renew, Reply};

pub use pages::EMOJI_DATA_PATH;
pub use routes::{Endpoint, SAMPLE_ROUTES, route};
pub use state::ChatState;

const ROUTES: usize = Endpoint::NAMES.len() + pages::PAGE_NAMES.len();

/// The API's endpoint names, then the pages'.
const fn route_names() -> [&'static str; ROUTES] {
    let mut out = [""; ROUTES];
    let mut i = 0;
    while i < ROUTES {
        out[i] = if i < Endpoint::NAMES.len() {
            Endpoint::NAMES[i]
        } else {
            pages::PAGE_NAMES[i - Endpoint::NAMES.len()]
        };
        i += 1;
    }
    out
}

/// Every route's name, indexed by [`ChatTicket`]'s route index: the bounded `route` label of
/// the request metrics (the endpoints in table order, then the pages).
pub const ROUTE_NAMES: &[&str] = &route_names();

/// The chat API as served on its listener.
pub struct ChatApi {
    state: Arc<ChatState>,
}

/// What a request resolved to.
enum Routed {
    Api(Endpoint),
    Page(pages::Page),
}

/// What admission decided for a chat request: its route, its authenticated caller and
/// where it stands against its rate limit (sent back as headers).
pub struct ChatTicket {
    route: Routed,
    caller: Option<Arc<User>>,
    rate: Option<RateState>,
    /// The CSRF token of the web session a `/json` request came with.
    session_csrf: Option<String>,
}

impl ChatApi {
    pub fn new(state: Arc<ChatState>) -> ChatApi {
        ChatApi { state }
    }

    async fn dispatch(&self, ticket: ChatTicket, req: Request) -> Response {
        let rate = ticket.rate;
        let mut res = self.answer(ticket, req).await;
        if let Some(s) = &rate {
            rate_limit::add_headers(&mut res, s);
        }
        res
    }

    async fn answer(&self, ticket: ChatTicket, req: Request) -> Response {
        let ChatTicket {
            route,
            caller,
            session_csrf,
            ..
        } = ticket;
        let endpoint = match route {
            Routed::Page(page) => {
                return pages::serve(&self.state, page, caller.as_deref(), req).await;
            }
            Routed::Api(e) => e,
        };
        let max_params = self.state.config.limits.max_params;
        let parsed = if req.body.len() > LARGE_BODY {
            // Large form bodies are decoded on the CPU threads, not on an async worker.
            let raw = RawParams::of(&req);
            self.state
                .db
                .cpu(move || raw.parse(max_params))
                .await
                .and_then(|r| r)
        } else {
            Params::from_request(&req, max_params)
        };
        let mut params = match parsed {
            Ok(p) => p,
            Err(e) => return error_response(&e),
        };
        let caller = caller.as_deref();
        // A new password or API key ends the user's web sessions; the browser that asked
        // gets a new one (with its page's CSRF token) and stays logged in.
        let renew = match endpoint.policy().renew {
            Renew::Never => false,
            Renew::Always => true,
            Renew::WithParam(name) => params.has(name),
        };
        let renew = session_csrf.filter(|_| renew).zip(caller.map(|u| u.id));
        // Authenticated endpoints always have a caller (checked at admission).
        let me = || caller.ok_or_else(|| Error::internal("no caller on an authenticated route"));
        match routes::call(endpoint, &self.state, &me, &mut params, req).await {
            Ok(Reply::Raw(res)) => res,
            Ok(Reply::Json(success)) => {
                let mut res = success.finish(params.unused());
                if let Some((csrf, user)) = renew {
                    match crate::domain::sessions::create(&self.state, user, Some(csrf)).await {
                        Ok(s) => {
                            let cookie = crate::web::sessions::session_cookie(&self.state, &s);
                            res.headers_mut().append(hyper::header::SET_COOKIE, cookie);
                        }
                        Err(e) => return error_response(&e),
                    }
                }
                res
            }
            Err(e) => error_response(&e),
        }
    }
}

/// A chat listener's request path as logged (see `Api::loggable_path`).
pub fn loggable_path(path: &str) -> std::borrow::Cow<'_, str> {
    match uploads::loggable_path(path) {
        Some(hidden) => hidden,
        None => crate::web::signup::loggable_path(path),
    }
}

impl Api for ChatApi {
    type Ticket = ChatTicket;

    /// A signup link's key lets anyone create an account, and a temporary upload URL's token
    /// lets anyone download the file: neither reaches the log.
    fn loggable_path<'a>(&self, path: &'a str) -> std::borrow::Cow<'a, str> {
        loggable_path(path)
    }

    async fn admit(
        &self,
        head: &Parts,
        peer: std::net::SocketAddr,
    ) -> Result<Admission<ChatTicket>, Response> {
        self.admit_head(head, peer.ip()).await
    }

    fn handle(self: Arc<Self>, ticket: ChatTicket, req: Request) -> BoxFuture<Response> {
        Box::pin(async move { self.dispatch(ticket, req).await })
    }

    fn payload_too_large(&self, limit: usize) -> Response {
        error_response(&Error::new(
            ErrorKind::PayloadTooLarge,
            format!("Request body too large (limit: {limit} bytes)"),
        ))
    }

    fn body_failed(&self, timed_out: bool) -> Response {
        if timed_out {
            error_response(&Error::new(
                ErrorKind::Timeout,
                "The request body did not arrive in time",
            ))
        } else {
            error_response(&Error::bad_request("The request body could not be read"))
        }
    }

    fn overloaded(&self) -> Response {
        error_response(&Error::new(
            ErrorKind::Unavailable,
            "The server is busy (too many connections or uploads at once); try again shortly",
        ))
    }

    fn internal_error(&self) -> Response {
        envelope::internal_error_response()
    }

    fn metrics(&self) -> Option<&crate::metrics::RequestMetrics> {
        Some(&self.state.chat_requests)
    }

    fn route_index(&self, ticket: &ChatTicket) -> Option<usize> {
        Some(match &ticket.route {
            Routed::Api(e) => e.route_index(),
            Routed::Page(p) => Endpoint::NAMES.len() + p.index(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logged_paths_hide_temporary_upload_tokens_and_signup_keys() {
        let token = "/user_uploads/temporary/12-1700000000-0a1b2c/report.pdf";
        assert_eq!(loggable_path(token), "/user_uploads/temporary/***");
        // However the router would still reach the temporary URL.
        for spelled in [
            "/user_uploads/%74emporary/12-1700000000-0a1b2c/report.pdf",
            "/user_uploads//temporary/12-1700000000-0a1b2c/x",
            "/user_uploads/temporary/12-1700000000-0a1b2c",
        ] {
            assert_eq!(loggable_path(spelled), "/user_uploads/temporary/***");
        }
        assert_eq!(loggable_path("/join/abc123/"), "/join/***");
        // Ordinary downloads and API paths stay as they are.
        for plain in [
            "/user_uploads/1/ab/cdef/file.txt",
            "/user_uploads/temporary",
            "/api/v1/user_uploads/1/ab/file.txt",
            "/api/v1/messages",
        ] {
            assert_eq!(loggable_path(plain), plain);
        }
    }

    use crate::http::route::{self, ListOptions, NoRoute};
    use hyper::Method;
    use users::UserRef;

    fn segs(p: &str) -> Vec<String> {
        admission::api_segments(p).unwrap()
    }

    #[test]
    fn every_endpoint_has_a_sample_route_that_reaches_it() {
        route::check_samples::<Endpoint>(|p| p.replace("{id}", "7"), ListOptions::No);
        assert_eq!(
            ROUTE_NAMES.len(),
            SAMPLE_ROUTES.len() + pages::PAGE_NAMES.len()
        );
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
        assert!(admission::api_segments("/other").is_none());
    }
}
