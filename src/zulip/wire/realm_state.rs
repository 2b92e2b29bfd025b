//! JSON shapes of `POST /register`'s organization state: permission metadata, the server's
//! limits and fixed organization facts, and the state of features Outpost does not have.
//!
//! Pure rendering: every limit comes in as a parameter from the constant the endpoints
//! enforce; the register builders (`zulip::register_state`) supply them.

use serde_json::{Map, Value, json};

use crate::domain::realm_settings::GroupRule;
use crate::ids::{GroupId, UserId};
use crate::model::{ChannelSetting, GroupSetting, system_groups as sys};

/// The legacy policy form of a channel-creation group (1 members, 2 administrators, 3 full
/// members, 4 moderators); groups the old enumeration cannot express count as administrators.
pub fn legacy_policy(g: &GroupSetting) -> Value {
    let policy = match g {
        GroupSetting::Group(g) if *g == sys::MEMBERS => 1,
        GroupSetting::Group(g) if *g == sys::FULL_MEMBERS => 3,
        GroupSetting::Group(g) if *g == sys::MODERATORS => 4,
        _ => 2,
    };
    json!(policy)
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

/// `server_supported_permission_settings`: what each group-valued setting may be set to, from
/// the organization settings' rules and the channel settings.
pub fn supported_permission_settings<'a>(
    realm_rules: impl IntoIterator<Item = (&'a str, &'a GroupRule)>,
) -> Value {
    let mut realm = Map::new();
    for (name, rule) in realm_rules {
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

/// The limits the endpoints enforce, passed in from their constants.
pub struct ServerLimits {
    pub max_message_length: usize,
    pub max_topic_length: usize,
    pub max_channel_name_length: usize,
    pub max_channel_description_length: usize,
    pub max_reminder_note_length: usize,
    pub min_password_length: usize,
    pub max_password_length: usize,
    pub presence_ping_interval_secs: i64,
    pub presence_offline_threshold_secs: i64,
    pub event_queue_longpoll_timeout_secs: u64,
    pub max_file_upload_size_mib: usize,
    /// `None`: no quota.
    pub upload_quota_mib: Option<usize>,
}

/// Facts about this server and organization that come from the configuration.
pub struct ServerFacts<'a> {
    pub external_url: &'a str,
    pub realm_host: &'a str,
    pub icon_url: &'a str,
    pub emoji_data_url: &'a str,
    pub empty_topic_display_name: &'a str,
    pub development: bool,
    /// When this server process started (seconds since the epoch).
    pub server_generation: i64,
    /// Whether digest emails are really sent (outgoing mail is configured).
    pub send_digest_emails: bool,
}

/// `realm_push_notifications_enabled` and `realm_push_notifications_enabled_end_timestamp`.
pub fn realm_push_flags(enabled: bool, end_timestamp: Option<i64>) -> [(&'static str, Value); 2] {
    [
        ("realm_push_notifications_enabled", json!(enabled)),
        (
            "realm_push_notifications_enabled_end_timestamp",
            json!(end_timestamp),
        ),
    ]
}

/// The organization facts and server limits of the `realm` state that no organization
/// setting controls.
pub fn realm_facts(f: &ServerFacts<'_>, l: &ServerLimits) -> Vec<(&'static str, Value)> {
    vec![
        ("realm_url", json!(f.external_url)),
        ("realm_uri", json!(f.external_url)),
        (
            "realm_empty_topic_display_name",
            json!(f.empty_topic_display_name),
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
        ("realm_enable_read_receipts", json!(true)),
        // Uploaded images are previewed inline (other sites' images are not).
        ("realm_inline_image_preview", json!(true)),
        ("realm_inline_url_embed_preview", json!(false)),
        ("realm_message_edit_history_visibility_policy", json!("all")),
        // The legacy form of the web-public channel creation group (7 = owners).
        ("realm_create_web_public_stream_policy", json!(7)),
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
        ("realm_upload_quota_mib", json!(l.upload_quota_mib)),
        ("realm_logo_source", json!("D")),
        // The logos default to the icon, so no URL handed out is dead.
        ("realm_logo_url", json!(f.icon_url)),
        ("realm_night_logo_source", json!("D")),
        ("realm_night_logo_url", json!(f.icon_url)),
        ("realm_bot_domain", json!(f.realm_host)),
        ("settings_send_digest_emails", json!(f.send_digest_emails)),
        ("realm_enable_guest_user_dm_warning", json!(true)),
        ("realm_enable_guest_user_indicator", json!(true)),
        // Outpost checks password length only, no strength estimate.
        ("password_min_guesses", json!(0)),
        // Still thumbnails of uploaded images (animations are previewed as they are); no
        // topic summaries.
        (
            "server_thumbnail_formats",
            json!([{
                "name": crate::markdown::THUMBNAIL_FORMAT,
                "max_width": crate::markdown::THUMBNAIL_BOX.0,
                "max_height": crate::markdown::THUMBNAIL_BOX.1,
                "format": "webp",
                "animated": false,
            }]),
        ),
        ("server_can_summarize_topics", json!(false)),
        // Organizations are never deactivated and deleted here.
        ("server_min_deactivated_realm_deletion_days", Value::Null),
        ("server_max_deactivated_realm_deletion_days", Value::Null),
        ("realm_date_created", json!(0)),
        ("realm_plan_type", json!(1)),
        ("realm_org_type", json!(0)),
        ("realm_icon_source", json!("G")),
        ("realm_icon_url", json!(f.icon_url)),
        ("realm_linkifiers", json!([])),
        ("realm_filters", json!([])),
        ("realm_playgrounds", json!([])),
        ("realm_default_streams", json!([])),
        ("realm_default_stream_groups", json!([])),
        ("realm_domains", json!([])),
        ("realm_embedded_bots", json!([])),
        ("realm_incoming_webhook_bots", json!([])),
        ("max_message_length", json!(l.max_message_length)),
        ("max_topic_length", json!(l.max_topic_length)),
        ("max_stream_name_length", json!(l.max_channel_name_length)),
        (
            "max_stream_description_length",
            json!(l.max_channel_description_length),
        ),
        (
            "max_reminder_note_length",
            json!(l.max_reminder_note_length),
        ),
        (
            "max_channel_folder_name_length",
            json!(crate::domain::channel_folders::MAX_NAME_LENGTH),
        ),
        (
            "max_channel_folder_description_length",
            json!(crate::domain::channel_folders::MAX_DESCRIPTION_LENGTH),
        ),
        (
            "max_file_upload_size_mib",
            json!(l.max_file_upload_size_mib),
        ),
        // Avatars, icons and logos cannot be uploaded here: upstream's limits, enforced nowhere.
        ("max_avatar_file_size_mib", json!(5)),
        ("max_icon_file_size_mib", json!(5)),
        ("max_logo_file_size_mib", json!(5)),
        ("password_min_length", json!(l.min_password_length)),
        ("password_max_length", json!(l.max_password_length)),
        (
            "event_queue_longpoll_timeout_seconds",
            json!(l.event_queue_longpoll_timeout_secs),
        ),
        (
            "server_presence_ping_interval_seconds",
            json!(l.presence_ping_interval_secs),
        ),
        (
            "server_presence_offline_threshold_seconds",
            json!(l.presence_offline_threshold_secs),
        ),
        // Typing expiry is the clients' business; these are upstream's timings.
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
        ("server_inline_image_preview", json!(true)),
        ("server_inline_url_embed_preview", json!(false)),
        ("server_generation", json!(f.server_generation)),
        ("development_environment", json!(f.development)),
        ("server_emoji_data_url", json!(f.emoji_data_url)),
        ("zulip_plan_is_not_limited", json!(true)),
        ("upgrade_text_for_wide_organization_logo", json!("")),
        ("realm_name_changes_disabled", json!(false)),
        ("realm_avatar_changes_disabled", json!(false)),
        ("realm_require_unique_names", json!(false)),
        ("realm_send_welcome_emails", json!(false)),
        ("realm_is_zephyr_mirror_realm", json!(false)),
        ("realm_default_code_block_language", json!("")),
    ]
}

/// The state of event types for features Outpost does not have, as upstream reports them
/// when unused: (event type, key, value).
pub fn unused_features() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("onboarding_steps", "onboarding_steps", json!([])),
        ("onboarding_steps", "navigation_tour_video_url", Value::Null),
        // Full-text search here uses no stop words.
        ("stop_words", "stop_words", json!([])),
        ("video_calls", "has_zoom_token", json!(false)),
        ("giphy", "giphy_api_key", json!("")),
        (
            "realm_billing",
            "realm_billing",
            json!({"has_pending_sponsorship_request": false}),
        ),
    ]
}
