//! Incoming webhooks: `POST /api/v1/external/{integration}`, where other tools post what
//! happened and the caller (usually an incoming-webhook bot, named by `api_key` in the query
//! string, checked at admission in `zulip::auth`) turns it into a message.
//!
//! This module owns the parameters every integration shares (upstream's
//! `check_send_webhook_message`): `stream` (a name, or an id when all digits) with `topic`
//! overriding the integration's topic; without `stream`, a direct message to the bot's owner.
//! `only_events` / `exclude_events` are checked for form (these integrations have no event
//! types to filter). Each integration is a pure formatting module (no SQL, no HTTP):
//! [`slack_incoming`] and [`json`], reading the payload through [`payload`]. The message goes
//! through the ordinary send path as the caller, so every check and event of `POST /messages`
//! applies, with the content and topic cut to their maximum lengths there. Must not contain SQL.

pub mod json;
pub mod payload;
pub mod slack_incoming;

use crate::domain::channels::UserRefArg;
use crate::domain::messages::send::{self, NewMessage, Recipient};
use crate::error::{Error, Result};
use crate::http::Request;
use crate::http::server::LARGE_BODY;
use crate::model::User;
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::Params;

/// The integrations served under `/api/v1/external/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Integration {
    /// `slack_incoming`: Slack's incoming-webhook format, which most tools can send.
    SlackIncoming,
    /// `json`: any JSON object, shown as a code block.
    Json,
}

impl Integration {
    /// The integration a path segment names.
    pub fn from_name(name: &str) -> Option<Integration> {
        match name {
            "slack_incoming" => Some(Integration::SlackIncoming),
            "json" => Some(Integration::Json),
            _ => None,
        }
    }

    /// The client name its messages carry (upstream's `Zulip<Name>Webhook`).
    fn client(self) -> &'static str {
        match self {
            Integration::SlackIncoming => "ZulipSlackIncomingWebhook",
            Integration::Json => "ZulipJSONWebhook",
        }
    }
}

/// A rendered webhook request: its topic and content (`None`: nothing to post).
struct Rendered {
    topic: String,
    content: Option<String>,
}

/// Handles a webhook request from an admitted caller.
pub async fn handle(
    state: &ChatState,
    caller: &User,
    integration: Integration,
    req: &Request,
    p: &mut Params,
) -> Result<Success> {
    let _ = p.str("api_key");
    let stream = p.str("stream");
    let topic = p.str("topic");
    for name in ["only_events", "exclude_events"] {
        event_list(p, name)?;
    }
    let rendered = render(state, integration, req, p, topic.as_deref()).await?;
    let Some(content) = rendered.content else {
        return Ok(Success::new().without_ignored());
    };
    let (recipient, topic) = match stream {
        Some(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => (
            Recipient::ChannelId(s.parse().unwrap_or(-1)),
            Some(rendered.topic),
        ),
        Some(s) => (Recipient::ChannelName(s), Some(rendered.topic)),
        None => {
            let owner = caller
                .bot_owner_id
                .ok_or_else(|| Error::missing("stream"))?;
            (Recipient::Users(vec![UserRefArg::Id(owner.0)]), None)
        }
    };
    send::send(
        state,
        caller,
        NewMessage {
            recipient,
            topic,
            content,
            client: integration.client().into(),
            read_by_sender: None,
            local: None,
        },
    )
    .await?;
    Ok(Success::new().without_ignored())
}

/// Renders the request with its integration; large payloads are parsed on the CPU threads.
async fn render(
    state: &ChatState,
    integration: Integration,
    req: &Request,
    p: &mut Params,
    topic: Option<&str>,
) -> Result<Rendered> {
    match integration {
        Integration::Json => {
            let body = req.body.clone();
            let content = on_cpu(state, body.len(), move || json::format(&body)).await?;
            Ok(Rendered {
                topic: topic.unwrap_or(json::TOPIC).to_string(),
                content: Some(content),
            })
        }
        Integration::SlackIncoming => {
            let is_json = req
                .header("content-type")
                .and_then(|t| t.split(';').next())
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
            let text: bytes::Bytes = if is_json {
                std::str::from_utf8(&req.body)
                    .map_err(|_| Error::bad_request("Malformed payload"))?;
                req.body.clone()
            } else {
                p.required_str("payload")?.into()
            };
            let topic = topic.map(str::to_string);
            let formatted = on_cpu(state, text.len(), move || {
                let value: serde_json::Value =
                    serde_json::from_slice(&text).map_err(|_| json::malformed())?;
                slack_incoming::format(&value, topic.as_deref())
            })
            .await?;
            Ok(Rendered {
                topic: formatted.topic,
                content: formatted.content,
            })
        }
    }
}

/// Runs `f` at once when the input is small, else on the CPU threads.
async fn on_cpu<T: Send + 'static>(
    state: &ChatState,
    size: usize,
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    if size <= LARGE_BODY {
        f()
    } else {
        state.db.cpu(f).await?
    }
}

/// `only_events` / `exclude_events`: when given, a JSON list of strings.
fn event_list(p: &mut Params, name: &str) -> Result<()> {
    match p.json(name)? {
        None => Ok(()),
        Some(serde_json::Value::Array(items)) => match items.iter().position(|v| !v.is_string()) {
            Some(i) => Err(Error::bad_request(format!("{name}[{i}] is not a string"))),
            None => Ok(()),
        },
        Some(_) => Err(Error::bad_request(format!("{name} is not a list"))),
    }
}
