//! The chat API's events about messages (`GET /events`): new submessages, reactions, flag
//! changes, edits and moves, deletions. Delivery decides who gets an event; these functions
//! only say how it looks. Re-exported by `events`, where the other event shapes live.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use crate::events::{ContentEdit, MessageMove};
use crate::ids::{ChannelId, MessageId, UserId};
use crate::model::{Message, User};

use super::api_email;

fn ids<T: Copy>(list: &[T], id: impl Fn(T) -> i64) -> Vec<i64> {
    list.iter().map(|x| id(*x)).collect()
}

/// A widget's submessage.
pub fn submessage(
    message_id: MessageId,
    submessage_id: i64,
    sender_id: UserId,
    msg_type: &str,
    content: &str,
) -> Value {
    json!({
        "type": "submessage",
        "msg_type": msg_type,
        "message_id": message_id.0,
        "submessage_id": submessage_id,
        "sender_id": sender_id.0,
        "content": content,
    })
}

/// A reaction added or removed by `user`.
pub fn reaction<'a>(
    add: bool,
    user: &'a User,
    host: &str,
    message_id: MessageId,
    emoji: [&'a str; 3],
) -> ReactionEvent<'a> {
    let [emoji_name, emoji_code, reaction_type] = emoji;
    ReactionEvent {
        kind: "reaction",
        op: if add { "add" } else { "remove" },
        user_id: user.id.0,
        user: Reactor {
            user_id: user.id.0,
            email: api_email(user, host),
            full_name: &user.full_name,
        },
        message_id: message_id.0,
        emoji_name,
        emoji_code,
        reaction_type,
    }
}

/// `reaction`.
#[derive(Serialize)]
pub struct ReactionEvent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    op: &'static str,
    user_id: i64,
    user: Reactor<'a>,
    message_id: i64,
    emoji_name: &'a str,
    emoji_code: &'a str,
    reaction_type: &'a str,
}

#[derive(Serialize)]
struct Reactor<'a> {
    user_id: i64,
    email: String,
    full_name: &'a str,
}

/// Where a message is, for `message_details` of unread marks.
pub enum MessagePlace {
    Channel(ChannelId, String),
    Direct(Vec<UserId>),
}

/// A user's flags changed; `details` (for removed read flags) say where the messages are.
pub fn flags<'a>(
    add: bool,
    flag: &'a str,
    message_ids: &[MessageId],
    all: bool,
    details: Option<&'a [(MessageId, MessagePlace)]>,
) -> FlagsEvent<'a> {
    let op = if add { "add" } else { "remove" };
    let message_details = details.map(|details| {
        details
            .iter()
            .map(|(id, place)| {
                let d = match place {
                    MessagePlace::Channel(ch, topic) => MessageDetail::Stream {
                        stream_id: ch.0,
                        topic,
                    },
                    MessagePlace::Direct(members) => MessageDetail::Private {
                        user_ids: ids(members, |u| u.0),
                    },
                };
                (id.0.to_string(), d)
            })
            .collect()
    });
    FlagsEvent {
        kind: "update_message_flags",
        op,
        operation: op,
        flag,
        messages: ids(message_ids, |m| m.0),
        all,
        message_details,
    }
}

/// `update_message_flags`.
#[derive(Serialize)]
pub struct FlagsEvent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    op: &'static str,
    operation: &'static str,
    flag: &'a str,
    messages: Vec<i64>,
    all: bool,
    /// Message id → where it is, for removed read flags.
    #[serde(skip_serializing_if = "Option::is_none")]
    message_details: Option<BTreeMap<String, MessageDetail<'a>>>,
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum MessageDetail<'a> {
    #[serde(rename = "stream")]
    Stream { stream_id: i64, topic: &'a str },
    #[serde(rename = "private")]
    Private { user_ids: Vec<i64> },
}

/// One committed edit of `m` (as it is now): content, topic and channel changes.
pub struct MessageEdited<'a> {
    pub m: &'a Message,
    pub message_ids: &'a [MessageId],
    pub edited_by: UserId,
    pub edited_at: i64,
    pub content_edit: Option<&'a ContentEdit>,
    pub moved: Option<&'a MessageMove>,
    /// The channel the messages were in before the edit.
    pub channel_name: Option<&'a str>,
}

/// `update_message`.
pub fn update_message(e: &MessageEdited<'_>) -> Value {
    let m = e.m;
    let mut body = json!({
        "type": "update_message",
        "user_id": e.edited_by.0,
        "edit_timestamp": e.edited_at,
        "message_id": m.id.0,
        "message_ids": ids(e.message_ids, |i| i.0),
        "flags": [],
        "rendering_only": false,
    });
    if let Some(ce) = e.content_edit {
        body["orig_content"] = json!(ce.orig_content);
        body["orig_rendered_content"] = json!(ce.orig_rendered_content);
        body["content"] = json!(m.content);
        body["rendered_content"] = json!(m.rendered_content);
        body["is_me_message"] = json!(m.is_me_message);
    }
    // Every move names its origin and the editor's propagate_mode, also when only the channel
    // changed; `subject` and `topic_links` only when the topic changed.
    if let Some(mv) = e.moved {
        body["propagate_mode"] = json!(mv.propagate.name());
        body["orig_subject"] = json!(mv.orig_topic);
        if let Some(topic) = &mv.new_topic {
            body["subject"] = json!(topic);
            body["topic_links"] = json!([]);
        }
        body["stream_id"] = json!(mv.orig_channel.0);
        if let Some(target) = mv.new_channel {
            body["new_stream_id"] = json!(target.0);
        }
    } else if let Some(ch) = m.channel_id {
        body["stream_id"] = json!(ch.0);
    }
    if let Some(name) = e.channel_name {
        body["stream_name"] = json!(name);
    }
    body
}

/// `delete_message` for clients that take a list (`bulk`) and, one per message, for those
/// that do not; `channel` is the channel and topic of channel messages.
pub fn delete_messages<'a>(
    ids: &[MessageId],
    channel: Option<(ChannelId, &'a str)>,
) -> (DeleteMessage<'a>, Vec<DeleteMessage<'a>>) {
    let event = |message_ids: Option<Vec<i64>>, message_id: Option<i64>| DeleteMessage {
        kind: "delete_message",
        message_ids,
        message_id,
        message_type: if channel.is_some() {
            "stream"
        } else {
            "private"
        },
        stream_id: channel.map(|(ch, _)| ch.0),
        topic: channel.map(|(_, topic)| topic),
    };
    let bulk = event(Some(ids.iter().map(|i| i.0).collect()), None);
    let singles = ids.iter().map(|id| event(None, Some(id.0))).collect();
    (bulk, singles)
}

/// `delete_message`: `message_ids` in the bulk form, `message_id` in the single one.
#[derive(Serialize)]
pub struct DeleteMessage<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message_ids: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message_id: Option<i64>,
    message_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    topic: Option<&'a str>,
}
