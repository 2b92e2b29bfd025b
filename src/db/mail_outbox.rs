//! SQL for the mail outbox (table `mail_outbox`): queueing a mail in its cause's transaction,
//! claiming due ones, rescheduling failures, removing sent ones, counting what waits.
//!
//! Synchronous functions over a connection; callers run them through `Db::read` / `Db::write`.
//! Knows nothing of SMTP or of what a mail says; the mail is the `mail::Mail` record's fields.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;

/// A queued mail as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Queued {
    pub id: i64,
    pub recipient: String,
    pub sender: String,
    pub subject: String,
    pub text_body: String,
    pub html_body: Option<String>,
    /// "Name: value" lines.
    pub headers: String,
    pub log_link: String,
    pub attempts: i64,
}

/// Queues a mail, due at `due_ms`.
pub fn insert(c: &Connection, m: &Queued, due_ms: i64) -> Result<i64> {
    c.prepare_cached(
        "INSERT INTO mail_outbox (recipient, sender, subject, text_body, html_body, headers,
                                  log_link, due_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        m.recipient,
        m.sender,
        m.subject,
        m.text_body,
        m.html_body,
        m.headers,
        m.log_link,
        due_ms
    ])?;
    Ok(c.last_insert_rowid())
}

/// Marks every mail unclaimed and due by `now_ms` (at start-up nothing is in flight, and a
/// restart tries every waiting mail at once).
pub fn release_all(c: &Connection, now_ms: i64) -> Result<()> {
    c.prepare_cached("UPDATE mail_outbox SET claimed = 0, due_at = min(due_at, ?1)")?
        .execute([now_ms])?;
    Ok(())
}

/// Claims up to `limit` unclaimed mails due at `now_ms`, oldest due first.
pub fn claim_due(c: &Connection, now_ms: i64, limit: usize) -> Result<Vec<Queued>> {
    let mut st = c.prepare_cached(
        "SELECT id, recipient, sender, subject, text_body, html_body, headers, log_link, attempts
         FROM mail_outbox WHERE claimed = 0 AND due_at <= ?1 ORDER BY due_at, id LIMIT ?2",
    )?;
    let rows = st
        .query_map(params![now_ms, limit as i64], |r| {
            Ok(Queued {
                id: r.get(0)?,
                recipient: r.get(1)?,
                sender: r.get(2)?,
                subject: r.get(3)?,
                text_body: r.get(4)?,
                html_body: r.get(5)?,
                headers: r.get(6)?,
                log_link: r.get(7)?,
                attempts: r.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut mark = c.prepare_cached("UPDATE mail_outbox SET claimed = 1 WHERE id = ?1")?;
    for q in &rows {
        mark.execute([q.id])?;
    }
    Ok(rows)
}

/// When the next unclaimed mail is due (UNIX milliseconds), if any.
pub fn next_due(c: &Connection) -> Result<Option<i64>> {
    Ok(
        c.prepare_cached("SELECT min(due_at) FROM mail_outbox WHERE claimed = 0")?
            .query_row([], |r| r.get::<_, Option<i64>>(0))
            .optional()?
            .flatten(),
    )
}

/// Puts a failed mail back, with one more attempt counted, due at `due_ms`.
pub fn reschedule(c: &Connection, id: i64, due_ms: i64) -> Result<()> {
    c.prepare_cached(
        "UPDATE mail_outbox SET claimed = 0, attempts = attempts + 1, due_at = ?2 WHERE id = ?1",
    )?
    .execute(params![id, due_ms])?;
    Ok(())
}

/// Removes a sent (or abandoned) mail.
pub fn remove(c: &Connection, id: i64) -> Result<()> {
    c.prepare_cached("DELETE FROM mail_outbox WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

/// How many mails wait.
pub fn count(c: &Connection) -> Result<i64> {
    Ok(c.prepare_cached("SELECT count(*) FROM mail_outbox")?
        .query_row([], |r| r.get(0))?)
}
