//! The chat API's events about messages (`GET /events`): new submessages, reactions, flag
//! changes, edits and moves, deletions. Delivery decides who gets an event; these types only say
//! how it looks. Re-exported by `events`, where the other event shapes live. All are typed
//! `Serialize` structs; those that were JSON trees before declare their fields in the order
//! the trees wrote their keys (sorted), so the text clients receive is unchanged.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::events::{ContentEdit, MessageMove};
use crate::ids::{ChannelId, MessageId, UserId};
use crate::model::{Message, User};

use super::api_email;

fn ids<T: Copy>(list: &[T], id: impl Fn(T) -> i64) -> Vec<i64> {
    list.iter().map(|x| id(*x)).collect()
}

/// A widget's submessage.
pub fn submessage<'a>(
    message_id: MessageId,
    submessage_id: i64,
    sender_id: UserId,
    msg_type: &'a str,
    content: &'a str,
) -> SubmessageEvent<'a> {
    SubmessageEvent {
        content,
        message_id: message_id.0,
        msg_type,
        sender_id: sender_id.0,
        submessage_id,
        kind: "submessage",
    }
}

/// `submessage` (keys sorted, as before it was typed).
#[derive(Serialize)]
pub struct SubmessageEvent<'a> {
    content: &'a str,
    message_id: i64,
    msg_type: &'a str,
    sender_id: i64,
    submessage_id: i64,
    #[serde(rename = "type")]
    kind: &'static str,
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

/// `update_message`: the content fields for a content edit, the origin and target for a move
/// (keys sorted, as before it was typed; absent fields are skipped).
#[derive(Serialize)]
pub struct UpdateMessage<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a str>,
    edit_timestamp: i64,
    /// Always empty: the editor's flags are not the hearers'.
    flags: [&'static str; 0],
    #[serde(skip_serializing_if = "Option::is_none")]
    is_me_message: Option<bool>,
    message_id: i64,
    message_ids: Vec<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new_stream_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    orig_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    orig_rendered_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    orig_subject: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    propagate_mode: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rendered_content: Option<&'a str>,
    rendering_only: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    subject: Option<&'a str>,
    /// Empty: topics carry no links here.
    #[serde(skip_serializing_if = "Option::is_none")]
    topic_links: Option<[&'static str; 0]>,
    #[serde(rename = "type")]
    kind: &'static str,
    user_id: i64,
}

/// `update_message`.
pub fn update_message<'a>(e: &MessageEdited<'a>) -> UpdateMessage<'a> {
    let m = e.m;
    let mut body = UpdateMessage {
        content: None,
        edit_timestamp: e.edited_at,
        flags: [],
        is_me_message: None,
        message_id: m.id.0,
        message_ids: ids(e.message_ids, |i| i.0),
        new_stream_id: None,
        orig_content: None,
        orig_rendered_content: None,
        orig_subject: None,
        propagate_mode: None,
        rendered_content: None,
        rendering_only: false,
        stream_id: m.channel_id.map(|ch| ch.0),
        stream_name: e.channel_name,
        subject: None,
        topic_links: None,
        kind: "update_message",
        user_id: e.edited_by.0,
    };
    if let Some(ce) = e.content_edit {
        body.orig_content = Some(&ce.orig_content);
        body.orig_rendered_content = Some(&ce.orig_rendered_content);
        body.content = Some(&m.content);
        body.rendered_content = Some(&m.rendered_content);
        body.is_me_message = Some(m.is_me_message);
    }
    // Every move names its origin and the editor's propagate_mode, also when only the channel
    // changed; `subject` and `topic_links` only when the topic changed.
    if let Some(mv) = e.moved {
        body.propagate_mode = Some(mv.propagate.name());
        body.orig_subject = Some(&mv.orig_topic);
        if let Some(topic) = &mv.new_topic {
            body.subject = Some(topic);
            body.topic_links = Some([]);
        }
        body.stream_id = Some(mv.orig_channel.0);
        body.new_stream_id = mv.new_channel.map(|ch| ch.0);
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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::model::Propagate;

    fn text<T: Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap()
    }

    fn message() -> Message {
        Message {
            id: MessageId(5),
            sender_id: UserId(2),
            channel_id: Some(ChannelId(3)),
            conversation_id: None,
            topic: "t".into(),
            content: "new".into(),
            rendered_content: "<p>new</p>".into(),
            client: "test".into(),
            sent_at: 10,
            is_me_message: false,
            wildcard: 0,
            last_edit_at: None,
            last_moved_at: None,
        }
    }

    /// What `update_message` wrote as a JSON tree before it was typed.
    fn tree(e: &MessageEdited<'_>) -> Value {
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

    #[test]
    fn edits_and_moves_keep_the_text_of_their_json_trees() {
        let mut dm = message();
        dm.channel_id = None;
        let content = ContentEdit {
            orig_content: "old".into(),
            orig_rendered_content: "<p>old</p>".into(),
        };
        let moves = [
            (Some("u".to_string()), None),
            (None, Some(ChannelId(8))),
            (Some("u".to_string()), Some(ChannelId(8))),
        ];
        let moves: Vec<MessageMove> = moves
            .into_iter()
            .map(|(new_topic, new_channel)| MessageMove {
                orig_channel: ChannelId(3),
                orig_topic: "t".into(),
                new_channel,
                new_topic,
                propagate: Propagate::All,
            })
            .collect();
        let m = message();
        let ids = [MessageId(5), MessageId(6)];
        let mut cases = vec![(&dm, Some(&content), None, None)];
        cases.push((&m, Some(&content), None, Some("chat")));
        for mv in &moves {
            cases.push((&m, None, Some(mv), Some("chat")));
        }
        for (m, content_edit, moved, channel_name) in cases {
            let e = MessageEdited {
                m,
                message_ids: &ids,
                edited_by: UserId(2),
                edited_at: 20,
                content_edit,
                moved,
                channel_name,
            };
            assert_eq!(text(&update_message(&e)), text(&tree(&e)));
        }
    }

    #[test]
    fn submessages_keep_the_text_of_their_json_tree() {
        let typed = submessage(MessageId(5), 9, UserId(2), "widget", "{}");
        let tree = json!({"type": "submessage", "msg_type": "widget", "message_id": 5,
            "submessage_id": 9, "sender_id": 2, "content": "{}"});
        assert_eq!(text(&typed), text(&tree));
    }
}
