//! HTTP Basic authentication for the chat API (`email:api_key`).
//!
//! Reproduces Zulip's answers for every way a header can be wrong: no header, a non-Basic
//! scheme (400), an undecodable or malformed credential, a wrong or malformed key, a deactivated
//! account (all 401 `UNAUTHORIZED`). Keys are compared in constant time. Never logs credentials.

use std::sync::Arc;

use base64::Engine as _;

use crate::app::AppState;
use crate::domain::users::by_login_email;
use crate::error::{Error, Result};
use crate::model::User;
use crate::password::constant_time_eq;
use hyper::HeaderMap;

/// Zulip's incoming-webhook bot type; such bots may only use webhook endpoints.
const INCOMING_WEBHOOK_BOT: i64 = 2;

/// The authenticated caller of a request.
pub async fn authenticate(state: &AppState, headers: &HeaderMap) -> Result<Arc<User>> {
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
    let Some(user) = user.filter(|u| constant_time_eq(u.api_key.0.as_bytes(), key.as_bytes()))
    else {
        return Err(Error::unauthorized("Invalid API key"));
    };
    if !user.is_active {
        return Err(Error::unauthorized("Account is deactivated"));
    }
    if user.bot_type == Some(INCOMING_WEBHOOK_BOT) {
        return Err(Error::unauthorized(
            "This API is not available to incoming webhook bots.",
        ));
    }
    Ok(user)
}

/// Splits an `Authorization: Basic ...` header into (email, api_key), both trimmed.
fn parse_basic(raw: &[u8]) -> Result<(String, String)> {
    let invalid = || Error::unauthorized("Invalid authorization header for basic auth");
    let text = std::str::from_utf8(raw).map_err(|_| invalid())?;
    let mut tokens = text.split_whitespace();
    let (Some(scheme), Some(credentials), None) = (tokens.next(), tokens.next(), tokens.next())
    else {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn b64(s: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(s)
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
