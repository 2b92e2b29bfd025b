//! Sending pushes through Zulip's push notification service: a message's notification
//! ([`send_message_push`]), the removal of notifications of messages read
//! ([`send_remove_push`]), both over `POST remotes/push/notify` to the user's legacy tokens
//! and, sealed per device, over `push/e2ee/notify` to their encrypted registrations
//! ([`super::e2ee`]),
//! and the test notification of `POST /mobile_push/test_notification` ([`test_notification`]).
//! The service's answer is applied as upstream applies it: tokens it no longer knows are
//! deleted here too, and what it says of the realm (`can_push`, `expected_end_timestamp`) is
//! stored for `realm_push_notifications_enabled`.
//!
//! Nothing here retries: a [`PushOutcome`] tells the caller's job table what to do. No SQL
//! text, no HTTP server types.

use md5::{Digest as _, Md5};
use serde::Deserialize;

use crate::db::push_bouncer as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, RealmSettingChanged};
use crate::ids::{GroupId, MessageId, UserId};
use crate::model::RealmValue;
use crate::model::Trigger;
use crate::model::User;

use super::Stats;
use super::bouncer::{Body, CallError, Service};
use super::e2ee;
use super::payloads::{self, Base, MessageFacts, NotifyRequest, TestRequest, Where};

/// What became of one push.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PushOutcome {
    /// The service took the notification.
    Sent,
    /// Nothing to send: push is not configured, the user has no device, is gone or is a bot,
    /// or the message is gone.
    NothingToSend,
    /// The service could not be reached or failed (network, timeout, 5xx): try again later.
    RetryLater(String),
    /// The service refused; `permanent` says whether trying again can help.
    Failed { reason: String, permanent: bool },
}

/// The realm's id in payloads (Outpost has one realm).
const REALM_ID: i64 = crate::domain::uploads::REALM_ID;

/// The server's host as upstream's `EXTERNAL_HOST` (with the port when one is given).
fn external_host(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split('/').next().unwrap_or(rest).to_string()
}

/// What payloads need of the config, for the read thread.
#[derive(Clone)]
struct Site {
    configured_realm_name: String,
    external_url: String,
    host: String,
}

impl Site {
    fn of(core: &Core) -> Site {
        Site {
            configured_realm_name: core.config.chat.realm_name.clone(),
            external_url: core.config.chat.external_url.clone(),
            host: core.config.realm_host().to_string(),
        }
    }
}

fn base(site: &Site, c: &rusqlite::Connection, user: UserId) -> Result<Base> {
    let (realm_name, _) =
        crate::domain::realm_settings::name_and_description(c, &site.configured_realm_name)?;
    Ok(Base {
        server: external_host(&site.external_url),
        realm_id: REALM_ID,
        realm_url: site.external_url.clone(),
        realm_name,
        user_id: user.0,
    })
}

/// A user's avatar as the chat API gives it (`zulip::wire::user_avatar_url`: the Gravatar of
/// the API email).
fn avatar_url(user: &User, host: &str) -> String {
    let email = crate::domain::emails::api_email(user, host);
    let digest = Md5::digest(email.to_lowercase().as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "https://secure.gravatar.com/avatar/{hex}?d=identicon&version={}",
        user.avatar_version
    )
}

/// An active human user, or `None`.
fn recipient(c: &rusqlite::Connection, user: UserId) -> Result<Option<User>> {
    Ok(crate::db::users::get(c, user)?.filter(|u| u.is_active && !u.is_bot))
}

/// The user's APNs and FCM tokens.
fn devices(c: &rusqlite::Connection, user: UserId) -> Result<(Vec<String>, Vec<String>)> {
    Ok((
        db::tokens_of_kind(c, user, "apns")?,
        db::tokens_of_kind(c, user, "fcm")?,
    ))
}

fn message_facts(
    site: &Site,
    c: &rusqlite::Connection,
    user: UserId,
    message: MessageId,
    trigger: Trigger,
    group: Option<GroupId>,
) -> Result<Option<MessageFacts>> {
    let Some(m) = crate::db::messages::get(c, message)? else {
        return Ok(None);
    };
    let Some(sender) = crate::db::users::get_any(c, m.sender_id)? else {
        return Ok(None);
    };
    let host = site.host.as_str();
    let place = if let Some(channel) = m.channel_id {
        let Some(ch) = crate::db::channels::get(c, channel)? else {
            return Ok(None);
        };
        Where::Channel {
            id: channel.0,
            name: ch.name,
            topic: m.topic.clone(),
        }
    } else if let Some(conv) = m.conversation_id {
        let ids = crate::db::conversations::members(c, conv)?;
        let users = crate::db::users::get_many(c, &ids)?;
        Where::Direct {
            members: ids
                .iter()
                .map(|id| {
                    let name = users
                        .get(id)
                        .map(|u| u.full_name.clone())
                        .unwrap_or_default();
                    (id.0, name)
                })
                .collect(),
        }
    } else {
        return Ok(None);
    };
    let mentioned_group = match group {
        Some(g) => crate::db::groups::get(c, g)?.map(|g| (g.id.0, g.name)),
        None => None,
    };
    Ok(Some(MessageFacts {
        base: base(site, c, user)?,
        message_id: m.id.0,
        sender_id: sender.id.0,
        sender_email: crate::domain::emails::api_email(&sender, host),
        sender_full_name: sender.full_name.clone(),
        sender_avatar_url: avatar_url(&sender, host),
        time: m.sent_at,
        rendered_content: m.rendered_content,
        place,
        mentioned_group,
        trigger,
    }))
}

