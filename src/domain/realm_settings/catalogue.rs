//! The catalogue of organization settings: their names, what values each takes (types,
//! ranges, the groups a group-valued setting may hold), their defaults (the edit and move
//! windows' included), who may change them, and which `PATCH /realm` accepts. Declarations
//! only: no database reads or writes (those are `reads` and `update`), no parsing of values
//! (that is `values`).

use crate::error::{Error, Result};
use crate::ids::GroupId;
use crate::model::{GroupSetting, RealmValue, system_groups as sys};

/// Where Notification Bot announces new channels (`announce=true`).
pub const NEW_STREAM_ANNOUNCEMENTS: &str = "new_stream_announcements_stream_id";
/// Where Notification Bot announces new users.
pub const SIGNUP_ANNOUNCEMENTS: &str = "signup_announcements_stream_id";
/// Where message reports go (`POST /messages/{id}/report`).
pub const MODERATION_REQUEST_CHANNEL: &str = "moderation_request_channel_id";
/// Where announcements about the server software would go.
pub const ZULIP_UPDATE_ANNOUNCEMENTS: &str = "zulip_update_announcements_stream_id";

/// The organization's name; its default is `[chat] realm_name` from the configuration.
pub const NAME: &str = "name";
pub const DESCRIPTION: &str = "description";
pub const DEFAULT_LANGUAGE: &str = "default_language";
/// Account age in days after which a member counts as a full member.
pub const WAITING_PERIOD_THRESHOLD: &str = "waiting_period_threshold";
/// Whether anyone may edit message content at all.
pub const ALLOW_MESSAGE_EDITING: &str = "allow_message_editing";
/// Whether members (not administrators) are refused changing their own email address.
pub const EMAIL_CHANGES_DISABLED: &str = "email_changes_disabled";
/// Whether missed-message emails may carry the messages' content.
pub const MESSAGE_CONTENT_IN_EMAILS: &str = "message_content_allowed_in_email_notifications";
/// Whether inactive users get the weekly digest email (`domain::account_mail::digest`).
pub const DIGEST_EMAILS_ENABLED: &str = "digest_emails_enabled";
/// The day of the week digests go out, 0 = Monday to 6 = Sunday (Python's `weekday()`).
pub const DIGEST_WEEKDAY: &str = "digest_weekday";
/// Window for editing one's own message content (`None`: no limit).
pub const MESSAGE_CONTENT_EDIT_LIMIT: &str = "message_content_edit_limit_seconds";
/// Window in which members may move topics (`None`: no limit).
pub const MOVE_WITHIN_CHANNEL_LIMIT: &str = "move_messages_within_stream_limit_seconds";
/// Window in which members may move messages between channels (`None`: no limit).
pub const MOVE_BETWEEN_CHANNELS_LIMIT: &str = "move_messages_between_streams_limit_seconds";

/// Who may create public channels.
pub const CAN_CREATE_PUBLIC_CHANNEL: &str = "can_create_public_channel_group";
/// Who may create private channels.
pub const CAN_CREATE_PRIVATE_CHANNEL: &str = "can_create_private_channel_group";
/// Who may invite new users by email.
pub const CAN_INVITE_USERS: &str = "can_invite_users_group";
/// Who may create reusable invitation links.
pub const CREATE_MULTIUSE_INVITE: &str = "create_multiuse_invite_group";
/// Who may create user groups.
pub const CAN_CREATE_GROUPS: &str = "can_create_groups";
/// Who may add custom emoji (upstream's default: members).
pub const CAN_ADD_CUSTOM_EMOJI: &str = "can_add_custom_emoji_group";
/// Who may create bots of every type (upstream's default: members).
pub const CAN_CREATE_BOTS: &str = "can_create_bots_group";
/// Who may create incoming-webhook bots (upstream's default: members).
pub const CAN_CREATE_WRITE_ONLY_BOTS: &str = "can_create_write_only_bots_group";
/// Who may administer every user group.
pub const CAN_MANAGE_ALL_GROUPS: &str = "can_manage_all_groups";
/// Who may take part in direct messages (every participant, or the recipients, must hold it).
pub const DIRECT_MESSAGE_PERMISSION: &str = "direct_message_permission_group";
/// Who may start direct-message conversations.
pub const DIRECT_MESSAGE_INITIATOR: &str = "direct_message_initiator_group";

/// Longest organization name (upstream's limit).
pub const MAX_NAME_LENGTH: usize = 40;
/// Longest organization description (upstream's limit).
pub const MAX_DESCRIPTION_LENGTH: usize = 1000;
/// Largest day count or number of seconds a setting takes (the range of upstream's columns).
pub(super) const MAX_COUNT: i64 = i32::MAX as i64;

