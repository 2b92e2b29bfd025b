//! Delivery of people and settings events: users added, changed, (de)activated, their
//! statuses, personal and organization settings, profile fields and alert words.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::app::AppState;
use crate::db::users as users_db;
use crate::domain::emails;
use crate::domain::realm_settings::RealmValue;
use crate::domain::settings::{self, Legacy, SettingValue};
use crate::error::Result;
use crate::events::PersonChange;
use crate::events::queues::{EventJson, Queue};
use crate::ids::UserId;
use crate::model::User;
use crate::zulip::wire::{self, Viewer};

use super::{event_json, push_to_users, queues_wanting};

/// A user created, reactivated or deactivated (`created` tells which kind of event).
pub(super) async fn lifecycle(
    state: &AppState,
    seq: u64,
    uid: UserId,
    created: bool,
) -> Result<()> {
    let user = state.db.read(move |c| users_db::get_any(c, uid)).await?;
    let Some(user) = user else { return Ok(()) };
    if created {
        return deliver_new_user(state, seq, &user).await;
    }
    let body = json!({
        "type": "realm_user",
        "op": "update",
        "person": {"user_id": uid.0, "is_active": user.is_active},
    });
    push_to_users(state, seq, None, "realm_user", &body);
    Ok(())
}

/// A change to a user's record.
pub(super) async fn updated(
    state: &AppState,
    seq: u64,
    uid: UserId,
    change: &PersonChange,
) -> Result<()> {
    let user = state.db.read(move |c| users_db::get_any(c, uid)).await?;
    let Some(user) = user else { return Ok(()) };
    let person = match change {
        PersonChange::FullName(n) => json!({"user_id": uid.0, "full_name": n}),
        PersonChange::Role(r) => json!({"user_id": uid.0, "role": r}),
        PersonChange::Email(_) => return deliver_email_change(state, seq, &user).await,
        PersonChange::Timezone(tz) => json!({
            "user_id": uid.0,
            "email": wire::api_email(&user, state.config.realm_host()),
            "timezone": tz,
        }),
        PersonChange::ProfileField {
            field_id,
            value,
            rendered_value,
        } => json!({
            "user_id": uid.0,
            "custom_profile_field": {
                "id": field_id.0,
                "value": value,
                "rendered_value": rendered_value,
            },
        }),
        // A new API key concerns nobody else.
        PersonChange::ApiKey => return Ok(()),
    };
    let body = json!({"type": "realm_user", "op": "update", "person": person});
    push_to_users(state, seq, None, "realm_user", &body);
    Ok(())
}

/// A user's status (text, emoji, away), to everyone.
pub(super) async fn status(state: &AppState, seq: u64, uid: UserId) -> Result<()> {
    let found = state
        .db
        .read(move |c| {
            let Some(user) = users_db::get_any(c, uid)? else {
                return Ok(None);
            };
            Ok(Some((user.presence_enabled, users_db::status(c, uid)?)))
        })
        .await?;
    let Some((presence_enabled, status)) = found else {
        return Ok(());
    };
    let mut body = json!({
        "type": "user_status",
        "user_id": uid.0,
        "away": !presence_enabled,
        "status_text": status.status_text,
        "emoji_name": status.emoji_name,
        "emoji_code": status.emoji_code,
    });
    // A cleared emoji has no reaction type.
    if !status.reaction_type.is_empty() {
        body["reaction_type"] = json!(status.reaction_type);
    }
    push_to_users(state, seq, None, "user_status", &body);
    Ok(())
}

/// An organization setting, to everyone.
pub(super) fn realm_setting(state: &AppState, seq: u64, name: &str, value: &RealmValue) {
    let mut data = serde_json::Map::new();
    data.insert(name.to_string(), wire::realm_value(value));
    let body = json!({
        "type": "realm",
        "op": "update_dict",
        "property": "default",
        "data": data,
    });
    push_to_users(state, seq, None, "realm", &body);
}

/// The custom profile fields, to everyone.
pub(super) async fn profile_fields(state: &AppState, seq: u64) -> Result<()> {
    let fields = crate::domain::profile_fields::list(state).await?;
    let body = json!({
        "type": "custom_profile_fields",
        "fields": fields.iter().map(wire::profile_field).collect::<Vec<_>>(),
    });
    push_to_users(state, seq, None, "custom_profile_fields", &body);
    Ok(())
}

/// A user's alert words, to their own queues.
pub(super) fn alert_words(state: &AppState, seq: u64, user_id: UserId, words: &[String]) {
    let body = json!({"type": "alert_words", "alert_words": words});
    push_to_users(state, seq, Some(&[user_id]), "alert_words", &body);
}

