//! SQL for notifications: the candidates of a message's notification decision (topic
//! followers, users with channel notifications on), the notification jobs, the pushes a
//! device shows (`push_active`) and the remove notifications to send. Knows no rules: the
//! decision is `domain::notifications`; values are opaque here.

use rusqlite::{Connection, OptionalExtension, params};

use super::message_narrows::read_by;
use crate::error::Result;
use crate::ids::{ChannelId, MessageId, UserId};

/// Users who follow this topic (visibility policy 3).
pub fn topic_followers(c: &Connection, ch: ChannelId, topic: &str) -> Result<Vec<UserId>> {
    let mut st = c.prepare_cached(
        "SELECT user_id FROM user_topics WHERE channel_id = ?1 AND topic = ?2 \
         AND visibility_policy = 3",
    )?;
    let rows = st.query_map(params![ch.0, topic], |r| Ok(UserId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Active subscribers of a channel who may want channel notifications: the subscription says
/// push or email on, or says nothing and the user turned `push_setting` or `email_setting` on
/// (stored as `on`). Both halves read indexes that hold only such rows
/// (`subscriptions_notify`, `user_settings_by_name`, named so the planner cannot walk the
/// channel's subscriptions instead), so a large channel costs nothing here.
pub fn channel_notify_candidates(
    c: &Connection,
    ch: ChannelId,
    push_setting: &str,
    email_setting: &str,
    on: &str,
) -> Result<Vec<UserId>> {
    let mut st = c.prepare_cached(
        "SELECT user_id FROM subscriptions INDEXED BY subscriptions_notify \
         WHERE channel_id = ?1 AND active = 1 \
         AND (push_notifications = 1 OR email_notifications = 1) \
         UNION SELECT s.user_id FROM user_settings u INDEXED BY user_settings_by_name \
         CROSS JOIN subscriptions s \
         ON s.channel_id = ?1 AND s.user_id = u.user_id AND s.active = 1 \
         WHERE u.name IN (?2, ?3) AND u.value = ?4 \
         AND ((u.name = ?2 AND s.push_notifications IS NULL) \
           OR (u.name = ?3 AND s.email_notifications IS NULL))",
    )?;
    let rows = st.query_map(params![ch.0, push_setting, email_setting, on], |r| {
        Ok(UserId(r.get(0)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Distinct users who reacted in a topic up to message `upto` (topic participants besides its
/// senders).
pub fn topic_reactors(
    c: &Connection,
    ch: ChannelId,
    topic: &str,
    upto: MessageId,
) -> Result<Vec<UserId>> {
    let mut st = c.prepare_cached(
        "SELECT DISTINCT r.user_id FROM reactions r JOIN messages m ON m.id = r.message_id \
         WHERE m.channel_id = ?1 AND m.topic = ?2 COLLATE NOCASE AND m.id <= ?3",
    )?;
    let rows = st.query_map(params![ch.0, topic, upto.0], |r| Ok(UserId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One notification job as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobRow {
    pub id: i64,
    pub user_id: UserId,
    pub message_id: MessageId,
    pub push_trigger: Option<String>,
    pub online_push: bool,
    pub email_trigger: Option<String>,
    pub mentioned_group_id: Option<i64>,
    pub stage: i64,
    pub attempts: i64,
}

/// Adds a job.
pub fn insert_job(c: &Connection, job: &JobRow, due_at_ms: i64) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO notification_jobs (user_id, message_id, push_trigger, online_push, \
         email_trigger, mentioned_group_id, stage, attempts, due_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        job.user_id.0,
        job.message_id.0,
        job.push_trigger,
        job.online_push,
        job.email_trigger,
        job.mentioned_group_id,
        job.stage,
        job.attempts,
        due_at_ms
    ])?;
    Ok(())
}

/// Claims up to `limit` jobs due at `now_ms`, oldest first.
pub fn claim_due(c: &Connection, now_ms: i64, limit: usize) -> Result<Vec<JobRow>> {
    let mut st = c.prepare_cached(
        "UPDATE notification_jobs SET claimed = 1 WHERE id IN (SELECT id FROM notification_jobs \
         WHERE claimed = 0 AND due_at <= ?1 ORDER BY due_at, id LIMIT ?2) \
         RETURNING id, user_id, message_id, push_trigger, online_push, email_trigger, \
         mentioned_group_id, stage, attempts",
    )?;
    let mut rows: Vec<JobRow> = st
        .query_map(params![now_ms, limit as i64], |r| {
            Ok(JobRow {
                id: r.get(0)?,
                user_id: UserId(r.get(1)?),
                message_id: MessageId(r.get(2)?),
                push_trigger: r.get(3)?,
                online_push: r.get(4)?,
                email_trigger: r.get(5)?,
                mentioned_group_id: r.get(6)?,
                stage: r.get(7)?,
                attempts: r.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    rows.sort_by_key(|j| j.id);
    Ok(rows)
}

/// Rewrites a claimed job for a later look (retry or second stage) and releases it.
pub fn reschedule_job(c: &Connection, job: &JobRow, due_at_ms: i64) -> Result<()> {
    c.prepare_cached(
        "UPDATE notification_jobs SET push_trigger = ?2, online_push = ?3, email_trigger = ?4, \
         stage = ?5, attempts = ?6, due_at = ?7, claimed = 0 WHERE id = ?1",
    )?
    .execute(params![
        job.id,
        job.push_trigger,
        job.online_push,
        job.email_trigger,
        job.stage,
        job.attempts,
        due_at_ms
    ])?;
    Ok(())
}

pub fn delete_job(c: &Connection, id: i64) -> Result<()> {
    c.prepare_cached("DELETE FROM notification_jobs WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

/// The earliest due time of an unclaimed job or removal, if any.
pub fn next_due(c: &Connection) -> Result<Option<i64>> {
    Ok(c.prepare_cached(
        "SELECT min(d) FROM (SELECT min(due_at) AS d FROM notification_jobs WHERE claimed = 0 \
             UNION ALL SELECT min(due_at) FROM push_removals WHERE claimed = 0)",
    )?
    .query_row([], |r| r.get::<_, Option<i64>>(0))
    .optional()?
    .flatten())
}

/// Releases every claim (at start-up nothing is in flight).
pub fn unclaim_all(c: &Connection) -> Result<()> {
    c.execute(
        "UPDATE notification_jobs SET claimed = 0 WHERE claimed = 1",
        [],
    )?;
    c.execute("UPDATE push_removals SET claimed = 0 WHERE claimed = 1", [])?;
    Ok(())
}

/// Whether `user` has read message `id` (or it no longer exists).
pub fn is_read_or_gone(c: &Connection, user: UserId, id: MessageId) -> Result<bool> {
    let sql = format!(
        "SELECT {read} FROM messages m WHERE m.id = ?1",
        read = read_by(&user.0.to_string())
    );
    let read: Option<bool> = c
        .prepare_cached(&sql)?
        .query_row([id.0], |r| r.get(0))
        .optional()?;
    Ok(read.unwrap_or(true))
}

/// Notes a push the user's devices now show.
pub fn mark_push_active(c: &Connection, user: UserId, id: MessageId) -> Result<()> {
    c.prepare_cached("INSERT OR IGNORE INTO push_active (user_id, message_id) VALUES (?1, ?2)")?
        .execute(params![user.0, id.0])?;
    Ok(())
}

/// The messages of the user's shown pushes that are now read or gone, at most `limit`.
pub fn active_pushes_read(c: &Connection, user: UserId, limit: usize) -> Result<Vec<MessageId>> {
    let sql = format!(
        "SELECT p.message_id FROM push_active p LEFT JOIN messages m ON m.id = p.message_id \
         WHERE p.user_id = ?1 AND (m.id IS NULL OR {read}) ORDER BY p.message_id LIMIT ?2",
        read = read_by(&user.0.to_string())
    );
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map(params![user.0, limit as i64], |r| Ok(MessageId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether the user has any shown push.
pub fn has_active_pushes(c: &Connection, user: UserId) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT 1 FROM push_active WHERE user_id = ?1 LIMIT 1")?
            .query_row([user.0], |_| Ok(()))
            .optional()?
            .is_some(),
    )
}

/// Forgets shown pushes (retracted).
pub fn clear_push_active(c: &Connection, user: UserId, ids: &[MessageId]) -> Result<()> {
    let mut st =
        c.prepare_cached("DELETE FROM push_active WHERE user_id = ?1 AND message_id = ?2")?;
    for id in ids {
        st.execute(params![user.0, id.0])?;
    }
    Ok(())
}

/// Shown pushes of messages that no longer exist or are no longer in a conversation with the
/// user, for a deletion: every user with a shown push of one of `ids`.
pub fn active_push_users(c: &Connection, ids: &[MessageId]) -> Result<Vec<(UserId, MessageId)>> {
    let mut st = c.prepare_cached("SELECT user_id FROM push_active WHERE message_id = ?1")?;
    let mut out = Vec::new();
    for id in ids {
        for u in st.query_map([id.0], |r| r.get::<_, i64>(0))? {
            out.push((UserId(u?), *id));
        }
    }
    Ok(out)
}

/// One remove notification to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemovalRow {
    pub id: i64,
    pub user_id: UserId,
    pub message_ids: Vec<MessageId>,
    pub attempts: i64,
}

pub fn insert_removal(
    c: &Connection,
    user: UserId,
    ids: &[MessageId],
    due_at_ms: i64,
) -> Result<()> {
    let list = ids
        .iter()
        .map(|i| i.0.to_string())
        .collect::<Vec<_>>()
        .join(",");
    c.prepare_cached(
        "INSERT INTO push_removals (user_id, message_ids, due_at) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![user.0, list, due_at_ms])?;
    Ok(())
}

pub fn claim_due_removals(c: &Connection, now_ms: i64, limit: usize) -> Result<Vec<RemovalRow>> {
    let mut st = c.prepare_cached(
        "UPDATE push_removals SET claimed = 1 WHERE id IN (SELECT id FROM push_removals \
         WHERE claimed = 0 AND due_at <= ?1 ORDER BY due_at, id LIMIT ?2) \
         RETURNING id, user_id, message_ids, attempts",
    )?;
    let mut rows: Vec<RemovalRow> = st
        .query_map(params![now_ms, limit as i64], |r| {
            let list: String = r.get(2)?;
            Ok(RemovalRow {
                id: r.get(0)?,
                user_id: UserId(r.get(1)?),
                message_ids: list
                    .split(',')
                    .filter_map(|s| s.parse().ok())
                    .map(MessageId)
                    .collect(),
                attempts: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    rows.sort_by_key(|r| r.id);
    Ok(rows)
}

pub fn retry_removal(c: &Connection, id: i64, attempts: i64, due_at_ms: i64) -> Result<()> {
    c.prepare_cached(
        "UPDATE push_removals SET attempts = ?2, due_at = ?3, claimed = 0 WHERE id = ?1",
    )?
    .execute(params![id, attempts, due_at_ms])?;
    Ok(())
}

pub fn delete_removal(c: &Connection, id: i64) -> Result<()> {
    c.prepare_cached("DELETE FROM push_removals WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}
