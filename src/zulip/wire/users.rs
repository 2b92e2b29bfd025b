//! The user record (`GET /users`, `GET /users/{id}`, `GET /users/me`, `realm_user` events) as
//! a typed `Serialize` struct, serialized without an intermediate `Value`.
//!
//! Must not touch the database; who sees which email and avatar is decided by [`Viewer`].

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::{ProfileValue, Role, User};

use super::{Viewer, api_email, user_avatar_url};

/// A user as a viewer sees them.
#[derive(Serialize)]
pub struct UserRecord<'a> {
    user_id: i64,
    email: String,
    /// `null` unless the viewer may see the real address.
    delivery_email: Option<&'a str>,
    full_name: &'a str,
    date_joined: String,
    is_active: bool,
    is_owner: bool,
    is_admin: bool,
    is_guest: bool,
    is_bot: bool,
    role: i64,
    timezone: &'a str,
    /// `null` when the client computes the gravatar.
    avatar_url: Option<String>,
    avatar_version: i64,
    /// Bots only (`Some(None)` is `null`); absent from the own record.
    #[serde(skip_serializing_if = "Option::is_none")]
    bot_type: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bot_owner_id: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_system_bot: Option<bool>,
    /// People only, when asked for: field id → value.
    #[serde(skip_serializing_if = "Option::is_none")]
    profile_data: Option<BTreeMap<String, ProfileEntry<'a>>>,
    /// The own record only.
    #[serde(skip_serializing_if = "Option::is_none")]
    max_message_id: Option<i64>,
}

#[derive(Serialize)]
struct ProfileEntry<'a> {
    value: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rendered_value: Option<&'a str>,
}

/// A user record (`GET /users`, `GET /users/{id}`), with `profile_data` when `profile` is given.
pub fn user_record<'a>(
    viewer: &Viewer<'_>,
    u: &'a User,
    profile: Option<&'a [ProfileValue]>,
) -> UserRecord<'a> {
    let mut r = UserRecord {
        user_id: u.id.0,
        email: api_email(u, viewer.host),
        delivery_email: viewer.sees_real_email(u).then_some(u.email.as_str()),
        full_name: &u.full_name,
        date_joined: crate::time::iso_minutes(u.date_joined),
        is_active: u.is_active,
        is_owner: u.role == Role::Owner,
        is_admin: u.role.is_admin(),
        is_guest: u.role == Role::Guest,
        is_bot: u.is_bot,
        role: u.role.code(),
        timezone: &u.timezone,
        avatar_url: (!viewer.leaves_avatar_to_client(u)).then(|| user_avatar_url(u, viewer.host)),
        avatar_version: u.avatar_version,
        bot_type: None,
        bot_owner_id: None,
        is_system_bot: None,
        profile_data: None,
        max_message_id: None,
    };
    if u.is_bot {
        r.bot_type = Some(u.bot_type);
        r.bot_owner_id = Some(u.bot_owner_id.map(|id| id.0));
        if u.is_system_bot {
            r.is_system_bot = Some(true);
        }
    } else if let Some(values) = profile {
        r.profile_data = Some(profile_data(u, values));
    }
    r
}

/// [`user_record`] as a JSON object, for bodies that embed it.
pub fn user(viewer: &Viewer<'_>, u: &User, profile: Option<&[ProfileValue]>) -> Map<String, Value> {
    match serde_json::to_value(user_record(viewer, u, profile)).expect("users serialize") {
        Value::Object(m) => m,
        _ => unreachable!("a user record is an object"),
    }
}

/// `{"<field id>": {"value": ..., "rendered_value"?: ...}}` for one user's values.
fn profile_data<'a>(u: &User, values: &'a [ProfileValue]) -> BTreeMap<String, ProfileEntry<'a>> {
    values
        .iter()
        .filter(|v| v.user_id == u.id)
        .map(|v| {
            let entry = ProfileEntry {
                value: &v.value,
                rendered_value: v.rendered_value.as_deref(),
            };
            (v.field_id.0.to_string(), entry)
        })
        .collect()
}

/// The requesting user's own record (`GET /users/me`): always the real email, full avatar URL,
/// and (for people, not bots) `profile_data`, even when empty.
pub fn own_user<'a>(
    u: &'a User,
    host: &str,
    max_message_id: i64,
    profile: Option<&'a [ProfileValue]>,
) -> UserRecord<'a> {
    let viewer = Viewer {
        user: u,
        host,
        client_gravatar: false,
    };
    let mut r = user_record(&viewer, u, profile);
    r.bot_type = None;
    r.bot_owner_id = None;
    r.max_message_id = Some(max_message_id);
    r
}
