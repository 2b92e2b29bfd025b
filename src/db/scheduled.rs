//! SQL for scheduled messages and reminders (the `scheduled_messages` table): storing, listing an owner's open items, finding due ones, marking them
//! delivered or failed.

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::Result;
use crate::ids::{ChannelId, MessageId, ScheduledId, UserId};
use crate::model::{Scheduled, ScheduledKind, ScheduledState};

const COLUMNS: &str = "id, kind, sender_id, channel_id, topic, recipients, content, \
     rendered_content, deliver_at, read_by_sender, client, target_message_id, state, created";

fn join_ids(ids: &[UserId]) -> String {
    ids.iter()
        .map(|i| i.0.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn from_row(r: &Row<'_>) -> rusqlite::Result<Scheduled> {
    let recipients: String = r.get(5)?;
    Ok(Scheduled {
        id: ScheduledId(r.get(0)?),
        kind: ScheduledKind::from_code(r.get(1)?),
        owner: UserId(r.get(2)?),
        channel_id: r.get::<_, Option<i64>>(3)?.map(ChannelId),
        topic: r.get(4)?,
        recipients: recipients
            .split(',')
            .filter_map(|p| p.parse().ok())
            .map(UserId)
            .collect(),
        content: r.get(6)?,
        rendered_content: r.get(7)?,
        deliver_at: r.get(8)?,
        read_by_sender: r.get(9)?,
        client: r.get(10)?,
        target_message_id: r.get::<_, Option<i64>>(11)?.map(MessageId),
        state: ScheduledState::from_code(r.get(12)?),
        created: r.get(13)?,
    })
}

/// Stores a new pending item (its `id` and `state` are ignored); returns its id.
pub fn insert(c: &Connection, s: &Scheduled) -> Result<ScheduledId> {
    c.execute(
        "INSERT INTO scheduled_messages (kind, sender_id, channel_id, topic, recipients, content, \
         rendered_content, deliver_at, read_by_sender, client, target_message_id, state, created) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 0, ?12)",
        params![
            s.kind.code(),
            s.owner.0,
            s.channel_id.map(|c| c.0),
            s.topic,
            join_ids(&s.recipients),
            s.content,
            s.rendered_content,
            s.deliver_at,
            s.read_by_sender,
            s.client,
            s.target_message_id.map(|m| m.0),
            s.created,
        ],
    )?;
    Ok(ScheduledId(c.last_insert_rowid()))
}

/// Rewrites an item's destination, content, time and state (after an edit).
pub fn update(c: &Connection, s: &Scheduled) -> Result<()> {
    c.execute(
        "UPDATE scheduled_messages SET channel_id = ?2, topic = ?3, recipients = ?4, \
         content = ?5, rendered_content = ?6, deliver_at = ?7, state = ?8 WHERE id = ?1",
        params![
            s.id.0,
            s.channel_id.map(|c| c.0),
            s.topic,
            join_ids(&s.recipients),
            s.content,
            s.rendered_content,
            s.deliver_at,
            s.state.code(),
        ],
    )?;
    Ok(())
}

/// One item of `owner` of this kind, whatever its state.
pub fn get(
    c: &Connection,
    owner: UserId,
    kind: ScheduledKind,
    id: ScheduledId,
) -> Result<Option<Scheduled>> {
    Ok(c.query_row(
        &format!(
            "SELECT {COLUMNS} FROM scheduled_messages WHERE id = ?1 AND sender_id = ?2 \
             AND kind = ?3"
        ),
        params![id.0, owner.0, kind.code()],
        from_row,
    )
    .optional()?)
}

/// One item by id, whatever its owner, kind and state.
pub fn get_any(c: &Connection, id: ScheduledId) -> Result<Option<Scheduled>> {
    Ok(c.query_row(
        &format!("SELECT {COLUMNS} FROM scheduled_messages WHERE id = ?1"),
        [id.0],
        from_row,
    )
    .optional()?)
}

/// `owner`'s undelivered items (pending or failed) of this kind, by delivery time then id.
pub fn open_for(c: &Connection, owner: UserId, kind: ScheduledKind) -> Result<Vec<Scheduled>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM scheduled_messages WHERE sender_id = ?1 AND kind = ?2 \
         AND state IN (0, 2) ORDER BY deliver_at, id"
    ))?;
    let rows = st.query_map(params![owner.0, kind.code()], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How many pending items of this kind `owner` has.
pub fn pending_count(c: &Connection, owner: UserId, kind: ScheduledKind) -> Result<i64> {
    Ok(c.query_row(
        "SELECT count(*) FROM scheduled_messages WHERE sender_id = ?1 AND kind = ?2 AND state = 0",
        params![owner.0, kind.code()],
        |r| r.get(0),
    )?)
}

/// Pending items due at `now` (UNIX seconds) or earlier, oldest first, at most `limit`.
pub fn due(c: &Connection, now: i64, limit: i64) -> Result<Vec<Scheduled>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM scheduled_messages WHERE state = 0 AND deliver_at <= ?1 \
         ORDER BY deliver_at, id LIMIT ?2"
    ))?;
    let rows = st.query_map(params![now, limit], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The earliest delivery time of any pending item.
pub fn next_due(c: &Connection) -> Result<Option<i64>> {
    Ok(c.query_row(
        "SELECT min(deliver_at) FROM scheduled_messages WHERE state = 0",
        [],
        |r| r.get(0),
    )?)
}

/// Marks a pending item delivered as `message`, or failed (`message` `None`). Returns false
/// when it was no longer pending (deleted or already handled).
pub fn finish(c: &Connection, id: ScheduledId, message: Option<MessageId>) -> Result<bool> {
    let state = if message.is_some() {
        ScheduledState::Delivered
    } else {
        ScheduledState::Failed
    };
    let n = c.execute(
        "UPDATE scheduled_messages SET state = ?2, message_id = ?3 WHERE id = ?1 AND state = 0",
        params![id.0, state.code(), message.map(|m| m.0)],
    )?;
    Ok(n == 1)
}

/// Deletes an item.
pub fn delete(c: &Connection, id: ScheduledId) -> Result<()> {
    c.execute("DELETE FROM scheduled_messages WHERE id = ?1", [id.0])?;
    Ok(())
}
