//! Outgoing webhooks' rules: which messages trigger which bots, the persistent delivery queue
//! (queued in the message's own commit, claimed by the worker, retried with backoff) and what
//! an outcome does: the bot's answer posted in the same conversation, or upstream's failure
//! notice there and a direct message to the bot's owner, and the message marked read for the
//! bot. All in the commit that removes the job, so an outcome is acted on exactly once and a
//! delivery cut short by a stop is made again (at least once).
//!
//! The worker that makes the HTTP requests and reads the answers lives in
//! `zulip::outgoing_webhooks` (it knows the payload's shape); this module knows no wire format.

use std::time::Duration;

use crate::db::outgoing_webhooks::{self as jobs_db, Job};
use crate::db::{
    WriteTx, bots as bots_db, channels as channels_db, conversations as conversations_db,
    message_flags as flags_db, users as users_db,
};
use crate::domain::bots::{INTERFACE_SLACK, OUTGOING_WEBHOOK_BOT};
use crate::domain::core::Core;
use crate::domain::messages::fetch::{self, Bundle};
use crate::domain::messages::send::{Notice, NoticeDestination, post_service_reply};
use crate::error::{Error, Result};
use crate::events::Event;
use crate::ids::{MessageId, UserId};
use crate::model::{BotService, User, flags as bits};

/// Attempts of one delivery whose request times out or cannot connect: the first and
/// upstream's 3 retries (`MAX_REQUEST_RETRIES`).
pub const MAX_ATTEMPTS: i64 = 4;

/// The largest answer body read; a larger one is a failure.
pub const MAX_ANSWER_BYTES: usize = 1 << 20;

/// Deliveries in flight at once.
pub const MAX_CONCURRENT: usize = 16;

/// Deliveries in flight at once for the bots of one owner (a bot without an owner is its own
/// share), so one member's slow bots leave the other slots to everyone else's.
pub const MAX_CONCURRENT_PER_OWNER: usize = 4;

/// Triggers, as the payload names them.
pub const TRIGGER_MENTION: &str = "mention";
pub const TRIGGER_DIRECT_MESSAGE: &str = "direct_message";

/// The wait before retry `n` (1-based): 1 s, 2 s, 4 s.
pub fn backoff(attempts_so_far: i64) -> Duration {
    Duration::from_secs(1 << attempts_so_far.clamp(0, 6))
}

/// Inside the write that stores message `id`: queues a delivery to each outgoing-webhook bot
/// it triggers. Nothing a bot sends triggers a bot (loops); in a channel a real mention
/// triggers (wildcards and silent mentions do not), in a direct message every bot among the
/// participants.
pub fn enqueue(
    tx: &mut WriteTx<'_>,
    sender: &User,
    id: MessageId,
    mentioned: &[UserId],
    dm_members: Option<&[UserId]>,
) -> Result<()> {
    if sender.is_bot {
        return Ok(());
    }
    let (candidates, trigger): (Vec<UserId>, &str) = match dm_members {
        Some(members) => (
            members
                .iter()
                .copied()
                .filter(|u| *u != sender.id)
                .collect(),
            TRIGGER_DIRECT_MESSAGE,
        ),
        None => (mentioned.to_vec(), TRIGGER_MENTION),
    };
    if candidates.is_empty() {
        return Ok(());
    }
    let bots = jobs_db::outgoing_bots_among(tx, &candidates)?;
    if bots.is_empty() {
        return Ok(());
    }
    let now = crate::time::now_millis();
    for bot in bots {
        jobs_db::insert(tx, bot, id, trigger, now)?;
    }
    tx.emit(Event::OutgoingWebhooksQueued);
    Ok(())
}

/// A claimed delivery with what the request needs.
pub struct Delivery {
    pub job: Job,
    pub bot: User,
    pub service: Option<BotService>,
    /// The message as the bot sees it (empty if it is gone).
    pub bundle: Bundle,
}

