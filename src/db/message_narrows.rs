//! SQL for reading messages through narrows: statements over `messages m` whose WHERE condition
//! and per-viewer state expressions are built by `domain::messages::narrow` and passed in as
//! SQL text with their parameters.
//!
//! Owns running those statements and the one definition of a user's received and read state
//! of a message (`received_by`, `read_by`), which the narrows, unread counts and read receipts
//! share; building the other conditions (access, narrow terms) stays with the narrow module.

use rusqlite::Connection;
use rusqlite::types::Value;

use super::messages::{columns, from_row};
use crate::error::Result;
use crate::ids::{MessageId, UserId};
use crate::model::{Message, flags as bits};

/// SQL: the user `user` (a SQL expression: an id literal or a column such as `u.id`) has
/// received message `m`: a direct message (membership is checked by the caller's access
/// condition), a channel message under one of their subscription periods, or one whose stored
/// flags say so.
pub fn received_by(user: &str) -> String {
    format!(
        "(m.conversation_id IS NOT NULL OR EXISTS (SELECT 1 FROM subscription_periods sp \
         WHERE sp.user_id = {user} AND sp.channel_id = m.channel_id \
         AND sp.first_message_id <= m.id \
         AND (sp.last_message_id IS NULL OR sp.last_message_id >= m.id)) OR EXISTS (SELECT 1 \
         FROM message_flags rf WHERE rf.user_id = {user} AND rf.message_id = m.id \
         AND rf.flags & {received} != 0))",
        received = bits::RECEIVED
    )
}

/// SQL: the user `user` (as in [`received_by`]) has read message `m`: its read bit, or at or
/// below their read floor for its scope without an unread override.
pub fn read_by(user: &str) -> String {
    format!(
        "(EXISTS (SELECT 1 FROM message_flags f WHERE f.user_id = {user} \
         AND f.message_id = m.id AND f.flags & {read} != 0) \
         OR (m.id <= coalesce((SELECT floor_id FROM read_floors rfl WHERE rfl.user_id = {user} \
         AND rfl.scope = coalesce(m.channel_id, 0)), 0) AND NOT EXISTS (SELECT 1 \
         FROM message_flags f2 WHERE f2.user_id = {user} AND f2.message_id = m.id \
         AND f2.flags & {over} != 0)))",
        read = bits::READ,
        over = bits::UNREAD_OVERRIDE
    )
}

/// A message with one viewer's state: received and read as computed by the given expressions,
/// and the viewer's stored flag bits (0 when no row exists).
pub struct ViewedRow {
    pub message: Message,
    pub received: bool,
    pub read: bool,
    pub stored: i64,
}

/// Messages `m` matching `cond` (then `tail`, e.g. ORDER BY/LIMIT) with `viewer`'s state.
pub fn select_with_state(
    c: &Connection,
    viewer: UserId,
    received: &str,
    read: &str,
    cond: &str,
    params: &[Value],
    tail: &str,
) -> Result<Vec<ViewedRow>> {
    let sql = format!(
        "SELECT {cols}, {received} AS rcv, {read} AS rd, coalesce((SELECT flags FROM \
         message_flags fx WHERE fx.user_id = {u} AND fx.message_id = m.id), 0) AS fl \
         FROM messages m WHERE {cond} {tail}",
        cols = columns("m"),
        u = viewer.0,
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(rusqlite::params_from_iter(params.iter()), |r| {
        Ok(ViewedRow {
            message: from_row(r)?,
            received: r.get(13)?,
            read: r.get(14)?,
            stored: r.get(15)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The oldest message `m` matching `cond` that is `received` but not `read`, if any.
pub fn first_unread(
    c: &Connection,
    cond: &str,
    received: &str,
    read: &str,
    params: &[Value],
) -> Result<Option<i64>> {
    let sql =
        format!("SELECT min(m.id) FROM messages m WHERE {cond} AND {received} AND NOT {read}");
    Ok(
        c.query_row(&sql, rusqlite::params_from_iter(params.iter()), |r| {
            r.get(0)
        })?,
    )
}

/// Ids of messages `m` matching `cond` that are `received` but not `read`, in id order.
pub fn unread_ids(
    c: &Connection,
    cond: &str,
    received: &str,
    read: &str,
    params: &[Value],
) -> Result<Vec<MessageId>> {
    let sql = format!(
        "SELECT m.id FROM messages m WHERE {cond} AND {received} AND NOT {read} ORDER BY m.id"
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(rusqlite::params_from_iter(params.iter()), |r| {
        Ok(MessageId(r.get(0)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
