//! Scheduled messages and reminders: creating, editing and deleting them, and delivering the
//! due ones.
//!
//! A scheduled message is checked like a send when it is scheduled (and edited), and sent
//! through `send::send_in` when its time comes; a reminder's text is composed when it is
//! created and Notification Bot sends it to its owner. [`deliver_due`] takes `now` as a
//! parameter; the one timer task that reads the clock lives in `app` and is woken through
//! `Core::scheduler_wake` when an item is stored. Each delivery sends the message and marks
//! the item delivered in one write transaction, so a crash never loses or repeats one; an item
//! that cannot be sent (channel archived, owner deactivated, no longer allowed) is marked
//! failed and stays listed with `failed: true`.

use rusqlite::Connection;

use crate::db::{
    WriteTx, channels as channels_db, conversations as conversations_db, scheduled as db,
    users as users_db,
};
use crate::domain::channels::UserRefArg;
use crate::domain::core::Core;
use crate::domain::messages::send::{
    self, MAX_MESSAGE_LENGTH, NewMessage, Notice, NoticeDestination, Recipient,
};
use crate::error::{Error, Result};
use crate::events::{Event, ScheduledChanged, ScheduledOp};
use crate::ids::{ChannelId, MessageId, ScheduledId, UserId};
use crate::markdown::syntax::{
    direct_message_url, mentions_for_display, message_link, message_url, silent_mention,
    unused_fence,
};
use crate::model::{Scheduled, ScheduledKind, ScheduledState, User};

/// The latest delivery time accepted (the end of the year 9999, UTC); later ones are refused.
pub const MAX_DELIVERY_TIMESTAMP: i64 = 253_402_300_799;

/// Due items one pass reads at a time.
const DUE_BATCH: i64 = 100;

/// Where a scheduled message goes, as the request named it (ids only, as upstream).
#[derive(Clone, Debug, PartialEq)]
pub enum Destination {
    Channel(i64),
    Users(Vec<i64>),
}

/// A message to schedule.
#[derive(Clone, Debug)]
pub struct NewScheduled {
    pub to: Destination,
    pub topic: Option<String>,
    pub content: String,
    pub deliver_at: i64,
    pub read_by_sender: Option<bool>,
    /// The scheduling client's name (decides `read_by_sender` when absent, as for sending).
    pub client: String,
}

/// Changes to a scheduled message; `None` keeps a value. A new `to` may change the type (a
/// channel id or a list of user ids).
#[derive(Clone, Debug, Default)]
pub struct ScheduledEdit {
    pub to: Option<Destination>,
    pub topic: Option<String>,
    pub content: Option<String>,
    pub deliver_at: Option<i64>,
}

fn check_time(deliver_at: i64, now: i64) -> Result<()> {
    if deliver_at > MAX_DELIVERY_TIMESTAMP {
        return Err(Error::bad_request("Invalid scheduled_delivery_timestamp"));
    }
    if deliver_at <= now {
        return Err(Error::bad_request(
            "Scheduled delivery time must be in the future.",
        ));
    }
    Ok(())
}

fn not_found() -> Error {
    Error::not_found("Scheduled message does not exist")
}

fn reminder_not_found() -> Error {
    Error::not_found("Reminder does not exist")
}

fn new_message(
    to: &Destination,
    topic: Option<String>,
    content: String,
    client: String,
    read_by_sender: Option<bool>,
) -> NewMessage {
    let recipient = match to {
        Destination::Channel(id) => Recipient::ChannelId(*id),
        Destination::Users(ids) => {
            Recipient::Users(ids.iter().map(|i| UserRefArg::Id(*i)).collect())
        }
    };
    NewMessage {
        topic: matches!(to, Destination::Channel(_))
            .then_some(topic)
            .flatten(),
        recipient,
        content,
        client,
        read_by_sender,
        local: None,
    }
}

/// Checks a scheduled message as a send now would and sets its destination, content and
/// rendering in `item` (whose `read_by_sender` and `client` the check uses).
fn check_into(
    c: &Connection,
    owner: &User,
    item: &mut Scheduled,
    to: &Destination,
    topic: Option<String>,
    content: String,
    urls: (&str, &str),
) -> Result<()> {
    let new = new_message(to, topic, content, item.client.clone(), item.read_by_sender);
    let (content, rendered, topic) = send::check(c, owner, &new, urls.0, urls.1)?;
    (item.channel_id, item.recipients) = match to {
        Destination::Channel(id) => (Some(ChannelId(*id)), Vec::new()),
        Destination::Users(ids) => (None, ids.iter().map(|i| UserId(*i)).collect()),
    };
    item.content = content;
    item.rendered_content = rendered;
    item.topic = topic;
    Ok(())
}

