//! Message endpoints: sending, fetching, flags and marking as read.

use serde_json::Value;

use crate::domain::channels::UserRefArg;
use crate::domain::messages::edit::{self, EditRequest, Propagate};
use crate::domain::messages::fetch::{self, Anchor, Page, Range};
use crate::domain::messages::report::{self, ReportType};
use crate::domain::messages::send::{self, NewMessage, Recipient};
use crate::domain::messages::{flags, narrow, reactions};
use crate::error::{Error, Result};
use crate::http::Request;
use crate::ids::{ChannelId, MessageId};
use crate::model::User;
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::{Params, as_int};
use super::wire::{self, MessageOptions, Viewer};

/// The client name Zulip records for a request: the `client` parameter, else the User-Agent's
/// product name, else "Unspecified"; at most 30 characters.
pub fn client_name(req: &Request, p: &mut Params) -> String {
    let name = p.str("client").unwrap_or_else(|| {
        req.header("user-agent")
            .map(|ua| {
                let head = ua.split(['/', ' ']).next().unwrap_or("");
                head.trim_end_matches(|c: char| c.is_ascii_digit() || c == '(')
                    .to_string()
            })
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "Unspecified".to_string())
    });
    name.chars().take(30).collect()
}

fn parse_channel_to(raw: &str) -> Result<Recipient> {
    let to_recipient = |v: &Value| -> Option<Recipient> {
        match v {
            Value::Number(_) => as_int(v).map(Recipient::ChannelId),
            Value::String(s) => Some(Recipient::ChannelName(s.clone())),
            _ => None,
        }
    };
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Array(items)) => {
            if items.len() != 1 {
                return Err(Error::bad_request("Expected exactly one channel"));
            }
            to_recipient(&items[0])
                .ok_or_else(|| Error::bad_request("Invalid data type for channel"))
        }
        Ok(v @ (Value::Number(_) | Value::String(_))) => {
            to_recipient(&v).ok_or_else(|| Error::bad_request("Invalid data type for channel"))
        }
        Ok(_) => Err(Error::bad_request("Invalid data type for channel")),
        Err(_) => Ok(Recipient::ChannelName(raw.to_string())),
    }
}

fn parse_direct_to(raw: &str) -> Result<Recipient> {
    let emails = |s: &str| -> Vec<UserRefArg> {
        s.split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(|e| UserRefArg::Email(e.to_string()))
            .collect()
    };
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Array(items)) => {
            let ids: Option<Vec<i64>> = items.iter().map(as_int).collect();
            let strs: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            match (ids, strs) {
                (Some(ids), _) => Ok(Recipient::Users(
                    ids.into_iter().map(UserRefArg::Id).collect(),
                )),
                (_, Some(strs)) => Ok(Recipient::Users(
                    strs.into_iter()
                        .map(|e| UserRefArg::Email(e.trim().to_string()))
                        .collect(),
                )),
                _ => Err(Error::bad_request(
                    "Recipient lists may contain emails or user IDs, but not both.",
                )),
            }
        }
        Ok(Value::String(s)) => Ok(Recipient::Users(emails(&s))),
        Ok(_) => Err(Error::bad_request("Invalid data type for recipients")),
        Err(_) => Ok(Recipient::Users(emails(raw))),
    }
}