impl Delivery {
    /// Whether the bot's service speaks Slack's format.
    pub fn is_slack(&self) -> bool {
        self.service
            .as_ref()
            .is_some_and(|s| s.interface == INTERFACE_SLACK)
    }
}

/// What a delivery came to.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// The bot answers with this content (and widget).
    Reply {
        content: String,
        widget_content: Option<serde_json::Value>,
    },
    /// Nothing to post (`response_not_required`, an empty answer, a deleted message).
    Nothing,
    /// Upstream's failure: "Failure! `notice`" in the conversation, and `owner_note` (after
    /// the standard first line) to the bot's owner when given.
    Failed {
        notice: String,
        owner_note: Option<String>,
    },
    /// A timeout or connection failure: tried again later, or after the last attempt "Failure!
    /// Bot is unavailable" and `reason` to the owner.
    Retry { reason: String },
}

/// At start-up: nothing is in flight, so deliveries a stop cut short are due again.
pub async fn release_claims(state: &Core) -> Result<()> {
    state.db.write(|tx| jobs_db::release_all(tx)).await
}

/// When the next delivery is due (UNIX milliseconds), if any is queued and unclaimed.
pub async fn next_due(state: &Core) -> Result<Option<i64>> {
    state.db.read(jobs_db::next_due).await
}

/// Claims up to `limit` due deliveries, within each owner's share of the slots
/// ([`MAX_CONCURRENT_PER_OWNER`]), and reads what their requests need.
pub async fn claim(state: &Core, limit: usize) -> Result<Vec<Delivery>> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let now = crate::time::now_millis();
    // Picked on a reader (the pass may cross a long backlog), claimed by the writer. Only the
    // one worker claims, and `mark_claimed` skips any job claimed meanwhile.
    let picked = state
        .db
        .read(move |c| jobs_db::pick_due(c, now, limit, MAX_CONCURRENT_PER_OWNER))
        .await?;
    if picked.is_empty() {
        return Ok(Vec::new());
    }
    let claimed = state
        .db
        .write(move |tx| jobs_db::mark_claimed(tx, picked))
        .await?;
    if claimed.is_empty() {
        return Ok(Vec::new());
    }
    state
        .db
        .read(move |c| {
            let mut out = Vec::with_capacity(claimed.len());
            for job in claimed {
                let Some(bot) = users_db::get(c, job.bot_id)? else {
                    continue;
                };
                let service = bots_db::service(c, job.bot_id)?;
                let bundle = fetch::one_unchecked(c, &bot, job.message_id)?;
                out.push(Delivery {
                    job,
                    bot,
                    service,
                    bundle,
                });
            }
            Ok(out)
        })
        .await
}

/// Acts on a delivery's outcome in one commit (see the module comment).
pub async fn finish(state: &Core, d: Delivery, outcome: Outcome) -> Result<()> {
    let outcome = match outcome {
        Outcome::Retry { reason } if d.job.attempts + 1 < MAX_ATTEMPTS => {
            let due = crate::time::now_millis() + backoff(d.job.attempts).as_millis() as i64;
            let id = d.job.id;
            tracing::info!(
                bot = d.bot.id.0,
                message = d.job.message_id.0,
                attempt = d.job.attempts + 1,
                %reason,
                "outgoing webhook failed; will retry"
            );
            return state
                .db
                .write(move |tx| jobs_db::reschedule(tx, id, due))
                .await;
        }
        Outcome::Retry { reason } => {
            tracing::warn!(
                bot = d.bot.id.0,
                message = d.job.message_id.0,
                "outgoing webhook: maximum retries exceeded"
            );
            Outcome::Failed {
                notice: "Bot is unavailable".into(),
                owner_note: Some(reason),
            }
        }
        other => other,
    };
    let realm_url = state.config.chat.external_url.clone();
    state
        .db
        .write(move |tx| act(tx, &d, outcome, &realm_url))
        .await
}

