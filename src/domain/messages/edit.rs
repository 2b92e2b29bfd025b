//! Editing, moving and deleting messages, and reading their edit history.
//!
//! Content edits are for the sender within the edit window; topic moves for the sender within
//! the move window, moderators and the channel's movers; channel moves need the right to move
//! messages out of the source channel and to post in the target. Every change is recorded in
//! the edit history. Resolving a topic (adding or removing the "✔ " prefix) is recorded but
//! does not count as a move.

use sha2::{Digest, Sha256};

use crate::db::{channels as channels_db, messages as db};
use crate::db::{
    conversations as conversations_db, message_edits as edits_db, topics as topics_db,
};
use crate::domain::core::Core;
use crate::domain::{notices, realm_settings};
use crate::error::{Error, Result};
use crate::events::{ContentEdit, Event, MessageMove, MessageUpdated, MessagesDeleted};
use crate::ids::{ChannelId, MessageId};
use crate::model::{Channel, ChannelSetting, Message, MessageEdit, Role, User};

use super::lookup::DbLookup;
use super::send::normalize_topic;

// The default edit and move windows are organization settings' defaults, declared there.
pub use crate::domain::realm_settings::{
    CHANNEL_MOVE_LIMIT_SECS, CONTENT_EDIT_LIMIT_SECS, TOPIC_MOVE_LIMIT_SECS,
};
pub use crate::model::RESOLVED_TOPIC_PREFIX;
const DELETE_BATCH: usize = 100;

pub use crate::model::Propagate;

impl Propagate {
    pub fn parse(s: &str) -> Result<Propagate> {
        match s {
            "change_one" => Ok(Propagate::One),
            "change_later" => Ok(Propagate::Later),
            "change_all" => Ok(Propagate::All),
            _ => Err(Error::bad_request("Invalid propagate_mode")),
        }
    }
}

/// A requested edit.
#[derive(Clone, Debug, Default)]
pub struct EditRequest {
    pub content: Option<String>,
    pub topic: Option<String>,
    pub channel_id: Option<i64>,
    pub propagate: Option<Propagate>,
    pub prev_content_sha256: Option<String>,
    /// Notification Bot leaves a breadcrumb where moved messages were
    /// (`send_notification_to_old_thread`; the API's default is false).
    pub notify_old_thread: bool,
    /// ... and where they went (`send_notification_to_new_thread`; the API's default is true).
    pub notify_new_thread: bool,
}

fn no_permission() -> Error {
    Error::bad_request("You don't have permission to edit this message")
}

fn is_resolve_toggle(old: &str, new: &str) -> bool {
    resolve_direction(old, new).is_some()
}

/// `Some(true)` when renaming `old` to `new` resolves the topic, `Some(false)` when it
/// unresolves it, `None` for any other rename.
fn resolve_direction(old: &str, new: &str) -> Option<bool> {
    if new.strip_prefix(RESOLVED_TOPIC_PREFIX) == Some(old) {
        Some(true)
    } else if old.strip_prefix(RESOLVED_TOPIC_PREFIX) == Some(new) {
        Some(false)
    } else {
        None
    }
}

/// What the move notices need to know about a move, gathered while it happens.
struct MoveFacts {
    from: Channel,
    to: Channel,
    to_topic: String,
    destination_had_messages: bool,
    propagate: Propagate,
}

