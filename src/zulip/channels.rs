//! Channel and subscription endpoints. Handlers parse parameters into the typed requests of
//! `domain::channels` and render with `wire`.

use serde_json::Value;

use crate::domain::channels::{
    self, ChannelOptions, ChannelUpdate, ListFilter, PropertyChange, SettingChange,
    SubscriptionRequest, UserRefArg,
};
use crate::error::{Error, Result};
use crate::ids::ChannelId;
use crate::model::{ChannelSetting, TopicsPolicy, User};
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::{Params, as_int};
use super::wire;

/// A string parameter that clients send either raw or JSON-encoded.
fn loose_str(p: &mut Params, name: &str) -> Option<String> {
    p.str(name)
        .map(|raw| match serde_json::from_str::<Value>(&raw) {
            Ok(Value::String(s)) => s,
            _ => raw,
        })
}

fn topics_policy(p: &mut Params) -> Result<Option<TopicsPolicy>> {
    match loose_str(p, "topics_policy") {
        None => Ok(None),
        Some(s) => TopicsPolicy::from_name(&s)
            .map(Some)
            .ok_or_else(|| Error::bad_request("Invalid topics_policy")),
    }
}

fn retention(p: &mut Params) -> Result<Option<Option<i64>>> {
    match p.str("message_retention_days") {
        None => Ok(None),
        Some(raw) => channels::parse_retention(&raw).map(Some),
    }
}

pub(super) fn int_list(p: &mut Params, name: &str) -> Result<Option<Vec<i64>>> {
    match p.json(name)? {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                as_int(v)
                    .ok_or_else(|| Error::bad_request(format!("{name}[{i}] is not an integer")))
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        Some(_) => Err(Error::bad_request(format!("{name} is not a list"))),
    }
}

/// Channel creation options shared by `POST /channels/create` and `POST /users/me/subscriptions`.
fn channel_options(p: &mut Params) -> Result<ChannelOptions> {
    let mut opts = ChannelOptions {
        announce: p.bool("announce")?.unwrap_or(false),
        description: p.str("description"),
        invite_only: p.bool("invite_only")?.unwrap_or(false),
        is_web_public: p.bool("is_web_public")?.unwrap_or(false),
        is_default: p.bool("is_default_stream")?.unwrap_or(false),
        history_public_to_subscribers: p.bool("history_public_to_subscribers")?,
        topics_policy: topics_policy(p)?,
        message_retention_days: retention(p)?,
        folder_id: p.int("folder_id")?,
        settings: Vec::new(),
    };
    for which in ChannelSetting::ALL {
        if let Some(v) = p.json(which.name())? {
            opts.settings
                .push((which, channels::parse_group_setting(which.name(), &v)?));
        }
    }
    Ok(opts)
}

/// # `POST /api/v1/channels/create`
///
/// Creates a channel with the given subscribers and settings; 409 `CHANNEL_ALREADY_EXISTS`
/// for a taken name.
pub async fn create_channel(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let name = p.required_str("name")?;
    let subscribers = int_list(p, "subscribers")?.ok_or_else(|| Error::missing("subscribers"))?;
    let opts = channel_options(p)?;
    let id = channels::create(state, caller, &name, subscribers, opts).await?;
    Ok(Success::new().field("id", id.0))
}

fn principals(p: &mut Params) -> Result<Option<Vec<UserRefArg>>> {
    match p.json("principals")? {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(UserRefArg::Email(s.clone())),
                v => as_int(v).map(UserRefArg::Id).ok_or_else(|| {
                    Error::bad_request("principals is not a list of emails or user IDs")
                }),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        Some(_) => Err(Error::bad_request("principals is not a list")),
    }
}

/// # `POST /api/v1/users/me/subscriptions`
///
/// Subscribes the caller (or `principals`) to channels, creating missing ones.
pub async fn subscribe(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let raw = p
        .json("subscriptions")?
        .ok_or_else(|| Error::missing("subscriptions"))?;
    let Value::Array(items) = raw else {
        return Err(Error::bad_request("subscriptions is not a list"));
    };
    let mut requests = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(o) = item else {
            return Err(Error::bad_request(format!(
                "subscriptions[{i}] is not a dict"
            )));
        };
        let name = o.get("name").and_then(Value::as_str).ok_or_else(|| {
            Error::bad_request(format!("subscriptions[{i}][\"name\"] is missing"))
        })?;
        requests.push(SubscriptionRequest {
            name: name.to_string(),
            description: o
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            color: o.get("color").and_then(Value::as_str).map(str::to_string),
        });
    }
    let principals = principals(p)?;
    let fatal = p.bool("authorization_errors_fatal")?.unwrap_or(true);
    let opts = channel_options(p)?;
    let out = channels::subscribe(state, caller, requests, principals, fatal, opts).await?;
    let mut s = Success::new()
        .field("subscribed", wire::names_by_user(out.subscribed))
        .field(
            "already_subscribed",
            wire::names_by_user(out.already_subscribed),
        );
    if !fatal {
        s = s.field("unauthorized", out.unauthorized);
    }
    Ok(s)
}

/// # `GET /api/v1/users/me/subscriptions`
pub async fn get_subscriptions(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let with_subscribers = p.bool("include_subscribers")?.unwrap_or(false);
    let listed = channels::my_subscriptions(state, caller, with_subscribers).await?;
    let subs: Vec<Value> = listed
        .iter()
        .filter_map(|l| {
            l.subscription
                .as_ref()
                .map(|s| wire::subscription_record(l, s).into())
        })
        .collect();
    Ok(Success::new().field("subscriptions", subs))
}

