//! Personal settings (`PATCH /settings` and the `user_settings` register state): the catalogue
//! of settings a user may change, their types, defaults and allowed values, and the rules for
//! changing them (name and password included). Wrong `old_password`s count against the login
//! failure limiter, as failed logins do.
//!
//! Owns the meaning of the `user_settings` table; SQL lives in `db::settings`. Must not know
//! HTTP or wire JSON: values are [`SettingValue`]s and changes leave as events.

use crate::db::settings as settings_db;
use crate::db::users as users_db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, PersonChange, SettingChanged, UserUpdated};
use crate::model::User;
use crate::password;

use super::email_keys;
use super::users::{check_full_name, check_login_limit, check_password_strength, rename};

// Re-exported so the chat modules that name it here (events, delivery, register) stay as they are.
pub use crate::model::SettingValue;

/// Which deprecated event a change is also announced with, for clients without the
/// `user_settings_object` capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legacy {
    Display,
    Notification,
    None,
}

/// What values a setting takes.
enum Kind {
    Bool(bool),
    /// One of the listed integers; the first is the default.
    IntIn(&'static [i64]),
    /// An integer in `min..=max`, with a default.
    IntRange(i64, i64, i64),
    /// One of the listed strings; the first is the default.
    StrIn(&'static [&'static str]),
    /// A code from [`LANGUAGES`]; the first is the default.
    Language,
}

struct Spec {
    name: &'static str,
    kind: Kind,
    legacy: Legacy,
}

const fn spec(name: &'static str, kind: Kind, legacy: Legacy) -> Spec {
    Spec { name, kind, legacy }
}

use Kind::{Bool, IntIn, IntRange, Language, StrIn};
use Legacy::{Display as D, None as N, Notification as Nt};

/// Interface languages offered, with their names (`language_name` in events).
pub const LANGUAGES: &[(&str, &str)] = &[
    ("en", "English"),
    ("de", "Deutsch"),
    ("es", "Español"),
    ("fr", "Français"),
    ("it", "Italiano"),
    ("ja", "日本語"),
    ("pl", "Polski"),
    ("pt", "Português"),
    ("ru", "Русский"),
    ("zh-hans", "简体中文"),
];

/// Every setting with a fixed set of values, in register order. All but `presence_enabled`
/// (a column of `users`) live in the `user_settings` table; `timezone`, free text kept in
/// `users`, is handled beside these.
const CATALOGUE: &[Spec] = &[
    spec("twenty_four_hour_time", Bool(false), D),
    spec("web_mark_read_on_scroll_policy", IntIn(&[1, 2, 3]), N),
    spec("web_channel_default_view", IntIn(&[1, 2, 3, 4]), N),
    spec("starred_message_counts", Bool(true), D),
    spec("receives_typing_notifications", Bool(true), N),
    spec("web_navigate_to_sent_message", Bool(true), N),
    spec("fluid_layout_width", Bool(false), D),
    spec("high_contrast_mode", Bool(false), D),
    spec("web_font_size_px", IntRange(16, 12, 24), N),
    spec("web_line_height_percent", IntRange(140, 122, 158), N),
    spec("color_scheme", IntIn(&[1, 2, 3]), D),
    spec("translate_emoticons", Bool(false), D),
    spec("display_emoji_reaction_users", Bool(true), N),
    spec("default_language", Language, D),
    spec(
        "web_home_view",
        StrIn(&["inbox", "recent_topics", "all_messages"]),
        D,
    ),
    spec("web_escape_navigates_to_home_view", Bool(true), N),
    spec("left_side_userlist", Bool(false), D),
    spec("emojiset", StrIn(&["google", "text"]), D),
    spec("demote_inactive_streams", IntIn(&[1, 2, 3]), D),
    spec("user_list_style", IntIn(&[2, 1, 3]), N),
    spec(
        "web_animate_image_previews",
        StrIn(&["on_hover", "always", "never"]),
        N,
    ),
    spec(
        "web_stream_unreads_count_display_policy",
        IntIn(&[2, 1, 3]),
        N,
    ),
    spec("enter_sends", Bool(false), D),
    spec("enable_drafts_synchronization", Bool(true), D),
    spec("enable_stream_desktop_notifications", Bool(false), Nt),
    spec("enable_stream_email_notifications", Bool(false), Nt),
    spec("enable_stream_push_notifications", Bool(false), Nt),
    spec("enable_stream_audible_notifications", Bool(false), Nt),
    spec("notification_sound", StrIn(&["zulip", "none"]), Nt),
    spec("enable_desktop_notifications", Bool(true), Nt),
    spec("enable_sounds", Bool(true), Nt),
    spec(
        "email_notifications_batching_period_seconds",
        IntRange(120, 1, 604_800),
        Nt,
    ),
    spec("enable_offline_email_notifications", Bool(true), Nt),
    spec("enable_offline_push_notifications", Bool(true), Nt),
    spec("enable_online_push_notifications", Bool(true), Nt),
    spec("enable_followed_topic_desktop_notifications", Bool(true), N),
    spec("enable_followed_topic_email_notifications", Bool(true), N),
    spec("enable_followed_topic_push_notifications", Bool(true), N),
    spec("enable_followed_topic_audible_notifications", Bool(true), N),
    spec(
        "enable_followed_topic_wildcard_mentions_notify",
        Bool(true),
        N,
    ),
    spec("enable_digest_emails", Bool(true), Nt),
    spec("enable_marketing_emails", Bool(true), Nt),
    spec("enable_login_emails", Bool(true), Nt),
    spec("message_content_in_email_notifications", Bool(true), Nt),
    spec("pm_content_in_desktop_notifications", Bool(true), Nt),
    spec("wildcard_mentions_notify", Bool(true), Nt),
    spec(
        "automatically_follow_topics_policy",
        IntIn(&[3, 1, 2, 4]),
        N,
    ),
    spec(
        "automatically_unmute_topics_in_muted_streams_policy",
        IntIn(&[2, 1, 3, 4]),
        N,
    ),
    spec("automatically_follow_topics_where_mentioned", Bool(true), N),
    spec("desktop_icon_count_display", IntIn(&[1, 2, 3]), Nt),
    spec(
        "realm_name_in_email_notifications_policy",
        IntIn(&[1, 2, 3]),
        Nt,
    ),
    spec("send_private_typing_notifications", Bool(true), N),
    spec("send_stream_typing_notifications", Bool(true), N),
    spec("send_read_receipts", Bool(true), N),
    spec("allow_private_data_export", Bool(false), N),
    spec("web_suggest_update_timezone", Bool(true), N),
    spec("hide_ai_features", Bool(false), N),
    // Kept in `users.presence_enabled` rather than in `user_settings`.
    spec(PRESENCE_ENABLED, Bool(true), Nt),
];

