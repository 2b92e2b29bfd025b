//! Message flags: `POST /messages/flags` and marking channels, topics or everything as read.
//!
//! Reading is recorded cheaply: marking a whole scope read raises the user's read floor for it
//! (one row), and only individual changes touch per-message rows.

use std::time::{Duration, Instant};

use crate::db::{message_flags as flags_db, topics as topics_db};
use crate::db::{message_narrows as narrows_db, messages as db};
use crate::domain::core::Core;
use crate::domain::notifications::jobs::retract_read;
use crate::error::{Error, ErrorKind, Result};
use crate::events::{Event, FlagsChanged};
use crate::ids::{ChannelId, MessageId};
use crate::model::{User, flags as bits};

use super::narrow;

/// How long a mark-as-read request may work before answering `complete: false`.
const MARK_READ_BUDGET: Duration = Duration::from_secs(50);
/// Scopes handled per write transaction when marking everything read.
const SCOPES_PER_BATCH: usize = 100;
/// Messages changed per write transaction by `POST /messages/flags`.
const FLAG_IDS_PER_BATCH: usize = 500;

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

/// A flags request's operation (`true` to add) and flag bit, refused as upstream refuses them.
fn op_and_flag(op: &str, flag: &str) -> Result<(bool, i64)> {
    let add = match op {
        "add" => true,
        "remove" => false,
        other => {
            return Err(Error::bad_request(format!(
                "Invalid message flag operation: '{other}'"
            )));
        }
    };
    Ok((add, flag_bit(flag)?))
}

/// The name of an editable flag's bit (as `flag_bit` accepts them).
fn editable_name(bit: i64) -> &'static str {
    match bit {
        bits::READ => "read",
        bits::STARRED => "starred",
        _ => "collapsed",
    }
}

/// The outcome of a flags request.
pub struct FlagsOutcome {
    /// The message ids of the request, each once, in the order first given.
    pub messages: Vec<i64>,
    /// Channels whose messages were skipped because the user is not subscribed (read flag).
    pub ignored_channels: Vec<i64>,
    /// How many messages were written (those skipped for the read flag are not).
    pub changed: usize,
}

/// The request's ids without repeats, in first-given order; refused with a clear error once
/// more than `max` distinct ids are seen (so a huge list costs no more than the cap to check).
pub fn distinct_ids(ids: &[i64], max: usize) -> Result<Vec<i64>> {
    let mut seen = std::collections::HashSet::with_capacity(ids.len().min(max + 1));
    let mut out = Vec::new();
    for &id in ids {
        if seen.insert(id) {
            if out.len() == max {
                return Err(Error::bad_request(format!(
                    "Too many messages: at most {max} message IDs per request"
                )));
            }
            out.push(id);
        }
    }
    Ok(out)
}

/// `POST /messages/flags`. The ids are deduplicated and capped (`[limits]
/// max_flag_message_ids`); all are checked in one read first, so an invalid id changes
/// nothing, then the changes are written in bounded batches, each its own short write, so one
/// request never holds the writer for long.
pub async fn update(
    state: &Core,
    user: &User,
    ids: &[i64],
    op: &str,
    flag: &str,
) -> Result<FlagsOutcome> {
    let (add, bit) = op_and_flag(op, flag)?;
    let flag_name = editable_name(bit);
    let messages = distinct_ids(ids, state.config.limits.max_flag_message_ids)?;
    let check = messages.clone();
    let reader = user.clone();
    state
        .db
        .read(move |c| {
            for id in check {
                super::readable(c, &reader, MessageId(id))?;
            }
            Ok(())
        })
        .await?;
    let mut ignored: Vec<i64> = Vec::new();
    let mut changed = 0;
    for batch in messages.chunks(FLAG_IDS_PER_BATCH) {
        let batch = batch.to_vec();
        let user = user.clone();
        let skipped = state
            .db
            .write(move |tx| {
                let mut changed = Vec::new();
                let mut ignored: Vec<i64> = Vec::new();
                for id in batch {
                    // Checked above; one deleted since then is skipped like a missing one.
                    let r = match super::readable(tx, &user, MessageId(id)) {
                        Ok(r) => r,
                        Err(e) if e.kind == ErrorKind::BadRequest => continue,
                        Err(e) => return Err(e),
                    };
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
                            let below = id <= flags_db::read_floor(tx, user.id, scope)?;
                            (if below { bits::UNREAD_OVERRIDE } else { 0 }, bits::READ)
                        }
                        (b, true) => (b, 0),
                        (b, false) => (0, b),
                    };
                    flags_db::change(tx, user.id, MessageId(id), set, clear)?;
                    changed.push(MessageId(id));
                }
                let count = changed.len();
                if bit == bits::READ && add && !changed.is_empty() {
                    retract_read(tx, user.id, crate::time::now_millis())?;
                }
                if !changed.is_empty() {
                    tx.emit(Event::FlagsChanged(FlagsChanged {
                        user_id: user.id,
                        flag: flag_name,
                        add,
                        message_ids: changed,
                        all: false,
                    }));
                }
                Ok((ignored, count))
            })
            .await?;
        let (skipped, count) = skipped;
        changed += count;
        for ch in skipped {
            if !ignored.contains(&ch) {
                ignored.push(ch);
            }
        }
    }
    Ok(FlagsOutcome {
        messages,
        ignored_channels: ignored,
        changed,
    })
}

/// Upstream's bound on the range of `POST /messages/flags/narrow`.
pub const MAX_MESSAGES_PER_UPDATE: i64 = 5000;

