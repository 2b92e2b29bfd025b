//! JSON shapes of messages, as in message listings and events.

use serde_json::{Map, Value, json};

use crate::domain::messages::fetch::{Bundle, Viewed};
use crate::domain::messages::send::EMPTY_TOPIC_DISPLAY_NAME;
use crate::ids::ConversationId;
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

/// A message as `viewer` sees it.
pub fn message(viewer: &Viewer<'_>, v: &Viewed, b: &Bundle, opts: &MessageOptions) -> Value {
    let m = &v.message;
    let mut out = Map::new();
    out.insert("id".into(), json!(m.id.0));
    out.insert("sender_id".into(), json!(m.sender_id.0));
    let sender: Option<&User> = b.users.get(&m.sender_id);
    out.insert(
        "sender_full_name".into(),
        json!(sender.map(|u| u.full_name.as_str()).unwrap_or("")),
    );
    out.insert(
        "sender_email".into(),
        json!(
            sender
                .map(|u| api_email(u, viewer.host))
                .unwrap_or_default()
        ),
    );
    // Upstream's system bots live in their own realm.
    let realm = if sender.is_some_and(|u| u.is_system_bot) {
        "zulipinternal"
    } else {
        ""
    };
    out.insert("sender_realm_str".into(), json!(realm));
    let avatar = match sender {
        Some(u) if viewer.leaves_avatar_to_client(u) => Value::Null,
        Some(u) => json!(user_avatar_url(u, viewer.host)),
        None => Value::Null,
    };
    out.insert("avatar_url".into(), avatar);
    if opts.apply_markdown {
        out.insert("content".into(), json!(m.rendered_content));
        out.insert("content_type".into(), json!("text/html"));
    } else {
        out.insert("content".into(), json!(m.content));
        out.insert("content_type".into(), json!("text/x-markdown"));
    }
    out.insert("timestamp".into(), json!(m.sent_at));
    out.insert("client".into(), json!(m.client));
    out.insert("is_me_message".into(), json!(m.is_me_message));
    out.insert("topic_links".into(), json!([]));
    out.insert(
        "submessages".into(),
        Value::Array(
            v.submessages
                .iter()
                .map(|s| {
                    json!({
                        "id": s.id,
                        "message_id": s.message_id.0,
                        "sender_id": s.sender_id.0,
                        "msg_type": s.msg_type,
                        "content": s.content,
                    })
                })
                .collect(),
        ),
    );
    out.insert(
        "reactions".into(),
        Value::Array(
            v.reactions
                .iter()
                .map(|r| {
                    json!({
                        "emoji_name": r.emoji_name,
                        "emoji_code": r.emoji_code,
                        "reaction_type": r.reaction_type,
                        "user_id": r.user_id.0,
                    })
                })
                .collect(),
        ),
    );
    match (m.channel_id, m.conversation_id) {
        (Some(ch), _) => {
            out.insert("type".into(), json!("stream"));
            out.insert("stream_id".into(), json!(ch.0));
            out.insert(
                "display_recipient".into(),
                json!(b.channel_names.get(&ch).cloned().unwrap_or_default()),
            );
            out.insert("recipient_id".into(), json!(channel_recipient(ch.0)));
            let subject = if m.topic.is_empty() && !opts.allow_empty_topic_name {
                EMPTY_TOPIC_DISPLAY_NAME
            } else {
                m.topic.as_str()
            };
            out.insert("subject".into(), json!(subject));
        }
        (None, Some(conv)) => {
            out.insert("type".into(), json!("private"));
            let members = b.conversations.get(&conv).cloned().unwrap_or_default();
            let recipients: Vec<Value> = members
                .iter()
                .filter_map(|id| b.users.get(id))
                .map(|u| {
                    json!({
                        "id": u.id.0,
                        "email": api_email(u, viewer.host),
                        "full_name": u.full_name,
                        "is_mirror_dummy": false,
                    })
                })
                .collect();
            out.insert("display_recipient".into(), Value::Array(recipients));
            let recipient_id = if members.len() > 2 {
                group_recipient(conv)
            } else {
                let other = members
                    .iter()
                    .find(|u| **u != viewer.user.id)
                    .copied()
                    .unwrap_or(viewer.user.id);
                personal_recipient(other.0)
            };
            out.insert("recipient_id".into(), json!(recipient_id));
            out.insert("subject".into(), json!(""));
        }
        (None, None) => {}
    }
    if let Some(t) = m.last_edit_at {
        out.insert("last_edit_timestamp".into(), json!(t));
    }
    if let Some(t) = m.last_moved_at {
        out.insert("last_moved_timestamp".into(), json!(t));
    }
    if !v.edits.is_empty() {
        let history: Vec<Value> = v
            .edits
            .iter()
            .rev()
            .map(|e| {
                let mut h = Map::new();
                h.insert("user_id".into(), json!(e.user_id.map(|u| u.0)));
                h.insert("timestamp".into(), json!(e.edited_at));
                if let Some(c) = &e.prev_content {
                    h.insert("prev_content".into(), json!(c));
                }
                if let Some(c) = &e.prev_rendered_content {
                    h.insert("prev_rendered_content".into(), json!(c));
                }
                if let Some(c) = e.prev_channel_id {
                    h.insert("prev_stream".into(), json!(c.0));
                }
                if let Some(c) = e.channel_id {
                    h.insert("stream".into(), json!(c.0));
                }
                if let Some(t) = &e.prev_topic {
                    h.insert("prev_topic".into(), json!(t));
                }
                if let Some(t) = &e.topic {
                    h.insert("topic".into(), json!(t));
                }
                Value::Object(h)
            })
            .collect();
        out.insert("edit_history".into(), Value::Array(history));
    }
    if opts.with_flags {
        out.insert("flags".into(), json!(v.flags));
    }
    if let Some(mc) = &v.match_content {
        out.insert("match_content".into(), json!(mc));
    }
    if let Some(ms) = &v.match_subject {
        out.insert("match_subject".into(), json!(ms));
    }
    Value::Object(out)
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
