//! SQL for reading messages through narrows: statements over `messages m` whose WHERE condition
//! and per-viewer state expressions are built by `domain::messages::narrow` and passed in as
//! SQL text with their parameters.
//!
//! Owns only running those statements; building the conditions (access, narrow terms, received
//! and read state) stays with the narrow module.

use rusqlite::Connection;
use rusqlite::types::Value;

use super::messages::{columns, from_row};
use crate::error::Result;
use crate::ids::{MessageId, UserId};
use crate::model::Message;

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
