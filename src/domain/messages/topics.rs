//! Topics: listing a channel's topics, per-user topic visibility (mute, follow), and the
//! topic rules every path shares: normalising a topic name, a channel's topics policy, and
//! the automatic follow and unmute a send makes. It must not store or render messages.

use rusqlite::Connection;

use crate::db::{channels as channels_db, topics as db};
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, UserTopicChanged};
use crate::ids::{ChannelId, MessageId, UserId};
use crate::model::{Channel, TopicsPolicy, User};

use super::narrow;

/// `GET /users/me/{stream_id}/topics`: (name, newest message id), newest first, names as in
/// the newest message of each case-insensitive group, counting only readable messages.
pub async fn list(state: &Core, user: &User, channel: ChannelId) -> Result<Vec<(String, i64)>> {
    let user = user.clone();
    state
        .db
        .read(move |c| {
            crate::domain::channels::visible_by_id(c, &user, channel)?;
            let access = narrow::message_access(c, &user)?;
            db::list_for_channel(c, channel, &access)
        })
        .await
}

/// Where a topic-visibility request points.
pub enum ChannelRef {
    Id(i64),
    Name(String),
}

/// Sets a user's visibility policy (0 inherit, 1 muted, 2 unmuted, 3 followed) for a topic,
/// which need not have messages.
pub async fn set_policy(
    state: &Core,
    user: &User,
    channel: ChannelRef,
    topic: String,
    policy: i64,
) -> Result<()> {
    if !(0..=3).contains(&policy) {
        return Err(Error::bad_request("Invalid visibility_policy"));
    }
    let topic = topic.trim().to_string();
    if topic.chars().count() > MAX_TOPIC_LENGTH {
        return Err(Error::bad_request(format!(
            "topic is too long (limit: {MAX_TOPIC_LENGTH} characters)"
        )));
    }
    let topic = normalize_topic(&topic)?;
    let user = user.clone();
    state
        .db
        .write(move |tx| {
            let ch = match channel {
                ChannelRef::Id(id) => {
                    crate::domain::channels::visible_by_id(tx, &user, ChannelId(id))?.channel
                }
                ChannelRef::Name(name) => {
                    let not_found = || Error::bad_request(format!("Invalid channel name '{name}'"));
                    let ch = channels_db::by_name(tx, &name)?.ok_or_else(not_found)?;
                    let a = crate::domain::channels::access(tx, &user, ch)?;
                    if !a.metadata {
                        return Err(not_found());
                    }
                    a.channel
                }
            };
            if db::visibility_policy(tx, user.id, ch.id, &topic)? == policy {
                return Ok(());
            }
            db::set_visibility_policy(tx, user.id, ch.id, &topic, policy, crate::time::now_secs())?;
            tx.emit(Event::UserTopicChanged(UserTopicChanged {
                user_id: user.id,
                channel_id: ch.id,
                topic,
                visibility_policy: policy,
            }));
            Ok(())
        })
        .await
}

pub const MAX_TOPIC_LENGTH: usize = 60;
/// What clients show for the empty topic (`realm_empty_topic_display_name`).
pub const EMPTY_TOPIC_DISPLAY_NAME: &str = "general chat";

/// Topic visibility policies.
pub mod visibility {
    pub const INHERIT: i64 = 0;
    pub const MUTED: i64 = 1;
    pub const UNMUTED: i64 = 2;
    pub const FOLLOWED: i64 = 3;
}

/// Normalizes a topic: trimmed, the display names of the empty topic read as empty, long
/// topics cut with `...`.
pub fn normalize_topic(raw: &str) -> Result<String> {
    let t = raw.trim();
    if let Some(pos) = t.chars().position(|c| c.is_control()) {
        return Err(Error::bad_request(format!(
            "Invalid character in topic, at position {}!",
            pos + 1
        )));
    }
    if t == "(no topic)" || t == EMPTY_TOPIC_DISPLAY_NAME {
        return Ok(String::new());
    }
    if t.chars().count() > MAX_TOPIC_LENGTH {
        let mut out: String = t.chars().take(MAX_TOPIC_LENGTH - 3).collect();
        out.push_str("...");
        return Ok(out);
    }
    Ok(t.to_string())
}

/// Applies a channel's topics policy (the realm allows the empty topic by default).
pub(super) fn check_topic_policy(ch: &Channel, topic: &str) -> Result<()> {
    match ch.topics_policy {
        TopicsPolicy::DisableEmptyTopic if topic.is_empty() => Err(Error::bad_request(
            "Sending messages to the general chat is not allowed in this channel.",
        )),
        TopicsPolicy::EmptyTopicOnly if !topic.is_empty() => Err(Error::bad_request(
            "Only the general chat topic is allowed in this channel.",
        )),
        _ => Ok(()),
    }
}

/// Zulip's defaults: a user follows the topics they start, and sending to a topic in a muted
/// channel unmutes it. Returns the new policy if it changed.
pub(super) fn auto_follow(
    tx: &Connection,
    user: UserId,
    ch: ChannelId,
    topic: &str,
    id: MessageId,
) -> Result<Option<i64>> {
    let current = crate::db::topics::visibility_policy(tx, user, ch, topic)?;
    if current != visibility::INHERIT {
        return Ok(None);
    }
    let first_in_topic = !crate::db::topics::has_message_before(tx, ch, topic, id)?;
    let new = if first_in_topic {
        visibility::FOLLOWED
    } else if channels_db::subscription(tx, user, ch)?.is_some_and(|s| s.active && s.is_muted) {
        visibility::UNMUTED
    } else {
        return Ok(None);
    };
    crate::db::topics::set_visibility_policy(tx, user, ch, topic, new, crate::time::now_secs())?;
    Ok(Some(new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_are_normalized() {
        assert_eq!(normalize_topic("  lunch ").unwrap(), "lunch");
        assert_eq!(normalize_topic("(no topic)").unwrap(), "");
        assert_eq!(normalize_topic("general chat").unwrap(), "");
        let long = "t".repeat(70);
        let out = normalize_topic(&long).unwrap();
        assert_eq!(out.chars().count(), MAX_TOPIC_LENGTH);
        assert!(out.ends_with("..."));
        assert_eq!(
            normalize_topic("a\u{7}b").unwrap_err().msg,
            "Invalid character in topic, at position 2!"
        );
    }
}
