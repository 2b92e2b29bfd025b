//! SQL for users' personal settings: the sparse `user_settings` table (only values that differ
//! from a default are stored). Settings kept as columns of `users`
//! (time zone, presence) are written by `db::users`.
//!
//! Values are opaque text here; `domain::settings` owns their types, defaults and validation.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::UserId;

/// Every stored `(name, value)` of one user.
pub fn of_user(c: &Connection, id: UserId) -> Result<Vec<(String, String)>> {
    let mut st =
        c.prepare_cached("SELECT name, value FROM user_settings WHERE user_id = ?1 ORDER BY name")?;
    let rows = st.query_map([id.0], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One stored value, if the user changed that setting.
pub fn get(c: &Connection, id: UserId, name: &str) -> Result<Option<String>> {
    Ok(
        c.prepare_cached("SELECT value FROM user_settings WHERE user_id = ?1 AND name = ?2")?
            .query_row(params![id.0, name], |r| r.get(0))
            .optional()?,
    )
}

pub fn set(c: &Connection, id: UserId, name: &str, value: &str) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO user_settings (user_id, name, value) VALUES (?1, ?2, ?3) \
         ON CONFLICT (user_id, name) DO UPDATE SET value = excluded.value",
    )?
    .execute(params![id.0, name, value])?;
    Ok(())
}
