//! HTTP Basic authentication for the chat API (`email:api_key`), and the `api_key` query
//! parameter of incoming webhooks.
//!
//! Reproduces Zulip's answers for every way a header can be wrong: no header, a non-Basic
//! scheme (400), an undecodable or malformed credential, a wrong or malformed key, a deactivated
//! account (all 401 `UNAUTHORIZED`). Keys are compared in constant time, and an unknown email
//! costs what a known one does (a cached lookup, one comparison). Incoming-webhook bots may use
//! only the webhook endpoints, which take the key from the query string (upstream's
//! `webhook_view`: 401 `INVALID_API_KEY` / `USER_DEACTIVATED`) or, failing that, from Basic
//! authentication. Never logs credentials.

use std::sync::Arc;

use base64::Engine as _;

use crate::domain::users::{by_api_key, by_login_email};
use crate::error::{Error, ErrorKind, LoginFailure, Result};
use crate::model::User;
use crate::password::constant_time_eq;
use crate::zulip::ChatState;
use hyper::HeaderMap;

/// Zulip's incoming-webhook bot type; such bots may only use webhook endpoints.
const INCOMING_WEBHOOK_BOT: i64 = 2;

/// The authenticated caller of a request. Incoming-webhook bots are refused unless
/// `webhook_bots` (upstream's `allow_incoming_webhooks` views: `POST /messages`).
pub async fn authenticate(
    state: &ChatState,
    headers: &HeaderMap,
    webhook_bots: bool,
) -> Result<Arc<User>> {
    let user = authenticate_basic(state, headers).await?;
    if user.bot_type == Some(INCOMING_WEBHOOK_BOT) && !webhook_bots {
        return Err(Error::unauthorized(
            "This API is not available to incoming webhook bots.",
        ));
    }
    Ok(user)
}

/// The caller of an incoming webhook (`/api/v1/external/...`), from the head alone: the
/// `api_key` query parameter, else Basic authentication. Any active account may post through
/// a webhook; incoming-webhook bots may post only this way (and through `POST /messages`).
pub async fn authenticate_webhook(
    state: &ChatState,
    query: &str,
    headers: &HeaderMap,
) -> Result<Arc<User>> {
    let key = form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "api_key")
        .map(|(_, v)| v.into_owned());
    let Some(key) = key else {
        if headers.contains_key("authorization") {
            return authenticate_basic(state, headers).await;
        }
        return Err(Error::missing("api_key"));
    };
    let key = key.trim();
    let invalid =
        |msg: &'static str| Error::new(ErrorKind::LoginFailed(LoginFailure::InvalidApiKey), msg);
    if !(key.len() == 32 && key.bytes().all(|b| b.is_ascii_alphanumeric())) {
        return Err(invalid("Malformed API key"));
    }
    let Some(user) = by_api_key(state, key).await? else {
        return Err(invalid("Invalid API key"));
    };
    if !user.is_active {
        return Err(Error::new(
            ErrorKind::LoginFailed(LoginFailure::UserDeactivated),
            "Account is deactivated",
        ));
    }
    Ok(user)
}

/// The caller named by an `Authorization: Basic` header, any kind of account.
async fn authenticate_basic(state: &ChatState, headers: &HeaderMap) -> Result<Arc<User>> {
    let Some(raw) = headers.get("authorization") else {
        return Err(Error::unauthorized(
            "Not logged in: API authentication or user session required",
        ));
    };
    let (email, key) = parse_basic(raw.as_bytes())?;
    if !(key.len() == 32 && key.bytes().all(|b| b.is_ascii_alphanumeric())) {
        return Err(Error::unauthorized("Malformed API key"));
    }
    let user = by_login_email(state, &email).await?;
    let matched = key_matches(user.as_deref(), &key);
    let Some(user) = user.filter(|_| matched) else {
        return Err(Error::unauthorized("Invalid API key"));
    };
    if !user.is_active {
        return Err(Error::unauthorized("Account is deactivated"));
    }
    Ok(user)
}

/// What an unknown email's key is compared with: well-formed, so the comparison costs what a
/// real one does, and never accepted.
const DUMMY_API_KEY: &str = "0utp0stN0SuchUserDummyApiKey0000";

