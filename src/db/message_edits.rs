//! SQL for message edit history: one row per edit or move, oldest first. Owns no messages.

use rusqlite::{Connection, params};

use crate::error::Result;
use crate::ids::{ChannelId, MessageId, UserId};
use crate::model::MessageEdit;

pub fn add(c: &Connection, e: &MessageEdit) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO message_edits (message_id, user_id, edited_at, prev_content, \
         prev_rendered_content, prev_channel_id, channel_id, prev_topic, topic) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        e.message_id.0,
        e.user_id.map(|u| u.0),
        e.edited_at,
        e.prev_content,
        e.prev_rendered_content,
        e.prev_channel_id.map(|c| c.0),
        e.channel_id.map(|c| c.0),
        e.prev_topic,
        e.topic,
    ])?;
    Ok(())
}

/// Edit history of a message, oldest first.
pub fn for_message(c: &Connection, id: MessageId) -> Result<Vec<MessageEdit>> {
    let mut st = c.prepare_cached(
        "SELECT message_id, user_id, edited_at, prev_content, prev_rendered_content, \
         prev_channel_id, channel_id, prev_topic, topic FROM message_edits \
         WHERE message_id = ?1 ORDER BY id",
    )?;
    let rows = st.query_map([id.0], |r| {
        Ok(MessageEdit {
            message_id: MessageId(r.get(0)?),
            user_id: r.get::<_, Option<i64>>(1)?.map(UserId),
            edited_at: r.get(2)?,
            prev_content: r.get(3)?,
            prev_rendered_content: r.get(4)?,
            prev_channel_id: r.get::<_, Option<i64>>(5)?.map(ChannelId),
            channel_id: r.get::<_, Option<i64>>(6)?.map(ChannelId),
            prev_topic: r.get(7)?,
            topic: r.get(8)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
