//! Domain events, the hub they are published to after commit, and client event queues.
//!
//! Write jobs describe what they changed as [`Event`]s (plain data, not wire JSON); the storage
//! engine hands them to [`EventHub::publish`] on the writer thread after the commit, in commit
//! order. Ephemeral events (typing) are published directly. The hub passes every event, in
//! order and without loss, to the delivery pipeline that fills client queues ([`queues`]), and
//! to in-process subscribers. Must not touch the database or know any wire format.

pub mod queues;
pub mod snapshot;

use std::sync::{Arc, Mutex};

use tokio::sync::{broadcast, mpsc};

use crate::ids::{ChannelFolderId, ChannelId, GroupId, MessageId, ProfileFieldId, UserId};
use crate::model::records::{Draft, MutedUser, SavedSnippet};
use crate::model::uploads::{AttachmentView, RealmEmoji};
use crate::model::{ChannelProperty, GroupPermission, Propagate, SubscriptionProperty};

/// Something that changed, as recorded by a committed write.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// One of `owner`'s scheduled messages or reminders was created, edited (or failed), or
    /// removed (deleted or sent).
    ScheduledChanged {
        owner: UserId,
        id: crate::ids::ScheduledId,
        kind: crate::model::ScheduledKind,
        op: ScheduledOp,
    },
    /// Outgoing-webhook deliveries were queued (the delivery worker wakes; no client sees it).
    OutgoingWebhooksQueued,
    /// Invitations were created, revoked, resent or used; `referrer` made the one concerned.
    InvitesChanged {
        referrer: UserId,
    },
    /// A user was created.
    UserCreated {
        user_id: UserId,
    },
    /// One or more attributes of a user changed.
    UserUpdated {
        user_id: UserId,
        change: PersonChange,
    },
    UserDeactivated {
        user_id: UserId,
    },
    UserReactivated {
        user_id: UserId,
    },
    /// A user's status (text, emoji, away) changed.
    UserStatusChanged {
        user_id: UserId,
    },
    /// One of a user's personal settings changed (`name` is its API name).
    SettingChanged {
        user_id: UserId,
        name: &'static str,
        value: crate::model::SettingValue,
    },
    /// An organization setting changed (`name` is its API name, as in register's `realm_*`).
    RealmSettingChanged {
        name: &'static str,
        value: crate::model::RealmValue,
    },
    /// The set of custom profile fields changed.
    ProfileFieldsChanged,
    /// A channel folder was created.
    ChannelFolderAdded {
        folder_id: ChannelFolderId,
    },
    /// One attribute of a channel folder changed.
    ChannelFolderUpdated {
        folder_id: ChannelFolderId,
        change: FolderChange,
    },
    /// A named user group was created.
    UserGroupAdded {
        group_id: GroupId,
    },
    /// One attribute of a named user group changed (deactivation included).
    UserGroupUpdated {
        group_id: GroupId,
        change: GroupChange,
    },
    /// Users joined (`add`) or left a group's direct members.
    UserGroupMembers {
        group_id: GroupId,
        user_ids: Vec<UserId>,
        add: bool,
    },
    /// Groups became (`add`) or stopped being a group's direct subgroups.
    UserGroupSubgroups {
        group_id: GroupId,
        subgroup_ids: Vec<GroupId>,
        add: bool,
    },
    ChannelCreated {
        channel_id: ChannelId,
    },
    /// A channel setting changed.
    ChannelUpdated {
        channel_id: ChannelId,
        property: ChannelProperty,
    },
    ChannelArchived {
        channel_id: ChannelId,
    },
    Subscribed {
        user_id: UserId,
        channel_id: ChannelId,
    },
    Unsubscribed {
        user_id: UserId,
        channel_id: ChannelId,
    },
    /// A message was sent; `local` is the sender's `(queue_id, local_id)` for local echo.
    MessageSent {
        message_id: MessageId,
        local: Option<(String, String)>,
    },
    /// A message's content, topic or channel changed.
    MessageUpdated {
        /// The message the edit was requested on; a content change applies to it alone.
        message_id: MessageId,
        /// Every message the edit changed (all the moved ones for a move).
        message_ids: Vec<MessageId>,
        edited_by: UserId,
        edited_at: i64,
        content_edit: Option<ContentEdit>,
        /// Set when the messages moved to another topic and/or channel.
        moved: Option<MessageMove>,
    },
    /// Messages were deleted; where they were is kept because the rows are gone.
    MessagesDeleted {
        message_ids: Vec<MessageId>,
        channel_id: Option<ChannelId>,
        topic: String,
        /// Participants, for direct messages.
        dm_members: Vec<UserId>,
    },
    /// A user's message flags changed (`op` add or remove).
    FlagsChanged {
        user_id: UserId,
        flag: &'static str,
        add: bool,
        message_ids: Vec<MessageId>,
        all: bool,
    },
    /// A submessage (widget data) was attached to a message.
    SubmessageAdded {
        message_id: MessageId,
        submessage_id: i64,
        sender_id: UserId,
        msg_type: String,
        content: String,
    },
    ReactionChanged {
        message_id: MessageId,
        user_id: UserId,
        add: bool,
        emoji_name: String,
        emoji_code: String,
        reaction_type: String,
    },
    /// A user's visibility policy for a topic changed.
    UserTopicChanged {
        user_id: UserId,
        channel_id: ChannelId,
        topic: String,
        visibility_policy: i64,
    },
    /// A user started or stopped typing.
    Typing {
        sender: UserId,
        start: bool,
        target: TypingTarget,
    },
    /// A user reported presence (`active` or idle) at `timestamp`.
    PresenceChanged {
        user_id: UserId,
        active: bool,
        timestamp: i64,
    },
    AlertWordsChanged {
        user_id: UserId,
        words: Vec<String>,
    },
    /// The set of users a user muted changed; `muted` is the whole new set.
    MutedUsersChanged {
        user_id: UserId,
        muted: Vec<MutedUser>,
    },
    /// A user's drafts changed.
    DraftsChanged {
        user_id: UserId,
        change: DraftChange,
    },
    /// A user's saved snippets changed.
    SavedSnippetsChanged {
        user_id: UserId,
        change: SnippetChange,
    },
    /// One of a user's uploads was added, linked by a message, or removed; with the bytes
    /// their uploads take now.
    AttachmentChanged {
        user_id: UserId,
        change: AttachmentChange,
        upload_space_used: i64,
    },
    /// A custom emoji was added or deactivated: every emoji of the organization, for everyone.
    RealmEmojiChanged {
        emoji: Vec<RealmEmoji>,
    },
    /// A personal subscription setting changed.
    SubscriptionPropertyChanged {
        user_id: UserId,
        channel_id: ChannelId,
        property: SubscriptionProperty,
    },
}

