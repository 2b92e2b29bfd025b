//! Sending messages (`POST /messages`): content, permissions, mentions, and the commit; who a
//! message goes to is `recipients`, the topic rules are `topics`.
//!
//! The recipient is resolved, permissions checked and the content rendered on a reader thread;
//! the writer then stores one message row plus the few per-user rows that differ from the
//! default (the sender's copy, mentions), so the rows a send writes do not grow with the number
//! of subscribers. Its event carries the stored message and its recipients with their flags,
//! read in the same write (one indexed read of the subscriber ids), so delivery renders it
//! without reading it back.

use rusqlite::Connection;

use crate::db::{WriteTx, channels as channels_db, messages as db};
use crate::db::{
    conversations as conversations_db, message_flags as flags_db, topics as topics_db,
};
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, MessageSent, SentChannel, SentMessage, UserTopicChanged};
use crate::ids::{GroupId, MessageId, UserId};
use crate::markdown::Rendered;
use crate::model::{Channel, Message, User, flags as bits, system_groups, wildcard};

use super::lookup::DbLookup;
pub use super::recipients::Recipient;
use super::recipients::{receives, resolve_channel, resolve_users};
use super::topics::{auto_follow, check_topic_policy};

pub const MAX_MESSAGE_LENGTH: usize = 10_000;
/// Channels or topics with more users than this need permission for wildcard mentions.
pub const WILDCARD_MENTION_THRESHOLD: i64 = 15;

// The topic rules live in `topics`; their old paths under `send` keep working.
pub use super::topics::{EMPTY_TOPIC_DISPLAY_NAME, MAX_TOPIC_LENGTH, normalize_topic, visibility};

/// A message to send.
#[derive(Clone, Debug)]
pub struct NewMessage {
    pub recipient: Recipient,
    pub topic: Option<String>,
    pub content: String,
    /// Name of the sending client (`Message.client`).
    pub client: String,
    pub read_by_sender: Option<bool>,
    /// `(queue_id, local_id)` for local echo.
    pub local: Option<(String, String)>,
}

/// The result of a send.
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    pub id: MessageId,
    /// Set when sending changed the sender's visibility policy for the topic.
    pub automatic_new_visibility_policy: Option<i64>,
}

/// Clients whose messages count as read by their sender unless told otherwise.
fn default_read_by_sender(client: &str) -> bool {
    let c = client.to_lowercase();
    [
        "zulipandroid",
        "zulipios",
        "zulipdesktop",
        "zulipmobile",
        "zulipelectron",
        "zulipterminal",
        "snipe",
        "website",
        "ios",
        "android",
    ]
    .contains(&c.as_str())
}

/// Normalizes content as Zulip does: trailing whitespace and leading blank lines go, long
/// messages are cut with a note.
pub fn normalize_content(raw: &str) -> Result<String> {
    let trimmed = raw.trim_end().trim_start_matches(['\n', '\r']);
    if trimmed.trim().is_empty() {
        return Err(Error::bad_request("Message must not be empty"));
    }
    if trimmed.contains('\0') {
        return Err(Error::bad_request("Message must not contain null bytes"));
    }
    if trimmed.chars().count() <= MAX_MESSAGE_LENGTH {
        return Ok(trimmed.to_string());
    }
    const NOTE: &str = "\n[message truncated]";
    let keep = MAX_MESSAGE_LENGTH - NOTE.chars().count();
    let mut out: String = trimmed.chars().take(keep).collect();
    out.push_str(NOTE);
    Ok(out)
}

/// Everything decided before the write.
struct Prepared {
    message: Message,
    /// Direct-message participants (sorted), for a direct message.
    dm_members: Option<Vec<UserId>>,
    /// Per-user rows to write: (user, flag bits).
    flag_rows: Vec<(UserId, i64)>,
    /// Whether the sender's topic visibility follows Zulip's automatic rules (people and their
    /// bots, not the system bots).
    follow: bool,
    /// The users a real (not silent, not wildcard) mention names, received or not: an
    /// outgoing-webhook bot mentioned in a channel is triggered even when not subscribed.
    mentioned: Vec<UserId>,
    /// Recipients mentioned only through groups, with the smallest such group (what their
    /// notification names).
    group_of: std::collections::HashMap<UserId, GroupId>,
}

