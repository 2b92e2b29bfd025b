//! SQL for the weekly digest email (table `user_activity`, and reads of messages, channels and
//! subscriptions): recording a user's last activity and last digest, the users a pass
//! considers (in id order, a chunk at a time), the busiest topics of every channel since a
//! time (capped per channel), a topic's first messages since then, and the channels a user's
//! digest may draw from.
//!
//! Synchronous functions over a connection; callers run them through `Db::read` / `Db::write`.
//! Knows nothing of who gets a digest or what it says (that is
//! `domain::account_mail::digest`).

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::{ChannelId, MessageId, UserId};

/// Records that `user` was active at `at` (an older time never replaces a newer one).
pub fn record_activity(c: &Connection, user: UserId, at: i64) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO user_activity (user_id, last_active_at) VALUES (?1, ?2)
         ON CONFLICT (user_id) DO UPDATE
         SET last_active_at = max(last_active_at, excluded.last_active_at)",
    )?
    .execute(params![user.0, at])?;
    Ok(())
}

/// Records that a digest for `user` was queued at `at`.
pub fn mark_sent(c: &Connection, user: UserId, at: i64) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO user_activity (user_id, last_digest_at) VALUES (?1, ?2)
         ON CONFLICT (user_id) DO UPDATE SET last_digest_at = excluded.last_digest_at",
    )?
    .execute(params![user.0, at])?;
    Ok(())
}

/// When the user's last digest was queued (0: never).
pub fn last_sent(c: &Connection, user: UserId) -> Result<i64> {
    Ok(
        c.prepare_cached("SELECT last_digest_at FROM user_activity WHERE user_id = ?1")?
            .query_row([user.0], |r| r.get(0))
            .optional()?
            .unwrap_or(0),
    )
}

