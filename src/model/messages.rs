//! Message, reaction and edit records, and the per-user message flag bits.

use crate::ids::{ChannelId, ConversationId, MessageId, UserId};

/// Per-user message state bits as stored in `message_flags.flags`.
pub mod flags {
    pub const READ: i64 = 1;
    pub const STARRED: i64 = 2;
    pub const COLLAPSED: i64 = 4;
    pub const MENTIONED: i64 = 8;
    pub const GROUP_MENTIONED: i64 = 64;
    pub const HAS_ALERT_WORD: i64 = 128;
    /// The user received the message although no subscription covers it (the sender's copy).
    pub const RECEIVED: i64 = 512;
    /// Explicitly marked unread although it is below the user's read floor.
    pub const UNREAD_OVERRIDE: i64 = 1024;
}

/// `messages.wildcard` bits.
pub mod wildcard {
    pub const CHANNEL: i64 = 1;
    pub const TOPIC: i64 = 2;
}

/// Which messages of a topic a move takes along (`propagate_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Propagate {
    /// Only the message the move was requested on.
    One,
    /// That message and the later ones in its topic.
    Later,
    /// Every message in its topic.
    All,
}

impl Propagate {
    /// Zulip's name for the choice.
    pub fn name(self) -> &'static str {
        match self {
            Propagate::One => "change_one",
            Propagate::Later => "change_later",
            Propagate::All => "change_all",
        }
    }
}

/// A message as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub id: MessageId,
    pub sender_id: UserId,
    pub channel_id: Option<ChannelId>,
    pub conversation_id: Option<ConversationId>,
    /// Empty for direct messages.
    pub topic: String,
    pub content: String,
    pub rendered_content: String,
    pub client: String,
    pub sent_at: i64,
    pub is_me_message: bool,
    /// [`wildcard`] bits.
    pub wildcard: i64,
    pub last_edit_at: Option<i64>,
    pub last_moved_at: Option<i64>,
}

/// One user's emoji reaction to a message.
#[derive(Clone, Debug, PartialEq)]
pub struct Reaction {
    pub message_id: MessageId,
    pub user_id: UserId,
    pub emoji_name: String,
    pub emoji_code: String,
    pub reaction_type: String,
}

/// Data a reader attached to a message (widget state: a poll, a to-do list, votes, tasks).
#[derive(Clone, Debug, PartialEq)]
pub struct Submessage {
    pub id: i64,
    pub message_id: MessageId,
    pub sender_id: UserId,
    pub msg_type: String,
    /// JSON text, as the client sent it.
    pub content: String,
}

/// One entry of a message's edit history (content edits, topic and channel moves).
#[derive(Clone, Debug, PartialEq)]
pub struct MessageEdit {
    pub message_id: MessageId,
    pub user_id: Option<UserId>,
    pub edited_at: i64,
    pub prev_content: Option<String>,
    pub prev_rendered_content: Option<String>,
    pub prev_channel_id: Option<ChannelId>,
    pub channel_id: Option<ChannelId>,
    pub prev_topic: Option<String>,
    pub topic: Option<String>,
}
