//! Event queues over HTTP: `POST /register` (queue plus initial state), `GET /events`
//! (long-poll) and `DELETE /events`.
//!
//! The long-poll registers its wake-up before it looks at the queue and never consumes what it
//! reads, so a dropped connection loses nothing; the client's next `last_event_id` prunes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::RngExt as _;
use serde_json::Value;

use crate::domain::messages::narrow_events;
use crate::error::{Error, ErrorKind, Result};
use crate::events::queues::{AckError, PollGuard, PollState, Queue, QueueOptions};
use crate::http::{self, Response};
use crate::model::{Narrow, User};
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::Params;
use super::register_state;

fn bad_queue(id: &str) -> Error {
    Error::coded(
        "BAD_EVENT_QUEUE_ID",
        format!("Bad event queue ID: {id}"),
        vec![("queue_id", Value::from(id))],
    )
}

/// When a client refused for having too many waiting polls should try again.
const TOO_MANY_POLLS_RETRY: Duration = Duration::from_secs(1);

/// How much of each channel's subscriber list the initial state carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubscriberDetail {
    None,
    All,
    /// Channels with [`PARTIAL_SUBSCRIBERS_THRESHOLD`] or more subscribers list only bots and
    /// recently active users, as `partial_subscribers`.
    Partial,
}

/// Subscriber count from which `include_subscribers=partial` shortens a channel's list.
pub const PARTIAL_SUBSCRIBERS_THRESHOLD: usize = 250;

/// Days of activity that count as "recent" for partial subscriber lists and presence.
pub const DEFAULT_PRESENCE_HISTORY_DAYS: i64 = 14;

/// Registration options shared by `POST /register` and `GET /events` without a queue id.
pub struct Registration {
    pub options: QueueOptions,
    /// Whether the client named `all_public_streams` (a bot's default applies otherwise).
    pub all_public_streams_given: bool,
    pub fetch_event_types: Option<Vec<String>>,
    pub include_subscribers: SubscriberDetail,
    /// Presence older than this many days is left out of the initial state.
    pub presence_history_limit_days: i64,
}

fn string_list(p: &mut Params, name: &str) -> Result<Option<Vec<String>>> {
    match p.json(name)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                _ => Err(Error::bad_request(format!(
                    "{name} is not a list of strings"
                ))),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        Some(_) => Err(Error::bad_request(format!("{name} is not a list"))),
    }
}

/// Parses the registration parameters.
pub fn parse_registration(p: &mut Params) -> Result<Registration> {
    let event_types = string_list(p, "event_types")?;
    let fetch_event_types = string_list(p, "fetch_event_types")?;
    let narrow = match p.json("narrow")? {
        None => Narrow::default(),
        Some(v) => {
            let narrow = Narrow::parse(&v)?;
            narrow.check_for_events()?;
            narrow
        }
    };
    let caps = match p.json("client_capabilities")? {
        None => None,
        Some(Value::Object(o)) => Some(o),
        Some(_) => return Err(Error::bad_request("client_capabilities is not a dict")),
    };
    let cap = |name: &str| -> Result<bool> {
        match caps.as_ref().and_then(|o| o.get(name)) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(Error::bad_request(format!(
                "client_capabilities[\"{name}\"] is not a boolean"
            ))),
        }
    };
    let all_public_streams = p.bool("all_public_streams")?;
    let include_subscribers = match p.str("include_subscribers") {
        None => SubscriberDetail::None,
        Some(v) => match v.trim_matches('"') {
            "true" => SubscriberDetail::All,
            "partial" => SubscriberDetail::Partial,
            "false" => SubscriberDetail::None,
            _ => return Err(Error::bad_request("Invalid include_subscribers")),
        },
    };
    let options = QueueOptions {
        event_types,
        apply_markdown: p.bool("apply_markdown")?.unwrap_or(false),
        client_gravatar: p.bool("client_gravatar")?.unwrap_or(true),
        slim_presence: p.bool("slim_presence")?.unwrap_or(false),
        all_public_streams: all_public_streams.unwrap_or(false),
        narrow,
        bulk_message_deletion: cap("bulk_message_deletion")?,
        user_settings_object: cap("user_settings_object")?,
        stream_typing_notifications: cap("stream_typing_notifications")?,
        empty_topic_name: cap("empty_topic_name")?,
        user_avatar_url_field_optional: cap("user_avatar_url_field_optional")?,
        archived_channels: cap("archived_channels")?,
        include_deactivated_groups: cap("include_deactivated_groups")?,
        lifespan: idle_queue_timeout(p)?,
    };
    for known in [
        "notification_settings_null",
        "linkifier_url_template",
        "user_list_incomplete",
    ] {
        cap(known)?;
    }
    let presence_history_limit_days = p
        .int("presence_history_limit_days")?
        .map_or(DEFAULT_PRESENCE_HISTORY_DAYS, |d| d.max(0));

    Ok(Registration {
        options,
        all_public_streams_given: all_public_streams.is_some(),
        fetch_event_types,
        include_subscribers,
        presence_history_limit_days,
    })
}