/// The queues that want `realm_user` events, with their owners' rows (who sees which email
/// depends on the owner); `None` when there are none.
async fn realm_user_queues(
    state: &AppState,
    seq: u64,
) -> Result<Option<(Vec<Arc<Queue>>, HashMap<UserId, User>)>> {
    let queues = queues_wanting(state, seq, None, "realm_user");
    if queues.is_empty() {
        return Ok(None);
    }
    let owners: Vec<UserId> = queues.iter().map(|q| q.user_id).collect();
    let viewers = state
        .db
        .read(move |c| users_db::get_many(c, &owners))
        .await?;
    Ok(Some((queues, viewers)))
}

/// A new user: each queue's owner gets the person as they may see it, with the real email
/// only where they may see it (two shapes at most, each serialized once).
async fn deliver_new_user(state: &AppState, seq: u64, user: &User) -> Result<()> {
    let Some((queues, viewers)) = realm_user_queues(state, seq).await? else {
        return Ok(());
    };
    let host = state.config.realm_host();
    let mut shapes: HashMap<bool, EventJson> = HashMap::new();
    for q in queues {
        let Some(owner) = viewers.get(&q.user_id) else {
            continue;
        };
        let v = Viewer {
            user: owner,
            host,
            client_gravatar: false,
        };
        let text = shapes.entry(v.sees_real_email(user)).or_insert_with(|| {
            event_json(&json!({
                "type": "realm_user",
                "op": "add",
                "person": Value::Object(wire::user(&v, user, None)),
            }))
        });
        state.queues.push(&q, Arc::clone(text));
    }
    Ok(())
}

/// A user's real email changed: `delivery_email` goes to the queues whose owners may see it,
/// then `new_email` to everyone when the API email is the real one and so changed too (a
/// placeholder API email stays the same).
async fn deliver_email_change(state: &AppState, seq: u64, user: &User) -> Result<()> {
    let Some((queues, viewers)) = realm_user_queues(state, seq).await? else {
        return Ok(());
    };
    let delivery = event_json(&json!({
        "type": "realm_user",
        "op": "update",
        "person": {"user_id": user.id.0, "delivery_email": user.email},
    }));
    let api_email_changed = emails::is_public(user);
    let new_email = event_json(&json!({
        "type": "realm_user",
        "op": "update",
        "person": {
            "user_id": user.id.0,
            "new_email": wire::api_email(user, state.config.realm_host()),
        },
    }));
    for q in queues {
        let Some(owner) = viewers.get(&q.user_id) else {
            continue;
        };
        if emails::sees_real_email(owner, user) {
            state.queues.push(&q, Arc::clone(&delivery));
        }
        if api_email_changed {
            state.queues.push(&q, Arc::clone(&new_email));
        }
    }
    Ok(())
}

/// A personal setting changed: `user_settings` to the user's own queues, plus the deprecated
/// display/notification event to those registered without `user_settings_object`.
pub(super) async fn deliver_setting(
    state: &AppState,
    seq: u64,
    uid: UserId,
    name: &'static str,
    value: &SettingValue,
) -> Result<()> {
    let Some(user) = state.db.read(move |c| users_db::get_any(c, uid)).await? else {
        return Ok(());
    };
    let queues = state.queues.of_users(seq, Some(&[uid]));
    if queues.is_empty() {
        return Ok(());
    }
    let value = wire::setting_value(value);
    let language = match (name, &value) {
        ("default_language", Value::String(code)) => Some(settings::language_name(code)),
        _ => None,
    };
    let mut current =
        json!({"type": "user_settings", "op": "update", "property": name, "value": value});
    let email = wire::api_email(&user, state.config.realm_host());
    let mut legacy = match settings::legacy_class(name) {
        Legacy::Display => Some(json!({
            "type": "update_display_settings",
            "user": email,
            "setting_name": name,
            "setting": value,
        })),
        Legacy::Notification => Some(json!({
            "type": "update_global_notifications",
            "user": email,
            "notification_name": name,
            "setting": value,
        })),
        Legacy::None => None,
    };
    if let Some(lang) = language {
        current["language_name"] = json!(lang);
        if let Some(l) = legacy.as_mut() {
            l["language_name"] = json!(lang);
        }
    }
    let current = event_json(&current);
    let legacy = legacy.map(|l| {
        let t = l["type"].as_str().unwrap_or_default().to_string();
        (t, event_json(&l))
    });
    for q in queues {
        if q.options.wants("user_settings") {
            state.queues.push(&q, Arc::clone(&current));
        }
        if let Some((t, json)) = &legacy
            && !q.options.user_settings_object
            && q.options.wants(t)
        {
            state.queues.push(&q, Arc::clone(json));
        }
    }
    Ok(())
}
