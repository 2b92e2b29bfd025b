//! SQL for direct-message conversations: one row per set of members (kept as a sorted member
//! key) and the membership table the narrows and unread counts join through. Owns no
//! messages, flags or subscriptions.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::{ConversationId, UserId};

/// The stored key of a member set: the sorted ids joined by commas.
fn member_key(members: &[UserId]) -> String {
    members
        .iter()
        .map(|u| u.0.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The conversation between exactly these users (sorted, deduplicated), created if new.
pub fn get_or_create(c: &Connection, members: &[UserId]) -> Result<ConversationId> {
    if let Some(id) = find(c, members)? {
        return Ok(id);
    }
    c.prepare_cached("INSERT INTO dm_conversations (member_key) VALUES (?1)")?
        .execute([member_key(members)])?;
    let id = c.last_insert_rowid();
    let mut st =
        c.prepare_cached("INSERT INTO dm_members (user_id, conversation_id) VALUES (?1, ?2)")?;
    for u in members {
        st.execute(params![u.0, id])?;
    }
    Ok(ConversationId(id))
}

/// The conversation between exactly these users, if it exists.
pub fn find(c: &Connection, members: &[UserId]) -> Result<Option<ConversationId>> {
    Ok(
        c.prepare_cached("SELECT id FROM dm_conversations WHERE member_key = ?1")?
            .query_row([member_key(members)], |r| Ok(ConversationId(r.get(0)?)))
            .optional()?,
    )
}

/// The members of a conversation, sorted.
pub fn members(c: &Connection, conversation: ConversationId) -> Result<Vec<UserId>> {
    let key: String = c
        .prepare_cached("SELECT member_key FROM dm_conversations WHERE id = ?1")?
        .query_row([conversation.0], |r| r.get(0))?;
    Ok(key
        .split(',')
        .filter_map(|s| s.parse().ok())
        .map(UserId)
        .collect())
}

/// Every conversation a user is part of.
pub fn of_user(c: &Connection, user: UserId) -> Result<Vec<ConversationId>> {
    let mut st = c.prepare_cached("SELECT conversation_id FROM dm_members WHERE user_id = ?1")?;
    let rows = st.query_map([user.0], |r| Ok(ConversationId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