/// Where a reply to the delivery's message goes: its channel and topic, or all participants
/// of its direct-message conversation.
fn reply_destination(c: &rusqlite::Connection, d: &Delivery) -> Result<Option<NoticeDestination>> {
    let Some(v) = d.bundle.messages.first() else {
        return Ok(None);
    };
    let m = &v.message;
    if let Some(ch) = m.channel_id {
        return Ok(
            channels_db::get(c, ch)?.map(|channel| NoticeDestination::Channel {
                channel,
                topic: m.topic.clone(),
            }),
        );
    }
    match m.conversation_id {
        Some(conv) => Ok(Some(NoticeDestination::Direct(conversations_db::members(
            c, conv,
        )?))),
        None => Ok(None),
    }
}

/// Upstream's link to a message in the web client.
fn message_url(c: &rusqlite::Connection, d: &Delivery, realm_url: &str) -> Result<String> {
    let base = realm_url.trim_end_matches('/');
    let Some(v) = d.bundle.messages.first() else {
        return Ok(base.to_string());
    };
    let m = &v.message;
    if let Some(ch) = m.channel_id {
        let name = d.bundle.channel_names.get(&ch).cloned().unwrap_or_default();
        return Ok(format!(
            "{base}/{}",
            crate::markdown::syntax::message_link_target(ch.0, &name, &m.topic, m.id.0)
        ));
    }
    let mut ids: Vec<i64> = match m.conversation_id {
        Some(conv) => conversations_db::members(c, conv)?
            .into_iter()
            .map(|u| u.0)
            .collect(),
        None => Vec::new(),
    };
    // Upstream names a one-on-one conversation by the other participant.
    if ids.len() == 2 {
        ids.retain(|u| *u != m.sender_id.0);
    }
    Ok(crate::markdown::syntax::direct_message_url(
        base, &ids, m.id.0,
    ))
}

fn act(tx: &mut WriteTx<'_>, d: &Delivery, outcome: Outcome, realm_url: &str) -> Result<()> {
    // Gone: the message was deleted meanwhile, so there is nothing to answer.
    if !jobs_db::remove(tx, d.job.id)? || d.bundle.messages.is_empty() {
        return Ok(());
    }
    let bot = match users_db::get(tx, d.bot.id)? {
        Some(b) if b.is_active && b.bot_type == Some(OUTGOING_WEBHOOK_BOT) => b,
        _ => return Ok(()),
    };
    let message = d.job.message_id;
    // Upstream marks the message processed (read) for the bot, whatever the outcome.
    if receives(tx, &bot, d)? {
        flags_db::change(tx, bot.id, message, bits::READ, 0)?;
    }
    let Some(destination) = reply_destination(tx, d)? else {
        return Ok(());
    };
    match outcome {
        Outcome::Nothing | Outcome::Retry { .. } => Ok(()),
        Outcome::Reply {
            content,
            widget_content,
        } => {
            let widget = match widget_content.map(|w| check_widget_content(&w)).transpose() {
                Ok(w) => w,
                Err(e) => return fail(tx, d, &bot, destination, &e.msg, None, realm_url),
            };
            let posted = post_service_reply(
                tx,
                Notice {
                    sender: &bot,
                    destination: clone_destination(&destination),
                    content,
                    read_by: None,
                },
                realm_url,
            );
            match posted {
                Ok(id) => {
                    if let Some(widget) = widget {
                        crate::db::submessages::insert(tx, id, bot.id, "widget", &widget)?;
                    }
                    Ok(())
                }
                Err(e) if e.is_client_error() => {
                    let note = format!(
                        "The outgoing webhook server attempted to send a message in Zulip, but \
                         that request resulted in the following error:\n> {}",
                        e.msg
                    );
                    fail(tx, d, &bot, destination, &e.msg, Some(note), realm_url)
                }
                Err(e) => Err(e),
            }
        }
        Outcome::Failed { notice, owner_note } => {
            fail(tx, d, &bot, destination, &notice, owner_note, realm_url)
        }
    }
}

