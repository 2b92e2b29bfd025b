//! JSON shapes of channels and subscriptions: the channel object (`GET /streams`, register's
//! `streams`, `stream` events) and the subscription object (`GET /users/me/subscriptions`,
//! register's `subscriptions`, `unsubscribed` and `never_subscribed`, `subscription` `add`
//! events) as one typed `Serialize` struct, [`ChannelRecord`]; also channel folders, topics
//! and subscribe results.
//!
//! Must not touch the database or decide who sees what: `domain::channels` says which channels
//! and subscriber lists a viewer gets ([`Listed`]); this only renders them.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::domain::channels::Listed;
use crate::model::ChannelStats;
use crate::model::{Channel, ChannelSetting, GroupSetting, Subscription, system_groups as sys};

/// A group-setting value on the wire: a group id, or the anonymous set
/// `{"direct_members": [...], "direct_subgroups": [...]}`.
#[derive(Serialize)]
#[serde(untagged)]
pub enum GroupSettingValue {
    Group(i64),
    Members {
        direct_members: Vec<i64>,
        direct_subgroups: Vec<i64>,
    },
}

impl From<&GroupSetting> for GroupSettingValue {
    fn from(g: &GroupSetting) -> GroupSettingValue {
        match g {
            GroupSetting::Group(id) => GroupSettingValue::Group(id.0),
            GroupSetting::Members { users, groups } => GroupSettingValue::Members {
                direct_members: users.iter().map(|u| u.0).collect(),
                direct_subgroups: groups.iter().map(|g| g.0).collect(),
            },
        }
    }
}

/// A group-setting value as JSON (see [`GroupSettingValue`]).
pub fn group_setting(g: &GroupSetting) -> Value {
    serde_json::to_value(GroupSettingValue::from(g)).expect("group settings serialize")
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

/// A channel object, and with the viewer's personal settings filled in, a subscription object.
///
/// The fields are declared in alphabetical order, the order a `serde_json::Map` keeps its
/// keys, so the bytes are the same whether the record is serialized directly or through a
/// `Value` (a unit test holds this). Fields marked "subscription only" are absent from plain
/// channel objects; the per-subscription notification settings are `null` when they follow the
/// user's defaults.
#[derive(Serialize)]
pub struct ChannelRecord<'a> {
    /// Subscription only.
    #[serde(skip_serializing_if = "Option::is_none")]
    audible_notifications: Option<Option<bool>>,
    can_add_subscribers_group: GroupSettingValue,
    can_administer_channel_group: GroupSettingValue,
    can_create_topic_group: GroupSettingValue,
    can_delete_any_message_group: GroupSettingValue,
    can_delete_own_message_group: GroupSettingValue,
    can_move_messages_out_of_channel_group: GroupSettingValue,
    can_move_messages_within_channel_group: GroupSettingValue,
    can_remove_subscribers_group: GroupSettingValue,
    can_resolve_topics_group: GroupSettingValue,
    can_send_message_group: GroupSettingValue,
    can_subscribe_group: GroupSettingValue,
    /// Subscription only.
    #[serde(skip_serializing_if = "Option::is_none")]
    color: Option<&'a str>,
    creator_id: Option<i64>,
    date_created: i64,
    description: &'a str,
    /// Subscription only.
    #[serde(skip_serializing_if = "Option::is_none")]
    desktop_notifications: Option<Option<bool>>,
    /// Subscription only.
    #[serde(skip_serializing_if = "Option::is_none")]
    email_notifications: Option<Option<bool>>,
    first_message_id: Option<i64>,
    folder_id: Option<i64>,
    history_public_to_subscribers: bool,
    /// Subscription only (the legacy inverse of `is_muted`).
    #[serde(skip_serializing_if = "Option::is_none")]
    in_home_view: Option<bool>,
    invite_only: bool,
    is_announcement_only: bool,
    is_archived: bool,
    /// `GET /streams?include_default=true` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    is_default: Option<bool>,
    /// Subscription only.
    #[serde(skip_serializing_if = "Option::is_none")]
    is_muted: Option<bool>,
    is_recently_active: bool,
    is_web_public: bool,
    message_retention_days: Option<i64>,
    name: &'a str,
    /// Register under `include_subscribers=partial`, for a channel whose list was shortened
    /// (it then has no `subscribers`).
    #[serde(skip_serializing_if = "Option::is_none")]
    partial_subscribers: Option<Vec<i64>>,
    /// Subscription only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pin_to_top: Option<bool>,
    /// Subscription only.
    #[serde(skip_serializing_if = "Option::is_none")]
    push_notifications: Option<Option<bool>>,
    rendered_description: &'a str,
    stream_id: i64,
    stream_post_policy: i64,
    stream_weekly_traffic: Option<i64>,
    subscriber_count: i64,
    /// When the viewer asked for subscribers and may see them.
    #[serde(skip_serializing_if = "Option::is_none")]
    subscribers: Option<Vec<i64>>,
    topics_policy: &'static str,
    /// Subscription only.
    #[serde(skip_serializing_if = "Option::is_none")]
    wildcard_mentions_notify: Option<Option<bool>>,
}

