//! Message rules: sending, reading (narrows and anchors), editing and moving, deleting, flags,
//! reactions and topics. Access checks live here so every entry point shares them.

pub mod edit;
mod edit_mentions;
pub mod fetch;
pub mod flags;
pub mod lookup;
pub mod narrow;
pub mod narrow_events;
pub mod preview;
pub mod reactions;
pub mod receipts;
pub mod recipients;
pub mod report;
pub mod send;
pub mod topics;
pub mod widgets;

use rusqlite::Connection;

use crate::db::{channels as channels_db, messages as db};
use crate::db::{conversations as conversations_db, message_flags as flags_db};
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

/// Who received a message (and so hears of its changes): its channel's subscribers and its
/// sender, or its conversation's members. `readable` answers the same question for one user.
pub fn audience(c: &Connection, m: &Message) -> Result<Vec<UserId>> {
    let mut users = match (m.channel_id, m.conversation_id) {
        (Some(ch), _) => channels_db::subscriber_ids(c, ch)?,
        (None, Some(conv)) => conversations_db::members(c, conv)?,
        _ => Vec::new(),
    };
    if !users.contains(&m.sender_id) {
        users.push(m.sender_id);
    }
    Ok(users)
}

/// [`audience`] of the message with this id; nobody when there is no such message.
pub fn audience_of(c: &Connection, id: MessageId) -> Result<Vec<UserId>> {
    match db::get(c, id)? {
        Some(m) => audience(c, &m),
        None => Ok(Vec::new()),
    }
}

/// The message if `user` may read it, else "Invalid message(s)".
pub fn readable(c: &Connection, user: &User, id: MessageId) -> Result<Readable> {
    let m = db::get(c, id)?.ok_or_else(invalid_message)?;
    let stored = flags_db::for_messages(c, user.id, &[id])?
        .get(&id.0)
        .copied()
        .unwrap_or(0);
    if let Some(conv) = m.conversation_id {
        let members = conversations_db::members(c, conv)?;
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
