//! SQL for messages, their search index, edits and reactions.

use rusqlite::{Connection, OptionalExtension};

use crate::error::Result;
use crate::ids::ChannelId;

/// Whether a channel has any message outside the empty topic.
pub fn channel_has_named_topic(c: &Connection, ch: ChannelId) -> Result<bool> {
    let mut st =
        c.prepare_cached("SELECT 1 FROM messages WHERE channel_id = ?1 AND topic <> '' LIMIT 1")?;
    Ok(st.query_row([ch.0], |_| Ok(())).optional()?.is_some())
}
