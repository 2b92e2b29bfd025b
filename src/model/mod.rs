//! Plain records of both APIs shared by the storage, domain and wire layers (Dependency-Track's
//! in [`dtrack`]).
//!
//! These are Rust values only: no SQL, no JSON. The wire modules convert them to API shapes.

mod channel_properties;
mod channels;
pub mod dtrack;
mod groups;
mod invites;
mod messages;
mod narrow;
pub mod records;
mod scheduled;
mod trigger;
pub mod uploads;

pub use channel_properties::*;
pub use channels::*;
pub use groups::*;
pub use invites::*;
pub use messages::*;
pub use narrow::*;
pub use scheduled::*;
pub use trigger::Trigger;

use crate::ids::{ProfileFieldId, UserId};

/// A setting's value.
#[derive(Clone, Debug, PartialEq)]
pub enum SettingValue {
    Bool(bool),
    Int(i64),
    Str(String),
}

/// An organization setting's value.
#[derive(Clone, Debug, PartialEq)]
pub enum RealmValue {
    Bool(bool),
    /// An integer; channel-valued settings hold a channel id or `-1` for none.
    Int(i64),
    /// A time limit in seconds; `None` is no limit.
    Limit(Option<i64>),
    Str(String),
    Group(GroupSetting),
}

/// Who may see users' real email addresses (the organization's `email_address_visibility`;
/// Zulip's integer encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmailVisibility {
    Everyone = 1,
    Members = 2,
    Admins = 3,
    Nobody = 4,
    Moderators = 5,
}

impl EmailVisibility {
    pub fn from_code(code: i64) -> Option<EmailVisibility> {
        Some(match code {
            1 => EmailVisibility::Everyone,
            2 => EmailVisibility::Members,
            3 => EmailVisibility::Admins,
            4 => EmailVisibility::Nobody,
            5 => EmailVisibility::Moderators,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            EmailVisibility::Everyone => "everyone",
            EmailVisibility::Members => "members",
            EmailVisibility::Admins => "admins",
            EmailVisibility::Nobody => "nobody",
            EmailVisibility::Moderators => "moderators",
        }
    }

    pub fn from_name(name: &str) -> Option<EmailVisibility> {
        [
            EmailVisibility::Everyone,
            EmailVisibility::Members,
            EmailVisibility::Admins,
            EmailVisibility::Nobody,
            EmailVisibility::Moderators,
        ]
        .into_iter()
        .find(|v| v.name() == name)
    }
}

/// An organization-level role (Zulip's integer encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Owner = 100,
    Administrator = 200,
    Moderator = 300,
    Member = 400,
    Guest = 600,
}

impl Role {
    pub fn from_code(code: i64) -> Option<Role> {
        Some(match code {
            100 => Role::Owner,
            200 => Role::Administrator,
            300 => Role::Moderator,
            400 => Role::Member,
            600 => Role::Guest,
            _ => return None,
        })
    }

    pub fn from_name(name: &str) -> Option<Role> {
        Some(match name {
            "owner" => Role::Owner,
            "administrator" | "admin" => Role::Administrator,
            "moderator" => Role::Moderator,
            "member" => Role::Member,
            "guest" => Role::Guest,
            _ => return None,
        })
    }

    pub fn code(self) -> i64 {
        self as i64
    }

    /// Owners are administrators too.
    pub fn is_admin(self) -> bool {
        matches!(self, Role::Owner | Role::Administrator)
    }

    pub fn is_moderator_or_above(self) -> bool {
        self <= Role::Moderator
    }
}

/// A secret string whose `Debug` output is redacted, so it cannot reach a log by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("\"***\"")
    }
}

/// A bot's service: for an outgoing-webhook bot the URL it posts to, the request format
/// (`interface`: 1 Zulip, 2 Slack) and the token the receiver checks; for an embedded bot
/// which one it is (`service_name`) and its configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct BotService {
    pub base_url: String,
    pub interface: i64,
    pub token: String,
    pub service_name: String,
    pub config_data: std::collections::BTreeMap<String, String>,
}

/// A bot's default channels by name (`None`: none), and whether it sees every public channel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BotDefaults {
    pub sending_channel: Option<String>,
    pub events_channel: Option<String>,
    pub all_public_channels: bool,
}

/// A chat user as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct User {
    pub id: UserId,
    /// The real (delivery) email address.
    pub email: String,
    pub full_name: String,
    pub role: Role,
    pub is_active: bool,
    pub is_bot: bool,
    pub bot_type: Option<i64>,
    pub bot_owner_id: Option<UserId>,
    pub api_key: Secret,
    pub timezone: String,
    /// UNIX seconds.
    pub date_joined: i64,
    /// `G` (gravatar) or `U` (uploaded).
    pub avatar_source: String,
    pub avatar_version: i64,
    pub email_visibility: EmailVisibility,
    pub can_create_users: bool,
    pub can_change_user_emails: bool,
    pub presence_enabled: bool,
    /// One of the system bots (Zulip's cross-realm bots): not a realm member, never logs in.
    pub is_system_bot: bool,
}

/// A user's status message and emoji. All empty means "no status".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserStatus {
    pub status_text: String,
    pub emoji_name: String,
    pub emoji_code: String,
    pub reaction_type: String,
}

/// Custom profile field types (Zulip's integer encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileFieldType {
    ShortText = 1,
    LongText = 2,
    Select = 3,
    Date = 4,
    Link = 5,
    User = 6,
    ExternalAccount = 7,
    Pronouns = 8,
}

impl ProfileFieldType {
    pub fn from_code(code: i64) -> Option<ProfileFieldType> {
        Some(match code {
            1 => ProfileFieldType::ShortText,
            2 => ProfileFieldType::LongText,
            3 => ProfileFieldType::Select,
            4 => ProfileFieldType::Date,
            5 => ProfileFieldType::Link,
            6 => ProfileFieldType::User,
            7 => ProfileFieldType::ExternalAccount,
            8 => ProfileFieldType::Pronouns,
            _ => return None,
        })
    }

    /// Types whose values are rendered as Markdown (`rendered_value`).
    pub fn is_markdown(self) -> bool {
        matches!(self, ProfileFieldType::LongText)
    }
}

/// An organization-defined profile field.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileField {
    pub id: ProfileFieldId,
    pub name: String,
    pub hint: String,
    pub field_type: ProfileFieldType,
    /// JSON text for select options or external account settings; empty otherwise.
    pub field_data: String,
    pub order: i64,
    pub display_in_profile_summary: bool,
    pub required: bool,
    pub editable_by_user: bool,
}

/// A user's value for a profile field.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileValue {
    pub user_id: UserId,
    pub field_id: ProfileFieldId,
    pub value: String,
    pub rendered_value: Option<String>,
}