/// # `POST /api/v1/messages`
///
/// Sends a channel or direct message. `to` is parsed by hand as Zulip does (a channel name or
/// id; a list of user ids or emails), `topic` has the legacy alias `subject`.
pub async fn send_message(
    state: &ChatState,
    caller: &User,
    req: &Request,
    p: &mut Params,
) -> Result<Success> {
    let kind = p.required_str("type")?;
    let is_channel = match kind.as_str() {
        "stream" | "channel" => true,
        "private" | "direct" => false,
        _ => return Err(Error::bad_request("Invalid type")),
    };
    let to = p.str("to");
    let content = p.required_str("content")?;
    let topic = p.aliased_str("topic", "subject")?;
    let queue_id = p.str("queue_id");
    let local_id = p.str("local_id");
    let read_by_sender = p.bool("read_by_sender")?;
    let client = client_name(req, p);
    // A bot with a default channel may leave the channel out (upstream's
    // `default_sending_stream`).
    let to = match to {
        Some(t) if is_channel && t.trim() == "[]" => None,
        other => other,
    };
    let recipient = match (is_channel, to) {
        (true, Some(to)) => parse_channel_to(&to)?,
        (true, None) => match crate::domain::bots::default_sending_channel(state, caller).await? {
            Some(ch) => Recipient::ChannelId(ch.0),
            None => return Err(Error::bad_request("Missing channel")),
        },
        (false, Some(to)) => parse_direct_to(&to)?,
        (false, None) => return Err(Error::bad_request("Message must have recipients")),
    };
    let local = match (queue_id, local_id) {
        (Some(q), Some(l)) => Some((q, l)),
        (Some(_), None) => return Err(Error::missing("local_id")),
        _ => None,
    };
    let sent = send::send(
        state,
        caller,
        NewMessage {
            recipient,
            topic: if is_channel { topic } else { None },
            content,
            client,
            read_by_sender,
            local,
        },
    )
    .await?;
    let mut s = Success::new().field("id", sent.id.0);
    if let Some(policy) = sent.automatic_new_visibility_policy {
        s = s.field("automatic_new_visibility_policy", policy);
    }
    Ok(s)
}

fn render_page(
    state: &ChatState,
    caller: &User,
    page: &Page,
    opts: &MessageOptions,
    client_gravatar: bool,
) -> Vec<Value> {
    let viewer = Viewer {
        user: caller,
        host: state.config.realm_host(),
        client_gravatar,
    };
    page.bundle
        .messages
        .iter()
        .map(|v| wire::message(&viewer, v, &page.bundle, opts))
        .collect()
}

/// # `GET /api/v1/messages`
///
/// Messages around an anchor (`newest`, `oldest`, `first_unread` or an id) in a narrow, or the
/// listed `message_ids`.
pub async fn get_messages(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let anchor_raw = p.str("anchor");
    let num_before = p.int("num_before")?;
    let num_after = p.int("num_after")?;
    let include_anchor = p.bool("include_anchor")?;
    let use_first_unread = p.bool("use_first_unread_anchor")?.unwrap_or(false);
    let message_ids = p.json("message_ids")?;
    let narrow = match p.json("narrow")? {
        Some(v) => narrow::parse(&v)?,
        None => narrow::Narrow::default(),
    };
    let client_gravatar = p.bool("client_gravatar")?.unwrap_or(true);
    let opts = MessageOptions {
        apply_markdown: p.bool("apply_markdown")?.unwrap_or(true),
        client_gravatar,
        allow_empty_topic_name: p.bool("allow_empty_topic_name")?.unwrap_or(false),
        with_flags: true,
    };
    if let Some(ids) = message_ids {
        let mut clash: Vec<&str> = Vec::new();
        if anchor_raw.is_some() {
            clash.push("anchor");
        }
        if num_before.is_some() {
            clash.push("num_before");
        }
        if num_after.is_some() {
            clash.push("num_after");
        }
        if include_anchor.is_some() {
            clash.push("include_anchor");
        }
        if !clash.is_empty() {
            clash.push("message_ids");
            return Err(Error::bad_request(format!(
                "Unsupported parameter combination: {}",
                clash.join(", ")
            )));
        }
        let Value::Array(items) = ids else {
            return Err(Error::bad_request("message_ids is not a list"));
        };
        let ids: Vec<i64> = items
            .iter()
            .map(|v| {
                as_int(v).ok_or_else(|| Error::bad_request("message_ids is not a list of integers"))
            })
            .collect::<Result<_>>()?;
        let page = fetch::fetch_ids(state, caller, ids, narrow).await?;
        let messages = render_page(state, caller, &page, &opts, client_gravatar);
        return Ok(Success::new()
            .field("messages", messages)
            .field("found_anchor", false)
            .field("found_oldest", false)
            .field("found_newest", false)
            .field("history_limited", false));
    }
    let anchor = if use_first_unread {
        Anchor::FirstUnread
    } else {
        match anchor_raw {
            Some(a) => Anchor::parse(&a)?,
            None => return Err(Error::bad_request("Missing 'anchor' argument.")),
        }
    };
    let range = Range {
        anchor,
        num_before: num_before.unwrap_or(0),
        num_after: num_after.unwrap_or(0),
        include_anchor: include_anchor.unwrap_or(true),
    };
    let page = fetch::fetch(state, caller, range, narrow).await?;
    let messages = render_page(state, caller, &page, &opts, client_gravatar);
    let mut s = Success::new()
        .field("messages", messages)
        .field("found_anchor", page.found_anchor)
        .field("found_oldest", page.found_oldest)
        .field("found_newest", page.found_newest)
        .field("history_limited", false);
    if let Some(a) = page.anchor {
        s = s.field("anchor", a);
    }
    Ok(s)
}

