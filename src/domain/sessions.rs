//! Login sessions of the browser client: creating one at login (a random 256-bit token for
//! the cookie, stored only as its SHA-256, plus a CSRF token), finding the user behind a token,
//! ending one (logout) or all of a user's (deactivation, password change, new API key), and
//! sweeping expired ones (the browser that changed the password or API key gets a new session
//! with its page's CSRF token, so it stays logged in). A session lasts `[chat] session_days` after its last use; the last
//! use is written at most once a minute per session, so a busy client costs no write per
//! request. Knows no cookies or headers (that is `web::sessions`); no SQL text.

use std::sync::Arc;

use rand::RngExt as _;
use sha2::{Digest as _, Sha256};

use crate::db::web_sessions as db;
use crate::domain::core::Core;
use crate::error::Result;
use crate::ids::UserId;
use crate::model::User;

/// A session's last use is recorded again only after this many seconds.
pub const TOUCH_INTERVAL_SECS: i64 = 60;

/// A new session: the token for the cookie (never stored) and the CSRF token.
pub struct NewSession {
    pub token: String,
    pub csrf_token: String,
    /// How long the cookie should be kept, in seconds.
    pub max_age_secs: i64,
}

impl std::fmt::Debug for NewSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NewSession(***)")
    }
}

/// The user behind a valid session, with the session's CSRF token.
pub struct SessionUser {
    pub user: Arc<User>,
    pub csrf_token: String,
}

/// 32 random bytes as 64 hex digits.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill(&mut bytes);
    hex(&bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What is stored for a token: its SHA-256 in hex.
fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// Whether a cookie value is shaped like a token (64 lowercase hex digits); anything else is
/// not looked up.
fn well_formed(token: &str) -> bool {
    token.len() == 64
        && token
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn lifetime_secs(state: &Core) -> i64 {
    state.config.chat.session_days * 24 * 60 * 60
}

/// Starts a session for `user` (who has just proved who they are), with a new CSRF token or,
/// when a session is renewed, the one its page already holds.
pub async fn create(state: &Core, user: UserId, csrf: Option<String>) -> Result<NewSession> {
    let token = random_token();
    let csrf_token = csrf.unwrap_or_else(random_token);
    let hash = token_hash(&token);
    let csrf = csrf_token.clone();
    let lifetime = lifetime_secs(state);
    state
        .db
        .write(move |tx| {
            let now = crate::time::now_secs();
            db::insert(tx, &hash, user, &csrf, now, now + lifetime)?;
            Ok(())
        })
        .await?;
    Ok(NewSession {
        token,
        csrf_token,
        max_age_secs: lifetime,
    })
}

/// The active, human user of a session token at `now`, if the session exists and has not
/// expired. Records the use (and extends the expiry) when the last record is older than
/// [`TOUCH_INTERVAL_SECS`].
pub async fn authenticate(state: &Core, token: &str, now: i64) -> Result<Option<SessionUser>> {
    if !well_formed(token) {
        return Ok(None);
    }
    let hash = token_hash(token);
    let found = state
        .db
        .read(move |c| {
            let Some(s) = db::by_token_hash(c, &hash)? else {
                return Ok(None);
            };
            if s.expires_at <= now {
                return Ok(None);
            }
            let user = crate::db::users::get(c, s.user_id)?;
            Ok(user.map(|u| (s, u)))
        })
        .await?;
    let Some((session, user)) = found else {
        return Ok(None);
    };
    if !user.is_active || user.is_bot {
        return Ok(None);
    }
    if now - session.last_used_at >= TOUCH_INTERVAL_SECS {
        let expires = now + lifetime_secs(state);
        let id = session.id;
        state
            .db
            .write(move |tx| db::touch(tx, id, now, expires))
            .await?;
    }
    Ok(Some(SessionUser {
        user: Arc::new(user),
        csrf_token: session.csrf_token,
    }))
}

/// Ends the session of a token (logout); an unknown token is no error.
pub async fn end(state: &Core, token: &str) -> Result<()> {
    if !well_formed(token) {
        return Ok(());
    }
    let hash = token_hash(token);
    state
        .db
        .write(move |tx| db::delete(tx, &hash).map(|_| ()))
        .await
}

/// Inside a write: ends every session of `user` (deactivation, a new password or API key).
pub fn end_all_for(c: &rusqlite::Connection, user: UserId) -> Result<()> {
    db::delete_for_user(c, user).map(|_| ())
}

/// Removes the sessions expired at `now`; returns how many.
pub async fn sweep(state: &Core, now: i64) -> Result<usize> {
    state.db.write(move |tx| db::delete_expired(tx, now)).await
}

/// How many sessions `user` has (for tests and the command line).
pub async fn count_for(state: &Core, user: UserId) -> Result<i64> {
    state.db.read(move |c| db::count_for_user(c, user)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_256_bit_hex_and_stored_hashed() {
        let t = random_token();
        assert!(well_formed(&t));
        assert_ne!(t, random_token());
        let h = token_hash(&t);
        assert_eq!(h.len(), 64);
        assert_ne!(h, t);
        assert!(!well_formed("short"));
        assert!(!well_formed(&t.to_uppercase()));
    }
}
