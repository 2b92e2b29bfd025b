//! SQL for mobile push through Zulip's push notification service: the outbox of device-token
//! calls (`push_bouncer_outbox`: queued in the commit of the token change, made oldest first,
//! put off after a failure, removed once made), what the service last said of the realm
//! (`push_bouncer_state`), and the reads and deletions of legacy tokens that sending needs.
//!
//! Synchronous functions over a connection; callers run them through `Db::read` / `Db::write`.
//! Knows nothing of HTTP, of the service's API or of payloads.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::UserId;

/// One queued call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxJob {
    pub id: i64,
    pub user_id: UserId,
    /// `register`, `unregister` or `unregister_all`.
    pub action: String,
    /// `apns` or `fcm` (not for `unregister_all`).
    pub kind: Option<String>,
    pub token: Option<String>,
    pub ios_app_id: Option<String>,
    pub attempts: i64,
    /// UNIX milliseconds.
    pub due_at: i64,
}

/// Queues a call, due at `now_ms`.
pub fn enqueue(
    c: &Connection,
    user: UserId,
    action: &str,
    token: Option<(&str, &str, Option<&str>)>,
    now_ms: i64,
) -> Result<()> {
    let (kind, token, app) = match token {
        Some((k, t, a)) => (Some(k), Some(t), a),
        None => (None, None, None),
    };
    c.prepare_cached(
        "INSERT INTO push_bouncer_outbox (user_id, action, kind, token, ios_app_id, due_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![user.0, action, kind, token, app, now_ms])?;
    Ok(())
}

/// The oldest queued call (due or not): calls are made in the order they were queued.
pub fn oldest(c: &Connection) -> Result<Option<OutboxJob>> {
    Ok(c.prepare_cached(
        "SELECT id, user_id, action, kind, token, ios_app_id, attempts, due_at \
             FROM push_bouncer_outbox ORDER BY id LIMIT 1",
    )?
    .query_row([], |r| {
        Ok(OutboxJob {
            id: r.get(0)?,
            user_id: UserId(r.get(1)?),
            action: r.get(2)?,
            kind: r.get(3)?,
            token: r.get(4)?,
            ios_app_id: r.get(5)?,
            attempts: r.get(6)?,
            due_at: r.get(7)?,
        })
    })
    .optional()?)
}

/// How many calls are queued.
pub fn queued(c: &Connection) -> Result<i64> {
    Ok(
        c.prepare_cached("SELECT count(*) FROM push_bouncer_outbox")?
            .query_row([], |r| r.get(0))?,
    )
}

/// Puts a failed call off to `due_ms`, with one more attempt counted and the reason kept.
pub fn reschedule(c: &Connection, id: i64, due_ms: i64, error: &str) -> Result<()> {
    c.prepare_cached(
        "UPDATE push_bouncer_outbox SET attempts = attempts + 1, due_at = ?2, last_error = ?3 \
         WHERE id = ?1",
    )?
    .execute(params![id, due_ms, error])?;
    Ok(())
}

/// Removes a call that was made (or given up).
pub fn remove(c: &Connection, id: i64) -> Result<()> {
    c.prepare_cached("DELETE FROM push_bouncer_outbox WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

/// The user's legacy tokens of `kind` (`apns`, `fcm`), oldest first.
pub fn tokens_of_kind(c: &Connection, user: UserId, kind: &str) -> Result<Vec<String>> {
    let mut st = c.prepare_cached(
        "SELECT token FROM push_tokens WHERE user_id = ?1 AND kind = ?2 \
         ORDER BY date_created, token",
    )?;
    let rows = st.query_map(params![user.0, kind], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The kinds (`apns`, `fcm`) under which the user has `token`.
pub fn kinds_of_token(c: &Connection, user: UserId, token: &str) -> Result<Vec<String>> {
    let mut st = c.prepare_cached(
        "SELECT kind FROM push_tokens WHERE user_id = ?1 AND token = ?2 ORDER BY kind",
    )?;
    let rows = st.query_map(params![user.0, token], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether the user has any push device (a legacy token or an encrypted registration).
pub fn has_devices(c: &Connection, user: UserId) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM push_tokens WHERE user_id = ?1) \
             OR EXISTS (SELECT 1 FROM push_registrations WHERE user_id = ?1)",
    )?
    .query_row([user.0], |r| r.get(0))?)
}

/// Deletes every user's token of `kind` with one of these values (the service no longer knows
/// them); how many went.
pub fn delete_tokens(c: &Connection, kind: &str, tokens: &[String]) -> Result<usize> {
    let mut st = c.prepare_cached("DELETE FROM push_tokens WHERE kind = ?1 AND token = ?2")?;
    let mut n = 0;
    for t in tokens {
        n += st.execute(params![kind, t])?;
    }
    Ok(n)
}

/// What the service last said of the realm: (can_push, expected_end_timestamp).
pub fn realm_state(c: &Connection) -> Result<Option<(bool, Option<i64>)>> {
    Ok(c.prepare_cached(
        "SELECT can_push, expected_end_timestamp FROM push_bouncer_state WHERE id = 1",
    )?
    .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
    .optional()?)
}

/// Stores what the service said of the realm.
pub fn set_realm_state(
    c: &Connection,
    can_push: bool,
    end_timestamp: Option<i64>,
    now: i64,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO push_bouncer_state (id, can_push, expected_end_timestamp, updated_at) \
         VALUES (1, ?1, ?2, ?3) ON CONFLICT (id) DO UPDATE SET can_push = excluded.can_push, \
         expected_end_timestamp = excluded.expected_end_timestamp, \
         updated_at = excluded.updated_at",
    )?
    .execute(params![can_push, end_timestamp, now])?;
    Ok(())
}
