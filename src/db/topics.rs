//! SQL for topics: per-user visibility policies, topic listings and the queries over one
//! topic's messages (existence, participants, its messages in order). Message storage itself is
//! `db::messages`.

use rusqlite::{Connection, OptionalExtension, params};

use super::message_narrows::access_sql;
use super::messages::{columns, from_row};
use crate::error::Result;
use crate::ids::{ChannelId, MessageId, UserId};
use crate::model::{Message, MessageAccess};

/// A user's visibility policy for a topic (0 when none is set).
pub fn visibility_policy(c: &Connection, user: UserId, ch: ChannelId, topic: &str) -> Result<i64> {
    Ok(c.prepare_cached(
        "SELECT visibility_policy FROM user_topics WHERE user_id = ?1 AND channel_id = ?2 \
             AND topic = ?3",
    )?
    .query_row(params![user.0, ch.0, topic], |r| r.get(0))
    .optional()?
    .unwrap_or(0))
}

/// Sets a policy; policy 0 (inherit) removes the row.
pub fn set_visibility_policy(
    c: &Connection,
    user: UserId,
    ch: ChannelId,
    topic: &str,
    policy: i64,
    now: i64,
) -> Result<()> {
    if policy == 0 {
        c.prepare_cached(
            "DELETE FROM user_topics WHERE user_id = ?1 AND channel_id = ?2 AND topic = ?3",
        )?
        .execute(params![user.0, ch.0, topic])?;
        return Ok(());
    }
    c.prepare_cached(
        "INSERT INTO user_topics (user_id, channel_id, topic, visibility_policy, last_updated) \
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (user_id, channel_id, topic) DO UPDATE SET \
         visibility_policy = excluded.visibility_policy, last_updated = excluded.last_updated",
    )?
    .execute(params![user.0, ch.0, topic, policy, now])?;
    Ok(())
}

/// A user's topic policies: (channel, topic, policy, last_updated).
pub fn policies_of(c: &Connection, user: UserId) -> Result<Vec<(ChannelId, String, i64, i64)>> {
    let mut st = c.prepare_cached(
        "SELECT channel_id, topic, visibility_policy, last_updated FROM user_topics \
         WHERE user_id = ?1 ORDER BY channel_id, topic",
    )?;
    let rows = st.query_map([user.0], |r| {
        Ok((ChannelId(r.get(0)?), r.get(1)?, r.get(2)?, r.get(3)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether the topic has a message older than `id`.
pub fn has_message_before(
    c: &Connection,
    ch: ChannelId,
    topic: &str,
    id: MessageId,
) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT 1 FROM messages WHERE channel_id = ?1 AND topic = ?2 COLLATE NOCASE \
             AND id < ?3 LIMIT 1",
    )?
    .query_row(params![ch.0, topic, id.0], |_| Ok(()))
    .optional()?
    .is_some())
}

/// A channel's topics as (name, newest message id), newest first, counting only messages the
/// viewer may read; each name is as in the newest message of its case-insensitive group.
pub fn list_for_channel(
    c: &Connection,
    ch: ChannelId,
    access: &MessageAccess,
) -> Result<Vec<(String, i64)>> {
    let sql = format!(
        "SELECT t.topic, t.id FROM messages t WHERE t.id IN (SELECT max(m.id) FROM \
         messages m WHERE m.channel_id = ?1 AND {access} GROUP BY m.topic COLLATE NOCASE) \
         ORDER BY t.id DESC",
        access = access_sql(access)
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map([ch.0], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether a channel has any message outside the empty topic.
pub fn channel_has_named_topic(c: &Connection, ch: ChannelId) -> Result<bool> {
    let mut st =
        c.prepare_cached("SELECT 1 FROM messages WHERE channel_id = ?1 AND topic <> '' LIMIT 1")?;
    Ok(st.query_row([ch.0], |_| Ok(())).optional()?.is_some())
}

/// Whether a topic (case-insensitive) has messages.
pub fn exists(c: &Connection, ch: ChannelId, topic: &str) -> Result<bool> {
    let mut st = c.prepare_cached(
        "SELECT 1 FROM messages WHERE channel_id = ?1 AND topic = ?2 COLLATE NOCASE LIMIT 1",
    )?;
    Ok(st
        .query_row(params![ch.0, topic], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Distinct senders in a topic up to a message id (topic wildcard participants).
pub fn has_participant(
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

/// The distinct senders in a topic up to and including message `upto`.
pub fn senders_upto(
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
pub fn participant_count(c: &Connection, ch: ChannelId, topic: &str) -> Result<i64> {
    Ok(c.prepare_cached(
        "SELECT count(DISTINCT sender_id) FROM messages WHERE channel_id = ?1 \
             AND topic = ?2 COLLATE NOCASE",
    )?
    .query_row(params![ch.0, topic], |r| r.get(0))?)
}

/// Messages of a topic (case-insensitive) from message id `from` on, in id order.
pub fn messages_from(
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
pub fn newest_ids(
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