fn may_mention_many(c: &Connection, sender: &User) -> Result<bool> {
    crate::domain::user_groups::holds(
        c,
        sender,
        &crate::model::GroupSetting::Group(system_groups::ADMINISTRATORS),
    )
}

fn prepare(
    c: &Connection,
    sender: &User,
    new: &NewMessage,
    content: String,
    realm_url: &str,
    host: &str,
) -> Result<Prepared> {
    let (channel, topic, dm_members) = match &new.recipient {
        Recipient::Users(refs) => (
            None,
            String::new(),
            Some(resolve_users(c, sender, host, refs)?),
        ),
        r => {
            let ch = resolve_channel(c, sender, r)?;
            let raw = new
                .topic
                .as_deref()
                .ok_or_else(|| Error::bad_request("Missing topic"))?;
            let topic = normalize_topic(raw)?;
            check_topic_policy(&ch, &topic)?;
            (Some(ch), topic, None)
        }
    };
    let read_by_sender = new
        .read_by_sender
        .unwrap_or_else(|| default_read_by_sender(&new.client));
    compose(
        c,
        sender,
        Composed {
            channel,
            topic,
            dm_members,
            content,
            client: new.client.clone(),
            read_by_sender,
            trusted: false,
        },
        realm_url,
    )
}

/// A message whose destination is resolved and allowed.
struct Composed {
    channel: Option<Channel>,
    topic: String,
    /// Direct-message participants (sorted), for a direct message.
    dm_members: Option<Vec<UserId>>,
    /// Normalized content.
    content: String,
    client: String,
    read_by_sender: bool,
    /// A system bot's notice: wildcard mentions need no permission.
    trusted: bool,
}

/// Sets `bit` in `user`'s row, adding the row if there is none.
fn add_bits(rows: &mut Vec<(UserId, i64)>, user: UserId, bit: i64) {
    match rows.iter_mut().find(|(u, _)| *u == user) {
        Some((_, b)) => *b |= bit,
        None => rows.push((user, bit)),
    }
}

/// Renders a message and works out its per-user rows.
fn compose(c: &Connection, sender: &User, m: Composed, realm_url: &str) -> Result<Prepared> {
    let Composed {
        channel,
        topic,
        dm_members,
        content,
        client,
        read_by_sender,
        trusted,
    } = m;
    let rendered: Rendered = crate::markdown::render_message(
        &content,
        &DbLookup {
            conn: c,
            sender,
            realm_url,
        },
    );
    let ch_id = channel.as_ref().map(|ch| ch.id);
    let mut wildcard_bits = 0;
    if let Some(ch) = &channel {
        if rendered.channel_wildcard {
            let many =
                channels_db::subscriber_ids(c, ch.id)?.len() as i64 > WILDCARD_MENTION_THRESHOLD;
            if many && !trusted && !may_mention_many(c, sender)? {
                return Err(Error::coded(
                    "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
                    "You do not have permission to use channel wildcard mentions in this channel.",
                    vec![],
                ));
            }
            wildcard_bits |= wildcard::CHANNEL;
        }
        if rendered.topic_wildcard {
            let many = topics_db::participant_count(c, ch.id, &topic)? > WILDCARD_MENTION_THRESHOLD;
            if many && !trusted && !may_mention_many(c, sender)? {
                return Err(Error::coded(
                    "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
                    "You do not have permission to use topic wildcard mentions in this topic.",
                    vec![],
                ));
            }
            wildcard_bits |= wildcard::TOPIC;
        }
    } else if rendered.channel_wildcard || rendered.topic_wildcard {
        // In a direct message every participant is already notified.
        wildcard_bits = 0;
    }
    // Per-user rows: mentions of recipients, and the sender's own copy.
    let mut rows: Vec<(UserId, i64)> = Vec::new();
    for uid in &rendered.mentioned_users {
        let u = UserId(*uid);
        if receives(c, u, ch_id, dm_members.as_deref())? {
            add_bits(&mut rows, u, bits::MENTIONED);
        }
    }
    let mut smallest: std::collections::HashMap<UserId, (usize, GroupId)> = Default::default();
    for gid in &rendered.mentioned_groups {
        let group = GroupId(*gid);
        crate::domain::user_groups::check_mention(c, sender, group, trusted)?;
        let setting = crate::model::GroupSetting::Group(group);
        let members = crate::domain::user_groups::users_holding(c, &setting)?;
        let size = members.len();
        for u in members {
            if receives(c, u, ch_id, dm_members.as_deref())? {
                add_bits(&mut rows, u, bits::MENTIONED | bits::GROUP_MENTIONED);
                let e = smallest.entry(u).or_insert((size, group));
                if (size, group.0) < (e.0, e.1.0) {
                    *e = (size, group);
                }
            }
        }
    }
    // A personal mention wins over a group's.
    let group_of = smallest
        .into_iter()
        .filter(|(u, _)| !rendered.mentioned_users.contains(&u.0))
        .map(|(u, (_, g))| (u, g))
        .collect();
    let mut sender_bits = if read_by_sender { bits::READ } else { 0 };
    if !receives(c, sender.id, ch_id, dm_members.as_deref())? {
        sender_bits |= bits::RECEIVED;
    }
    if sender_bits != 0 {
        add_bits(&mut rows, sender.id, sender_bits);
    }
    Ok(Prepared {
        message: Message {
            id: MessageId(0),
            sender_id: sender.id,
            channel_id: ch_id,
            conversation_id: None,
            topic,
            content,
            rendered_content: rendered.html,
            client,
            sent_at: crate::time::now_secs(),
            is_me_message: rendered.is_me_message,
            wildcard: wildcard_bits,
            last_edit_at: None,
            last_moved_at: None,
        },
        dm_members,
        flag_rows: rows,
        follow: !sender.is_system_bot,
        mentioned: rendered
            .mentioned_users
            .iter()
            .map(|u| UserId(*u))
            .collect(),
        group_of,
    })
}

