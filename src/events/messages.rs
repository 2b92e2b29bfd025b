//! The payloads of message events: a sent message (carrying everything delivery renders, so
//! delivery reads nothing of the message itself), edits and moves, deletions, flags,
//! reactions, widgets' submessages, topic visibility, typing and scheduled messages.
//!
//! Plain data with newtype ids; must not touch the database or know any wire format.

use std::sync::Arc;

use crate::ids::{ChannelId, MessageId, ScheduledId, UserId};
use crate::model::{Message, Propagate, ScheduledKind, Submessage, User};

/// A message was sent: the stored message as its write job committed it, shared by every
/// holder of the event, and the sender's `(queue_id, local_id)` for local echo.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageSent {
    pub message: Arc<SentMessage>,
    pub local: Option<(String, String)>,
}

/// A new message as its commit left it: the row, the records its message object names, who
/// received it with their stored flags, and what decides its flags and narrows.
#[derive(Clone, PartialEq)]
pub struct SentMessage {
    /// The stored row (id and conversation set).
    pub message: Message,
    /// The sender's record at the commit (system bots included).
    pub sender: User,
    /// The channel of a channel message.
    pub channel: Option<SentChannel>,
    /// The participants of a direct message (the sender included), with their records; empty
    /// for channel messages.
    pub dm_members: Vec<User>,
    /// Everyone who received it (the channel's subscribers or the conversation's members,
    /// and the sender), each with the flag bits stored for them (0 for none).
    pub recipients: Vec<(UserId, i64)>,
    /// The topic's senders up to this message, for a topic wildcard mention (else empty).
    pub topic_participants: Vec<UserId>,
    /// Widget data started in the same commit (`/poll`, `/todo`).
    pub submessages: Vec<Submessage>,
}

/// The channel a message was sent to, as it was at the commit.
#[derive(Clone, Debug, PartialEq)]
pub struct SentChannel {
    pub id: ChannelId,
    pub name: String,
    pub invite_only: bool,
}

// Compact: the event is logged when its delivery fails, and the content is the user's.
impl std::fmt::Debug for SentMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentMessage")
            .field("id", &self.message.id)
            .field("sender", &self.message.sender_id)
            .field("channel", &self.message.channel_id)
            .field("conversation", &self.message.conversation_id)
            .field("recipients", &self.recipients.len())
            .finish_non_exhaustive()
    }
}

/// A message's content, topic or channel changed.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageUpdated {
    /// The message the edit was requested on; a content change applies to it alone.
    pub message_id: MessageId,
    /// Every message the edit changed (all the moved ones for a move).
    pub message_ids: Vec<MessageId>,
    pub edited_by: UserId,
    pub edited_at: i64,
    pub content_edit: Option<ContentEdit>,
    /// Set when the messages moved to another topic and/or channel.
    pub moved: Option<MessageMove>,
}

/// The content a message had before an edit changed it.
#[derive(Clone, Debug, PartialEq)]
pub struct ContentEdit {
    pub orig_content: String,
    pub orig_rendered_content: String,
}

/// Where moved messages were and where they went.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageMove {
    pub orig_channel: ChannelId,
    pub orig_topic: String,
    /// The target channel, when the channel changed.
    pub new_channel: Option<ChannelId>,
    /// The target topic, when the topic changed.
    pub new_topic: Option<String>,
    /// Which messages of the topic the editor asked to move.
    pub propagate: Propagate,
}

/// Messages were deleted; where they were is kept because the rows are gone.
#[derive(Clone, Debug, PartialEq)]
pub struct MessagesDeleted {
    pub message_ids: Vec<MessageId>,
    pub channel_id: Option<ChannelId>,
    pub topic: String,
    /// Participants, for direct messages.
    pub dm_members: Vec<UserId>,
}

/// A user's message flags changed (`add` or remove).
#[derive(Clone, Debug, PartialEq)]
pub struct FlagsChanged {
    pub user_id: UserId,
    pub flag: &'static str,
    pub add: bool,
    pub message_ids: Vec<MessageId>,
    pub all: bool,
}

/// A submessage (widget data) was attached to a message.
#[derive(Clone, Debug, PartialEq)]
pub struct SubmessageAdded {
    pub message_id: MessageId,
    pub submessage_id: i64,
    pub sender_id: UserId,
    pub msg_type: String,
    pub content: String,
}

/// A reaction was added (`add`) or removed.
#[derive(Clone, Debug, PartialEq)]
pub struct ReactionChanged {
    pub message_id: MessageId,
    pub user_id: UserId,
    pub add: bool,
    pub emoji_name: String,
    pub emoji_code: String,
    pub reaction_type: String,
}

/// A user's visibility policy for a topic changed.
#[derive(Clone, Debug, PartialEq)]
pub struct UserTopicChanged {
    pub user_id: UserId,
    pub channel_id: ChannelId,
    pub topic: String,
    pub visibility_policy: i64,
}

/// A user started or stopped typing.
#[derive(Clone, Debug, PartialEq)]
pub struct Typing {
    pub sender: UserId,
    pub start: bool,
    pub target: TypingTarget,
}

/// Where someone is typing.
#[derive(Clone, Debug, PartialEq)]
pub enum TypingTarget {
    /// A direct-message conversation with these users (the typist included).
    Direct(Vec<UserId>),
    Channel {
        channel_id: ChannelId,
        topic: String,
    },
}

/// One of `owner`'s scheduled messages or reminders was created, edited (or failed), or
/// removed (deleted or sent).
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduledChanged {
    pub owner: UserId,
    pub id: ScheduledId,
    pub kind: ScheduledKind,
    pub op: ScheduledOp,
}

/// What happened to a scheduled message or reminder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduledOp {
    Added,
    /// Edited, or its delivery failed.
    Updated,
    /// Deleted, or delivered.
    Removed,
}
