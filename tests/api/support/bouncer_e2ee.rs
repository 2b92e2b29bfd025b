//! The end-to-end encrypted half of the push service stand-in (`support::bouncer`), written
//! from upstream's documentation of `remotes/push/e2ee/register` and `remotes/push/e2ee/notify`
//! (feature level 406): it holds a bouncer key pair, opens the registrations clients sealed to
//! its public key (`crypto_box_seal` of `{token_kind, token, timestamp, ios_app_id}`), refuses
//! unknown keys, unreadable registrations and ones older than 24 hours with upstream's codes,
//! gives each registration a device id, and checks every item of a notify request (its
//! device, `push_account_id`, the base64 ciphertext, the APNs headers and `aps`, the FCM
//! priority). What it cannot check is the real service's behaviour beyond that documentation.

use std::collections::HashMap;

use base64::Engine as _;
use crypto_box::{PublicKey, SecretKey};
use serde_json::{Value, json};

/// A device a registration named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct E2eeDevice {
    pub realm_uuid: String,
    pub push_account_id: i64,
    /// `apns` or `fcm`.
    pub token_kind: String,
    pub token: String,
}

pub struct E2ee {
    secret: SecretKey,
    pub devices: HashMap<i64, E2eeDevice>,
    next_id: i64,
}

impl Default for E2ee {
    fn default() -> Self {
        E2ee {
            secret: SecretKey::generate(&mut crypto_box::aead::OsRng),
            devices: HashMap::new(),
            next_id: 1000,
        }
    }
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

/// What a handler answers: (status, body) or an error (status, code, msg).
pub enum Answer {
    Ok(Value),
    Err(u16, &'static str, String),
}

impl E2ee {
    /// The bouncer's public key as clients carry it (`bouncer_public_key`).
    pub fn public_key(&self) -> String {
        b64().encode(self.secret.public_key().as_bytes())
    }

    /// A registration as the app seals it for this bouncer.
    pub fn seal_registration(&self, plain: &Value) -> String {
        let public: PublicKey = self.secret.public_key();
        let sealed = public
            .seal(&mut crypto_box::aead::OsRng, plain.to_string().as_bytes())
            .unwrap();
        b64().encode(sealed)
    }

    pub fn register(&mut self, f: &dyn Fn(&str) -> Option<String>, now: i64) -> Answer {
        let uuid = f("realm_uuid").unwrap_or_default();
        let account = f("push_account_id").and_then(|a| a.parse::<i64>().ok());
        let (Some(account), Some(sealed), Some(key)) = (
            account,
            f("encrypted_push_registration"),
            f("bouncer_public_key"),
        ) else {
            return Answer::Err(400, "BAD_REQUEST", "missing or invalid field".into());
        };
        if !super::bouncer::is_uuid(&uuid) {
            return Answer::Err(400, "BAD_REQUEST", "Invalid realm_uuid".into());
        }
        if key != self.public_key() {
            return Answer::Err(
                400,
                "INVALID_BOUNCER_PUBLIC_KEY",
                "Invalid bouncer_public_key".into(),
            );
        }
        let invalid = || {
            Answer::Err(
                400,
                "BAD_REQUEST",
                "Invalid encrypted_push_registration".into(),
            )
        };
        let Some(plain) = b64()
            .decode(&sealed)
            .ok()
            .and_then(|b| self.secret.unseal(&b).ok())
            .and_then(|p| serde_json::from_slice::<Value>(&p).ok())
        else {
            return invalid();
        };
        let kind = plain["token_kind"].as_str().unwrap_or_default().to_string();
        let token = plain["token"].as_str().unwrap_or_default().to_string();
        let Some(timestamp) = plain["timestamp"].as_i64() else {
            return invalid();
        };
        let app = plain.get("ios_app_id");
        let valid = match kind.as_str() {
            "apns" => {
                app.is_some_and(Value::is_string) && token.chars().all(|c| c.is_ascii_hexdigit())
            }
            "fcm" => app.is_none(),
            _ => false,
        };
        if !valid || token.is_empty() || token.len() > 4096 {
            return invalid();
        }
        if now - timestamp > 86_400 {
            return Answer::Err(400, "REQUEST_EXPIRED", "Request expired".into());
        }
        self.next_id += 1;
        let id = self.next_id;
        self.devices.insert(
            id,
            E2eeDevice {
                realm_uuid: uuid,
                push_account_id: account,
                token_kind: kind,
                token,
            },
        );
        Answer::Ok(json!({"device_id": id}))
    }

    /// Checks a notify request; the problems found, and the answer.
    pub fn notify(&mut self, v: &Value, problems: &mut Vec<String>) -> Answer {
        let uuid = v["realm_uuid"].as_str().unwrap_or_default();
        if !super::bouncer::is_uuid(uuid) {
            problems.push("realm_uuid is not a UUID".into());
        }
        let Some(items) = v["push_requests"].as_array() else {
            problems.push("push_requests is not a list".into());
            return Answer::Err(400, "BAD_REQUEST", "push_requests".into());
        };
        let (mut apple, mut android, mut gone) = (0, 0, Vec::new());
        for item in items {
            let Some(id) = item["device_id"].as_i64() else {
                problems.push(format!("device_id is not an integer: {item}"));
                continue;
            };
            let Some(device) = self.devices.get(&id) else {
                gone.push(id);
                continue;
            };
            if device.realm_uuid != uuid {
                problems.push(format!("device {id} is of another realm"));
            }
            let payload = &item["payload"];
            if payload["push_account_id"].as_i64() != Some(device.push_account_id) {
                problems.push(format!("payload.push_account_id of device {id}"));
            }
            let data = payload["encrypted_data"].as_str().unwrap_or_default();
            if b64().decode(data).map_or(true, |d| d.len() < 48) {
                problems.push(format!("payload.encrypted_data of device {id}"));
            }
            if device.token_kind == "apns" {
                apple += 1;
                let h = &item["http_headers"];
                if !h["apns_priority"].is_i64() || !h["apns_push_type"].is_string() {
                    problems.push(format!("http_headers of device {id}: {h}"));
                }
                if !payload["aps"].is_object() {
                    problems.push(format!("payload.aps of device {id}"));
                }
            } else {
                android += 1;
                if !matches!(item["fcm_priority"].as_str(), Some("high" | "normal")) {
                    problems.push(format!("fcm_priority of device {id}"));
                }
                let keys = payload.as_object().map(|m| m.len()).unwrap_or_default();
                if keys != 2 {
                    problems.push(format!("an FCM payload has other keys: {payload}"));
                }
            }
        }
        Answer::Ok(json!({
            "apple_successfully_sent_count": apple,
            "android_successfully_sent_count": android,
            "delete_device_ids": gone,
        }))
    }
}