/// Sends a message.
pub async fn send(state: &Core, sender: &User, new: NewMessage) -> Result<Sent> {
    let content = normalize_content(&new.content)?;
    let reader = sender.clone();
    let realm_url = state.config.chat.external_url.clone();
    let host = state.config.realm_host().to_string();
    let prepared = state
        .db
        .read(move |c| {
            prepare(c, &reader, &new, content, &realm_url, &host).map(|p| (p, new.local))
        })
        .await?;
    let (prepared, local) = prepared;
    let author = sender.clone();
    state
        .db
        .write(move |tx| store(tx, prepared, local, &author))
        .await
}

/// What a message would be if sent now: checks everything a send checks and returns the
/// normalized content, its rendering and the normalized topic, storing nothing (scheduled
/// messages are checked when scheduled, as upstream does).
pub fn check(
    c: &Connection,
    sender: &User,
    new: &NewMessage,
    realm_url: &str,
    host: &str,
) -> Result<(String, String, String)> {
    let content = normalize_content(&new.content)?;
    let p = prepare(c, sender, new, content, realm_url, host)?;
    Ok((
        p.message.content,
        p.message.rendered_content,
        p.message.topic,
    ))
}

/// Sends a message inside the caller's write transaction, with every check of [`send`]; its
/// event is published with the rest of that transaction's (the scheduler sends and marks the
/// item sent in one commit).
pub fn send_in(
    tx: &mut WriteTx<'_>,
    sender: &User,
    new: NewMessage,
    realm_url: &str,
    host: &str,
) -> Result<Sent> {
    let content = normalize_content(&new.content)?;
    let prepared = prepare(tx, sender, &new, content, realm_url, host)?;
    store(tx, prepared, new.local, sender)
}

