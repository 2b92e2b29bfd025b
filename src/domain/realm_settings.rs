//! The organization's settings (`PATCH /realm`, the `realm_*` keys of register): the catalogue
//! of settings, their types, defaults and allowed values, who may change them, and typed reads
//! for the rules that depend on them (channel creation, edit and move windows, announcements).
//!
//! Owns the meaning of the sparse `realm_settings` table (SQL in `db::realm_settings`): a
//! setting absent from the table has its default. Values are [`RealmValue`]s; changes leave as
//! [`Event::RealmSettingChanged`]. Owns no wire shapes and no HTTP.

use rusqlite::Connection;
use serde_json::Value;

use crate::db::{channels as channels_db, groups, realm_settings as db, users as users_db};
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::Event;
use crate::ids::{ChannelId, GroupId, UserId};
use crate::model::{Channel, GroupSetting, Role, User, system_groups as sys};

use super::messages::edit::{
    CHANNEL_MOVE_LIMIT_SECS, CONTENT_EDIT_LIMIT_SECS, TOPIC_MOVE_LIMIT_SECS,
};

/// Where Notification Bot announces new channels (`announce=true`).
pub const NEW_STREAM_ANNOUNCEMENTS: &str = "new_stream_announcements_stream_id";
/// Where Notification Bot announces new users.
pub const SIGNUP_ANNOUNCEMENTS: &str = "signup_announcements_stream_id";
/// Where message reports go (`POST /messages/{id}/report`).
pub const MODERATION_REQUEST_CHANNEL: &str = "moderation_request_channel_id";
/// Where announcements about the server software would go.
pub const ZULIP_UPDATE_ANNOUNCEMENTS: &str = "zulip_update_announcements_stream_id";

/// The organization's name; its default is `[chat] realm_name` from the configuration.
pub const NAME: &str = "name";
pub const DESCRIPTION: &str = "description";
pub const DEFAULT_LANGUAGE: &str = "default_language";
/// Account age in days after which a member counts as a full member.
pub const WAITING_PERIOD_THRESHOLD: &str = "waiting_period_threshold";
/// Whether anyone may edit message content at all.
pub const ALLOW_MESSAGE_EDITING: &str = "allow_message_editing";
/// Window for editing one's own message content (`None`: no limit).
pub const MESSAGE_CONTENT_EDIT_LIMIT: &str = "message_content_edit_limit_seconds";
/// Window in which members may move topics (`None`: no limit).
pub const MOVE_WITHIN_CHANNEL_LIMIT: &str = "move_messages_within_stream_limit_seconds";
/// Window in which members may move messages between channels (`None`: no limit).
pub const MOVE_BETWEEN_CHANNELS_LIMIT: &str = "move_messages_between_streams_limit_seconds";

/// Who may create public channels.
pub const CAN_CREATE_PUBLIC_CHANNEL: &str = "can_create_public_channel_group";
/// Who may create private channels.
pub const CAN_CREATE_PRIVATE_CHANNEL: &str = "can_create_private_channel_group";
/// Who may invite new users by email.
pub const CAN_INVITE_USERS: &str = "can_invite_users_group";
/// Who may create reusable invitation links.
pub const CREATE_MULTIUSE_INVITE: &str = "create_multiuse_invite_group";
/// Who may create user groups.
pub const CAN_CREATE_GROUPS: &str = "can_create_groups";
/// Who may add custom emoji (upstream's default: members).
pub const CAN_ADD_CUSTOM_EMOJI: &str = "can_add_custom_emoji_group";
/// Who may create bots of every type (upstream's default: members).
pub const CAN_CREATE_BOTS: &str = "can_create_bots_group";
/// Who may create incoming-webhook bots (upstream's default: members).
pub const CAN_CREATE_WRITE_ONLY_BOTS: &str = "can_create_write_only_bots_group";
/// Who may administer every user group.
pub const CAN_MANAGE_ALL_GROUPS: &str = "can_manage_all_groups";
/// Who may take part in direct messages (every participant, or the recipients, must hold it).
pub const DIRECT_MESSAGE_PERMISSION: &str = "direct_message_permission_group";
/// Who may start direct-message conversations.
pub const DIRECT_MESSAGE_INITIATOR: &str = "direct_message_initiator_group";