/// # `POST /api/v1/register`
///
/// Creates an event queue and returns it with the initial state of the requested types.
pub async fn register(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let mut reg = parse_registration(p)?;
    // A bot's defaults stand in for what its client left out (upstream's
    // `default_all_public_streams` and `default_events_register_stream`).
    let defaults = crate::domain::bots::defaults_of(state, caller).await?;
    if !reg.all_public_streams_given && defaults.all_public_channels {
        reg.options.all_public_streams = true;
    }
    if reg.options.narrow.is_empty()
        && let Some(name) = defaults.events_channel
    {
        let term = Value::Array(vec![Value::from("channel"), Value::from(name)]);
        reg.options.narrow = Narrow::parse(&Value::Array(vec![term]))?;
    }
    if reg.options.all_public_streams && caller.role == crate::model::Role::Guest {
        return Err(Error::bad_request("User not authorized for this query"));
    }
    let narrow = std::mem::take(&mut reg.options.narrow);
    reg.options.narrow = narrow_events::for_queue(state, caller, narrow).await?;
    let fetch = reg
        .fetch_event_types
        .clone()
        .or_else(|| reg.options.event_types.clone());
    let since = state.hub.current_seq();
    let queue = state.queues.register(caller.id, reg.options.clone(), since);
    let body = register_state::initial_state(
        state,
        caller,
        fetch.as_deref(),
        &reg.options,
        reg.include_subscribers,
        reg.presence_history_limit_days,
    )
    .await?;
    Ok(Success::new()
        .fields(body)
        .field("queue_id", queue.id.as_str())
        .field("last_event_id", -1))
}

/// Upstream's idle lifetime of a mobile client's queue (`idle_queue_timeout="mobile"`): a phone
/// in a pocket for hours resumes its queue instead of reloading everything.
pub const MOBILE_QUEUE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(12 * 3600);

/// The idle lifetime a register asks for: `idle_queue_timeout` (`"mobile"` or seconds, as the
/// mobile app sends it) or the older `queue_lifespan_secs`; the queue table bounds it.
fn idle_queue_timeout(p: &mut Params) -> Result<Option<std::time::Duration>> {
    if let Some(raw) = p.str("idle_queue_timeout") {
        let v = raw.trim().trim_matches('"');
        if v == "mobile" {
            return Ok(Some(MOBILE_QUEUE_TIMEOUT));
        }
        return match v.parse::<u64>() {
            Ok(secs) if secs > 0 => Ok(Some(std::time::Duration::from_secs(secs))),
            _ => Err(Error::bad_request(
                "Invalid idle_queue_timeout: expected \"mobile\" or a positive number of seconds",
            )),
        };
    }
    Ok(p.int("queue_lifespan_secs")?
        .filter(|s| *s > 0)
        .map(|s| std::time::Duration::from_secs(s as u64)))
}

/// The answer `POST /register` with the parameters `form` would give `caller`, as its JSON
/// body: the web client's page shell carries it (`web::pages::home`), so that its first view
/// waits for no register round trip. Creates the queue like the endpoint does.
pub async fn register_body(state: &ChatState, caller: &User, form: &str) -> Result<bytes::Bytes> {
    let mut p = Params::from_form(form, 32)?;
    Ok(register(state, caller, &mut p).await?.into_bytes())
}

