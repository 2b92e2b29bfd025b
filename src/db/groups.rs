//! SQL for user groups: existence checks and membership, including the role-based system groups
//! whose members are derived from user roles rather than stored.

use rusqlite::{Connection, OptionalExtension};

use crate::error::Result;
use crate::ids::{GroupId, UserId};
use crate::model::{GroupSetting, Role, User, system_groups as sys};

/// A group's identity and state.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupInfo {
    pub id: GroupId,
    pub name: String,
    pub is_system_group: bool,
    pub deactivated: bool,
}

pub fn get(c: &Connection, id: GroupId) -> Result<Option<GroupInfo>> {
    let mut st = c.prepare_cached(
        "SELECT id, name, is_system_group, deactivated FROM user_groups WHERE id = ?1",
    )?;
    Ok(st
        .query_row([id.0], |r| {
            Ok(GroupInfo {
                id: GroupId(r.get(0)?),
                name: r.get(1)?,
                is_system_group: r.get(2)?,
                deactivated: r.get(3)?,
            })
        })
        .optional()?)
}

/// Whether a role belongs to a system group.
pub fn role_in_system_group(role: Role, group: GroupId) -> bool {
    match group {
        g if g == sys::NOBODY => false,
        g if g == sys::OWNERS => role == Role::Owner,
        g if g == sys::ADMINISTRATORS => role.is_admin(),
        g if g == sys::MODERATORS => role <= Role::Moderator,
        g if g == sys::FULL_MEMBERS || g == sys::MEMBERS => role <= Role::Member,
        g if g == sys::EVERYONE || g == sys::INTERNET => true,
        _ => false,
    }
}

/// Whether `user` holds a group setting (directly or through any nested subgroup).
pub fn holds(c: &Connection, user: &User, setting: &GroupSetting) -> Result<bool> {
    let mut pending: Vec<GroupId> = match setting {
        GroupSetting::Group(g) => vec![*g],
        GroupSetting::Members { users, groups } => {
            if users.contains(&user.id) {
                return Ok(true);
            }
            groups.clone()
        }
    };
    let mut seen: Vec<GroupId> = Vec::new();
    while let Some(g) = pending.pop() {
        if seen.contains(&g) {
            continue;
        }
        seen.push(g);
        if g.0 <= sys::INTERNET.0 {
            if role_in_system_group(user.role, g) {
                return Ok(true);
            }
            continue;
        }
        if is_direct_member(c, user.id, g)? {
            return Ok(true);
        }
        pending.extend(subgroups(c, g)?);
    }
    Ok(false)
}

fn is_direct_member(c: &Connection, user: UserId, group: GroupId) -> Result<bool> {
    let mut st = c.prepare_cached(
        "SELECT 1 FROM user_group_members m JOIN user_groups g ON g.id = m.group_id \
         WHERE m.group_id = ?1 AND m.user_id = ?2 AND NOT g.deactivated",
    )?;
    Ok(st
        .query_row([group.0, user.0], |_| Ok(()))
        .optional()?
        .is_some())
}

fn subgroups(c: &Connection, group: GroupId) -> Result<Vec<GroupId>> {
    let mut st =
        c.prepare_cached("SELECT subgroup_id FROM user_group_subgroups WHERE group_id = ?1")?;
    let rows = st.query_map([group.0], |r| Ok(GroupId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The users stored as direct members of a group (whatever its state).
pub fn direct_members(c: &Connection, group: GroupId) -> Result<Vec<UserId>> {
    let mut st = c.prepare_cached("SELECT user_id FROM user_group_members WHERE group_id = ?1")?;
    let rows = st.query_map([group.0], |r| Ok(UserId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The system groups as (id, name, description), by id.
pub fn system_groups(c: &Connection) -> Result<Vec<(GroupId, String, String)>> {
    let mut st = c.prepare_cached(
        "SELECT id, name, description FROM user_groups WHERE is_system_group ORDER BY id",
    )?;
    let rows = st
        .query_map([], |r| Ok((GroupId(r.get(0)?), r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Makes `user` a direct member of `group`; false when they already were one.
pub fn add_direct_member(c: &Connection, group: GroupId, user: UserId) -> Result<bool> {
    let n = c.execute(
        "INSERT OR IGNORE INTO user_group_members (group_id, user_id) VALUES (?1, ?2)",
        [group.0, user.0],
    )?;
    Ok(n > 0)
}
