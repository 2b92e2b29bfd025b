//! Delivery of people and settings events: users added, changed, (de)activated, their
//! statuses, personal and organization settings, profile fields and alert words.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::db::users as users_db;
use crate::domain::emails;
use crate::domain::realm_settings::RealmValue;
use crate::domain::settings::{self, Legacy, SettingValue};
use crate::error::Result;
use crate::events::PersonChange;
use crate::events::queues::{EventJson, Queue};
use crate::ids::UserId;
use crate::model::User;
use crate::zulip::ChatState;
use crate::zulip::wire::events::{self, PersonField};
use crate::zulip::wire::{self, Viewer};

use super::{event_json, push_to_users, queues_wanting};

/// A user created, reactivated or deactivated (`created` tells which kind of event).
pub(super) async fn lifecycle(
    state: &ChatState,
    seq: u64,
    uid: UserId,
    created: bool,
) -> Result<()> {
    let user = state.db.read(move |c| users_db::get_any(c, uid)).await?;
    let Some(user) = user else { return Ok(()) };
    if created {
        deliver_new_user(state, seq, &user).await?;
        if user.is_bot && !user.is_system_bot {
            deliver_new_bot(state, seq, &user).await?;
        }
        return Ok(());
    }
    let body = events::user_updated(events::person(uid, PersonField::Active(user.is_active)));
    push_to_users(state, seq, None, "realm_user", &body);
    if user.is_bot && !user.is_system_bot {
        let body = wire::realm_bot_updated(uid.0, "is_active", Value::Bool(user.is_active));
        let to = bot_administrators(state, &user).await?;
        push_to_users(state, seq, Some(&to), "realm_bot", &body);
    }
    Ok(())
}

/// Who administers `bot`: its owner and the active administrators.
async fn bot_administrators(state: &ChatState, bot: &User) -> Result<Vec<UserId>> {
    let mut to = state.db.read(users_db::active_admin_ids).await?;
    if let Some(owner) = bot.bot_owner_id
        && !to.contains(&owner)
    {
        to.push(owner);
    }
    Ok(to)
}

/// A bot was created: its full record (key and service included) to the queues of its owner
/// and the administrators, as upstream's `realm_bot` `add`.
async fn deliver_new_bot(state: &ChatState, seq: u64, bot: &User) -> Result<()> {
    let to = bot_administrators(state, bot).await?;
    push_bot_record(state, seq, bot, &to).await
}

/// A bot's full record, as `realm_bot` `add`, to `to`.
async fn push_bot_record(state: &ChatState, seq: u64, bot: &User, to: &[UserId]) -> Result<()> {
    let id = bot.id;
    let (service, defaults) = state
        .db
        .read(move |c| {
            Ok((
                crate::db::bots::service(c, id)?,
                crate::db::bots::defaults(c, id)?,
            ))
        })
        .await?;
    let record = wire::bot(bot, service.as_ref(), &defaults, state.config.realm_host());
    let body = wire::realm_bot_added(record);
    push_to_users(state, seq, Some(to), "realm_bot", &body);
    Ok(())
}

/// A bot changed owners: everyone's `realm_user` gets the new owner; the previous owner (not
/// an administrator) loses the bot from `realm_bots`, the new one (not an administrator) gains
/// it, and the administrators get the new `owner_id` (upstream's `do_change_bot_owner`).
async fn deliver_bot_owner(
    state: &ChatState,
    seq: u64,
    bot: &User,
    previous: Option<UserId>,
) -> Result<()> {
    let owner = bot.bot_owner_id;
    let body = events::user_updated(events::person(
        bot.id,
        PersonField::BotOwner(owner.map(|o| o.0)),
    ));
    push_to_users(state, seq, None, "realm_user", &body);
    let admins = state.db.read(users_db::active_admin_ids).await?;
    if let Some(p) = previous.filter(|p| !admins.contains(p) && Some(*p) != owner) {
        let body = wire::realm_bot_removed(bot.id.0);
        push_to_users(state, seq, Some(&[p]), "realm_bot", &body);
    }
    if let Some(o) = owner.filter(|o| !admins.contains(o)) {
        push_bot_record(state, seq, bot, &[o]).await?;
    }
    let body = wire::realm_bot_updated(
        bot.id.0,
        "owner_id",
        owner.map_or(Value::Null, |o| Value::from(o.0)),
    );
    push_to_users(state, seq, Some(&admins), "realm_bot", &body);
    Ok(())
}

/// One property of a bot's service or defaults, to those who administer it.
async fn deliver_bot_property(state: &ChatState, seq: u64, bot: &User, field: &str) -> Result<()> {
    let id = bot.id;
    let (service, defaults) = state
        .db
        .read(move |c| {
            Ok((
                crate::db::bots::service(c, id)?,
                crate::db::bots::defaults(c, id)?,
            ))
        })
        .await?;
    let value = match field {
        "services" => wire::services(bot.bot_type, service.as_ref()),
        "default_sending_stream" => defaults.sending_channel.map_or(Value::Null, Value::from),
        "default_events_register_stream" => {
            defaults.events_channel.map_or(Value::Null, Value::from)
        }
        _ => Value::Bool(defaults.all_public_channels),
    };
    let body = wire::realm_bot_updated(id.0, field, value);
    let to = bot_administrators(state, bot).await?;
    push_to_users(state, seq, Some(&to), "realm_bot", &body);
    Ok(())
}

