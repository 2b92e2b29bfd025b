//! Presence, typing notifications and alert words: the handlers, and which users the
//! realm-wide presence listing holds (`wire::presence` renders it). Must not touch: the
//! presence rules themselves (`domain::presence`), JSON shapes.

use serde_json::Value;

use crate::domain::presence::{OFFLINE_THRESHOLD_SECS, PresenceEntry};
use crate::error::{Error, Result};
use crate::events::{AlertWordsChanged, Event, PresenceChanged, Typing, TypingTarget};
use crate::ids::{ChannelId, UserId};
use crate::model::User;
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::{Params, as_int};
use super::realtime::DEFAULT_PRESENCE_HISTORY_DAYS;
use super::users::UserRef;
use super::wire;

/// # `POST /api/v1/users/me/presence`
///
/// Records the caller as active or idle and returns everyone's presence (unless `ping_only`).
pub async fn update_presence(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    if caller.is_bot {
        return Err(Error::bad_request(
            "This endpoint does not accept bot requests.",
        ));
    }
    let status = p.required_str("status")?;
    let active = match status.as_str() {
        "active" => true,
        "idle" => false,
        other => return Err(Error::bad_request(format!("Invalid status: {other}"))),
    };
    let ping_only = p.bool("ping_only")?.unwrap_or(false);
    let _new_user_input = p.bool("new_user_input")?;
    let last_update_id = p.int("last_update_id")?;
    let slim = p.bool("slim_presence")?.unwrap_or(false) || last_update_id.is_some();
    let history_days = p
        .int("history_limit_days")?
        .map_or(DEFAULT_PRESENCE_HISTORY_DAYS, |d| d.max(0));
    let now = crate::time::now_secs();
    if caller.presence_enabled && state.presence.report(caller.id, active, now) {
        state
            .hub
            .publish(vec![Event::PresenceChanged(PresenceChanged {
                user_id: caller.id,
                active,
                timestamp: now,
            })]);
    }
    if active && state.presence.activity_due(caller.id, now) {
        // Only for the digest's "away for days": a failed write is logged, not answered.
        if let Err(e) = crate::domain::presence::record_activity(state, caller.id, now).await {
            tracing::warn!(error = %e.msg, "recording user activity failed");
        }
    }
    if ping_only {
        return Ok(Success::new());
    }
    let query = PresenceQuery {
        slim,
        since_update_id: last_update_id,
        history_days,
    };
    let presences = realm_presences(state, &query).await?;
    Ok(Success::new()
        .field("presences", presences)
        .field(
            "server_timestamp",
            crate::time::now_millis() as f64 / 1000.0,
        )
        .field("presence_last_update_id", state.presence.last_update_id()))
}

/// Which presence entries a realm-wide listing reports, and in which form.
pub struct PresenceQuery {
    /// Keyed by user id with the slim entry, rather than by email with the legacy one.
    pub slim: bool,
    /// Only entries changed after this `presence_last_update_id` (a client catching up).
    pub since_update_id: Option<i64>,
    /// Only users connected within this many days; 0 asks for nothing.
    pub history_days: i64,
}

/// Everyone's presence, the one listing `POST /register`, `GET /realm/presence` and
/// `POST /users/me/presence` share. Upstream's rule (`get_presence_dict_by_realm`): active,
/// human users connected within the history window (a client catching up from a positive
/// `last_update_id` gets every newer change instead). Users who turned presence sharing off
/// are left out: upstream never shows them online, and Outpost keeps no presence for them,
/// as `GET /users/{id}/presence` says.
pub async fn realm_presences(state: &ChatState, q: &PresenceQuery) -> Result<Value> {
    if q.history_days == 0 {
        return Ok(wire::realm_presences(q.slim, [], ""));
    }
    let catching_up = q.since_update_id.is_some_and(|s| s > 0);
    let oldest = crate::time::now_secs().saturating_sub(q.history_days.saturating_mul(86_400));
    let entries: Vec<(UserId, PresenceEntry)> = state
        .presence
        .all()
        .into_iter()
        .filter(|(_, e)| q.since_update_id.is_none_or(|s| e.last_update_id > s))
        .filter(|(_, e)| catching_up || e.idle_timestamp >= oldest)
        .collect();
    let ids: Vec<UserId> = entries.iter().map(|(u, _)| *u).collect();
    let users = state
        .db
        .read(move |c| {
            let mut v = Vec::new();
            for id in ids {
                if let Some(u) = crate::db::users::get(c, id)?
                    .filter(|u| u.is_active && !u.is_bot && u.presence_enabled)
                {
                    v.push(u);
                }
            }
            Ok(v)
        })
        .await?;
    // One lookup per entry (a map, not a search of the list), so the answer stays linear.
    let by_id: std::collections::HashMap<UserId, &User> = users.iter().map(|u| (u.id, u)).collect();
    let listed = entries
        .iter()
        .filter_map(|(uid, e)| by_id.get(uid).map(|u| (*u, e)));
    Ok(wire::realm_presences(
        q.slim,
        listed,
        state.config.realm_host(),
    ))
}

/// # `GET /api/v1/realm/presence`
pub async fn get_realm_presence(state: &ChatState) -> Result<Success> {
    let query = PresenceQuery {
        slim: false,
        since_update_id: None,
        history_days: DEFAULT_PRESENCE_HISTORY_DAYS,
    };
    let presences = realm_presences(state, &query).await?;
    Ok(Success::new()
        .field("presences", presences)
        .field(
            "server_timestamp",
            crate::time::now_millis() as f64 / 1000.0,
        )
        .without_ignored())
}