/// Writes a prepared message, its per-user rows and its widget, and emits its event.
fn store(
    tx: &mut WriteTx<'_>,
    mut prepared: Prepared,
    local: Option<(String, String)>,
    sender: &User,
) -> Result<Sent> {
    let sender_id = prepared.message.sender_id;
    if let Some(members) = &prepared.dm_members {
        prepared.message.conversation_id = Some(conversations_db::get_or_create(tx, members)?);
    }
    let channel = match prepared.message.channel_id {
        Some(ch) => match channels_db::get(tx, ch)? {
            Some(channel) if !channel.is_archived => Some(SentChannel {
                id: channel.id,
                name: channel.name,
                invite_only: channel.invite_only,
            }),
            _ => {
                return Err(Error::bad_request(
                    "The channel was archived while sending.",
                ));
            }
        },
        None => None,
    };
    let id = db::insert(tx, &prepared.message)?;
    prepared.message.id = id;
    crate::domain::uploads::link_message(tx, sender, id, &prepared.message.content)?;
    // `/poll` and `/todo` messages start their widget in the same commit, so the message
    // event already carries it.
    let widget = super::widgets::widget_for(&prepared.message.content);
    if let Some(widget) = &widget {
        crate::db::submessages::insert(tx, id, sender_id, "widget", &widget.to_string())?;
    }
    for (u, b) in &prepared.flag_rows {
        flags_db::change(tx, *u, id, *b, 0)?;
    }
    // A muted sender's message arrives read for those who muted them.
    for u in crate::domain::records::muters_reading(tx, sender_id)? {
        let ch = prepared.message.channel_id;
        if receives(tx, u, ch, prepared.dm_members.as_deref())? {
            flags_db::change(tx, u, id, bits::READ, 0)?;
        }
    }
    let mut policy = None;
    if let Some(ch) = prepared.message.channel_id
        && prepared.follow
    {
        policy = auto_follow(tx, sender_id, ch, &prepared.message.topic, id)?;
        if let Some(p) = policy {
            tx.emit(Event::UserTopicChanged(UserTopicChanged {
                user_id: sender_id,
                channel_id: ch,
                topic: prepared.message.topic.clone(),
                visibility_policy: p,
            }));
        }
    }
    // Who is notified, decided in this same commit (`domain::notifications`). Welcome Bot's
    // messages notify nobody outside the app, as upstream's (they are read in context).
    let external = !(sender.is_system_bot && sender.email == crate::domain::notices::WELCOME_BOT);
    let mentioned: Vec<UserId> = prepared
        .flag_rows
        .iter()
        .filter(|(_, b)| b & bits::MENTIONED != 0)
        .map(|(u, _)| *u)
        .collect();
    crate::domain::notifications::gather::enqueue_for_send(
        tx,
        &crate::domain::notifications::gather::SentFacts {
            message: id,
            sender: sender_id,
            channel: prepared.message.channel_id,
            topic: &prepared.message.topic,
            dm_members: prepared.dm_members.as_deref(),
            stream_wildcard: prepared.message.wildcard & wildcard::CHANNEL != 0,
            topic_wildcard: prepared.message.wildcard & wildcard::TOPIC != 0,
            mentioned,
            group_of: std::mem::take(&mut prepared.group_of),
            external,
        },
        crate::time::now_millis(),
    )?;
    let message = sent_message(tx, &prepared, channel, widget.is_some())?;
    tx.emit(Event::MessageSent(MessageSent {
        message: std::sync::Arc::new(message),
        local,
    }));
    // In the message's own commit, so a triggered delivery is never lost.
    crate::domain::outgoing_webhooks::enqueue(
        tx,
        sender,
        id,
        &prepared.mentioned,
        prepared.dm_members.as_deref(),
    )?;
    Ok(Sent {
        id,
        automatic_new_visibility_policy: policy,
    })
}

