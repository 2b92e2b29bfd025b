//! SQL for messages: storage and search index, direct-message conversations, per-user flags and
//! read floors, receipt through subscription periods, reactions and edit history.
//!
//! Per-user state is sparse: a `message_flags` row exists only where a user's state differs
//! from the default, so sending to a large channel writes one message row, not one per
//! subscriber (see the comment on `message_flags` in `schema.sql`).

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::Result;
use crate::ids::{ChannelId, MessageId, UserId};
use crate::model::{Message, MessageEdit, Reaction, flags as bits};

const COLUMNS: &str = "id, sender_id, channel_id, conversation_id, topic, content, \
     rendered_content, client, sent_at, is_me_message, wildcard, last_edit_at, last_moved_at";

pub fn from_row(r: &Row<'_>) -> rusqlite::Result<Message> {
    Ok(Message {
        id: MessageId(r.get(0)?),
        sender_id: UserId(r.get(1)?),
        channel_id: r.get::<_, Option<i64>>(2)?.map(ChannelId),
        conversation_id: r.get(3)?,
        topic: r.get(4)?,
        content: r.get(5)?,
        rendered_content: r.get(6)?,
        client: r.get(7)?,
        sent_at: r.get(8)?,
        is_me_message: r.get(9)?,
        wildcard: r.get(10)?,
        last_edit_at: r.get(11)?,
        last_moved_at: r.get(12)?,
    })
}