/// Zulip's default window for editing one's own message content ([`MESSAGE_CONTENT_EDIT_LIMIT`]'s
/// default; `domain::messages::edit` enforces the current value).
pub const CONTENT_EDIT_LIMIT_SECS: i64 = 600;
/// Zulip's default window in which members may move topics ([`MOVE_WITHIN_CHANNEL_LIMIT`]).
pub const TOPIC_MOVE_LIMIT_SECS: i64 = 3 * 24 * 3600;
/// Zulip's default window in which members may move messages between channels
/// ([`MOVE_BETWEEN_CHANNELS_LIMIT`]).
pub const CHANNEL_MOVE_LIMIT_SECS: i64 = 7 * 24 * 3600;

/// Who may hold a group-valued setting (upstream's permission configuration).
pub struct GroupRule {
    pub default: GroupId,
    pub allow_nobody: bool,
    pub allow_everyone: bool,
    /// Only a system group (no user group, no set of users) may hold it.
    pub require_system_group: bool,
    /// When not empty, the only system groups allowed.
    pub allowed_system_groups: &'static [GroupId],
}

/// What values a setting takes.
pub(super) enum Kind {
    /// Free text of at most this many characters; the name's default comes from the config.
    Text(usize),
    /// A code from `domain::settings::LANGUAGES`.
    Language,
    Bool(bool),
    /// A count in `0..=MAX_COUNT`, with its default.
    Count(i64),
    /// An integer in `min..=max` (a refused one is "Invalid <name>"), with its default.
    Range {
        min: i64,
        max: i64,
        default: i64,
    },
    /// Seconds in `1..=MAX_COUNT`, or no limit; with its default.
    TimeLimit(Option<i64>),
    /// A channel id, or `-1` for none (the default).
    Channel,
    Group(GroupRule),
}

pub(super) struct Spec {
    pub(super) name: &'static str,
    pub(super) kind: Kind,
    /// Only owners may change it (upstream's rule).
    pub(super) owner_only: bool,
    /// `PATCH /realm` changes it; the others keep their default here because Outpost has no
    /// way to honour another value (the feature is missing, or its rule is fixed).
    pub(super) settable: bool,
}

const fn setting(name: &'static str, kind: Kind) -> Spec {
    Spec {
        name,
        kind,
        owner_only: false,
        settable: true,
    }
}

const fn owners(name: &'static str, kind: Kind) -> Spec {
    Spec {
        name,
        kind,
        owner_only: true,
        settable: true,
    }
}

const fn fixed(name: &'static str, kind: Kind) -> Spec {
    Spec {
        name,
        kind,
        owner_only: false,
        settable: false,
    }
}

/// A group rule allowing any group but `role:internet` (and `role:everyone` when not allowed).
const fn group(default: GroupId, allow_nobody: bool, allow_everyone: bool) -> Kind {
    Kind::Group(GroupRule {
        default,
        allow_nobody,
        allow_everyone,
        require_system_group: false,
        allowed_system_groups: &[],
    })
}

use Kind::{Bool, Channel as Chan, Count, Language, Text, TimeLimit};

