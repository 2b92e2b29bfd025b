//! The update rules behind `PATCH /realm`: administrators only, owners for the owner-only
//! settings, every change checked (type, range, the channel or groups it names, the value a
//! client expects to replace) before any is written, all or nothing, and each changed value
//! announced as its own event. Never decides who holds a setting.

use rusqlite::Connection;

use crate::db::{channels as channels_db, groups, realm_settings as db, users as users_db};
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, RealmSettingChanged};
use crate::ids::{ChannelId, GroupId, UserId};
use crate::model::{GroupSetting, RealmValue, Role, User, system_groups as sys};

use super::catalogue::Kind::{self, Channel as Chan};
use super::catalogue::{GroupRule, spec};
use super::reads::value_of;
use super::values::encode;

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
                tx.emit(Event::RealmSettingChanged(RealmSettingChanged {
                    name,
                    value: value.clone(),
                }));
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
