//! User endpoints of the chat API. Each handler parses its parameters, calls `domain::users`
//! (or `domain::profile_fields`) and renders the result with `wire`.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;

use serde_json::Value;

use crate::domain::account_mail::email_change;
use crate::domain::emails;
use crate::domain::profile_fields::{self, NewField};
use crate::domain::settings::{self, SettingsUpdate};
use crate::domain::user_status::{self, StatusUpdate};
use crate::domain::users::{self, NewUser, ProfileEdit, UserUpdate};
use crate::error::{Error, Result};
use crate::ids::UserId;
use crate::model::{ProfileValue, Role, User};
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::{Params, as_int};
use super::wire::{self, Viewer};

/// A user as named in a path: by id, or by (real or API) email.
#[derive(Clone, Debug, PartialEq)]
pub enum UserRef {
    Id(i64),
    Email(String),
}

fn no_such_user() -> Error {
    Error::bad_request("No such user")
}

fn viewer<'a>(state: &'a ChatState, caller: &'a User, client_gravatar: bool) -> Viewer<'a> {
    Viewer {
        user: caller,
        host: state.config.realm_host(),
        client_gravatar,
    }
}

/// Finds the user a path names, as this caller may address them.
pub async fn resolve(state: &ChatState, caller: &User, r: &UserRef) -> Result<User> {
    match r {
        UserRef::Id(id) => users::get(state, UserId(*id))
            .await?
            .ok_or_else(no_such_user),
        UserRef::Email(email) => {
            let (caller, host, email) = (
                caller.clone(),
                state.config.realm_host().to_string(),
                email.clone(),
            );
            state
                .db
                .read(move |c| emails::resolve(c, &caller, &host, &email))
                .await?
                .filter(|u| !u.is_system_bot)
                .ok_or_else(no_such_user)
        }
    }
}

/// # `GET /api/v1/users/me`
///
/// The caller's own record plus `max_message_id`, the newest message they received (-1 if none).
pub async fn get_own_user(state: &ChatState, caller: &User) -> Result<Success> {
    let id = caller.id;
    // Both parts are cached per user (until messages, or users and profile fields, change),
    // so the usual call reads nothing.
    let cached = state.max_received.get(id);
    let generation = state.max_received.generation();
    let wants_profile = !caller.is_bot;
    let cached_profile = if wants_profile {
        state.profile_data.get(id)
    } else {
        None
    };
    let profile_generation = state.profile_data.generation();
    let (max_id, profile) = match (cached, &cached_profile) {
        (Some(max_id), Some(p)) => (max_id, Some(Arc::clone(p))),
        (Some(max_id), None) if !wants_profile => (max_id, None),
        _ => {
            let need_profile = wants_profile && cached_profile.is_none();
            let (max_id, fresh) = state
                .db
                .read(move |c| {
                    let max_id = match cached {
                        Some(v) => v,
                        None => crate::db::messages::max_received_id(c, id)?,
                    };
                    let profile = if need_profile {
                        Some(crate::db::profile_fields::values(c, Some(id))?)
                    } else {
                        None
                    };
                    Ok((max_id, profile))
                })
                .await?;
            if cached.is_none() {
                state.max_received.put(id, generation, max_id);
            }
            let profile = match fresh {
                Some(p) => {
                    let p = Arc::new(p);
                    state
                        .profile_data
                        .put(id, profile_generation, Arc::clone(&p));
                    Some(p)
                }
                None => cached_profile,
            };
            (max_id, profile)
        }
    };
    // The serialized answer is kept while the record, the newest message and the profile
    // values it was made from are the same (the profile by identity: the cache replaces it).
    if let Some(body) = state.own_user_bodies.get(caller, max_id, profile.as_ref()) {
        return Ok(Success::prebuilt(body));
    }
    let body = wire::own_user(
        caller,
        state.config.realm_host(),
        max_id,
        profile.as_deref().map(Vec::as_slice),
    );
    let bytes = crate::zulip::envelope::success_bytes(&body);
    state
        .own_user_bodies
        .put(caller, max_id, profile, bytes.clone());
    Ok(Success::prebuilt(bytes))
}

/// `GET /users/me` answers already serialized, per user, with what they were made from.
#[derive(Default)]
pub struct OwnUserBodies {
    by_user: std::sync::Mutex<HashMap<UserId, OwnUserBody>>,
}

struct OwnUserBody {
    user: User,
    max_id: i64,
    profile: Option<Arc<Vec<ProfileValue>>>,
    body: Bytes,
}

