//! The initial state `POST /register` returns, per requested type (`fetch_event_types`).
//!
//! The organization settings administrators change (`domain::realm_settings`) are reported as
//! stored; the rest are reported with Zulip's defaults, so clients see a consistent
//! organization.

use std::collections::{BTreeMap, HashSet};

use rusqlite::Connection;
use serde_json::{Map, Value, json};

use super::realtime::{
    DEFAULT_PRESENCE_HISTORY_DAYS, PARTIAL_SUBSCRIBERS_THRESHOLD, SubscriberDetail,
};
use crate::app::AppState;
use crate::db::conversations as conversations_db;
use crate::db::{
    channels as channels_db, messages as messages_db, topics as topics_db, unreads as unreads_db,
    users as users_db,
};
use crate::domain::channels::{self, ListFilter, Listed};
use crate::domain::messages::send::{
    EMPTY_TOPIC_DISPLAY_NAME, MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH,
};
use crate::domain::realm_settings::{self, GroupRule, RealmValue};
use crate::domain::settings::SettingValue;
use crate::error::Result;
use crate::events::queues::QueueOptions;
use crate::ids::{GroupId, UserId};
use crate::model::{ChannelSetting, GroupSetting, Role, User, system_groups as sys};

use super::server::{FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION};
use super::wire::{self, Viewer};

/// Most unread message ids reported (Zulip's cap).
const MAX_UNREAD: usize = 50_000;

fn wants(types: Option<&[String]>, t: &str) -> bool {
    types.is_none_or(|list| list.iter().any(|x| x == t))
}

