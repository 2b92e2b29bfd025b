//! SQL behind the Markdown renderer's lookups while a message is written: mention targets
//! (active users, user groups) and the newest message of a linked topic.
//!
//! Read-only; the renderer's rules (who may be mentioned, which channels may be linked) live in
//! `domain::messages::lookup`.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::ChannelId;

/// Active users with this full name (case-insensitive) as (id, full name), by id; rows that
/// fail to read are skipped.
pub fn active_users_named(c: &Connection, name: &str) -> Result<Vec<(i64, String)>> {
    let mut st = c.prepare_cached(
        "SELECT id, full_name FROM users WHERE full_name = ?1 COLLATE NOCASE AND is_active \
         ORDER BY id",
    )?;
    let rows = st.query_map([name], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.filter_map(|r| r.ok()).collect())
}

/// An active user as (id, full name).
pub fn active_user(c: &Connection, id: i64) -> Result<Option<(i64, String)>> {
    Ok(
        c.prepare_cached("SELECT id, full_name FROM users WHERE id = ?1 AND is_active")?
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?,
    )
}

/// An active, non-system user group with this name (case-insensitive) as (id, name).
pub fn mentionable_group(c: &Connection, name: &str) -> Result<Option<(i64, String)>> {
    Ok(c.prepare_cached(
        "SELECT id, name FROM user_groups WHERE name = ?1 COLLATE NOCASE \
         AND NOT deactivated AND NOT is_system_group",
    )?
    .query_row([name], |r| Ok((r.get(0)?, r.get(1)?)))
    .optional()?)
}

/// The newest message id of a topic (case-insensitive), if it has messages.
pub fn latest_in_topic(c: &Connection, ch: ChannelId, topic: &str) -> Result<Option<i64>> {
    Ok(c.prepare_cached(
        "SELECT max(id) FROM messages WHERE channel_id = ?1 AND topic = ?2 COLLATE NOCASE",
    )?
    .query_row(params![ch.0, topic], |r| r.get(0))?)
}