/// Every organization setting, in register order.
pub(super) const CATALOGUE: &[Spec] = &[
    setting(NAME, Text(MAX_NAME_LENGTH)),
    setting(DESCRIPTION, Text(MAX_DESCRIPTION_LENGTH)),
    setting(DEFAULT_LANGUAGE, Language),
    owners(WAITING_PERIOD_THRESHOLD, Count(0)),
    setting(ALLOW_MESSAGE_EDITING, Bool(true)),
    setting(EMAIL_CHANGES_DISABLED, Bool(false)),
    setting(MESSAGE_CONTENT_IN_EMAILS, Bool(true)),
    setting(DIGEST_EMAILS_ENABLED, Bool(false)),
    setting(
        DIGEST_WEEKDAY,
        Kind::Range {
            min: 0,
            max: 6,
            default: 1,
        },
    ),
    setting(
        MESSAGE_CONTENT_EDIT_LIMIT,
        TimeLimit(Some(CONTENT_EDIT_LIMIT_SECS)),
    ),
    setting(
        MOVE_WITHIN_CHANNEL_LIMIT,
        TimeLimit(Some(TOPIC_MOVE_LIMIT_SECS)),
    ),
    setting(
        MOVE_BETWEEN_CHANNELS_LIMIT,
        TimeLimit(Some(CHANNEL_MOVE_LIMIT_SECS)),
    ),
    setting(MODERATION_REQUEST_CHANNEL, Chan),
    setting(NEW_STREAM_ANNOUNCEMENTS, Chan),
    setting(SIGNUP_ANNOUNCEMENTS, Chan),
    setting(ZULIP_UPDATE_ANNOUNCEMENTS, Chan),
    // Group-valued permissions.
    fixed(
        "can_access_all_users_group",
        Kind::Group(GroupRule {
            default: sys::EVERYONE,
            allow_nobody: false,
            allow_everyone: true,
            require_system_group: true,
            allowed_system_groups: &[sys::EVERYONE, sys::MEMBERS],
        }),
    ),
    setting(CAN_ADD_CUSTOM_EMOJI, group(sys::MEMBERS, true, false)),
    fixed(
        "can_add_subscribers_group",
        group(sys::MEMBERS, true, false),
    ),
    setting(CAN_CREATE_BOTS, group(sys::MEMBERS, true, false)),
    owners(CAN_CREATE_GROUPS, group(sys::MEMBERS, true, false)),
    setting(CAN_CREATE_PRIVATE_CHANNEL, group(sys::MEMBERS, true, false)),
    setting(CAN_CREATE_PUBLIC_CHANNEL, group(sys::MEMBERS, true, false)),
    fixed(
        "can_create_web_public_channel_group",
        Kind::Group(GroupRule {
            default: sys::OWNERS,
            allow_nobody: true,
            allow_everyone: false,
            require_system_group: true,
            allowed_system_groups: &[
                sys::MODERATORS,
                sys::ADMINISTRATORS,
                sys::OWNERS,
                sys::NOBODY,
            ],
        }),
    ),
    setting(CAN_CREATE_WRITE_ONLY_BOTS, group(sys::MEMBERS, true, false)),
    fixed(
        "can_delete_any_message_group",
        group(sys::ADMINISTRATORS, true, false),
    ),
    fixed(
        "can_delete_own_message_group",
        group(sys::EVERYONE, true, true),
    ),
    owners(CAN_INVITE_USERS, group(sys::ADMINISTRATORS, true, false)),
    owners(CAN_MANAGE_ALL_GROUPS, group(sys::OWNERS, false, false)),
    fixed(
        "can_manage_billing_group",
        group(sys::ADMINISTRATORS, false, false),
    ),
    fixed(
        "can_mention_many_users_group",
        group(sys::ADMINISTRATORS, true, true),
    ),
    fixed(
        "can_move_messages_between_channels_group",
        group(sys::MEMBERS, true, false),
    ),
    fixed(
        "can_move_messages_between_topics_group",
        group(sys::EVERYONE, true, true),
    ),
    fixed("can_resolve_topics_group", group(sys::EVERYONE, true, true)),
    fixed(
        "can_summarize_topics_group",
        group(sys::EVERYONE, true, true),
    ),
    owners(
        CREATE_MULTIUSE_INVITE,
        group(sys::ADMINISTRATORS, true, false),
    ),
    setting(DIRECT_MESSAGE_INITIATOR, group(sys::EVERYONE, true, true)),
    setting(DIRECT_MESSAGE_PERMISSION, group(sys::EVERYONE, true, true)),
];

pub(super) fn spec(name: &str) -> Result<&'static Spec> {
    CATALOGUE
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| Error::internal(format!("{name} is not an organization setting")))
}

/// The form in which a request carries a setting (for the API layer to read it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamForm {
    /// A plain string.
    Text,
    /// A JSON boolean.
    Bool,
    /// A JSON integer.
    Int,
    /// A JSON integer or the string `"unlimited"` (see
    /// [`parse_time_limit`](super::parse_time_limit)).
    TimeLimit,
    /// `{"new": <group-setting value>, "old": <group-setting value>}` (`old` optional).
    GroupChange,
}

/// Every setting `PATCH /realm` accepts, with the form it takes.
pub fn settable() -> impl Iterator<Item = (&'static str, ParamForm)> {
    CATALOGUE.iter().filter(|s| s.settable).map(|s| {
        let form = match s.kind {
            Text(_) | Language => ParamForm::Text,
            Bool(_) => ParamForm::Bool,
            Count(_) | Chan | Kind::Range { .. } => ParamForm::Int,
            TimeLimit(_) => ParamForm::TimeLimit,
            Kind::Group(_) => ParamForm::GroupChange,
        };
        (s.name, form)
    })
}

/// Every group-valued setting with its rule, in register order (`realm_*` permission keys and
/// `server_supported_permission_settings`).
pub fn group_rules() -> impl Iterator<Item = (&'static str, &'static GroupRule)> {
    CATALOGUE.iter().filter_map(|s| match &s.kind {
        Kind::Group(rule) => Some((s.name, rule)),
        _ => None,
    })
}

impl Spec {
    pub(super) fn default(&self, configured_name: &str) -> RealmValue {
        match &self.kind {
            Text(_) if self.name == NAME => RealmValue::Str(configured_name.to_string()),
            Text(_) => RealmValue::Str(String::new()),
            Language => RealmValue::Str(crate::domain::settings::LANGUAGES[0].0.to_string()),
            Bool(b) => RealmValue::Bool(*b),
            Count(n) | Kind::Range { default: n, .. } => RealmValue::Int(*n),
            TimeLimit(l) => RealmValue::Limit(*l),
            Chan => RealmValue::Int(-1),
            Kind::Group(rule) => RealmValue::Group(GroupSetting::Group(rule.default)),
        }
    }
}
