//! Typed reads of the organization's current settings, for register and for the rules that
//! depend on them (channel creation, edit and move windows, announcements): a setting absent
//! from the sparse `realm_settings` table has its default. Reads only; whether a user holds a
//! group-valued setting is `domain::user_groups::holds_realm`.

use rusqlite::Connection;

use crate::db::{channels as channels_db, realm_settings as db};
use crate::error::{Error, Result};
use crate::ids::ChannelId;
use crate::model::{Channel, GroupSetting, RealmValue};

use super::catalogue::{CATALOGUE, DESCRIPTION, NAME, Spec, spec};

pub(super) fn value_of(c: &Connection, s: &Spec, configured_name: &str) -> Result<RealmValue> {
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
