//! The chat API's event shapes (`GET /events`) for messages, people, settings, presence and
//! typing. Delivery decides who gets an event; these functions only say how it looks.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::events::{FolderChange, GroupChange};
use crate::ids::{ChannelId, GroupId, UserId};
use crate::model::{
    Channel, ChannelProperty, RealmValue, Subscription, SubscriptionProperty, User, UserGroup,
    UserStatus,
};

use super::api_email;

pub use super::message_events::*;

fn ids<T: Copy>(list: &[T], id: impl Fn(T) -> i64) -> Vec<i64> {
    list.iter().map(|x| id(*x)).collect()
}

/// `realm_user` `add`.
#[derive(Serialize)]
pub struct UserAdded<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    op: &'static str,
    person: super::UserRecord<'a>,
}

/// A new person, as `viewer` may see them.
pub fn user_added(person: super::UserRecord<'_>) -> UserAdded<'_> {
    UserAdded {
        kind: "realm_user",
        op: "add",
        person,
    }
}

/// A change to a person's record (`person` holds `user_id` and the changed fields).
pub fn user_updated(person: Value) -> Value {
    json!({"type": "realm_user", "op": "update", "person": person})
}

/// The changed fields of a person, for [`user_updated`].
pub enum PersonField<'a> {
    Active(bool),
    FullName(&'a str),
    Role(i64),
    Timezone {
        email: String,
        timezone: &'a str,
    },
    ProfileField {
        id: i64,
        value: &'a Option<String>,
        rendered_value: &'a Option<String>,
    },
    DeliveryEmail(&'a str),
    NewEmail(String),
    BotOwner(Option<i64>),
}

/// `person` for [`user_updated`].
pub fn person(user_id: UserId, field: PersonField<'_>) -> Value {
    let id = user_id.0;
    match field {
        PersonField::Active(a) => json!({"user_id": id, "is_active": a}),
        PersonField::FullName(n) => json!({"user_id": id, "full_name": n}),
        PersonField::Role(r) => json!({"user_id": id, "role": r}),
        PersonField::Timezone { email, timezone } => {
            json!({"user_id": id, "email": email, "timezone": timezone})
        }
        PersonField::ProfileField {
            id: field,
            value,
            rendered_value,
        } => json!({
            "user_id": id,
            "custom_profile_field": {"id": field, "value": value, "rendered_value": rendered_value},
        }),
        PersonField::DeliveryEmail(e) => json!({"user_id": id, "delivery_email": e}),
        PersonField::NewEmail(e) => json!({"user_id": id, "new_email": e}),
        PersonField::BotOwner(o) => json!({"user_id": id, "bot_owner_id": o}),
    }
}

/// A person's status.
pub fn user_status(user_id: UserId, presence_enabled: bool, status: &UserStatus) -> Value {
    let mut body = json!({
        "type": "user_status",
        "user_id": user_id.0,
        "away": !presence_enabled,
        "status_text": status.status_text,
        "emoji_name": status.emoji_name,
        "emoji_code": status.emoji_code,
    });
    // A cleared emoji has no reaction type.
    if !status.reaction_type.is_empty() {
        body["reaction_type"] = json!(status.reaction_type);
    }
    body
}

/// An organization setting's new value.
pub fn realm_setting(name: &str, value: &RealmValue) -> Value {
    let mut data = Map::new();
    data.insert(name.to_string(), super::realm_value(value));
    json!({"type": "realm", "op": "update_dict", "property": "default", "data": data})
}

/// Invitations changed (the client fetches `GET /invites` again).
pub fn invites_changed() -> Value {
    json!({"type": "invites_changed"})
}

/// The custom profile fields, all of them.
pub fn profile_fields(fields: Vec<Value>) -> Value {
    json!({"type": "custom_profile_fields", "fields": fields})
}

/// A user's alert words.
pub fn alert_words(words: &[String]) -> Value {
    json!({"type": "alert_words", "alert_words": words})
}

/// A personal setting: the current event, with the language's name for `default_language`.
pub fn user_setting(name: &str, value: &Value, language_name: Option<&str>) -> Value {
    let mut e = json!({"type": "user_settings", "op": "update", "property": name, "value": value});
    if let Some(lang) = language_name {
        e["language_name"] = json!(lang);
    }
    e
}

/// The deprecated form of a personal setting event (`update_display_settings` or
/// `update_global_notifications`, by `kind`).
pub fn legacy_user_setting(
    kind: &str,
    email: &str,
    name: &str,
    value: &Value,
    language_name: Option<&str>,
) -> Value {
    let key = if kind == "update_display_settings" {
        "setting_name"
    } else {
        "notification_name"
    };
    let mut e = json!({"type": kind, "user": email, key: name, "setting": value});
    if let Some(lang) = language_name {
        e["language_name"] = json!(lang);
    }
    e
}

/// A user became active or idle on the web; `email` is left out for slim presence.
pub fn presence(
    user_id: UserId,
    email: Option<&str>,
    active: bool,
    timestamp: i64,
    now_ms: i64,
) -> PresenceEvent<'_> {
    let status = if active { "active" } else { "idle" };
    PresenceEvent {
        kind: "presence",
        user_id: user_id.0,
        server_timestamp: now_ms as f64 / 1000.0,
        presence: WebPresence {
            website: PresenceEntry {
                client: "website",
                status,
                timestamp,
                pushable: false,
            },
        },
        email,
    }
}

/// `presence`.
#[derive(Serialize)]
pub struct PresenceEvent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    user_id: i64,
    server_timestamp: f64,
    presence: WebPresence,
    /// Absent for slim presence.
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<&'a str>,
}

