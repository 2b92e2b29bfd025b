//! Push-notification devices: legacy tokens (`/users/me/apns_device_token`,
//! `/users/me/android_gcm_reg_id`) and end-to-end encrypted registrations
//! (`POST /mobile_push/register`). Outpost keeps them, bounded per user (`[push]
//! max_devices_per_user`), and forgets them when the user is deactivated; it does not deliver
//! notifications. Human users only, as upstream. No SQL, no wire shapes.

use base64::Engine;
use rusqlite::Connection;

use crate::db::user_records as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::ids::UserId;
use crate::model::User;
use crate::model::records::{PushRegistration, PushToken};

/// Upstream's bound on a device token's length.
pub const MAX_TOKEN_LENGTH: usize = 4096;
/// Bound on the opaque texts of an encrypted registration (its keys and ciphertext).
pub const MAX_REGISTRATION_TEXT: usize = 8192;

/// Which push service a token or registration is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Apns,
    Fcm,
}

impl TokenKind {
    fn name(self) -> &'static str {
        match self {
            TokenKind::Apns => "apns",
            TokenKind::Fcm => "fcm",
        }
    }
}

fn humans_only(user: &User) -> Result<()> {
    if user.is_bot {
        return Err(Error::bad_request(
            "This endpoint does not accept bot requests.",
        ));
    }
    Ok(())
}

/// Standard base64 (RFC 4648, with padding), as upstream decodes it.
fn is_base64(s: &str) -> bool {
    !s.is_empty() && base64::engine::general_purpose::STANDARD.decode(s).is_ok()
}

fn check_token(kind: TokenKind, token: &str) -> Result<()> {
    if token.is_empty() || token.chars().count() > MAX_TOKEN_LENGTH {
        return Err(Error::bad_request("Empty or invalid length token"));
    }
    if kind == TokenKind::Apns && !is_base64(token) {
        return Err(Error::bad_request("Invalid APNS token"));
    }
    if token.chars().any(char::is_control) {
        return Err(Error::bad_request("Invalid FCM token"));
    }
    Ok(())
}

/// An iOS app id: letters, digits, dots and dashes.
fn check_app_id(appid: &str) -> Result<()> {
    if appid.is_empty()
        || !appid
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
    {
        return Err(Error::bad_request("Invalid app ID"));
    }
    Ok(())
}

fn too_many(max: usize) -> Error {
    Error::bad_request(format!("Too many push devices (limit: {max})"))
}

/// `POST /users/me/apns_device_token` (with `appid`) and `POST /users/me/android_gcm_reg_id`:
/// adds the token, or updates its app id when the user has it already.
pub async fn add_token(
    state: &Core,
    user: &User,
    kind: TokenKind,
    token: String,
    appid: Option<String>,
) -> Result<()> {
    humans_only(user)?;
    check_token(kind, &token)?;
    if let Some(a) = &appid {
        check_app_id(a)?;
    }
    let max = state.config.push.max_devices_per_user;
    let me = user.id;
    state
        .db
        .write(move |tx| {
            let known = db::push_token_exists(tx, me, kind.name(), &token)?;
            if !known && db::push_device_count(tx, me)? >= max {
                return Err(too_many(max));
            }
            let t = PushToken {
                kind: kind.name(),
                token,
                ios_app_id: appid,
            };
            db::upsert_push_token(tx, me, &t, crate::time::now_secs())
        })
        .await
}

/// `DELETE` on the same paths.
pub async fn remove_token(state: &Core, user: &User, kind: TokenKind, token: String) -> Result<()> {
    humans_only(user)?;
    check_token(kind, &token)?;
    let me = user.id;
    state
        .db
        .write(move |tx| {
            if !db::delete_push_token(tx, me, kind.name(), &token)? {
                return Err(Error::bad_request("Token does not exist"));
            }
            Ok(())
        })
        .await
}