/// Longest organization name (upstream's limit).
pub const MAX_NAME_LENGTH: usize = 40;
/// Longest organization description (upstream's limit).
pub const MAX_DESCRIPTION_LENGTH: usize = 1000;
/// Largest day count or number of seconds a setting takes (the range of upstream's columns).
const MAX_COUNT: i64 = i32::MAX as i64;

pub use crate::model::RealmValue;

/// Who may hold a group-valued setting (upstream's permission configuration).
pub struct GroupRule {
    pub default: GroupId,
    pub allow_nobody: bool,
    pub allow_everyone: bool,
    /// Only a system group (no user group, no set of users) may hold it.
    pub require_system_group: bool,
    /// When not empty, the only system groups allowed.
    pub allowed_system_groups: &'static [GroupId],
}

/// What values a setting takes.
enum Kind {
    /// Free text of at most this many characters; the name's default comes from the config.
    Text(usize),
    /// A code from `domain::settings::LANGUAGES`.
    Language,
    Bool(bool),
    /// A count in `0..=MAX_COUNT`, with its default.
    Count(i64),
    /// Seconds in `1..=MAX_COUNT`, or no limit; with its default.
    TimeLimit(Option<i64>),
    /// A channel id, or `-1` for none (the default).
    Channel,
    Group(GroupRule),
}

struct Spec {
    name: &'static str,
    kind: Kind,
    /// Only owners may change it (upstream's rule).
    owner_only: bool,
    /// `PATCH /realm` changes it; the others keep their default here because Outpost has no
    /// way to honour another value (the feature is missing, or its rule is fixed).
    settable: bool,
}

const fn setting(name: &'static str, kind: Kind) -> Spec {
    Spec {
        name,
        kind,
        owner_only: false,
        settable: true,
    }
}

const fn owners(name: &'static str, kind: Kind) -> Spec {
    Spec {
        name,
        kind,
        owner_only: true,
        settable: true,
    }
}

const fn fixed(name: &'static str, kind: Kind) -> Spec {
    Spec {
        name,
        kind,
        owner_only: false,
        settable: false,
    }
}

/// A group rule allowing any group but `role:internet` (and `role:everyone` when not allowed).
const fn group(default: GroupId, allow_nobody: bool, allow_everyone: bool) -> Kind {
    Kind::Group(GroupRule {
        default,
        allow_nobody,
        allow_everyone,
        require_system_group: false,
        allowed_system_groups: &[],
    })
}

use Kind::{Bool, Channel as Chan, Count, Language, Text, TimeLimit};