/// Renders a successful events response by hand: the events are pre-serialized text.
fn events_response(queue: &Queue, ignored: Vec<String>) -> Response {
    let mut body = String::with_capacity(1024);
    body.push_str("{\"result\":\"success\",\"msg\":\"\",\"events\":[");
    queue.write_events(&mut body);
    body.push_str("],\"queue_id\":");
    body.push_str(&serde_json::to_string(&queue.id).expect("strings serialize"));
    if !ignored.is_empty() {
        body.push_str(",\"ignored_parameters_unsupported\":");
        body.push_str(&serde_json::to_string(&ignored).expect("strings serialize"));
    }
    body.push_str("}\n");
    let mut res = http::with_body(hyper::StatusCode::OK, "application/json", body);
    res.headers_mut().insert(
        hyper::header::CACHE_CONTROL,
        hyper::header::HeaderValue::from_static(
            "no-cache, no-store, must-revalidate, private, max-age=0",
        ),
    );
    res
}

/// # `GET /api/v1/events`
///
/// Returns queued events at once if there are any (or with `dont_block`), otherwise waits for
/// one, or answers a heartbeat after the configured time.
pub async fn get_events(state: &ChatState, caller: &User, p: &mut Params) -> Result<Response> {
    let queue_id = p.str("queue_id");
    let last_event_id = p.int("last_event_id")?;
    let dont_block = p.bool("dont_block")?.unwrap_or(false);
    let queue: Arc<Queue> = match queue_id {
        Some(id) => {
            let last = last_event_id
                .ok_or_else(|| Error::bad_request("Missing 'last_event_id' argument"))?;
            let q = state
                .queues
                .get(caller.id, &id)
                .ok_or_else(|| bad_queue(&id))?;
            q.ack(last).map_err(|e| match e {
                AckError::AlreadyPruned(n) => {
                    Error::bad_request(format!("An event newer than {n} has already been pruned!"))
                }
                AckError::NotInQueue(n) => {
                    Error::bad_request(format!("Event {n} was not in this queue"))
                }
            })?;
            q
        }
        None => {
            if !dont_block {
                return Err(Error::missing("queue_id"));
            }
            let mut reg = parse_registration(p)?;
            let narrow = std::mem::take(&mut reg.options.narrow);
            reg.options.narrow = narrow_events::for_queue(state, caller, narrow).await?;
            state
                .queues
                .register(caller.id, reg.options, state.hub.current_seq())
        }
    };
    let ignored = p.unused();
    // A blocking poll holds a place among the user's waiting polls until it answers.
    let _parked = if dont_block {
        None
    } else {
        Some(state.queues.admit_poll(&queue).map_err(|e| {
            Error::new(
                ErrorKind::RateLimited {
                    retry_after: TOO_MANY_POLLS_RETRY,
                },
                format!(
                    "Too many event queue polls waiting for this user (limit {}); try again later.",
                    e.limit
                ),
            )
        })?)
    };
    let heartbeat = state.config.events.heartbeat + jitter(state.config.events.heartbeat_jitter);
    // The queue table's heartbeat pass answers this poll if nothing else does by then.
    let generation = queue.begin_poll(Instant::now() + heartbeat);
    let _guard = PollGuard(&queue);
    loop {
        // Register for the next push before looking, so nothing can slip between.
        let notified = queue.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        match queue.poll_state(generation) {
            PollState::Closed => return Err(bad_queue(&queue.id)),
            PollState::Ready => break,
            PollState::Wait if dont_block || *state.stopping.borrow() => break,
            PollState::Wait => notified.await,
        }
    }
    Ok(events_response(&queue, ignored))
}

fn jitter(max: Duration) -> Duration {
    if max.is_zero() {
        return Duration::ZERO;
    }
    Duration::from_millis(rand::rng().random_range(0..=max.as_millis() as u64))
}

/// # `DELETE /api/v1/events`
pub fn delete_queue(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let id = p.required_str("queue_id")?;
    if !state.queues.delete(caller.id, &id) {
        return Err(bad_queue(&id));
    }
    Ok(Success::new())
}