/// # `GET /api/v1/messages/{message_id}`
pub async fn get_message(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let opts = MessageOptions {
        apply_markdown: p.bool("apply_markdown")?.unwrap_or(true),
        client_gravatar: false,
        allow_empty_topic_name: p.bool("allow_empty_topic_name")?.unwrap_or(false),
        with_flags: true,
    };
    let bundle = fetch::fetch_one(state, caller, MessageId(id)).await?;
    let viewer = Viewer {
        user: caller,
        host: state.config.realm_host(),
        client_gravatar: false,
    };
    let v = bundle
        .messages
        .first()
        .ok_or_else(crate::domain::messages::invalid_message)?;
    let raw = v.message.content.clone();
    Ok(Success::new()
        .field("message", wire::message(&viewer, v, &bundle, &opts))
        .field("raw_content", raw))
}

fn required_int_list(p: &mut Params, name: &str) -> Result<Vec<i64>> {
    match p.json(name)? {
        None => Err(Error::missing(name)),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                as_int(v)
                    .ok_or_else(|| Error::bad_request(format!("{name} is not a list of integers")))
            })
            .collect(),
        Some(_) => Err(Error::bad_request(format!("{name} is not a list"))),
    }
}

/// # `POST /api/v1/messages/flags`
pub async fn update_flags(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let ids = required_int_list(p, "messages")?;
    let op = p.required_str("op")?;
    let flag = p.required_str("flag")?;
    let out = flags::update(state, caller, &ids, &op, &flag).await?;
    Ok(Success::new().field("messages", out.messages).field(
        "ignored_because_not_subscribed_channels",
        out.ignored_channels,
    ))
}

/// # `POST /api/v1/messages/flags/narrow`
pub async fn update_flags_in_narrow(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let anchor = Anchor::parse(&p.required_str("anchor")?)?;
    let include_anchor = p.bool("include_anchor")?.unwrap_or(true);
    let num_before = p.required_int("num_before")?;
    let num_after = p.required_int("num_after")?;
    let terms = match p.json("narrow")? {
        Some(v) => narrow::parse(&v)?,
        None => narrow::Narrow::default(),
    };
    let op = p.required_str("op")?;
    let flag = p.required_str("flag")?;
    let range = Range {
        anchor,
        num_before,
        num_after,
        include_anchor,
    };
    let out = flags::update_in_narrow(state, caller, range, terms, &op, &flag).await?;
    let mut s = Success::new()
        .field("processed_count", out.processed.len())
        .field("updated_count", out.updated)
        .field("first_processed_id", out.processed.first().copied())
        .field("last_processed_id", out.processed.last().copied())
        .field("found_oldest", out.found_oldest)
        .field("found_newest", out.found_newest);
    if flag == "read" && op == "remove" {
        s = s.field(
            "ignored_because_not_subscribed_channels",
            out.ignored_channels,
        );
    }
    Ok(s)
}

