//! `POST /bots`, `GET /bots`, `PATCH /bots/{id}`, `DELETE /bots/{id}` and
//! `POST /bots/{id}/api_key/regenerate`: bot accounts made by users (bot callers are refused).
//! Parsing (upstream's parameter errors) and the response shapes here; the rules in
//! `domain::bots`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::domain::bots::{self, BotUpdate, DefaultsChange, NewBot};
use crate::error::{Error, Result};
use crate::model::{BotDefaults, User};
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::Params;
use super::wire;

/// `config_data`: a JSON object of strings, optional.
fn config_data(p: &mut Params) -> Result<BTreeMap<String, String>> {
    match p.json("config_data")? {
        None => Ok(BTreeMap::new()),
        Some(v) => config_map(v),
    }
}

/// A `config_data` value: a JSON object of strings.
fn config_map(v: Value) -> Result<BTreeMap<String, String>> {
    match v {
        Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k, s)),
                _ => Err(Error::bad_request(format!(
                    "config_data[{}] is not a string",
                    Value::String(k)
                ))),
            })
            .collect(),
        _ => Err(Error::bad_request("config_data is not a dict")),
    }
}

/// A JSON-encoded URL parameter, as upstream's `check_url`.
fn url_param(p: &mut Params, name: &str) -> Result<Option<String>> {
    let Some(raw) = p.str(name) else {
        return Ok(None);
    };
    let url = match serde_json::from_str::<Value>(&raw) {
        Ok(Value::String(s)) => s,
        Ok(_) => return Err(Error::bad_request(format!("{name} is not a string"))),
        Err(_) => return Err(Error::bad_request(format!("{name} is not valid JSON"))),
    };
    bots::check_payload_url(&url)
        .map_err(|_| Error::bad_request(format!("{name} is not a URL")))?;
    Ok(Some(url))
}

/// The default-channel parameters of `POST /bots` and `PATCH /bots/{id}`.
fn defaults_change(p: &mut Params) -> Result<DefaultsChange> {
    Ok(DefaultsChange {
        sending: p.str("default_sending_stream"),
        events: p.str("default_events_register_stream"),
        all_public: p.bool("default_all_public_streams")?,
    })
}

fn defaults_fields(s: Success, d: &BotDefaults) -> Success {
    s.field("default_sending_stream", d.sending_channel.clone())
        .field("default_events_register_stream", d.events_channel.clone())
        .field("default_all_public_streams", d.all_public_channels)
}

/// # `POST /api/v1/bots`
pub async fn create(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    // Who may call comes before what they sent, as upstream's decorators.
    bots::check_caller(caller)?;
    let full_name = p.required_str("full_name")?;
    let short_name = p.required_str("short_name")?;
    let bot_type = p.int("bot_type")?.unwrap_or(bots::GENERIC_BOT);
    let payload_url = url_param(p, "payload_url")?.unwrap_or_default();
    let service_name = p.str("service_name");
    let config_data = config_data(p)?;
    let interface_type = p.int("interface_type")?.unwrap_or(bots::INTERFACE_GENERIC);
    let defaults = defaults_change(p)?;
    let new = NewBot {
        full_name,
        short_name,
        bot_type,
        payload_url,
        interface_type,
        service_name,
        config_data,
        defaults,
    };
    let (bot, api_key, defaults) = bots::create(state, caller, new).await?;
    let host = state.config.realm_host();
    let s = Success::new()
        .field("user_id", bot.id.0)
        .field("api_key", api_key)
        .field("avatar_url", wire::user_avatar_url(&bot, host));
    Ok(defaults_fields(s, &defaults))
}

/// # `GET /api/v1/bots`
pub async fn list(state: &ChatState, caller: &User) -> Result<Success> {
    let host = state.config.realm_host();
    let bots = bots::owned(state, caller).await?;
    let items: Vec<Value> = bots
        .iter()
        .map(|(b, d)| {
            let mut m = Map::new();
            m.insert("username".into(), Value::from(wire::api_email(b, host)));
            m.insert("full_name".into(), Value::from(b.full_name.clone()));
            m.insert("api_key".into(), Value::from(b.api_key.0.clone()));
            m.insert(
                "avatar_url".into(),
                Value::from(wire::user_avatar_url(b, host)),
            );
            m.insert(
                "default_sending_stream".into(),
                d.sending_channel.clone().map_or(Value::Null, Value::from),
            );
            m.insert(
                "default_events_register_stream".into(),
                d.events_channel.clone().map_or(Value::Null, Value::from),
            );
            m.insert(
                "default_all_public_streams".into(),
                Value::Bool(d.all_public_channels),
            );
            Value::Object(m)
        })
        .collect();
    Ok(Success::new().field("bots", items))
}

/// # `PATCH /api/v1/bots/{bot_id}`
pub async fn update(state: &ChatState, caller: &User, id: i64, p: &mut Params) -> Result<Success> {
    bots::check_caller(caller)?;
    let full_name = p.str("full_name");
    let role = p.int("role")?;
    let bot_owner_id = p.int("bot_owner_id")?;
    let config = p.json("config_data")?.map(config_map).transpose()?;
    let service_payload_url = url_param(p, "service_payload_url")?;
    let service_interface = p
        .int("service_interface")?
        .unwrap_or(bots::INTERFACE_GENERIC);
    let defaults = defaults_change(p)?;
    let up = BotUpdate {
        full_name,
        role,
        bot_owner_id,
        service_payload_url: service_payload_url.clone(),
        service_interface,
        config_data: config.clone(),
        defaults,
    };
    let done = bots::update(state, caller, crate::ids::UserId(id), up).await?;
    let host = state.config.realm_host();
    let mut s = Success::new()
        .field("full_name", done.bot.full_name.clone())
        .field("avatar_url", wire::user_avatar_url(&done.bot, host))
        .field("service_interface", service_interface)
        .field("service_payload_url", service_payload_url)
        .field(
            "config_data",
            config.map(|c| {
                c.into_iter()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect::<Map<String, Value>>()
            }),
        );
    s = defaults_fields(s, &done.defaults);
    if let Some(owner) = &done.owner {
        s = s.field("bot_owner", wire::api_email(owner, host));
    }
    Ok(s)
}

/// # `DELETE /api/v1/bots/{bot_id}`
pub async fn deactivate(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    bots::deactivate(state, caller, crate::ids::UserId(id)).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/bots/{bot_id}/api_key/regenerate`
pub async fn regenerate_api_key(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    let key = bots::regenerate_api_key(state, caller, crate::ids::UserId(id)).await?;
    Ok(Success::new().field("api_key", key))
}
