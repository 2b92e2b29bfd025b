//! The outgoing-webhook worker: one background task that claims due deliveries from the
//! persistent queue (`domain::outgoing_webhooks`), POSTs each bot's payload (upstream's JSON,
//! or the Slack-compatible form fields) off the request path, and reads the answer the way
//! upstream does into an [`Outcome`] for the domain to act on.
//!
//! Owns the payload's and the answer's shapes; the HTTP exchange is `http::client`'s, the
//! rules (retries, replies, notices) the domain's.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::domain::outgoing_webhooks::{
    self as ow, Delivery, MAX_ANSWER_BYTES, MAX_CONCURRENT, Outcome, TRIGGER_DIRECT_MESSAGE,
};
use crate::http::client::{Client, Post, PostError};
use crate::zulip::ChatState;

use super::server::ZULIP_VERSION;
use super::wire::{self, MessageOptions, Viewer};

/// How long the worker sleeps when nothing is queued (a new delivery wakes it at once).
const IDLE: Duration = Duration::from_secs(60);

/// How often the worker looks again while due deliveries wait for their owner's share.
const SHARE_WAIT: Duration = Duration::from_millis(250);

/// Runs until the server stops.
pub async fn run(state: Arc<ChatState>) {
    let mut stopping = state.stopping.subscribe();
    if let Err(e) = ow::release_claims(&state).await {
        tracing::error!(error = %e.msg, detail = ?e.detail, "outgoing webhooks: cannot start");
        return;
    }
    let client = Client::new();
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONCURRENT));
    loop {
        if *stopping.borrow() {
            return;
        }
        let claimed = match ow::claim(&state, slots.available_permits()).await {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(error = %e.msg, detail = ?e.detail, "outgoing webhooks: claim failed");
                Vec::new()
            }
        };
        let claimed_none = claimed.is_empty();
        for d in claimed {
            let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
                break;
            };
            let state = Arc::clone(&state);
            let client = client.clone();
            let mut stop = state.stopping.subscribe();
            tokio::spawn(async move {
                // A stop abandons the request; the job stays queued and is made after restart.
                tokio::select! {
                    _ = deliver(&state, &client, d) => {}
                    _ = stop.wait_for(|s| *s) => {}
                }
                drop(permit);
                state.webhook_wake.notify_one();
            });
        }
        let wait = if slots.available_permits() == 0 {
            IDLE
        } else {
            match ow::next_due(&state).await {
                // Due but not claimable: every such delivery's owner has its share in flight.
                // A finishing delivery wakes the worker; the short sleep covers other owners'
                // retries coming due meanwhile.
                Ok(Some(due)) if claimed_none && due <= crate::time::now_millis() => SHARE_WAIT,
                Ok(Some(due)) => {
                    let ms = (due - crate::time::now_millis()).clamp(0, IDLE.as_millis() as i64);
                    Duration::from_millis(ms as u64)
                }
                Ok(None) => IDLE,
                Err(_) => Duration::from_secs(1),
            }
        };
        if wait.is_zero() {
            tokio::task::yield_now().await;
            continue;
        }
        tokio::select! {
            _ = state.webhook_wake.notified() => {}
            _ = tokio::time::sleep(wait) => {}
            _ = stopping.wait_for(|s| *s) => return,
        }
    }
}

/// Makes one delivery and hands its outcome to the domain.
async fn deliver(state: &ChatState, client: &Client, d: Delivery) {
    let outcome = attempt(state, client, &d).await;
    let (bot, message) = (d.bot.id.0, d.job.message_id.0);
    if let Err(e) = ow::finish(state, d, outcome).await {
        tracing::error!(bot, message, error = %e.msg, detail = ?e.detail,
            "outgoing webhook: cannot record the outcome");
    }
}

