//! Delivery of message events: new messages (rendered once per variant, filtered by each
//! queue's narrow), edits and moves, deletions, reactions, widgets' submessages and flags.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rusqlite::Connection;

use crate::db::{channels as channels_db, messages as messages_db, users as users_db};
use crate::db::{
    conversations as conversations_db, message_flags as flags_db, topics as topics_db,
};
use crate::domain::messages::fetch::{self, Bundle, Viewed};
use crate::domain::messages::{audience, audience_of};
use crate::error::Result;
use crate::events::queues::{EventJson, Queue, Queues};
use crate::events::{ContentEdit, MessageMove};
use crate::ids::{ChannelId, MessageId, UserId};
use crate::model::{User, flags as bits, wildcard};
use crate::zulip::ChatState;
use crate::zulip::wire::events::{self, MessageEdited, MessagePlace};
use crate::zulip::wire::{self, MessageOptions, Viewer};

use super::{event_json, push_to_users, queues_wanting};

/// A widget's submessage, to everyone who received its message.
pub(super) async fn submessage(
    state: &ChatState,
    seq: u64,
    message_id: MessageId,
    submessage_id: i64,
    sender_id: UserId,
    msg_type: &str,
    content: &str,
) -> Result<()> {
    let recipients = state.db.read(move |c| audience_of(c, message_id)).await?;
    let body = events::submessage(message_id, submessage_id, sender_id, msg_type, content);
    push_to_users(state, seq, Some(&recipients), "submessage", &body);
    Ok(())
}

/// A reaction added or removed, to everyone who received the message.
pub(super) async fn reaction(
    state: &ChatState,
    seq: u64,
    message_id: MessageId,
    user_id: UserId,
    add: bool,
    emoji: [&str; 3],
) -> Result<()> {
    let (recipients, user) = state
        .db
        .read(move |c| Ok((audience_of(c, message_id)?, users_db::get_any(c, user_id)?)))
        .await?;
    let Some(user) = user else { return Ok(()) };
    let body = events::reaction(add, &user, state.config.realm_host(), message_id, emoji);
    push_to_users(state, seq, Some(&recipients), "reaction", &body);
    Ok(())
}