/// `PATCH /messages/{id}`.
pub async fn edit(state: &Core, user: &User, id: MessageId, req: EditRequest) -> Result<()> {
    if req.content.is_none() && req.topic.is_none() && req.channel_id.is_none() {
        return Err(Error::bad_request("Nothing to change"));
    }
    if req.propagate.is_some() && req.topic.is_none() && req.channel_id.is_none() {
        return Err(Error::bad_request(
            "Invalid propagate_mode without topic edit",
        ));
    }
    if req.content.is_some() && req.channel_id.is_some() {
        return Err(Error::bad_request(
            "Cannot change message content while changing channel",
        ));
    }
    let content = req
        .content
        .as_deref()
        .map(super::send::normalize_content)
        .transpose()?;
    let topic = req.topic.as_deref().map(normalize_topic).transpose()?;
    let user = user.clone();
    let now = crate::time::now_secs();
    let realm_url = state.config.chat.external_url.clone();
    state
        .db
        .write(move |tx| {
            let r = super::readable(tx, &user, id)?;
            let m = r.message;
            if m.conversation_id.is_some() {
                if topic.is_some() {
                    return Err(Error::bad_request("Direct messages cannot have topics."));
                }
                if req.channel_id.is_some() {
                    return Err(Error::bad_request(
                        "Direct messages cannot be moved to channels.",
                    ));
                }
            }
            if let Some(expected) = &req.prev_content_sha256 {
                let actual: String = Sha256::digest(m.content.as_bytes())
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                if !actual.eq_ignore_ascii_case(expected) {
                    return Err(Error::coded(
                        "EXPECTATION_MISMATCH",
                        "'prev_content_sha256' value does not match the expected value.",
                        vec![("field_name", serde_json::Value::from("prev_content_sha256"))],
                    ));
                }
            }
            let age = now - m.sent_at;
            let mut edited = m.clone();
            let mut changed_ids = vec![m.id];
            let mut content_edit = None;
            let mut moved = None;
            let mut facts = None;
            if let Some(new_content) = content {
                if m.sender_id != user.id {
                    return Err(no_permission());
                }
                if !realm_settings::flag(tx, realm_settings::ALLOW_MESSAGE_EDITING)? {
                    return Err(Error::bad_request(
                        "Your organization has turned off message editing",
                    ));
                }
                let limit =
                    realm_settings::time_limit(tx, realm_settings::MESSAGE_CONTENT_EDIT_LIMIT)?;
                if limit.is_some_and(|l| age > l) {
                    return Err(Error::bad_request(
                        "The time limit for editing this message has passed",
                    ));
                }
                let rendered = crate::markdown::render_message(
                    &new_content,
                    &DbLookup {
                        conn: tx,
                        sender: &user,
                        realm_url: &realm_url,
                    },
                );
                for gid in &rendered.mentioned_groups {
                    let group = crate::ids::GroupId(*gid);
                    crate::domain::user_groups::check_mention(tx, &user, group, false)?;
                }
                edits_db::add(
                    tx,
                    &MessageEdit {
                        message_id: m.id,
                        user_id: Some(user.id),
                        edited_at: now,
                        prev_content: Some(m.content.clone()),
                        prev_rendered_content: Some(m.rendered_content.clone()),
                        prev_channel_id: None,
                        channel_id: None,
                        prev_topic: None,
                        topic: None,
                    },
                )?;
                content_edit = Some(ContentEdit {
                    orig_content: m.content.clone(),
                    orig_rendered_content: m.rendered_content.clone(),
                });
                edited.content = new_content;
                edited.rendered_content = rendered.html;
                edited.is_me_message = rendered.is_me_message;
                edited.last_edit_at = Some(now);
                db::update(tx, &edited)?;
                crate::domain::uploads::link_message(tx, &user, m.id, &edited.content)?;
                super::edit_mentions::apply(
                    tx,
                    &user,
                    &edited,
                    &rendered.mentioned_users,
                    &rendered.mentioned_groups,
                )?;
            }
            let new_topic = topic.filter(|t| *t != m.topic);
            let new_channel = req
                .channel_id
                .map(ChannelId)
                .filter(|c| Some(*c) != m.channel_id);
            if new_topic.is_some() || new_channel.is_some() {
                let source = channels_db::get(tx, m.channel_id.ok_or_else(no_permission)?)?
                    .ok_or_else(super::invalid_message)?;
                let moderator = user.role <= Role::Moderator;
                let mut to = source.clone();
                if new_topic.is_some() {
                    let within = crate::domain::user_groups::holds(
                        tx,
                        &user,
                        source.setting(ChannelSetting::MoveMessagesWithinChannel),
                    )?;
                    let limit =
                        realm_settings::time_limit(tx, realm_settings::MOVE_WITHIN_CHANNEL_LIMIT)?;
                    let member_in_time =
                        user.role <= Role::Member && limit.is_none_or(|l| age <= l);
                    if !(moderator || within || member_in_time) {
                        return Err(no_permission());
                    }
                }
                if let Some(target) = new_channel {
                    let out = crate::domain::user_groups::holds(
                        tx,
                        &user,
                        source.setting(ChannelSetting::MoveMessagesOutOfChannel),
                    )?;
                    let limit = realm_settings::time_limit(
                        tx,
                        realm_settings::MOVE_BETWEEN_CHANNELS_LIMIT,
                    )?;
                    let member_in_time =
                        user.role <= Role::Member && limit.is_none_or(|l| age <= l);
                    if !(moderator || out || member_in_time) {
                        return Err(Error::bad_request(
                            "You don't have permission to move this message",
                        ));
                    }
                    let dest = channels_db::get(tx, target)?
                        .ok_or_else(|| Error::bad_request("Invalid channel ID"))?;
                    let a = crate::domain::channels::access(tx, &user, dest)?;
                    if !a.content || a.channel.is_archived {
                        return Err(Error::bad_request("Invalid channel ID"));
                    }
                    if !crate::domain::user_groups::holds(
                        tx,
                        &user,
                        a.channel.setting(ChannelSetting::SendMessage),
                    )? {
                        return Err(Error::bad_request(
                            "You do not have permission to post in this channel.",
                        ));
                    }
                    to = a.channel;
                }
                let propagate = req.propagate.unwrap_or(Propagate::One);
                let to_topic = new_topic.clone().unwrap_or_else(|| m.topic.clone());
                facts = Some(MoveFacts {
                    destination_had_messages: crate::db::topics::has_message_before(
                        tx,
                        to.id,
                        &to_topic,
                        MessageId(i64::MAX),
                    )?,
                    from: source.clone(),
                    to,
                    to_topic,
                    propagate,
                });
                moved = Some(MessageMove {
                    orig_channel: source.id,
                    orig_topic: m.topic.clone(),
                    new_channel,
                    new_topic: new_topic.clone(),
                    propagate,
                });
                let targets: Vec<Message> = match propagate {
                    Propagate::One => vec![edited.clone()],
                    Propagate::Later | Propagate::All => {
                        let floor = if propagate == Propagate::Later {
                            m.id.0
                        } else {
                            0
                        };
                        topics_db::messages_from(tx, source.id, &m.topic, floor)?
                    }
                };
                changed_ids.clear();
                for mut t in targets {
                    let moved_topic = new_topic.clone();
                    let is_move = new_channel.is_some()
                        || moved_topic
                            .as_deref()
                            .is_some_and(|nt| !is_resolve_toggle(&t.topic, nt));
                    edits_db::add(
                        tx,
                        &MessageEdit {
                            message_id: t.id,
                            user_id: Some(user.id),
                            edited_at: now,
                            prev_content: None,
                            prev_rendered_content: None,
                            prev_channel_id: new_channel.and(t.channel_id),
                            channel_id: new_channel,
                            prev_topic: moved_topic.as_ref().map(|_| t.topic.clone()),
                            topic: moved_topic.clone(),
                        },
                    )?;
                    if let Some(nt) = moved_topic {
                        t.topic = nt;
                    }
                    if let Some(nc) = new_channel {
                        t.channel_id = Some(nc);
                    }
                    if is_move {
                        t.last_moved_at = Some(now);
                    }
                    db::update(tx, &t)?;
                    changed_ids.push(t.id);
                }
            }
            let content_edited = content_edit.is_some();
            tx.emit(Event::MessageUpdated(MessageUpdated {
                message_id: m.id,
                message_ids: changed_ids.clone(),
                edited_by: user.id,
                edited_at: now,
                content_edit,
                moved,
            }));
            if let Some(f) = facts {
                let toggle = resolve_direction(&m.topic, &f.to_topic);
                let moved_all = f.propagate == Propagate::All
                    || !crate::db::topics::has_message_before(
                        tx,
                        f.from.id,
                        &m.topic,
                        MessageId(i64::MAX),
                    )?;
                notices::messages_moved(
                    tx,
                    &notices::Move {
                        actor: &user,
                        from: &f.from,
                        from_topic: &m.topic,
                        to: &f.to,
                        to_topic: &f.to_topic,
                        moved: &changed_ids,
                        moved_all,
                        destination_had_messages: f.destination_had_messages,
                        resolve_toggle: toggle.is_some(),
                        notify_old_thread: req.notify_old_thread,
                        notify_new_thread: req.notify_new_thread,
                    },
                    &realm_url,
                )?;
                if let Some(resolved) = toggle
                    && !content_edited
                    && f.from.id == f.to.id
                {
                    notices::topic_resolved(
                        tx,
                        &user,
                        &f.to,
                        &f.to_topic,
                        resolved,
                        now,
                        &realm_url,
                    )?;
                }
            }
            Ok(())
        })
        .await
}