/// Every organization setting, in register order.
const CATALOGUE: &[Spec] = &[
    setting(NAME, Text(MAX_NAME_LENGTH)),
    setting(DESCRIPTION, Text(MAX_DESCRIPTION_LENGTH)),
    setting(DEFAULT_LANGUAGE, Language),
    owners(WAITING_PERIOD_THRESHOLD, Count(0)),
    setting(ALLOW_MESSAGE_EDITING, Bool(true)),
    setting(
        MESSAGE_CONTENT_EDIT_LIMIT,
        TimeLimit(Some(CONTENT_EDIT_LIMIT_SECS)),
    ),
    setting(
        MOVE_WITHIN_CHANNEL_LIMIT,
        TimeLimit(Some(TOPIC_MOVE_LIMIT_SECS)),
    ),
    setting(
        MOVE_BETWEEN_CHANNELS_LIMIT,
        TimeLimit(Some(CHANNEL_MOVE_LIMIT_SECS)),
    ),
    setting(MODERATION_REQUEST_CHANNEL, Chan),
    setting(NEW_STREAM_ANNOUNCEMENTS, Chan),
    setting(SIGNUP_ANNOUNCEMENTS, Chan),
    setting(ZULIP_UPDATE_ANNOUNCEMENTS, Chan),
    // Group-valued permissions.
    fixed(
        "can_access_all_users_group",
        Kind::Group(GroupRule {
            default: sys::EVERYONE,
            allow_nobody: false,
            allow_everyone: true,
            require_system_group: true,
            allowed_system_groups: &[sys::EVERYONE, sys::MEMBERS],
        }),
    ),
    setting(CAN_ADD_CUSTOM_EMOJI, group(sys::MEMBERS, true, false)),
    fixed(
        "can_add_subscribers_group",
        group(sys::MEMBERS, true, false),
    ),
    setting(CAN_CREATE_BOTS, group(sys::MEMBERS, true, false)),
    owners(CAN_CREATE_GROUPS, group(sys::MEMBERS, true, false)),
    setting(CAN_CREATE_PRIVATE_CHANNEL, group(sys::MEMBERS, true, false)),
    setting(CAN_CREATE_PUBLIC_CHANNEL, group(sys::MEMBERS, true, false)),
    fixed(
        "can_create_web_public_channel_group",
        Kind::Group(GroupRule {
            default: sys::OWNERS,
            allow_nobody: true,
            allow_everyone: false,
            require_system_group: true,
            allowed_system_groups: &[
                sys::MODERATORS,
                sys::ADMINISTRATORS,
                sys::OWNERS,
                sys::NOBODY,
            ],
        }),
    ),
    setting(CAN_CREATE_WRITE_ONLY_BOTS, group(sys::MEMBERS, true, false)),
    fixed(
        "can_delete_any_message_group",
        group(sys::ADMINISTRATORS, true, false),
    ),
    fixed(
        "can_delete_own_message_group",
        group(sys::EVERYONE, true, true),
    ),
    owners(CAN_INVITE_USERS, group(sys::ADMINISTRATORS, true, false)),
    owners(CAN_MANAGE_ALL_GROUPS, group(sys::OWNERS, false, false)),
    fixed(
        "can_manage_billing_group",
        group(sys::ADMINISTRATORS, false, false),
    ),
    fixed(
        "can_mention_many_users_group",
        group(sys::ADMINISTRATORS, true, true),
    ),
    fixed(
        "can_move_messages_between_channels_group",
        group(sys::MEMBERS, true, false),
    ),
    fixed(
        "can_move_messages_between_topics_group",
        group(sys::EVERYONE, true, true),
    ),
    fixed("can_resolve_topics_group", group(sys::EVERYONE, true, true)),
    fixed(
        "can_summarize_topics_group",
        group(sys::EVERYONE, true, true),
    ),
    owners(
        CREATE_MULTIUSE_INVITE,
        group(sys::ADMINISTRATORS, true, false),
    ),
    setting(DIRECT_MESSAGE_INITIATOR, group(sys::EVERYONE, true, true)),
    setting(DIRECT_MESSAGE_PERMISSION, group(sys::EVERYONE, true, true)),
];

fn spec(name: &str) -> Result<&'static Spec> {
    CATALOGUE
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| Error::internal(format!("{name} is not an organization setting")))
}

/// The form in which a request carries a setting (for the API layer to read it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamForm {
    /// A plain string.
    Text,
    /// A JSON boolean.
    Bool,
    /// A JSON integer.
    Int,
    /// A JSON integer or the string `"unlimited"` (see [`parse_time_limit`]).
    TimeLimit,
    /// `{"new": <group-setting value>, "old": <group-setting value>}` (`old` optional).
    GroupChange,
}

/// Every setting `PATCH /realm` accepts, with the form it takes.
pub fn settable() -> impl Iterator<Item = (&'static str, ParamForm)> {
    CATALOGUE.iter().filter(|s| s.settable).map(|s| {
        let form = match s.kind {
            Text(_) | Language => ParamForm::Text,
            Bool(_) => ParamForm::Bool,
            Count(_) | Chan => ParamForm::Int,
            TimeLimit(_) => ParamForm::TimeLimit,
            Kind::Group(_) => ParamForm::GroupChange,
        };
        (s.name, form)
    })
}