async fn attempt(state: &ChatState, client: &Client, d: &Delivery) -> Outcome {
    let (Some(service), Some(v)) = (&d.service, d.bundle.messages.first()) else {
        return Outcome::Nothing;
    };
    // A bot deactivated since the message was sent answers nothing.
    if service.base_url.is_empty() || !d.bot.is_active {
        return Outcome::Nothing;
    }
    let host = state.config.realm_host();
    let is_dm = v.message.channel_id.is_none();
    let (content_type, body) = if d.is_slack() {
        if is_dm || d.job.trigger == TRIGGER_DIRECT_MESSAGE {
            return Outcome::Failed {
                notice: "Slack outgoing webhooks don't support private messages.".into(),
                owner_note: None,
            };
        }
        ("application/x-www-form-urlencoded", slack_form(d, host))
    } else {
        let viewer = Viewer {
            user: &d.bot,
            host,
            client_gravatar: false,
        };
        let opts = MessageOptions {
            apply_markdown: false,
            client_gravatar: false,
            allow_empty_topic_name: true,
            with_flags: false,
        };
        let mut message = wire::message(&viewer, v, &d.bundle, &opts);
        if let Value::Object(m) = &mut message {
            m.insert(
                "rendered_content".into(),
                Value::from(v.message.rendered_content.clone()),
            );
        }
        let payload =
            wire::outgoing_webhook_payload(message, &d.bot, &service.token, &d.job.trigger, host);
        ("application/json", payload.to_string().into_bytes())
    };
    let timeout = state.config.bots.outgoing_webhook_timeout;
    let answer = client
        .post(Post {
            url: &service.base_url,
            content_type,
            user_agent: &format!("ZulipOutgoingWebhook/{ZULIP_VERSION}"),
            body,
            timeout,
            max_answer: MAX_ANSWER_BYTES,
            allow_private: state.config.bots.outgoing_webhook_allow_private,
        })
        .await;
    match answer {
        Ok(a) if (200..300).contains(&a.status) => read_answer(&a.body, d.is_slack()),
        Ok(a) => Outcome::Failed {
            notice: format!("Third party responded with {}", a.status),
            owner_note: Some(format!(
                "The webhook got a response with status code *{}*.{}",
                a.status,
                payload_note(&a.body)
            )),
        },
        // Upstream's proxy answers 407 for a private or disallowed destination.
        Err(PostError::Refused) => Outcome::Failed {
            notice: "Third party responded with 407".into(),
            owner_note: Some(
                "The URL configured for the webhook is for a private or disallowed network.".into(),
            ),
        },
        Err(PostError::Timeout) => Outcome::Retry {
            reason: format!("Request timed out after {} seconds.", timeout.as_secs()),
        },
        Err(PostError::Connect(_)) => Outcome::Retry {
            reason: "A connection error occurred. Is my bot server down?".into(),
        },
        Err(e @ (PostError::TooLarge | PostError::BadUrl)) => {
            let kind = if e == PostError::TooLarge {
                "ResponseTooLarge"
            } else {
                "InvalidURL"
            };
            Outcome::Failed {
                notice: format!(
                    "An exception of type *{kind}* occurred for message `{}`! See the Zulip \
                     server logs for more information.",
                    v.message.content.chars().take(200).collect::<String>()
                ),
                owner_note: Some(format!(
                    "When trying to send a request to the webhook service, an exception of \
                     type {kind} occurred:\n```\n{e}\n```"
                )),
            }
        }
    }
}

/// The answer's body for the owner's notice, shortened.
fn payload_note(body: &[u8]) -> String {
    if body.is_empty() {
        return String::new();
    }
    let text = String::from_utf8_lossy(body);
    let mut shown: String = text.chars().take(1000).collect();
    if shown.len() < text.len() {
        shown.push_str("...");
    }
    format!("\nThe response contains the following payload:\n```\n{shown}\n```")
}