fn wake(state: &Core) {
    state.scheduler_wake.notify_one();
}

/// Schedules a message; returns its id.
pub async fn create(
    state: &Core,
    owner: &User,
    new: NewScheduled,
    now: i64,
) -> Result<ScheduledId> {
    check_time(new.deliver_at, now)?;
    let limit = state.config.limits.max_scheduled_messages_per_user as i64;
    let realm_url = state.config.chat.external_url.clone();
    let host = state.config.realm_host().to_string();
    let o = owner.clone();
    let id = state
        .db
        .write(move |tx| {
            if db::pending_count(tx, o.id, ScheduledKind::Message)? >= limit {
                return Err(Error::bad_request(format!(
                    "You may have at most {limit} scheduled messages."
                )));
            }
            let mut item = Scheduled {
                id: ScheduledId(0),
                kind: ScheduledKind::Message,
                owner: o.id,
                channel_id: None,
                topic: String::new(),
                recipients: Vec::new(),
                content: String::new(),
                rendered_content: String::new(),
                deliver_at: new.deliver_at,
                read_by_sender: new.read_by_sender,
                client: new.client,
                target_message_id: None,
                state: ScheduledState::Pending,
                created: now,
            };
            check_into(
                tx,
                &o,
                &mut item,
                &new.to,
                new.topic,
                new.content,
                (&realm_url, &host),
            )?;
            let id = db::insert(tx, &item)?;
            tx.emit(Event::ScheduledChanged(ScheduledChanged {
                owner: o.id,
                id,
                kind: ScheduledKind::Message,
                op: ScheduledOp::Added,
            }));
            Ok(id)
        })
        .await?;
    wake(state);
    Ok(id)
}

/// The caller's undelivered items of one kind (pending or failed), by delivery time.
pub async fn list(state: &Core, owner: &User, kind: ScheduledKind) -> Result<Vec<Scheduled>> {
    let id = owner.id;
    state.db.read(move |c| db::open_for(c, id, kind)).await
}

/// Edits a scheduled message that is pending or failed; a failed one needs a new time.
pub async fn edit(
    state: &Core,
    owner: &User,
    id: ScheduledId,
    edit: ScheduledEdit,
    now: i64,
) -> Result<()> {
    if let Some(t) = edit.deliver_at {
        check_time(t, now)?;
    }
    let realm_url = state.config.chat.external_url.clone();
    let host = state.config.realm_host().to_string();
    let o = owner.clone();
    state
        .db
        .write(move |tx| {
            let mut item = db::get(tx, o.id, ScheduledKind::Message, id)?
                .filter(|s| s.state != ScheduledState::Delivered)
                .ok_or_else(not_found)?;
            if item.state == ScheduledState::Failed && edit.deliver_at.is_none() {
                return Err(Error::bad_request(
                    "Scheduled delivery time must be in the future.",
                ));
            }
            let to = edit.to.unwrap_or_else(|| match item.channel_id {
                Some(ch) => Destination::Channel(ch.0),
                None => Destination::Users(item.recipients.iter().map(|u| u.0).collect()),
            });
            let topic = edit.topic.or_else(|| Some(item.topic.clone()));
            let content = edit.content.unwrap_or_else(|| item.content.clone());
            check_into(tx, &o, &mut item, &to, topic, content, (&realm_url, &host))?;
            if let Some(t) = edit.deliver_at {
                item.deliver_at = t;
                item.state = ScheduledState::Pending;
            }
            db::update(tx, &item)?;
            tx.emit(Event::ScheduledChanged(ScheduledChanged {
                owner: o.id,
                id,
                kind: ScheduledKind::Message,
                op: ScheduledOp::Updated,
            }));
            Ok(())
        })
        .await?;
    wake(state);
    Ok(())
}

/// Deletes one of the caller's undelivered scheduled messages or reminders.
pub async fn delete(
    state: &Core,
    owner: &User,
    kind: ScheduledKind,
    id: ScheduledId,
) -> Result<()> {
    let owner = owner.id;
    state
        .db
        .write(move |tx| {
            db::get(tx, owner, kind, id)?
                .filter(|s| s.state != ScheduledState::Delivered)
                .ok_or_else(|| match kind {
                    ScheduledKind::Message => not_found(),
                    ScheduledKind::Reminder => reminder_not_found(),
                })?;
            db::delete(tx, id)?;
            tx.emit(Event::ScheduledChanged(ScheduledChanged {
                owner,
                id,
                kind,
                op: ScheduledOp::Removed,
            }));
            Ok(())
        })
        .await
}

