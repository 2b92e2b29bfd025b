//! Credentials as upstream (Alpine) reads them: `X-Api-Key` header (any case), `apiKey` query
//! parameter on badge routes only, then `Authorization: Bearer <JWT>` or the
//! `Authorization-Token` cookie, which replaces an API-key principal.
//!
//! Never logs a key or token. Must not touch SQL.

use std::sync::Arc;

use crate::domain::Core;
use crate::domain::dtrack::identity;
use crate::error::{Error, Result};
use crate::model::dtrack::Principal;
use hyper::http::request::Parts;

use super::params::Query;

fn header<'a>(head: &'a Parts, name: &str) -> Option<&'a str> {
    head.headers.get(name).and_then(|v| v.to_str().ok())
}

fn bearer(head: &Parts) -> Option<String> {
    if let Some(cookies) = header(head, "cookie") {
        for c in cookies.split(';') {
            if let Some(v) = c.trim().strip_prefix("Authorization-Token=") {
                return Some(v.to_string());
            }
        }
    }
    let h = header(head, "authorization")?;
    let (scheme, token) = h.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_string())
}

/// Authenticates a request from its head; 401 (empty) when there are no or bad credentials.
/// `query_key` allows `?apiKey=` (badge routes, whose key use is not tracked, as upstream).
pub async fn authenticate(state: &Core, head: &Parts, query_key: bool) -> Result<Arc<Principal>> {
    let mut principal = None;
    let key = match header(head, "x-api-key") {
        Some(k) => Some(k.to_string()),
        None if query_key => Query::parse(head.uri.query().unwrap_or(""))
            .get("apiKey")
            .map(str::to_string),
        None => None,
    };
    if let Some(k) = key {
        let who = identity::authenticate_key(state, &k).await?;
        if !query_key {
            identity::note_key_use(state, &who);
        }
        principal = Some(who);
    }
    if let Some(token) = bearer(head) {
        principal = Some(identity::authenticate_jwt(state, &token).await?);
    }
    principal.ok_or_else(|| Error::unauthorized(""))
}
