//! Delivery of presence and typing notifications.

use std::sync::Arc;

use crate::db::{channels as channels_db, users as users_db};
use crate::error::Result;
use crate::events::TypingTarget;
use crate::ids::UserId;
use crate::model::User;
use crate::zulip::ChatState;
use crate::zulip::wire::{self, events};

use super::{event_json, queues_wanting};

/// A user became active or idle, to everyone else.
pub(super) async fn deliver_presence(
    state: &ChatState,
    seq: u64,
    user: UserId,
    active: bool,
    timestamp: i64,
) -> Result<()> {
    let u = state.db.read(move |c| users_db::get_any(c, user)).await?;
    let Some(u) = u else { return Ok(()) };
    let now_ms = crate::time::now_millis();
    let email = wire::api_email(&u, state.config.realm_host());
    let full = event_json(&events::presence(
        user,
        Some(&email),
        active,
        timestamp,
        now_ms,
    ));
    let slim = event_json(&events::presence(user, None, active, timestamp, now_ms));
    for q in queues_wanting(state, seq, None, "presence") {
        if q.user_id == user {
            continue;
        }
        let body = if q.options.slim_presence {
            &slim
        } else {
            &full
        };
        state.queues.push(&q, Arc::clone(body));
    }
    Ok(())
}

/// Typing started or stopped, to the conversation's other participants.
pub(super) async fn deliver_typing(
    state: &ChatState,
    seq: u64,
    sender: UserId,
    start: bool,
    target: &TypingTarget,
) -> Result<()> {
    let target = target.clone();
    let loaded = state
        .db
        .read(move |c| {
            let Some(s) = users_db::get_any(c, sender)? else {
                return Ok(None);
            };
            // Direct recipients are named in the event (one read for all); a channel's
            // subscribers are only told.
            let (ids, recipients): (Vec<UserId>, Vec<User>) = match &target {
                TypingTarget::Direct(ids) => {
                    let found = users_db::get_many(c, ids)?;
                    let users: Vec<User> =
                        ids.iter().filter_map(|u| found.get(u).cloned()).collect();
                    (users.iter().map(|u| u.id).collect(), users)
                }
                TypingTarget::Channel { channel_id, .. } => {
                    (channels_db::subscriber_ids(c, *channel_id)?, Vec::new())
                }
            };
            Ok(Some((s, ids, recipients, target)))
        })
        .await?;
    let Some((s, ids, recipients, target)) = loaded else {
        return Ok(());
    };
    let host = state.config.realm_host();
    let (body, stream) = match &target {
        TypingTarget::Direct(_) => (events::typing(start, &s, host, &recipients, None), false),
        TypingTarget::Channel { channel_id, topic } => (
            events::typing(start, &s, host, &[], Some((*channel_id, topic.as_str()))),
            true,
        ),
    };
    let json = event_json(&body);
    for q in queues_wanting(state, seq, Some(&ids), "typing") {
        if stream && !q.options.stream_typing_notifications {
            continue;
        }
        if stream && q.user_id == sender {
            continue;
        }
        state.queues.push(&q, Arc::clone(&json));
    }
    Ok(())
}