/// Settings stored as columns of `users` rather than in the catalogue.
const TIMEZONE: &str = "timezone";
const PRESENCE_ENABLED: &str = "presence_enabled";

impl Spec {
    fn default(&self) -> SettingValue {
        match self.kind {
            Bool(b) => SettingValue::Bool(b),
            IntIn(v) => SettingValue::Int(v[0]),
            IntRange(d, _, _) => SettingValue::Int(d),
            StrIn(v) => SettingValue::Str(v[0].to_string()),
            Language => SettingValue::Str(LANGUAGES[0].0.to_string()),
        }
    }

    /// Reads a request value (JSON-encoded booleans and integers, plain strings).
    fn parse(&self, raw: &str) -> Result<SettingValue> {
        let name = self.name;
        let invalid = || Error::bad_request(format!("Invalid {name}"));
        match self.kind {
            Bool(_) => match raw {
                "true" => Ok(SettingValue::Bool(true)),
                "false" => Ok(SettingValue::Bool(false)),
                _ => Err(Error::bad_request(format!("{name} is not a boolean"))),
            },
            IntIn(allowed) => {
                let n = parse_int(name, raw)?;
                allowed
                    .contains(&n)
                    .then_some(SettingValue::Int(n))
                    .ok_or_else(invalid)
            }
            IntRange(_, min, max) => {
                let n = parse_int(name, raw)?;
                (min..=max)
                    .contains(&n)
                    .then_some(SettingValue::Int(n))
                    .ok_or_else(invalid)
            }
            StrIn(allowed) => allowed
                .contains(&raw)
                .then(|| SettingValue::Str(raw.to_string()))
                .ok_or_else(invalid),
            Language => LANGUAGES
                .iter()
                .any(|(code, _)| *code == raw)
                .then(|| SettingValue::Str(raw.to_string()))
                .ok_or_else(invalid),
        }
    }

    /// Reads a stored value; a value no longer valid falls back to the default.
    fn decode(&self, stored: &str) -> SettingValue {
        self.parse(stored).unwrap_or_else(|_| self.default())
    }
}

fn parse_int(name: &str, raw: &str) -> Result<i64> {
    raw.trim()
        .parse()
        .map_err(|_| Error::bad_request(format!("{name} is not an integer")))
}

