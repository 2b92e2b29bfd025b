//! Scheduled messages and reminders as stored.

use crate::ids::{ChannelId, MessageId, ScheduledId, UserId};

/// A scheduled message (sent as its owner) or a reminder (Notification Bot writes to its owner).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduledKind {
    Message,
    Reminder,
}

impl ScheduledKind {
    pub fn code(self) -> i64 {
        match self {
            ScheduledKind::Message => 0,
            ScheduledKind::Reminder => 1,
        }
    }

    pub fn from_code(code: i64) -> ScheduledKind {
        if code == 1 {
            ScheduledKind::Reminder
        } else {
            ScheduledKind::Message
        }
    }
}

/// Where a scheduled item stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduledState {
    Pending,
    Delivered,
    /// Its time came and it could not be sent (`failed: true` on the wire).
    Failed,
}

impl ScheduledState {
    pub fn code(self) -> i64 {
        match self {
            ScheduledState::Pending => 0,
            ScheduledState::Delivered => 1,
            ScheduledState::Failed => 2,
        }
    }

    pub fn from_code(code: i64) -> ScheduledState {
        match code {
            1 => ScheduledState::Delivered,
            2 => ScheduledState::Failed,
            _ => ScheduledState::Pending,
        }
    }
}

/// One scheduled message or reminder.
#[derive(Clone, Debug, PartialEq)]
pub struct Scheduled {
    pub id: ScheduledId,
    pub kind: ScheduledKind,
    /// Who scheduled it (for a reminder, also who receives it).
    pub owner: UserId,
    /// A channel message's channel; `None` for a direct message.
    pub channel_id: Option<ChannelId>,
    pub topic: String,
    /// A direct message's recipients as the owner named them (the owner not added).
    pub recipients: Vec<UserId>,
    pub content: String,
    pub rendered_content: String,
    /// UNIX seconds.
    pub deliver_at: i64,
    pub read_by_sender: Option<bool>,
    pub client: String,
    /// A reminder's message.
    pub target_message_id: Option<MessageId>,
    pub state: ScheduledState,
    pub created: i64,
}
