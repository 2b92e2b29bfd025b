//! Message flags: `POST /messages/flags` and marking channels, topics or everything as read.
//!
//! Reading is recorded cheaply: marking a whole scope read raises the user's read floor for it
//! (one row), and only individual changes touch per-message rows.

use std::time::{Duration, Instant};

use rusqlite::{Connection, params};

use crate::app::AppState;
use crate::db::messages as db;
use crate::error::{Error, Result};
use crate::events::Event;
use crate::ids::{ChannelId, MessageId, UserId};
use crate::model::{User, flags as bits};

use super::narrow;

/// How long a mark-as-read request may work before answering `complete: false`.
const MARK_READ_BUDGET: Duration = Duration::from_secs(50);
/// Scopes handled per write transaction when marking everything read.
const SCOPES_PER_BATCH: usize = 100;

fn flag_bit(flag: &str) -> Result<i64> {
    match flag {
        "read" => Ok(bits::READ),
        "starred" => Ok(bits::STARRED),
        "collapsed" => Ok(bits::COLLAPSED),
        "mentioned"
        | "stream_wildcard_mentioned"
        | "topic_wildcard_mentioned"
        | "group_mentioned"
        | "has_alert_word"
        | "historical"
        | "wildcard_mentioned" => Err(Error::bad_request(format!("Flag not editable: '{flag}'"))),
        _ => Err(Error::bad_request(format!("Invalid flag: '{flag}'"))),
    }
}

/// The outcome of a flags request.
pub struct FlagsOutcome {
    /// Channels whose messages were skipped because the user is not subscribed (read flag).
    pub ignored_channels: Vec<i64>,
}

/// `POST /messages/flags`.
pub async fn update(
    state: &AppState,
    user: &User,
    ids: Vec<i64>,
    op: &str,
    flag: &str,
) -> Result<FlagsOutcome> {
    let add = match op {
        "add" => true,
        "remove" => false,
        other => {
            return Err(Error::bad_request(format!(
                "Invalid message flag operation: '{other}'"
            )));
        }
    };
    let bit = flag_bit(flag)?;
    let flag_name: &'static str = match bit {
        bits::READ => "read",
        bits::STARRED => "starred",
        _ => "collapsed",
    };
    let user = user.clone();
    state
        .db
        .write(move |tx| {
            let mut changed = Vec::new();
            let mut ignored: Vec<i64> = Vec::new();
            for id in ids {
                let r = super::readable(tx, &user, MessageId(id))?;
                if bit == bits::READ && !r.received {
                    if let Some(ch) = r.message.channel_id
                        && !ignored.contains(&ch.0)
                    {
                        ignored.push(ch.0);
                    }
                    continue;
                }
                let scope = r.message.channel_id.map(|c| c.0).unwrap_or(0);
                let (set, clear) = match (bit, add) {
                    (bits::READ, true) => (bits::READ, bits::UNREAD_OVERRIDE),
                    (bits::READ, false) => {
                        let below = id <= db::read_floor(tx, user.id, scope)?;
                        (if below { bits::UNREAD_OVERRIDE } else { 0 }, bits::READ)
                    }
                    (b, true) => (b, 0),
                    (b, false) => (0, b),
                };
                db::change_flags(tx, user.id, MessageId(id), set, clear)?;
                changed.push(MessageId(id));
            }
            if !changed.is_empty() {
                tx.emit(Event::FlagsChanged {
                    user_id: user.id,
                    flag: flag_name,
                    add,
                    message_ids: changed,
                    all: false,
                });
            }
            Ok(FlagsOutcome {
                ignored_channels: ignored,
            })
        })
        .await
}

