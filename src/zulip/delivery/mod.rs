//! Delivery: turns committed domain events into Zulip wire events and appends them to the
//! event queues of the users who may see them, filtered by each queue's options.
//!
//! Runs as one task consuming the hub's pipeline, so queues receive events in commit order.
//! A user's (or bot's) deactivation ends that account's queues at its place in that order.
//! Each wire event is serialized once per distinct shape (for messages: per rendering variant)
//! and the same text is shared by every queue it goes to. A new message is rendered from its
//! event alone (the write job put the stored message, its recipients and their flags in it);
//! only the viewers' own records are read, since they must be current. This file dispatches; one submodule
//! per event family renders: `messages`, `channels`, `users` (people and settings) and
//! `presence` (presence and typing). Who may see what is decided in `domain`
//! (`domain::messages::audience`, `domain::channels::metadata_audience`).

mod channels;
mod folders;
mod groups;
mod messages;
mod presence;
mod scheduled;
mod users;

use std::sync::Arc;

use serde::Serialize;
use tokio::sync::mpsc;

use crate::error::Result;
use crate::events::queues::{EventJson, Queue};
use crate::events::{
    AlertWordsChanged, AttachmentChanged, ChannelArchived, ChannelCreated, ChannelFolderAdded,
    ChannelFolderUpdated, ChannelUpdated, DraftsChanged, Event, InvitesChanged, MutedUsersChanged,
    PresenceChanged, RealmEmojiChanged, RealmSettingChanged, SavedSnippetsChanged,
    ScheduledChanged, SettingChanged, Subscribed, SubscriptionPropertyChanged, Typing,
    Unsubscribed, UserCreated, UserDeactivated, UserGroupAdded, UserGroupMembers,
    UserGroupSubgroups, UserGroupUpdated, UserReactivated, UserStatusChanged, UserTopicChanged,
    UserUpdated,
};
use crate::ids::UserId;
use crate::zulip::ChatState;

/// Consumes the hub's pipeline until it is detached (the end of a graceful stop), so events
/// committed while the server drains still reach their queues; each event delivered is
/// recorded in `ChatState::delivered`.
pub async fn run(state: Arc<ChatState>, mut rx: mpsc::UnboundedReceiver<(u64, Arc<Event>)>) {
    while let Some((seq, event)) = rx.recv().await {
        if let Err(e) = deliver(&state, seq, &event).await {
            tracing::error!(error = %e, ?event, "could not deliver an event");
        }
        state.delivered.send_replace(seq);
    }
}

/// The `restart` event a queue restored after a graceful restart receives.
pub fn restart_event(server_generation: i64) -> EventJson {
    use crate::zulip::server::{FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION};
    event_json(&crate::zulip::wire::events::restart(
        ZULIP_VERSION,
        ZULIP_MERGE_BASE,
        FEATURE_LEVEL,
        server_generation,
    ))
}

/// The heartbeat event the queues' periodic pass gives a waiting poll.
pub fn heartbeat_event() -> EventJson {
    event_json(&crate::zulip::wire::events::heartbeat())
}

/// Serializes an event object (a typed wire struct or, for dynamic shapes, a `Value`) without
/// its closing brace (the queue appends the id).
pub fn event_json<T: Serialize + ?Sized>(v: &T) -> EventJson {
    let s = serde_json::to_string(v).expect("events serialize");
    debug_assert!(s.ends_with('}'), "an event is a JSON object");
    Arc::from(&s[..s.len() - 1])
}

/// Every queue of `users` (of everyone for `None`) that exists at `seq` and wants
/// `event_type`.
fn queues_wanting(
    state: &ChatState,
    seq: u64,
    users: Option<&[UserId]>,
    event_type: &str,
) -> Vec<Arc<Queue>> {
    state
        .queues
        .of_users(seq, users)
        .into_iter()
        .filter(|q| q.options.wants(event_type))
        .collect()
}

/// Pushes one shared event to every queue of `users` that wants its type.
fn push_to_users(
    state: &ChatState,
    seq: u64,
    users: Option<&[UserId]>,
    event_type: &str,
    body: &(impl Serialize + ?Sized),
) {
    let wanted = queues_wanting(state, seq, users, event_type);
    if wanted.is_empty() {
        return;
    }
    let json = event_json(body);
    for q in wanted {
        state.queues.push(&q, Arc::clone(&json));
    }
}

