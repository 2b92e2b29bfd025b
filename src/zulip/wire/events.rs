//! The chat API's event shapes (`GET /events`) for settings, channels, subscriptions, folders,
//! groups, presence, typing, the restart and the heartbeat; the message events are in
//! `message_events` and the people events in `user_events`, both re-exported here. Delivery
//! decides who gets an event; these functions only say how it looks. The frequent events are
//! typed `Serialize` structs; those that were JSON trees before declare their fields in the
//! order the trees wrote their keys (sorted), so the text clients receive is unchanged. The
//! rarer, dynamic shapes are still built as JSON trees here.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::events::{FolderChange, GroupChange};
use crate::ids::{ChannelId, GroupId, UserId};
use crate::model::{
    Channel, ChannelProperty, RealmValue, Subscription, SubscriptionProperty, User, UserGroup,
};

use super::api_email;

pub use super::message_events::*;
pub use super::user_events::*;

fn ids<T: Copy>(list: &[T], id: impl Fn(T) -> i64) -> Vec<i64> {
    list.iter().map(|x| id(*x)).collect()
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
pub fn user_topic(
    channel_id: ChannelId,
    topic: &str,
    last_updated: i64,
    policy: i64,
) -> UserTopicEvent<'_> {
    UserTopicEvent {
        last_updated,
        stream_id: channel_id.0,
        topic_name: topic,
        kind: "user_topic",
        visibility_policy: policy,
    }
}

/// `user_topic` (keys sorted, as before it was typed).
#[derive(Serialize)]
pub struct UserTopicEvent<'a> {
    last_updated: i64,
    stream_id: i64,
    topic_name: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    visibility_policy: i64,
}

/// One of a user's subscription properties, as it is now.
pub fn subscription_property(
    sub: &Subscription,
    property: SubscriptionProperty,
) -> SubscriptionUpdate<'_> {
    let value = match property {
        SubscriptionProperty::Color => PropertyValue::Text(&sub.color),
        SubscriptionProperty::IsMuted => PropertyValue::Flag(sub.is_muted),
        SubscriptionProperty::InHomeView => PropertyValue::Flag(!sub.is_muted),
        SubscriptionProperty::PinToTop => PropertyValue::Flag(sub.pin_to_top),
        SubscriptionProperty::DesktopNotifications => {
            PropertyValue::Setting(sub.desktop_notifications)
        }
        SubscriptionProperty::AudibleNotifications => {
            PropertyValue::Setting(sub.audible_notifications)
        }
        SubscriptionProperty::PushNotifications => PropertyValue::Setting(sub.push_notifications),
        SubscriptionProperty::EmailNotifications => PropertyValue::Setting(sub.email_notifications),
        SubscriptionProperty::WildcardMentionsNotify => {
            PropertyValue::Setting(sub.wildcard_mentions_notify)
        }
    };
    SubscriptionUpdate {
        op: "update",
        property: property.name(),
        stream_id: sub.channel_id.0,
        kind: "subscription",
        value,
    }
}

/// `subscription` `update` (keys sorted, as before it was typed).
#[derive(Serialize)]
pub struct SubscriptionUpdate<'a> {
    op: &'static str,
    property: &'static str,
    stream_id: i64,
    #[serde(rename = "type")]
    kind: &'static str,
    value: PropertyValue<'a>,
}

/// A subscription property's value: a color, a flag, or a notification setting that is
/// `null` while it follows the user's default.
#[derive(Serialize)]
#[serde(untagged)]
enum PropertyValue<'a> {
    Text(&'a str),
    Flag(bool),
    Setting(Option<bool>),
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
pub fn subscription_removed(ch: ChannelId, name: &str) -> SubscriptionRemoved<'_> {
    SubscriptionRemoved {
        op: "remove",
        subscriptions: [RemovedSubscription {
            name,
            stream_id: ch.0,
        }],
        kind: "subscription",
    }
}

/// `subscription` `remove` (keys sorted, as before it was typed).
#[derive(Serialize)]
pub struct SubscriptionRemoved<'a> {
    op: &'static str,
    subscriptions: [RemovedSubscription<'a>; 1],
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct RemovedSubscription<'a> {
    name: &'a str,
    stream_id: i64,
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
pub fn restart<'a>(
    zulip_version: &'a str,
    zulip_merge_base: &'a str,
    feature_level: i64,
    server_generation: i64,
) -> Restart<'a> {
    Restart {
        server_generation,
        kind: "restart",
        zulip_feature_level: feature_level,
        zulip_merge_base,
        zulip_version,
    }
}

/// `restart` (keys sorted, as before it was typed).
#[derive(Serialize)]
pub struct Restart<'a> {
    server_generation: i64,
    #[serde(rename = "type")]
    kind: &'static str,
    zulip_feature_level: i64,
    zulip_merge_base: &'a str,
    zulip_version: &'a str,
}

/// `heartbeat`: what a waiting poll gets when nothing happened for a while.
#[derive(Serialize)]
pub struct Heartbeat {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The heartbeat event (the queue adds its id).
pub fn heartbeat() -> Heartbeat {
    Heartbeat { kind: "heartbeat" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text<T: Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap()
    }

    #[test]
    fn subscription_events_keep_the_text_of_their_json_trees() {
        let sub = Subscription {
            channel_id: ChannelId(3),
            user_id: UserId(2),
            active: true,
            color: "#abcdef".into(),
            is_muted: true,
            pin_to_top: false,
            desktop_notifications: None,
            audible_notifications: Some(true),
            push_notifications: Some(false),
            email_notifications: None,
            wildcard_mentions_notify: None,
        };
        for (property, value) in [
            (SubscriptionProperty::Color, json!("#abcdef")),
            (SubscriptionProperty::IsMuted, json!(true)),
            (SubscriptionProperty::InHomeView, json!(false)),
            (SubscriptionProperty::PinToTop, json!(false)),
            (SubscriptionProperty::DesktopNotifications, json!(null)),
            (SubscriptionProperty::AudibleNotifications, json!(true)),
            (SubscriptionProperty::PushNotifications, json!(false)),
            (SubscriptionProperty::EmailNotifications, json!(null)),
            (SubscriptionProperty::WildcardMentionsNotify, json!(null)),
        ] {
            let tree = json!({"type": "subscription", "op": "update", "stream_id": 3,
                "property": property.name(), "value": value});
            assert_eq!(text(&subscription_property(&sub, property)), text(&tree));
        }
        let tree = json!({"type": "subscription", "op": "remove",
            "subscriptions": [{"name": "chat", "stream_id": 3}]});
        assert_eq!(
            text(&subscription_removed(ChannelId(3), "chat")),
            text(&tree)
        );
        // Already typed before: its text is the struct's order.
        assert_eq!(
            text(&subscription_peer(false, ChannelId(3), UserId(2))),
            r#"{"type":"subscription","op":"peer_remove","stream_ids":[3],"user_ids":[2]}"#
        );
    }

    #[test]
    fn topics_restarts_and_heartbeats_keep_their_text() {
        let tree = json!({"type": "user_topic", "stream_id": 3, "topic_name": "t",
            "last_updated": 5, "visibility_policy": 2});
        assert_eq!(text(&user_topic(ChannelId(3), "t", 5, 2)), text(&tree));
        let tree = json!({"type": "restart", "zulip_version": "v", "zulip_merge_base": "b",
            "zulip_feature_level": 4, "server_generation": 6});
        assert_eq!(text(&restart("v", "b", 4, 6)), text(&tree));
        assert_eq!(text(&heartbeat()), r#"{"type":"heartbeat"}"#);
    }
}