/// Whether `key` is the user's API key. Runs exactly one constant-time comparison of a
/// 32-byte key whether or not there is a user (against [`DUMMY_API_KEY`] when there is none),
/// so timing does not tell known emails from unknown ones.
fn key_matches(user: Option<&User>, key: &str) -> bool {
    let expected = user.map_or(DUMMY_API_KEY, |u| u.api_key.0.as_str());
    let same = constant_time_eq(expected.as_bytes(), key.as_bytes());
    same && user.is_some()
}

/// Splits an `Authorization: Basic ...` header into (email, api_key), both trimmed.
pub fn parse_basic(raw: &[u8]) -> Result<(String, String)> {
    let invalid = || Error::unauthorized("Invalid authorization header for basic auth");
    let text = std::str::from_utf8(raw).map_err(|_| invalid())?;
    let Some((scheme, credentials)) = two_tokens(text) else {
        return Err(invalid());
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(Error::bad_request(
            "This endpoint requires HTTP basic authentication.",
        ));
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(credentials)
        .map_err(|_| invalid())?;
    let decoded = String::from_utf8(decoded).map_err(|_| invalid())?;
    let mut parts = decoded.split(':');
    let (Some(email), Some(key), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(invalid());
    };
    Ok((email.trim().to_string(), key.trim().to_string()))
}

/// The two whitespace-separated tokens of `text`, if it has exactly two (as
/// `split_whitespace` counts them). An ASCII header, the usual case, is scanned byte by byte.
fn two_tokens(text: &str) -> Option<(&str, &str)> {
    let mut tokens: [&str; 2] = [""; 2];
    let mut n = 0;
    if text.is_ascii() {
        // Unicode's white space within ASCII: tab through carriage return, and space.
        let space = |b: u8| matches!(b, b'\t'..=b'\r' | b' ');
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if space(b[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < b.len() && !space(b[i]) {
                i += 1;
            }
            if n == 2 {
                return None;
            }
            tokens[n] = &text[start..i];
            n += 1;
        }
    } else {
        for t in text.split_whitespace() {
            if n == 2 {
                return None;
            }
            tokens[n] = t;
            n += 1;
        }
    }
    (n == 2).then_some((tokens[0], tokens[1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(s)
    }

    #[test]
    fn two_tokens_split_as_split_whitespace_does() {
        let ws: Vec<char> = (0..0x3100u32)
            .filter_map(char::from_u32)
            .filter(|c| c.is_whitespace())
            .collect();
        let mut cases = vec![
            String::new(),
            "Basic".into(),
            "Basic abc".into(),
            " Basic  abc \r\n".into(),
            "Basic abc def".into(),
            "Basic\u{1c}abc".into(),
            "Basic\u{a0}abc".into(),
            "Bäsic abc".into(),
        ];
        for c in ws {
            cases.push(format!("Basic{c}abc"));
            cases.push(format!("{c}Basic{c}{c}abc{c}"));
            cases.push(format!("Basic{c}abc{c}x"));
        }
        for text in &cases {
            let mut expected = text.split_whitespace();
            let expected = match (expected.next(), expected.next(), expected.next()) {
                (Some(a), Some(b), None) => Some((a, b)),
                _ => None,
            };
            assert_eq!(two_tokens(text), expected, "{text:?}");
        }
    }

    #[test]
    fn unknown_users_compare_against_a_key_that_never_matches() {
        assert_eq!(DUMMY_API_KEY.len(), 32);
        assert!(DUMMY_API_KEY.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert!(!key_matches(None, DUMMY_API_KEY));
        assert!(!key_matches(None, "x"));
    }

    #[test]
    fn parses_and_rejects_headers_like_zulip() {
        let ok = format!("Basic {}", b64("a@b.c:KEY"));
        assert_eq!(
            parse_basic(ok.as_bytes()).unwrap(),
            ("a@b.c".to_string(), "KEY".to_string())
        );
        let lower = format!("basic {}", b64("a@b.c:KEY"));
        assert!(parse_basic(lower.as_bytes()).is_ok());
        let bearer = parse_basic(b"Bearer abc").unwrap_err();
        assert_eq!(bearer.kind, ErrorKind::BadRequest);
        for bad in [
            "Basic".to_string(),
            "Basic !!!".to_string(),
            format!("Basic {}", b64("no-colon")),
            format!("Basic {}", b64("a:b:c")),
            format!("Basic {} extra", b64("a:b")),
        ] {
            let e = parse_basic(bad.as_bytes()).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Unauthorized, "{bad}");
            assert_eq!(e.msg, "Invalid authorization header for basic auth");
        }
    }
}
