//! Reading users: by id, all of them (with profile values when asked), by login email through
//! the credentials cache (misses cached too, under `email_keys::login_key`), and by API key.
//! Reads only.

use std::sync::Arc;

use crate::db::{profile_fields as fields_db, users as users_db};
use crate::domain::core::Core;
use crate::domain::credentials::Cached;
use crate::domain::email_keys;
use crate::error::Result;
use crate::ids::UserId;
use crate::model::{ProfileValue, User};

/// Looks up a user by email for authentication, through the cache (the system bots, not
/// being realm members, never log in).
/// Unknown emails are cached too, so probing emails costs the same whether they have accounts or not.
/// The cache entry, hit or miss, is under [`email_keys::login_key`], and the database is asked
/// for that same key, so whatever is cached is what the lookup found for that key and nothing
/// else (a miss for `\u{212A}im@x` is never filed under `kim@x`).
pub async fn by_login_email(state: &Core, email: &str) -> Result<Option<Arc<User>>> {
    let key = email_keys::login_key(email);
    match state.users.get(&key) {
        Some(Cached::User(u)) => return Ok(Some(u)),
        Some(Cached::NoSuchUser) => return Ok(None),
        None => {}
    }
    let generation = state.users.generation();
    let lookup = key.clone();
    let found = state
        .db
        .read(move |c| users_db::by_email(c, &lookup))
        .await?
        .map(Arc::new);
    state.users.put(key, generation, found.clone());
    Ok(found)
}

/// The user whose API key this is (incoming webhooks name their caller by key alone).
pub async fn by_api_key(state: &Core, key: &str) -> Result<Option<Arc<User>>> {
    let key = key.to_string();
    Ok(state
        .db
        .read(move |c| users_db::by_api_key(c, &key))
        .await?
        .map(Arc::new))
}

pub async fn get(state: &Core, id: UserId) -> Result<Option<User>> {
    state.db.read(move |c| users_db::get(c, id)).await
}

/// Every user with the profile values of each (values are empty unless asked for).
pub async fn list(state: &Core, with_profiles: bool) -> Result<(Vec<User>, Vec<ProfileValue>)> {
    state
        .db
        .read(move |c| {
            let users = users_db::all(c)?;
            let values = if with_profiles {
                fields_db::values(c, None)?
            } else {
                Vec::new()
            };
            Ok((users, values))
        })
        .await
}

pub async fn profile_values(state: &Core, id: UserId) -> Result<Vec<ProfileValue>> {
    state.db.read(move |c| fields_db::values(c, Some(id))).await
}
