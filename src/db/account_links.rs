//! SQL for account links (table `account_links`): the hashed keys of password-reset,
//! email-change and unsubscribe links, found by hash, consumed, revoked per user and kind.
//!
//! Synchronous functions over a connection; callers run them through `Db::read` / `Db::write`.
//! Knows nothing of what a link does or how its key is made.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::UserId;

/// A stored link.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub id: i64,
    pub kind: String,
    pub user_id: UserId,
    pub old_email: Option<String>,
    pub new_email: Option<String>,
    pub created_at: i64,
    pub expires_at: i64,
}

/// Stores a link.
pub fn insert(c: &Connection, key_hash: &str, link: &Link) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO account_links (key_hash, kind, user_id, old_email, new_email, created_at,
                                    expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        key_hash,
        link.kind,
        link.user_id.0,
        link.old_email,
        link.new_email,
        link.created_at,
        link.expires_at
    ])?;
    Ok(())
}

/// The link whose key hashes to `key_hash`, of `kind`.
pub fn by_hash(c: &Connection, key_hash: &str, kind: &str) -> Result<Option<Link>> {
    Ok(c.prepare_cached(
        "SELECT id, kind, user_id, old_email, new_email, created_at, expires_at
         FROM account_links WHERE key_hash = ?1 AND kind = ?2",
    )?
    .query_row(params![key_hash, kind], |r| {
        Ok(Link {
            id: r.get(0)?,
            kind: r.get(1)?,
            user_id: UserId(r.get(2)?),
            old_email: r.get(3)?,
            new_email: r.get(4)?,
            created_at: r.get(5)?,
            expires_at: r.get(6)?,
        })
    })
    .optional()?)
}

/// Removes one link (it was used).
pub fn delete(c: &Connection, id: i64) -> Result<()> {
    c.prepare_cached("DELETE FROM account_links WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

/// Removes a user's links of `kind`; returns how many.
pub fn delete_for_user(c: &Connection, user: UserId, kind: &str) -> Result<usize> {
    Ok(
        c.prepare_cached("DELETE FROM account_links WHERE user_id = ?1 AND kind = ?2")?
            .execute(params![user.0, kind])?,
    )
}

/// Keeps only a user's `keep` newest links of `kind`.
pub fn keep_newest(c: &Connection, user: UserId, kind: &str, keep: i64) -> Result<()> {
    c.prepare_cached(
        "DELETE FROM account_links WHERE user_id = ?1 AND kind = ?2 AND id NOT IN
           (SELECT id FROM account_links WHERE user_id = ?1 AND kind = ?2
            ORDER BY id DESC LIMIT ?3)",
    )?
    .execute(params![user.0, kind, keep])?;
    Ok(())
}

/// Removes expired links.
pub fn delete_expired(c: &Connection, now: i64) -> Result<usize> {
    Ok(
        c.prepare_cached("DELETE FROM account_links WHERE expires_at <= ?1")?
            .execute([now])?,
    )
}