#[derive(Serialize)]
struct WebPresence {
    website: PresenceEntry,
}

#[derive(Serialize)]
struct PresenceEntry {
    client: &'static str,
    status: &'static str,
    timestamp: i64,
    pushable: bool,
}

/// Typing started or stopped: in a direct conversation (naming its `recipients`) or in a
/// channel's topic.
pub fn typing<'a>(
    start: bool,
    sender: &User,
    host: &str,
    recipients: &[User],
    channel: Option<(ChannelId, &'a str)>,
) -> TypingEvent<'a> {
    let who = |u: &User| Typist {
        user_id: u.id.0,
        email: api_email(u, host),
    };
    let mut e = TypingEvent {
        kind: "typing",
        op: if start { "start" } else { "stop" },
        message_type: "direct",
        sender: who(sender),
        recipients: None,
        stream_id: None,
        topic: None,
    };
    match channel {
        None => e.recipients = Some(recipients.iter().map(who).collect()),
        Some((ch, topic)) => {
            e.message_type = "stream";
            e.stream_id = Some(ch.0);
            e.topic = Some(topic);
        }
    }
    e
}

/// `typing`: `recipients` for direct messages, `stream_id` and `topic` for channels.
#[derive(Serialize)]
pub struct TypingEvent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    op: &'static str,
    message_type: &'static str,
    sender: Typist,
    #[serde(skip_serializing_if = "Option::is_none")]
    recipients: Option<Vec<Typist>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    topic: Option<&'a str>,
}

#[derive(Serialize)]
struct Typist {
    user_id: i64,
    email: String,
}

/// A new channel folder.
pub fn channel_folder_added(folder: Value) -> Value {
    json!({"type": "channel_folder", "op": "add", "channel_folder": folder})
}

/// A changed channel folder: the attribute `change` names, as it is now.
pub fn channel_folder_updated(f: &crate::model::ChannelFolder, change: FolderChange) -> Value {
    let data = match change {
        FolderChange::Name => json!({"name": f.name}),
        FolderChange::Description => json!({
            "description": f.description,
            "rendered_description": f.rendered_description,
        }),
        FolderChange::Archived => json!({"is_archived": f.is_archived}),
    };
    json!({"type": "channel_folder", "op": "update", "channel_folder_id": f.id.0, "data": data})
}

