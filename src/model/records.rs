//! Records a user keeps on the server for their clients: muted users, drafts, saved snippets
//! and push devices. Plain data; the rules are in `domain::records` and `domain::push`.

use crate::ids::UserId;

/// A user someone muted, and when (UNIX seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MutedUser {
    pub id: UserId,
    pub timestamp: i64,
}

/// What a draft is addressed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DraftKind {
    /// Not addressed yet (`""`).
    Unaddressed,
    /// A channel (`"stream"`).
    Channel,
    /// Direct message participants (`"private"`).
    Direct,
}

impl DraftKind {
    /// The API name (`type`), also the stored one.
    pub fn name(self) -> &'static str {
        match self {
            DraftKind::Unaddressed => "",
            DraftKind::Channel => "stream",
            DraftKind::Direct => "private",
        }
    }

    pub fn from_name(s: &str) -> Option<DraftKind> {
        match s {
            "" => Some(DraftKind::Unaddressed),
            "stream" => Some(DraftKind::Channel),
            "private" => Some(DraftKind::Direct),
            _ => None,
        }
    }
}

/// A message draft, as validated and stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draft {
    pub id: i64,
    pub kind: DraftKind,
    /// The channel id, or the other participants' user ids (sorted; the user alone for a draft
    /// to themselves); empty for an unaddressed draft.
    pub to: Vec<i64>,
    pub topic: String,
    pub content: String,
    /// Last edit, UNIX seconds.
    pub timestamp: i64,
}

/// A saved snippet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedSnippet {
    pub id: i64,
    pub title: String,
    pub content: String,
    pub date_created: i64,
}

/// A legacy push token (`apns` or `fcm`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushToken {
    pub kind: &'static str,
    pub token: String,
    pub ios_app_id: Option<String>,
}

/// An end-to-end encrypted push registration (`POST /mobile_push/register`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushRegistration {
    pub push_account_id: i64,
    pub token_kind: &'static str,
    pub push_public_key: String,
    pub bouncer_public_key: String,
    pub encrypted_push_registration: String,
}
