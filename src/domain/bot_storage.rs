//! Bot storage: the key-value pairs a bot keeps on the server (`GET/PUT/DELETE /bot_storage`),
//! which stateful bots of the `zulip_bots` package use. Only bots have storage; keys and values
//! are strings, and the characters of all of one bot's keys and values together are bounded by
//! `[limits] max_bot_storage_chars` (upstream's `USER_STATE_SIZE_LIMIT`). Upstream's messages.
//! No events (upstream sends none). No SQL, no wire shapes.

use crate::db::bot_storage as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::model::User;

fn must_be_bot(user: &User) -> Result<()> {
    if user.is_bot {
        Ok(())
    } else {
        Err(Error::bad_request("Must be a bot user"))
    }
}

fn no_such_key() -> Error {
    Error::bad_request("Key does not exist.")
}

/// Checks the caller may use bot storage at all (before its parameters are read).
pub fn check_caller(user: &User) -> Result<()> {
    must_be_bot(user)
}

/// `GET /bot_storage`: the entries with the given keys, or all of them when `keys` is absent
/// or empty. Any key the bot does not have fails the whole request.
pub async fn get(
    state: &Core,
    user: &User,
    keys: Option<Vec<String>>,
) -> Result<Vec<(String, String)>> {
    must_be_bot(user)?;
    let me = user.id;
    state
        .db
        .read(move |c| match keys {
            Some(keys) if !keys.is_empty() => keys
                .into_iter()
                .map(|k| {
                    let v = db::get(c, me, &k)?.ok_or_else(no_such_key)?;
                    Ok((k, v))
                })
                .collect(),
            _ => db::all(c, me),
        })
        .await
}

/// `PUT /bot_storage`: sets the entries (replacing values of existing keys), all or none. The
/// storage after the change must stay within the limit, else nothing changes.
pub async fn put(state: &Core, user: &User, entries: Vec<(String, String)>) -> Result<()> {
    must_be_bot(user)?;
    let me = user.id;
    let limit = state.config.limits.max_bot_storage_chars as i64;
    state
        .db
        .write(move |tx| {
            let mut difference = 0i64;
            for (k, v) in &entries {
                let new = (k.chars().count() + v.chars().count()) as i64;
                difference += new - db::entry_size(tx, me, k)?;
            }
            let after = db::size(tx, me)? + difference;
            if after > limit {
                return Err(Error::bad_request(format!(
                    "Request exceeds storage limit by {} characters. The limit is {limit} \
                     characters.",
                    after - limit
                )));
            }
            for (k, v) in &entries {
                db::put(tx, me, k, v)?;
            }
            Ok(())
        })
        .await
}

/// `DELETE /bot_storage`: removes the entries with the given keys, or all of them when `keys`
/// is absent or empty. Any key the bot does not have (or a key named twice) fails the whole
/// request and removes nothing.
pub async fn remove(state: &Core, user: &User, keys: Option<Vec<String>>) -> Result<()> {
    must_be_bot(user)?;
    let me = user.id;
    state
        .db
        .write(move |tx| match keys {
            Some(keys) if !keys.is_empty() => {
                for k in &keys {
                    if !db::remove(tx, me, k)? {
                        return Err(no_such_key());
                    }
                }
                Ok(())
            }
            _ => db::clear(tx, me),
        })
        .await
}
