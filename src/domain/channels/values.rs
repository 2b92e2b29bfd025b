//! The input rules shared by creating and updating channels: names, descriptions, colors,
//! retention and group-setting values (parsed from a request and checked against the
//! organization's groups and users). Changes nothing.

use serde_json::Value;

use crate::db::{groups, users as users_db};
use crate::error::{Error, Result};
use crate::ids::{GroupId, UserId};
use crate::model::{ChannelSetting, GroupSetting};

use super::{MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH};

/// Validates and trims a channel name.
pub fn check_name(raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(Error::bad_request("Channel name can't be empty."));
    }
    if name.chars().count() > MAX_NAME_LENGTH {
        return Err(Error::bad_request(format!(
            "Channel name too long (limit: {MAX_NAME_LENGTH} characters)."
        )));
    }
    if let Some(pos) = name.chars().position(|ch| ch.is_control() || ch == '\u{0}') {
        return Err(Error::bad_request(format!(
            "Invalid character in channel name, at position {}.",
            pos + 1
        )));
    }
    Ok(name.to_string())
}

pub fn check_description(d: &str) -> Result<String> {
    if d.contains('\0') {
        return Err(Error::bad_request(
            "description must not contain null bytes",
        ));
    }
    if d.chars().count() > MAX_DESCRIPTION_LENGTH {
        return Err(Error::bad_request(format!(
            "description is too long (limit: {MAX_DESCRIPTION_LENGTH} characters)"
        )));
    }
    Ok(d.trim().replace(['\r', '\n'], " "))
}

/// Parses a group-setting value from a request (an id or `{direct_members, direct_subgroups}`).
pub fn parse_group_setting(name: &str, v: &Value) -> Result<GroupSetting> {
    let bad = || Error::bad_request(format!("{name} is not a valid group-setting value"));
    match v {
        Value::Number(n) => Ok(GroupSetting::Group(GroupId(n.as_i64().ok_or_else(bad)?))),
        Value::Object(o) => {
            let ids = |k: &str| -> Result<Vec<i64>> {
                match o.get(k) {
                    None => Ok(Vec::new()),
                    Some(Value::Array(a)) => a.iter().map(|x| x.as_i64().ok_or_else(bad)).collect(),
                    Some(_) => Err(bad()),
                }
            };
            if o.keys()
                .any(|k| k != "direct_members" && k != "direct_subgroups")
            {
                return Err(bad());
            }
            Ok(GroupSetting::Members {
                users: ids("direct_members")?.into_iter().map(UserId).collect(),
                groups: ids("direct_subgroups")?.into_iter().map(GroupId).collect(),
            }
            .normalized())
        }
        _ => Err(bad()),
    }
}

/// Checks that every group and user a setting names exists and may be used.
pub(super) fn validate_setting(
    c: &rusqlite::Connection,
    which: ChannelSetting,
    g: &GroupSetting,
) -> Result<()> {
    let (users, groups_named): (Vec<UserId>, Vec<GroupId>) = match g {
        GroupSetting::Group(id) => (vec![], vec![*id]),
        GroupSetting::Members { users, groups } => (users.clone(), groups.clone()),
    };
    for gid in groups_named {
        let info = groups::get(c, gid)?
            .ok_or_else(|| Error::bad_request(format!("Invalid user group ID: {}", gid.0)))?;
        if info.deactivated {
            return Err(Error::bad_request("User group is deactivated."));
        }
        if info.id == crate::model::system_groups::INTERNET {
            return Err(Error::bad_request(format!(
                "'{}' setting cannot be set to 'role:internet' group.",
                which.name()
            )));
        }
    }
    for u in users {
        if !users_db::get(c, u)?.is_some_and(|x| x.is_active) {
            return Err(Error::bad_request(format!("Invalid user ID: {}", u.0)));
        }
    }
    Ok(())
}

/// `realm_default`, `unlimited` or a positive number of days.
pub fn parse_retention(raw: &str) -> Result<Option<i64>> {
    match raw.trim_matches('"') {
        "realm_default" => Ok(None),
        "unlimited" => Ok(Some(-1)),
        n => match n.parse::<i64>() {
            Ok(days) if days >= 1 => Ok(Some(days)),
            _ => Err(Error::bad_request(format!(
                "Bad value for 'message_retention_days': {raw}"
            ))),
        },
    }
}

/// Checks a `#rrggbb` color.
pub fn check_color(c: &str) -> Result<()> {
    let ok = c.len() == 7 && c.starts_with('#') && c[1..].bytes().all(|b| b.is_ascii_hexdigit());
    if ok {
        Ok(())
    } else {
        Err(Error::bad_request("color is not a valid hex color code"))
    }
}