/// The column list for `SELECT`s that feed [`from_row`], prefixed with a table alias.
pub fn columns(alias: &str) -> String {
    COLUMNS
        .split(", ")
        .map(|c| format!("{alias}.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn get(c: &Connection, id: MessageId) -> Result<Option<Message>> {
    let mut st = c.prepare_cached(&format!("SELECT {COLUMNS} FROM messages WHERE id = ?1"))?;
    Ok(st.query_row([id.0], from_row).optional()?)
}

/// Messages by id, in id order (missing ids are skipped).
pub fn get_many(c: &Connection, ids: &[MessageId]) -> Result<Vec<Message>> {
    let mut out = Vec::with_capacity(ids.len());
    let mut st = c.prepare_cached(&format!("SELECT {COLUMNS} FROM messages WHERE id = ?1"))?;
    for id in ids {
        if let Some(m) = st.query_row([id.0], from_row).optional()? {
            out.push(m);
        }
    }
    out.sort_by_key(|m| m.id);
    Ok(out)
}

/// Stores a message (its `id` is ignored) and indexes it for search; returns the new id.
pub fn insert(c: &Connection, m: &Message) -> Result<MessageId> {
    let mut st = c.prepare_cached(
        "INSERT INTO messages (sender_id, channel_id, conversation_id, topic, content, \
         rendered_content, client, sent_at, is_me_message, wildcard) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    st.execute(params![
        m.sender_id.0,
        m.channel_id.map(|c| c.0),
        m.conversation_id,
        m.topic,
        m.content,
        m.rendered_content,
        m.client,
        m.sent_at,
        m.is_me_message,
        m.wildcard,
    ])?;
    let id = c.last_insert_rowid();
    index(c, MessageId(id), &m.content, &m.topic)?;
    Ok(MessageId(id))
}

fn index(c: &Connection, id: MessageId, content: &str, topic: &str) -> Result<()> {
    c.prepare_cached("INSERT INTO messages_fts (rowid, content, topic) VALUES (?1, ?2, ?3)")?
        .execute(params![id.0, content, topic])?;
    Ok(())
}

fn unindex(c: &Connection, id: MessageId) -> Result<()> {
    c.prepare_cached("DELETE FROM messages_fts WHERE rowid = ?1")?
        .execute([id.0])?;
    Ok(())
}

/// Rewrites content, topic and channel of a message and its search entry.
pub fn update(c: &Connection, m: &Message) -> Result<()> {
    c.prepare_cached(
        "UPDATE messages SET channel_id = ?2, topic = ?3, content = ?4, rendered_content = ?5, \
         is_me_message = ?6, wildcard = ?7, last_edit_at = ?8, last_moved_at = ?9 WHERE id = ?1",
    )?
    .execute(params![
        m.id.0,
        m.channel_id.map(|c| c.0),
        m.topic,
        m.content,
        m.rendered_content,
        m.is_me_message,
        m.wildcard,
        m.last_edit_at,
        m.last_moved_at,
    ])?;
    unindex(c, m.id)?;
    index(c, m.id, &m.content, &m.topic)
}

/// Deletes a message with its flags, reactions, edits and search entry.
pub fn delete(c: &Connection, id: MessageId) -> Result<()> {
    unindex(c, id)?;
    c.prepare_cached("DELETE FROM messages WHERE id = ?1")?
        .execute([id.0])?;
    Ok(())
}

/// The newest message id, or 0.
pub fn max_id(c: &Connection) -> Result<i64> {
    Ok(
        c.query_row("SELECT coalesce(max(id), 0) FROM messages", [], |r| {
            r.get(0)
        })?,
    )
}

/// The conversation between exactly these users (sorted, deduplicated), created if new.
pub fn conversation_for(c: &Connection, members: &[UserId]) -> Result<i64> {
    let key = members
        .iter()
        .map(|u| u.0.to_string())
        .collect::<Vec<_>>()
        .join(",");
    if let Some(id) = c
        .prepare_cached("SELECT id FROM dm_conversations WHERE member_key = ?1")?
        .query_row([&key], |r| r.get(0))
        .optional()?
    {
        return Ok(id);
    }
    c.prepare_cached("INSERT INTO dm_conversations (member_key) VALUES (?1)")?
        .execute([&key])?;
    let id = c.last_insert_rowid();
    let mut st =
        c.prepare_cached("INSERT INTO dm_members (user_id, conversation_id) VALUES (?1, ?2)")?;
    for u in members {
        st.execute(params![u.0, id])?;
    }
    Ok(id)
}

/// The conversation between exactly these users, if it exists.
pub fn find_conversation(c: &Connection, members: &[UserId]) -> Result<Option<i64>> {
    let key = members
        .iter()
        .map(|u| u.0.to_string())
        .collect::<Vec<_>>()
        .join(",");
    Ok(
        c.prepare_cached("SELECT id FROM dm_conversations WHERE member_key = ?1")?
            .query_row([&key], |r| r.get(0))
            .optional()?,
    )
}

pub fn conversation_members(c: &Connection, conversation: i64) -> Result<Vec<UserId>> {
    let key: String = c
        .prepare_cached("SELECT member_key FROM dm_conversations WHERE id = ?1")?
        .query_row([conversation], |r| r.get(0))?;
    Ok(key
        .split(',')
        .filter_map(|s| s.parse().ok())
        .map(UserId)
        .collect())
}

/// Every conversation a user is part of.
pub fn conversations_of(c: &Connection, user: UserId) -> Result<Vec<i64>> {
    let mut st = c.prepare_cached("SELECT conversation_id FROM dm_members WHERE user_id = ?1")?;
    let rows = st.query_map([user.0], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Stored flag bits of a user for these messages (absent = 0).
pub fn flags_for(c: &Connection, user: UserId, ids: &[MessageId]) -> Result<HashMap<i64, i64>> {
    let mut out = HashMap::new();
    let mut st =
        c.prepare_cached("SELECT flags FROM message_flags WHERE user_id = ?1 AND message_id = ?2")?;
    for id in ids {
        if let Some(f) = st
            .query_row(params![user.0, id.0], |r| r.get::<_, i64>(0))
            .optional()?
        {
            out.insert(id.0, f);
        }
    }
    Ok(out)
}

/// Sets and clears flag bits; rows that end up 0 are removed.
pub fn change_flags(
    c: &Connection,
    user: UserId,
    id: MessageId,
    set: i64,
    clear: i64,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO message_flags (user_id, message_id, flags) VALUES (?1, ?2, ?3 & ~?4) \
         ON CONFLICT (user_id, message_id) DO UPDATE SET flags = (flags | ?3) & ~?4",
    )?
    .execute(params![user.0, id.0, set, clear])?;
    c.prepare_cached(
        "DELETE FROM message_flags WHERE user_id = ?1 AND message_id = ?2 AND flags = 0",
    )?
    .execute(params![user.0, id.0])?;
    Ok(())
}

/// A user's read floor for a scope (a channel id, or 0 for direct messages).
pub fn read_floor(c: &Connection, user: UserId, scope: i64) -> Result<i64> {
    Ok(
        c.prepare_cached("SELECT floor_id FROM read_floors WHERE user_id = ?1 AND scope = ?2")?
            .query_row(params![user.0, scope], |r| r.get(0))
            .optional()?
            .unwrap_or(0),
    )
}

/// Raises a read floor (never lowers it).
pub fn raise_read_floor(c: &Connection, user: UserId, scope: i64, floor: i64) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO read_floors (user_id, scope, floor_id) VALUES (?1, ?2, ?3) \
         ON CONFLICT (user_id, scope) DO UPDATE SET floor_id = max(floor_id, excluded.floor_id)",
    )?
    .execute(params![user.0, scope, floor])?;
    Ok(())
}

