//! Admission of a chat request from its head alone: the path resolved (pages first, then
//! the API under `/api/v1` or `/json`), the caller authenticated as the row's policy says
//! (Basic auth, the web session and its CSRF token, an incoming webhook's key, a download's
//! optional credentials), the body limit and upload slot, and the rate limit. Reads each
//! endpoint's policy from its row; compares no endpoints. The chat API's own credentials
//! (Basic auth, webhook keys) are checked by `zulip::auth`, the web session's by
//! `web::sessions`; this file only decides which a request needs.

use std::net::IpAddr;

use hyper::http::request::Parts;
use hyper::{Method, StatusCode};

use crate::error::{Error, ErrorKind};
use crate::http::Response;
use crate::http::rate_limit::{self, Limited, RateKey, RateState};
use crate::http::route::{self, NoRoute};
use crate::http::server::Admission;
use crate::model::User;

use crate::web::sessions;
use crate::zulip::envelope::error_response;
use crate::zulip::routes::{self, Auth, Body};
use crate::zulip::{api_segments, auth, json_segments, uploads};

use super::pages::{self, Page};
use super::{ChatListener, ChatTicket, Routed};

/// Largest body of an unauthenticated request (`fetch_api_key` and friends): a login form.
const UNAUTHENTICATED_BODY: usize = 16 * 1024;

/// The answer to a `/json` request that is not logged in: upstream names the session scheme.
fn session_error(e: &Error) -> Response {
    let mut res = error_response(e);
    if res.status() == StatusCode::UNAUTHORIZED {
        res.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            hyper::header::HeaderValue::from_static("Session realm=\"zulip\""),
        );
    }
    res
}

/// The chat API's 429, with the rate-limit headers.
fn rate_limited(l: Limited) -> Response {
    let mut res = error_response(&Error::new(
        ErrorKind::RateLimited {
            retry_after: l.retry_after,
        },
        "API usage exceeded rate limit",
    ));
    rate_limit::add_headers(&mut res, &l.state);
    res
}

/// A path resolved: a page, or an API endpoint (and whether through `/json`).
enum Resolved {
    Page(Page),
    Api(routes::Endpoint, bool),
}

/// Where a path leads, or the 404/405/`OPTIONS` answer (boxed: the error is large).
fn resolve(method: &Method, path: &str) -> Result<Resolved, Box<Response>> {
    let routed = match pages::route(method, path) {
        Some(r) => r.map(Resolved::Page),
        None => {
            // `/json/...` is the web client's door to the same table: session cookie only.
            let (segs, via_session) = match api_segments(path) {
                Some(segs) => (segs, false),
                None => match json_segments(path) {
                    Some(segs) => (segs, true),
                    None => {
                        return Err(Box::new(error_response(&Error::not_found(format!(
                            "Not found: {path}"
                        )))));
                    }
                },
            };
            match routes::route(method, &segs) {
                // Incoming webhooks take their bot's key; they have no web form.
                Ok(e) if via_session && e.policy().auth == Auth::WebhookKey => {
                    Err(NoRoute::NotFound)
                }
                r => r.map(|e| Resolved::Api(e, via_session)),
            }
        }
    };
    match routed {
        Ok(r) => Ok(r),
        Err(NoRoute::NotFound) => Err(Box::new(error_response(&Error::not_found(format!(
            "Endpoint not found: {method} {path}"
        ))))),
        Err(NoRoute::Method(allowed)) => {
            if method == Method::OPTIONS {
                return Err(Box::new(route::allow_response(
                    StatusCode::NO_CONTENT,
                    &allowed,
                    ", ",
                )));
            }
            Err(Box::new(error_response(&Error::new(
                ErrorKind::MethodNotAllowed(allowed),
                "Method Not Allowed",
            ))))
        }
    }
}

impl ChatListener {
    /// Counts the request against its rate limit (see `Rates::admit`) when its row says so.
    fn rate_check(
        &self,
        metered: bool,
        caller: Option<&User>,
        peer: IpAddr,
    ) -> Result<Option<RateState>, Limited> {
        if !metered {
            return Ok(None);
        }
        let caller = caller.map(|u| (RateKey::User(u.id.0), u.is_bot));
        self.state.rates.admit(caller, peer)
    }