/// Builds the state for the requested types.
pub async fn initial_state(
    state: &AppState,
    user: &User,
    types: Option<&[String]>,
    opts: &QueueOptions,
    include_subscribers: SubscriberDetail,
    presence_days: i64,
) -> Result<Map<String, Value>> {
    let mut out = Map::new();
    out.insert("zulip_version".into(), json!(ZULIP_VERSION));
    out.insert("zulip_feature_level".into(), json!(FEATURE_LEVEL));
    out.insert("zulip_merge_base".into(), json!(ZULIP_MERGE_BASE));
    let types_owned: Option<Vec<String>> = types.map(|t| t.to_vec());
    let viewer_user = user.clone();
    let host = state.config.realm_host().to_string();
    let client_gravatar = opts.client_gravatar;
    let empty_topic_name = opts.empty_topic_name;
    let settings_as_object = opts.user_settings_object;
    let configured_name = state.config.chat.realm_name.clone();
    let now = crate::time::now_secs();
    // Partial subscriber lists keep users active within the default presence window.
    let recently_active: HashSet<UserId> = match include_subscribers {
        SubscriberDetail::Partial => state
            .presence
            .all()
            .into_iter()
            .filter(|(_, e)| e.active_timestamp >= now - DEFAULT_PRESENCE_HISTORY_DAYS * 86_400)
            .map(|(u, _)| u)
            .collect(),
        _ => HashSet::new(),
    };
    let db_part = state
        .db
        .read(move |c| {
            let types = types_owned.as_deref();
            let mut m = Map::new();
            let viewer = Viewer {
                user: &viewer_user,
                host: &host,
                client_gravatar,
            };
            if wants(types, "message") {
                m.insert("max_message_id".into(), json!(messages_db::max_received_id(c, viewer_user.id)?));
            }
            if wants(types, "realm_user") {
                realm_users(c, &viewer, &mut m)?;
            }
            if wants(types, "realm") {
                // The organization's settings, stored or default (`realm_<name>`).
                for (name, value) in realm_settings::all(c, &configured_name)? {
                    let legacy = match name {
                        realm_settings::CAN_CREATE_PUBLIC_CHANNEL => {
                            Some("realm_create_public_stream_policy")
                        }
                        realm_settings::CAN_CREATE_PRIVATE_CHANNEL => {
                            Some("realm_create_private_stream_policy")
                        }
                        _ => None,
                    };
                    if let (Some(key), RealmValue::Group(g)) = (legacy, &value) {
                        m.insert(key.into(), json!(legacy_policy(g)));
                    }
                    m.insert(format!("realm_{name}"), wire::realm_value(&value));
                }
            }
            if wants(types, "subscription") {
                subscriptions(c, &viewer_user, include_subscribers, &recently_active, &mut m)?;
            }
            if wants(types, "update_message_flags") && wants(types, "message") {
                m.insert("unread_msgs".into(), unread_msgs(c, &viewer_user, empty_topic_name)?);
            }
            if wants(types, "starred_messages") {
                let ids = unreads_db::starred(c, viewer_user.id)?;
                m.insert("starred_messages".into(), json!(ids));
            }
            let policies = topics_db::policies_of(c, viewer_user.id)?;
            if wants(types, "user_topic") {
                let list: Vec<Value> = policies
                    .iter()
                    .map(|(ch, topic, policy, updated)| {
                        json!({"stream_id": ch.0, "topic_name": topic, "visibility_policy": policy, "last_updated": updated})
                    })
                    .collect();
                m.insert("user_topics".into(), json!(list));
            }
            if wants(types, "muted_topics") && !(types.is_some() && wants(types, "user_topic")) {
                let mut list = Vec::new();
                for (ch, topic, policy, updated) in &policies {
                    if *policy == 1
                        && let Some(channel) = channels_db::get(c, *ch)?
                    {
                        list.push(json!([channel.name, topic, updated]));
                    }
                }
                m.insert("muted_topics".into(), json!(list));
            }
            if wants(types, "alert_words") {
                let words = crate::db::alert_words::of_user(c, viewer_user.id)?;
                m.insert("alert_words".into(), json!(words));
            }
            if wants(types, "user_status") {
                let mut statuses = Map::new();
                let stored = users_db::all_statuses(c)?;
                for u in users_db::all(c)?.into_iter().filter(|u| u.is_active) {
                    let s = stored.get(&u.id).cloned().unwrap_or_default();
                    let w = wire::status(&s, u.presence_enabled);
                    if !w.is_empty() {
                        statuses.insert(u.id.0.to_string(), Value::Object(w));
                    }
                }
                m.insert("user_status".into(), Value::Object(statuses));
            }
            if wants(types, "user_settings") {
                let current = crate::domain::settings::all_of(c, &viewer_user)?;
                user_settings(&viewer_user, &current, settings_as_object, &mut m);
            }
            if wants(types, "realm_user_groups") {
                m.insert("realm_user_groups".into(), system_groups(c)?);
            }
            if wants(types, "recent_private_conversations") {
                m.insert("recent_private_conversations".into(), recent_conversations(c, viewer_user.id)?);
            }
            Ok(m)
        })
        .await?;
    out.extend(db_part);
    if wants(types, "stream") {
        let filter = ListFilter {
            include_public: true,
            include_subscribed: true,
            include_all: false,
            exclude_archived: !opts.archived_channels,
            include_default: false,
        };
        let listed = channels::list(state, user, filter).await?;
        let streams: Vec<Value> = listed
            .iter()
            .map(|l| wire::basic_channel(l, false))
            .collect();
        out.insert("streams".into(), json!(streams));
    }
    if wants(types, "custom_profile_fields") {
        let fields = crate::domain::profile_fields::list(state).await?;
        out.insert(
            "custom_profile_fields".into(),
            json!(fields.iter().map(wire::profile_field).collect::<Vec<_>>()),
        );
        out.insert("custom_profile_field_types".into(), profile_field_types());
    }
    if wants(types, "muted_users") {
        // Outpost has no user muting: nobody is ever muted.
        out.insert("muted_users".into(), json!([]));
    }
    // State of the remaining event types: features Outpost does not have, as upstream reports
    // them when unused, and organization-wide metadata, so that every key clients read is there.
    let remaining: [(&str, &str, Value); 11] = [
        ("drafts", "drafts", json!([])),
        ("onboarding_steps", "onboarding_steps", json!([])),
        ("onboarding_steps", "navigation_tour_video_url", Value::Null),
        ("scheduled_messages", "scheduled_messages", json!([])),
        ("saved_snippets", "saved_snippets", json!([])),
        // Full-text search here uses no stop words.
        ("stop_words", "stop_words", json!([])),
        ("video_calls", "has_zoom_token", json!(false)),
        ("giphy", "giphy_api_key", json!("")),
        (
            "realm_billing",
            "realm_billing",
            json!({"has_pending_sponsorship_request": false}),
        ),
        (
            "realm_user_settings_defaults",
            "realm_user_settings_defaults",
            user_settings_defaults(state),
        ),
        (
            "realm",
            "server_supported_permission_settings",
            supported_permission_settings(),
        ),
    ];
    for (event_type, key, value) in remaining {
        if wants(types, event_type) {
            out.insert(key.into(), value);
        }
    }
    if wants(types, "realm_emoji") {
        out.insert("realm_emoji".into(), json!({}));
    }
    if wants(types, "presence") {
        presences(state, opts.slim_presence, presence_days, &mut out).await?;
    }
    if wants(types, "realm") {
        realm(state, &mut out);
    }
    Ok(out)
}