/// Most answers kept; past it the table starts over (a realm this size rarely all asks).
const MAX_OWN_USER_BODIES: usize = 10_000;

impl OwnUserBodies {
    fn get(
        &self,
        user: &User,
        max_id: i64,
        profile: Option<&Arc<Vec<ProfileValue>>>,
    ) -> Option<Bytes> {
        let map = self.by_user.lock().ok()?;
        let e = map.get(&user.id)?;
        let same_profile = match (&e.profile, profile) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        (same_profile && e.max_id == max_id && e.user == *user).then(|| e.body.clone())
    }

    fn put(&self, user: &User, max_id: i64, profile: Option<Arc<Vec<ProfileValue>>>, body: Bytes) {
        if let Ok(mut map) = self.by_user.lock() {
            if map.len() >= MAX_OWN_USER_BODIES && !map.contains_key(&user.id) {
                map.clear();
            }
            map.insert(
                user.id,
                OwnUserBody {
                    user: user.clone(),
                    max_id,
                    profile,
                    body,
                },
            );
        }
    }
}

/// # `GET /api/v1/users`
///
/// Every user of the realm, bots and deactivated users included.
pub async fn get_users(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let client_gravatar = p.bool("client_gravatar")?.unwrap_or(true);
    let with_profiles = p.bool("include_custom_profile_fields")?.unwrap_or(false);
    let (all, values) = users::list(state, with_profiles).await?;
    let v = viewer(state, caller, client_gravatar);
    let members: Vec<wire::UserRecord<'_>> = all
        .iter()
        .map(|u| wire::user_record(&v, u, with_profiles.then_some(&values[..])))
        .collect();
    Ok(Success::new().field("members", members))
}

/// # `GET /api/v1/users/{user_id}` and `GET /api/v1/users/{email}`
pub async fn get_user(
    state: &ChatState,
    caller: &User,
    r: &UserRef,
    p: &mut Params,
) -> Result<Success> {
    let client_gravatar = p.bool("client_gravatar")?.unwrap_or(true);
    let with_profiles = p.bool("include_custom_profile_fields")?.unwrap_or(false);
    let target = resolve(state, caller, r).await?;
    let values = if with_profiles && !target.is_bot {
        Some(users::profile_values(state, target.id).await?)
    } else {
        None
    };
    let v = viewer(state, caller, client_gravatar);
    Ok(Success::new().field("user", wire::user_record(&v, &target, values.as_deref())))
}

/// # `POST /api/v1/users`
///
/// Administrators holding `can_create_users` create a user with a password.
pub async fn create_user(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    if !caller.role.is_admin() {
        return Err(Error::not_admin());
    }
    let email = p.required_str("email")?;
    let password = p.required_str("password")?;
    let full_name = p.required_str("full_name")?;
    if !caller.can_create_users {
        return Err(Error::bad_request("User not authorized to create users"));
    }
    let (id, _key) = users::create(
        state,
        NewUser {
            email,
            full_name,
            role: Role::Member,
            password: Some(password),
            can_create_users: false,
            can_change_user_emails: false,
        },
    )
    .await?;
    Ok(Success::new().field("user_id", id.0))
}

/// # `PATCH /api/v1/users/{user_id}` and `PATCH /api/v1/users/{email}`
///
/// Administrators change another user's name, role, custom profile data or (owners with
/// `can_change_user_emails`) email. All changes apply together or not at all.
pub async fn update_user(
    state: &ChatState,
    caller: &User,
    r: &UserRef,
    p: &mut Params,
) -> Result<Success> {
    if !caller.role.is_admin() {
        return Err(Error::not_admin());
    }
    let full_name = p.str("full_name");
    let role = p.int("role")?;
    let new_email = p.str("new_email");
    let profile_data = match p.json("profile_data")? {
        None => None,
        Some(v) => Some(parse_profile_data("profile_data", v)?),
    };
    let target = resolve(state, caller, r).await?;
    users::update(
        state,
        caller,
        target.id,
        UserUpdate {
            full_name,
            role,
            new_email,
            profile_data,
        },
    )
    .await?;
    Ok(Success::new())
}

/// # `PATCH /api/v1/users/me/profile_data`
///
/// The caller's own custom profile field values: `data`, a list of `{id, value}` (an empty
/// value clears the field). Fields not editable by users need an administrator.
pub async fn update_own_profile_data(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let edits = parse_profile_data("data", p.required_json("data")?)?;
    users::update_own_profile(state, caller, edits).await?;
    Ok(Success::new())
}

