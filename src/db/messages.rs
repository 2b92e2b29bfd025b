//! SQL for messages: storage and search index, and receipt through subscription periods.
//!
//! The rest of a message's surroundings live next door, one idea each: direct-message
//! conversations in `db::conversations`, per-user flags and read floors in
//! `db::message_flags`, reactions in `db::reactions`, edit history in `db::message_edits`, and
//! queries over a topic's messages in `db::topics`.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::WriteTx;
use crate::error::Result;
use crate::ids::{ChannelId, ConversationId, MessageId, UserId};
use crate::model::Message;

const COLUMNS: &str = "id, sender_id, channel_id, conversation_id, topic, content, \
     rendered_content, client, sent_at, is_me_message, wildcard, last_edit_at, last_moved_at";

pub fn from_row(r: &Row<'_>) -> rusqlite::Result<Message> {
    Ok(Message {
        id: MessageId(r.get(0)?),
        sender_id: UserId(r.get(1)?),
        channel_id: r.get::<_, Option<i64>>(2)?.map(ChannelId),
        conversation_id: r.get::<_, Option<i64>>(3)?.map(ConversationId),
        topic: r.get(4)?,
        content: r.get(5)?,
        rendered_content: r.get(6)?,
        client: r.get(7)?,
        sent_at: r.get(8)?,
        is_me_message: r.get(9)?,
        wildcard: r.get(10)?,
        last_edit_at: r.get(11)?,
        last_moved_at: r.get(12)?,
    })
}

