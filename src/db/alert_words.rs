//! SQL for users' alert words (words that flag a message for them when it mentions them).

use rusqlite::{Connection, params};

use crate::error::Result;
use crate::ids::UserId;

/// A user's alert words, sorted.
pub fn of_user(c: &Connection, user: UserId) -> Result<Vec<String>> {
    let mut st =
        c.prepare_cached("SELECT word FROM alert_words WHERE user_id = ?1 ORDER BY word")?;
    let words = st
        .query_map([user.0], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(words)
}

/// Adds a word; adding one already there does nothing.
pub fn add(c: &Connection, user: UserId, word: &str) -> Result<()> {
    c.prepare_cached("INSERT OR IGNORE INTO alert_words (user_id, word) VALUES (?1, ?2)")?
        .execute(params![user.0, word])?;
    Ok(())
}

/// Removes a word; removing one not there does nothing.
pub fn remove(c: &Connection, user: UserId, word: &str) -> Result<()> {
    c.prepare_cached("DELETE FROM alert_words WHERE user_id = ?1 AND word = ?2")?
        .execute(params![user.0, word])?;
    Ok(())
}
