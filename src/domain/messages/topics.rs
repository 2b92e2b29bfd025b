//! Topics: listing a channel's topics and per-user topic visibility (mute, follow).

use crate::db::{channels as channels_db, topics as db};
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::Event;
use crate::ids::ChannelId;
use crate::model::User;

use super::narrow;
use super::send::MAX_TOPIC_LENGTH;

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
    let topic = super::send::normalize_topic(&topic)?;
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
            tx.emit(Event::UserTopicChanged {
                user_id: user.id,
                channel_id: ch.id,
                topic,
                visibility_policy: policy,
            });
            Ok(())
        })
        .await
}