/// The column list for `SELECT`s that feed [`from_row`], prefixed with a table alias.
pub fn columns(alias: &str) -> String {
    COLUMNS
        .split(", ")
        .map(|c| format!("{alias}.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn get(c: &Connection, id: MessageId) -> Result<Option<Message>> {
    let mut st = c.prepare_cached(&format!("SELECT {COLUMNS} FROM messages WHERE id = ?1"))?;
    Ok(st.query_row([id.0], from_row).optional()?)
}

/// Messages by id, in id order (missing ids are skipped).
pub fn get_many(c: &Connection, ids: &[MessageId]) -> Result<Vec<Message>> {
    let mut out = Vec::with_capacity(ids.len());
    let mut st = c.prepare_cached(&format!("SELECT {COLUMNS} FROM messages WHERE id = ?1"))?;
    for id in ids {
        if let Some(m) = st.query_row([id.0], from_row).optional()? {
            out.push(m);
        }
    }
    out.sort_by_key(|m| m.id);
    Ok(out)
}

/// Stores a message (its `id` is ignored) and indexes it for search; returns the new id.
pub fn insert(tx: &mut WriteTx<'_>, m: &Message) -> Result<MessageId> {
    let mut st = tx.prepare_cached(
        "INSERT INTO messages (sender_id, channel_id, conversation_id, topic, content, \
         rendered_content, client, sent_at, is_me_message, wildcard) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    st.execute(params![
        m.sender_id.0,
        m.channel_id.map(|c| c.0),
        m.conversation_id.map(|c| c.0),
        m.topic,
        m.content,
        m.rendered_content,
        m.client,
        m.sent_at,
        m.is_me_message,
        m.wildcard,
    ])?;
    drop(st);
    let id = MessageId(tx.last_insert_rowid());
    tx.search.push(SearchChange::Index {
        id,
        content: m.content.clone(),
        topic: m.topic.clone(),
    });
    Ok(id)
}

/// A change to the search index. A write job queues its changes in its [`WriteTx`]; the writer
/// applies those of every job that succeeded, in order, after the batch's last job and before
/// its commit (see [`super::WriteTx`] for why), so each message is indexed in the same commit
/// as its row. Only the writer's own connection could see the gap, and no write job searches.
pub(super) enum SearchChange {
    Index {
        id: MessageId,
        content: String,
        topic: String,
    },
    Unindex(MessageId),
}

/// Applies queued search-index changes in order.
pub(super) fn apply_search_changes(
    c: &Connection,
    changes: &[SearchChange],
) -> rusqlite::Result<()> {
    if changes.is_empty() {
        return Ok(());
    }
    let mut add =
        c.prepare_cached("INSERT INTO messages_fts (rowid, content, topic) VALUES (?1, ?2, ?3)")?;
    let mut remove = c.prepare_cached("DELETE FROM messages_fts WHERE rowid = ?1")?;
    for change in changes {
        match change {
            SearchChange::Index { id, content, topic } => {
                add.execute(params![id.0, content, topic])?;
            }
            SearchChange::Unindex(id) => {
                remove.execute([id.0])?;
            }
        }
    }
    Ok(())
}

/// Rewrites content, topic and channel of a message and its search entry.
pub fn update(tx: &mut WriteTx<'_>, m: &Message) -> Result<()> {
    tx.prepare_cached(
        "UPDATE messages SET channel_id = ?2, topic = ?3, content = ?4, rendered_content = ?5, \
         is_me_message = ?6, wildcard = ?7, last_edit_at = ?8, last_moved_at = ?9 WHERE id = ?1",
    )?
    .execute(params![
        m.id.0,
        m.channel_id.map(|c| c.0),
        m.topic,
        m.content,
        m.rendered_content,
        m.is_me_message,
        m.wildcard,
        m.last_edit_at,
        m.last_moved_at,
    ])?;
    tx.search.push(SearchChange::Unindex(m.id));
    tx.search.push(SearchChange::Index {
        id: m.id,
        content: m.content.clone(),
        topic: m.topic.clone(),
    });
    Ok(())
}

/// Deletes a message with its flags, reactions, edits and search entry.
pub fn delete(tx: &mut WriteTx<'_>, id: MessageId) -> Result<()> {
    tx.prepare_cached("DELETE FROM messages WHERE id = ?1")?
        .execute([id.0])?;
    tx.search.push(SearchChange::Unindex(id));
    Ok(())
}

/// The newest message id, or 0.
pub fn max_id(c: &Connection) -> Result<i64> {
    Ok(
        c.query_row("SELECT coalesce(max(id), 0) FROM messages", [], |r| {
            r.get(0)
        })?,
    )
}

/// The newest message a user received, or -1.
pub fn max_received_id(c: &Connection, user: UserId) -> Result<i64> {
    let mut best: i64 = -1;
    let periods: Vec<(i64, i64, Option<i64>)> = c
        .prepare_cached(
            "SELECT channel_id, first_message_id, last_message_id FROM subscription_periods \
             WHERE user_id = ?1",
        )?
        .query_map([user.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut in_period = c.prepare_cached(
        "SELECT max(id) FROM messages WHERE channel_id = ?1 AND id >= ?2 AND id <= ?3",
    )?;
    for (ch, first, last) in periods {
        let m: Option<i64> =
            in_period.query_row(params![ch, first, last.unwrap_or(i64::MAX)], |r| r.get(0))?;
        best = best.max(m.unwrap_or(-1));
    }
    let dm: Option<i64> = c
        .prepare_cached(
            "SELECT max(m.id) FROM dm_members d JOIN messages m \
             ON m.conversation_id = d.conversation_id WHERE d.user_id = ?1",
        )?
        .query_row([user.0], |r| r.get(0))?;
    let own: Option<i64> = c
        .prepare_cached(
            "SELECT max(message_id) FROM message_flags WHERE user_id = ?1 AND flags & 512 != 0",
        )?
        .query_row([user.0], |r| r.get(0))?;
    Ok(best.max(dm.unwrap_or(-1)).max(own.unwrap_or(-1)))
}

/// Whether a subscription period of `user` to `ch` covers message `id`.
pub fn received_in_period(
    c: &Connection,
    user: UserId,
    ch: ChannelId,
    id: MessageId,
) -> Result<bool> {
    let mut st = c.prepare_cached(
        "SELECT 1 FROM subscription_periods WHERE user_id = ?1 AND channel_id = ?2 \
         AND first_message_id <= ?3 AND (last_message_id IS NULL OR last_message_id >= ?3)",
    )?;
    Ok(st
        .query_row(params![user.0, ch.0, id.0], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Every channel `user` has ever had a subscription period in.
pub fn period_channels(c: &Connection, user: UserId) -> Result<Vec<i64>> {
    let mut st =
        c.prepare("SELECT DISTINCT channel_id FROM subscription_periods WHERE user_id = ?1")?;
    let rows = st.query_map([user.0], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
