//! The chat listener: the [`http::server::Api`](crate::http::server::Api) that joins the chat
//! API's route table (`zulip::routes`, under `/api/v1` with Basic auth and `/json` with a web
//! session), the pages and files outside it ([`pages`]: the web client's, uploads, emoji
//! pictures, the signup page) and the admission of both ([`admission`]).
//!
//! Why here: the chat API and the web client need each other only through this listener. The
//! web client's pages read the chat API (its state, the `POST /register` answer they embed), so
//! `web` names `zulip`; the chat API knows nothing of cookies and pages. What ties the two on
//! one listener (which path is a page, which credentials a `/json` request needs, the new
//! session a browser gets when its password or API key changes) lives above both, in this
//! module. Must not hold API or page logic: it routes, admits and dispatches.

pub mod admission;
pub mod pages;

use std::sync::Arc;

use hyper::http::request::Parts;

use crate::error::{Error, ErrorKind};
use crate::http::rate_limit::{self, RateState};
use crate::http::route::RouteTable;
use crate::http::server::{Admission, Api, BoxFuture};
use crate::http::{Request, Response};
use crate::model::User;
use crate::web::WebState;
use crate::web::assets::Assets;
use crate::zulip::envelope::{self, error_response};
use crate::zulip::{ChatState, Endpoint};

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

/// The chat listener's API: the chat API's state, and the web client's pages over it.
pub struct ChatListener {
    state: Arc<ChatState>,
    web: WebState,
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

impl ChatListener {
    pub fn new(state: Arc<ChatState>, assets: &'static Assets) -> ChatListener {
        let web = WebState {
            chat: Arc::clone(&state),
            assets,
        };
        ChatListener { state, web }
    }

    async fn dispatch(&self, ticket: ChatTicket, req: Request) -> Response {
        let rate = ticket.rate;
        let mut res = self
            .answer(ticket.route, ticket.caller, ticket.session_csrf, req)
            .await;
        if let Some(s) = &rate {
            rate_limit::add_headers(&mut res, s);
        }
        res
    }

    async fn answer(
        &self,
        route: Routed,
        caller: Option<Arc<User>>,
        session_csrf: Option<String>,
        req: Request,
    ) -> Response {
        let endpoint = match route {
            Routed::Page(page) => {
                return pages::serve(page, &self.web, caller.as_deref(), req).await;
            }
            Routed::Api(e) => e,
        };
        let answered = crate::zulip::answer(&self.state, endpoint, caller.as_deref(), req).await;
        // A new password or API key ends the user's web sessions; the browser that asked
        // gets a new one (with its page's CSRF token) and stays logged in.
        let renew = session_csrf
            .filter(|_| answered.credentials_changed)
            .zip(caller.map(|u| u.id));
        let Some((csrf, user)) = renew else {
            return answered.response;
        };
        match crate::domain::sessions::create(&self.state, user, Some(csrf)).await {
            Ok(s) => answered.set_cookie(crate::web::sessions::session_cookie(&self.state, &s)),
            Err(e) => error_response(&e),
        }
    }
}

/// A chat listener's request path as logged (see `Api::loggable_path`).
pub fn loggable_path(path: &str) -> std::borrow::Cow<'_, str> {
    match crate::zulip::uploads::loggable_path(path) {
        Some(hidden) => hidden,
        None => match crate::web::accounts::loggable_path(path) {
            Some(hidden) => std::borrow::Cow::Owned(hidden),
            None => crate::web::signup::loggable_path(path),
        },
    }
}

impl Api for ChatListener {
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

    #[test]
    fn every_route_has_one_name() {
        assert_eq!(
            ROUTE_NAMES.len(),
            crate::zulip::SAMPLE_ROUTES.len() + pages::PAGE_NAMES.len()
        );
        assert_eq!(&ROUTE_NAMES[..Endpoint::NAMES.len()], Endpoint::NAMES);
        assert_eq!(&ROUTE_NAMES[Endpoint::NAMES.len()..], pages::PAGE_NAMES);
    }
}
