//! SQL for read receipts: which users have read a message, from the same read state the
//! flags use (per-message flags, read floors and their unread overrides) and the same rule for
//! who received it (direct-message members; channel subscribers at the time, or a stored
//! received flag).

use rusqlite::Connection;

use crate::error::Result;
use crate::ids::MessageId;
use crate::model::flags as bits;

/// Active users other than the sender who received and have read message `id` and share read
/// receipts (`send_read_receipts` not turned off), by id.
pub fn readers(c: &Connection, id: MessageId) -> Result<Vec<i64>> {
    let sql = format!(
        "SELECT u.id FROM messages m JOIN users u ON u.is_active = 1 AND u.id != m.sender_id \
         WHERE m.id = ?1 \
         AND ((m.conversation_id IS NOT NULL AND EXISTS (SELECT 1 FROM dm_members dm \
               WHERE dm.user_id = u.id AND dm.conversation_id = m.conversation_id)) \
           OR (m.channel_id IS NOT NULL AND (EXISTS (SELECT 1 FROM subscription_periods sp \
               WHERE sp.user_id = u.id AND sp.channel_id = m.channel_id \
               AND sp.first_message_id <= m.id \
               AND (sp.last_message_id IS NULL OR sp.last_message_id >= m.id)) \
             OR EXISTS (SELECT 1 FROM message_flags rf WHERE rf.user_id = u.id \
               AND rf.message_id = m.id AND rf.flags & {received} != 0)))) \
         AND (EXISTS (SELECT 1 FROM message_flags f WHERE f.user_id = u.id \
               AND f.message_id = m.id AND f.flags & {read} != 0) \
           OR (m.id <= coalesce((SELECT floor_id FROM read_floors rfl WHERE rfl.user_id = u.id \
               AND rfl.scope = coalesce(m.channel_id, 0)), 0) \
             AND NOT EXISTS (SELECT 1 FROM message_flags f2 WHERE f2.user_id = u.id \
               AND f2.message_id = m.id AND f2.flags & {over} != 0))) \
         AND NOT EXISTS (SELECT 1 FROM user_settings s WHERE s.user_id = u.id \
               AND s.name = 'send_read_receipts' AND s.value = 'false') \
         ORDER BY u.id",
        received = bits::RECEIVED,
        read = bits::READ,
        over = bits::UNREAD_OVERRIDE,
    );
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map([id.0], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