/// How one of a user's uploads changed.
#[derive(Clone, Debug, PartialEq)]
pub enum AttachmentChange {
    Added(AttachmentView),
    Updated(AttachmentView),
    Removed(i64),
}

/// How a user's drafts changed.
#[derive(Clone, Debug, PartialEq)]
pub enum DraftChange {
    Added(Vec<Draft>),
    Updated(Draft),
    Removed(i64),
}

/// How a user's saved snippets changed.
#[derive(Clone, Debug, PartialEq)]
pub enum SnippetChange {
    Added(SavedSnippet),
    Updated(SavedSnippet),
    Removed(i64),
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

/// The attribute of a channel folder that changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FolderChange {
    Name,
    /// The description and its rendering.
    Description,
    Archived,
}

/// The attribute of a user group that changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupChange {
    Name,
    Description,
    Setting(GroupPermission),
    Deactivated,
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

impl Event {
    /// Whether this event may change which messages users received.
    pub fn touches_messages(&self) -> bool {
        matches!(
            self,
            Event::MessageSent { .. }
                | Event::MessageUpdated { .. }
                | Event::MessagesDeleted { .. }
        )
    }

    /// Whether this event may invalidate cached user rows or credentials.
    pub fn touches_users(&self) -> bool {
        matches!(
            self,
            Event::UserCreated { .. }
                | Event::UserUpdated { .. }
                | Event::UserDeactivated { .. }
                | Event::UserReactivated { .. }
                | Event::UserStatusChanged { .. }
                | Event::SettingChanged { .. }
        )
    }
}

/// The delivery pipeline's end: events numbered in publication order.
type Pipeline = mpsc::UnboundedSender<(u64, Arc<Event>)>;

/// Fan-out point for events. The delivery pipeline gets every event (unbounded, never lossy);
/// other subscribers that fall behind lose the oldest events (and are told so by `broadcast`'s
/// `Lagged`). Publishing never blocks the writer.
pub struct EventHub {
    sender: broadcast::Sender<Arc<Event>>,
    pipeline: Mutex<Option<Pipeline>>,
    /// Sequence number of the last published event.
    seq: std::sync::atomic::AtomicU64,
}

impl Default for EventHub {
    fn default() -> Self {
        EventHub {
            sender: broadcast::channel(4096).0,
            pipeline: Mutex::new(None),
            seq: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

impl EventHub {
    /// Publishes events, in order: committed batches from the storage engine, or ephemeral
    /// events (typing) from their handlers.
    pub fn publish(&self, events: Vec<Event>) {
        let Ok(pipeline) = self.pipeline.lock() else {
            return;
        };
        for e in events {
            let e = Arc::new(e);
            // Numbered under the pipeline lock, so numbers follow publication order.
            let seq = self.seq.fetch_add(1, std::sync::atomic::Ordering::AcqRel) + 1;
            if let Some(p) = pipeline.as_ref() {
                let _ = p.send((seq, Arc::clone(&e)));
            }
            // No subscribers is fine: nobody is listening yet.
            let _ = self.sender.send(e);
        }
    }

    /// The sequence number of the newest published event. A queue registered now should get
    /// only events numbered higher: the state it is sent already reflects the others.
    pub fn current_seq(&self) -> u64 {
        // Taking the lock orders this read after any publication in progress.
        let _guard = self.pipeline.lock();
        self.seq.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Connects the (single) delivery pipeline; events published from now on reach it,
    /// numbered in publication order.
    pub fn attach_pipeline(&self) -> mpsc::UnboundedReceiver<(u64, Arc<Event>)> {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Ok(mut p) = self.pipeline.lock() {
            *p = Some(tx);
        }
        rx
    }

    /// Disconnects the delivery pipeline (its task ends once it has delivered what it holds).
    pub fn detach_pipeline(&self) {
        if let Ok(mut p) = self.pipeline.lock() {
            *p = None;
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.sender.subscribe()
    }
}
