//! Topic endpoints: listing a channel's topics, deleting a topic, muting and following.

use crate::domain::messages::edit;
use crate::domain::messages::send::EMPTY_TOPIC_DISPLAY_NAME;
use crate::domain::messages::topics::{self, ChannelRef};
use crate::error::{Error, Result};
use crate::ids::ChannelId;
use crate::model::User;
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::Params;
use super::wire;

/// # `GET /api/v1/users/me/{stream_id}/topics`
///
/// Topics with readable messages, newest first.
pub async fn get_topics(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let allow_empty = p.bool("allow_empty_topic_name")?.unwrap_or(false);
    let list = topics::list(state, caller, ChannelId(id)).await?;
    let out: Vec<_> = list
        .into_iter()
        .map(|(name, max_id)| {
            let name = if name.is_empty() && !allow_empty {
                EMPTY_TOPIC_DISPLAY_NAME.to_string()
            } else {
                name
            };
            wire::topic(&name, max_id)
        })
        .collect();
    Ok(Success::new().field("topics", out))
}

/// # `POST /api/v1/streams/{stream_id}/delete_topic`
///
/// Administrators delete a topic, newest messages first, in batches; `complete: false` means
/// the time ran out and the request should be repeated.
pub async fn delete_topic(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    if !caller.role.is_admin() {
        return Err(Error::not_admin());
    }
    let topic = p.required_str("topic_name")?;
    let topic = crate::domain::messages::send::normalize_topic(&topic)?;
    let complete = edit::delete_topic(state, caller, ChannelId(id), topic).await?;
    Ok(Success::new().field("complete", complete))
}

/// # `PATCH /api/v1/users/me/subscriptions/muted_topics`
///
/// Legacy muting: exactly one of `stream_id` and `stream`, `op` add or remove.
pub async fn update_muted_topic(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let by_id = p.int("stream_id")?;
    let by_name = p.str("stream");
    let channel = match (by_id, by_name) {
        (Some(_), Some(_)) => {
            return Err(Error::bad_request(
                "Unsupported parameter combination: stream_id, stream",
            ));
        }
        (Some(id), None) => ChannelRef::Id(id),
        (None, Some(name)) => ChannelRef::Name(name),
        (None, None) => return Err(Error::missing("stream_id")),
    };
    let topic = p.required_str("topic")?;
    let policy = match p.required_str("op")?.as_str() {
        "add" => 1,
        "remove" => 0,
        _ => return Err(Error::bad_request("Invalid op")),
    };
    topics::set_policy(state, caller, channel, topic, policy).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/user_topics`
pub async fn update_user_topic(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let id = p.required_int("stream_id")?;
    let topic = p.required_str("topic")?;
    let policy = p.required_int("visibility_policy")?;
    topics::set_policy(state, caller, ChannelRef::Id(id), topic, policy).await?;
    Ok(Success::new())
}