impl ChannelRecord<'_> {
    /// The record with its shortened `subscribers` list under `partial_subscribers` instead
    /// (register's `include_subscribers=partial`).
    pub fn with_partial_subscribers(mut self) -> Self {
        if let Some(ids) = self.subscribers.take() {
            self.partial_subscribers = Some(ids);
        }
        self
    }
}

impl From<ChannelRecord<'_>> for Value {
    fn from(r: ChannelRecord<'_>) -> Value {
        serde_json::to_value(r).expect("channel records serialize")
    }
}

/// The fields every channel object has (`GET /streams`, subscriptions, events).
pub fn channel_record<'a>(ch: &'a Channel, stats: &ChannelStats) -> ChannelRecord<'a> {
    let setting = |which: ChannelSetting| GroupSettingValue::from(ch.setting(which));
    let policy = post_policy(ch);
    ChannelRecord {
        audible_notifications: None,
        can_add_subscribers_group: setting(ChannelSetting::AddSubscribers),
        can_administer_channel_group: setting(ChannelSetting::AdministerChannel),
        can_create_topic_group: setting(ChannelSetting::CreateTopic),
        can_delete_any_message_group: setting(ChannelSetting::DeleteAnyMessage),
        can_delete_own_message_group: setting(ChannelSetting::DeleteOwnMessage),
        can_move_messages_out_of_channel_group: setting(ChannelSetting::MoveMessagesOutOfChannel),
        can_move_messages_within_channel_group: setting(ChannelSetting::MoveMessagesWithinChannel),
        can_remove_subscribers_group: setting(ChannelSetting::RemoveSubscribers),
        can_resolve_topics_group: setting(ChannelSetting::ResolveTopics),
        can_send_message_group: setting(ChannelSetting::SendMessage),
        can_subscribe_group: setting(ChannelSetting::Subscribe),
        color: None,
        creator_id: ch.creator_id.map(|u| u.0),
        date_created: ch.date_created,
        description: &ch.description,
        desktop_notifications: None,
        email_notifications: None,
        first_message_id: ch.first_message_id,
        folder_id: ch.folder_id,
        history_public_to_subscribers: ch.history_public_to_subscribers,
        in_home_view: None,
        invite_only: ch.invite_only,
        is_announcement_only: policy == 2,
        is_archived: ch.is_archived,
        is_default: None,
        is_muted: None,
        is_recently_active: stats.recently_active,
        is_web_public: ch.is_web_public,
        message_retention_days: ch.message_retention_days,
        name: &ch.name,
        partial_subscribers: None,
        pin_to_top: None,
        push_notifications: None,
        rendered_description: &ch.rendered_description,
        stream_id: ch.id.0,
        stream_post_policy: policy,
        stream_weekly_traffic: stats.weekly_traffic,
        subscriber_count: stats.subscriber_count,
        subscribers: None,
        topics_policy: ch.topics_policy.name(),
        wildcard_mentions_notify: None,
    }
}