/// A user's visibility policy for a topic.
pub fn user_topic(channel_id: ChannelId, topic: &str, last_updated: i64, policy: i64) -> Value {
    json!({
        "type": "user_topic",
        "stream_id": channel_id.0,
        "topic_name": topic,
        "last_updated": last_updated,
        "visibility_policy": policy,
    })
}

/// One of a user's subscription properties, as it is now.
pub fn subscription_property(sub: &Subscription, property: SubscriptionProperty) -> Value {
    let value = match property {
        SubscriptionProperty::Color => json!(sub.color),
        SubscriptionProperty::IsMuted => json!(sub.is_muted),
        SubscriptionProperty::InHomeView => json!(!sub.is_muted),
        SubscriptionProperty::PinToTop => json!(sub.pin_to_top),
        SubscriptionProperty::DesktopNotifications => json!(sub.desktop_notifications),
        SubscriptionProperty::AudibleNotifications => json!(sub.audible_notifications),
        SubscriptionProperty::PushNotifications => json!(sub.push_notifications),
        SubscriptionProperty::EmailNotifications => json!(sub.email_notifications),
        SubscriptionProperty::WildcardMentionsNotify => json!(sub.wildcard_mentions_notify),
    };
    json!({
        "type": "subscription",
        "op": "update",
        "stream_id": sub.channel_id.0,
        "property": property.name(),
        "value": value,
    })
}

/// A new channel.
pub fn channel_created(channel: Map<String, Value>) -> Value {
    json!({"type": "stream", "op": "create", "streams": [Value::Object(channel)]})
}

/// A changed channel property, as the channel is now; `None` for properties upstream sends
/// no event for.
pub fn channel_updated(ch: &Channel, property: ChannelProperty) -> Option<Value> {
    let value = match property {
        ChannelProperty::Name => json!(ch.name),
        ChannelProperty::Description => json!(ch.description),
        ChannelProperty::InviteOnly => json!(ch.invite_only),
        ChannelProperty::HistoryPublicToSubscribers => json!(ch.history_public_to_subscribers),
        ChannelProperty::IsDefault => return None,
        ChannelProperty::MessageRetentionDays => json!(ch.message_retention_days),
        ChannelProperty::TopicsPolicy => json!(ch.topics_policy.name()),
        ChannelProperty::FolderId => json!(ch.folder_id),
        ChannelProperty::Setting(s) => super::group_setting(ch.setting(s)),
    };
    let mut body = json!({
        "type": "stream",
        "op": "update",
        "stream_id": ch.id.0,
        "name": ch.name,
        "property": property.name(),
        "value": value,
    });
    if property == ChannelProperty::Description {
        body["rendered_description"] = json!(ch.rendered_description);
    }
    if property == ChannelProperty::InviteOnly {
        body["history_public_to_subscribers"] = json!(ch.history_public_to_subscribers);
        body["is_web_public"] = json!(ch.is_web_public);
    }
    Some(body)
}

/// The subscriber's own event: the subscription added, or removed.
pub fn subscription_added(subscription: Value) -> Value {
    json!({"type": "subscription", "op": "add", "subscriptions": [subscription]})
}

/// See [`subscription_added`].
pub fn subscription_removed(ch: ChannelId, name: &str) -> Value {
    json!({
        "type": "subscription",
        "op": "remove",
        "subscriptions": [{"name": name, "stream_id": ch.0}],
    })
}

/// The others' event: `user` joined or left the channel.
pub fn subscription_peer(added: bool, ch: ChannelId, user: UserId) -> SubscriptionPeer {
    SubscriptionPeer {
        kind: "subscription",
        op: if added { "peer_add" } else { "peer_remove" },
        stream_ids: [ch.0],
        user_ids: [user.0],
    }
}

/// `subscription` `peer_add` / `peer_remove`.
#[derive(Serialize)]
pub struct SubscriptionPeer {
    #[serde(rename = "type")]
    kind: &'static str,
    op: &'static str,
    stream_ids: [i64; 1],
    user_ids: [i64; 1],
}

