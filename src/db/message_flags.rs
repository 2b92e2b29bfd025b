//! SQL for per-user message state: flag bits (sparse `message_flags` rows, present only where
//! a user's state differs from the default) and read floors (everything at or below a scope's
//! floor is read). Owns no messages; which flags a user may change is the domain's rule.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::{MessageId, UserId};
use crate::model::flags as bits;

/// Stored flag bits of a user for these messages (absent = 0).
pub fn for_messages(c: &Connection, user: UserId, ids: &[MessageId]) -> Result<HashMap<i64, i64>> {
    let mut out = HashMap::new();
    let mut st =
        c.prepare_cached("SELECT flags FROM message_flags WHERE user_id = ?1 AND message_id = ?2")?;
    for id in ids {
        if let Some(f) = st
            .query_row(params![user.0, id.0], |r| r.get::<_, i64>(0))
            .optional()?
        {
            out.insert(id.0, f);
        }
    }
    Ok(out)
}

/// Sets and clears flag bits; rows that end up 0 are removed.
pub fn change(c: &Connection, user: UserId, id: MessageId, set: i64, clear: i64) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO message_flags (user_id, message_id, flags) VALUES (?1, ?2, ?3 & ~?4) \
         ON CONFLICT (user_id, message_id) DO UPDATE SET flags = (flags | ?3) & ~?4",
    )?
    .execute(params![user.0, id.0, set, clear])?;
    c.prepare_cached(
        "DELETE FROM message_flags WHERE user_id = ?1 AND message_id = ?2 AND flags = 0",
    )?
    .execute(params![user.0, id.0])?;
    Ok(())
}

/// The stored flags of every user with a row for this message, by user id.
pub fn stored_for_message(c: &Connection, id: MessageId) -> Result<HashMap<i64, i64>> {
    let mut st =
        c.prepare_cached("SELECT user_id, flags FROM message_flags WHERE message_id = ?1")?;
    let rows = st
        .query_map([id.0], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// A user's read floor for a scope (a channel id, or 0 for direct messages).
pub fn read_floor(c: &Connection, user: UserId, scope: i64) -> Result<i64> {
    Ok(
        c.prepare_cached("SELECT floor_id FROM read_floors WHERE user_id = ?1 AND scope = ?2")?
            .query_row(params![user.0, scope], |r| r.get(0))
            .optional()?
            .unwrap_or(0),
    )
}

/// Raises a read floor (never lowers it).
pub fn raise_read_floor(c: &Connection, user: UserId, scope: i64, floor: i64) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO read_floors (user_id, scope, floor_id) VALUES (?1, ?2, ?3) \
         ON CONFLICT (user_id, scope) DO UPDATE SET floor_id = max(floor_id, excluded.floor_id)",
    )?
    .execute(params![user.0, scope, floor])?;
    Ok(())
}

/// Removes the per-message read bits and unread overrides a new floor makes redundant.
pub fn prune_below(c: &Connection, user: UserId, scope_messages: &str, floor: i64) -> Result<()> {
    c.execute(
        &format!(
            "UPDATE message_flags SET flags = flags & ~(1 | 1024) WHERE user_id = ?1 \
             AND message_id <= ?2 AND message_id IN ({scope_messages})"
        ),
        params![user.0, floor],
    )?;
    c.execute(
        "DELETE FROM message_flags WHERE user_id = ?1 AND flags = 0",
        [user.0],
    )?;
    Ok(())
}

/// Raises a user's read floor for a scope (a channel id, or 0 for direct messages) to the
/// scope's newest message and drops the per-message rows this makes redundant.
pub fn read_whole_scope(c: &Connection, user: UserId, scope: i64) -> Result<()> {
    let (max, members) = if scope == 0 {
        (
            c.query_row(
                "SELECT coalesce(max(m.id), 0) FROM messages m JOIN dm_members d \
                 ON d.conversation_id = m.conversation_id WHERE d.user_id = ?1",
                [user.0],
                |r| r.get::<_, i64>(0),
            )?,
            format!(
                "SELECT m.id FROM messages m JOIN dm_members d ON d.conversation_id = \
                 m.conversation_id WHERE d.user_id = {}",
                user.0
            ),
        )
    } else {
        (
            c.query_row(
                "SELECT coalesce(max(id), 0) FROM messages WHERE channel_id = ?1",
                [scope],
                |r| r.get::<_, i64>(0),
            )?,
            format!("SELECT id FROM messages WHERE channel_id = {scope}"),
        )
    };
    if max == 0 {
        return Ok(());
    }
    raise_read_floor(c, user, scope, max)?;
    prune_below(c, user, &members, max)
}

/// Marks read every message `user` received outside a subscription (their own copies).
pub fn read_own_copies(c: &Connection, user: UserId) -> Result<()> {
    c.execute(
        "UPDATE message_flags SET flags = (flags | ?2) & ~?3 WHERE user_id = ?1 \
         AND flags & ?4 != 0",
        params![user.0, bits::READ, bits::UNREAD_OVERRIDE, bits::RECEIVED],
    )?;
    Ok(())
}