/// A change to a user's record.
pub(super) async fn updated(
    state: &ChatState,
    seq: u64,
    uid: UserId,
    change: &PersonChange,
) -> Result<()> {
    let user = state.db.read(move |c| users_db::get_any(c, uid)).await?;
    let Some(user) = user else { return Ok(()) };
    let field = match change {
        PersonChange::FullName(n) => {
            if user.is_bot && !user.is_system_bot {
                let body = wire::realm_bot_updated(uid.0, "full_name", Value::from(n.as_str()));
                let to = bot_administrators(state, &user).await?;
                push_to_users(state, seq, Some(&to), "realm_bot", &body);
            }
            PersonField::FullName(n)
        }
        PersonChange::BotOwner { previous } => {
            return deliver_bot_owner(state, seq, &user, *previous).await;
        }
        PersonChange::BotServices => {
            return deliver_bot_property(state, seq, &user, "services").await;
        }
        PersonChange::BotDefault(field) => {
            return deliver_bot_property(state, seq, &user, field).await;
        }
        PersonChange::Role(r) => PersonField::Role(*r),
        PersonChange::Email(_) => return deliver_email_change(state, seq, &user).await,
        PersonChange::Timezone(tz) => PersonField::Timezone {
            email: wire::api_email(&user, state.config.realm_host()),
            timezone: tz,
        },
        PersonChange::ProfileField {
            field_id,
            value,
            rendered_value,
        } => PersonField::ProfileField {
            id: field_id.0,
            value,
            rendered_value,
        },
        // A new API key concerns nobody else; a bot's goes to those who administer it.
        PersonChange::ApiKey => {
            if user.is_bot && !user.is_system_bot {
                let key = Value::String(user.api_key.0.clone());
                let body = wire::realm_bot_updated(uid.0, "api_key", key);
                let to = bot_administrators(state, &user).await?;
                push_to_users(state, seq, Some(&to), "realm_bot", &body);
            }
            return Ok(());
        }
    };
    let body = events::user_updated(events::person(uid, field));
    push_to_users(state, seq, None, "realm_user", &body);
    Ok(())
}

/// A user's status (text, emoji, away), to everyone.
pub(super) async fn status(state: &ChatState, seq: u64, uid: UserId) -> Result<()> {
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
    let body = events::user_status(uid, presence_enabled, &status);
    push_to_users(state, seq, None, "user_status", &body);
    Ok(())
}

/// An organization setting, to everyone.
pub(super) fn realm_setting(state: &ChatState, seq: u64, name: &str, value: &RealmValue) {
    let body = events::realm_setting(name, value);
    push_to_users(state, seq, None, "realm", &body);
}

/// The custom profile fields, to everyone.
pub(super) async fn profile_fields(state: &ChatState, seq: u64) -> Result<()> {
    let fields = crate::domain::profile_fields::list(state).await?;
    let body = events::profile_fields(fields.iter().map(wire::profile_field).collect());
    push_to_users(state, seq, None, "custom_profile_fields", &body);
    Ok(())
}

/// A user's alert words, to their own queues.
pub(super) fn alert_words(state: &ChatState, seq: u64, user_id: UserId, words: &[String]) {
    let body = events::alert_words(words);
    push_to_users(state, seq, Some(&[user_id]), "alert_words", &body);
}

/// The queues that want `realm_user` events, with their owners' rows (who sees which email
/// depends on the owner); `None` when there are none.
async fn realm_user_queues(
    state: &ChatState,
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
async fn deliver_new_user(state: &ChatState, seq: u64, user: &User) -> Result<()> {
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
        let text = shapes
            .entry(v.sees_real_email(user))
            .or_insert_with(|| event_json(&events::user_added(wire::user_record(&v, user, None))));
        state.queues.push(&q, Arc::clone(text));
    }
    Ok(())
}

/// A user's real email changed: `delivery_email` goes to the queues whose owners may see it,
/// then `new_email` to everyone when the API email is the real one and so changed too (a
/// placeholder API email stays the same).
async fn deliver_email_change(state: &ChatState, seq: u64, user: &User) -> Result<()> {
    let Some((queues, viewers)) = realm_user_queues(state, seq).await? else {
        return Ok(());
    };
    let delivery = event_json(&events::user_updated(events::person(
        user.id,
        PersonField::DeliveryEmail(&user.email),
    )));
    let api_email_changed = emails::is_public(user);
    let new_email = event_json(&events::user_updated(events::person(
        user.id,
        PersonField::NewEmail(wire::api_email(user, state.config.realm_host())),
    )));
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
    state: &ChatState,
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
    let email = wire::api_email(&user, state.config.realm_host());
    let current = event_json(&events::user_setting(name, &value, language));
    let kind = match settings::legacy_class(name) {
        Legacy::Display => Some("update_display_settings"),
        Legacy::Notification => Some("update_global_notifications"),
        Legacy::None => None,
    };
    let legacy = kind.map(|t| {
        let e = events::legacy_user_setting(t, &email, name, &value, language);
        (t, event_json(&e))
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

/// Invitations changed: the administrators and the invitation's creator hear of it.
pub(super) async fn invites_changed(state: &ChatState, seq: u64, referrer: UserId) -> Result<()> {
    let audience = state
        .db
        .read(move |c| crate::domain::invites::audience(c, referrer))
        .await?;
    push_to_users(
        state,
        seq,
        Some(&audience),
        "invites_changed",
        &events::invites_changed(),
    );
    Ok(())
}