/// # `DELETE /api/v1/users/me/subscriptions`
pub async fn unsubscribe(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let raw = p
        .json("subscriptions")?
        .ok_or_else(|| Error::missing("subscriptions"))?;
    let names: Vec<String> = match raw {
        Value::Array(items) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                _ => Err(Error::bad_request(
                    "subscriptions is not a list of channel names",
                )),
            })
            .collect::<Result<_>>()?,
        _ => return Err(Error::bad_request("subscriptions is not a list")),
    };
    let principals = principals(p)?;
    let (removed, not_removed) = channels::unsubscribe(state, caller, names, principals).await?;
    Ok(Success::new()
        .field("removed", removed)
        .field("not_removed", not_removed))
}

/// # `GET /api/v1/streams`
pub async fn get_streams(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let include_all =
        p.bool("include_all")?.unwrap_or(false) || p.bool("include_all_active")?.unwrap_or(false);
    let include_default = p.bool("include_default")?.unwrap_or(false);
    // Outpost has no web-public channels and no spectators, so these select nothing extra.
    let _ = p.bool("include_web_public")?;
    let _ = p.bool("include_owner_subscribed")?;
    let _ = p.bool("include_can_access_content")?;
    let filter = ListFilter {
        include_public: p.bool("include_public")?.unwrap_or(true),
        include_subscribed: p.bool("include_subscribed")?.unwrap_or(true),
        include_all,
        exclude_archived: p.bool("exclude_archived")?.unwrap_or(true),
        include_default,
    };
    let listed = channels::list(state, caller, filter).await?;
    let streams: Vec<Value> = listed
        .iter()
        .map(|l| wire::basic_channel(l, include_default).into())
        .collect();
    Ok(Success::new().field("streams", streams))
}

/// # `GET /api/v1/streams/{stream_id}`
pub async fn get_stream(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    let l = channels::get(state, caller, ChannelId(id)).await?;
    Ok(Success::new().field("stream", wire::basic_channel(&l, false)))
}

/// # `GET /api/v1/get_stream_id`
pub async fn get_stream_id(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let name = p.required_str("stream")?;
    let id = channels::id_by_name(state, caller, name).await?;
    Ok(Success::new().field("stream_id", id.0))
}

/// # `GET /api/v1/streams/{stream_id}/members`
pub async fn get_members(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    let ids = channels::members(state, caller, ChannelId(id)).await?;
    Ok(Success::new().field("subscribers", ids.iter().map(|u| u.0).collect::<Vec<_>>()))
}

/// # `PATCH /api/v1/streams/{stream_id}`
///
/// Channel administrators change the name, description, privacy, history, default status,
/// retention, topics policy and permission groups (`{"new": ..., "old": ...}`).
pub async fn update_stream(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let mut up = ChannelUpdate {
        new_name: p.str("new_name"),
        description: p.str("description"),
        invite_only: p.bool("is_private")?,
        is_web_public: p.bool("is_web_public")?,
        history_public_to_subscribers: p.bool("history_public_to_subscribers")?,
        is_default: p.bool("is_default_stream")?,
        message_retention_days: retention(p)?,
        topics_policy: topics_policy(p)?,
        folder_id: match p.json("folder_id")? {
            None => None,
            Some(Value::Null) => Some(None),
            Some(v) => {
                Some(Some(as_int(&v).ok_or_else(|| {
                    Error::bad_request("folder_id is not an integer")
                })?))
            }
        },
        settings: Vec::new(),
    };
    for which in ChannelSetting::ALL {
        let Some(v) = p.json(which.name())? else {
            continue;
        };
        let Value::Object(o) = &v else {
            return Err(Error::bad_request(format!(
                "{} is not a dict",
                which.name()
            )));
        };
        let new = o
            .get("new")
            .ok_or_else(|| Error::bad_request(format!("{}[\"new\"] is missing", which.name())))?;
        up.settings.push(SettingChange {
            which,
            new: channels::parse_group_setting(which.name(), new)?,
            old: o
                .get("old")
                .map(|old| channels::parse_group_setting(which.name(), old))
                .transpose()?,
        });
    }
    channels::update(state, caller, ChannelId(id), up).await?;
    Ok(Success::new())
}

/// # `DELETE /api/v1/streams/{stream_id}`
///
/// Archives the channel.
pub async fn archive_stream(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    channels::archive(state, caller, ChannelId(id)).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/users/me/subscriptions/properties`
pub async fn update_subscription_properties(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let raw = p
        .json("subscription_data")?
        .ok_or_else(|| Error::missing("subscription_data"))?;
    let Value::Array(items) = raw else {
        return Err(Error::bad_request("subscription_data is not a list"));
    };
    let mut changes = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(mut o) = item else {
            return Err(Error::bad_request(format!(
                "subscription_data[{i}] is not a dict"
            )));
        };
        let missing =
            |k: &str| Error::bad_request(format!("subscription_data[{i}][\"{k}\"] is missing"));
        let channel_id = o
            .get("stream_id")
            .and_then(as_int)
            .ok_or_else(|| missing("stream_id"))?;
        let property = o
            .get("property")
            .and_then(Value::as_str)
            .ok_or_else(|| missing("property"))?
            .to_string();
        let value = o.remove("value").ok_or_else(|| missing("value"))?;
        changes.push(PropertyChange {
            channel_id,
            property,
            value,
        });
    }
    channels::set_properties(state, caller, changes).await?;
    Ok(Success::new())
}