/// # `DELETE /api/v1/users/me/profile_data`
///
/// Clears the caller's own values of the fields listed in `data` (a list of field ids).
pub async fn remove_own_profile_data(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let Value::Array(items) = p.required_json("data")? else {
        return Err(Error::bad_request("data is not a list"));
    };
    let edits = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let field_id = as_int(item)
                .ok_or_else(|| Error::bad_request(format!("data[{i}] is not an integer")))?;
            Ok(ProfileEdit {
                field_id,
                value: None,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    users::update_own_profile(state, caller, edits).await?;
    Ok(Success::new())
}

fn parse_profile_data(name: &str, v: Value) -> Result<Vec<ProfileEdit>> {
    let Value::Array(items) = v else {
        return Err(Error::bad_request(format!("{name} is not a list")));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let Value::Object(mut obj) = item else {
                return Err(Error::bad_request(format!("{name}[{i}] is not a dict")));
            };
            let field_id = obj.get("id").and_then(as_int).ok_or_else(|| {
                Error::bad_request(format!("{name}[{i}][\"id\"] is not an integer"))
            })?;
            if !obj.contains_key("value") {
                return Err(Error::bad_request(format!(
                    "{name}[{i}][\"value\"] key is missing from {name}[{i}]"
                )));
            }
            Ok(ProfileEdit {
                field_id,
                value: obj.remove("value"),
            })
        })
        .collect()
}

/// # `DELETE /api/v1/users/{user_id}`
///
/// Deactivates a user. Owners can only be deactivated by owners, and never the last one.
pub async fn deactivate_user(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    users::deactivate(state, caller, UserId(id)).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/users/{user_id}/reactivate`
pub async fn reactivate_user(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    users::reactivate(state, caller, UserId(id)).await?;
    Ok(Success::new())
}

/// # `GET /api/v1/users/{user_id}/status`
pub async fn get_user_status(state: &ChatState, id: i64) -> Result<Success> {
    let (user, status) = user_status::status(state, UserId(id))
        .await?
        .ok_or_else(no_such_user)?;
    Ok(Success::new().field("status", wire::status(&status, user.presence_enabled)))
}

/// # `POST /api/v1/users/me/status`
///
/// Sets the caller's status text, emoji and (deprecated) `away` flag.
pub async fn update_own_status(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let up = StatusUpdate {
        status_text: p.str("status_text"),
        away: p.bool("away")?,
        emoji_name: p.str("emoji_name"),
        emoji_code: p.str("emoji_code"),
        reaction_type: p.str("reaction_type"),
    };
    user_status::update(state, caller, up).await?;
    Ok(Success::new())
}

/// # `PATCH /api/v1/settings`
///
/// The caller changes their own name, password or personal settings, or asks to change their
/// address (checked first; a confirmation mail goes to the new address after the other
/// changes); parameters that are not settings are reported in `ignored_parameters_unsupported`.
pub async fn update_settings(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let email = p.str("email");
    if let Some(e) = &email {
        email_change::check_request(state, caller, e).await?;
    }
    let up = SettingsUpdate {
        full_name: p.str("full_name"),
        old_password: p.str("old_password"),
        new_password: p.str("new_password"),
        settings: settings::names()
            .filter_map(|name| p.str(name).map(|v| (name, v)))
            .collect(),
    };
    settings::update(state, caller, up).await?;
    if let Some(e) = &email {
        email_change::start(state, caller, e, crate::time::now_secs()).await?;
    }
    Ok(Success::new())
}

/// # `GET /api/v1/realm/profile_fields`
pub async fn get_profile_fields(state: &ChatState) -> Result<Success> {
    let fields = profile_fields::list(state).await?;
    let out: Vec<Value> = fields.iter().map(wire::profile_field).collect();
    Ok(Success::new().field("custom_fields", out))
}

/// # `POST /api/v1/realm/profile_fields`
///
/// Administrators define a custom profile field.
pub async fn create_profile_field(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    if !caller.role.is_admin() {
        return Err(Error::not_admin());
    }
    let field_type = p.required_int("field_type")?;
    let new = NewField {
        name: p.str("name").unwrap_or_default(),
        hint: p.str("hint").unwrap_or_default(),
        field_type,
        field_data: p.json("field_data")?,
        display_in_profile_summary: p.bool("display_in_profile_summary")?.unwrap_or(false),
        required: p.bool("required")?.unwrap_or(false),
        editable_by_user: p.bool("editable_by_user")?.unwrap_or(true),
    };
    let id = profile_fields::create(state, caller, new).await?;
    Ok(Success::new().field("id", id.0))
}
