//! SQL for the browser client's sessions (the `web_sessions` table):
//! creating one, finding one by its token's hash, touching, ending one or all of a user's, and
//! sweeping expired ones. Knows no cookies and no expiry rules.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::UserId;

/// A stored session.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRow {
    pub id: i64,
    pub user_id: UserId,
    pub csrf_token: String,
    pub created_at: i64,
    pub last_used_at: i64,
    pub expires_at: i64,
}

pub fn insert(
    c: &Connection,
    token_hash: &str,
    user: UserId,
    csrf_token: &str,
    now: i64,
    expires_at: i64,
) -> Result<i64> {
    c.prepare_cached(
        "INSERT INTO web_sessions (token_hash, user_id, csrf_token, created_at, last_used_at, \
         expires_at) VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
    )?
    .execute(params![token_hash, user.0, csrf_token, now, expires_at])?;
    Ok(c.last_insert_rowid())
}

pub fn by_token_hash(c: &Connection, token_hash: &str) -> Result<Option<SessionRow>> {
    Ok(c.prepare_cached(
        "SELECT id, user_id, csrf_token, created_at, last_used_at, expires_at \
             FROM web_sessions WHERE token_hash = ?1",
    )?
    .query_row([token_hash], |r| {
        Ok(SessionRow {
            id: r.get(0)?,
            user_id: UserId(r.get(1)?),
            csrf_token: r.get(2)?,
            created_at: r.get(3)?,
            last_used_at: r.get(4)?,
            expires_at: r.get(5)?,
        })
    })
    .optional()?)
}

/// Records a use at `now` and moves the expiry to `expires_at`.
pub fn touch(c: &Connection, id: i64, now: i64, expires_at: i64) -> Result<()> {
    c.prepare_cached("UPDATE web_sessions SET last_used_at = ?2, expires_at = ?3 WHERE id = ?1")?
        .execute(params![id, now, expires_at])?;
    Ok(())
}

pub fn delete(c: &Connection, token_hash: &str) -> Result<bool> {
    Ok(
        c.prepare_cached("DELETE FROM web_sessions WHERE token_hash = ?1")?
            .execute([token_hash])?
            > 0,
    )
}

/// Ends every session of a user; returns how many there were.
pub fn delete_for_user(c: &Connection, user: UserId) -> Result<usize> {
    Ok(
        c.prepare_cached("DELETE FROM web_sessions WHERE user_id = ?1")?
            .execute([user.0])?,
    )
}

/// Removes the sessions expired at `now`; returns how many.
pub fn delete_expired(c: &Connection, now: i64) -> Result<usize> {
    Ok(
        c.prepare_cached("DELETE FROM web_sessions WHERE expires_at <= ?1")?
            .execute([now])?,
    )
}

pub fn count_for_user(c: &Connection, user: UserId) -> Result<i64> {
    Ok(
        c.prepare_cached("SELECT COUNT(*) FROM web_sessions WHERE user_id = ?1")?
            .query_row([user.0], |r| r.get(0))?,
    )
}