/// Every group-valued setting with its rule, in register order (`realm_*` permission keys and
/// `server_supported_permission_settings`).
pub fn group_rules() -> impl Iterator<Item = (&'static str, &'static GroupRule)> {
    CATALOGUE.iter().filter_map(|s| match &s.kind {
        Kind::Group(rule) => Some((s.name, rule)),
        _ => None,
    })
}

/// A time limit as a request gives it: positive seconds or `"unlimited"` (no limit).
pub fn parse_time_limit(name: &str, v: &Value) -> Result<Option<i64>> {
    match v {
        Value::String(s) if s == "unlimited" => Ok(None),
        Value::Number(n) if n.as_i64().is_some_and(|s| s > 0) => Ok(n.as_i64()),
        _ => Err(Error::bad_request(format!("Bad value for '{name}': {v}"))),
    }
}

impl Spec {
    fn default(&self, configured_name: &str) -> RealmValue {
        match &self.kind {
            Text(_) if self.name == NAME => RealmValue::Str(configured_name.to_string()),
            Text(_) => RealmValue::Str(String::new()),
            Language => RealmValue::Str(super::settings::LANGUAGES[0].0.to_string()),
            Bool(b) => RealmValue::Bool(*b),
            Count(n) => RealmValue::Int(*n),
            TimeLimit(l) => RealmValue::Limit(*l),
            Chan => RealmValue::Int(-1),
            Kind::Group(rule) => RealmValue::Group(GroupSetting::Group(rule.default)),
        }
    }

    /// Reads a stored value; `None` when it no longer fits the setting (the default applies).
    fn decode(&self, stored: &str) -> Option<RealmValue> {
        match &self.kind {
            Text(_) | Language => Some(RealmValue::Str(stored.to_string())),
            Bool(_) => stored.parse().ok().map(RealmValue::Bool),
            Count(_) | Chan => stored.parse().ok().map(RealmValue::Int),
            TimeLimit(_) => match stored {
                "unlimited" => Some(RealmValue::Limit(None)),
                s => s.parse().ok().map(|n| RealmValue::Limit(Some(n))),
            },
            Kind::Group(_) => decode_group(stored).map(RealmValue::Group),
        }
    }

    /// Checks a requested value against the setting's type and range (not the database).
    fn check(&self, v: RealmValue) -> Result<RealmValue> {
        let name = self.name;
        let mismatch = || Error::internal(format!("wrong value type for {name}"));
        match (&self.kind, v) {
            (Text(max), RealmValue::Str(s)) => {
                if s.contains('\0') {
                    return Err(Error::bad_request(format!(
                        "{name} must not contain null bytes"
                    )));
                }
                if s.chars().count() > *max {
                    return Err(Error::bad_request(format!(
                        "{name} is too long (limit: {max} characters)"
                    )));
                }
                if name == NAME && s.trim().is_empty() {
                    return Err(Error::bad_request("Organization name can't be empty."));
                }
                Ok(RealmValue::Str(s))
            }
            (Language, RealmValue::Str(s)) => {
                if super::settings::LANGUAGES.iter().any(|(c, _)| *c == s) {
                    Ok(RealmValue::Str(s))
                } else {
                    Err(Error::bad_request(format!("Invalid language '{s}'")))
                }
            }
            (Bool(_), RealmValue::Bool(b)) => Ok(RealmValue::Bool(b)),
            (Count(_), RealmValue::Int(n)) => {
                if n < 0 {
                    Err(Error::bad_request(format!("{name} is too small")))
                } else if n > MAX_COUNT {
                    Err(Error::bad_request(format!("{name} is too large")))
                } else {
                    Ok(RealmValue::Int(n))
                }
            }
            (TimeLimit(_), RealmValue::Limit(l)) => match l {
                Some(n) if n <= 0 || n > MAX_COUNT => {
                    Err(Error::bad_request(format!("Bad value for '{name}': {n}")))
                }
                l => Ok(RealmValue::Limit(l)),
            },
            // `-1` unsets; no other negative number names anything.
            (Chan, RealmValue::Int(n)) if n < -1 => Err(Error::bad_request("Invalid channel ID")),
            (Chan, RealmValue::Int(n)) => Ok(RealmValue::Int(n)),
            (Kind::Group(_), RealmValue::Group(g)) => Ok(RealmValue::Group(g.normalized())),
            _ => Err(mismatch()),
        }
    }
}