/// Creates a reminder of message `message_id` for the caller at `deliver_at`, with an
/// optional note; returns its id.
pub async fn create_reminder(
    state: &Core,
    owner: &User,
    message_id: i64,
    deliver_at: i64,
    note: Option<String>,
    now: i64,
) -> Result<ScheduledId> {
    let max_note = state.config.limits.max_reminder_note_length;
    let note = note
        .map(|n| n.trim_end().trim_start_matches('\n').to_string())
        .filter(|n| !n.is_empty());
    if let Some(n) = &note
        && n.chars().count() > max_note
    {
        return Err(Error::bad_request(format!(
            "Maximum reminder note length: {max_note} characters"
        )));
    }
    check_time(deliver_at, now)?;
    let limit = state.config.limits.max_reminders_per_user as i64;
    let realm_url = state.config.chat.external_url.clone();
    let o = owner.clone();
    let id = state
        .db
        .write(move |tx| {
            let m = crate::domain::messages::readable(tx, &o, MessageId(message_id))?.message;
            if db::pending_count(tx, o.id, ScheduledKind::Reminder)? >= limit {
                return Err(Error::bad_request(format!(
                    "You may have at most {limit} reminders."
                )));
            }
            let content = reminder_text(tx, &o, &m, note.as_deref(), &realm_url)?;
            let content = send::normalize_content(&content)?;
            let rendered = crate::markdown::render_message(
                &content,
                &crate::domain::messages::lookup::DbLookup {
                    conn: tx,
                    sender: &o,
                    realm_url: &realm_url,
                },
            )
            .html;
            let item = Scheduled {
                id: ScheduledId(0),
                kind: ScheduledKind::Reminder,
                owner: o.id,
                channel_id: None,
                topic: String::new(),
                recipients: vec![o.id],
                content,
                rendered_content: rendered,
                deliver_at,
                read_by_sender: Some(false),
                client: "Internal".into(),
                target_message_id: Some(m.id),
                state: ScheduledState::Pending,
                created: now,
            };
            let id = db::insert(tx, &item)?;
            tx.emit(Event::ScheduledChanged(ScheduledChanged {
                owner: o.id,
                id,
                kind: ScheduledKind::Reminder,
                op: ScheduledOp::Added,
            }));
            Ok(id)
        })
        .await?;
    wake(state);
    Ok(id)
}

/// The reminder Notification Bot sends `owner` about message `m`: who said it where (linked),
/// the note quoted, and the message quoted (a widget is named instead).
fn reminder_text(
    c: &Connection,
    owner: &User,
    m: &crate::model::Message,
    note: Option<&str>,
    realm_url: &str,
) -> Result<String> {
    let sender = users_db::get_any(c, m.sender_id)?
        .ok_or_else(|| Error::internal("a message's sender is missing"))?;
    let who = silent_mention(&sender.full_name, sender.id.0);
    let what = if m.channel_id.is_some() {
        "message"
    } else {
        "direct message"
    };
    let mut text = match note {
        Some(n) => format!("You requested a reminder for the following {what}. Note:\n > {n}"),
        None => format!("You requested a reminder for the following {what}."),
    };
    text.push_str("\n\n");
    let widget = if m.content.starts_with("/poll") {
        Some("poll")
    } else if m.content.starts_with("/todo") {
        Some("todo list")
    } else {
        None
    };
    let (url, place) = match m.channel_id {
        Some(ch) => {
            let channel = channels_db::get(c, ch)?
                .ok_or_else(|| Error::internal("a message's channel is missing"))?;
            (
                message_url(realm_url, ch.0, &channel.name, &m.topic, m.id.0),
                format!("in {}", message_link(ch.0, &channel.name, &m.topic, m.id.0)),
            )
        }
        None => {
            let members = match m.conversation_id {
                Some(conv) => conversations_db::members(c, conv)?,
                None => Vec::new(),
            };
            let mut others: Vec<UserId> = members
                .iter()
                .copied()
                .filter(|u| *u != m.sender_id)
                .collect();
            if others.is_empty() {
                others.push(m.sender_id);
            }
            let users = users_db::get_many(c, &others)?;
            let names: Vec<String> = others
                .iter()
                .filter_map(|u| users.get(u))
                .map(|u| silent_mention(&u.full_name, u.id.0))
                .collect();
            let url_ids: Vec<i64> = if members.len() >= 3 {
                members.iter().map(|u| u.0).collect()
            } else {
                let other = members.iter().find(|u| **u != owner.id).copied();
                vec![other.unwrap_or(owner.id).0]
            };
            (
                direct_message_url(realm_url, &url_ids, m.id.0),
                format!("to {}", mentions_for_display(&names)),
            )
        }
    };
    if let Some(w) = widget {
        text.push_str(&format!("{who} [sent]({url}) a {w} {place}."));
        return Ok(text);
    }
    text.push_str(&format!("{who} [said]({url}) {place}:\n"));
    let fence = unused_fence(&m.content);
    let suffix = "\n[message truncated]";
    let room = MAX_MESSAGE_LENGTH
        .saturating_sub(text.chars().count() + 2 * fence.chars().count() + "quote\n\n".len());
    let quoted = if m.content.chars().count() > room {
        let mut cut: String = m
            .content
            .chars()
            .take(room.saturating_sub(suffix.chars().count()))
            .collect();
        cut.push_str(suffix);
        cut
    } else {
        m.content.clone()
    };
    text.push_str(&format!("{fence}quote\n{quoted}\n{fence}"));
    Ok(text)
}

