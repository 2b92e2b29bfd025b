//! SQL for read receipts: which users have read a message, by the same received and read
//! rules the narrows and unread counts use (`message_narrows::received_by`, `read_by`).

use rusqlite::Connection;

use super::message_narrows::{read_by, received_by};
use crate::error::Result;
use crate::ids::MessageId;

/// Active users other than the sender who received and have read message `id` and share read
/// receipts (`send_read_receipts` not turned off), by id.
pub fn readers(c: &Connection, id: MessageId) -> Result<Vec<i64>> {
    let sql = format!(
        "SELECT u.id FROM messages m JOIN users u ON u.is_active = 1 AND u.id != m.sender_id \
         WHERE m.id = ?1 \
         AND (m.conversation_id IS NULL OR EXISTS (SELECT 1 FROM dm_members dm \
               WHERE dm.user_id = u.id AND dm.conversation_id = m.conversation_id)) \
         AND {received} AND {read} \
         AND NOT EXISTS (SELECT 1 FROM user_settings s WHERE s.user_id = u.id \
               AND s.name = 'send_read_receipts' AND s.value = 'false') \
         ORDER BY u.id",
        received = received_by("u.id"),
        read = read_by("u.id"),
    );
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map([id.0], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