/// A registration as the client sent it.
#[derive(Clone, Debug, PartialEq)]
pub struct RegistrationInput {
    pub token_kind: String,
    pub push_account_id: i64,
    pub push_public_key: String,
    pub bouncer_public_key: String,
    pub encrypted_push_registration: String,
}

fn check_text(name: &str, value: &str, base64: bool) -> Result<()> {
    if value.chars().count() > MAX_REGISTRATION_TEXT {
        return Err(Error::bad_request(format!(
            "{name} is too long (limit: {MAX_REGISTRATION_TEXT} characters)"
        )));
    }
    if value.is_empty() || value.chars().any(char::is_control) || (base64 && !is_base64(value)) {
        return Err(Error::bad_request(format!("Invalid {name}")));
    }
    Ok(())
}

/// `POST /mobile_push/register`: checks every field, then answers `PUSH_SERVICE_NOT_CONFIGURED`
/// unless `[push] enabled`; otherwise stores the registration (replacing the one of the same
/// `push_account_id`).
pub async fn register(state: &Core, user: &User, input: RegistrationInput) -> Result<()> {
    humans_only(user)?;
    let token_kind = match input.token_kind.as_str() {
        "apns" => TokenKind::Apns,
        "fcm" => TokenKind::Fcm,
        _ => {
            return Err(Error::bad_request(
                "Invalid token_kind (expected \"fcm\" or \"apns\")",
            ));
        }
    };
    if input.push_account_id < 0 {
        return Err(Error::bad_request("Invalid push_account_id"));
    }
    check_text("push_public_key", &input.push_public_key, true)?;
    check_text("bouncer_public_key", &input.bouncer_public_key, false)?;
    check_text(
        "encrypted_push_registration",
        &input.encrypted_push_registration,
        true,
    )?;
    if !state.config.push.enabled {
        return Err(Error::coded(
            "PUSH_SERVICE_NOT_CONFIGURED",
            "Server is not configured to use push notification service.",
            vec![],
        ));
    }
    let max = state.config.push.max_devices_per_user;
    let me = user.id;
    state
        .db
        .write(move |tx| {
            let known = db::push_registration_exists(tx, me, input.push_account_id)?;
            if !known && db::push_device_count(tx, me)? >= max {
                return Err(too_many(max));
            }
            let r = PushRegistration {
                push_account_id: input.push_account_id,
                token_kind: token_kind.name(),
                push_public_key: input.push_public_key,
                bouncer_public_key: input.bouncer_public_key,
                encrypted_push_registration: input.encrypted_push_registration,
            };
            db::upsert_push_registration(tx, me, &r, crate::time::now_secs())
        })
        .await
}

/// The user's push devices (tokens, registrations), for administration and tests.
pub async fn devices_of(
    state: &Core,
    user: UserId,
) -> Result<(Vec<PushToken>, Vec<PushRegistration>)> {
    state
        .db
        .read(move |c| {
            Ok((
                db::push_tokens_of(c, user)?,
                db::push_registrations_of(c, user)?,
            ))
        })
        .await
}

/// Forgets every push device of a user (inside the deactivation's write).
pub fn forget_devices(c: &Connection, user: UserId) -> Result<()> {
    db::delete_push_devices(c, user)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_as_upstream_checks_them() {
        assert!(check_token(TokenKind::Apns, "").is_err());
        assert!(check_token(TokenKind::Apns, &"A".repeat(4100)).is_err());
        assert_eq!(
            check_token(TokenKind::Apns, "not base64!").unwrap_err().msg,
            "Invalid APNS token"
        );
        assert!(check_token(TokenKind::Apns, "YXBwbGUtdG9rZW4=").is_ok());
        assert!(check_token(TokenKind::Fcm, "any-fcm-token").is_ok());
        assert!(check_token(TokenKind::Fcm, "nul\0").is_err());
        assert!(check_app_id("org.zulip.Zulip").is_ok());
        assert!(check_app_id("org zulip").is_err());
        assert!(check_app_id("").is_err());
    }
}