fn encode(v: &SettingValue) -> String {
    match v {
        SettingValue::Bool(b) => b.to_string(),
        SettingValue::Int(n) => n.to_string(),
        SettingValue::Str(s) => s.clone(),
    }
}

/// Names a request may carry to change a setting (besides name and password).
pub fn names() -> impl Iterator<Item = &'static str> {
    CATALOGUE.iter().map(|s| s.name).chain([TIMEZONE])
}

/// The deprecated event class of a setting.
pub fn legacy_class(name: &str) -> Legacy {
    match name {
        TIMEZONE => Legacy::Display,
        _ => CATALOGUE
            .iter()
            .find(|s| s.name == name)
            .map_or(Legacy::None, |s| s.legacy),
    }
}

/// The display name of an interface language code.
pub fn language_name(code: &str) -> &'static str {
    LANGUAGES
        .iter()
        .find(|(c, _)| *c == code)
        .map_or("English", |(_, n)| n)
}

/// Every setting of `user` with its current value, in catalogue order, then `timezone`.
pub fn all_of(c: &rusqlite::Connection, user: &User) -> Result<Vec<(&'static str, SettingValue)>> {
    let stored = settings_db::of_user(c, user.id)?;
    let mut out: Vec<(&'static str, SettingValue)> = CATALOGUE
        .iter()
        .map(|s| {
            let v = if s.name == PRESENCE_ENABLED {
                SettingValue::Bool(user.presence_enabled)
            } else {
                stored
                    .iter()
                    .find(|(n, _)| n == s.name)
                    .map_or_else(|| s.default(), |(_, v)| s.decode(v))
            };
            (s.name, v)
        })
        .collect();
    out.push((TIMEZONE, SettingValue::Str(user.timezone.clone())));

    Ok(out)
}

/// One setting of `user` (stored or default), inside a read or write.
pub fn value_in(c: &rusqlite::Connection, user: &User, name: &str) -> Result<SettingValue> {
    all_of(c, user)?
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .ok_or_else(|| Error::internal(format!("{name} is not a setting")))
}

/// Every catalogue setting with the value a new user starts with (the organization's defaults
/// for new users), in catalogue order.
pub fn defaults() -> Vec<(&'static str, SettingValue)> {
    CATALOGUE.iter().map(|s| (s.name, s.default())).collect()
}

/// One boolean setting kept in the `user_settings` table (for rules such as typing
/// notifications).
pub async fn flag(state: &Core, user: crate::ids::UserId, name: &'static str) -> Result<bool> {
    let spec = CATALOGUE
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| Error::internal(format!("{name} is not a setting")))?;
    let stored = state
        .db
        .read(move |c| settings_db::get(c, user, name))
        .await?;
    let value = stored.map_or_else(|| spec.default(), |v| spec.decode(&v));
    Ok(value == SettingValue::Bool(true))
}

