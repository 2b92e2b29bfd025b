//! Delivery of message events: new messages (rendered once per variant, filtered by each
//! queue's narrow), edits and moves, deletions, reactions, widgets' submessages and flags.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rusqlite::Connection;

use crate::db::conversations as conversations_db;
use crate::db::{channels as channels_db, messages as messages_db, users as users_db};
use crate::domain::messages::fetch::{self, Bundle, Viewed};
use crate::domain::messages::{audience, audience_of};
use crate::error::Result;
use crate::events::queues::{EventJson, Queue};
use crate::events::{
    FlagsChanged, MessageSent, MessageUpdated, MessagesDeleted, ReactionChanged, SentMessage,
    SubmessageAdded,
};
use crate::ids::MessageId;
use crate::ids::UserId;
use crate::model::{User, flags as bits};
use crate::zulip::ChatState;
use crate::zulip::wire::events::{self, MessageEdited, MessagePlace};
use crate::zulip::wire::{self, MessageOptions, Viewer};

use super::{event_json, push_to_users, queues_wanting};

/// A widget's submessage, to everyone who received its message.
pub(super) async fn submessage(state: &ChatState, seq: u64, e: &SubmessageAdded) -> Result<()> {
    let message_id = e.message_id;
    let recipients = state.db.read(move |c| audience_of(c, message_id)).await?;
    let body = events::submessage(
        message_id,
        e.submessage_id,
        e.sender_id,
        &e.msg_type,
        &e.content,
    );
    push_to_users(state, seq, Some(&recipients), "submessage", &body);
    Ok(())
}

/// A reaction added or removed, to everyone who received the message.
pub(super) async fn reaction(state: &ChatState, seq: u64, e: &ReactionChanged) -> Result<()> {
    let (message_id, user_id) = (e.message_id, e.user_id);
    let (recipients, user) = state
        .db
        .read(move |c| Ok((audience_of(c, message_id)?, users_db::get_any(c, user_id)?)))
        .await?;
    let Some(user) = user else { return Ok(()) };
    let emoji = [
        e.emoji_name.as_str(),
        e.emoji_code.as_str(),
        e.reaction_type.as_str(),
    ];
    let body = events::reaction(e.add, &user, state.config.realm_host(), message_id, emoji);
    push_to_users(state, seq, Some(&recipients), "reaction", &body);
    Ok(())
}

/// A user's flags changed, to their own queues; unread marks carry the messages' places.
pub(super) async fn flags(state: &ChatState, seq: u64, e: &FlagsChanged) -> Result<()> {
    let details = if !e.add && e.flag == "read" {
        let ids = e.message_ids.clone();
        Some(state.db.read(move |c| message_places(c, &ids)).await?)
    } else {
        None
    };
    let body = events::flags(e.add, e.flag, &e.message_ids, e.all, details.as_deref());
    push_to_users(
        state,
        seq,
        Some(&[e.user_id]),
        "update_message_flags",
        &body,
    );
    Ok(())
}

/// Where each of these messages is.
fn message_places(c: &Connection, ids: &[MessageId]) -> Result<Vec<(MessageId, MessagePlace)>> {
    let mut out = Vec::with_capacity(ids.len());
    for m in messages_db::get_many(c, ids)? {
        let place = match (m.channel_id, m.conversation_id) {
            (Some(ch), _) => MessagePlace::Channel(ch, m.topic),
            (None, Some(conv)) => MessagePlace::Direct(conversations_db::members(c, conv)?),
            _ => continue,
        };
        out.push((m.id, place));
    }
    Ok(out)
}

/// The message objects' context for a new message: its sender, channel name and
/// conversation, all from the event (never read back).
fn bundle_of(sent: &SentMessage) -> Bundle {
    let m = &sent.message;
    let mut bundle = Bundle::default();
    bundle.users.insert(sent.sender.id, sent.sender.clone());
    if let Some(ch) = &sent.channel {
        bundle.channel_names.insert(ch.id, ch.name.clone());
    }
    if let Some(conv) = m.conversation_id {
        for u in &sent.dm_members {
            bundle.users.insert(u.id, u.clone());
        }
        let members = sent.dm_members.iter().map(|u| u.id).collect();
        bundle.conversations.insert(conv, members);
    }
    bundle.messages.push(Viewed {
        message: m.clone(),
        flags: Vec::new(),
        reactions: Vec::new(),
        submessages: sent.submessages.clone(),
        edits: Vec::new(),
        match_content: None,
        match_subject: None,
    });
    bundle
}

