//! Domain events and the hub they are published to after commit.
//!
//! Write jobs describe what they changed as [`Event`]s (plain data, not wire JSON); the storage
//! engine hands them to [`EventHub::publish`] on the writer thread after the commit, in commit
//! order. The hub fans them out to in-process subscribers (caches today, client event queues when
//! they exist). Must not touch the database or know any wire format.

use std::sync::Arc;

use tokio::sync::broadcast;

use crate::ids::{ChannelId, MessageId, ProfileFieldId, UserId};

/// Something that changed, as recorded by a committed write.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
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
    /// The set of custom profile fields changed.
    ProfileFieldsChanged,
    ChannelCreated {
        channel_id: ChannelId,
    },
    /// A channel setting changed (`property` is its API name).
    ChannelUpdated {
        channel_id: ChannelId,
        property: &'static str,
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
        message_ids: Vec<MessageId>,
        edited_by: UserId,
    },
    MessagesDeleted {
        message_ids: Vec<MessageId>,
    },
    /// A user's message flags changed (`op` add or remove).
    FlagsChanged {
        user_id: UserId,
        flag: &'static str,
        add: bool,
        message_ids: Vec<MessageId>,
        all: bool,
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
    /// A personal subscription setting changed.
    SubscriptionPropertyChanged {
        user_id: UserId,
        channel_id: ChannelId,
        property: String,
    },
}

/// The attribute of a user that changed (Zulip's `person` forms of a `realm_user` update).
#[derive(Clone, Debug, PartialEq)]
pub enum PersonChange {
    FullName(String),
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
        )
    }
}

/// Fan-out point for committed events. Subscribers that fall behind lose the oldest events
/// (and are told so by `broadcast`'s `Lagged`), never block the writer.
pub struct EventHub {
    sender: broadcast::Sender<Arc<Event>>,
}

impl Default for EventHub {
    fn default() -> Self {
        EventHub {
            sender: broadcast::channel(4096).0,
        }
    }
}

impl EventHub {
    /// Publishes a committed batch, in order. Called only by the storage engine.
    pub fn publish(&self, events: Vec<Event>) {
        for e in events {
            // No subscribers is fine: nobody is listening yet.
            let _ = self.sender.send(Arc::new(e));
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.sender.subscribe()
    }
}