fn realm_users(c: &Connection, viewer: &Viewer<'_>, m: &mut Map<String, Value>) -> Result<()> {
    let all = users_db::all(c)?;
    let (active, inactive): (Vec<&User>, Vec<&User>) = all.iter().partition(|u| u.is_active);
    let values = crate::db::profile_fields::values(c, None)?;
    let render = |u: &&User| Value::Object(wire::user(viewer, u, Some(&values)));
    m.insert(
        "realm_users".into(),
        Value::Array(active.iter().map(render).collect()),
    );
    m.insert(
        "realm_non_active_users".into(),
        Value::Array(inactive.iter().map(render).collect()),
    );
    let mut bots = users_db::system_bots(c)?;
    bots.sort_by(|a, b| a.full_name.cmp(&b.full_name));
    m.insert(
        "cross_realm_bots".into(),
        Value::Array(
            bots.iter()
                .map(|u| Value::Object(wire::user(viewer, u, None)))
                .collect(),
        ),
    );
    let me = viewer.user;
    m.insert("user_id".into(), json!(me.id.0));
    m.insert("email".into(), json!(wire::api_email(me, viewer.host)));
    m.insert("delivery_email".into(), json!(me.email));
    m.insert("full_name".into(), json!(me.full_name));
    m.insert("is_admin".into(), json!(me.role.is_admin()));
    m.insert("is_owner".into(), json!(me.role == Role::Owner));
    m.insert("is_moderator".into(), json!(me.role == Role::Moderator));
    m.insert("is_guest".into(), json!(me.role == Role::Guest));
    m.insert("avatar_source".into(), json!(me.avatar_source));
    let url = wire::user_avatar_url(me, viewer.host);
    m.insert("avatar_url".into(), json!(url));
    m.insert("avatar_url_medium".into(), json!(format!("{url}&s=500")));
    let member = me.role <= Role::Member;
    let public = member && realm_settings::holds(c, me, realm_settings::CAN_CREATE_PUBLIC_CHANNEL)?;
    let private =
        member && realm_settings::holds(c, me, realm_settings::CAN_CREATE_PRIVATE_CHANNEL)?;
    m.insert("can_create_streams".into(), json!(public || private));
    m.insert("can_create_public_streams".into(), json!(public));
    m.insert("can_create_private_streams".into(), json!(private));
    m.insert("can_subscribe_other_users".into(), json!(member));
    m.insert("can_create_web_public_streams".into(), json!(false));
    m.insert(
        "can_invite_others_to_realm".into(),
        json!(member && realm_settings::holds(c, me, realm_settings::CAN_INVITE_USERS)?),
    );
    Ok(())
}

fn subscriptions(
    c: &Connection,
    user: &User,
    detail: SubscriberDetail,
    recently_active: &HashSet<UserId>,
    m: &mut Map<String, Value>,
) -> Result<()> {
    let with_subscribers = detail != SubscriberDetail::None;
    let bots: HashSet<UserId> = if detail == SubscriberDetail::Partial {
        users_db::all(c)?
            .into_iter()
            .filter(|u| u.is_bot)
            .map(|u| u.id)
            .collect()
    } else {
        HashSet::new()
    };
    let recent_or_bot = |id: &UserId| bots.contains(id) || recently_active.contains(id);
    let mut subscribed = Vec::new();
    let mut unsubscribed = Vec::new();
    let mut never = Vec::new();
    let now = crate::time::now_secs();
    for ch in channels_db::all(c)? {
        if ch.is_archived {
            continue;
        }
        let sub = channels_db::subscription(c, user.id, ch.id)?;
        let access = channels::access(c, user, ch)?;
        if !access.metadata {
            continue;
        }
        let stats = channels_db::stats(c, &access.channel, now)?;
        let mut subscribers = if with_subscribers && access.content {
            Some(channels_db::subscriber_ids(c, access.channel.id)?)
        } else {
            None
        };
        // Big channels under `partial` list only bots and recently active subscribers.
        let partial = detail == SubscriberDetail::Partial
            && subscribers
                .as_ref()
                .is_some_and(|ids| ids.len() >= PARTIAL_SUBSCRIBERS_THRESHOLD);
        if partial && let Some(ids) = subscribers.as_mut() {
            ids.retain(recent_or_bot);
        }
        let listed = Listed {
            access,
            subscription: sub.clone(),
            subscribers,
            stats,
        };
        let mut v = match &sub {
            Some(s) => wire::subscription(&listed, s),
            None => {
                let mut v = wire::basic_channel(&listed, false);
                if let (Some(obj), Some(ids)) = (v.as_object_mut(), &listed.subscribers) {
                    obj.insert(
                        "subscribers".into(),
                        json!(ids.iter().map(|u| u.0).collect::<Vec<_>>()),
                    );
                }
                v
            }
        };
        if partial
            && let Some(obj) = v.as_object_mut()
            && let Some(ids) = obj.remove("subscribers")
        {
            obj.insert("partial_subscribers".into(), ids);
        }
        match sub {
            Some(s) if s.active => subscribed.push(v),
            Some(_) => unsubscribed.push(v),
            None => never.push(v),
        }
    }
    m.insert("subscriptions".into(), json!(subscribed));
    m.insert("unsubscribed".into(), json!(unsubscribed));
    m.insert("never_subscribed".into(), json!(never));
    Ok(())
}