/// The rendering choices that shape a message object: `apply_markdown`, whether the sender's
/// avatar is left to the client (gravatar), `empty_topic_name`, and the viewer for direct
/// messages (0 for channel messages, which look the same to everyone).
type Variant = (bool, bool, bool, i64);

pub(super) async fn deliver_message(state: &ChatState, seq: u64, e: &MessageSent) -> Result<()> {
    let sent = Arc::clone(&e.message);
    let local = &e.local;
    let m = &sent.message;
    let bundle = bundle_of(&sent);
    // The recipients with event queues. Only their records are read here, not the message's:
    // a viewer's record must be current when their event is rendered (a deactivated account
    // gets nothing; the role and settings shape what they see).
    let listening: Vec<UserId> = sent
        .recipients
        .iter()
        .map(|(u, _)| *u)
        .filter(|u| state.queues.has_user(*u))
        .collect();
    let viewers = if listening.is_empty() {
        Default::default()
    } else {
        state
            .db
            .read(move |c| users_db::get_many(c, &listening))
            .await?
    };
    let recipients: Vec<(&User, i64)> = sent
        .recipients
        .iter()
        .filter_map(|(u, f)| viewers.get(u).filter(|u| u.is_active).map(|u| (u, *f)))
        .collect();
    let host = state.config.realm_host();
    // Serialized message objects, shared by every queue with the same rendering choices.
    let mut variants: HashMap<Variant, Arc<str>> = HashMap::new();
    let mut render = |viewer: &User, q: &Queue| -> (Variant, Arc<str>) {
        let v = Viewer {
            user: viewer,
            host,
            client_gravatar: q.options.client_gravatar,
        };
        let sender_hidden_avatar = v.leaves_avatar_to_client(&sent.sender);
        // Direct messages carry a per-viewer recipient id.
        let per_viewer = if m.conversation_id.is_some() {
            viewer.id.0
        } else {
            0
        };
        let key = (
            q.options.apply_markdown,
            sender_hidden_avatar,
            q.options.empty_topic_name,
            per_viewer,
        );
        let text = variants.entry(key).or_insert_with(|| {
            let opts = MessageOptions {
                apply_markdown: q.options.apply_markdown,
                client_gravatar: q.options.client_gravatar,
                allow_empty_topic_name: q.options.empty_topic_name,
                with_flags: false,
            };
            let record = wire::message_record(&v, &bundle.messages[0], &bundle, &opts);
            Arc::from(serde_json::to_string(&record).expect("messages serialize"))
        });
        (key, Arc::clone(text))
    };
    let channel_name = sent.channel.as_ref().map(|c| c.name.as_str());
    let mut delivered: HashSet<UserId> = HashSet::new();
    // One event text per rendering variant and set of flags, shared by every recipient's
    // queues (most recipients of a channel message have the same flags), so that the events
    // a message leaves in queues cost memory per distinct text, not per recipient; only the
    // queue that sent the message (local echo) gets its own.
    let mut shared: HashMap<(Variant, String), EventJson> = HashMap::new();
    for (user, stored) in &recipients {
        let participant = sent.topic_participants.contains(&user.id);
        let flags = fetch::flag_names(
            *stored,
            true,
            stored & bits::READ != 0,
            m.wildcard,
            participant,
        );
        let flags_json = serde_json::to_string(&flags).expect("strings serialize");
        for q in queues_wanting(state, seq, Some(&[user.id]), "message") {
            if !q.options.narrow.matches(m, channel_name, &flags) {
                continue;
            }
            let (key, message) = render(user, &q);
            let local_echo = local
                .as_ref()
                .filter(|(queue_id, _)| *queue_id == q.id && user.id == m.sender_id);
            let text: EventJson = match local_echo {
                Some((_, local_id)) => Arc::from(format!(
                    "{{\"type\":\"message\",\"flags\":{flags_json},\"message\":{message},\"local_message_id\":{}",
                    serde_json::to_string(local_id).expect("strings serialize")
                )),
                None => Arc::clone(shared.entry((key, flags_json.clone())).or_insert_with(|| {
                    Arc::from(format!(
                        "{{\"type\":\"message\",\"flags\":{flags_json},\"message\":{message}"
                    ))
                })),
            };
            state.queues.push(&q, text);
        }
        delivered.insert(user.id);
    }
    // Queues that follow all public channels (or have a narrow) also see public messages.
    if sent.channel.as_ref().is_some_and(|ch| !ch.invite_only) {
        let flags = vec!["read", "historical"];
        let followers: Vec<Arc<Queue>> = queues_wanting(state, seq, None, "message")
            .into_iter()
            .filter(|q| {
                !delivered.contains(&q.user_id)
                    && (q.options.all_public_streams || !q.options.narrow.is_empty())
            })
            .collect();
        if followers.is_empty() {
            return Ok(());
        }
        // Their owners, in one read.
        let owners: Vec<UserId> = followers.iter().map(|q| q.user_id).collect();
        let viewers = state
            .db
            .read(move |c| users_db::get_many(c, &owners))
            .await?;
        for q in followers {
            let Some(viewer) = viewers
                .get(&q.user_id)
                .filter(|u| u.role != crate::model::Role::Guest)
            else {
                continue;
            };
            if !q.options.narrow.matches(m, channel_name, &flags) {
                continue;
            }
            let (_, message) = render(viewer, &q);
            let text = format!(
                "{{\"type\":\"message\",\"flags\":[\"read\",\"historical\"],\"message\":{message}"
            );
            state.queues.push(&q, Arc::from(text));
        }
    }
    Ok(())
}