/// [`channel_record`] as a JSON object, for the `stream` `create` event (`zulip::delivery`).
pub fn channel(ch: &Channel, stats: &ChannelStats) -> Map<String, Value> {
    match Value::from(channel_record(ch, stats)) {
        Value::Object(m) => m,
        _ => unreachable!("a channel record is an object"),
    }
}

/// A channel as `GET /streams` lists it (`is_default` only when asked for).
pub fn basic_channel(l: &Listed, with_is_default: bool) -> ChannelRecord<'_> {
    let mut r = channel_record(&l.access.channel, &l.stats);
    if with_is_default {
        r.is_default = Some(l.access.channel.is_default);
    }
    r
}

fn subscriber_ids(l: &Listed) -> Option<Vec<i64>> {
    l.subscribers
        .as_ref()
        .map(|ids| ids.iter().map(|u| u.0).collect())
}

/// A subscription object: the channel plus the user's personal settings, and `subscribers`
/// when the viewer asked for them and may see them.
pub fn subscription_record<'a>(l: &'a Listed, sub: &'a Subscription) -> ChannelRecord<'a> {
    let mut r = channel_record(&l.access.channel, &l.stats);
    r.color = Some(&sub.color);
    r.is_muted = Some(sub.is_muted);
    r.in_home_view = Some(!sub.is_muted);
    r.pin_to_top = Some(sub.pin_to_top);
    r.desktop_notifications = Some(sub.desktop_notifications);
    r.audible_notifications = Some(sub.audible_notifications);
    r.push_notifications = Some(sub.push_notifications);
    r.email_notifications = Some(sub.email_notifications);
    r.wildcard_mentions_notify = Some(sub.wildcard_mentions_notify);
    r.subscribers = subscriber_ids(l);
    r
}

/// [`subscription_record`] as JSON, for the `subscription` `add` event (`zulip::delivery`).
pub fn subscription(l: &Listed, sub: &Subscription) -> Value {
    Value::from(subscription_record(l, sub))
}