/// Unread messages grouped as Zulip reports them.
fn unread_msgs(c: &Connection, user: &User, empty_topic_name: bool) -> Result<Value> {
    let mut rows = unreads_db::unread(c, user.id, MAX_UNREAD)?;
    rows.sort_by_key(|r| r.0);
    let old_unreads_missing = rows.len() > MAX_UNREAD;
    rows.truncate(MAX_UNREAD);
    let mut streams: BTreeMap<(i64, String), Vec<i64>> = BTreeMap::new();
    let mut pms: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    let mut huddles: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    let mut mentions = Vec::new();
    for (id, ch, topic, conv, _sender, mentioned) in &rows {
        if *mentioned {
            mentions.push(*id);
        }
        match (ch, conv) {
            (Some(ch), _) => {
                let topic = if topic.is_empty() && !empty_topic_name {
                    EMPTY_TOPIC_DISPLAY_NAME.to_string()
                } else {
                    topic.clone()
                };
                streams.entry((*ch, topic)).or_default().push(*id);
            }
            (None, Some(conv)) => {
                let members = conversations_db::members(c, *conv)?;
                if members.len() <= 2 {
                    let other = members
                        .iter()
                        .find(|u| **u != user.id)
                        .copied()
                        .unwrap_or(user.id);
                    pms.entry(other.0).or_default().push(*id);
                } else {
                    let key = members
                        .iter()
                        .map(|u| u.0.to_string())
                        .collect::<Vec<_>>()
                        .join(",");
                    huddles.entry(key).or_default().push(*id);
                }
            }
            _ => {}
        }
    }
    Ok(json!({
        "pms": pms.into_iter().map(|(other, ids)| json!({"other_user_id": other, "sender_id": other, "unread_message_ids": ids})).collect::<Vec<_>>(),
        "streams": streams.into_iter().map(|((ch, topic), ids)| json!({"stream_id": ch, "topic": topic, "unread_message_ids": ids})).collect::<Vec<_>>(),
        "huddles": huddles.into_iter().map(|(k, ids)| json!({"user_ids_string": k, "unread_message_ids": ids})).collect::<Vec<_>>(),
        "mentions": mentions,
        "count": rows.len(),
        "old_unreads_missing": old_unreads_missing,
    }))
}

fn recent_conversations(c: &Connection, user: UserId) -> Result<Value> {
    let mut out = Vec::new();
    for conv in conversations_db::of_user(c, user)? {
        let Some(max) = unreads_db::newest_in_conversation(c, conv)? else {
            continue;
        };
        let others: Vec<i64> = conversations_db::members(c, conv)?
            .into_iter()
            .filter(|u| *u != user)
            .map(|u| u.0)
            .collect();
        out.push(json!({"max_message_id": max, "user_ids": others}));
    }
    out.sort_by_key(|v| std::cmp::Reverse(v["max_message_id"].as_i64().unwrap_or(0)));
    Ok(json!(out))
}