/// The service's answer to `push/notify`.
#[derive(Deserialize)]
struct NotifyAnswer {
    #[serde(default)]
    deleted_devices: Option<DeletedDevices>,
    #[serde(default)]
    realm: Option<RealmAnswer>,
}

#[derive(Deserialize)]
struct DeletedDevices {
    #[serde(default)]
    android_devices: Vec<String>,
    #[serde(default)]
    apple_devices: Vec<String>,
}

#[derive(Deserialize)]
struct RealmAnswer {
    can_push: bool,
    expected_end_timestamp: Option<i64>,
}

/// Stores what the service said of the realm; when that changes what clients were told,
/// `realm` events tell them (`realm_push_notifications_enabled` and its end timestamp).
pub(super) fn store_realm_state(
    tx: &mut crate::db::WriteTx<'_>,
    can_push: bool,
    end: Option<i64>,
) -> Result<()> {
    let before = db::realm_state(tx)?.unwrap_or((true, None));
    db::set_realm_state(tx, can_push, end, crate::time::now_secs())?;
    if before.0 != can_push {
        tx.emit(Event::RealmSettingChanged(RealmSettingChanged {
            name: "push_notifications_enabled",
            value: RealmValue::Bool(can_push),
        }));
    }
    if before.1 != end {
        tx.emit(Event::RealmSettingChanged(RealmSettingChanged {
            name: "push_notifications_enabled_end_timestamp",
            value: RealmValue::Limit(end),
        }));
    }
    Ok(())
}

/// Posts a notify request, applies the answer and counts the outcome.
async fn notify(core: &Core, service: &Service, request: NotifyRequest) -> Result<PushOutcome> {
    let outcome = notify_once(core, service, request).await?;
    let stats = &core.push_stats;
    Stats::add(match &outcome {
        PushOutcome::Sent => &stats.sent,
        PushOutcome::RetryLater(_) => &stats.retry_later,
        PushOutcome::Failed { .. } | PushOutcome::NothingToSend => &stats.failed,
    });
    Ok(outcome)
}

async fn notify_once(
    core: &Core,
    service: &Service,
    request: NotifyRequest,
) -> Result<PushOutcome> {
    let user = request.user_id;
    let body = serde_json::to_vec(&request).map_err(|e| Error::internal(e.to_string()))?;
    match service.post("push/notify", Body::Json(body)).await {
        Ok(bytes) => {
            let answer: NotifyAnswer = match serde_json::from_slice(&bytes) {
                Ok(a) => a,
                Err(e) => {
                    return Ok(PushOutcome::Failed {
                        reason: format!("the push notification service's answer is not valid: {e}"),
                        permanent: false,
                    });
                }
            };
            let deleted = answer.deleted_devices.unwrap_or(DeletedDevices {
                android_devices: Vec::new(),
                apple_devices: Vec::new(),
            });
            let realm = answer.realm.map(|r| (r.can_push, r.expected_end_timestamp));
            let removed = core
                .db
                .write(move |tx| {
                    let mut n = db::delete_tokens(tx, "fcm", &deleted.android_devices)?;
                    n += db::delete_tokens(tx, "apns", &deleted.apple_devices)?;
                    if let Some((can_push, end)) = realm {
                        store_realm_state(tx, can_push, end)?;
                    }
                    Ok(n)
                })
                .await?;
            if removed > 0 {
                tracing::info!(
                    user,
                    removed,
                    "push: deleted tokens the push notification service no longer knows"
                );
            }
            Ok(PushOutcome::Sent)
        }
        Err(CallError::RetryLater(why)) => {
            tracing::warn!(user, error = %why, "push: the push notification service failed");
            Ok(PushOutcome::RetryLater(why))
        }
        Err(CallError::Refused { code, msg }) if code == "PUSH_NOTIFICATIONS_DISALLOWED" => {
            tracing::warn!(user, reason = %msg, "push: the push notification service refused to send");
            core.db
                .write(|tx| store_realm_state(tx, false, None))
                .await?;
            Ok(PushOutcome::Failed {
                reason: msg,
                permanent: true,
            })
        }
        Err(e) => {
            tracing::error!(user, error = %e.describe(), "push: the push notification service refused the notification");
            Ok(PushOutcome::Failed {
                reason: e.describe(),
                permanent: true,
            })
        }
    }
}