/// The outcome of `POST /messages/flags/narrow`.
pub struct NarrowFlagsOutcome {
    /// The ids in the update range, oldest first.
    pub processed: Vec<i64>,
    /// How many of them had the flag changed.
    pub updated: usize,
    pub found_oldest: bool,
    pub found_newest: bool,
    /// Channels whose messages were skipped because the user is not subscribed (read flag).
    pub ignored_channels: Vec<i64>,
}

/// `POST /messages/flags/narrow`: adds or removes a flag on the messages of a narrow around an
/// anchor. The range is shrunk to [`MAX_MESSAGES_PER_UPDATE`] messages (as upstream: the
/// client continues from `first_processed_id`/`last_processed_id` until `found_oldest` or
/// `found_newest`); only messages whose flag differs are written, in bounded batches.
pub async fn update_in_narrow(
    state: &Core,
    user: &User,
    mut range: super::fetch::Range,
    narrow: narrow::Narrow,
    op: &str,
    flag: &str,
) -> Result<NarrowFlagsOutcome> {
    let (add, bit) = op_and_flag(op, flag)?;
    if range.num_before < 0 || range.num_after < 0 {
        return Err(Error::bad_request(
            "num_before and num_after must not be negative",
        ));
    }
    let max = MAX_MESSAGES_PER_UPDATE;
    range.num_before = range.num_before.min((max - range.num_after).max(max / 2));
    range.num_after = range.num_after.min(max - range.num_before);
    let page = super::fetch::fetch(state, user, range, narrow).await?;
    let processed: Vec<i64> = page
        .bundle
        .messages
        .iter()
        .map(|v| v.message.id.0)
        .collect();
    let name = editable_name(bit);
    let differ: Vec<i64> = page
        .bundle
        .messages
        .iter()
        .filter(|v| v.flags.contains(&name) != add)
        .map(|v| v.message.id.0)
        .collect();
    let (updated, ignored_channels) = if differ.is_empty() {
        (0, Vec::new())
    } else {
        let out = update(state, user, &differ, op, flag).await?;
        (out.changed, out.ignored_channels)
    };
    Ok(NarrowFlagsOutcome {
        processed,
        updated,
        found_oldest: page.found_oldest,
        found_newest: page.found_newest,
        ignored_channels,
    })
}

/// `POST /mark_all_as_read`: returns whether everything was marked within the time budget.
pub async fn mark_all(state: &Core, user: &User) -> Result<bool> {
    let started = Instant::now();
    let uid = user.id;
    let scopes: Vec<i64> = state
        .db
        .read(move |c| {
            let mut scopes = db::period_channels(c, uid)?;
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
                    flags_db::read_whole_scope(tx, uid, scope)?;
                }
                // Messages the user received without a subscription (their own copies).
                flags_db::read_own_copies(tx, uid)
            })
            .await?;
    }
    state
        .db
        .write(move |tx| {
            retract_read(tx, uid, crate::time::now_millis())?;
            tx.emit(Event::FlagsChanged(FlagsChanged {
                user_id: uid,
                flag: "read",
                add: true,
                message_ids: Vec::new(),
                all: true,
            }));
            Ok(())
        })
        .await?;
    Ok(true)
}

/// `POST /mark_stream_as_read`.
pub async fn mark_channel(state: &Core, user: &User, channel: ChannelId) -> Result<()> {
    let user = user.clone();
    state
        .db
        .write(move |tx| {
            crate::domain::channels::visible_by_id(tx, &user, channel)?;
            let ids = narrows_db::unread_in_channel(tx, user.id, channel)?;
            flags_db::read_whole_scope(tx, user.id, channel.0)?;
            if !ids.is_empty() {
                retract_read(tx, user.id, crate::time::now_millis())?;
                tx.emit(Event::FlagsChanged(FlagsChanged {
                    user_id: user.id,
                    flag: "read",
                    add: true,
                    message_ids: ids,
                    all: false,
                }));
            }
            Ok(())
        })
        .await
}

/// `POST /mark_topic_as_read`.
pub async fn mark_topic(
    state: &Core,
    user: &User,
    channel: ChannelId,
    topic: String,
) -> Result<()> {
    let user = user.clone();
    state
        .db
        .write(move |tx| {
            crate::domain::channels::visible_by_id(tx, &user, channel)?;
            if !topics_db::exists(tx, channel, &topic)? {
                return Err(Error::bad_request(format!("No such topic '{topic}'")));
            }
            let ids = narrows_db::unread_in_topic(tx, user.id, channel, &topic)?;
            for id in &ids {
                flags_db::change(tx, user.id, *id, bits::READ, bits::UNREAD_OVERRIDE)?;
            }
            if !ids.is_empty() {
                retract_read(tx, user.id, crate::time::now_millis())?;
                tx.emit(Event::FlagsChanged(FlagsChanged {
                    user_id: user.id,
                    flag: "read",
                    add: true,
                    message_ids: ids,
                    all: false,
                }));
            }
            Ok(())
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_deduplicated_in_order_and_capped_after_deduplication() {
        assert_eq!(distinct_ids(&[3, 1, 3, 2, 1], 3).unwrap(), vec![3, 1, 2]);
        assert_eq!(distinct_ids(&[7; 10_000], 1).unwrap(), vec![7]);
        let e = distinct_ids(&[1, 2, 3, 4], 3).unwrap_err();
        assert_eq!(
            e.msg,
            "Too many messages: at most 3 message IDs per request"
        );
        assert!(distinct_ids(&[], 3).unwrap().is_empty());
    }
}
