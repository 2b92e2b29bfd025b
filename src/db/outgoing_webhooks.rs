//! SQL for outgoing-webhook deliveries (table `outgoing_webhook_jobs`): queueing one per
//! triggered bot in the message's own transaction, claiming due ones, rescheduling failures
//! and removing finished ones.
//!
//! Synchronous functions over a connection; callers run them through `Db::read` / `Db::write`.
//! Knows nothing of HTTP or of what a delivery sends.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::{MessageId, UserId};

/// A queued delivery.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub id: i64,
    pub bot_id: UserId,
    pub message_id: MessageId,
    pub trigger: String,
    pub attempts: i64,
}

/// The active outgoing-webhook bots (`bot_type` 3) among `ids`, in the order given.
pub fn outgoing_bots_among(c: &Connection, ids: &[UserId]) -> Result<Vec<UserId>> {
    let mut stmt = c.prepare_cached(
        "SELECT 1 FROM users WHERE id = ?1 AND is_bot = 1 AND bot_type = 3 AND is_active = 1",
    )?;
    let mut out = Vec::new();
    for id in ids {
        if stmt.exists([id.0])? && !out.contains(id) {
            out.push(*id);
        }
    }
    Ok(out)
}

/// Queues a delivery of `message` to `bot`, due at once (`now_ms`).
pub fn insert(
    c: &Connection,
    bot: UserId,
    message: MessageId,
    trigger: &str,
    now_ms: i64,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO outgoing_webhook_jobs (bot_id, message_id, trigger, due_at)
         VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![bot.0, message.0, trigger, now_ms])?;
    Ok(())
}

/// Marks every job unclaimed (at start-up nothing is in flight, so a delivery cut short by a
/// stop is attempted again).
pub fn release_all(c: &Connection) -> Result<()> {
    c.prepare_cached("UPDATE outgoing_webhook_jobs SET claimed = 0 WHERE claimed = 1")?
        .execute([])?;
    Ok(())
}

/// Picks up to `limit` unclaimed jobs due at `now_ms`, oldest due first, giving each share
/// (a bot's owner, or the bot itself when it has none) at most `per_share` jobs in flight,
/// counting those already claimed. One pass over the due jobs, stopping once `limit` are
/// picked. Reads only; [`mark_claimed`] claims them.
pub fn pick_due(c: &Connection, now_ms: i64, limit: usize, per_share: usize) -> Result<Vec<Job>> {
    let mut busy: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
    let mut st = c.prepare_cached(
        "SELECT coalesce(u.bot_owner_id, j.bot_id), count(*) FROM outgoing_webhook_jobs j
         LEFT JOIN users u ON u.id = j.bot_id WHERE j.claimed = 1 GROUP BY 1",
    )?;
    for row in st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))? {
        let (share, n) = row?;
        busy.insert(share, n as usize);
    }
    let mut out = Vec::new();
    if limit == 0 {
        return Ok(out);
    }
    let mut st = c.prepare_cached(
        "SELECT j.id, j.bot_id, j.message_id, j.trigger, j.attempts,
                coalesce(u.bot_owner_id, j.bot_id)
         FROM outgoing_webhook_jobs j LEFT JOIN users u ON u.id = j.bot_id
         WHERE j.claimed = 0 AND j.due_at <= ?1 ORDER BY j.due_at, j.id",
    )?;
    let mut rows = st.query([now_ms])?;
    while let Some(r) = rows.next()? {
        let share: i64 = r.get(5)?;
        let n = busy.entry(share).or_default();
        if *n >= per_share {
            continue;
        }
        *n += 1;
        out.push(Job {
            id: r.get(0)?,
            bot_id: UserId(r.get(1)?),
            message_id: MessageId(r.get(2)?),
            trigger: r.get(3)?,
            attempts: r.get(4)?,
        });
        if out.len() >= limit {
            break;
        }
    }
    Ok(out)
}

/// Claims the picked jobs still unclaimed; returns those it claimed.
pub fn mark_claimed(c: &Connection, jobs: Vec<Job>) -> Result<Vec<Job>> {
    let mut mark = c.prepare_cached(
        "UPDATE outgoing_webhook_jobs SET claimed = 1 WHERE id = ?1 AND claimed = 0",
    )?;
    let mut out = Vec::with_capacity(jobs.len());
    for j in jobs {
        if mark.execute([j.id])? == 1 {
            out.push(j);
        }
    }
    Ok(out)
}

/// When the next unclaimed job is due (UNIX milliseconds), if any.
pub fn next_due(c: &Connection) -> Result<Option<i64>> {
    Ok(
        c.prepare_cached("SELECT min(due_at) FROM outgoing_webhook_jobs WHERE claimed = 0")?
            .query_row([], |r| r.get::<_, Option<i64>>(0))
            .optional()?
            .flatten(),
    )
}

/// Puts a failed job back, with one more attempt counted, due at `due_ms`.
pub fn reschedule(c: &Connection, id: i64, due_ms: i64) -> Result<()> {
    c.prepare_cached(
        "UPDATE outgoing_webhook_jobs SET claimed = 0, attempts = attempts + 1, due_at = ?2
         WHERE id = ?1",
    )?
    .execute(params![id, due_ms])?;
    Ok(())
}

/// Removes a finished job; false if it was gone (its message was deleted meanwhile).
pub fn remove(c: &Connection, id: i64) -> Result<bool> {
    Ok(
        c.prepare_cached("DELETE FROM outgoing_webhook_jobs WHERE id = ?1")?
            .execute([id])?
            > 0,
    )
}