/// Reads a 2xx answer as upstream's `process_success_response` does.
fn read_answer(body: &[u8], slack: bool) -> Outcome {
    let invalid = |msg: &str| Outcome::Failed {
        notice: msg.to_string(),
        owner_note: Some(format!(
            "The outgoing webhook server attempted to send a message in Zulip, but that \
             request resulted in the following error:\n> {msg}{}",
            payload_note(body)
        )),
    };
    let Ok(json) = serde_json::from_slice::<Value>(body) else {
        return invalid("Invalid JSON in response");
    };
    let obj = match json {
        // Older botservers' "no response required".
        Value::String(s) if s.is_empty() => return Outcome::Nothing,
        Value::Object(o) => o,
        _ => return invalid("Invalid response format"),
    };
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let (content, widget_content) = if slack {
        (obj.get("text").map(text), None)
    } else if obj.get("response_not_required") == Some(&Value::Bool(true)) {
        return Outcome::Nothing;
    } else if let Some(s) = obj.get("response_string") {
        (Some(text(s)), None)
    } else if let Some(c) = obj.get("content") {
        (Some(text(c)), obj.get("widget_content").cloned())
    } else {
        (None, None)
    };
    match content {
        Some(c) if !c.trim().is_empty() => Outcome::Reply {
            content: c,
            widget_content,
        },
        _ => Outcome::Nothing,
    }
}

/// Upstream's Slack-compatible form fields (channel messages only).
fn slack_form(d: &Delivery, host: &str) -> Vec<u8> {
    let Some(v) = d.bundle.messages.first() else {
        return Vec::new();
    };
    let m = &v.message;
    let sender = d.bundle.users.get(&m.sender_id);
    let channel = m.channel_id.map(|c| c.0).unwrap_or_default();
    let channel_name = m
        .channel_id
        .and_then(|c| d.bundle.channel_names.get(&c).cloned())
        .unwrap_or_default();
    let token = d.service.as_ref().map(|s| s.token.as_str()).unwrap_or("");
    form_urlencoded::Serializer::new(String::new())
        .append_pair("token", token)
        .append_pair("team_id", "T1")
        .append_pair("team_domain", host)
        .append_pair("channel_id", &format!("C{channel}"))
        .append_pair("channel_name", &channel_name)
        .append_pair("thread_ts", &m.sent_at.to_string())
        .append_pair("timestamp", &m.sent_at.to_string())
        .append_pair("user_id", &format!("U{}", m.sender_id.0))
        .append_pair(
            "user_name",
            sender.map(|u| u.full_name.as_str()).unwrap_or(""),
        )
        .append_pair("text", &m.content)
        .append_pair("trigger_word", &d.job.trigger)
        .append_pair("service_id", &d.bot.id.0.to_string())
        .finish()
        .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_as_upstream() {
        let reply = |c: &str| Outcome::Reply {
            content: c.into(),
            widget_content: None,
        };
        assert_eq!(read_answer(br#"{"content":"hi"}"#, false), reply("hi"));
        assert_eq!(
            read_answer(br#"{"response_string":"old"}"#, false),
            reply("old")
        );
        assert_eq!(read_answer(br#"{"content":5}"#, false), reply("5"));
        assert_eq!(read_answer(br#"{"text":"slack"}"#, true), reply("slack"));
        assert_eq!(read_answer(br#"{"content":"hi"}"#, true), Outcome::Nothing);
        assert_eq!(
            read_answer(br#"{"response_not_required":true,"content":"x"}"#, false),
            Outcome::Nothing
        );
        assert_eq!(read_answer(br#""""#, false), Outcome::Nothing);
        assert_eq!(read_answer(br#"{"content":"  "}"#, false), Outcome::Nothing);
        assert_eq!(read_answer(br#"{}"#, false), Outcome::Nothing);
        assert!(matches!(
            read_answer(b"not json", false),
            Outcome::Failed { notice, .. } if notice == "Invalid JSON in response"
        ));
        assert!(matches!(
            read_answer(b"[1]", false),
            Outcome::Failed { notice, .. } if notice == "Invalid response format"
        ));
    }
}
