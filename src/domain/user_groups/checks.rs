//! The input rules and lookups that refuse a group request before anything changes: who may
//! call the group endpoints at all, what a group name and description may be, whether a name
//! is free, what a group permission setting may name, and which users, groups and subgroups a
//! change may address. Permissions (who holds what) are `permission`; no writes here.

use rusqlite::Connection;

use crate::db::{groups as db, users as users_db};
use crate::error::{Error, Result};
use crate::ids::{GroupId, UserId};
use crate::model::{GroupPermission, GroupSetting, Role, User, UserGroup, system_groups as sys};

/// Upstream's `max_user_group_name_length` (`NamedUserGroup.MAX_NAME_LENGTH`).
pub const MAX_NAME_LENGTH: usize = 100;

/// Names reserved for system groups and other kinds of mention.
const RESERVED_PREFIXES: [&str; 4] = ["role:", "user:", "stream:", "channel:"];

pub(super) fn invalid_group() -> Error {
    Error::bad_request("Invalid user group")
}

pub(super) fn insufficient() -> Error {
    Error::bad_request("Insufficient permission")
}

/// `GET /user_groups` and the other group endpoints: members and administrators only.
pub(super) fn check_caller(actor: &User) -> Result<()> {
    if actor.role == Role::Guest {
        return Err(Error::bad_request("Not allowed for guest users"));
    }
    if actor.is_bot {
        return Err(Error::bad_request(
            "This endpoint does not accept bot requests.",
        ));
    }
    Ok(())
}

/// A group name as upstream accepts it.
pub fn check_name(name: &str) -> Result<()> {
    if name.trim().is_empty() {
        return Err(Error::bad_request("User group name can't be empty!"));
    }
    if name.chars().count() > MAX_NAME_LENGTH {
        return Err(Error::bad_request(format!(
            "User group name cannot exceed {MAX_NAME_LENGTH} characters."
        )));
    }
    if let Some(pos) = name.chars().position(char::is_control) {
        return Err(Error::bad_request(format!(
            "Invalid character in user group name, at position {}.",
            pos + 1
        )));
    }
    if let Some(prefix) = RESERVED_PREFIXES.iter().find(|p| name.starts_with(**p)) {
        return Err(Error::bad_request(format!(
            "User group name cannot start with '{prefix}'."
        )));
    }
    Ok(())
}

pub(super) fn check_description(description: &str, max: usize) -> Result<()> {
    if description.contains('\0') {
        return Err(Error::bad_request(
            "description must not contain null bytes",
        ));
    }
    if description.chars().count() > max {
        return Err(Error::bad_request(format!(
            "User group description cannot exceed {max} characters."
        )));
    }
    Ok(())
}

pub(super) fn name_free(c: &Connection, name: &str, except: Option<GroupId>) -> Result<()> {
    if db::name_taken(c, name, except)? {
        return Err(Error::bad_request(format!(
            "User group '{name}' already exists."
        )));
    }
    Ok(())
}

/// Checks that a group's permission setting names existing, active users and groups the
/// setting may hold.
pub(super) fn check_setting(
    c: &Connection,
    which: GroupPermission,
    g: &GroupSetting,
) -> Result<()> {
    let (users, named): (&[UserId], &[GroupId]) = match g {
        GroupSetting::Group(id) => (&[], std::slice::from_ref(id)),
        GroupSetting::Members { users, groups } => (users, groups),
    };
    for gid in named {
        let info = db::get(c, *gid)?
            .ok_or_else(|| Error::bad_request(format!("Invalid user group ID: {}", gid.0)))?;
        if info.deactivated {
            return Err(Error::bad_request("User group is deactivated."));
        }
        if *gid == sys::INTERNET
            || (*gid == sys::EVERYONE && !which.allows_everyone())
            || (*gid == sys::OWNERS && !which.allows_owners())
        {
            return Err(Error::bad_request(format!(
                "'{}' setting cannot be set to '{}' group.",
                which.name(),
                info.name
            )));
        }
    }
    for u in users {
        if !users_db::get(c, *u)?.is_some_and(|x| x.is_active) {
            return Err(Error::bad_request(format!("Invalid user ID: {}", u.0)));
        }
    }
    Ok(())
}

pub(super) fn active_user(c: &Connection, id: UserId) -> Result<User> {
    users_db::get(c, id)?
        .filter(|u| u.is_active)
        .ok_or_else(|| Error::bad_request(format!("Invalid user ID: {}", id.0)))
}

/// The group a change is addressed to: a named group (system groups follow roles).
pub(super) fn for_update(c: &Connection, id: GroupId) -> Result<UserGroup> {
    let g = db::record(c, id)?.ok_or_else(invalid_group)?;
    if g.is_system_group {
        return Err(insufficient());
    }
    Ok(g)
}

/// A subgroup that may be added: an existing, active group.
pub(super) fn usable_subgroup(c: &Connection, id: GroupId) -> Result<()> {
    let g = db::get(c, id)?
        .ok_or_else(|| Error::bad_request(format!("Invalid user group ID: {}", id.0)))?;
    if g.deactivated {
        return Err(Error::bad_request("User group is deactivated."));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_upstream_rules() {
        assert!(check_name("backend").is_ok());
        assert!(check_name(&"a".repeat(MAX_NAME_LENGTH)).is_ok());
        assert_eq!(
            check_name(&"a".repeat(MAX_NAME_LENGTH + 1))
                .unwrap_err()
                .msg,
            "User group name cannot exceed 100 characters."
        );
        assert_eq!(
            check_name("  ").unwrap_err().msg,
            "User group name can't be empty!"
        );
        assert_eq!(
            check_name("role:x").unwrap_err().msg,
            "User group name cannot start with 'role:'."
        );
    }
}