/// Pushes `message` to `user`'s devices for `trigger` (with the mentioned group when a
/// group mention, not a personal one, triggered it), as upstream's `handle_push_notification`
/// builds it. The caller decided that the user is to be notified; this reads what the
/// payloads need and makes one call.
pub async fn send_message_push(
    core: &Core,
    user: UserId,
    message: MessageId,
    trigger: Trigger,
    mentioned_group: Option<GroupId>,
) -> Result<PushOutcome> {
    let Some(service) = super::service(core)? else {
        return Ok(PushOutcome::NothingToSend);
    };
    let realm_uuid = service
        .credentials
        .as_ref()
        .map(|c| c.realm_uuid.clone())
        .unwrap_or_default();
    let site = Site::of(core);
    let read = core
        .db
        .read(move |c| {
            if recipient(c, user)?.is_none() {
                return Ok(None);
            }
            let (apple, android) = devices(c, user)?;
            let sealed = e2ee::devices(c, user)?;
            if apple.is_empty() && android.is_empty() && sealed.is_empty() {
                return Ok(None);
            }
            let facts = message_facts(&site, c, user, message, trigger, mentioned_group)?;
            Ok(facts.map(|f| (f, apple, android, sealed)))
        })
        .await?;
    let Some((facts, apple_devices, android_devices, sealed)) = read else {
        return Ok(PushOutcome::NothingToSend);
    };
    let mut legacy = PushOutcome::NothingToSend;
    if !apple_devices.is_empty() || !android_devices.is_empty() {
        let (gcm_payload, gcm_options) = facts.fcm();
        let request = NotifyRequest {
            user_id: user.0,
            realm_uuid,
            apns_payload: facts.apns(),
            gcm_payload,
            gcm_options,
            android_devices,
            apple_devices,
        };
        legacy = notify(core, &service, request).await?;
    }
    let mut encrypted = PushOutcome::NothingToSend;
    if !sealed.is_empty() {
        let plain = e2ee::message_plaintext(&facts)?;
        encrypted =
            e2ee::notify(core, &service, user, &sealed, &plain, e2ee::Kind::Message).await?;
    }
    Ok(combined(user, legacy, encrypted))
}

/// One outcome for a push that went to legacy tokens and to encrypted registrations in two
/// calls. Sent if either half was sent: trying again would repeat the half that arrived, so a
/// half that failed is only logged (by the half's call) and counted.
fn combined(user: UserId, legacy: PushOutcome, encrypted: PushOutcome) -> PushOutcome {
    use PushOutcome::*;
    match (legacy, encrypted) {
        (NothingToSend, other) | (other, NothingToSend) => other,
        (Sent, Sent) => Sent,
        (Sent, lost) | (lost, Sent) => {
            tracing::warn!(user = user.0, outcome = ?lost,
                "push: one of the two notify calls failed; not repeated, the other arrived");
            Sent
        }
        (RetryLater(a), _) | (_, RetryLater(a)) => RetryLater(a),
        (failed @ Failed { .. }, Failed { .. }) => failed,
    }
}

/// Removes the notifications of `messages` from `user`'s devices (the newest
/// [`payloads::MAX_REMOVE_IDS`] ids), as upstream's `handle_remove_push_notification`. The
/// messages need not exist any more.
pub async fn send_remove_push(
    core: &Core,
    user: UserId,
    messages: &[MessageId],
) -> Result<PushOutcome> {
    let ids = payloads::newest_ids(&messages.iter().map(|m| m.0).collect::<Vec<_>>());
    if ids.is_empty() {
        return Ok(PushOutcome::NothingToSend);
    }
    let Some(service) = super::service(core)? else {
        return Ok(PushOutcome::NothingToSend);
    };
    let realm_uuid = service
        .credentials
        .as_ref()
        .map(|c| c.realm_uuid.clone())
        .unwrap_or_default();
    let site = Site::of(core);
    let read = core
        .db
        .read(move |c| {
            if recipient(c, user)?.is_none() {
                return Ok(None);
            }
            let (apple, android) = devices(c, user)?;
            let sealed = e2ee::devices(c, user)?;
            if apple.is_empty() && android.is_empty() && sealed.is_empty() {
                return Ok(None);
            }
            Ok(Some((base(&site, c, user)?, apple, android, sealed)))
        })
        .await?;
    let Some((base, apple_devices, android_devices, sealed)) = read else {
        return Ok(PushOutcome::NothingToSend);
    };
    let mut legacy = PushOutcome::NothingToSend;
    if !apple_devices.is_empty() || !android_devices.is_empty() {
        let (gcm_payload, gcm_options, apns_payload) = payloads::remove(&base, &ids);
        let request = NotifyRequest {
            user_id: user.0,
            realm_uuid,
            apns_payload,
            gcm_payload,
            gcm_options,
            android_devices,
            apple_devices,
        };
        legacy = notify(core, &service, request).await?;
    }
    let mut encrypted = PushOutcome::NothingToSend;
    if !sealed.is_empty() {
        let plain = e2ee::remove_plaintext(&base, &ids)?;
        encrypted = e2ee::notify(core, &service, user, &sealed, &plain, e2ee::Kind::Remove).await?;
    }
    Ok(combined(user, legacy, encrypted))
}

