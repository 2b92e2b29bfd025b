//! The payloads of events about people and what they keep: accounts and their attributes,
//! statuses, settings (personal and the organization's), presence, invitations, alert words,
//! muted users, drafts, saved snippets, uploads and custom emoji.
//!
//! Plain data with newtype ids; must not touch the database or know any wire format.

use crate::ids::{ProfileFieldId, UserId};
use crate::model::records::{Draft, MutedUser, SavedSnippet};
use crate::model::uploads::{AttachmentView, RealmEmoji};
use crate::model::{RealmValue, SettingValue};

/// A user was created.
#[derive(Clone, Debug, PartialEq)]
pub struct UserCreated {
    pub user_id: UserId,
}

/// One or more attributes of a user changed.
#[derive(Clone, Debug, PartialEq)]
pub struct UserUpdated {
    pub user_id: UserId,
    pub change: PersonChange,
}

/// The attribute of a user that changed (Zulip's `person` forms of a `realm_user` update).
#[derive(Clone, Debug, PartialEq)]
pub enum PersonChange {
    FullName(String),
    /// A bot's owner changed from `previous`.
    BotOwner {
        previous: Option<UserId>,
    },
    /// A bot's service (outgoing webhook or configuration) changed.
    BotServices,
    /// One of a bot's default channels changed (`default_sending_stream`,
    /// `default_events_register_stream` or `default_all_public_streams`).
    BotDefault(&'static str),
    Role(i64),
    /// The real email changed (the API email may change with it).
    Email(String),
    ApiKey,
    Timezone(String),
    /// A custom profile field value was set (`Some`) or cleared (`None`).
    ProfileField {
        field_id: ProfileFieldId,
        value: Option<String>,
        rendered_value: Option<String>,
    },
}

/// A user (a bot included) was deactivated.
#[derive(Clone, Debug, PartialEq)]
pub struct UserDeactivated {
    pub user_id: UserId,
}

/// A deactivated user was reactivated.
#[derive(Clone, Debug, PartialEq)]
pub struct UserReactivated {
    pub user_id: UserId,
}

/// A user's status (text, emoji, away) changed.
#[derive(Clone, Debug, PartialEq)]
pub struct UserStatusChanged {
    pub user_id: UserId,
}

/// One of a user's personal settings changed (`name` is its API name).
#[derive(Clone, Debug, PartialEq)]
pub struct SettingChanged {
    pub user_id: UserId,
    pub name: &'static str,
    pub value: SettingValue,
}

/// An organization setting changed (`name` is its API name, as in register's `realm_*`).
#[derive(Clone, Debug, PartialEq)]
pub struct RealmSettingChanged {
    pub name: &'static str,
    pub value: RealmValue,
}

/// Invitations were created, revoked, resent or used; `referrer` made the one concerned.
#[derive(Clone, Debug, PartialEq)]
pub struct InvitesChanged {
    pub referrer: UserId,
}

/// A user reported presence (`active` or idle) at `timestamp`.
#[derive(Clone, Debug, PartialEq)]
pub struct PresenceChanged {
    pub user_id: UserId,
    pub active: bool,
    pub timestamp: i64,
}

/// A user's alert words, all of them.
#[derive(Clone, Debug, PartialEq)]
pub struct AlertWordsChanged {
    pub user_id: UserId,
    pub words: Vec<String>,
}

/// The set of users a user muted changed; `muted` is the whole new set.
#[derive(Clone, Debug, PartialEq)]
pub struct MutedUsersChanged {
    pub user_id: UserId,
    pub muted: Vec<MutedUser>,
}

/// A user's drafts changed.
#[derive(Clone, Debug, PartialEq)]
pub struct DraftsChanged {
    pub user_id: UserId,
    pub change: DraftChange,
}

/// How a user's drafts changed.
#[derive(Clone, Debug, PartialEq)]
pub enum DraftChange {
    Added(Vec<Draft>),
    Updated(Draft),
    Removed(i64),
}

/// A user's saved snippets changed.
#[derive(Clone, Debug, PartialEq)]
pub struct SavedSnippetsChanged {
    pub user_id: UserId,
    pub change: SnippetChange,
}

/// How a user's saved snippets changed.
#[derive(Clone, Debug, PartialEq)]
pub enum SnippetChange {
    Added(SavedSnippet),
    Updated(SavedSnippet),
    Removed(i64),
}

/// One of a user's uploads was added, linked by a message, or removed; with the bytes their
/// uploads take now.
#[derive(Clone, Debug, PartialEq)]
pub struct AttachmentChanged {
    pub user_id: UserId,
    pub change: AttachmentChange,
    pub upload_space_used: i64,
}

/// How one of a user's uploads changed.
#[derive(Clone, Debug, PartialEq)]
pub enum AttachmentChange {
    Added(AttachmentView),
    Updated(AttachmentView),
    Removed(i64),
}

/// A custom emoji was added or deactivated: every emoji of the organization, for everyone.
#[derive(Clone, Debug, PartialEq)]
pub struct RealmEmojiChanged {
    pub emoji: Vec<RealmEmoji>,
}
