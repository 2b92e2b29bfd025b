//! `POST /bots`, `GET /bots`, `DELETE /bots/{id}` and `POST /bots/{id}/api_key/regenerate`:
//! bot accounts made by users. Parsing (upstream's parameter
//! errors) and the response shapes here; the rules in `domain::bots`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::app::AppState;
use crate::domain::bots::{self, NewBot};
use crate::error::{Error, Result};
use crate::model::User;

use super::envelope::Success;
use super::params::Params;
use super::wire;

/// `config_data`: a JSON object of strings, optional.
fn config_data(p: &mut Params) -> Result<BTreeMap<String, String>> {
    match p.json("config_data")? {
        None => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .into_iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k, s)),
                _ => Err(Error::bad_request(format!(
                    "config_data[{}] is not a string",
                    Value::String(k)
                ))),
            })
            .collect(),
        Some(_) => Err(Error::bad_request("config_data is not a dict")),
    }
}

/// # `POST /api/v1/bots`
pub async fn create(state: &AppState, caller: &User, p: &mut Params) -> Result<Success> {
    let full_name = p.required_str("full_name")?;
    let short_name = p.required_str("short_name")?;
    let bot_type = p.int("bot_type")?.unwrap_or(bots::GENERIC_BOT);
    let payload_url = match p.str("payload_url") {
        None => String::new(),
        Some(raw) => {
            // A JSON-encoded string, as upstream's `check_url` parameter.
            let url = match serde_json::from_str::<Value>(&raw) {
                Ok(Value::String(s)) => s,
                Ok(_) => return Err(Error::bad_request("payload_url is not a string")),
                Err(_) => return Err(Error::bad_request("payload_url is not valid JSON")),
            };
            bots::check_payload_url(&url)?;
            url
        }
    };
    let service_name = p.str("service_name");
    let config_data = config_data(p)?;
    let interface_type = p.int("interface_type")?.unwrap_or(bots::INTERFACE_GENERIC);
    let new = NewBot {
        full_name,
        short_name,
        bot_type,
        payload_url,
        interface_type,
        service_name,
        config_data,
    };
    let (bot, api_key) = bots::create(state, caller, new).await?;
    let host = state.config.realm_host();
    Ok(Success::new()
        .field("user_id", bot.id.0)
        .field("api_key", api_key)
        .field("avatar_url", wire::user_avatar_url(&bot, host))
        .field("default_sending_stream", Value::Null)
        .field("default_events_register_stream", Value::Null)
        .field("default_all_public_streams", false))
}

/// # `GET /api/v1/bots`
pub async fn list(state: &AppState, caller: &User) -> Result<Success> {
    let host = state.config.realm_host();
    let bots = bots::owned(state, caller).await?;
    let items: Vec<Value> = bots
        .iter()
        .map(|b| {
            let mut m = Map::new();
            m.insert("username".into(), Value::from(wire::api_email(b, host)));
            m.insert("full_name".into(), Value::from(b.full_name.clone()));
            m.insert("api_key".into(), Value::from(b.api_key.0.clone()));
            m.insert(
                "avatar_url".into(),
                Value::from(wire::user_avatar_url(b, host)),
            );
            m.insert("default_sending_stream".into(), Value::Null);
            m.insert("default_events_register_stream".into(), Value::Null);
            m.insert("default_all_public_streams".into(), Value::Bool(false));
            Value::Object(m)
        })
        .collect();
    Ok(Success::new().field("bots", items))
}

/// # `DELETE /api/v1/bots/{bot_id}`
pub async fn deactivate(state: &AppState, caller: &User, id: i64) -> Result<Success> {
    bots::deactivate(state, caller, crate::ids::UserId(id)).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/bots/{bot_id}/api_key/regenerate`
pub async fn regenerate_api_key(state: &AppState, caller: &User, id: i64) -> Result<Success> {
    let key = bots::regenerate_api_key(state, caller, crate::ids::UserId(id)).await?;
    Ok(Success::new().field("api_key", key))
}
