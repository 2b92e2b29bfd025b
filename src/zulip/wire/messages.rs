//! JSON shapes of messages, as in message listings and events.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::domain::messages::fetch::{Bundle, Viewed};
use crate::domain::messages::send::EMPTY_TOPIC_DISPLAY_NAME;
use crate::ids::{ConversationId, UserId};
use crate::model::User;

use super::{Viewer, api_email, user_avatar_url};

/// How the viewer asked for messages.
pub struct MessageOptions {
    pub apply_markdown: bool,
    pub client_gravatar: bool,
    pub allow_empty_topic_name: bool,
    /// Include the per-message `flags` list (listings do, events carry flags beside).
    pub with_flags: bool,
}

/// Zulip recipient ids: a user's personal recipient, a channel's, or a group conversation's.
fn personal_recipient(user: i64) -> i64 {
    user * 3
}

fn channel_recipient(channel: i64) -> i64 {
    channel * 3 + 1
}

fn group_recipient(conversation: ConversationId) -> i64 {
    conversation.0 * 3 + 2
}

/// A message as `viewer` sees it (listings, single fetches, and the body of `message`
/// events), serialized without an intermediate `Value`.
#[derive(Serialize)]
pub struct MessageRecord<'a> {
    id: i64,
    sender_id: i64,
    sender_full_name: &'a str,
    sender_email: String,
    sender_realm_str: &'static str,
    /// `null` when the client computes the sender's gravatar, or the sender is unknown.
    avatar_url: Option<String>,
    content: &'a str,
    content_type: &'static str,
    timestamp: i64,
    client: &'a str,
    is_me_message: bool,
    topic_links: [i64; 0],
    submessages: Vec<SubmessageRecord<'a>>,
    reactions: Vec<ReactionRecord<'a>>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    display_recipient: Option<DisplayRecipient<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recipient_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    subject: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_edit_timestamp: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_moved_timestamp: Option<i64>,
    /// Only when the message was edited.
    #[serde(skip_serializing_if = "Option::is_none")]
    edit_history: Option<Vec<EditRecord<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    flags: Option<&'a [&'static str]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    match_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    match_subject: Option<&'a str>,
}

#[derive(Serialize)]
struct SubmessageRecord<'a> {
    id: i64,
    message_id: i64,
    sender_id: i64,
    msg_type: &'a str,
    content: &'a str,
}

#[derive(Serialize)]
struct ReactionRecord<'a> {
    emoji_name: &'a str,
    emoji_code: &'a str,
    reaction_type: &'a str,
    user_id: i64,
}

/// A channel message's channel name, or a direct message's members.
#[derive(Serialize)]
#[serde(untagged)]
enum DisplayRecipient<'a> {
    Channel(&'a str),
    Direct(Vec<RecipientRecord<'a>>),
}

#[derive(Serialize)]
struct RecipientRecord<'a> {
    id: i64,
    email: String,
    full_name: &'a str,
    is_mirror_dummy: bool,
}

/// One entry of a message's `edit_history`, newest first.
#[derive(Serialize)]
struct EditRecord<'a> {
    user_id: Option<i64>,
    timestamp: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    prev_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prev_rendered_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prev_stream: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prev_topic: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    topic: Option<&'a str>,
}

/// A message as `viewer` sees it, as a JSON value (for bodies that embed it).
pub fn message(viewer: &Viewer<'_>, v: &Viewed, b: &Bundle, opts: &MessageOptions) -> Value {
    serde_json::to_value(message_record(viewer, v, b, opts)).expect("messages serialize")
}