/// The boolean settings `names` of one user, read inside the caller's transaction: each
/// stored value, else the catalogue's default (false for a name that is not a boolean setting).
pub fn flags_in(
    c: &rusqlite::Connection,
    user: crate::ids::UserId,
    names: &[&'static str],
) -> Result<Vec<bool>> {
    let stored = settings_db::of_user(c, user)?;
    Ok(names
        .iter()
        .map(|name| {
            let Some(spec) = CATALOGUE.iter().find(|s| s.name == *name) else {
                return false;
            };
            let v = stored
                .iter()
                .find(|(n, _)| n == name)
                .map_or_else(|| spec.default(), |(_, v)| spec.decode(v));
            v == SettingValue::Bool(true)
        })
        .collect())
}

/// How a stored boolean setting reads when on (for SQL that filters on stored values).
pub fn stored_true() -> String {
    encode(&SettingValue::Bool(true))
}

/// What `PATCH /settings` asks to change; `settings` holds raw `(name, value)` pairs for
/// names from [`names`].
#[derive(Default)]
pub struct SettingsUpdate {
    pub full_name: Option<String>,
    pub old_password: Option<String>,
    pub new_password: Option<String>,
    pub settings: Vec<(&'static str, String)>,
}

/// Applies a user's changes to their own account, all or nothing. Only values that differ
/// from the current ones are written and announced.
pub async fn update(state: &Core, user: &User, up: SettingsUpdate) -> Result<()> {
    let full_name = up.full_name.as_deref().map(check_full_name).transpose()?;
    let mut parsed: Vec<(&'static str, SettingValue)> = Vec::new();
    for (name, raw) in &up.settings {
        let value = match *name {
            TIMEZONE => SettingValue::Str(check_timezone(raw)?),

            _ => CATALOGUE
                .iter()
                .find(|s| s.name == *name)
                .ok_or_else(|| Error::internal(format!("{name} is not a setting")))?
                .parse(raw)?,
        };
        parsed.push((name, value));
    }
    let new_hash = match (up.old_password, up.new_password) {
        (None, None) => None,
        (Some(old), Some(new)) => Some(change_password(state, user, old, new).await?),
        _ => return Err(Error::bad_request("Please fill out all fields.")),
    };
    let id = user.id;
    state
        .db
        .write(move |tx| {
            let current =
                users_db::get(tx, id)?.ok_or_else(|| Error::bad_request("No such user"))?;
            if let Some(hash) = new_hash {
                users_db::set_password_hash(tx, id, &hash)?;
                super::sessions::end_all_for(tx, id)?;
            }
            if let Some(name) = full_name {
                rename(tx, &current, name)?;
            }
            let before = all_of(tx, &current)?;
            for (name, value) in parsed {
                if before.iter().any(|(n, v)| *n == name && *v == value) {
                    continue;
                }
                match (name, &value) {
                    (TIMEZONE, SettingValue::Str(tz)) => {
                        users_db::set_timezone(tx, id, tz)?;
                        tx.emit(Event::UserUpdated(UserUpdated {
                            user_id: id,
                            change: PersonChange::Timezone(tz.clone()),
                        }));
                    }
                    (PRESENCE_ENABLED, SettingValue::Bool(on)) => {
                        users_db::set_presence_enabled(tx, id, *on)?;
                    }
                    ("enable_drafts_synchronization", SettingValue::Bool(false)) => {
                        settings_db::set(tx, id, name, &encode(&value))?;
                        super::records::forget_drafts(tx, id)?;
                    }
                    _ => settings_db::set(tx, id, name, &encode(&value))?,
                }
                tx.emit(Event::SettingChanged(SettingChanged {
                    user_id: id,
                    name,
                    value,
                }));
            }
            Ok(())
        })
        .await
}

/// Checks the old password and hashes the new one.
async fn change_password(state: &Core, user: &User, old: String, new: String) -> Result<String> {
    // Guessing the old password here is guessing a login password: the same failure limit.
    let limiter_key = email_keys::login_key(&user.email);
    check_login_limit(state, &limiter_key)?;
    let id = user.id;
    let stored = state
        .db
        .read(move |c| users_db::password_hash(c, id))
        .await?;
    let ok = state
        .db
        .cpu(move || stored.is_some_and(|h| password::verify(&old, &h)))
        .await?;
    if !ok {
        state.logins.record_failure(&limiter_key);
        return Err(Error::bad_request("Wrong password!"));
    }
    state.logins.clear(&limiter_key);
    check_password_strength(&new)?;
    state
        .db
        .cpu(move || password::hash(&new))
        .await?
        .map_err(Error::internal)
}

/// An IANA zone name (`Area/Location`, `UTC`) or empty for "not set".
fn check_timezone(raw: &str) -> Result<String> {
    let tz = raw.trim();
    let well_formed = tz.len() <= 64
        && tz
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'))
        && !tz.starts_with('/')
        && !tz.ends_with('/')
        && !tz.contains("//");
    if !well_formed || (!tz.is_empty() && !tz.contains('/') && !matches!(tz, "UTC" | "GMT")) {
        return Err(Error::bad_request("Not a recognized time zone"));
    }
    Ok(tz.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_names_are_unique_and_defaults_parse_back() {
        let mut seen = std::collections::HashSet::new();
        for s in CATALOGUE {
            assert!(seen.insert(s.name), "{} twice", s.name);
            assert_eq!(s.decode(&encode(&s.default())), s.default(), "{}", s.name);
        }
    }

    #[test]
    fn values_are_checked_against_their_kind() {
        let find = |n: &str| CATALOGUE.iter().find(|s| s.name == n).unwrap();
        assert_eq!(
            find("enter_sends").parse("maybe").unwrap_err().msg,
            "enter_sends is not a boolean"
        );
        assert_eq!(
            find("color_scheme").parse("9").unwrap_err().msg,
            "Invalid color_scheme"
        );
        assert_eq!(
            find("emojiset").parse("text").unwrap(),
            SettingValue::Str("text".into())
        );
        assert_eq!(
            find("web_font_size_px").parse("x").unwrap_err().msg,
            "web_font_size_px is not an integer"
        );
        assert_eq!(check_timezone("Europe/Berlin").unwrap(), "Europe/Berlin");
        assert_eq!(check_timezone("").unwrap(), "");
        assert!(check_timezone("Berlin").is_err());
        assert!(check_timezone("../etc/passwd").is_err());
    }
}