/// Removes the per-message read bits and unread overrides a new floor makes redundant.
pub fn prune_flags_below(
    c: &Connection,
    user: UserId,
    scope_messages: &str,
    floor: i64,
) -> Result<()> {
    c.execute(
        &format!(
            "UPDATE message_flags SET flags = flags & ~(1 | 1024) WHERE user_id = ?1 \
             AND message_id <= ?2 AND message_id IN ({scope_messages})"
        ),
        params![user.0, floor],
    )?;
    c.execute(
        "DELETE FROM message_flags WHERE user_id = ?1 AND flags = 0",
        [user.0],
    )?;
    Ok(())
}

pub fn reactions_for(c: &Connection, ids: &[MessageId]) -> Result<Vec<Reaction>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = ids
        .iter()
        .map(|i| i.0.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let mut st = c.prepare(&format!(
        "SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions \
         WHERE message_id IN ({list}) ORDER BY id"
    ))?;
    let rows = st.query_map([], |r| {
        Ok(Reaction {
            message_id: MessageId(r.get(0)?),
            user_id: UserId(r.get(1)?),
            emoji_name: r.get(2)?,
            emoji_code: r.get(3)?,
            reaction_type: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn add_reaction(c: &Connection, r: &Reaction) -> Result<bool> {
    let n = c
        .prepare_cached(
            "INSERT OR IGNORE INTO reactions (message_id, user_id, emoji_name, emoji_code, \
             reaction_type) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            r.message_id.0,
            r.user_id.0,
            r.emoji_name,
            r.emoji_code,
            r.reaction_type
        ])?;
    Ok(n > 0)
}

/// Removes a user's reaction; returns it if there was one.
pub fn remove_reaction(
    c: &Connection,
    message: MessageId,
    user: UserId,
    reaction_type: &str,
    emoji_code: &str,
) -> Result<Option<Reaction>> {
    let found = c
        .prepare_cached(
            "SELECT emoji_name FROM reactions WHERE message_id = ?1 AND user_id = ?2 \
             AND reaction_type = ?3 AND emoji_code = ?4",
        )?
        .query_row(params![message.0, user.0, reaction_type, emoji_code], |r| {
            r.get::<_, String>(0)
        })
        .optional()?;
    let Some(emoji_name) = found else {
        return Ok(None);
    };
    c.prepare_cached(
        "DELETE FROM reactions WHERE message_id = ?1 AND user_id = ?2 AND reaction_type = ?3 \
         AND emoji_code = ?4",
    )?
    .execute(params![message.0, user.0, reaction_type, emoji_code])?;
    Ok(Some(Reaction {
        message_id: message,
        user_id: user,
        emoji_name,
        emoji_code: emoji_code.to_string(),
        reaction_type: reaction_type.to_string(),
    }))
}

/// The name another user already reacted with for this emoji code, if any.
pub fn existing_reaction_name(
    c: &Connection,
    message: MessageId,
    reaction_type: &str,
    code: &str,
) -> Result<Option<String>> {
    Ok(c.prepare_cached(
        "SELECT emoji_name FROM reactions WHERE message_id = ?1 AND reaction_type = ?2 \
             AND emoji_code = ?3 LIMIT 1",
    )?
    .query_row(params![message.0, reaction_type, code], |r| r.get(0))
    .optional()?)
}

pub fn add_edit(c: &Connection, e: &MessageEdit) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO message_edits (message_id, user_id, edited_at, prev_content, \
         prev_rendered_content, prev_channel_id, channel_id, prev_topic, topic) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        e.message_id.0,
        e.user_id.map(|u| u.0),
        e.edited_at,
        e.prev_content,
        e.prev_rendered_content,
        e.prev_channel_id.map(|c| c.0),
        e.channel_id.map(|c| c.0),
        e.prev_topic,
        e.topic,
    ])?;
    Ok(())
}

/// Edit history of a message, oldest first.
pub fn edits_for(c: &Connection, id: MessageId) -> Result<Vec<MessageEdit>> {
    let mut st = c.prepare_cached(
        "SELECT message_id, user_id, edited_at, prev_content, prev_rendered_content, \
         prev_channel_id, channel_id, prev_topic, topic FROM message_edits \
         WHERE message_id = ?1 ORDER BY id",
    )?;
    let rows = st.query_map([id.0], |r| {
        Ok(MessageEdit {
            message_id: MessageId(r.get(0)?),
            user_id: r.get::<_, Option<i64>>(1)?.map(UserId),
            edited_at: r.get(2)?,
            prev_content: r.get(3)?,
            prev_rendered_content: r.get(4)?,
            prev_channel_id: r.get::<_, Option<i64>>(5)?.map(ChannelId),
            channel_id: r.get::<_, Option<i64>>(6)?.map(ChannelId),
            prev_topic: r.get(7)?,
            topic: r.get(8)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether a channel has any message outside the empty topic.
pub fn channel_has_named_topic(c: &Connection, ch: ChannelId) -> Result<bool> {
    let mut st =
        c.prepare_cached("SELECT 1 FROM messages WHERE channel_id = ?1 AND topic <> '' LIMIT 1")?;
    Ok(st.query_row([ch.0], |_| Ok(())).optional()?.is_some())
}

/// Whether a topic (case-insensitive) has messages.
pub fn topic_exists(c: &Connection, ch: ChannelId, topic: &str) -> Result<bool> {
    let mut st = c.prepare_cached(
        "SELECT 1 FROM messages WHERE channel_id = ?1 AND topic = ?2 COLLATE NOCASE LIMIT 1",
    )?;
    Ok(st
        .query_row(params![ch.0, topic], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Distinct senders in a topic up to a message id (topic wildcard participants).
pub fn topic_participant(
    c: &Connection,
    ch: ChannelId,
    topic: &str,
    user: UserId,
    upto: MessageId,
) -> Result<bool> {
    let mut st = c.prepare_cached(
        "SELECT 1 FROM messages WHERE channel_id = ?1 AND topic = ?2 COLLATE NOCASE \
         AND sender_id = ?3 AND id <= ?4 LIMIT 1",
    )?;
    Ok(st
        .query_row(params![ch.0, topic, user.0, upto.0], |_| Ok(()))
        .optional()?
        .is_some())
}

/// The stored flags of every user with a row for this message, by user id.
pub fn stored_flags(c: &Connection, id: MessageId) -> Result<HashMap<i64, i64>> {
    let mut st =
        c.prepare_cached("SELECT user_id, flags FROM message_flags WHERE message_id = ?1")?;
    let rows = st
        .query_map([id.0], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// The distinct senders in a topic up to and including message `upto`.
pub fn topic_senders_upto(
    c: &Connection,
    ch: ChannelId,
    topic: &str,
    upto: MessageId,
) -> Result<Vec<UserId>> {
    let mut st = c.prepare_cached(
        "SELECT DISTINCT sender_id FROM messages WHERE channel_id = ?1 AND topic = ?2 \
         COLLATE NOCASE AND id <= ?3",
    )?;
    let rows = st
        .query_map(params![ch.0, topic, upto.0], |r| Ok(UserId(r.get(0)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Number of distinct senders in a topic.
pub fn topic_participant_count(c: &Connection, ch: ChannelId, topic: &str) -> Result<i64> {
    Ok(c.prepare_cached(
        "SELECT count(DISTINCT sender_id) FROM messages WHERE channel_id = ?1 \
             AND topic = ?2 COLLATE NOCASE",
    )?
    .query_row(params![ch.0, topic], |r| r.get(0))?)
}

/// The newest message a user received, or -1.
pub fn max_received_id(c: &Connection, user: UserId) -> Result<i64> {
    let mut best: i64 = -1;
    let periods: Vec<(i64, i64, Option<i64>)> = c
        .prepare_cached(
            "SELECT channel_id, first_message_id, last_message_id FROM subscription_periods \
             WHERE user_id = ?1",
        )?
        .query_map([user.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut in_period = c.prepare_cached(
        "SELECT max(id) FROM messages WHERE channel_id = ?1 AND id >= ?2 AND id <= ?3",
    )?;
    for (ch, first, last) in periods {
        let m: Option<i64> =
            in_period.query_row(params![ch, first, last.unwrap_or(i64::MAX)], |r| r.get(0))?;
        best = best.max(m.unwrap_or(-1));
    }
    let dm: Option<i64> = c
        .prepare_cached(
            "SELECT max(m.id) FROM dm_members d JOIN messages m \
             ON m.conversation_id = d.conversation_id WHERE d.user_id = ?1",
        )?
        .query_row([user.0], |r| r.get(0))?;
    let own: Option<i64> = c
        .prepare_cached(
            "SELECT max(message_id) FROM message_flags WHERE user_id = ?1 AND flags & 512 != 0",
        )?
        .query_row([user.0], |r| r.get(0))?;
    Ok(best.max(dm.unwrap_or(-1)).max(own.unwrap_or(-1)))
}

/// Whether a subscription period of `user` to `ch` covers message `id`.
pub fn received_in_period(
    c: &Connection,
    user: UserId,
    ch: ChannelId,
    id: MessageId,
) -> Result<bool> {
    let mut st = c.prepare_cached(
        "SELECT 1 FROM subscription_periods WHERE user_id = ?1 AND channel_id = ?2 \
         AND first_message_id <= ?3 AND (last_message_id IS NULL OR last_message_id >= ?3)",
    )?;
    Ok(st
        .query_row(params![user.0, ch.0, id.0], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Every channel `user` has ever had a subscription period in.
pub fn period_channels(c: &Connection, user: UserId) -> Result<Vec<i64>> {
    let mut st =
        c.prepare("SELECT DISTINCT channel_id FROM subscription_periods WHERE user_id = ?1")?;
    let rows = st.query_map([user.0], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Raises a user's read floor for a scope (a channel id, or 0 for direct messages) to the
/// scope's newest message and drops the per-message rows this makes redundant.
pub fn read_whole_scope(c: &Connection, user: UserId, scope: i64) -> Result<()> {
    let (max, members) = if scope == 0 {
        (
            c.query_row(
                "SELECT coalesce(max(m.id), 0) FROM messages m JOIN dm_members d \
                 ON d.conversation_id = m.conversation_id WHERE d.user_id = ?1",
                [user.0],
                |r| r.get::<_, i64>(0),
            )?,
            format!(
                "SELECT m.id FROM messages m JOIN dm_members d ON d.conversation_id = \
                 m.conversation_id WHERE d.user_id = {}",
                user.0
            ),
        )
    } else {
        (
            c.query_row(
                "SELECT coalesce(max(id), 0) FROM messages WHERE channel_id = ?1",
                [scope],
                |r| r.get::<_, i64>(0),
            )?,
            format!("SELECT id FROM messages WHERE channel_id = {scope}"),
        )
    };
    if max == 0 {
        return Ok(());
    }
    raise_read_floor(c, user, scope, max)?;
    prune_flags_below(c, user, &members, max)
}

/// Marks read every message `user` received outside a subscription (their own copies).
pub fn read_own_copies(c: &Connection, user: UserId) -> Result<()> {
    c.execute(
        "UPDATE message_flags SET flags = (flags | ?2) & ~?3 WHERE user_id = ?1 \
         AND flags & ?4 != 0",
        params![user.0, bits::READ, bits::UNREAD_OVERRIDE, bits::RECEIVED],
    )?;
    Ok(())
}

/// Messages of a topic (case-insensitive) from message id `from` on, in id order.
pub fn topic_messages_from(
    c: &Connection,
    ch: ChannelId,
    topic: &str,
    from: i64,
) -> Result<Vec<Message>> {
    let mut st = c.prepare(&format!(
        "SELECT {} FROM messages m WHERE m.channel_id = ?1 AND \
         m.topic = ?2 COLLATE NOCASE AND m.id >= ?3 ORDER BY m.id",
        columns("m")
    ))?;
    let rows = st.query_map(params![ch.0, topic, from], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The ids of a topic's (case-insensitive) newest `limit` messages, newest first.
pub fn newest_topic_ids(
    c: &Connection,
    ch: ChannelId,
    topic: &str,
    limit: i64,
) -> Result<Vec<MessageId>> {
    let mut st = c.prepare_cached(
        "SELECT id FROM messages WHERE channel_id = ?1 AND topic = ?2 COLLATE NOCASE \
         ORDER BY id DESC LIMIT ?3",
    )?;
    let rows = st.query_map(params![ch.0, topic, limit], |r| Ok(MessageId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
