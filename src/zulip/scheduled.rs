//! Scheduled message and reminder endpoints.

use serde_json::Value;

use crate::domain::scheduled::{self, Destination, NewScheduled, ScheduledEdit};
use crate::error::{Error, Result};
use crate::http::Request;
use crate::ids::ScheduledId;
use crate::model::{ScheduledKind, User};
use crate::zulip::ChatState;

use super::envelope::Success;
use super::messages::client_name;
use super::params::{Params, as_int};
use super::wire::scheduled as wire;

/// `type`: true for a channel message.
fn is_channel(kind: &str) -> Result<bool> {
    match kind {
        "stream" | "channel" => Ok(true),
        "private" | "direct" => Ok(false),
        _ => Err(Error::bad_request("Invalid type")),
    }
}

/// `to` as upstream reads it for scheduled messages: a channel id (an integer), or a list of
/// user ids.
fn destination(channel: bool, raw: &str) -> Result<Destination> {
    let v: Option<Value> = serde_json::from_str(raw).ok();
    if channel {
        return v
            .as_ref()
            .and_then(as_int)
            .map(Destination::Channel)
            .ok_or_else(|| Error::bad_request("Invalid data type for channel ID"));
    }
    match v {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(as_int)
            .collect::<Option<Vec<i64>>>()
            .map(Destination::Users)
            .ok_or_else(|| Error::bad_request("Invalid data type for recipients")),
        Some(Value::Array(_)) => Err(Error::bad_request("Message must have recipients")),
        _ => Err(Error::bad_request("Invalid data type for recipients")),
    }
}

/// # `GET /api/v1/scheduled_messages`
pub async fn list(state: &ChatState, caller: &User) -> Result<Success> {
    let items = scheduled::list(state, caller, ScheduledKind::Message).await?;
    Ok(Success::new().field("scheduled_messages", wire::items(&items)))
}

/// # `POST /api/v1/scheduled_messages`
pub async fn create(
    state: &ChatState,
    caller: &User,
    req: &Request,
    p: &mut Params,
) -> Result<Success> {
    let channel = is_channel(&p.required_str("type")?)?;
    let to = p.required_str("to")?;
    let content = p.required_str("content")?;
    let topic = p.aliased_str("topic", "subject")?;
    let deliver_at = p.required_int("scheduled_delivery_timestamp")?;
    let read_by_sender = p.bool("read_by_sender")?;
    let client = client_name(req, p);
    let to = destination(channel, &to)?;
    if channel && topic.is_none() {
        return Err(Error::bad_request("Missing topic"));
    }
    let id = scheduled::create(
        state,
        caller,
        NewScheduled {
            to,
            topic,
            content,
            deliver_at,
            read_by_sender,
            client,
        },
        crate::time::now_secs(),
    )
    .await?;
    Ok(Success::new().field("scheduled_message_id", id.0))
}

/// # `PATCH /api/v1/scheduled_messages/{scheduled_message_id}`
pub async fn update(state: &ChatState, caller: &User, id: i64, p: &mut Params) -> Result<Success> {
    let kind = p.str("type");
    let to = p.str("to");
    let topic = p.aliased_str("topic", "subject")?;
    let content = p.str("content");
    let deliver_at = p.int("scheduled_delivery_timestamp")?;
    if kind.is_none()
        && to.is_none()
        && topic.is_none()
        && content.is_none()
        && deliver_at.is_none()
    {
        return Err(Error::bad_request("Nothing to change"));
    }
    let to = match (kind, to) {
        (Some(kind), Some(to)) => {
            let channel = is_channel(&kind)?;
            if channel && topic.is_none() {
                return Err(Error::bad_request(
                    "Topic required when updating scheduled message type to stream.",
                ));
            }
            Some(destination(channel, &to)?)
        }
        (Some(kind), None) => {
            is_channel(&kind)?;
            return Err(Error::bad_request(
                "Recipient required when updating type of scheduled message.",
            ));
        }
        (None, Some(to)) => {
            // The type stays; `to` is read as that type's recipient.
            let current = scheduled::list(state, caller, ScheduledKind::Message)
                .await?
                .into_iter()
                .find(|s| s.id.0 == id)
                .ok_or_else(|| Error::not_found("Scheduled message does not exist"))?;
            Some(destination(current.channel_id.is_some(), &to)?)
        }
        (None, None) => None,
    };
    let edit = ScheduledEdit {
        to,
        topic,
        content,
        deliver_at,
    };
    scheduled::edit(
        state,
        caller,
        ScheduledId(id),
        edit,
        crate::time::now_secs(),
    )
    .await?;
    Ok(Success::new())
}

/// # `DELETE /api/v1/scheduled_messages/{scheduled_message_id}`
pub async fn delete(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    scheduled::delete(state, caller, ScheduledKind::Message, ScheduledId(id)).await?;
    Ok(Success::new())
}

/// # `GET /api/v1/reminders`
pub async fn list_reminders(state: &ChatState, caller: &User) -> Result<Success> {
    let items = scheduled::list(state, caller, ScheduledKind::Reminder).await?;
    Ok(Success::new().field("reminders", wire::items(&items)))
}

/// # `POST /api/v1/reminders`
pub async fn create_reminder(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let message_id = p.required_int("message_id")?;
    let deliver_at = p.required_int("scheduled_delivery_timestamp")?;
    let note = p.str("note");
    let id = scheduled::create_reminder(
        state,
        caller,
        message_id,
        deliver_at,
        note,
        crate::time::now_secs(),
    )
    .await?;
    Ok(Success::new().field("reminder_id", id.0))
}

/// # `DELETE /api/v1/reminders/{reminder_id}`
pub async fn delete_reminder(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    scheduled::delete(state, caller, ScheduledKind::Reminder, ScheduledId(id)).await?;
    Ok(Success::new())
}
