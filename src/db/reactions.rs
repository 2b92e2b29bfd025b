//! SQL for emoji reactions on messages. Owns no messages; who may react is the domain's rule.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::{MessageId, UserId};
use crate::model::Reaction;

pub fn for_messages(c: &Connection, ids: &[MessageId]) -> Result<Vec<Reaction>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = ids
        .iter()
        .map(|i| i.0.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let mut st = c.prepare(&format!(
        "SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions \
         WHERE message_id IN ({list}) ORDER BY id"
    ))?;
    let rows = st.query_map([], |r| {
        Ok(Reaction {
            message_id: MessageId(r.get(0)?),
            user_id: UserId(r.get(1)?),
            emoji_name: r.get(2)?,
            emoji_code: r.get(3)?,
            reaction_type: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn add(c: &Connection, r: &Reaction) -> Result<bool> {
    let n = c
        .prepare_cached(
            "INSERT OR IGNORE INTO reactions (message_id, user_id, emoji_name, emoji_code, \
             reaction_type) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            r.message_id.0,
            r.user_id.0,
            r.emoji_name,
            r.emoji_code,
            r.reaction_type
        ])?;
    Ok(n > 0)
}

/// Removes a user's reaction; returns it if there was one.
pub fn remove(
    c: &Connection,
    message: MessageId,
    user: UserId,
    reaction_type: &str,
    emoji_code: &str,
) -> Result<Option<Reaction>> {
    let found = c
        .prepare_cached(
            "SELECT emoji_name FROM reactions WHERE message_id = ?1 AND user_id = ?2 \
             AND reaction_type = ?3 AND emoji_code = ?4",
        )?
        .query_row(params![message.0, user.0, reaction_type, emoji_code], |r| {
            r.get::<_, String>(0)
        })
        .optional()?;
    let Some(emoji_name) = found else {
        return Ok(None);
    };
    c.prepare_cached(
        "DELETE FROM reactions WHERE message_id = ?1 AND user_id = ?2 AND reaction_type = ?3 \
         AND emoji_code = ?4",
    )?
    .execute(params![message.0, user.0, reaction_type, emoji_code])?;
    Ok(Some(Reaction {
        message_id: message,
        user_id: user,
        emoji_name,
        emoji_code: emoji_code.to_string(),
        reaction_type: reaction_type.to_string(),
    }))
}

/// The name another user already reacted with for this emoji code, if any.
pub fn existing_name(
    c: &Connection,
    message: MessageId,
    reaction_type: &str,
    code: &str,
) -> Result<Option<String>> {
    Ok(c.prepare_cached(
        "SELECT emoji_name FROM reactions WHERE message_id = ?1 AND reaction_type = ?2 \
             AND emoji_code = ?3 LIMIT 1",
    )?
    .query_row(params![message.0, reaction_type, code], |r| r.get(0))
    .optional()?)
}