/// # `GET /api/v1/users/{user_id_or_email}/presence`
pub async fn get_user_presence(state: &ChatState, caller: &User, who: &UserRef) -> Result<Success> {
    let target = super::users::resolve(state, caller, who).await?;
    if target.is_bot {
        return Err(Error::bad_request(
            "Presence is not supported for bot users.",
        ));
    }
    let label = match who {
        UserRef::Id(id) => id.to_string(),
        UserRef::Email(e) => e.clone(),
    };
    let entry = state
        .presence
        .get(target.id)
        .filter(|_| target.presence_enabled)
        .ok_or_else(|| Error::bad_request(format!("No presence data for {label}")))?;
    let latest = entry.idle_timestamp.max(entry.active_timestamp);
    let offline = crate::time::now_secs() - latest > OFFLINE_THRESHOLD_SECS;
    Ok(Success::new().field("presence", wire::user_presence(&entry, offline)))
}

/// # `POST /api/v1/typing`
///
/// Tells the other participants that the caller started or stopped typing.
pub async fn set_typing(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let kind = p.str("type").unwrap_or_else(|| "direct".into());
    let op = p.required_str("op")?;
    let start = match op.as_str() {
        "start" => true,
        "stop" => false,
        _ => return Err(Error::bad_request("Invalid op")),
    };
    let target = match kind.as_str() {
        "direct" | "private" => {
            let to = p
                .json("to")?
                .ok_or_else(|| Error::bad_request("Missing 'to' argument"))?;
            let Value::Array(items) = to else {
                return Err(Error::bad_request("to is not a list"));
            };
            if items.is_empty() {
                return Err(Error::bad_request("Empty 'to' list"));
            }
            let mut ids = vec![caller.id];
            for v in &items {
                let id =
                    as_int(v).ok_or_else(|| Error::bad_request("to is not a list of integers"))?;
                ids.push(UserId(id));
            }
            let check = ids.clone();
            let known = state
                .db
                .read(move |c| {
                    for id in &check {
                        if crate::db::users::get(c, *id)?.is_none_or(|u| !u.is_active) {
                            return Ok(Some(id.0));
                        }
                    }
                    Ok(None)
                })
                .await?;
            if let Some(bad) = known {
                return Err(Error::bad_request(format!("Invalid user ID {bad}")));
            }
            ids.sort_unstable();
            ids.dedup();
            TypingTarget::Direct(ids)
        }
        "stream" | "channel" => {
            let id = p
                .int("stream_id")?
                .ok_or_else(|| Error::bad_request("Missing 'stream_id' argument"))?;
            let topic = p
                .aliased_str("topic", "subject")?
                .ok_or_else(|| Error::bad_request("Missing topic"))?;
            let viewer = caller.clone();
            state
                .db
                .read(move |c| {
                    crate::domain::channels::visible_by_id(c, &viewer, ChannelId(id)).map(|_| ())
                })
                .await?;
            TypingTarget::Channel {
                channel_id: ChannelId(id),
                topic: crate::domain::messages::send::normalize_topic(&topic)?,
            }
        }
        _ => return Err(Error::bad_request("Invalid type")),
    };
    let (setting, kind_name) = match target {
        TypingTarget::Direct(_) => ("send_private_typing_notifications", "direct"),
        TypingTarget::Channel { .. } => ("send_stream_typing_notifications", "channel"),
    };
    if !crate::domain::settings::flag(state, caller.id, setting).await? {
        return Err(Error::bad_request(format!(
            "User has disabled typing notifications for {kind_name} messages"
        )));
    }
    state.hub.publish(vec![Event::Typing(Typing {
        sender: caller.id,
        start,
        target,
    })]);
    Ok(Success::new())
}

async fn alert_words_of(state: &ChatState, user: UserId) -> Result<Vec<String>> {
    state
        .db
        .read(move |c| crate::db::alert_words::of_user(c, user))
        .await
}

/// # `GET /api/v1/users/me/alert_words`
pub async fn get_alert_words(state: &ChatState, caller: &User) -> Result<Success> {
    Ok(Success::new().field("alert_words", alert_words_of(state, caller.id).await?))
}

fn word_list(p: &mut Params) -> Result<Vec<String>> {
    match p.json("alert_words")? {
        None => Err(Error::missing("alert_words")),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) if s.contains('\0') => Err(Error::bad_request(
                    "alert_words[] must not contain null bytes",
                )),
                Value::String(s) if !s.trim().is_empty() && s.chars().count() <= 100 => {
                    Ok(s.trim().to_string())
                }
                Value::String(s) if s.trim().is_empty() => {
                    Err(Error::bad_request("alert_words[] cannot be blank"))
                }
                Value::String(_) => Err(Error::bad_request(
                    "alert_words[] is too long (limit: 100 characters)",
                )),
                _ => Err(Error::bad_request("alert_words is not a list of strings")),
            })
            .collect(),
        Some(_) => Err(Error::bad_request("alert_words is not a list")),
    }
}

/// # `POST /api/v1/users/me/alert_words` and `DELETE /api/v1/users/me/alert_words`
pub async fn change_alert_words(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
    add: bool,
) -> Result<Success> {
    let words = word_list(p)?;
    let user = caller.id;
    let all = state
        .db
        .write(move |tx| {
            for w in &words {
                if add {
                    crate::db::alert_words::add(tx, user, w)?;
                } else {
                    crate::db::alert_words::remove(tx, user, w)?;
                }
            }
            let all = crate::db::alert_words::of_user(tx, user)?;
            tx.emit(Event::AlertWordsChanged(AlertWordsChanged {
                user_id: user,
                words: all.clone(),
            }));
            Ok(all)
        })
        .await?;
    Ok(Success::new().field("alert_words", all))
}
