//! The user record (`GET /users`, `GET /users/{id}`, `GET /users/me`, register's
//! `realm_users`, `realm_user` events) and the user status (`GET /users/{id}/status`,
//! register's `user_status`) as typed `Serialize` structs.
//!
//! Must not touch the database; who sees which email and avatar is decided by [`Viewer`].

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::ids::UserId;
use crate::model::{ProfileValue, Role, User, UserStatus};

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

/// A user record as JSON, for bodies built as `Value`s.
impl From<UserRecord<'_>> for Value {
    fn from(r: UserRecord<'_>) -> Value {
        serde_json::to_value(r).expect("users serialize")
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

/// A user's status: only the parts that are set (`away` when presence sharing is off, the
/// text, the emoji with its code and type). Fields in alphabetical order, as a
/// `serde_json::Map` keeps them.
#[derive(Serialize)]
pub struct StatusRecord<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    away: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    emoji_code: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    emoji_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reaction_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_text: Option<&'a str>,
}

impl StatusRecord<'_> {
    /// Whether nothing is set (register's `user_status` leaves such users out).
    pub fn is_empty(&self) -> bool {
        self.away.is_none() && self.status_text.is_none() && self.emoji_name.is_none()
    }
}

impl From<StatusRecord<'_>> for Value {
    fn from(r: StatusRecord<'_>) -> Value {
        serde_json::to_value(r).expect("statuses serialize")
    }
}

/// `s` as its owner shows it.
pub fn status(s: &UserStatus, presence_enabled: bool) -> StatusRecord<'_> {
    let emoji = !s.emoji_name.is_empty();
    StatusRecord {
        away: (!presence_enabled).then_some(true),
        emoji_code: emoji.then_some(s.emoji_code.as_str()),
        emoji_name: emoji.then_some(s.emoji_name.as_str()),
        reaction_type: emoji.then_some(s.reaction_type.as_str()),
        status_text: (!s.status_text.is_empty()).then_some(s.status_text.as_str()),
    }
}

/// Register's `user_status`: `{"<user id>": status}` for the users whose status has a part
/// set.
pub fn user_statuses<'a>(statuses: impl IntoIterator<Item = (UserId, StatusRecord<'a>)>) -> Value {
    let map: BTreeMap<String, StatusRecord<'a>> = statuses
        .into_iter()
        .filter(|(_, s)| !s.is_empty())
        .map(|(u, s)| (u.0.to_string(), s))
        .collect();
    serde_json::to_value(map).expect("statuses serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_shows_only_its_set_parts_in_a_json_maps_order() {
        let full = UserStatus {
            status_text: "out".into(),
            emoji_name: "octopus".into(),
            emoji_code: "1f419".into(),
            reaction_type: "unicode_emoji".into(),
        };
        let r = status(&full, false);
        let direct = serde_json::to_string(&r).unwrap();
        assert_eq!(direct, Value::from(status(&full, false)).to_string());
        assert_eq!(
            direct,
            r#"{"away":true,"emoji_code":"1f419","emoji_name":"octopus","reaction_type":"unicode_emoji","status_text":"out"}"#
        );
        let none = UserStatus::default();
        assert!(status(&none, true).is_empty());
        assert!(!status(&none, false).is_empty());
        assert_eq!(Value::from(status(&none, true)).to_string(), "{}");
        let text_only = UserStatus {
            status_text: "busy".into(),
            ..UserStatus::default()
        };
        assert_eq!(
            user_statuses([
                (UserId(10), status(&text_only, true)),
                (UserId(2), status(&none, true)),
                (UserId(3), status(&none, false)),
            ])
            .to_string(),
            r#"{"10":{"status_text":"busy"},"3":{"away":true}}"#
        );
    }
}