async fn deliver(state: &ChatState, seq: u64, event: &Event) -> Result<()> {
    // No queue, nobody to tell; queues registered later only get later events.
    if state.queues.is_empty() {
        return Ok(());
    }
    match event {
        Event::MessageSent(sent) => messages::deliver_message(state, seq, sent).await,
        Event::MessageUpdated(update) => messages::deliver_update(state, seq, update).await,
        Event::MessagesDeleted(deleted) => messages::deliver_delete(state, seq, deleted).await,
        Event::SubmessageAdded(added) => messages::submessage(state, seq, added).await,
        Event::ReactionChanged(changed) => messages::reaction(state, seq, changed).await,
        Event::FlagsChanged(changed) => messages::flags(state, seq, changed).await,
        Event::UserTopicChanged(UserTopicChanged {
            user_id,
            channel_id,
            topic,
            visibility_policy,
        }) => {
            channels::user_topic(state, seq, *user_id, *channel_id, topic, *visibility_policy);
            Ok(())
        }
        Event::Subscribed(Subscribed {
            user_id,
            channel_id,
        }) => channels::deliver_subscription(state, seq, *user_id, *channel_id, true).await,
        Event::Unsubscribed(Unsubscribed {
            user_id,
            channel_id,
        }) => channels::deliver_subscription(state, seq, *user_id, *channel_id, false).await,
        Event::SubscriptionPropertyChanged(SubscriptionPropertyChanged {
            user_id,
            channel_id,
            property,
        }) => channels::subscription_property(state, seq, *user_id, *channel_id, *property).await,
        Event::ChannelCreated(ChannelCreated { channel_id }) => {
            channels::created(state, seq, *channel_id).await
        }
        Event::ChannelArchived(ChannelArchived { channel_id }) => {
            channels::deliver_archive(state, seq, *channel_id).await
        }
        Event::ChannelUpdated(ChannelUpdated {
            channel_id,
            property,
        }) => channels::updated(state, seq, *channel_id, *property).await,
        Event::UserCreated(UserCreated { user_id }) => {
            users::lifecycle(state, seq, *user_id, true).await
        }
        Event::UserReactivated(UserReactivated { user_id }) => {
            users::lifecycle(state, seq, *user_id, false).await
        }
        Event::UserDeactivated(UserDeactivated { user_id }) => {
            // A deactivated account (a bot included) keeps no queue: nothing after this
            // reaches it, not even through a poll that was waiting.
            state.queues.end_all_of(*user_id);
            users::lifecycle(state, seq, *user_id, false).await
        }
        Event::UserUpdated(UserUpdated { user_id, change }) => {
            users::updated(state, seq, *user_id, change).await
        }
        Event::UserStatusChanged(UserStatusChanged { user_id }) => {
            users::status(state, seq, *user_id).await
        }
        Event::SettingChanged(SettingChanged {
            user_id,
            name,
            value,
        }) => users::deliver_setting(state, seq, *user_id, name, value).await,
        Event::RealmSettingChanged(RealmSettingChanged { name, value }) => {
            users::realm_setting(state, seq, name, value);
            Ok(())
        }
        Event::ProfileFieldsChanged => users::profile_fields(state, seq).await,
        Event::ScheduledChanged(ScheduledChanged {
            owner,
            id,
            kind,
            op,
        }) => scheduled::changed(state, seq, *owner, *id, *kind, *op).await,
        Event::InvitesChanged(InvitesChanged { referrer }) => {
            users::invites_changed(state, seq, *referrer).await
        }
        Event::OutgoingWebhooksQueued => Ok(()),
        Event::ChannelFolderAdded(ChannelFolderAdded { folder_id }) => {
            folders::folder(state, seq, *folder_id, None).await
        }
        Event::ChannelFolderUpdated(ChannelFolderUpdated { folder_id, change }) => {
            folders::folder(state, seq, *folder_id, Some(*change)).await
        }
        Event::UserGroupAdded(UserGroupAdded { group_id }) => {
            groups::added(state, seq, *group_id).await
        }
        Event::UserGroupUpdated(UserGroupUpdated { group_id, change }) => {
            groups::updated(state, seq, *group_id, *change).await
        }
        Event::UserGroupMembers(UserGroupMembers {
            group_id,
            user_ids,
            add,
        }) => {
            groups::members(state, seq, *group_id, user_ids, *add);
            Ok(())
        }
        Event::UserGroupSubgroups(UserGroupSubgroups {
            group_id,
            subgroup_ids,
            add,
        }) => {
            groups::subgroups(state, seq, *group_id, subgroup_ids, *add);
            Ok(())
        }
        Event::AlertWordsChanged(AlertWordsChanged { user_id, words }) => {
            users::alert_words(state, seq, *user_id, words);
            Ok(())
        }
        Event::MutedUsersChanged(MutedUsersChanged { user_id, muted }) => {
            let body = crate::zulip::wire::muted_users_event(muted);
            push_to_users(state, seq, Some(&[*user_id]), "muted_users", &body);
            Ok(())
        }
        Event::DraftsChanged(DraftsChanged { user_id, change }) => {
            let body = crate::zulip::wire::drafts_event(change);
            push_to_users(state, seq, Some(&[*user_id]), "drafts", &body);
            Ok(())
        }
        Event::AttachmentChanged(AttachmentChanged {
            user_id,
            change,
            upload_space_used,
        }) => {
            let body = crate::zulip::wire::uploads::attachment_event(change, *upload_space_used);
            push_to_users(state, seq, Some(&[*user_id]), "attachment", &body);
            Ok(())
        }
        Event::RealmEmojiChanged(RealmEmojiChanged { emoji }) => {
            let body = crate::zulip::wire::emoji::realm_emoji_event(emoji);
            push_to_users(state, seq, None, "realm_emoji", &body);
            Ok(())
        }
        Event::SavedSnippetsChanged(SavedSnippetsChanged { user_id, change }) => {
            let body = crate::zulip::wire::saved_snippets_event(change);
            push_to_users(state, seq, Some(&[*user_id]), "saved_snippets", &body);
            Ok(())
        }
        Event::PresenceChanged(PresenceChanged {
            user_id,
            active,
            timestamp,
        }) => presence::deliver_presence(state, seq, *user_id, *active, *timestamp).await,
        Event::Typing(Typing {
            sender,
            start,
            target,
        }) => presence::deliver_typing(state, seq, *sender, *start, target).await,
    }
}
