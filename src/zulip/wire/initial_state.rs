//! JSON shapes of `POST /register`'s per-user state: unread messages, topic visibility, recent
//! conversations, system groups, the caller's identity and permissions, and personal settings.
//!
//! Pure rendering: the register builders (`zulip::register_state`) fetch, this shapes.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::Viewer;
use crate::domain::settings::SettingValue;
use crate::ids::ChannelId;
use crate::model::Role;

/// One `user_topics` entry.
pub fn user_topic(channel: ChannelId, topic: &str, policy: i64, updated: i64) -> Value {
    json!({"stream_id": channel.0, "topic_name": topic, "visibility_policy": policy, "last_updated": updated})
}

/// One legacy `muted_topics` entry: `[channel name, topic, muted at]`.
pub fn muted_topic(channel_name: &str, topic: &str, updated: i64) -> Value {
    json!([channel_name, topic, updated])
}

/// Unread messages grouped as `unread_msgs` reports them.
pub struct Unreads {
    /// One-on-one conversations by the other user's id.
    pub pms: BTreeMap<i64, Vec<i64>>,
    /// Channel topics by (channel id, topic as shown).
    pub streams: BTreeMap<(i64, String), Vec<i64>>,
    /// Group conversations by their comma-separated member ids.
    pub huddles: BTreeMap<String, Vec<i64>>,
    pub mentions: Vec<i64>,
    pub count: usize,
    pub old_unreads_missing: bool,
}

pub fn unread_msgs(u: Unreads) -> Value {
    json!({
        "pms": u.pms.into_iter().map(|(other, ids)| json!({"other_user_id": other, "sender_id": other, "unread_message_ids": ids})).collect::<Vec<_>>(),
        "streams": u.streams.into_iter().map(|((ch, topic), ids)| json!({"stream_id": ch, "topic": topic, "unread_message_ids": ids})).collect::<Vec<_>>(),
        "huddles": u.huddles.into_iter().map(|(k, ids)| json!({"user_ids_string": k, "unread_message_ids": ids})).collect::<Vec<_>>(),
        "mentions": u.mentions,
        "count": u.count,
        "old_unreads_missing": u.old_unreads_missing,
    })
}

/// One `recent_private_conversations` entry.
pub fn recent_conversation(max_message_id: i64, others: &[i64]) -> Value {
    json!({"max_message_id": max_message_id, "user_ids": others})
}

/// The custom profile field types (`custom_profile_field_types`).
pub fn profile_field_types() -> Value {
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

/// What the caller may do, as the `can_*` keys of the `realm_user` state report it.
pub struct CallerAbilities {
    pub create_public_channels: bool,
    pub create_private_channels: bool,
    pub subscribe_others: bool,
    pub invite_others: bool,
}

/// The caller's own identity and abilities (`user_id`, `email`, `is_admin`, `can_*`, ...).
pub fn caller_identity(viewer: &Viewer<'_>, can: &CallerAbilities, m: &mut Map<String, Value>) {
    let me = viewer.user;
    m.insert("user_id".into(), json!(me.id.0));
    m.insert("email".into(), json!(super::api_email(me, viewer.host)));
    m.insert("delivery_email".into(), json!(me.email));
    m.insert("full_name".into(), json!(me.full_name));
    m.insert("is_admin".into(), json!(me.role.is_admin()));
    m.insert("is_owner".into(), json!(me.role == Role::Owner));
    m.insert("is_moderator".into(), json!(me.role == Role::Moderator));
    m.insert("is_guest".into(), json!(me.role == Role::Guest));
    m.insert("avatar_source".into(), json!(me.avatar_source));
    let url = super::user_avatar_url(me, viewer.host);
    m.insert("avatar_url".into(), json!(url));
    m.insert("avatar_url_medium".into(), json!(format!("{url}&s=500")));
    let (public, private) = (can.create_public_channels, can.create_private_channels);
    m.insert("can_create_streams".into(), json!(public || private));
    m.insert("can_create_public_streams".into(), json!(public));
    m.insert("can_create_private_streams".into(), json!(private));
    m.insert(
        "can_subscribe_other_users".into(),
        json!(can.subscribe_others),
    );
    m.insert("can_create_web_public_streams".into(), json!(false));
    m.insert(
        "can_invite_others_to_realm".into(),
        json!(can.invite_others),
    );
}

fn emojiset_choices() -> Value {
    json!([{"key": "google", "text": "Google"}, {"key": "text", "text": "Plain text"}])
}

/// Settings keys clients without the `user_settings_object` capability read at the top level.
const LEGACY_TOP_LEVEL_SETTINGS: &[&str] = &[
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

/// A settings object: the stored values plus the choices clients offer and the email
/// visibility.
fn settings_object(
    values: &[(&'static str, SettingValue)],
    email_address_visibility: i64,
) -> Map<String, Value> {
    let mut settings = Map::new();
    for (name, value) in values {
        settings.insert((*name).into(), super::setting_value(value));
    }
    settings.insert("available_notification_sounds".into(), json!(["zulip"]));
    settings.insert("emojiset_choices".into(), emojiset_choices());
    settings.insert(
        "email_address_visibility".into(),
        json!(email_address_visibility),
    );
    settings
}

/// The caller's settings as `user_settings` and, for clients without `user_settings_object`,
/// as top-level keys too (zulip-terminal 0.7 needs both forms).
pub fn user_settings(
    values: &[(&'static str, SettingValue)],
    email_address_visibility: i64,
    as_object: bool,
    out: &mut Map<String, Value>,
) {
    let settings = Value::Object(settings_object(values, email_address_visibility));
    out.insert("user_settings".into(), settings.clone());
    if !as_object {
        for key in LEGACY_TOP_LEVEL_SETTINGS {
            out.insert((*key).into(), settings[*key].clone());
        }
    }
}

/// The defaults new users get (`realm_user_settings_defaults`).
pub fn user_settings_defaults(
    defaults: &[(&'static str, SettingValue)],
    email_address_visibility: i64,
) -> Value {
    Value::Object(settings_object(defaults, email_address_visibility))
}