/// An archived channel, for clients that know archived channels, and as a deletion for the
/// others.
pub fn channel_archived(ch: ChannelId, name: &str) -> (Value, Value) {
    let archived = json!({
        "type": "stream",
        "op": "update",
        "stream_id": ch.0,
        "name": name,
        "property": "is_archived",
        "value": true,
    });
    let deleted = json!({
        "type": "stream",
        "op": "delete",
        "streams": [{"stream_id": ch.0}],
        "stream_ids": [ch.0],
    });
    (archived, deleted)
}

/// A new user group (`group` is its record).
pub fn user_group_added(group: Value) -> Value {
    json!({"type": "user_group", "op": "add", "group": group})
}

/// A changed user group: the attribute `change` names, as it is now.
pub fn user_group_updated(g: &UserGroup, change: GroupChange) -> Value {
    let data = match change {
        GroupChange::Name => json!({"name": g.name}),
        GroupChange::Description => json!({"description": g.description}),
        GroupChange::Setting(p) => {
            let mut m = Map::new();
            m.insert(p.name().into(), super::group_setting(g.setting(p)));
            Value::Object(m)
        }
        GroupChange::Deactivated => json!({"deactivated": g.deactivated}),
    };
    json!({"type": "user_group", "op": "update", "group_id": g.id.0, "data": data})
}

/// A deactivated group, for clients that do not list deactivated groups.
pub fn user_group_removed(group: GroupId) -> Value {
    json!({"type": "user_group", "op": "remove", "group_id": group.0})
}

/// Users joined or left a group's direct members.
pub fn user_group_members(group: GroupId, users: &[UserId], add: bool) -> Value {
    let op = if add { "add_members" } else { "remove_members" };
    json!({"type": "user_group", "op": op, "group_id": group.0, "user_ids": ids(users, |u| u.0)})
}

/// Groups became or stopped being a group's direct subgroups.
pub fn user_group_subgroups(group: GroupId, subgroups: &[GroupId], add: bool) -> Value {
    let op = if add {
        "add_subgroups"
    } else {
        "remove_subgroups"
    };
    json!({
        "type": "user_group",
        "op": op,
        "group_id": group.0,
        "direct_subgroup_ids": ids(subgroups, |g| g.0),
    })
}

/// A new scheduled message or reminder (`added`), or one as it is after an edit or a failed
/// delivery.
pub fn scheduled_changed(item: &Value, kind: crate::model::ScheduledKind, added: bool) -> Value {
    use crate::model::ScheduledKind;
    match (kind, added) {
        (ScheduledKind::Message, true) => {
            json!({"type": "scheduled_messages", "op": "add", "scheduled_messages": [item]})
        }
        (ScheduledKind::Message, false) => {
            json!({"type": "scheduled_messages", "op": "update", "scheduled_message": item})
        }
        // Upstream has no reminder edits; a failed reminder is announced again in full.
        (ScheduledKind::Reminder, _) => {
            json!({"type": "reminders", "op": "add", "reminders": [item]})
        }
    }
}

/// A scheduled message or reminder was deleted or sent.
pub fn scheduled_removed(kind: crate::model::ScheduledKind, id: i64) -> Value {
    match kind {
        crate::model::ScheduledKind::Message => {
            json!({"type": "scheduled_messages", "op": "remove", "scheduled_message_id": id})
        }
        crate::model::ScheduledKind::Reminder => {
            json!({"type": "reminders", "op": "remove", "reminder_id": id})
        }
    }
}

/// The `restart` event every restored queue receives after a graceful restart: this server's
/// versions and when the new process started.
pub fn restart(
    zulip_version: &str,
    zulip_merge_base: &str,
    feature_level: i64,
    server_generation: i64,
) -> Value {
    json!({
        "type": "restart",
        "zulip_version": zulip_version,
        "zulip_merge_base": zulip_merge_base,
        "zulip_feature_level": feature_level,
        "server_generation": server_generation,
    })
}