/// Stored form of a group setting: `g:<id>` for one group, else `u:<ids>;g:<ids>`.
fn encode_group(g: &GroupSetting) -> String {
    let list = |ids: &mut dyn Iterator<Item = i64>| {
        ids.map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    };
    match g {
        GroupSetting::Group(id) => format!("g:{}", id.0),
        GroupSetting::Members { users, groups } => format!(
            "u:{};g:{}",
            list(&mut users.iter().map(|u| u.0)),
            list(&mut groups.iter().map(|g| g.0))
        ),
    }
}

fn decode_group(s: &str) -> Option<GroupSetting> {
    fn ids(s: &str) -> Option<Vec<i64>> {
        if s.is_empty() {
            return Some(Vec::new());
        }
        s.split(',').map(|x| x.parse().ok()).collect()
    }
    if let Some((u, g)) = s.split_once(';') {
        let users = ids(u.strip_prefix("u:")?)?;
        let groups = ids(g.strip_prefix("g:")?)?;
        return Some(GroupSetting::Members {
            users: users.into_iter().map(UserId).collect(),
            groups: groups.into_iter().map(GroupId).collect(),
        });
    }
    s.strip_prefix("g:")?
        .parse()
        .ok()
        .map(|id| GroupSetting::Group(GroupId(id)))
}

fn encode(v: &RealmValue) -> String {
    match v {
        RealmValue::Bool(b) => b.to_string(),
        RealmValue::Int(n) => n.to_string(),
        RealmValue::Limit(None) => "unlimited".to_string(),
        RealmValue::Limit(Some(n)) => n.to_string(),
        RealmValue::Str(s) => s.clone(),
        RealmValue::Group(g) => encode_group(g),
    }
}

fn value_of(c: &Connection, s: &Spec, configured_name: &str) -> Result<RealmValue> {
    Ok(db::get(c, s.name)?
        .and_then(|v| s.decode(&v))
        .unwrap_or_else(|| s.default(configured_name)))
}

/// Every setting with its current value, in register order; `configured_name` is the name from
/// the configuration, used until an administrator sets one.
pub fn all(c: &Connection, configured_name: &str) -> Result<Vec<(&'static str, RealmValue)>> {
    let stored = db::all(c)?;
    Ok(CATALOGUE
        .iter()
        .map(|s| {
            let v = stored
                .iter()
                .find(|(n, _)| n == s.name)
                .and_then(|(_, v)| s.decode(v))
                .unwrap_or_else(|| s.default(configured_name));
            (s.name, v)
        })
        .collect())
}

/// The organization's name and description.
pub fn name_and_description(c: &Connection, configured_name: &str) -> Result<(String, String)> {
    let text = |name: &str| -> Result<String> {
        match value_of(c, spec(name)?, configured_name)? {
            RealmValue::Str(s) => Ok(s),
            other => Err(Error::internal(format!("{name} holds {other:?}"))),
        }
    };
    Ok((text(NAME)?, text(DESCRIPTION)?))
}

/// The current value of a group-valued setting.
pub fn group_setting(c: &Connection, name: &str) -> Result<GroupSetting> {
    match value_of(c, spec(name)?, "")? {
        RealmValue::Group(g) => Ok(g),
        other => Err(Error::internal(format!("{name} holds {other:?}"))),
    }
}