/// `DELETE /messages/{id}`.
pub async fn delete(state: &Core, user: &User, id: MessageId) -> Result<()> {
    let user = user.clone();
    let removed = state
        .db
        .write(move |tx| {
            let r = super::readable(tx, &user, id)?;
            let m = r.message;
            let allowed = if user.role.is_admin() {
                true
            } else if let Some(ch) = m.channel_id {
                let ch = channels_db::get(tx, ch)?.ok_or_else(super::invalid_message)?;
                crate::domain::user_groups::holds(
                    tx,
                    &user,
                    ch.setting(ChannelSetting::DeleteAnyMessage),
                )? || (m.sender_id == user.id
                    && crate::domain::user_groups::holds(
                        tx,
                        &user,
                        ch.setting(ChannelSetting::DeleteOwnMessage),
                    )?)
            } else {
                m.sender_id == user.id
            };
            if !allowed {
                return Err(Error::bad_request(
                    "You don't have permission to delete this message",
                ));
            }
            let dm_members = match m.conversation_id {
                Some(conv) => conversations_db::members(tx, conv)?,
                None => Vec::new(),
            };
            db::delete(tx, m.id)?;
            crate::domain::notifications::jobs::retract_deleted(
                tx,
                &[m.id],
                crate::time::now_millis(),
            )?;
            tx.emit(Event::MessagesDeleted(MessagesDeleted {
                message_ids: vec![m.id],
                channel_id: m.channel_id,
                topic: m.topic,
                dm_members,
            }));
            // Uploads only this message linked go with it.
            crate::domain::uploads::drop_orphans(tx)
        })
        .await?;
    crate::domain::uploads::remove_stored(state, removed).await;
    Ok(())
}