/// What a delivery attempt did.
enum Delivered {
    Sent,
    /// Deleted or handled meanwhile.
    Gone,
}

/// Sends one due item and marks it delivered, in one write transaction.
fn deliver_one(
    tx: &mut WriteTx<'_>,
    id: ScheduledId,
    realm_url: &str,
    host: &str,
) -> Result<Delivered> {
    let Some(item) = db::get_any(tx, id)?.filter(|s| s.state == ScheduledState::Pending) else {
        return Ok(Delivered::Gone);
    };
    let owner = users_db::get(tx, item.owner)?
        .filter(|u| u.is_active)
        .ok_or_else(|| Error::bad_request("The sender is deactivated."))?;
    let message = match item.kind {
        ScheduledKind::Message => {
            let to = match item.channel_id {
                Some(ch) => Destination::Channel(ch.0),
                None => Destination::Users(item.recipients.iter().map(|u| u.0).collect()),
            };
            let new = new_message(
                &to,
                Some(item.topic.clone()),
                item.content.clone(),
                item.client.clone(),
                item.read_by_sender,
            );
            send::send_in(tx, &owner, new, realm_url, host)?.id
        }
        ScheduledKind::Reminder => {
            let bot = users_db::system_bot(tx, crate::domain::notices::NOTIFICATION_BOT)?
                .ok_or_else(|| Error::internal("Notification Bot is missing"))?;
            send::post_notice(
                tx,
                Notice {
                    sender: &bot,
                    destination: NoticeDestination::Direct(vec![owner.id]),
                    content: item.content.clone(),
                    read_by: None,
                },
                realm_url,
            )?
        }
    };
    db::finish(tx, id, Some(message))?;
    tx.emit(Event::ScheduledChanged(ScheduledChanged {
        owner: item.owner,
        id,
        kind: item.kind,
        op: ScheduledOp::Removed,
    }));
    Ok(Delivered::Sent)
}

/// Marks a pending item failed (its delivery was refused).
fn mark_failed(tx: &mut WriteTx<'_>, id: ScheduledId) -> Result<()> {
    let Some(item) = db::get_any(tx, id)? else {
        return Ok(());
    };
    if db::finish(tx, id, None)? {
        tx.emit(Event::ScheduledChanged(ScheduledChanged {
            owner: item.owner,
            id,
            kind: item.kind,
            op: ScheduledOp::Updated,
        }));
    }
    Ok(())
}

/// Delivers every pending item due at `now` (UNIX seconds) or earlier, oldest first; an item
/// that cannot be sent is marked failed. Returns how many were sent and the delivery time of
/// the next pending item.
pub async fn deliver_due(state: &Core, now: i64) -> Result<(usize, Option<i64>)> {
    let realm_url = state.config.chat.external_url.clone();
    let host = state.config.realm_host().to_string();
    let mut sent = 0;
    loop {
        let due = state.db.read(move |c| db::due(c, now, DUE_BATCH)).await?;
        let full = due.len() as i64 == DUE_BATCH;
        for item in due {
            let (u, h) = (realm_url.clone(), host.clone());
            let id = item.id;
            match state.db.write(move |tx| deliver_one(tx, id, &u, &h)).await {
                Ok(Delivered::Sent) => sent += 1,
                Ok(Delivered::Gone) => {}
                Err(e) => {
                    tracing::info!(scheduled_id = id.0, error = %e.msg, "scheduled delivery failed");
                    state.db.write(move |tx| mark_failed(tx, id)).await?;
                }
            }
        }
        if !full {
            break;
        }
    }
    let next = state.db.read(db::next_due).await?;
    Ok((sent, next))
}
