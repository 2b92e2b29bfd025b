//! SQL for missed-message emails waiting for their batch (table `missed_message_emails`):
//! queueing a row, the time of a user's pending batch, the rows due, removing processed rows,
//! and which of a user's messages are still unread.
//!
//! Synchronous functions over a connection; callers run them through `Db::read` / `Db::write`.
//! Knows nothing of what an email says.

use rusqlite::{Connection, OptionalExtension, params};

use super::message_narrows::read_by;
use crate::error::Result;
use crate::ids::{MessageId, UserId};

/// A waiting row.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    pub id: i64,
    pub user_id: UserId,
    pub message_id: MessageId,
    pub trigger: String,
    pub mentioned_group_id: Option<i64>,
}

/// Queues a row for `user` and `message`, due at `scheduled_at` (seconds).
pub fn insert(
    c: &Connection,
    user: UserId,
    message: MessageId,
    trigger: &str,
    group: Option<i64>,
    scheduled_at: i64,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO missed_message_emails (user_id, message_id, trigger, mentioned_group_id,
                                            scheduled_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![user.0, message.0, trigger, group, scheduled_at])?;
    Ok(())
}

/// The time of the user's pending batch, if they have one.
pub fn pending_time(c: &Connection, user: UserId) -> Result<Option<i64>> {
    Ok(
        c.prepare_cached("SELECT min(scheduled_at) FROM missed_message_emails WHERE user_id = ?1")?
            .query_row([user.0], |r| r.get::<_, Option<i64>>(0))
            .optional()?
            .flatten(),
    )
}

/// Every row due at `now` (seconds), by user, then message.
pub fn due(c: &Connection, now: i64) -> Result<Vec<Pending>> {
    let mut st = c.prepare_cached(
        "SELECT id, user_id, message_id, trigger, mentioned_group_id FROM missed_message_emails
         WHERE scheduled_at <= ?1 ORDER BY user_id, message_id, id",
    )?;
    let rows = st.query_map([now], |r| {
        Ok(Pending {
            id: r.get(0)?,
            user_id: UserId(r.get(1)?),
            message_id: MessageId(r.get(2)?),
            trigger: r.get(3)?,
            mentioned_group_id: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Removes processed rows.
pub fn delete(c: &Connection, ids: &[i64]) -> Result<()> {
    let mut st = c.prepare_cached("DELETE FROM missed_message_emails WHERE id = ?1")?;
    for id in ids {
        st.execute([id])?;
    }
    Ok(())
}

/// When the next row is due (seconds), if any.
pub fn next_due(c: &Connection) -> Result<Option<i64>> {
    Ok(
        c.prepare_cached("SELECT min(scheduled_at) FROM missed_message_emails")?
            .query_row([], |r| r.get::<_, Option<i64>>(0))
            .optional()?
            .flatten(),
    )
}

/// Up to `limit` messages before `before` in the same channel and topic (case-insensitive),
/// sent at or after `since` (seconds) and received by `user`, oldest first (upstream's context
/// of a mention).
pub fn context_before(
    c: &Connection,
    user: UserId,
    channel: i64,
    topic: &str,
    before: MessageId,
    since: i64,
    limit: usize,
) -> Result<Vec<MessageId>> {
    let sql = format!(
        "SELECT m.id FROM messages m WHERE m.channel_id = ?1 AND lower(m.topic) = lower(?2)
         AND m.id < ?3 AND m.sent_at >= ?4 AND {} ORDER BY m.id DESC LIMIT ?5",
        super::message_narrows::received_by(&user.0.to_string())
    );
    let mut st = c.prepare(&sql)?;
    let mut ids: Vec<MessageId> = st
        .query_map(
            params![channel, topic, before.0, since, limit as i64],
            |r| Ok(MessageId(r.get(0)?)),
        )?
        .collect::<rusqlite::Result<_>>()?;
    ids.reverse();
    Ok(ids)
}

/// Which of `ids` the user has not read.
pub fn unread_among(c: &Connection, user: UserId, ids: &[MessageId]) -> Result<Vec<MessageId>> {
    let sql = format!(
        "SELECT 1 FROM messages m WHERE m.id = ?1 AND NOT {}",
        read_by(&user.0.to_string())
    );
    let mut st = c.prepare(&sql)?;
    let mut out = Vec::new();
    for id in ids {
        if st.exists([id.0])? {
            out.push(*id);
        }
    }
    Ok(out)
}
