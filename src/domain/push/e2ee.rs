//! End-to-end encrypted push, as the contract's `POST /mobile_push/register` (Zulip 11,
//! feature level 406) defines it: the client sends its NaCl public key (`push_public_key`), a
//! random `push_account_id`, and its device token sealed to the service's key
//! (`encrypted_push_registration`, opaque to us). The registration is forwarded to the service
//! through the outbox (`remotes/push/e2ee/register`, [`register_form`]); the service answers
//! with its `device_id` for it ([`register_answer`]). A notification for such a device is the
//! JSON of upstream's encrypted payload ([`message_plaintext`], [`remove_plaintext`]) sealed to
//! the device's key (libsodium `crypto_box_seal`, [`seal`]) and posted to
//! `remotes/push/e2ee/notify` ([`notify`]) with the device's id and `push_account_id`, so
//! neither the service nor Apple or Google can read it. Device ids the service answers as
//! gone (`delete_device_ids`) are deleted here too.
//!
//! What upstream's documentation leaves open and is our reading of it: the notify request's
//! item shape (`device_id` with `push_account_id` where the later protocol names a token and a
//! key id) and the APNs headers of a remove notification (a silent, low-priority push).
//!
//! No SQL text (that is `db::push_e2ee`), no HTTP server types.

use base64::Engine as _;
use crypto_box::PublicKey;
use serde::{Deserialize, Serialize};

use crate::db::push_e2ee as db;
use crate::db::push_e2ee::ForwardedDevice;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::ids::UserId;

use super::Stats;
use super::bouncer::{Body, CallError, Service};
use super::content;
use super::payloads::{Base, MessageFacts, Where};
use super::send::{PushOutcome, store_realm_state};

/// The service's endpoint for registrations.
pub const REGISTER_ENDPOINT: &str = "push/e2ee/register";
/// The service's endpoint for encrypted notifications.
pub const NOTIFY_ENDPOINT: &str = "push/e2ee/notify";
/// What an iOS device shows when its notification service extension cannot decrypt.
const FALLBACK_TITLE: &str = "New notification";

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

/// The client's public key, if `s` is standard base64 of 32 bytes.
pub fn public_key(s: &str) -> Option<PublicKey> {
    let bytes: [u8; 32] = b64().decode(s).ok()?.try_into().ok()?;
    Some(PublicKey::from(bytes))
}

/// `plaintext` sealed to the device's public key (`crypto_box_seal`), in standard base64.
pub fn seal(push_public_key: &str, plaintext: &[u8]) -> Result<String> {
    let key = public_key(push_public_key)
        .ok_or_else(|| Error::internal("a stored push_public_key is not a 32-byte key"))?;
    let sealed = key
        .seal(&mut crypto_box::aead::OsRng, plaintext)
        .map_err(|_| Error::internal("sealing a push notification failed"))?;
    Ok(b64().encode(sealed))
}

/// The form of a forwarding call (`remotes/push/e2ee/register`).
pub fn register_form(realm_uuid: &str, account: i64, f: &db::Forwarding) -> Body {
    Body::Form(vec![
        ("realm_uuid".into(), realm_uuid.to_string()),
        ("push_account_id".into(), account.to_string()),
        (
            "encrypted_push_registration".into(),
            f.encrypted_push_registration.clone(),
        ),
        ("bouncer_public_key".into(), f.bouncer_public_key.clone()),
    ])
}

#[derive(Deserialize)]
struct RegisterAnswer {
    device_id: i64,
}

/// The device id in the service's answer to a forwarding call.
pub fn register_answer(bytes: &[u8]) -> std::result::Result<i64, String> {
    serde_json::from_slice::<RegisterAnswer>(bytes)
        .map(|a| a.device_id)
        .map_err(|e| format!("the push notification service's answer has no device_id: {e}"))
}

