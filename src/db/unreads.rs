//! SQL for what one user has left to read, for the initial state of `POST /register`: unread
//! messages (up to a cap), starred message ids and the newest message of each direct-message
//! conversation. Read-only. The "read", "received" and "mentioned" conditions are the narrow
//! builder's (`db::message_narrows`), so this module does not restate those rules; it knows
//! nothing of JSON.

use rusqlite::{Connection, params};

use super::message_narrows::{flag_sql, read_by, received_by};
use super::{conversations as conversations_db, message_flags as flags_db};
use crate::error::Result;
use crate::ids::{ConversationId, UserId};
use crate::model::flags as bits;

/// One unread message: id, channel, topic, direct-message conversation, sender, and whether it
/// mentions the user (personally, through a group, or with a wildcard).
pub type UnreadRow = (i64, Option<i64>, String, Option<ConversationId>, i64, bool);

/// The user's unread messages, at most `limit` per channel and `limit` among direct messages
/// (the caller sorts and caps the union). Wildcard mentions count among the mentions, as
/// Zulip counts them.
pub fn unread(c: &Connection, user: UserId, limit: usize) -> Result<Vec<UnreadRow>> {
    let u = user.0.to_string();
    let read = read_by(&u);
    let received = received_by(&u);
    let mentioned = format!(
        "{} OR m.wildcard != 0",
        flag_sql(user.0, bits::MENTIONED | bits::GROUP_MENTIONED)
    );
    let mut rows: Vec<UnreadRow> = Vec::new();
    // Channels, starting above the read floor and the first subscription.
    let mut st = c.prepare_cached(
        "SELECT channel_id, min(first_message_id) FROM subscription_periods WHERE user_id = ?1 GROUP BY channel_id",
    )?;
    let scopes: Vec<(i64, i64)> = st
        .query_map([user.0], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let sql = format!(
        "SELECT m.id, m.channel_id, m.topic, m.conversation_id, m.sender_id, ({mentioned}) \
         FROM messages m WHERE m.channel_id = ?1 AND m.id >= ?2 AND {received} AND NOT {read} \
         ORDER BY m.id LIMIT {limit}"
    );
    let mut q = c.prepare(&sql)?;
    for (ch, first) in scopes {
        let floor = flags_db::read_floor(c, user, ch)?;
        let from = first.max(floor + 1);
        for row in q.query_map(params![ch, from], unread_row)? {
            rows.push(row?);
        }
    }
    let dm_floor = flags_db::read_floor(c, user, 0)?;
    let convs = conversations_db::of_user(c, user)?;
    if !convs.is_empty() {
        let list = convs
            .iter()
            .map(ConversationId::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let sql = format!(
            "SELECT m.id, m.channel_id, m.topic, m.conversation_id, m.sender_id, ({mentioned}) \
             FROM messages m WHERE m.conversation_id IN ({list}) AND m.id > ?1 AND NOT {read} \
             ORDER BY m.id LIMIT {limit}"
        );
        let mut st = c.prepare(&sql)?;
        for row in st.query_map([dm_floor], unread_row)? {
            rows.push(row?);
        }
    }
    Ok(rows)
}

fn unread_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<UnreadRow> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get::<_, Option<i64>>(3)?.map(ConversationId),
        r.get(4)?,
        r.get(5)?,
    ))
}

/// The ids of the user's starred messages, oldest first.
pub fn starred(c: &Connection, user: UserId) -> Result<Vec<i64>> {
    let mut st = c.prepare_cached(
        "SELECT message_id FROM message_flags WHERE user_id = ?1 AND flags & ?2 != 0 ORDER BY message_id",
    )?;
    let ids = st
        .query_map(params![user.0, bits::STARRED], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(ids)
}

/// The newest message id of a direct-message conversation, if it has any message.
pub fn newest_in_conversation(c: &Connection, conversation: ConversationId) -> Result<Option<i64>> {
    let max = c
        .prepare_cached("SELECT max(id) FROM messages WHERE conversation_id = ?1")?
        .query_row([conversation.0], |r| r.get(0))?;
    Ok(max)
}