/// Whether `user` holds a group-valued organization permission (e.g. [`CAN_INVITE_USERS`]).
pub fn holds(c: &Connection, user: &User, name: &str) -> Result<bool> {
    let g = group_setting(c, name)?;
    crate::domain::user_groups::holds(c, user, &g)
}

/// The current value of a time limit in seconds (`None`: no limit).
pub fn time_limit(c: &Connection, name: &str) -> Result<Option<i64>> {
    match value_of(c, spec(name)?, "")? {
        RealmValue::Limit(l) => Ok(l),
        other => Err(Error::internal(format!("{name} holds {other:?}"))),
    }
}

/// The current value of a boolean setting.
pub fn flag(c: &Connection, name: &str) -> Result<bool> {
    match value_of(c, spec(name)?, "")? {
        RealmValue::Bool(b) => Ok(b),
        other => Err(Error::internal(format!("{name} holds {other:?}"))),
    }
}

/// The current value of an integer setting (a count, or a channel id with `-1` for none).
pub fn int_setting(c: &Connection, name: &str) -> Result<i64> {
    match value_of(c, spec(name)?, "")? {
        RealmValue::Int(n) => Ok(n),
        other => Err(Error::internal(format!("{name} holds {other:?}"))),
    }
}

/// The channel a channel-valued setting names: `None` when unset (`-1`, the default) or when
/// that channel is gone or archived.
pub fn channel_setting(c: &Connection, name: &str) -> Result<Option<Channel>> {
    let id = int_setting(c, name)?;
    if id < 0 {
        return Ok(None);
    }
    Ok(channels_db::get(c, ChannelId(id))?.filter(|ch| !ch.is_archived))
}

/// One requested change of `PATCH /realm`: the setting and its new value; for group settings
/// also the value the client expects it to have now.
pub struct Change {
    pub name: &'static str,
    pub value: RealmValue,
    pub expected_old: Option<GroupSetting>,
}

/// Applies an administrator's changes, all or nothing, and returns those that changed a value
/// (each announced as its own event). Unchanged values are neither written nor announced.
pub async fn update(
    state: &Core,
    actor: &User,
    changes: Vec<Change>,
) -> Result<Vec<(&'static str, RealmValue)>> {
    if !actor.role.is_admin() {
        return Err(Error::not_admin());
    }
    let mut checked = Vec::with_capacity(changes.len());
    for ch in changes {
        let s = spec(ch.name)?;
        if !s.settable {
            return Err(Error::internal(format!("{} cannot be changed", s.name)));
        }
        if s.owner_only && actor.role != Role::Owner {
            return Err(Error::not_owner());
        }
        checked.push((s, s.check(ch.value)?, ch.expected_old));
    }
    let configured_name = state.config.chat.realm_name.clone();
    state
        .db
        .write(move |tx| {
            let mut changed = Vec::new();
            for (s, value, expected_old) in checked {
                let current = value_of(tx, s, &configured_name)?;
                if let (Some(old), RealmValue::Group(now)) = (&expected_old, &current)
                    && old.clone().normalized() != now.clone().normalized()
                {
                    return Err(Error::coded(
                        "EXPECTATION_MISMATCH",
                        "'old' value does not match the expected value.",
                        vec![],
                    ));
                }
                match (&s.kind, &value) {
                    (Chan, RealmValue::Int(id)) if *id >= 0 => {
                        channels_db::get(tx, ChannelId(*id))?
                            .filter(|c| !c.is_archived)
                            .ok_or_else(|| Error::bad_request("Invalid channel ID"))?;
                    }
                    (Kind::Group(rule), RealmValue::Group(g)) => check_group(tx, s.name, rule, g)?,
                    _ => {}
                }
                if value == current {
                    continue;
                }
                db::set(tx, s.name, &encode(&value))?;
                changed.push((s.name, value));
            }
            for &(name, ref value) in &changed {
                tx.emit(Event::RealmSettingChanged {
                    name,
                    value: value.clone(),
                });
            }
            Ok(changed)
        })
        .await
}