/// A channel the viewer never subscribed to, as register's `never_subscribed` lists it: the
/// basic channel plus `subscribers` when the viewer may see them.
pub fn never_subscribed(l: &Listed) -> ChannelRecord<'_> {
    let mut r = basic_channel(l, false);
    r.subscribers = subscriber_ids(l);
    r
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::channels::Access;
    use crate::ids::{ChannelId, GroupId, UserId};
    use crate::model::TopicsPolicy;

    fn listed(with_subscribers: bool) -> Listed {
        let settings = ChannelSetting::ALL
            .iter()
            .map(|s| s.default_for(UserId(7)))
            .collect();
        let channel = Channel {
            id: ChannelId(3),
            name: "wire".into(),
            description: "d".into(),
            rendered_description: "<p>d</p>".into(),
            invite_only: false,
            is_web_public: false,
            history_public_to_subscribers: true,
            is_default: true,
            topics_policy: TopicsPolicy::Inherit,
            message_retention_days: None,
            folder_id: None,
            creator_id: Some(UserId(7)),
            date_created: 1_700_000_000,
            is_archived: false,
            settings,
            first_message_id: Some(11),
        };
        Listed {
            access: Access {
                channel,
                subscribed: true,
                content: true,
                metadata: true,
                administer: false,
            },
            subscription: None,
            subscribers: with_subscribers.then(|| vec![UserId(7), UserId(8)]),
            stats: ChannelStats {
                subscriber_count: 2,
                weekly_traffic: None,
                recently_active: true,
            },
        }
    }

    fn sub() -> Subscription {
        Subscription {
            channel_id: ChannelId(3),
            user_id: UserId(7),
            active: true,
            color: "#c2c2c2".into(),
            is_muted: true,
            pin_to_top: false,
            desktop_notifications: Some(true),
            audible_notifications: None,
            push_notifications: None,
            email_notifications: Some(false),
            wildcard_mentions_notify: None,
        }
    }

    /// The record serialized directly and through a `Value` (whose map sorts its keys).
    fn both_ways(r: &ChannelRecord<'_>) -> (String, String) {
        let direct = serde_json::to_string(r).unwrap();
        let via_value = serde_json::to_string(&serde_json::to_value(r).unwrap()).unwrap();
        (direct, via_value)
    }

    #[test]
    fn every_record_keeps_the_key_order_of_a_json_map() {
        let l = listed(true);
        let s = sub();
        let records = [
            basic_channel(&l, true),
            subscription_record(&l, &s),
            subscription_record(&l, &s).with_partial_subscribers(),
            never_subscribed(&l),
        ];
        for r in &records {
            let (direct, via_value) = both_ways(r);
            assert_eq!(direct, via_value);
        }
    }

    #[test]
    fn a_channel_has_every_group_setting_and_no_personal_keys() {
        let l = listed(true);
        let v = Value::from(basic_channel(&l, false));
        let obj = v.as_object().unwrap();
        for s in ChannelSetting::ALL {
            assert!(obj.contains_key(s.name()), "{} missing", s.name());
        }
        assert_eq!(
            v["can_administer_channel_group"],
            json!({"direct_members": [7], "direct_subgroups": []})
        );
        assert_eq!(
            v["can_send_message_group"],
            json!(crate::model::system_groups::EVERYONE.0)
        );
        for absent in [
            "color",
            "is_muted",
            "in_home_view",
            "subscribers",
            "is_default",
        ] {
            assert!(!obj.contains_key(absent), "{absent} present");
        }
        assert_eq!(obj.len(), 30);
        assert_eq!(v["stream_weekly_traffic"], Value::Null);
        assert_eq!(v["folder_id"], Value::Null);
        let with_default = Value::from(basic_channel(&l, true));
        assert_eq!(with_default["is_default"], json!(true));
    }

    #[test]
    fn a_subscription_adds_the_personal_settings_with_nulls_for_defaults() {
        let l = listed(true);
        let s = sub();
        let v = Value::from(subscription_record(&l, &s));
        assert_eq!(v["color"], json!("#c2c2c2"));
        assert_eq!(v["is_muted"], json!(true));
        assert_eq!(v["in_home_view"], json!(false));
        assert_eq!(v["desktop_notifications"], json!(true));
        assert_eq!(v["email_notifications"], json!(false));
        assert_eq!(v["audible_notifications"], Value::Null);
        assert!(v.as_object().unwrap().contains_key("audible_notifications"));
        assert_eq!(v["subscribers"], json!([7, 8]));
        assert_eq!(v.as_object().unwrap().len(), 30 + 10);
        let partial = Value::from(subscription_record(&l, &s).with_partial_subscribers());
        assert_eq!(partial["partial_subscribers"], json!([7, 8]));
        assert!(partial.get("subscribers").is_none());
        let hidden = listed(false);
        let v = Value::from(subscription_record(&hidden, &s));
        assert!(v.get("subscribers").is_none());
        let v = Value::from(never_subscribed(&hidden).with_partial_subscribers());
        assert!(v.get("subscribers").is_none() && v.get("partial_subscribers").is_none());
    }

    #[test]
    fn the_compatible_functions_give_the_record() {
        let l = listed(true);
        let s = sub();
        assert_eq!(
            Value::Object(channel(&l.access.channel, &l.stats)),
            Value::from(channel_record(&l.access.channel, &l.stats))
        );
        assert_eq!(
            subscription(&l, &s),
            Value::from(subscription_record(&l, &s))
        );
        let set = GroupSetting::Members {
            users: vec![UserId(1)],
            groups: vec![GroupId(2)],
        };
        assert_eq!(
            group_setting(&set),
            json!({"direct_members": [1], "direct_subgroups": [2]})
        );
        assert_eq!(group_setting(&GroupSetting::Group(GroupId(5))), json!(5));
    }
}