/// `POST /streams/{id}/delete_topic`: deletes the topic's messages newest first, in batches,
/// until done (true) or out of time (false; the client repeats the request).
pub async fn delete_topic(
    state: &Core,
    user: &User,
    channel: ChannelId,
    topic: String,
) -> Result<bool> {
    if !user.role.is_admin() {
        return Err(Error::not_admin());
    }
    let started = std::time::Instant::now();
    let budget = std::time::Duration::from_secs(50);
    loop {
        if started.elapsed() > budget {
            return Ok(false);
        }
        let viewer = user.clone();
        let topic = topic.clone();
        let done = state
            .db
            .write(move |tx| {
                crate::domain::channels::visible_by_id(tx, &viewer, channel)?;
                let ids = topics_db::newest_ids(tx, channel, &topic, DELETE_BATCH as i64)?;
                for id in &ids {
                    db::delete(tx, *id)?;
                }
                let done = ids.len() < DELETE_BATCH;
                if !ids.is_empty() {
                    crate::domain::notifications::jobs::retract_deleted(
                        tx,
                        &ids,
                        crate::time::now_millis(),
                    )?;
                    tx.emit(Event::MessagesDeleted(MessagesDeleted {
                        message_ids: ids,
                        channel_id: Some(channel),
                        topic: topic.clone(),
                        dm_members: Vec::new(),
                    }));
                }
                Ok((done, crate::domain::uploads::drop_orphans(tx)?))
            })
            .await?;
        let (done, removed) = done;
        crate::domain::uploads::remove_stored(state, removed).await;
        if done {
            return Ok(true);
        }
    }
}

/// One state of a message in its history (oldest first).
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryEntry {
    pub user_id: Option<i64>,
    pub timestamp: i64,
    pub content: String,
    pub rendered_content: String,
    pub topic: String,
    pub channel_id: Option<ChannelId>,
    pub prev_content: Option<String>,
    pub prev_rendered_content: Option<String>,
    pub prev_topic: Option<String>,
    pub prev_channel_id: Option<ChannelId>,
}

/// `GET /messages/{id}/history`: every state of the message, oldest first.
pub async fn history(state: &Core, user: &User, id: MessageId) -> Result<Vec<HistoryEntry>> {
    let user = user.clone();
    state
        .db
        .read(move |c| {
            let m = super::readable(c, &user, id)?.message;
            let edits = edits_db::for_message(c, m.id)?;
            // Walk back from the current state to the original one.
            let mut content = m.content.clone();
            let mut rendered = m.rendered_content.clone();
            let mut topic = m.topic.clone();
            let mut channel = m.channel_id;
            let mut entries = Vec::with_capacity(edits.len() + 1);
            for e in edits.iter().rev() {
                let mut entry = HistoryEntry {
                    user_id: e.user_id.map(|u| u.0),
                    timestamp: e.edited_at,
                    content: content.clone(),
                    rendered_content: rendered.clone(),
                    topic: topic.clone(),
                    channel_id: channel,
                    prev_content: None,
                    prev_rendered_content: None,
                    prev_topic: None,
                    prev_channel_id: None,
                };
                if let (Some(pc), Some(pr)) = (&e.prev_content, &e.prev_rendered_content) {
                    entry.prev_content = Some(pc.clone());
                    entry.prev_rendered_content = Some(pr.clone());
                    content = pc.clone();
                    rendered = pr.clone();
                }
                if let Some(pt) = &e.prev_topic {
                    entry.prev_topic = Some(pt.clone());
                    topic = pt.clone();
                }
                if let Some(pch) = e.prev_channel_id {
                    entry.prev_channel_id = Some(pch);
                    channel = Some(pch);
                }
                entries.push(entry);
            }
            entries.push(HistoryEntry {
                user_id: Some(m.sender_id.0),
                timestamp: m.sent_at,
                content,
                rendered_content: rendered,
                topic,
                channel_id: channel,
                prev_content: None,
                prev_rendered_content: None,
                prev_topic: None,
                prev_channel_id: None,
            });
            entries.reverse();
            Ok(entries)
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolving_is_not_moving() {
        assert!(is_resolve_toggle("bug", "✔ bug"));
        assert!(is_resolve_toggle("✔ bug", "bug"));
        assert!(!is_resolve_toggle("bug", "✔ other"));
        assert!(!is_resolve_toggle("bug", "feature"));
    }
}
