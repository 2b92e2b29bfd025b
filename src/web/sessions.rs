//! The HTTP side of web sessions: the `outpost_session` cookie (reading it, setting and
//! expiring it with HttpOnly, SameSite=Lax, Path=/ and Secure on HTTPS), the caller of a
//! `/json` request or a download, and the CSRF checks (`X-CSRFToken` against the session's
//! token; the login form's double-submit cookie). Session rules live in `domain::sessions`.

use hyper::HeaderMap;
use hyper::header::{COOKIE, HeaderValue};

use crate::domain::sessions::{self, SessionUser};
use crate::error::{Error, ErrorKind, Result};
use crate::password::constant_time_eq;
use crate::zulip::ChatState;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "outpost_session";

/// The login form's double-submit cookie (its value is also the form's `csrf_token`).
pub const LOGIN_CSRF_COOKIE: &str = "outpost_login_csrf";

/// The header a `/json` request other than GET/HEAD carries the session's CSRF token in.
pub const CSRF_HEADER: &str = "x-csrftoken";

/// Longest cookie value looked at; tokens are 64 characters.
const MAX_COOKIE_VALUE: usize = 128;

/// The value of the first cookie called `name` in the request's `Cookie` headers.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| k.trim() == name)
        .map(|(_, v)| v.trim().trim_matches('"'))
        .filter(|v| !v.is_empty() && v.len() <= MAX_COOKIE_VALUE)
}

/// Whether cookies must carry `Secure`: the chat listener serves HTTPS, or clients reach it
/// through an `https://` address (a TLS-terminating proxy).
pub fn secure(state: &ChatState) -> bool {
    state.config.chat.tls().is_some() || state.config.chat.external_url.starts_with("https://")
}

fn cookie_header(state: &ChatState, name: &str, value: &str, max_age: Option<i64>) -> HeaderValue {
    let mut c = format!("{name}={value}; Path=/; HttpOnly; SameSite=Lax");
    if let Some(age) = max_age {
        c.push_str(&format!("; Max-Age={age}"));
    }
    if secure(state) {
        c.push_str("; Secure");
    }
    HeaderValue::from_str(&c).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// `Set-Cookie` for a new session.
pub fn session_cookie(state: &ChatState, s: &sessions::NewSession) -> HeaderValue {
    cookie_header(state, SESSION_COOKIE, &s.token, Some(s.max_age_secs))
}

/// `Set-Cookie` that removes the session cookie.
pub fn expired_session_cookie(state: &ChatState) -> HeaderValue {
    cookie_header(state, SESSION_COOKIE, "", Some(0))
}

/// `Set-Cookie` for the login form's double-submit token (kept for the browser session).
pub fn login_csrf_cookie(state: &ChatState, token: &str) -> HeaderValue {
    cookie_header(state, LOGIN_CSRF_COOKIE, token, None)
}

/// `Set-Cookie` that removes the login form's token.
pub fn expired_login_csrf_cookie(state: &ChatState) -> HeaderValue {
    cookie_header(state, LOGIN_CSRF_COOKIE, "", Some(0))
}

/// The user behind the request's session cookie, if it names a valid session.
pub async fn from_cookie(state: &ChatState, headers: &HeaderMap) -> Result<Option<SessionUser>> {
    let Some(token) = cookie(headers, SESSION_COOKIE) else {
        return Ok(None);
    };
    sessions::authenticate(state, token, crate::time::now_secs()).await
}

/// The answer to a `/json` request without a valid session (upstream's text).
pub fn not_logged_in() -> Error {
    Error::unauthorized("Not logged in: API authentication or user session required")
}

/// Whether `given` is the expected token (constant time; empty never matches).
pub fn token_matches(expected: &str, given: &str) -> bool {
    !expected.is_empty() && constant_time_eq(expected.as_bytes(), given.as_bytes())
}

/// The CSRF check of a session-authenticated request that changes something: the
/// `X-CSRFToken` header must be the session's token.
pub fn check_csrf(headers: &HeaderMap, session: &SessionUser) -> Result<()> {
    let given = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok());
    let reason = match given {
        None | Some("") => "CSRF token missing.",
        Some(t) if token_matches(&session.csrf_token, t.trim()) => return Ok(()),
        Some(_) => "CSRF token incorrect.",
    };
    Err(Error::new(
        ErrorKind::CsrfFailed { reason },
        format!("CSRF error: {reason}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_found_by_exact_name() {
        let mut h = HeaderMap::new();
        h.insert(
            COOKIE,
            HeaderValue::from_static("a=1; outpost_session_x=2; outpost_session=abc; b=3"),
        );
        assert_eq!(cookie(&h, SESSION_COOKIE), Some("abc"));
        assert_eq!(cookie(&h, "b"), Some("3"));
        assert_eq!(cookie(&h, "c"), None);
        h.insert(COOKIE, HeaderValue::from_static("outpost_session="));
        assert_eq!(cookie(&h, SESSION_COOKIE), None);
    }

    #[test]
    fn empty_tokens_never_match() {
        assert!(!token_matches("", ""));
        assert!(token_matches("abc", "abc"));
        assert!(!token_matches("abc", "abd"));
    }
}