/// A message as `viewer` sees it.
pub fn message_record<'a>(
    viewer: &Viewer<'_>,
    v: &'a Viewed,
    b: &'a Bundle,
    opts: &MessageOptions,
) -> MessageRecord<'a> {
    let m = &v.message;
    let sender: Option<&User> = b.users.get(&m.sender_id);
    // Upstream's system bots live in their own realm.
    let realm = if sender.is_some_and(|u| u.is_system_bot) {
        "zulipinternal"
    } else {
        ""
    };
    let avatar_url = match sender {
        Some(u) if viewer.leaves_avatar_to_client(u) => None,
        Some(u) => Some(user_avatar_url(u, viewer.host)),
        None => None,
    };
    let (content, content_type) = if opts.apply_markdown {
        (m.rendered_content.as_str(), "text/html")
    } else {
        (m.content.as_str(), "text/x-markdown")
    };
    let mut out = MessageRecord {
        id: m.id.0,
        sender_id: m.sender_id.0,
        sender_full_name: sender.map(|u| u.full_name.as_str()).unwrap_or(""),
        sender_email: sender
            .map(|u| api_email(u, viewer.host))
            .unwrap_or_default(),
        sender_realm_str: realm,
        avatar_url,
        content,
        content_type,
        timestamp: m.sent_at,
        client: &m.client,
        is_me_message: m.is_me_message,
        topic_links: [],
        submessages: v
            .submessages
            .iter()
            .map(|s| SubmessageRecord {
                id: s.id,
                message_id: s.message_id.0,
                sender_id: s.sender_id.0,
                msg_type: &s.msg_type,
                content: &s.content,
            })
            .collect(),
        reactions: v
            .reactions
            .iter()
            .map(|r| ReactionRecord {
                emoji_name: &r.emoji_name,
                emoji_code: &r.emoji_code,
                reaction_type: &r.reaction_type,
                user_id: r.user_id.0,
            })
            .collect(),
        kind: None,
        stream_id: None,
        display_recipient: None,
        recipient_id: None,
        subject: None,
        last_edit_timestamp: m.last_edit_at,
        last_moved_timestamp: m.last_moved_at,
        edit_history: None,
        flags: opts.with_flags.then_some(&v.flags[..]),
        match_content: v.match_content.as_deref(),
        match_subject: v.match_subject.as_deref(),
    };
    match (m.channel_id, m.conversation_id) {
        (Some(ch), _) => {
            out.kind = Some("stream");
            out.stream_id = Some(ch.0);
            out.display_recipient = Some(DisplayRecipient::Channel(
                b.channel_names.get(&ch).map(String::as_str).unwrap_or(""),
            ));
            out.recipient_id = Some(channel_recipient(ch.0));
            out.subject = Some(if m.topic.is_empty() && !opts.allow_empty_topic_name {
                EMPTY_TOPIC_DISPLAY_NAME
            } else {
                m.topic.as_str()
            });
        }
        (None, Some(conv)) => {
            out.kind = Some("private");
            let members: &[UserId] = b.conversations.get(&conv).map_or(&[], Vec::as_slice);
            let recipients = members
                .iter()
                .filter_map(|id| b.users.get(id))
                .map(|u| RecipientRecord {
                    id: u.id.0,
                    email: api_email(u, viewer.host),
                    full_name: &u.full_name,
                    is_mirror_dummy: false,
                })
                .collect();
            out.display_recipient = Some(DisplayRecipient::Direct(recipients));
            out.recipient_id = Some(if members.len() > 2 {
                group_recipient(conv)
            } else {
                let other = members
                    .iter()
                    .find(|u| **u != viewer.user.id)
                    .copied()
                    .unwrap_or(viewer.user.id);
                personal_recipient(other.0)
            });
            out.subject = Some("");
        }
        (None, None) => {}
    }
    if !v.edits.is_empty() {
        let history = v
            .edits
            .iter()
            .rev()
            .map(|e| EditRecord {
                user_id: e.user_id.map(|u| u.0),
                timestamp: e.edited_at,
                prev_content: e.prev_content.as_deref(),
                prev_rendered_content: e.prev_rendered_content.as_deref(),
                prev_stream: e.prev_channel_id.map(|c| c.0),
                stream: e.channel_id.map(|c| c.0),
                prev_topic: e.prev_topic.as_deref(),
                topic: e.topic.as_deref(),
            })
            .collect();
        out.edit_history = Some(history);
    }
    out
}

/// `message_history` entries, oldest first.
pub fn message_history(entries: &[crate::domain::messages::edit::HistoryEntry]) -> Vec<Value> {
    entries
        .iter()
        .map(|e| {
            let mut h = Map::new();
            h.insert("user_id".into(), json!(e.user_id));
            h.insert("timestamp".into(), json!(e.timestamp));
            h.insert("topic".into(), json!(e.topic));
            h.insert("content".into(), json!(e.content));
            h.insert("rendered_content".into(), json!(e.rendered_content));
            if let (Some(pc), Some(pr)) = (&e.prev_content, &e.prev_rendered_content) {
                h.insert("prev_content".into(), json!(pc));
                h.insert("prev_rendered_content".into(), json!(pr));
                h.insert(
                    "content_html_diff".into(),
                    json!(html_diff(pr, &e.rendered_content)),
                );
            }
            if let Some(pt) = &e.prev_topic {
                h.insert("prev_topic".into(), json!(pt));
            }
            if let Some(pc) = e.prev_channel_id {
                h.insert("prev_stream".into(), json!(pc.0));
                h.insert("stream".into(), json!(e.channel_id.map(|c| c.0)));
            }
            Value::Object(h)
        })
        .collect()
}

/// A word-level diff of two HTML fragments, with Zulip's highlight classes on changed words.
pub fn html_diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.split_inclusive(' ').collect();
    let b: Vec<&str> = new.split_inclusive(' ').collect();
    const MAX_CELLS: usize = 4_000_000;
    if a.len().saturating_mul(b.len()) > MAX_CELLS {
        return format!(
            "<div><span class=\"highlight_text_deleted\">{old}</span><span class=\"highlight_text_inserted\">{new}</span></div>"
        );
    }
    // Longest common subsequence table, from the end.
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = String::from("<div>");
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(a[i]);
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str("<span class=\"highlight_text_inserted\">");
            out.push_str(b[j]);
            out.push_str("</span>");
            j += 1;
        } else {
            out.push_str("<span class=\"highlight_text_deleted\">");
            out.push_str(a[i]);
            out.push_str("</span>");
            i += 1;
        }
    }
    out.push_str("</div>");
    out
}
