//! Message rules: sending, reading (narrows and anchors), editing and moving, deleting, flags,
//! reactions and topics. Access checks live here so every entry point shares them.

pub mod edit;
pub mod fetch;
pub mod flags;
pub mod lookup;
pub mod narrow;
pub mod narrow_events;
pub mod reactions;
pub mod receipts;
pub mod send;
pub mod topics;
pub mod widgets;

use rusqlite::Connection;

use crate::db::{channels as channels_db, messages as db};
use crate::error::{Error, Result};
use crate::ids::{MessageId, UserId};
use crate::model::{Message, User, flags as bits};

/// A message the viewer may read.
#[derive(Clone, Debug)]
pub struct Readable {
    pub message: Message,
    /// The viewer received it (was a recipient when it was sent).
    pub received: bool,
}

pub fn invalid_message() -> Error {
    Error::bad_request("Invalid message(s)")
}

/// Whether `user` received channel message `m` (a subscription period covers it, or it is
/// their own copy).
pub fn received_channel_message(
    c: &Connection,
    user: UserId,
    m: &Message,
    stored_flags: i64,
) -> Result<bool> {
    if stored_flags & bits::RECEIVED != 0 {
        return Ok(true);
    }
    let Some(ch) = m.channel_id else {
        return Ok(false);
    };
    db::received_in_period(c, user, ch, m.id)
}

/// The message if `user` may read it, else "Invalid message(s)".
pub fn readable(c: &Connection, user: &User, id: MessageId) -> Result<Readable> {
    let m = db::get(c, id)?.ok_or_else(invalid_message)?;
    let stored = db::flags_for(c, user.id, &[id])?
        .get(&id.0)
        .copied()
        .unwrap_or(0);
    if let Some(conv) = m.conversation_id {
        let members = db::conversation_members(c, conv)?;
        if !members.contains(&user.id) {
            return Err(invalid_message());
        }
        return Ok(Readable {
            message: m,
            received: true,
        });
    }
    let ch_id = m.channel_id.ok_or_else(invalid_message)?;
    let ch = channels_db::get(c, ch_id)?.ok_or_else(invalid_message)?;
    let received = received_channel_message(c, user.id, &m, stored)?;
    let access = crate::domain::channels::access(c, user, ch)?;
    let ok = if access.channel.history_public_to_subscribers {
        access.content
    } else {
        received
    };
    if !ok {
        return Err(invalid_message());
    }
    Ok(Readable {
        message: m,
        received,
    })
}
