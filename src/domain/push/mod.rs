//! Mobile push notifications. This file: the devices, legacy tokens
//! (`/users/me/apns_device_token`, `/users/me/android_gcm_reg_id`) and end-to-end encrypted
//! registrations (`POST /mobile_push/register`), kept bounded per user (`[push]
//! max_devices_per_user`) and forgotten when the user is deactivated, human users only as
//! upstream; whether push is configured ([`service`], [`flags`]). Legacy token changes are
//! forwarded to Zulip's push notification service through the outbox ([`outbox`]) queued in
//! the same commit. The service's server registration and its stored credentials are
//! [`credentials`] and [`register_server`], calls to it [`bouncer`], payloads [`payloads`] (the
//! text of a message, [`content`]) and sending [`send`]. No SQL text, no wire shapes, no HTTP
//! server types.

pub mod bouncer;
pub mod content;
pub mod credentials;
pub mod e2ee;
pub mod outbox;
pub mod payloads;
pub mod register_server;
pub mod send;

pub use send::{PushOutcome, has_push_devices, send_message_push, send_remove_push};

use std::sync::atomic::{AtomicU64, Ordering};

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

/// What pushing did since the process started, for `/metrics` (one per `Core`).
#[derive(Debug, Default)]
pub struct Stats {
    /// Notifications the service took (`push/notify`).
    pub sent: AtomicU64,
    /// Notifications that failed and may succeed later (network, timeout, 5xx).
    pub retry_later: AtomicU64,
    /// Notifications the service refused.
    pub failed: AtomicU64,
    /// Outbox calls made (device tokens forwarded).
    pub outbox_made: AtomicU64,
    /// Outbox calls put off after a failure.
    pub outbox_retried: AtomicU64,
    /// Outbox calls given up (refused, or failing too long).
    pub outbox_given_up: AtomicU64,
}

impl Stats {
    pub(crate) fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// The push notification service as this server uses it: `None` unless `[push] enabled` and
/// the server is registered (`outpost push register` stored its credentials).
pub fn service(core: &Core) -> Result<Option<bouncer::Service>> {
    if !core.config.push.enabled {
        return Ok(None);
    }
    let Some(creds) = credentials::load(&core.config.data_dir)? else {
        return Ok(None);
    };
    Ok(Some(bouncer::Service {
        base_url: core.config.push.bouncer_url.clone(),
        credentials: Some(creds),
        proxies: core.config.proxy.clone(),
        timeout: bouncer::TIMEOUT,
    }))
}

/// What clients are told of push: whether the server is configured for it
/// (`server_settings`' `push_notifications_enabled`), whether pushes work for the realm
/// (`realm_push_notifications_enabled`: configured, unless the service last said `can_push`
/// false) and until when (`realm_push_notifications_enabled_end_timestamp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flags {
    pub configured: bool,
    pub realm_enabled: bool,
    pub end_timestamp: Option<i64>,
}

/// Whether the server is configured for push (a configuration problem reads as not
/// configured, and is logged).
pub fn configured(core: &Core) -> bool {
    match service(core) {
        Ok(s) => s.is_some(),
        Err(e) => {
            tracing::warn!(error = %e.msg, detail = ?e.detail, "push: credentials unusable");
            false
        }
    }
}

/// The [`Flags`], given whether the server is [`configured`].
pub fn flags_in(c: &Connection, configured: bool) -> Result<Flags> {
    let (realm_enabled, end_timestamp) = if configured {
        crate::db::push_bouncer::realm_state(c)?.unwrap_or((true, None))
    } else {
        (false, None)
    };
    Ok(Flags {
        configured,
        realm_enabled,
        end_timestamp,
    })
}

/// The [`Flags`] now.
pub async fn flags(core: &Core) -> Result<Flags> {
    let configured = configured(core);
    core.db.read(move |c| flags_in(c, configured)).await
}

/// Whether token changes are to be forwarded (configuration problems are logged by `flags`).
fn forwarding(core: &Core) -> bool {
    matches!(service(core), Ok(Some(_)))
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
    let forward = forwarding(state);
    state
        .db
        .write(move |tx| {
            let known = db::push_token_exists(tx, me, kind.name(), &token)?;
            if !known && db::push_device_count(tx, me)? >= max {
                return Err(too_many(max));
            }
            if forward {
                let t = (kind.name(), token.as_str(), appid.as_deref());
                outbox::enqueue(tx, me, outbox::Action::Register, Some(t))?;
            }
            let t = PushToken {
                kind: kind.name(),
                token,
                ios_app_id: appid,
            };
            db::upsert_push_token(tx, me, &t, crate::time::now_secs())
        })
        .await?;
    if forward {
        state.push_wake.notify_one();
    }
    Ok(())
}

/// `DELETE` on the same paths.
pub async fn remove_token(state: &Core, user: &User, kind: TokenKind, token: String) -> Result<()> {
    humans_only(user)?;
    check_token(kind, &token)?;
    let me = user.id;
    let forward = forwarding(state);
    state
        .db
        .write(move |tx| {
            if !db::delete_push_token(tx, me, kind.name(), &token)? {
                return Err(Error::bad_request("Token does not exist"));
            }
            if forward {
                let t = (kind.name(), token.as_str(), None);
                outbox::enqueue(tx, me, outbox::Action::Unregister, Some(t))?;
            }
            Ok(())
        })
        .await?;
    if forward {
        state.push_wake.notify_one();
    }
    Ok(())
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

/// `POST /mobile_push/register`: checks every field (the public key must be a 32-byte NaCl
/// key, since notifications are sealed to it), then answers `PUSH_SERVICE_NOT_CONFIGURED`
/// unless `[push] enabled`; otherwise stores the registration (replacing the one of the same
/// `push_account_id`) and, when the server is registered with the service, queues its
/// forwarding in the same commit ([`e2ee`]).
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
    if e2ee::public_key(&input.push_public_key).is_none() {
        return Err(Error::bad_request("Invalid push_public_key"));
    }
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
    let forward = forwarding(state);
    state
        .db
        .write(move |tx| {
            let account = input.push_account_id;
            let known = db::push_registration_exists(tx, me, account)?;
            if !known && db::push_device_count(tx, me)? >= max {
                return Err(too_many(max));
            }
            let r = PushRegistration {
                push_account_id: account,
                token_kind: token_kind.name(),
                push_public_key: input.push_public_key,
                bouncer_public_key: input.bouncer_public_key,
                encrypted_push_registration: input.encrypted_push_registration,
            };
            let now = crate::time::now_secs();
            db::upsert_push_registration(tx, me, &r, now)?;
            crate::db::push_e2ee::mark_pending(tx, me, account, now)?;
            if forward {
                let t = (token_kind.name(), account.to_string());
                let t = (t.0, t.1.as_str(), None);
                outbox::enqueue(tx, me, outbox::Action::E2eeRegister, Some(t))?;
            }
            Ok(())
        })
        .await?;
    if forward {
        state.push_wake.notify_one();
    }
    Ok(())
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

/// Forgets every push device of a user (inside the deactivation's write); a user who had
/// legacy tokens gets a `push/unregister/all` queued (dropped by the outbox when the server
/// does not use the push notification service).
pub fn forget_devices(c: &Connection, user: UserId) -> Result<()> {
    if !db::push_tokens_of(c, user)?.is_empty() {
        outbox::enqueue(c, user, outbox::Action::UnregisterAll, None)?;
    }
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
