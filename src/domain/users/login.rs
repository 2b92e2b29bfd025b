//! Authentication: password and development logins with the failure limiter (shared with
//! `PATCH /settings`' `old_password`), timing that does not reveal accounts, and replacing an
//! API key. Never changes anything else about an account.

use std::sync::Arc;

use crate::db::users as users_db;
use crate::domain::core::Core;
use crate::domain::email_keys;
use crate::error::{Error, ErrorKind, LoginFailure, Result};
use crate::events::{Event, PersonChange, UserUpdated};
use crate::ids::UserId;
use crate::model::User;
use crate::password;

use super::lookup::by_login_email;

/// An id no user has (ids start at 1), for lookups that must cost what a real one costs.
const NO_ONE: UserId = UserId(0);

/// Refuses (429) a password check for `key` (an [`email_keys::login_key`]) once it has used
/// up its failures: logins and `PATCH /settings`' `old_password` share the limit.
pub fn check_login_limit(state: &Core, key: &str) -> Result<()> {
    match state.logins.blocked_for(key) {
        Some(wait) => Err(Error::new(
            ErrorKind::RateLimited { retry_after: wait },
            "API usage exceeded rate limit",
        )),
        None => Ok(()),
    }
}

/// Password login (`POST /fetch_api_key`): the user and their API key.
pub async fn login_with_password(state: &Core, username: &str, pw: String) -> Result<Arc<User>> {
    let limiter_key = email_keys::login_key(username);
    check_login_limit(state, &limiter_key)?;
    let bad = || {
        Error::new(
            ErrorKind::LoginFailed(LoginFailure::BadCredentials),
            "Your username or password is incorrect",
        )
    };
    let user = by_login_email(state, username.trim()).await?;
    // The same work whether the username exists or not, so timing does not reveal accounts:
    // one read of a stored hash (of no one, for an unknown name) and one argon2 verification
    // (against a dummy hash when there is no stored one).
    let id = user.as_ref().map_or(NO_ONE, |u| u.id);
    let stored = state
        .db
        .read(move |c| users_db::password_hash(c, id))
        .await?;
    let verified = state
        .db
        .cpu(move || password::verify_or_dummy(&pw, stored.as_deref()))
        .await?;
    let Some(user) = user.filter(|_| verified) else {
        state.logins.record_failure(&limiter_key);
        return Err(bad());
    };
    if !user.is_active {
        return Err(Error::new(
            ErrorKind::LoginFailed(LoginFailure::UserDeactivated),
            "Account is deactivated",
        ));
    }
    state.logins.clear(&limiter_key);
    Ok(user)
}

/// Development login: the user with this email, no password.
pub async fn login_for_development(state: &Core, email: &str) -> Result<Arc<User>> {
    let user = by_login_email(state, email.trim()).await?.ok_or_else(|| {
        Error::new(
            ErrorKind::LoginFailed(LoginFailure::BadCredentials),
            "This user is not registered.",
        )
    })?;
    if !user.is_active {
        return Err(Error::new(
            ErrorKind::LoginFailed(LoginFailure::UserDeactivated),
            "Account is deactivated",
        ));
    }
    Ok(user)
}

/// Replaces the caller's API key; returns the new one.
pub async fn regenerate_api_key(state: &Core, user: UserId) -> Result<String> {
    let key = password::new_api_key();
    let stored = key.clone();
    state
        .db
        .write(move |tx| {
            users_db::set_api_key(tx, user, &stored)?;
            // A new key means the old credentials are compromised: web logins end too.
            crate::domain::sessions::end_all_for(tx, user)?;
            tx.emit(Event::UserUpdated(UserUpdated {
                user_id: user,
                change: PersonChange::ApiKey,
            }));
            Ok(())
        })
        .await?;
    Ok(key)
}