/// The new message as this write leaves it, for its event: delivery renders it from this
/// alone. Read after every row of the message is written, inside the same transaction, so the
/// recipients and their flags are those of the commit.
fn sent_message(
    tx: &WriteTx<'_>,
    prepared: &Prepared,
    channel: Option<SentChannel>,
    has_widget: bool,
) -> Result<SentMessage> {
    let m = &prepared.message;
    let mut wanted = vec![m.sender_id];
    wanted.extend(prepared.dm_members.iter().flatten().copied());
    let mut users = crate::db::users::get_many(tx, &wanted)?;
    let sender = users
        .get(&m.sender_id)
        .cloned()
        .ok_or_else(|| Error::internal("a message's sender vanished in its own write"))?;
    let dm_members = match &prepared.dm_members {
        Some(members) => members.iter().filter_map(|u| users.remove(u)).collect(),
        None => Vec::new(),
    };
    let stored = flags_db::stored_for_message(tx, m.id)?;
    let recipients = super::audience(tx, m)?
        .into_iter()
        .map(|u| (u, stored.get(&u.0).copied().unwrap_or(0)))
        .collect();
    let topic_participants = match m.channel_id {
        Some(ch) if m.wildcard & wildcard::TOPIC != 0 => {
            topics_db::senders_upto(tx, ch, &m.topic, m.id)?
        }
        _ => Vec::new(),
    };
    let submessages = if has_widget {
        crate::db::submessages::of_messages(tx, &[m.id])?
    } else {
        Vec::new()
    };
    Ok(SentMessage {
        message: m.clone(),
        sender,
        channel,
        dm_members,
        recipients,
        topic_participants,
        submessages,
    })
}

/// A message a system bot posts from inside another change's write (see `domain::notices`):
/// the destination needs no permission, and the acting user may have read it already.
pub struct Notice<'a> {
    pub sender: &'a User,
    pub destination: NoticeDestination,
    pub content: String,
    /// The user whose action caused the notice; it is read for them.
    pub read_by: Option<UserId>,
}

/// Where a notice goes.
pub enum NoticeDestination {
    Channel {
        channel: Channel,
        topic: String,
    },
    /// Direct message to these users (the sender is added).
    Direct(Vec<UserId>),
}

/// Posts a notice in the caller's write transaction; its event is published with the rest of
/// that transaction's, after commit.
pub fn post_notice(tx: &mut WriteTx<'_>, notice: Notice<'_>, realm_url: &str) -> Result<MessageId> {
    post_internal(tx, notice, "Internal", true, realm_url)
}

/// Posts an outgoing-webhook bot's answer (or failure notice) in the caller's write
/// transaction: the destination needs no permission (upstream skips the channel access check),
/// but wildcard mentions do, as for any sender. A refused answer writes nothing.
pub fn post_service_reply(
    tx: &mut WriteTx<'_>,
    notice: Notice<'_>,
    realm_url: &str,
) -> Result<MessageId> {
    post_internal(tx, notice, "OutgoingWebhookResponse", false, realm_url)
}

fn post_internal(
    tx: &mut WriteTx<'_>,
    notice: Notice<'_>,
    client: &str,
    trusted: bool,
    realm_url: &str,
) -> Result<MessageId> {
    let content = normalize_content(&notice.content)?;
    let (channel, topic, dm_members) = match notice.destination {
        NoticeDestination::Channel { channel, topic } => {
            (Some(channel), normalize_topic(&topic)?, None)
        }
        NoticeDestination::Direct(mut users) => {
            users.push(notice.sender.id);
            users.sort_unstable();
            users.dedup();
            (None, String::new(), Some(users))
        }
    };
    let mut prepared = compose(
        tx,
        notice.sender,
        Composed {
            channel,
            topic,
            dm_members,
            content,
            client: client.into(),
            read_by_sender: true,
            trusted,
        },
        realm_url,
    )?;
    if let Some(reader) = notice.read_by {
        let ch = prepared.message.channel_id;
        if receives(tx, reader, ch, prepared.dm_members.as_deref())? {
            add_bits(&mut prepared.flag_rows, reader, bits::READ);
        }
    }
    Ok(store(tx, prepared, None, notice.sender)?.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_is_trimmed_and_truncated() {
        assert_eq!(normalize_content("\n\nhi  \n").unwrap(), "hi");
        assert!(normalize_content(" \n ").is_err());
        assert!(normalize_content("a\0b").is_err());
        let long = "x".repeat(MAX_MESSAGE_LENGTH + 5);
        let out = normalize_content(&long).unwrap();
        assert_eq!(out.chars().count(), MAX_MESSAGE_LENGTH);
        assert!(out.ends_with("\n[message truncated]"));
    }

    #[test]
    fn read_by_sender_follows_the_client_name() {
        assert!(default_read_by_sender("ZulipTerminal"));
        assert!(default_read_by_sender("website"));
        assert!(!default_read_by_sender("ZulipPython"));
    }
}
