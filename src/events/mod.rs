//! Domain events, the hub they are published to after commit, and client event queues.
//!
//! Write jobs describe what they changed as [`Event`]s (plain data, not wire JSON), each
//! variant carrying one payload struct: message events in [`messages`] (a sent message
//! carries the stored message and its recipients, so delivery renders it without reading it
//! back), people and their records in [`people`], channels, folders and groups in
//! [`channels`]. The storage engine hands them to [`EventHub::publish`] ([`hub`]) on the
//! writer thread after the commit, in commit order. Ephemeral events (typing, presence) are
//! published directly. The hub passes every event, in order and without loss, to the delivery
//! pipeline that fills client queues ([`queues`]), and to in-process subscribers. Must not
//! touch the database or know any wire format.

pub mod channels;
pub mod hub;
pub mod messages;
pub mod people;
pub mod queues;
pub mod snapshot;

pub use channels::*;
pub use hub::EventHub;
pub use messages::*;
pub use people::*;

/// Something that changed, as recorded by a committed write (or, for typing and presence,
/// as reported).
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    ScheduledChanged(ScheduledChanged),
    /// Outgoing-webhook deliveries were queued (the delivery worker wakes; no client sees it).
    OutgoingWebhooksQueued,
    /// Notification jobs or push removals were queued (the notification pass wakes; no
    /// client sees it).
    NotificationsQueued,
    /// A mail was queued in the outbox (the mail worker wakes; no client sees it).
    MailQueued,
    /// Missed-message email rows were queued (their worker wakes; no client sees it).
    MissedEmailsQueued,
    InvitesChanged(InvitesChanged),
    UserCreated(UserCreated),
    UserUpdated(UserUpdated),
    UserDeactivated(UserDeactivated),
    UserReactivated(UserReactivated),
    UserStatusChanged(UserStatusChanged),
    SettingChanged(SettingChanged),
    RealmSettingChanged(RealmSettingChanged),
    /// The set of custom profile fields changed.
    ProfileFieldsChanged,
    ChannelFolderAdded(ChannelFolderAdded),
    ChannelFolderUpdated(ChannelFolderUpdated),
    UserGroupAdded(UserGroupAdded),
    UserGroupUpdated(UserGroupUpdated),
    UserGroupMembers(UserGroupMembers),
    UserGroupSubgroups(UserGroupSubgroups),
    ChannelCreated(ChannelCreated),
    ChannelUpdated(ChannelUpdated),
    ChannelArchived(ChannelArchived),
    Subscribed(Subscribed),
    Unsubscribed(Unsubscribed),
    MessageSent(MessageSent),
    MessageUpdated(MessageUpdated),
    MessagesDeleted(MessagesDeleted),
    FlagsChanged(FlagsChanged),
    SubmessageAdded(SubmessageAdded),
    ReactionChanged(ReactionChanged),
    UserTopicChanged(UserTopicChanged),
    Typing(Typing),
    PresenceChanged(PresenceChanged),
    AlertWordsChanged(AlertWordsChanged),
    MutedUsersChanged(MutedUsersChanged),
    DraftsChanged(DraftsChanged),
    SavedSnippetsChanged(SavedSnippetsChanged),
    AttachmentChanged(AttachmentChanged),
    RealmEmojiChanged(RealmEmojiChanged),
    SubscriptionPropertyChanged(SubscriptionPropertyChanged),
}

impl Event {
    /// Whether this event may change which messages users received.
    pub fn touches_messages(&self) -> bool {
        matches!(
            self,
            Event::MessageSent(_) | Event::MessageUpdated(_) | Event::MessagesDeleted(_)
        )
    }

    /// Whether this event may invalidate cached user rows or credentials.
    pub fn touches_users(&self) -> bool {
        matches!(
            self,
            Event::UserCreated(_)
                | Event::UserUpdated(_)
                | Event::UserDeactivated(_)
                | Event::UserReactivated(_)
                | Event::UserStatusChanged(_)
                | Event::SettingChanged(_)
        )
    }
}
