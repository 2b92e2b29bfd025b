//! The chat API's JSON shapes for statuses, settings and profile fields, and who sees what
//! (`Viewer`); one submodule per family of shapes (`users`: the user record and status,
//! `channels`: the channel and subscription record, `presence`: presence entries).
//!
//! The only place that knows how domain records look on the wire. Visibility rules that change
//! a record's shape per viewer (real email, gravatar URLs) are applied here, following
//! `domain::emails`.

mod bots;
mod channels;
pub mod emoji;
pub mod events;
mod groups;
mod initial_state;
mod message_events;
mod messages;
mod presence;
mod realm_state;
mod records;
pub mod scheduled;
pub mod uploads;
mod user_events;
mod users;

pub use bots::*;
pub use channels::*;
pub use groups::*;
pub use initial_state::*;
pub use messages::*;
pub use presence::*;
pub use realm_state::*;
pub use records::*;
pub use users::*;

use md5::{Digest, Md5};
use serde_json::{Map, Value, json};

use crate::domain::emails;
use crate::model::{ProfileField, User};

/// Who is looking, and how they asked: decides emails and avatar URLs.
pub struct Viewer<'a> {
    pub user: &'a User,
    /// Realm host for placeholder emails.
    pub host: &'a str,
    /// The client computes gravatar URLs itself.
    pub client_gravatar: bool,
}

impl Viewer<'_> {
    /// Whether this viewer may see `target`'s real email address.
    pub fn sees_real_email(&self, target: &User) -> bool {
        emails::sees_real_email(self.user, target)
    }

    /// Whether the client is left to compute `user`'s avatar (a Gravatar user, and a viewer
    /// who may see the address). Clients hash the API email, as `user_avatar_url` does.
    pub fn leaves_avatar_to_client(&self, user: &User) -> bool {
        self.client_gravatar && self.sees_real_email(user) && user.avatar_source == "G"
    }
}

/// The address other users and the API know `user` by.
pub fn api_email(user: &User, host: &str) -> String {
    emails::api_email(user, host)
}

/// Zulip's gravatar URL for an email.
fn gravatar_url(email: &str, version: i64) -> String {
    let digest = Md5::digest(email.to_lowercase().as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("https://secure.gravatar.com/avatar/{hex}?d=identicon&version={version}")
}

/// `user`'s avatar URL, the same for every viewer: the Gravatar of their API email, so a
/// hidden real address never reaches a URL (an identicon stands in for the real picture).
pub fn user_avatar_url(user: &User, host: &str) -> String {
    gravatar_url(&api_email(user, host), user.avatar_version)
}

/// A personal setting's value as JSON.
pub fn setting_value(v: &crate::domain::settings::SettingValue) -> Value {
    use crate::domain::settings::SettingValue as V;
    match v {
        V::Bool(b) => Value::Bool(*b),
        V::Int(n) => Value::from(*n),
        V::Str(s) => Value::String(s.clone()),
    }
}

/// An organization setting's value as register and `realm` events carry it (time limits
/// without a limit are `null`).
pub fn realm_value(v: &crate::domain::realm_settings::RealmValue) -> Value {
    use crate::domain::realm_settings::RealmValue as V;
    match v {
        V::Bool(b) => Value::Bool(*b),
        V::Int(n) | V::Limit(Some(n)) => Value::from(*n),
        V::Limit(None) => Value::Null,
        V::Str(s) => Value::String(s.clone()),
        V::Group(g) => group_setting(g),
    }
}

/// A custom profile field definition.
pub fn profile_field(f: &ProfileField) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), json!(f.id.0));
    m.insert("type".into(), json!(f.field_type as i64));
    m.insert("order".into(), json!(f.order));
    m.insert("name".into(), json!(f.name));
    m.insert("hint".into(), json!(f.hint));
    m.insert("field_data".into(), json!(f.field_data));
    if f.display_in_profile_summary {
        m.insert("display_in_profile_summary".into(), json!(true));
    }
    m.insert("required".into(), json!(f.required));
    m.insert("editable_by_user".into(), json!(f.editable_by_user));
    Value::Object(m)
}

/// `server_settings`' `authentication_methods`: passwords and email, the development login
/// when enabled, no external methods.
pub fn authentication_methods(dev: bool) -> Value {
    json!({
        "password": true,
        "dev": dev,
        "email": true,
        "ldap": false,
        "remoteuser": false,
        "github": false,
        "azuread": false,
        "gitlab": false,
        "apple": false,
        "google": false,
        "saml": false,
        "openid connect": false,
    })
}

/// The emoji table as upstream serves it: `{"code_to_names": {code: [canonical, aliases...]}}`.
pub fn emoji_data<'a>(entries: impl Iterator<Item = (&'a str, &'a [&'a str])>) -> Value {
    let mut code_to_names = Map::new();
    for (code, names) in entries {
        code_to_names.insert(code.to_string(), json!(names));
    }
    json!({ "code_to_names": code_to_names })
}

/// An invitation as `GET /invites` lists it: an email invitation with its `email`, a reusable
/// link with its `link_url`.
pub fn invite(inv: &crate::model::Invitation, link_url: &str) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), json!(inv.id.0));
    m.insert("invited_by_user_id".into(), json!(inv.referrer.0));
    m.insert("invited".into(), json!(inv.created));
    m.insert("expiry_date".into(), json!(inv.expires));
    m.insert("invited_as".into(), json!(inv.invited_as.code()));
    m.insert("notify_referrer_on_join".into(), json!(inv.notify_referrer));
    m.insert("is_multiuse".into(), json!(inv.multiuse));
    match &inv.email {
        Some(email) if !inv.multiuse => {
            m.insert("email".into(), json!(email));
        }
        _ => {
            m.insert("link_url".into(), json!(link_url));
        }
    }
    Value::Object(m)
}
