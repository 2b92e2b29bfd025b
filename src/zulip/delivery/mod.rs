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
use crate::events::Event;
use crate::events::queues::{EventJson, Queue};
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
        Event::UserTopicChanged(e) => {
            let policy = e.visibility_policy;
            channels::user_topic(state, seq, e.user_id, e.channel_id, &e.topic, policy);
            Ok(())
        }
        Event::Subscribed(e) => {
            channels::deliver_subscription(state, seq, e.user_id, e.channel_id, true).await
        }
        Event::Unsubscribed(e) => {
            channels::deliver_subscription(state, seq, e.user_id, e.channel_id, false).await
        }
        Event::SubscriptionPropertyChanged(e) => {
            channels::subscription_property(state, seq, e.user_id, e.channel_id, e.property).await
        }
        Event::ChannelCreated(e) => channels::created(state, seq, e.channel_id).await,
        Event::ChannelArchived(e) => channels::deliver_archive(state, seq, e.channel_id).await,
        Event::ChannelUpdated(e) => channels::updated(state, seq, e.channel_id, e.property).await,
        Event::UserCreated(e) => users::lifecycle(state, seq, e.user_id, true).await,
        Event::UserReactivated(e) => users::lifecycle(state, seq, e.user_id, false).await,
        Event::UserDeactivated(e) => {
            // A deactivated account (a bot included) keeps no queue: nothing after this
            // reaches it, not even through a poll that was waiting.
            state.queues.end_all_of(e.user_id);
            users::lifecycle(state, seq, e.user_id, false).await
        }
        Event::UserUpdated(e) => users::updated(state, seq, e.user_id, &e.change).await,
        Event::UserStatusChanged(e) => users::status(state, seq, e.user_id).await,
        Event::SettingChanged(e) => {
            users::deliver_setting(state, seq, e.user_id, e.name, &e.value).await
        }
        Event::RealmSettingChanged(e) => {
            users::realm_setting(state, seq, e.name, &e.value);
            Ok(())
        }
        Event::ProfileFieldsChanged => users::profile_fields(state, seq).await,
        Event::ScheduledChanged(e) => {
            scheduled::changed(state, seq, e.owner, e.id, e.kind, e.op).await
        }
        Event::InvitesChanged(e) => users::invites_changed(state, seq, e.referrer).await,
        Event::OutgoingWebhooksQueued
        | Event::NotificationsQueued
        | Event::MailQueued
        | Event::MissedEmailsQueued => Ok(()),
        Event::ChannelFolderAdded(e) => folders::folder(state, seq, e.folder_id, None).await,
        Event::ChannelFolderUpdated(e) => {
            folders::folder(state, seq, e.folder_id, Some(e.change)).await
        }
        Event::UserGroupAdded(e) => groups::added(state, seq, e.group_id).await,
        Event::UserGroupUpdated(e) => groups::updated(state, seq, e.group_id, e.change).await,
        Event::UserGroupMembers(e) => {
            groups::members(state, seq, e.group_id, &e.user_ids, e.add);
            Ok(())
        }
        Event::UserGroupSubgroups(e) => {
            groups::subgroups(state, seq, e.group_id, &e.subgroup_ids, e.add);
            Ok(())
        }
        Event::AlertWordsChanged(e) => {
            users::alert_words(state, seq, e.user_id, &e.words);
            Ok(())
        }
        Event::MutedUsersChanged(e) => {
            let body = crate::zulip::wire::muted_users_event(&e.muted);
            push_to_users(state, seq, Some(&[e.user_id]), "muted_users", &body);
            Ok(())
        }
        Event::DraftsChanged(e) => {
            let body = crate::zulip::wire::drafts_event(&e.change);
            push_to_users(state, seq, Some(&[e.user_id]), "drafts", &body);
            Ok(())
        }
        Event::AttachmentChanged(e) => {
            let body =
                crate::zulip::wire::uploads::attachment_event(&e.change, e.upload_space_used);
            push_to_users(state, seq, Some(&[e.user_id]), "attachment", &body);
            Ok(())
        }
        Event::RealmEmojiChanged(e) => {
            let body = crate::zulip::wire::emoji::realm_emoji_event(&e.emoji);
            push_to_users(state, seq, None, "realm_emoji", &body);
            Ok(())
        }
        Event::SavedSnippetsChanged(e) => {
            let body = crate::zulip::wire::saved_snippets_event(&e.change);
            push_to_users(state, seq, Some(&[e.user_id]), "saved_snippets", &body);
            Ok(())
        }
        Event::PresenceChanged(e) => {
            presence::deliver_presence(state, seq, e.user_id, e.active, e.timestamp).await
        }
        Event::Typing(e) => {
            presence::deliver_typing(state, seq, e.sender, e.start, &e.target).await
        }
    }
}
