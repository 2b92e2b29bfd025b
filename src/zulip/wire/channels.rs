//! JSON shapes of channels and subscriptions.

use serde_json::{Map, Value, json};

use crate::domain::channels::Listed;
use crate::model::ChannelStats;
use crate::model::{Channel, ChannelSetting, GroupSetting, Subscription, system_groups as sys};

/// A group-setting value: a group id, or `{"direct_members": [...], "direct_subgroups": [...]}`.
pub fn group_setting(g: &GroupSetting) -> Value {
    match g {
        GroupSetting::Group(id) => json!(id.0),
        GroupSetting::Members { users, groups } => json!({
            "direct_members": users.iter().map(|u| u.0).collect::<Vec<_>>(),
            "direct_subgroups": groups.iter().map(|g| g.0).collect::<Vec<_>>(),
        }),
    }
}

/// The legacy `stream_post_policy` implied by who may send (1 any, 2 admins, 3 full members,
/// 4 moderators).
fn post_policy(ch: &Channel) -> i64 {
    match ch.setting(ChannelSetting::SendMessage) {
        GroupSetting::Group(g) if *g == sys::ADMINISTRATORS || *g == sys::OWNERS => 2,
        GroupSetting::Group(g) if *g == sys::FULL_MEMBERS => 3,
        GroupSetting::Group(g) if *g == sys::MODERATORS => 4,
        _ => 1,
    }
}

/// The fields every channel object has (`GET /streams`, subscriptions, events).
pub fn channel(ch: &Channel, stats: &ChannelStats) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("stream_id".into(), json!(ch.id.0));
    m.insert("name".into(), json!(ch.name));
    m.insert("description".into(), json!(ch.description));
    m.insert(
        "rendered_description".into(),
        json!(ch.rendered_description),
    );
    m.insert("date_created".into(), json!(ch.date_created));
    m.insert("creator_id".into(), json!(ch.creator_id.map(|u| u.0)));
    m.insert("invite_only".into(), json!(ch.invite_only));
    m.insert("is_web_public".into(), json!(ch.is_web_public));
    m.insert("is_archived".into(), json!(ch.is_archived));
    m.insert(
        "history_public_to_subscribers".into(),
        json!(ch.history_public_to_subscribers),
    );
    m.insert("first_message_id".into(), json!(ch.first_message_id));
    m.insert(
        "message_retention_days".into(),
        json!(ch.message_retention_days),
    );
    let policy = post_policy(ch);
    m.insert("stream_post_policy".into(), json!(policy));
    m.insert("is_announcement_only".into(), json!(policy == 2));
    m.insert("stream_weekly_traffic".into(), json!(stats.weekly_traffic));
    m.insert("is_recently_active".into(), json!(stats.recently_active));
    m.insert("subscriber_count".into(), json!(stats.subscriber_count));
    m.insert("topics_policy".into(), json!(ch.topics_policy.name()));
    m.insert("folder_id".into(), json!(ch.folder_id));
    for (which, value) in ChannelSetting::ALL.iter().zip(&ch.settings) {
        m.insert(which.name().into(), group_setting(value));
    }
    m
}

/// A channel as `GET /streams` lists it (`is_default` only when asked for).
pub fn basic_channel(l: &Listed, with_is_default: bool) -> Value {
    let mut m = channel(&l.access.channel, &l.stats);
    if with_is_default {
        m.insert("is_default".into(), json!(l.access.channel.is_default));
    }
    Value::Object(m)
}

/// A subscription object: the channel plus the user's personal settings.
pub fn subscription(l: &Listed, sub: &Subscription) -> Value {
    let mut m = channel(&l.access.channel, &l.stats);
    m.insert("color".into(), json!(sub.color));
    m.insert("is_muted".into(), json!(sub.is_muted));
    m.insert("in_home_view".into(), json!(!sub.is_muted));
    m.insert("pin_to_top".into(), json!(sub.pin_to_top));
    m.insert(
        "desktop_notifications".into(),
        json!(sub.desktop_notifications),
    );
    m.insert(
        "audible_notifications".into(),
        json!(sub.audible_notifications),
    );
    m.insert("push_notifications".into(), json!(sub.push_notifications));
    m.insert("email_notifications".into(), json!(sub.email_notifications));
    m.insert(
        "wildcard_mentions_notify".into(),
        json!(sub.wildcard_mentions_notify),
    );
    if let Some(ids) = &l.subscribers {
        m.insert(
            "subscribers".into(),
            json!(ids.iter().map(|u| u.0).collect::<Vec<_>>()),
        );
    }
    Value::Object(m)
}

/// A channel the viewer never subscribed to, as register's `never_subscribed` lists it: the
/// basic channel plus `subscribers` when the viewer may see them.
pub fn never_subscribed(l: &Listed) -> Value {
    let mut v = basic_channel(l, false);
    if let (Some(obj), Some(ids)) = (v.as_object_mut(), &l.subscribers) {
        obj.insert(
            "subscribers".into(),
            json!(ids.iter().map(|u| u.0).collect::<Vec<_>>()),
        );
    }
    v
}

/// A register channel entry whose subscriber list was shortened: `subscribers` becomes
/// `partial_subscribers`.
pub fn as_partial_subscribers(mut v: Value) -> Value {
    if let Some(obj) = v.as_object_mut()
        && let Some(ids) = obj.remove("subscribers")
    {
        obj.insert("partial_subscribers".into(), ids);
    }
    v
}

/// A topic of `GET /users/me/{stream_id}/topics`.
pub fn topic(name: &str, max_id: i64) -> Value {
    json!({"name": name, "max_id": max_id})
}

/// `{"<user id>": [channel names]}`, as subscribe results list them.
pub fn names_by_user(list: Vec<(crate::ids::UserId, Vec<String>)>) -> Value {
    let mut m = Map::new();
    for (u, names) in list {
        m.insert(u.0.to_string(), json!(names));
    }
    Value::Object(m)
}

/// A channel folder as `GET /channel_folders`, register and events show it.
pub fn channel_folder(f: &crate::model::ChannelFolder) -> Value {
    json!({
        "id": f.id.0,
        "name": f.name,
        "description": f.description,
        "rendered_description": f.rendered_description,
        "creator_id": f.creator_id.map(|u| u.0),
        "date_created": f.date_created,
        "is_archived": f.is_archived,
    })
}