/// The role-based system groups (as seeded by `schema.sql`) with their direct members.
fn system_groups(c: &Connection) -> Result<Value> {
    let users = users_db::all(c)?;
    let rows = crate::db::groups::system_groups(c)?;
    let groups: Vec<Value> = rows
        .into_iter()
        .map(|(gid, name, description)| {
            let id = gid.0;
            let members: Vec<i64> = match sys::direct_role(gid) {
                Some(role) => users
                    .iter()
                    .filter(|u| u.is_active && u.role == role)
                    .map(|u| u.id.0)
                    .collect(),
                None => Vec::new(),
            };
            let subgroups: Vec<i64> = sys::direct_subgroup(gid).map(|g| g.0).into_iter().collect();
            json!({
                "id": id,
                "name": name,
                "description": description,
                "members": members,
                "direct_subgroup_ids": subgroups,
                "creator_id": null,
                "date_created": null,
                "is_system_group": true,
                "deactivated": false,
                "can_add_members_group": sys::NOBODY.0,
                "can_join_group": sys::NOBODY.0,
                "can_leave_group": sys::NOBODY.0,
                "can_manage_group": sys::NOBODY.0,
                "can_mention_group": sys::NOBODY.0,
                "can_remove_members_group": sys::NOBODY.0,
            })
        })
        .collect();
    Ok(json!(groups))
}

fn profile_field_types() -> Value {
    let kinds = [
        ("SHORT_TEXT", 1, "Text (short)"),
        ("LONG_TEXT", 2, "Text (long)"),
        ("SELECT", 3, "List of options"),
        ("DATE", 4, "Date picker"),
        ("URL", 5, "Link"),
        ("USER", 6, "Users"),
        ("EXTERNAL_ACCOUNT", 7, "External account"),
        ("PRONOUNS", 8, "Pronouns"),
    ];
    let mut m = Map::new();
    for (key, id, name) in kinds {
        m.insert(key.into(), json!({"id": id, "name": name}));
    }
    Value::Object(m)
}

async fn presences(
    state: &AppState,
    slim: bool,
    days: i64,
    out: &mut Map<String, Value>,
) -> Result<()> {
    let oldest = crate::time::now_secs().saturating_sub(days.saturating_mul(86_400));
    let entries: Vec<_> = state
        .presence
        .all()
        .into_iter()
        .filter(|(_, e)| e.idle_timestamp >= oldest)
        .collect();
    let ids: Vec<UserId> = entries.iter().map(|(u, _)| *u).collect();
    let users = state
        .db
        .read(move |c| {
            let mut v = Vec::new();
            for id in ids {
                if let Some(u) = users_db::get(c, id)? {
                    v.push(u);
                }
            }
            Ok(v)
        })
        .await?;
    let host = state.config.realm_host();
    let mut m = Map::new();
    for (uid, e) in entries {
        let Some(u) = users.iter().find(|u| u.id == uid) else {
            continue;
        };
        if slim {
            m.insert(
                uid.0.to_string(),
                json!({"active_timestamp": e.active_timestamp, "idle_timestamp": e.idle_timestamp}),
            );
        } else {
            m.insert(
                wire::api_email(u, host),
                super::presence::legacy_entry(&e, true),
            );
        }
    }
    out.insert("presences".into(), Value::Object(m));
    out.insert(
        "presence_last_update_id".into(),
        json!(state.presence.last_update_id()),
    );
    out.insert(
        "server_timestamp".into(),
        json!(crate::time::now_millis() as f64 / 1000.0),
    );
    Ok(())
}

