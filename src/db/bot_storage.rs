//! SQL for the bots' key-value storage (in `schema.sql`). Every query is scoped to one bot.
//! Sizes are in characters (SQLite's `length` of text), as the limit is. Knows no rules and no
//! JSON.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::UserId;

/// All of a bot's entries, by key.
pub fn all(c: &Connection, bot: UserId) -> Result<Vec<(String, String)>> {
    let mut st =
        c.prepare_cached("SELECT key, value FROM bot_storage WHERE bot_id = ?1 ORDER BY key")?;
    let rows = st.query_map([bot.0], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One entry's value, if the bot has that key.
pub fn get(c: &Connection, bot: UserId, key: &str) -> Result<Option<String>> {
    Ok(
        c.prepare_cached("SELECT value FROM bot_storage WHERE bot_id = ?1 AND key = ?2")?
            .query_row(params![bot.0, key], |r| r.get(0))
            .optional()?,
    )
}

/// Characters of all the bot's keys and values together.
pub fn size(c: &Connection, bot: UserId) -> Result<i64> {
    Ok(c.prepare_cached(
        "SELECT coalesce(sum(length(key) + length(value)), 0) FROM bot_storage \
             WHERE bot_id = ?1",
    )?
    .query_row([bot.0], |r| r.get(0))?)
}

/// Characters of one entry's key and value, 0 if the bot has no such key.
pub fn entry_size(c: &Connection, bot: UserId, key: &str) -> Result<i64> {
    Ok(c.prepare_cached(
        "SELECT length(key) + length(value) FROM bot_storage WHERE bot_id = ?1 AND key = ?2",
    )?
    .query_row(params![bot.0, key], |r| r.get(0))
    .optional()?
    .unwrap_or(0))
}

/// Sets one entry, replacing its value if the key exists.
pub fn put(c: &Connection, bot: UserId, key: &str, value: &str) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO bot_storage (bot_id, key, value) VALUES (?1, ?2, ?3) \
         ON CONFLICT (bot_id, key) DO UPDATE SET value = excluded.value",
    )?
    .execute(params![bot.0, key, value])?;
    Ok(())
}

/// Removes one entry; false if the bot had no such key.
pub fn remove(c: &Connection, bot: UserId, key: &str) -> Result<bool> {
    Ok(
        c.prepare_cached("DELETE FROM bot_storage WHERE bot_id = ?1 AND key = ?2")?
            .execute(params![bot.0, key])?
            > 0,
    )
}

/// Removes all of a bot's entries.
pub fn clear(c: &Connection, bot: UserId) -> Result<()> {
    c.prepare_cached("DELETE FROM bot_storage WHERE bot_id = ?1")?
        .execute([bot.0])?;
    Ok(())
}