/// A message's encrypted payload, before encryption (upstream's "mobile notifications" page).
#[derive(Serialize)]
struct MessagePlain<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    realm_url: &'a str,
    realm_name: &'a str,
    user_id: i64,
    sender_id: i64,
    sender_full_name: &'a str,
    sender_avatar_url: &'a str,
    message_id: i64,
    time: i64,
    content: String,
    recipient_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    channel_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    channel_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    topic: Option<&'a str>,
    /// Every member of a direct message, sorted (the recipient and the sender included).
    #[serde(skip_serializing_if = "Option::is_none")]
    recipient_user_ids: Option<Vec<i64>>,
    /// The same, comma-joined, for group direct messages only: the earlier name clients of
    /// feature level 406 read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pm_users: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mentioned_user_group_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mentioned_user_group_name: Option<&'a str>,
}

/// The JSON a message notification encrypts.
pub fn message_plaintext(f: &MessageFacts) -> Result<Vec<u8>> {
    let (text, _) = content::truncate(&content::plain_text(&f.rendered_content));
    let mut plain = MessagePlain {
        kind: "message",
        realm_url: &f.base.realm_url,
        realm_name: &f.base.realm_name,
        user_id: f.base.user_id,
        sender_id: f.sender_id,
        sender_full_name: &f.sender_full_name,
        sender_avatar_url: &f.sender_avatar_url,
        message_id: f.message_id,
        time: f.time,
        content: text,
        recipient_type: "channel",
        channel_id: None,
        channel_name: None,
        topic: None,
        recipient_user_ids: None,
        pm_users: None,
        mentioned_user_group_id: f.mentioned_group.as_ref().map(|(id, _)| *id),
        mentioned_user_group_name: f.mentioned_group.as_ref().map(|(_, n)| n.as_str()),
    };
    match &f.place {
        Where::Channel { id, name, topic } => {
            plain.channel_id = Some(*id);
            plain.channel_name = Some(name);
            plain.topic = Some(topic);
        }
        Where::Direct { members } => {
            plain.recipient_type = "direct";
            let mut ids: Vec<i64> = members.iter().map(|(id, _)| *id).collect();
            ids.sort_unstable();
            ids.dedup();
            if ids.len() > 2 {
                let joined: Vec<String> = ids.iter().map(i64::to_string).collect();
                plain.pm_users = Some(joined.join(","));
            }
            plain.recipient_user_ids = Some(ids);
        }
    }
    serde_json::to_vec(&plain).map_err(|e| Error::internal(e.to_string()))
}

#[derive(Serialize)]
struct RemovePlain<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    message_ids: &'a [i64],
    realm_url: &'a str,
    realm_name: &'a str,
    user_id: i64,
}

/// The JSON a remove notification encrypts (`ids` already cut to the newest).
pub fn remove_plaintext(base: &Base, ids: &[i64]) -> Result<Vec<u8>> {
    let plain = RemovePlain {
        kind: "remove",
        message_ids: ids,
        realm_url: &base.realm_url,
        realm_name: &base.realm_name,
        user_id: base.user_id,
    };
    serde_json::to_vec(&plain).map_err(|e| Error::internal(e.to_string()))
}

/// Which notification a request carries: it decides priorities and what iOS shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Message,
    Remove,
}

