//! SQL for submessages: the widget data attached to messages (`POST /submessage`, and the
//! widget a `/poll` or `/todo` message starts).

use rusqlite::{Connection, OptionalExtension, params};

use crate::db::WriteTx;
use crate::error::Result;
use crate::ids::{MessageId, UserId};
use crate::model::Submessage;

/// Stores a submessage; returns its id.
pub fn insert(
    tx: &WriteTx<'_>,
    message: MessageId,
    sender: UserId,
    msg_type: &str,
    content: &str,
) -> Result<i64> {
    tx.prepare_cached(
        "INSERT INTO submessages (message_id, sender_id, msg_type, content) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![message.0, sender.0, msg_type, content])?;
    Ok(tx.last_insert_rowid())
}

/// The submessages of these messages, oldest first.
pub fn of_messages(c: &Connection, ids: &[MessageId]) -> Result<Vec<Submessage>> {
    let mut out = Vec::new();
    let mut st = c.prepare_cached(
        "SELECT id, message_id, sender_id, msg_type, content FROM submessages \
         WHERE message_id = ?1 ORDER BY id",
    )?;
    for id in ids {
        let rows = st.query_map([id.0], |r| {
            Ok(Submessage {
                id: r.get(0)?,
                message_id: MessageId(r.get(1)?),
                sender_id: UserId(r.get(2)?),
                msg_type: r.get(3)?,
                content: r.get(4)?,
            })
        })?;
        for row in rows {
            out.push(row?);
        }
    }
    Ok(out)
}

/// The content of a message's first `widget` submessage, if any.
pub fn widget_content(c: &Connection, message: MessageId) -> Result<Option<String>> {
    Ok(c.prepare_cached(
        "SELECT content FROM submessages WHERE message_id = ?1 AND msg_type = 'widget' \
             ORDER BY id LIMIT 1",
    )?
    .query_row([message.0], |r| r.get(0))
    .optional()?)
}

/// Whether `sender` has attached a submessage to this message.
pub fn has_any_from(c: &Connection, message: MessageId, sender: UserId) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT 1 FROM submessages WHERE message_id = ?1 AND sender_id = ?2")?
            .query_row(params![message.0, sender.0], |_| Ok(()))
            .optional()?
            .is_some(),
    )
}