/// Whether the user has a device pushes reach (a legacy token, or an encrypted registration
/// the service took), for the notification decision's `push_device_registered`. Encrypted
/// registrations do not count while their forwarding call waits or after it was refused.
pub fn has_push_devices(c: &rusqlite::Connection, user: UserId) -> Result<bool> {
    Ok(!db::tokens_of_kind(c, user, "apns")?.is_empty()
        || !db::tokens_of_kind(c, user, "fcm")?.is_empty()
        || crate::db::push_e2ee::has_forwarded(c, user)?)
}

fn not_configured() -> Error {
    Error::coded(
        "PUSH_SERVICE_NOT_CONFIGURED",
        "Server is not configured to use push notification service.",
        vec![],
    )
}

/// `POST /mobile_push/test_notification`: a test notification to the device with `token`, or
/// to every device of the caller, through the service (`push/test_notification`, one call per
/// device), with upstream's errors.
pub async fn test_notification(core: &Core, caller: &User, token: Option<String>) -> Result<()> {
    super::humans_only(caller)?;
    if let Some(t) = &token
        && (t.is_empty() || t.chars().count() > super::MAX_TOKEN_LENGTH)
    {
        return Err(Error::bad_request("Empty or invalid length token"));
    }
    let Some(service) = super::service(core)? else {
        return Err(not_configured());
    };
    let realm_uuid = service
        .credentials
        .as_ref()
        .map(|c| c.realm_uuid.clone())
        .unwrap_or_default();
    let me = caller.id;
    let site = Site::of(core);
    let (base, targets) = core
        .db
        .read(move |c| {
            let targets: Vec<(String, String)> = match &token {
                Some(t) => db::kinds_of_token(c, me, t)?
                    .into_iter()
                    .map(|k| (k, t.clone()))
                    .collect(),
                None => {
                    let (apple, android) = devices(c, me)?;
                    let apple = apple.into_iter().map(|t| ("apns".to_string(), t));
                    apple
                        .chain(android.into_iter().map(|t| ("fcm".to_string(), t)))
                        .collect()
                }
            };
            if token.is_some() && targets.is_empty() {
                return Err(Error::coded(
                    "INVALID_PUSH_DEVICE_TOKEN",
                    "Device not recognized",
                    vec![],
                ));
            }
            Ok((base(&site, c, me)?, targets))
        })
        .await?;
    for (kind, token) in targets {
        let request = TestRequest {
            realm_uuid: realm_uuid.clone(),
            user_id: me.0,
            token,
            token_kind: super::outbox::kind_number(&kind),
            base_payload: base.fields(),
        };
        let body = serde_json::to_vec(&request).map_err(|e| Error::internal(e.to_string()))?;
        match service
            .post("push/test_notification", Body::Json(body))
            .await
        {
            Ok(_) => {}
            Err(CallError::RetryLater(why)) => {
                return Err(Error::new(
                    crate::error::ErrorKind::BadGateway,
                    "Network error while connecting to Zulip push notification service.",
                )
                .with_detail(why));
            }
            Err(CallError::Refused { code, .. }) if code == "INVALID_REMOTE_PUSH_DEVICE_TOKEN" => {
                return Err(Error::coded(
                    "INVALID_REMOTE_PUSH_DEVICE_TOKEN",
                    "Device not recognized by the push bouncer",
                    vec![],
                ));
            }
            Err(CallError::Refused { code, msg }) if code == "INVALID_ZULIP_SERVER" => {
                return Err(Error::bad_request(format!(
                    "Push notifications bouncer error: {msg}"
                )));
            }
            Err(CallError::Refused { msg, .. }) => return Err(Error::bad_request(msg)),
            Err(CallError::Failed(why)) => {
                return Err(Error::new(
                    crate::error::ErrorKind::BadGateway,
                    "Network error while connecting to Zulip push notification service.",
                )
                .with_detail(why));
            }
        }
    }
    Ok(())
}