#[derive(Serialize)]
struct NotifyBody {
    realm_uuid: String,
    push_requests: Vec<PushRequest>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum PushRequest {
    Apns {
        device_id: i64,
        http_headers: ApnsHeaders,
        payload: ApnsPayload,
    },
    Fcm {
        device_id: i64,
        fcm_priority: &'static str,
        payload: Sealed,
    },
}

#[derive(Serialize)]
struct ApnsHeaders {
    apns_priority: i64,
    apns_push_type: &'static str,
}

#[derive(Serialize)]
struct Sealed {
    push_account_id: i64,
    encrypted_data: String,
}

#[derive(Serialize)]
struct ApnsPayload {
    push_account_id: i64,
    encrypted_data: String,
    aps: Aps,
}

#[derive(Serialize)]
struct Aps {
    #[serde(rename = "mutable-content", skip_serializing_if = "Option::is_none")]
    mutable_content: Option<i64>,
    #[serde(rename = "content-available", skip_serializing_if = "Option::is_none")]
    content_available: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alert: Option<Title>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sound: Option<&'static str>,
}

#[derive(Serialize)]
struct Title {
    title: &'static str,
}

fn request(device: &ForwardedDevice, kind: Kind, encrypted_data: String) -> PushRequest {
    let account = device.push_account_id;
    let id = device.bouncer_device_id;
    if device.token_kind == "apns" {
        let (http_headers, aps) = match kind {
            Kind::Message => (
                ApnsHeaders {
                    apns_priority: 10,
                    apns_push_type: "alert",
                },
                Aps {
                    mutable_content: Some(1),
                    content_available: None,
                    alert: Some(Title {
                        title: FALLBACK_TITLE,
                    }),
                    sound: Some("default"),
                },
            ),
            Kind::Remove => (
                ApnsHeaders {
                    apns_priority: 5,
                    apns_push_type: "background",
                },
                Aps {
                    mutable_content: None,
                    content_available: Some(1),
                    alert: None,
                    sound: None,
                },
            ),
        };
        PushRequest::Apns {
            device_id: id,
            http_headers,
            payload: ApnsPayload {
                push_account_id: account,
                encrypted_data,
                aps,
            },
        }
    } else {
        PushRequest::Fcm {
            device_id: id,
            fcm_priority: if kind == Kind::Message {
                "high"
            } else {
                "normal"
            },
            payload: Sealed {
                push_account_id: account,
                encrypted_data,
            },
        }
    }
}

#[derive(Deserialize)]
struct NotifyAnswer {
    #[serde(default)]
    delete_device_ids: Vec<i64>,
}

/// The user's registrations the service took.
pub fn devices(c: &rusqlite::Connection, user: UserId) -> Result<Vec<ForwardedDevice>> {
    db::forwarded_of(c, user)
}

/// Seals `plaintext` for each of `devices` and posts one `push/e2ee/notify`; applies the
/// answer (devices the service dropped are deleted) and counts the outcome.
pub async fn notify(
    core: &Core,
    service: &Service,
    user: UserId,
    devices: &[ForwardedDevice],
    plaintext: &[u8],
    kind: Kind,
) -> Result<PushOutcome> {
    let mut push_requests = Vec::with_capacity(devices.len());
    for d in devices {
        match seal(&d.push_public_key, plaintext) {
            Ok(data) => push_requests.push(request(d, kind, data)),
            Err(e) => {
                tracing::error!(user = user.0, account = d.push_account_id, error = %e.msg,
                    "push: a registration's key is unusable; skipped");
            }
        }
    }
    if push_requests.is_empty() {
        return Ok(PushOutcome::NothingToSend);
    }
    let realm_uuid = service
        .credentials
        .as_ref()
        .map(|c| c.realm_uuid.clone())
        .unwrap_or_default();
    let body = NotifyBody {
        realm_uuid,
        push_requests,
    };
    let body = serde_json::to_vec(&body).map_err(|e| Error::internal(e.to_string()))?;
    let outcome = match service.post(NOTIFY_ENDPOINT, Body::Json(body)).await {
        Ok(bytes) => {
            let gone = serde_json::from_slice::<NotifyAnswer>(&bytes)
                .map(|a| a.delete_device_ids)
                .unwrap_or_default();
            if !gone.is_empty() {
                let n = core
                    .db
                    .write(move |tx| db::delete_by_device_ids(tx, &gone))
                    .await?;
                tracing::info!(
                    user = user.0,
                    removed = n,
                    "push: deleted encrypted registrations the service no longer knows"
                );
            }
            PushOutcome::Sent
        }
        Err(CallError::RetryLater(why)) => {
            tracing::warn!(user = user.0, error = %why, "push: the push notification service failed");
            PushOutcome::RetryLater(why)
        }
        Err(CallError::Refused { code, msg })
            if code == "PUSH_NOTIFICATIONS_DISALLOWED" || code == "MISSING_REMOTE_REALM" =>
        {
            tracing::warn!(user = user.0, code = %code, reason = %msg,
                "push: the push notification service refused to send");
            core.db
                .write(|tx| store_realm_state(tx, false, None))
                .await?;
            PushOutcome::Failed {
                reason: msg,
                permanent: true,
            }
        }
        Err(e) => {
            tracing::error!(user = user.0, error = %e.describe(),
                "push: the push notification service refused the encrypted notification");
            PushOutcome::Failed {
                reason: e.describe(),
                permanent: true,
            }
        }
    };
    let stats = &core.push_stats;
    Stats::add(match &outcome {
        PushOutcome::Sent => &stats.sent,
        PushOutcome::RetryLater(_) => &stats.retry_later,
        PushOutcome::Failed { .. } | PushOutcome::NothingToSend => &stats.failed,
    });
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Trigger;
    use crypto_box::SecretKey;

    fn facts(place: Where) -> MessageFacts {
        MessageFacts {
            base: Base {
                server: "chat.example.com".into(),
                realm_id: 1,
                realm_url: "https://chat.example.com".into(),
                realm_name: "Example".into(),
                user_id: 7,
            },
            message_id: 42,
            sender_id: 3,
            sender_email: "sam@example.com".into(),
            sender_full_name: "Sam".into(),
            sender_avatar_url: "https://a/x".into(),
            time: 1_700_000_000,
            rendered_content: "<p>hello <strong>there</strong></p>".into(),
            place,
            mentioned_group: Some((9, "ops".into())),
            trigger: Trigger::Mentioned,
        }
    }

    #[test]
    fn a_sealed_payload_opens_only_with_the_device_key() {
        let secret = SecretKey::generate(&mut crypto_box::aead::OsRng);
        let public = b64().encode(secret.public_key().as_bytes());
        let plain = message_plaintext(&facts(Where::Channel {
            id: 5,
            name: "dev".into(),
            topic: "build".into(),
        }))
        .unwrap();
        let sealed = b64().decode(seal(&public, &plain).unwrap()).unwrap();
        assert_eq!(secret.unseal(&sealed).unwrap(), plain);
        let other = SecretKey::generate(&mut crypto_box::aead::OsRng);
        assert!(other.unseal(&sealed).is_err());
        let v: serde_json::Value = serde_json::from_slice(&plain).unwrap();
        assert_eq!(v["type"], "message");
        assert_eq!(v["recipient_type"], "channel");
        assert_eq!(
            (&v["channel_id"], &v["channel_name"], &v["topic"]),
            (&5.into(), &"dev".into(), &"build".into())
        );
        assert_eq!(v["content"], "hello there");
        assert_eq!(v["mentioned_user_group_name"], "ops");
        assert!(v.get("recipient_user_ids").is_none());
    }

    #[test]
    fn direct_messages_name_every_member_sorted() {
        let group = Where::Direct {
            members: vec![(7, "Zoe".into()), (3, "Sam".into()), (12, "Ann".into())],
        };
        let v: serde_json::Value =
            serde_json::from_slice(&message_plaintext(&facts(group)).unwrap()).unwrap();
        assert_eq!(v["recipient_type"], "direct");
        assert_eq!(
            v["recipient_user_ids"],
            serde_json::Value::from(vec![3i64, 7, 12])
        );
        assert_eq!(v["pm_users"], "3,7,12");
        assert!(v.get("channel_id").is_none());
        let one = Where::Direct {
            members: vec![(7, "Zoe".into()), (3, "Sam".into())],
        };
        let v: serde_json::Value =
            serde_json::from_slice(&message_plaintext(&facts(one)).unwrap()).unwrap();
        assert_eq!(
            v["recipient_user_ids"],
            serde_json::Value::from(vec![3i64, 7])
        );
        assert!(v.get("pm_users").is_none());
    }

    #[test]
    fn only_32_byte_keys_are_keys() {
        assert!(public_key(&b64().encode([1u8; 32])).is_some());
        assert!(public_key(&b64().encode([1u8; 31])).is_none());
        assert!(public_key("not base64!").is_none());
    }
}
