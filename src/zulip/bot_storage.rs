//! `GET`, `PUT` and `DELETE /bot_storage`: a bot's key-value storage. Parsing (upstream's
//! parameter errors) here; the rules in `domain::bot_storage`.

use serde_json::{Map, Value};

use crate::domain::bot_storage;
use crate::error::{Error, Result};
use crate::model::User;
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::Params;

/// `keys`: a JSON list of strings, optional.
fn keys(p: &mut Params) -> Result<Option<Vec<String>>> {
    match p.json("keys")? {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s),
                _ => Err(Error::bad_request(format!("keys[{i}] is not a string"))),
            })
            .collect::<Result<Vec<String>>>()
            .map(Some),
        Some(_) => Err(Error::bad_request("keys is not a list")),
    }
}

/// # `GET /api/v1/bot_storage`
pub async fn get(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    bot_storage::check_caller(caller)?;
    let keys = keys(p)?;
    let entries = bot_storage::get(state, caller, keys).await?;
    let storage: Map<String, Value> = entries
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    Ok(Success::new().field("storage", storage))
}

/// # `PUT /api/v1/bot_storage`
pub async fn put(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    bot_storage::check_caller(caller)?;
    let storage = p
        .json("storage")?
        .ok_or_else(|| Error::missing("storage"))?;
    let Value::Object(map) = storage else {
        return Err(Error::bad_request("storage is not a dict"));
    };
    let entries = map
        .into_iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k, s)),
            _ => Err(Error::bad_request(format!(
                "storage[{}] is not a string",
                Value::String(k)
            ))),
        })
        .collect::<Result<Vec<(String, String)>>>()?;
    bot_storage::put(state, caller, entries).await?;
    Ok(Success::new())
}

/// # `DELETE /api/v1/bot_storage`
pub async fn remove(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    bot_storage::check_caller(caller)?;
    let keys = keys(p)?;
    bot_storage::remove(state, caller, keys).await?;
    Ok(Success::new())
}