    /// The caller of a page: only a download has one. With credentials it is checked (and
    /// rate limited) as its user; in the browser (`<img>`, links) it carries the session
    /// cookie; a temporary URL needs nothing, so a missing or stale session is no error.
    async fn page_caller(
        &self,
        page: &Page,
        head: &Parts,
    ) -> Result<(Option<std::sync::Arc<User>>, usize), Response> {
        let limits = &self.state.config.limits;
        if !matches!(page, Page::ServeUpload(_)) {
            return Ok((None, limits.max_body_bytes.min(UNAUTHENTICATED_BODY)));
        }
        if head.headers.contains_key("authorization") {
            return match auth::authenticate(&self.state, &head.headers, false).await {
                Ok(u) => Ok((Some(u), limits.max_body_bytes)),
                Err(e) => Err(error_response(&e)),
            };
        }
        match sessions::from_cookie(&self.state, &head.headers).await {
            Ok(s) => Ok((s.map(|s| s.user), limits.max_body_bytes)),
            Err(e) => Err(error_response(&e)),
        }
    }

    /// Route, credentials and rate limit, from the head alone.
    pub(super) async fn admit_head(
        &self,
        head: &Parts,
        peer: IpAddr,
    ) -> Result<Admission<ChatTicket>, Response> {
        let (endpoint, via_session) =
            match resolve(&head.method, head.uri.path()).map_err(|r| *r)? {
                Resolved::Api(e, via_session) => (e, via_session),
                Resolved::Page(page) => {
                    let (caller, body_limit) = self.page_caller(&page, head).await?;
                    let rate = self
                        .rate_check(page.metered(), caller.as_deref(), peer)
                        .map_err(rate_limited)?;
                    return Ok(Admission {
                        ticket: ChatTicket {
                            route: Routed::Page(page),
                            caller,
                            rate,
                            session_csrf: None,
                        },
                        body_limit,
                        upload: false,
                    });
                }
            };
        let policy = endpoint.policy();
        let limits = &self.state.config.limits;
        let mut session_csrf = None;
        let (caller, body_limit) = match policy.auth {
            Auth::Open => (None, limits.max_body_bytes.min(UNAUTHENTICATED_BODY)),
            _ if via_session => {
                // Authenticated by the session cookie alone (never Basic), and anything but a
                // read must carry the session's CSRF token; both before the body is read.
                let session = match sessions::from_cookie(&self.state, &head.headers).await {
                    Ok(Some(s)) => s,
                    Ok(None) => {
                        return Err(session_error(&sessions::not_logged_in()));
                    }
                    Err(e) => return Err(error_response(&e)),
                };
                if head.method != Method::GET && head.method != Method::HEAD {
                    sessions::check_csrf(&head.headers, &session)
                        .map_err(|e| error_response(&e))?;
                }
                session_csrf = Some(session.csrf_token);
                (Some(session.user), limits.max_body_bytes)
            }
            Auth::WebhookKey => {
                let query = head.uri.query().unwrap_or("");
                match auth::authenticate_webhook(&self.state, query, &head.headers).await {
                    Ok(u) => (Some(u), limits.max_body_bytes),
                    Err(e) => return Err(error_response(&e)),
                }
            }
            Auth::User | Auth::UserOrWebhookBot => {
                let webhook_bots = policy.auth == Auth::UserOrWebhookBot;
                match auth::authenticate(&self.state, &head.headers, webhook_bots).await {
                    Ok(u) => (Some(u), limits.max_body_bytes),
                    Err(e) => return Err(error_response(&e)),
                }
            }
        };
        // An upload's body may be as large as the largest file plus its framing; it is read
        // (within that limit, while streaming) only after the credentials were checked, and
        // holds one of the few upload slots meanwhile.
        let body_limit = match policy.body {
            Body::Default => body_limit,
            Body::File => limits.max_file_upload_size_mib * 1024 * 1024 + uploads::MULTIPART_SLACK,
            Body::Emoji => limits.max_emoji_file_size_mib * 1024 * 1024 + uploads::MULTIPART_SLACK,
        };
        let rate = self
            .rate_check(policy.metered, caller.as_deref(), peer)
            .map_err(rate_limited)?;
        Ok(Admission {
            ticket: ChatTicket {
                route: Routed::Api(endpoint),
                caller,
                rate,
                session_csrf,
            },
            body_limit,
            upload: policy.body != Body::Default,
        })
    }
}
