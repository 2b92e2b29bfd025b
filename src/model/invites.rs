//! Invitations as stored: email invitations and reusable invitation links.

use crate::ids::{ChannelId, GroupId, InvitationId, UserId};

use super::{Role, Secret};

/// Where an invitation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InvitationStatus {
    Open,
    /// An email invitation someone signed up with.
    Used,
    Revoked,
}

impl InvitationStatus {
    pub fn code(self) -> i64 {
        match self {
            InvitationStatus::Open => 0,
            InvitationStatus::Used => 1,
            InvitationStatus::Revoked => 2,
        }
    }

    pub fn from_code(code: i64) -> Option<InvitationStatus> {
        Some(match code {
            0 => InvitationStatus::Open,
            1 => InvitationStatus::Used,
            2 => InvitationStatus::Revoked,
            _ => return None,
        })
    }
}

/// One invitation.
#[derive(Clone, Debug, PartialEq)]
pub struct Invitation {
    pub id: InvitationId,
    /// A reusable link (no email) rather than an email invitation.
    pub multiuse: bool,
    /// The invitee's address (email invitations only).
    pub email: Option<String>,
    /// The secret in the signup link.
    pub key: Secret,
    pub referrer: UserId,
    pub invited_as: Role,
    /// UNIX seconds.
    pub created: i64,
    /// UNIX seconds; `None`: never expires.
    pub expires: Option<i64>,
    pub notify_referrer: bool,
    pub include_defaults: bool,
    /// Welcome Bot's extra message to the new user (`None`: none).
    pub welcome_text: Option<String>,
    pub channels: Vec<ChannelId>,
    pub groups: Vec<GroupId>,
    pub status: InvitationStatus,
}

impl Invitation {
    /// Open and not expired at `now`.
    pub fn usable_at(&self, now: i64) -> bool {
        self.status == InvitationStatus::Open && self.expires.is_none_or(|e| e > now)
    }
}