/// Whether the bot received the message (is subscribed to its channel, or a participant).
fn receives(c: &rusqlite::Connection, bot: &User, d: &Delivery) -> Result<bool> {
    let Some(v) = d.bundle.messages.first() else {
        return Ok(false);
    };
    match (v.message.channel_id, v.message.conversation_id) {
        (Some(ch), _) => channels_db::is_subscribed(c, bot.id, ch),
        (None, Some(conv)) => Ok(conversations_db::members(c, conv)?.contains(&bot.id)),
        _ => Ok(false),
    }
}

fn clone_destination(d: &NoticeDestination) -> NoticeDestination {
    match d {
        NoticeDestination::Channel { channel, topic } => NoticeDestination::Channel {
            channel: channel.clone(),
            topic: topic.clone(),
        },
        NoticeDestination::Direct(users) => NoticeDestination::Direct(users.clone()),
    }
}

/// "Failure! `notice`" in the conversation and, with `owner_note`, a direct message to the
/// bot's owner; a notice that cannot be posted (an archived channel) is dropped.
fn fail(
    tx: &mut WriteTx<'_>,
    d: &Delivery,
    bot: &User,
    destination: NoticeDestination,
    notice: &str,
    owner_note: Option<String>,
    realm_url: &str,
) -> Result<()> {
    let posted = post_service_reply(
        tx,
        Notice {
            sender: bot,
            destination,
            content: format!("Failure! {notice}"),
            read_by: None,
        },
        realm_url,
    );
    if let Err(e) = posted
        && !e.is_client_error()
    {
        return Err(e);
    }
    let Some(note) = owner_note else {
        return Ok(());
    };
    let Some(owner) = bot.bot_owner_id else {
        return Ok(());
    };
    if !users_db::get(tx, owner)?.is_some_and(|o| o.is_active) {
        return Ok(());
    }
    let content = format!(
        "[A message]({}) to your bot @_**{}** triggered an outgoing webhook.\n{note}",
        message_url(tx, d, realm_url)?,
        bot.full_name
    );
    match post_service_reply(
        tx,
        Notice {
            sender: bot,
            destination: NoticeDestination::Direct(vec![owner]),
            content,
            read_by: None,
        },
        realm_url,
    ) {
        Ok(_) => Ok(()),
        Err(e) if e.is_client_error() => Ok(()),
        Err(e) => Err(e),
    }
}

/// Upstream's check of a bot's `widget_content` (`check_widget_content`): a JSON object (or a
/// string holding one) of a `zform` widget with `choices`; returns the JSON stored as the
/// message's widget.
pub fn check_widget_content(w: &serde_json::Value) -> Result<String> {
    use serde_json::Value;
    let parsed;
    let w = match w {
        Value::String(s) => {
            parsed = serde_json::from_str::<Value>(s)
                .map_err(|_| Error::bad_request("widget_content is not valid JSON"))?;
            &parsed
        }
        other => other,
    };
    let bad = |what: &str| Error::bad_request(format!("widget_content {what}"));
    let obj = w.as_object().ok_or_else(|| bad("is not a dict"))?;
    let widget_type = obj
        .get("widget_type")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("has no widget_type"))?;
    if widget_type != "zform" {
        return Err(bad("has an unknown widget_type"));
    }
    let extra = obj
        .get("extra_data")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("has no extra_data dict"))?;
    if extra.get("type").and_then(Value::as_str) != Some("choices") {
        return Err(bad("has an unknown extra_data type"));
    }
    if !extra.get("heading").is_some_and(Value::is_string) {
        return Err(bad("has no heading"));
    }
    let choices = extra
        .get("choices")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("has no choices"))?;
    for c in choices {
        let c = c
            .as_object()
            .ok_or_else(|| bad("has a choice that is not a dict"))?;
        for key in ["type", "long_name", "reply", "short_name"] {
            if !c.get(key).is_some_and(Value::is_string) {
                return Err(bad(&format!("has a choice without {key}")));
            }
        }
    }
    Ok(w.to_string())
}