/// The user's settings, as an object and (for clients without `user_settings_object`) as
/// top-level keys too.
fn user_settings(
    user: &User,
    current: &[(&'static str, SettingValue)],
    as_object: bool,
    out: &mut Map<String, Value>,
) {
    let mut settings = Map::new();
    for (name, value) in current {
        settings.insert((*name).into(), wire::setting_value(value));
    }
    settings.insert("available_notification_sounds".into(), json!(["zulip"]));
    settings.insert("emojiset_choices".into(), emojiset_choices());
    settings.insert(
        "email_address_visibility".into(),
        json!(user.email_visibility as i64),
    );
    let settings = Value::Object(settings);
    out.insert("user_settings".into(), settings.clone());
    // Clients without the `user_settings_object` capability read them at the top level too
    // (zulip-terminal 0.7 needs both forms).
    let legacy = [
        "twenty_four_hour_time",
        "starred_message_counts",
        "fluid_layout_width",
        "high_contrast_mode",
        "color_scheme",
        "translate_emoticons",
        "default_language",
        "web_home_view",
        "left_side_userlist",
        "emojiset",
        "demote_inactive_streams",
        "timezone",
        "enter_sends",
        "enable_drafts_synchronization",
        "enable_stream_desktop_notifications",
        "enable_stream_email_notifications",
        "enable_stream_push_notifications",
        "enable_stream_audible_notifications",
        "notification_sound",
        "enable_desktop_notifications",
        "enable_sounds",
        "email_notifications_batching_period_seconds",
        "enable_offline_email_notifications",
        "enable_offline_push_notifications",
        "enable_online_push_notifications",
        "enable_digest_emails",
        "enable_marketing_emails",
        "enable_login_emails",
        "message_content_in_email_notifications",
        "pm_content_in_desktop_notifications",
        "wildcard_mentions_notify",
        "desktop_icon_count_display",
        "realm_name_in_email_notifications_policy",
        "presence_enabled",
        "available_notification_sounds",
        "emojiset_choices",
        "receives_typing_notifications",
    ];
    if !as_object {
        for key in legacy {
            out.insert(key.into(), settings[key].clone());
        }
    }
}

/// The defaults new users get (`realm_user_settings_defaults`).
fn user_settings_defaults(state: &AppState) -> Value {
    let mut m = Map::new();
    for (name, value) in crate::domain::settings::defaults() {
        m.insert(name.into(), wire::setting_value(&value));
    }
    m.insert("available_notification_sounds".into(), json!(["zulip"]));
    m.insert("emojiset_choices".into(), emojiset_choices());
    m.insert(
        "email_address_visibility".into(),
        json!(state.config.chat.email_address_visibility as i64),
    );
    Value::Object(m)
}

fn emojiset_choices() -> Value {
    json!([{"key": "google", "text": "Google"}, {"key": "text", "text": "Plain text"}])
}

/// The legacy policy form of a channel-creation group (1 members, 2 administrators, 3 full
/// members, 4 moderators); groups the old enumeration cannot express count as administrators.
fn legacy_policy(g: &GroupSetting) -> i64 {
    match g {
        GroupSetting::Group(g) if *g == sys::MEMBERS => 1,
        GroupSetting::Group(g) if *g == sys::FULL_MEMBERS => 3,
        GroupSetting::Group(g) if *g == sys::MODERATORS => 4,
        _ => 2,
    }
}

/// The name of a system group, as permission metadata names defaults.
fn system_group_name(g: GroupId) -> &'static str {
    match g {
        sys::NOBODY => "role:nobody",
        sys::OWNERS => "role:owners",
        sys::ADMINISTRATORS => "role:administrators",
        sys::MODERATORS => "role:moderators",
        sys::FULL_MEMBERS => "role:fullmembers",
        sys::MEMBERS => "role:members",
        sys::EVERYONE => "role:everyone",
        _ => "role:internet",
    }
}

fn permission_metadata(
    require_system_group: bool,
    allow_nobody: bool,
    allow_everyone: bool,
    default_group_name: &str,
    default_for_system_groups: Option<&str>,
    allowed_system_groups: &[&str],
) -> Value {
    json!({
        "require_system_group": require_system_group,
        "allow_internet_group": false,
        "allow_nobody_group": allow_nobody,
        "allow_everyone_group": allow_everyone,
        "default_group_name": default_group_name,
        "default_for_system_groups": default_for_system_groups,
        "allowed_system_groups": allowed_system_groups,
    })
}

/// `server_supported_permission_settings`: what each group-valued setting may be set to.
fn supported_permission_settings() -> Value {
    let mut realm = Map::new();
    for (name, rule) in realm_settings::group_rules() {
        let GroupRule {
            default,
            allow_nobody,
            allow_everyone,
            require_system_group,
            allowed_system_groups,
        } = rule;
        let allowed: Vec<&str> = allowed_system_groups
            .iter()
            .map(|g| system_group_name(*g))
            .collect();
        realm.insert(
            name.into(),
            permission_metadata(
                *require_system_group,
                *allow_nobody,
                *allow_everyone,
                system_group_name(*default),
                None,
                &allowed,
            ),
        );
    }
    let mut stream = Map::new();
    for setting in ChannelSetting::ALL {
        // Settings guests may never exercise, even when in the group (upstream's rule).
        let allow_everyone = !matches!(
            setting,
            ChannelSetting::AddSubscribers
                | ChannelSetting::AdministerChannel
                | ChannelSetting::Subscribe
        );
        let default = match setting.default_for(UserId(0)) {
            GroupSetting::Group(g) => system_group_name(g),
            GroupSetting::Members { .. } => "channel_creator",
        };
        stream.insert(
            setting.name().into(),
            permission_metadata(false, true, allow_everyone, default, None, &[]),
        );
    }
    let mut group = Map::new();
    for (name, allow_everyone, default) in [
        ("can_add_members_group", false, "group_creator"),
        ("can_join_group", false, "role:nobody"),
        ("can_leave_group", true, "role:everyone"),
        ("can_manage_group", false, "group_creator"),
        ("can_mention_group", true, "role:everyone"),
        ("can_remove_members_group", false, "role:nobody"),
    ] {
        group.insert(
            name.into(),
            permission_metadata(
                false,
                true,
                allow_everyone,
                default,
                Some("role:nobody"),
                &[],
            ),
        );
    }
    json!({"realm": realm, "stream": stream, "group": group})
}

/// The Jitsi server clients create calls on (upstream's default).
const JITSI_SERVER_URL: &str = "https://meet.jit.si";

/// GIPHY content ratings an organization may choose (`giphy_rating_options`).
fn giphy_rating_options() -> Value {
    let mut m = Map::new();
    for (key, id, name) in [
        ("disabled", 0, "GIPHY integration disabled"),
        ("y", 1, "Allow GIFs rated Y (Very young audience)"),
        ("g", 2, "Allow GIFs rated G (General audience)"),
        ("pg", 3, "Allow GIFs rated PG (Parental guidance)"),
        (
            "pg-13",
            4,
            "Allow GIFs rated PG-13 (Parental guidance - under 13)",
        ),
        ("r", 5, "Allow GIFs rated R (Restricted)"),
    ] {
        m.insert(key.into(), json!({"id": id, "name": name}));
    }
    Value::Object(m)
}

/// The external account types custom profile fields may use, keyed by subtype.
fn default_external_accounts() -> Value {
    let mut m = Map::new();
    for a in crate::domain::profile_fields::DEFAULT_EXTERNAL_ACCOUNTS {
        m.insert(
            a.subtype.into(),
            json!({"name": a.name, "text": a.text, "hint": a.hint, "url_pattern": a.url_pattern}),
        );
    }
    Value::Object(m)
}

/// Realm settings and server limits.
fn realm(state: &AppState, out: &mut Map<String, Value>) {
    let cfg = &state.config.chat;
    let ev = &state.config.events;
    let pairs: Vec<(&str, Value)> = vec![
        ("realm_url", json!(cfg.external_url)),
        ("realm_uri", json!(cfg.external_url)),
        (
            "realm_empty_topic_display_name",
            json!(EMPTY_TOPIC_DISPLAY_NAME),
        ),
        ("realm_mandatory_topics", json!(false)),
        // Wildcard mentions in large channels: administrators only, the legacy form of
        // `realm_can_mention_many_users_group` (5 = admins).
        ("realm_wildcard_mention_policy", json!(5)),
        (
            "realm_default_external_accounts",
            default_external_accounts(),
        ),
        ("realm_allow_edit_history", json!(true)),
        ("realm_message_content_delete_limit_seconds", Value::Null),
        ("realm_message_retention_days", json!(-1)),
        ("realm_presence_disabled", json!(false)),
        ("realm_password_auth_enabled", json!(true)),
        ("realm_email_auth_enabled", json!(true)),
        ("realm_invite_required", json!(true)),
        ("realm_emails_restricted_to_domains", json!(false)),
        ("realm_disallow_disposable_email_addresses", json!(true)),
        ("realm_enable_spectator_access", json!(false)),
        ("realm_push_notifications_enabled", json!(false)),
        ("realm_enable_read_receipts", json!(true)),
        ("realm_inline_image_preview", json!(false)),
        ("realm_inline_url_embed_preview", json!(false)),
        ("realm_message_edit_history_visibility_policy", json!("all")),
        // The legacy form of the web-public channel creation group (7 = owners).
        ("realm_create_web_public_stream_policy", json!(7)),
        (
            "realm_message_content_allowed_in_email_notifications",
            json!(true),
        ),
        (
            "realm_want_advertise_in_communities_directory",
            json!(false),
        ),
        ("realm_video_chat_provider", json!(1)),
        (
            "realm_available_video_chat_providers",
            json!({
                "disabled": {"name": "None", "id": 0},
                "jitsi_meet": {"name": "Jitsi Meet", "id": 1},
            }),
        ),
        ("realm_jitsi_server_url", Value::Null),
        ("server_jitsi_server_url", json!(JITSI_SERVER_URL)),
        ("jitsi_server_url", json!(JITSI_SERVER_URL)),
        ("realm_giphy_rating", json!(2)),
        ("giphy_rating_options", giphy_rating_options()),
        (
            "realm_authentication_methods",
            json!({"Email": {"enabled": true, "available": true}}),
        ),
        ("realm_upload_quota_mib", Value::Null),
        ("realm_logo_source", json!("D")),
        // The logos default to the icon, so no URL handed out is dead.
        (
            "realm_logo_url",
            json!(super::server::realm_icon_url(state)),
        ),
        ("realm_night_logo_source", json!("D")),
        (
            "realm_night_logo_url",
            json!(super::server::realm_icon_url(state)),
        ),
        ("realm_bot_domain", json!(state.config.realm_host())),
        ("settings_send_digest_emails", json!(false)),
        (
            "realm_push_notifications_enabled_end_timestamp",
            Value::Null,
        ),
        ("realm_enable_guest_user_dm_warning", json!(true)),
        ("realm_enable_guest_user_indicator", json!(true)),
        // Outpost checks password length only, no strength estimate.
        ("password_min_guesses", json!(0)),
        // No uploads, so no thumbnails and no summaries.
        ("server_thumbnail_formats", json!([])),
        ("server_can_summarize_topics", json!(false)),
        // Organizations are never deactivated and deleted here.
        ("server_min_deactivated_realm_deletion_days", Value::Null),
        ("server_max_deactivated_realm_deletion_days", Value::Null),
        ("realm_date_created", json!(0)),
        ("realm_plan_type", json!(1)),
        ("realm_org_type", json!(0)),
        ("realm_icon_source", json!("G")),
        (
            "realm_icon_url",
            json!(super::server::realm_icon_url(state)),
        ),
        ("realm_linkifiers", json!([])),
        ("realm_filters", json!([])),
        ("realm_playgrounds", json!([])),
        ("realm_default_streams", json!([])),
        ("realm_default_stream_groups", json!([])),
        ("realm_domains", json!([])),
        ("realm_bots", json!([])),
        ("realm_embedded_bots", json!([])),
        ("realm_incoming_webhook_bots", json!([])),
        ("max_message_length", json!(MAX_MESSAGE_LENGTH)),
        ("max_topic_length", json!(MAX_TOPIC_LENGTH)),
        ("max_stream_name_length", json!(channels::MAX_NAME_LENGTH)),
        (
            "max_stream_description_length",
            json!(channels::MAX_DESCRIPTION_LENGTH),
        ),
        ("max_channel_folder_name_length", json!(60)),
        ("max_channel_folder_description_length", json!(1024)),
        ("max_file_upload_size_mib", json!(100)),
        ("max_avatar_file_size_mib", json!(5)),
        ("max_icon_file_size_mib", json!(5)),
        ("max_logo_file_size_mib", json!(5)),
        (
            "password_min_length",
            json!(crate::domain::users::MIN_PASSWORD_LENGTH),
        ),
        (
            "password_max_length",
            json!(crate::domain::users::MAX_PASSWORD_LENGTH),
        ),
        (
            "event_queue_longpoll_timeout_seconds",
            json!((ev.heartbeat + ev.heartbeat_jitter).as_secs() + 35),
        ),
        ("server_presence_ping_interval_seconds", json!(60)),
        ("server_presence_offline_threshold_seconds", json!(200)),
        (
            "server_typing_started_expiry_period_milliseconds",
            json!(45000),
        ),
        (
            "server_typing_stopped_wait_period_milliseconds",
            json!(12000),
        ),
        (
            "server_typing_started_wait_period_milliseconds",
            json!(30000),
        ),
        ("server_avatar_changes_disabled", json!(false)),
        ("server_name_changes_disabled", json!(false)),
        ("server_needs_upgrade", json!(false)),
        ("server_web_public_streams_enabled", json!(false)),
        ("server_inline_image_preview", json!(false)),
        ("server_inline_url_embed_preview", json!(false)),
        ("server_generation", json!(0)),
        ("development_environment", json!(cfg.development)),
        (
            "server_emoji_data_url",
            json!(format!(
                "{}{}",
                cfg.external_url.trim_end_matches('/'),
                super::EMOJI_DATA_PATH
            )),
        ),
        ("zulip_plan_is_not_limited", json!(true)),
        ("upgrade_text_for_wide_organization_logo", json!("")),
        ("realm_name_changes_disabled", json!(false)),
        ("realm_email_changes_disabled", json!(false)),
        ("realm_avatar_changes_disabled", json!(false)),
        ("realm_require_unique_names", json!(false)),
        ("realm_send_welcome_emails", json!(false)),
        ("realm_digest_emails_enabled", json!(false)),
        ("realm_digest_weekday", json!(1)),
        ("realm_is_zephyr_mirror_realm", json!(false)),
        ("realm_default_code_block_language", json!("")),
    ];
    for (k, v) in pairs {
        out.insert(k.into(), v);
    }
}