/// One committed edit, to those who received the messages (and, for a move out of a
/// channel, that channel's subscribers). The message is read as it is now, so an edit the
/// event does not carry (a later one) is never undone on clients.
pub(super) async fn deliver_update(state: &ChatState, seq: u64, u: &MessageUpdated) -> Result<()> {
    let id = u.message_id;
    let orig_channel = u.moved.as_ref().map(|mv| mv.orig_channel);
    let left_channel = u
        .moved
        .as_ref()
        .and_then(|mv| mv.new_channel.map(|_| mv.orig_channel));
    let loaded = state
        .db
        .read(move |c| {
            let Some(m) = messages_db::get(c, id)? else {
                return Ok(None);
            };
            // Upstream names the channel the messages were in before the edit.
            let channel_name = match orig_channel.or(m.channel_id) {
                Some(ch) => channels_db::get(c, ch)?.map(|c| c.name),
                None => None,
            };
            let mut hearers = audience(c, &m)?;
            // Subscribers of the channel the messages left hear of the move too.
            if let Some(prev) = left_channel {
                for u in channels_db::subscriber_ids(c, prev)? {
                    if !hearers.contains(&u) {
                        hearers.push(u);
                    }
                }
            }
            Ok(Some((m, channel_name, hearers)))
        })
        .await?;
    let Some((m, channel_name, hearers)) = loaded else {
        return Ok(());
    };
    let body = events::update_message(&MessageEdited {
        m: &m,
        message_ids: &u.message_ids,
        edited_by: u.edited_by,
        edited_at: u.edited_at,
        content_edit: u.content_edit.as_ref(),
        moved: u.moved.as_ref(),
        channel_name: channel_name.as_deref(),
    });
    push_to_users(state, seq, Some(&hearers), "update_message", &body);
    Ok(())
}

/// Deleted messages, to the channel's subscribers or the conversation's members.
pub(super) async fn deliver_delete(state: &ChatState, seq: u64, d: &MessagesDeleted) -> Result<()> {
    let (ids, channel, topic) = (&d.message_ids, d.channel_id, d.topic.as_str());
    let audience = match channel {
        Some(ch) => {
            state
                .db
                .read(move |c| channels_db::subscriber_ids(c, ch))
                .await?
        }
        None => d.dm_members.clone(),
    };
    let (bulk, singles) = events::delete_messages(ids, channel.map(|ch| (ch, topic)));
    let bulk = event_json(&bulk);
    let singles: Vec<EventJson> = singles.iter().map(event_json).collect();
    for q in queues_wanting(state, seq, Some(&audience), "delete_message") {
        if q.options.bulk_message_deletion {
            state.queues.push(&q, Arc::clone(&bulk));
        } else {
            for s in &singles {
                state.queues.push(&q, Arc::clone(s));
            }
        }
    }
    Ok(())
}