/// # `POST /api/v1/submessage`
pub async fn add_submessage(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let id = p.required_int("message_id")?;
    let msg_type = p.required_str("msg_type")?;
    let content = p.required_str("content")?;
    crate::domain::messages::widgets::add(state, caller, MessageId(id), msg_type, content).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/messages/{message_id}/report`
///
/// Reports a message the caller can read to the organization's moderators.
pub async fn report_message(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let kind = ReportType::parse(&p.required_str("report_type")?)?;
    let description = p.str("description").unwrap_or_default();
    report::report(state, caller, MessageId(id), kind, description).await?;
    Ok(Success::new())
}

/// # `GET /api/v1/messages/{message_id}/read_receipts`
pub async fn get_read_receipts(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    let user_ids = crate::domain::messages::receipts::readers(state, caller, MessageId(id)).await?;
    Ok(Success::new().field("user_ids", user_ids))
}

/// # `POST /api/v1/messages/render`
///
/// The HTML a message with this content would get, for a compose box's preview.
pub async fn render_message(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let content = p.required_str("content")?;
    let html = crate::domain::messages::preview::render(state, caller, &content).await?;
    Ok(Success::new().field("rendered", html))
}

/// # `POST /api/v1/mark_all_as_read`
pub async fn mark_all_as_read(state: &ChatState, caller: &User) -> Result<Success> {
    let complete = flags::mark_all(state, caller).await?;
    Ok(Success::new().field("complete", complete))
}

/// # `POST /api/v1/mark_stream_as_read`
pub async fn mark_stream_as_read(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let id = p.required_int("stream_id")?;
    flags::mark_channel(state, caller, ChannelId(id)).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/mark_topic_as_read`
pub async fn mark_topic_as_read(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let id = p.required_int("stream_id")?;
    let topic = p.required_str("topic_name")?;
    let topic = send::normalize_topic(&topic)?;
    flags::mark_topic(state, caller, ChannelId(id), topic).await?;
    Ok(Success::new())
}

/// # `PATCH /api/v1/messages/{message_id}`
///
/// Edits content, moves to another topic (`propagate_mode` one, later or all) or channel.
pub async fn update_message(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let req = EditRequest {
        content: p.str("content"),
        topic: p.aliased_str("topic", "subject")?,
        channel_id: p.int("stream_id")?,
        propagate: p
            .str("propagate_mode")
            .map(|m| Propagate::parse(&m))
            .transpose()?,
        prev_content_sha256: p.str("prev_content_sha256"),
        notify_old_thread: p.bool("send_notification_to_old_thread")?.unwrap_or(false),
        notify_new_thread: p.bool("send_notification_to_new_thread")?.unwrap_or(true),
    };
    edit::edit(state, caller, MessageId(id), req).await?;
    Ok(Success::new().field("detached_uploads", Vec::<Value>::new()))
}

/// # `DELETE /api/v1/messages/{message_id}`
pub async fn delete_message(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    edit::delete(state, caller, MessageId(id)).await?;
    Ok(Success::new())
}

/// # `GET /api/v1/messages/{message_id}/history`
pub async fn get_history(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    let entries = edit::history(state, caller, MessageId(id)).await?;
    Ok(Success::new().field("message_history", wire::message_history(&entries)))
}

/// # `POST /api/v1/messages/{message_id}/reactions`
pub async fn add_reaction(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let name = p.required_str("emoji_name")?;
    let code = p.str("emoji_code");
    let rtype = p.str("reaction_type");
    reactions::add(state, caller, MessageId(id), name, code, rtype).await?;
    Ok(Success::new())
}

/// # `DELETE /api/v1/messages/{message_id}/reactions`
pub async fn remove_reaction(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let name = p.str("emoji_name");
    let code = p.str("emoji_code");
    let rtype = p.str("reaction_type");
    reactions::remove(state, caller, MessageId(id), name, code, rtype).await?;
    Ok(Success::new())
}