/// Checks that a group setting names existing, usable groups and users and fits the rule.
fn check_group(c: &Connection, name: &str, rule: &GroupRule, g: &GroupSetting) -> Result<()> {
    let not_system = || Error::bad_request(format!("'{name}' must be a system user group."));
    let (users, named): (&[UserId], Vec<GroupId>) = match g {
        GroupSetting::Group(id) => (&[], vec![*id]),
        GroupSetting::Members { users, groups } => {
            if rule.require_system_group {
                return Err(not_system());
            }
            (users, groups.clone())
        }
    };
    if users.is_empty() && named.is_empty() && !rule.allow_nobody {
        return Err(Error::bad_request(format!(
            "'{name}' setting cannot be set to 'role:nobody' group."
        )));
    }
    for gid in named {
        let info = groups::get(c, gid)?
            .ok_or_else(|| Error::bad_request(format!("Invalid user group ID: {}", gid.0)))?;
        if info.deactivated {
            return Err(Error::bad_request("User group is deactivated."));
        }
        let refused = (gid == sys::INTERNET)
            || (gid == sys::NOBODY && !rule.allow_nobody)
            || (gid == sys::EVERYONE && !rule.allow_everyone)
            || (info.is_system_group
                && !rule.allowed_system_groups.is_empty()
                && !rule.allowed_system_groups.contains(&gid));
        if refused {
            return Err(Error::bad_request(format!(
                "'{name}' setting cannot be set to '{}' group.",
                info.name
            )));
        }
        if rule.require_system_group && !info.is_system_group {
            return Err(not_system());
        }
    }
    for u in users {
        if !users_db::get(c, *u)?.is_some_and(|x| x.is_active) {
            return Err(Error::bad_request(format!("Invalid user ID: {}", u.0)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_names_are_unique_and_defaults_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for s in CATALOGUE {
            assert!(seen.insert(s.name), "{} twice", s.name);
            let d = s.default("Outpost");
            assert_eq!(s.decode(&encode(&d)), Some(d), "{}", s.name);
        }
    }

    #[test]
    fn group_values_round_trip_through_their_stored_form() {
        for g in [
            GroupSetting::Group(sys::MEMBERS),
            GroupSetting::Members {
                users: vec![UserId(3), UserId(9)],
                groups: vec![sys::ADMINISTRATORS],
            },
            GroupSetting::Members {
                users: vec![],
                groups: vec![],
            },
        ] {
            assert_eq!(decode_group(&encode_group(&g)), Some(g));
        }
        assert_eq!(decode_group("x"), None);
    }

    #[test]
    fn values_are_checked_against_their_kind() {
        let check = |n: &str, v: RealmValue| spec(n).unwrap().check(v);
        assert_eq!(
            check(NAME, RealmValue::Str("x".repeat(41)))
                .unwrap_err()
                .msg,
            "name is too long (limit: 40 characters)"
        );
        assert_eq!(
            check(DEFAULT_LANGUAGE, RealmValue::Str("xx".into()))
                .unwrap_err()
                .msg,
            "Invalid language 'xx'"
        );
        assert_eq!(
            check(WAITING_PERIOD_THRESHOLD, RealmValue::Int(-1))
                .unwrap_err()
                .msg,
            "waiting_period_threshold is too small"
        );
        assert_eq!(
            check(NEW_STREAM_ANNOUNCEMENTS, RealmValue::Int(-1)).unwrap(),
            RealmValue::Int(-1)
        );
        assert_eq!(
            check(NEW_STREAM_ANNOUNCEMENTS, RealmValue::Int(-7))
                .unwrap_err()
                .msg,
            "Invalid channel ID"
        );
        assert!(check(MESSAGE_CONTENT_EDIT_LIMIT, RealmValue::Limit(Some(0))).is_err());
        assert_eq!(
            parse_time_limit("x", &Value::String("unlimited".into())).unwrap(),
            None
        );
        assert_eq!(
            parse_time_limit("x", &Value::from(-5)).unwrap_err().msg,
            "Bad value for 'x': -5"
        );
    }
}
