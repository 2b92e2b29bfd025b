//! SQL for direct-message conversations: one row per set of members (kept as a sorted member
//! key) and the membership table the narrows and unread counts join through. Owns no
//! messages, flags or subscriptions.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::UserId;

/// The conversation between exactly these users (sorted, deduplicated), created if new.
pub fn get_or_create(c: &Connection, members: &[UserId]) -> Result<i64> {
    let key = members
        .iter()
        .map(|u| u.0.to_string())
        .collect::<Vec<_>>()
        .join(",");
    if let Some(id) = c
        .prepare_cached("SELECT id FROM dm_conversations WHERE member_key = ?1")?
        .query_row([&key], |r| r.get(0))
        .optional()?
    {
        return Ok(id);
    }
    c.prepare_cached("INSERT INTO dm_conversations (member_key) VALUES (?1)")?
        .execute([&key])?;
    let id = c.last_insert_rowid();
    let mut st =
        c.prepare_cached("INSERT INTO dm_members (user_id, conversation_id) VALUES (?1, ?2)")?;
    for u in members {
        st.execute(params![u.0, id])?;
    }
    Ok(id)
}

/// The conversation between exactly these users, if it exists.
pub fn find(c: &Connection, members: &[UserId]) -> Result<Option<i64>> {
    let key = members
        .iter()
        .map(|u| u.0.to_string())
        .collect::<Vec<_>>()
        .join(",");
    Ok(
        c.prepare_cached("SELECT id FROM dm_conversations WHERE member_key = ?1")?
            .query_row([&key], |r| r.get(0))
            .optional()?,
    )
}

pub fn members(c: &Connection, conversation: i64) -> Result<Vec<UserId>> {
    let key: String = c
        .prepare_cached("SELECT member_key FROM dm_conversations WHERE id = ?1")?
        .query_row([conversation], |r| r.get(0))?;
    Ok(key
        .split(',')
        .filter_map(|s| s.parse().ok())
        .map(UserId)
        .collect())
}

/// Every conversation a user is part of.
pub fn of_user(c: &Connection, user: UserId) -> Result<Vec<i64>> {
    let mut st = c.prepare_cached("SELECT conversation_id FROM dm_members WHERE user_id = ?1")?;
    let rows = st.query_map([user.0], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