/// Up to `limit` active human users with ids above `after`, in id order, last active before
/// `inactive_before`, whose last digest is older than `sent_before`, and whose stored
/// `setting` is not `"false"` (the caller checks the setting's value again).
pub fn candidates(
    c: &Connection,
    setting: &str,
    inactive_before: i64,
    sent_before: i64,
    after: UserId,
    limit: usize,
) -> Result<Vec<UserId>> {
    let mut st = c.prepare_cached(
        "SELECT u.id FROM users u LEFT JOIN user_activity a ON a.user_id = u.id
         WHERE u.id > ?1 AND u.is_active AND NOT u.is_bot AND NOT u.is_system_bot
           AND coalesce(a.last_active_at, 0) < ?2 AND coalesce(a.last_digest_at, 0) < ?3
           AND NOT EXISTS (SELECT 1 FROM user_settings s
                           WHERE s.user_id = u.id AND s.name = ?4 AND s.value = 'false')
         ORDER BY u.id LIMIT ?5",
    )?;
    let rows = st.query_map(
        params![after.0, inactive_before, sent_before, setting, limit as i64],
        |r| Ok(UserId(r.get(0)?)),
    )?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One topic's traffic since a time, by human senders only.
#[derive(Clone, Debug, PartialEq)]
pub struct TopicTraffic {
    pub channel_id: ChannelId,
    /// The topic as its first message since the time spells it.
    pub topic: String,
    pub senders: i64,
    pub messages: i64,
    pub newest_id: i64,
    /// The channel's first message (of anyone) since the time.
    pub channel_first_id: i64,
}

/// The busiest topics of every channel that is not archived since `since`, counting human
/// messages only: per channel the top `by_senders` by distinct senders and the top
/// `by_messages` by messages (one row a topic, compared case-insensitively).
pub fn busiest_topics(
    c: &Connection,
    since: i64,
    by_senders: usize,
    by_messages: usize,
) -> Result<Vec<TopicTraffic>> {
    let mut st = c.prepare_cached(
        "WITH firsts AS (
             SELECT channel_id, min(id) AS first_id FROM messages
             WHERE channel_id IS NOT NULL AND sent_at >= ?1 GROUP BY channel_id
         ), traffic AS (
             SELECT m.channel_id AS ch, count(DISTINCT m.sender_id) AS senders,
                    count(*) AS n, max(m.id) AS newest, min(m.id) AS oldest
             FROM messages m JOIN users u ON u.id = m.sender_id
             JOIN channels c ON c.id = m.channel_id
             WHERE m.channel_id IS NOT NULL AND m.sent_at >= ?1 AND NOT u.is_bot
               AND NOT c.is_archived
             GROUP BY m.channel_id, m.topic COLLATE NOCASE
         ), ranked AS (
             SELECT ch, senders, n, newest, oldest,
                    row_number() OVER (PARTITION BY ch ORDER BY senders DESC, n DESC,
                                       newest DESC) AS by_senders,
                    row_number() OVER (PARTITION BY ch ORDER BY n DESC, senders DESC,
                                       newest DESC) AS by_count
             FROM traffic
         )
         SELECT r.ch, (SELECT topic FROM messages WHERE id = r.oldest), r.senders, r.n,
                r.newest, f.first_id
         FROM ranked r JOIN firsts f ON f.channel_id = r.ch
         WHERE r.by_senders <= ?2 OR r.by_count <= ?3
         ORDER BY r.ch, r.newest",
    )?;
    let rows = st.query_map(params![since, by_senders as i64, by_messages as i64], |r| {
        Ok(TopicTraffic {
            channel_id: ChannelId(r.get(0)?),
            topic: r.get(1)?,
            senders: r.get(2)?,
            messages: r.get(3)?,
            newest_id: r.get(4)?,
            channel_first_id: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The first `limit` human messages of a topic since `since`, oldest first.
pub fn first_messages(
    c: &Connection,
    ch: ChannelId,
    topic: &str,
    since: i64,
    limit: usize,
) -> Result<Vec<MessageId>> {
    let mut st = c.prepare_cached(
        "SELECT m.id FROM messages m JOIN users u ON u.id = m.sender_id
         WHERE m.channel_id = ?1 AND m.topic = ?2 COLLATE NOCASE AND m.sent_at >= ?3
           AND NOT u.is_bot
         ORDER BY m.id LIMIT ?4",
    )?;
    let rows = st.query_map(params![ch.0, topic, since, limit as i64], |r| {
        Ok(MessageId(r.get(0)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The user's active, unmuted subscriptions, each with the first message id of its current
/// subscription period (when the user subscribed, as a message id).
pub fn unmuted_subscriptions(c: &Connection, user: UserId) -> Result<Vec<(ChannelId, i64)>> {
    let mut st = c.prepare_cached(
        "SELECT s.channel_id,
                coalesce((SELECT max(p.first_message_id) FROM subscription_periods p
                          WHERE p.user_id = s.user_id AND p.channel_id = s.channel_id
                            AND p.last_message_id IS NULL), 0)
         FROM subscriptions s
         WHERE s.user_id = ?1 AND s.active AND NOT s.is_muted",
    )?;
    let rows = st.query_map([user.0], |r| Ok((ChannelId(r.get(0)?), r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The user's muted topics (visibility policy 1), as (channel, topic).
pub fn muted_topics(c: &Connection, user: UserId) -> Result<Vec<(ChannelId, String)>> {
    let mut st = c.prepare_cached(
        "SELECT channel_id, topic FROM user_topics
         WHERE user_id = ?1 AND visibility_policy = 1",
    )?;
    let rows = st.query_map([user.0], |r| Ok((ChannelId(r.get(0)?), r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Channels created since `since` that are not archived, as (id, name, invite-only,
/// web-public), oldest first.
pub fn channels_created_since(
    c: &Connection,
    since: i64,
) -> Result<Vec<(ChannelId, String, bool, bool)>> {
    let mut st = c.prepare_cached(
        "SELECT id, name, invite_only, is_web_public FROM channels
         WHERE date_created >= ?1 AND NOT is_archived ORDER BY date_created, id LIMIT 1000",
    )?;
    let rows = st.query_map([since], |r| {
        Ok((ChannelId(r.get(0)?), r.get(1)?, r.get(2)?, r.get(3)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