/// Unread message ids of `user` among `m` rows matching `cond`.
fn unread_ids(
    c: &Connection,
    user: &User,
    cond: &str,
    params: &[rusqlite::types::Value],
) -> Result<Vec<MessageId>> {
    let sql = format!(
        "SELECT m.id FROM messages m WHERE {cond} AND {rcv} AND NOT {read} ORDER BY m.id",
        rcv = narrow::received_sql(user.id),
        read = narrow::read_sql(user.id)
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(rusqlite::params_from_iter(params.iter()), |r| {
        Ok(MessageId(r.get(0)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Raises the read floor of one scope to its newest message and drops redundant rows.
fn read_scope(c: &Connection, user: UserId, scope: i64) -> Result<()> {
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
    db::raise_read_floor(c, user, scope, max)?;
    db::prune_flags_below(c, user, &members, max)
}

/// `POST /mark_all_as_read`: returns whether everything was marked within the time budget.
pub async fn mark_all(state: &AppState, user: &User) -> Result<bool> {
    let started = Instant::now();
    let uid = user.id;
    let scopes: Vec<i64> = state
        .db
        .read(move |c| {
            let mut st = c.prepare(
                "SELECT DISTINCT channel_id FROM subscription_periods WHERE user_id = ?1",
            )?;
            let mut scopes: Vec<i64> = st
                .query_map([uid.0], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            scopes.push(0);
            Ok(scopes)
        })
        .await?;
    for batch in scopes.chunks(SCOPES_PER_BATCH) {
        if started.elapsed() > MARK_READ_BUDGET {
            return Ok(false);
        }
        let batch = batch.to_vec();
        state
            .db
            .write(move |tx| {
                for scope in batch {
                    read_scope(tx, uid, scope)?;
                }
                // Messages the user received without a subscription (their own copies).
                tx.execute(
                    "UPDATE message_flags SET flags = (flags | ?2) & ~?3 WHERE user_id = ?1 \
                     AND flags & ?4 != 0",
                    params![uid.0, bits::READ, bits::UNREAD_OVERRIDE, bits::RECEIVED],
                )?;
                Ok(())
            })
            .await?;
    }
    state
        .db
        .write(move |tx| {
            tx.emit(Event::FlagsChanged {
                user_id: uid,
                flag: "read",
                add: true,
                message_ids: Vec::new(),
                all: true,
            });
            Ok(())
        })
        .await?;
    Ok(true)
}

/// `POST /mark_stream_as_read`.
pub async fn mark_channel(state: &AppState, user: &User, channel: ChannelId) -> Result<()> {
    let user = user.clone();
    state
        .db
        .write(move |tx| {
            crate::domain::channels::visible_by_id(tx, &user, channel)?;
            let ids = unread_ids(tx, &user, &format!("m.channel_id = {}", channel.0), &[])?;
            read_scope(tx, user.id, channel.0)?;
            if !ids.is_empty() {
                tx.emit(Event::FlagsChanged {
                    user_id: user.id,
                    flag: "read",
                    add: true,
                    message_ids: ids,
                    all: false,
                });
            }
            Ok(())
        })
        .await
}

/// `POST /mark_topic_as_read`.
pub async fn mark_topic(
    state: &AppState,
    user: &User,
    channel: ChannelId,
    topic: String,
) -> Result<()> {
    let user = user.clone();
    state
        .db
        .write(move |tx| {
            crate::domain::channels::visible_by_id(tx, &user, channel)?;
            if !db::topic_exists(tx, channel, &topic)? {
                return Err(Error::bad_request(format!("No such topic '{topic}'")));
            }
            let ids = unread_ids(
                tx,
                &user,
                &format!(
                    "m.channel_id = {} AND m.topic = ?1 COLLATE NOCASE",
                    channel.0
                ),
                &[rusqlite::types::Value::Text(topic.clone())],
            )?;
            for id in &ids {
                db::change_flags(tx, user.id, *id, bits::READ, bits::UNREAD_OVERRIDE)?;
            }
            if !ids.is_empty() {
                tx.emit(Event::FlagsChanged {
                    user_id: user.id,
                    flag: "read",
                    add: true,
                    message_ids: ids,
                    all: false,
                });
            }
            Ok(())
        })
        .await
}