/// A user's flags changed, to their own queues; unread marks carry the messages' places.
pub(super) async fn flags(
    state: &ChatState,
    seq: u64,
    user_id: UserId,
    flag: &str,
    add: bool,
    message_ids: &[MessageId],
    all: bool,
) -> Result<()> {
    let details = if !add && flag == "read" {
        let ids = message_ids.to_vec();
        Some(state.db.read(move |c| message_places(c, &ids)).await?)
    } else {
        None
    };
    let body = events::flags(add, flag, message_ids, all, details.as_deref());
    push_to_users(state, seq, Some(&[user_id]), "update_message_flags", &body);
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

/// Everything needed to render one new message for each of its recipients.
struct MessageDelivery {
    bundle: Bundle,
    /// Recipient → stored flag bits.
    recipients: Vec<(User, i64)>,
    /// Users who only see it through `all_public_streams` or a narrow (public channels).
    channel_public: bool,
    topic_participants: Vec<UserId>,
}

/// Loads a new message for delivery to those of its recipients who have event queues.
fn load_message(c: &Connection, id: MessageId, queues: &Queues) -> Result<Option<MessageDelivery>> {
    let Some(m) = messages_db::get(c, id)? else {
        return Ok(None);
    };
    let stored = flags_db::stored_for_message(c, id)?;
    // The recipients with queues, and the sender and conversation members the message
    // object names, in one read.
    let listening: Vec<UserId> = audience(c, &m)?
        .into_iter()
        .filter(|u| queues.has_user(*u))
        .collect();
    let members = match m.conversation_id {
        Some(conv) => Some((conv, conversations_db::members(c, conv)?)),
        None => None,
    };
    let mut wanted = listening.clone();
    wanted.push(m.sender_id);
    if let Some((_, members)) = &members {
        wanted.extend(members.iter().copied());
    }
    let users = users_db::get_many(c, &wanted)?;
    let mut recipients = Vec::with_capacity(listening.len());
    for u in listening {
        if let Some(user) = users.get(&u).filter(|u| u.is_active) {
            let f = stored.get(&u.0).copied().unwrap_or(0);
            recipients.push((user.clone(), f));
        }
    }
    let channel_public = match m.channel_id {
        Some(ch) => channels_db::get(c, ch)?.is_some_and(|ch| !ch.invite_only),
        None => false,
    };
    let topic_participants = match m.channel_id {
        Some(ch) if m.wildcard & wildcard::TOPIC != 0 => {
            topics_db::senders_upto(c, ch, &m.topic, m.id)?
        }
        _ => Vec::new(),
    };
    let mut bundle = Bundle::default();
    if let Some(s) = users.get(&m.sender_id) {
        bundle.users.insert(s.id, s.clone());
    }
    if let Some(ch) = m.channel_id
        && let Some(channel) = channels_db::get(c, ch)?
    {
        bundle.channel_names.insert(ch, channel.name);
    }
    if let Some((conv, members)) = members {
        for u in &members {
            if let Some(user) = users.get(u) {
                bundle.users.insert(user.id, user.clone());
            }
        }
        bundle.conversations.insert(conv, members);
    }
    let submessages = crate::db::submessages::of_messages(c, &[m.id])?;
    bundle.messages.push(Viewed {
        message: m,
        flags: Vec::new(),
        reactions: Vec::new(),
        submessages,
        edits: Vec::new(),
        match_content: None,
        match_subject: None,
    });
    Ok(Some(MessageDelivery {
        bundle,
        recipients,
        channel_public,
        topic_participants,
    }))
}

/// The rendering choices that shape a message object: `apply_markdown`, whether the sender's
/// avatar is left to the client (gravatar), `empty_topic_name`, and the viewer for direct
/// messages (0 for channel messages, which look the same to everyone).
type Variant = (bool, bool, bool, i64);

pub(super) async fn deliver_message(
    state: &ChatState,
    seq: u64,
    id: MessageId,
    local: Option<(String, String)>,
) -> Result<()> {
    let queues = Arc::clone(&state.queues);
    let Some(d) = state.db.read(move |c| load_message(c, id, &queues)).await? else {
        return Ok(());
    };
    let m = d.bundle.messages[0].message.clone();
    let host = state.config.realm_host();
    // Serialized message objects, shared by every queue with the same rendering choices.
    let mut variants: HashMap<Variant, Arc<str>> = HashMap::new();
    let mut render = |viewer: &User, q: &Queue| -> (Variant, Arc<str>) {
        let v = Viewer {
            user: viewer,
            host,
            client_gravatar: q.options.client_gravatar,
        };
        let sender_hidden_avatar = d
            .bundle
            .users
            .get(&m.sender_id)
            .is_some_and(|s| v.leaves_avatar_to_client(s));
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
            let record = wire::message_record(&v, &d.bundle.messages[0], &d.bundle, &opts);
            Arc::from(serde_json::to_string(&record).expect("messages serialize"))
        });
        (key, Arc::clone(text))
    };
    let channel_name = m
        .channel_id
        .and_then(|c| d.bundle.channel_names.get(&c))
        .map(String::as_str);
    let mut delivered: HashSet<UserId> = HashSet::new();
    // One event text per rendering variant and set of flags, shared by every recipient's
    // queues (most recipients of a channel message have the same flags), so that the events
    // a message leaves in queues cost memory per distinct text, not per recipient; only the
    // queue that sent the message (local echo) gets its own.
    let mut shared: HashMap<(Variant, String), EventJson> = HashMap::new();
    for (user, stored) in &d.recipients {
        let participant = d.topic_participants.contains(&user.id);
        let flags = fetch::flag_names(
            *stored,
            true,
            stored & bits::READ != 0,
            m.wildcard,
            participant,
        );
        let flags_json = serde_json::to_string(&flags).expect("strings serialize");
        for q in queues_wanting(state, seq, Some(&[user.id]), "message") {
            if !q.options.narrow.matches(&m, channel_name, &flags) {
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
    if d.channel_public {
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
            if !q.options.narrow.matches(&m, channel_name, &flags) {
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

/// What `deliver_update` renders: one committed edit.
pub(super) struct Update<'a> {
    pub(super) message_id: MessageId,
    pub(super) message_ids: &'a [MessageId],
    pub(super) edited_by: UserId,
    pub(super) edited_at: i64,
    pub(super) content_edit: Option<&'a ContentEdit>,
    pub(super) moved: Option<&'a MessageMove>,
}

pub(super) async fn deliver_update(state: &ChatState, seq: u64, u: Update<'_>) -> Result<()> {
    let id = u.message_id;
    let orig_channel = u.moved.map(|mv| mv.orig_channel);
    let left_channel = u
        .moved
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
        message_ids: u.message_ids,
        edited_by: u.edited_by,
        edited_at: u.edited_at,
        content_edit: u.content_edit,
        moved: u.moved,
        channel_name: channel_name.as_deref(),
    });
    push_to_users(state, seq, Some(&hearers), "update_message", &body);
    Ok(())
}

pub(super) async fn deliver_delete(
    state: &ChatState,
    seq: u64,
    ids: &[MessageId],
    channel: Option<ChannelId>,
    topic: &str,
    dm_members: &[UserId],
) -> Result<()> {
    let audience = match channel {
        Some(ch) => {
            state
                .db
                .read(move |c| channels_db::subscriber_ids(c, ch))
                .await?
        }
        None => dm_members.to_vec(),
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
