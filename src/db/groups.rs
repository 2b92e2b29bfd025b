//! SQL for user groups: records, membership and subgroups, including the role-based system
//! groups whose members are derived from user roles rather than stored.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::{GroupId, UserId};
use crate::model::{GroupListing, GroupPermission, GroupSetting, UserGroup, system_groups as sys};

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

/// The token that changes with every write to groups, members and subgroups (kept by the
/// triggers in `schema.sql`); a read inside a transaction sees its own writes' token.
pub fn generation(c: &Connection) -> Result<i64> {
    Ok(
        c.prepare_cached("SELECT token FROM user_groups_generation")?
            .query_row([], |r| r.get(0))?,
    )
}

/// The whole membership graph of the named groups: (group, direct member) pairs, (group,
/// direct subgroup) pairs and the deactivated groups.
pub type Graph = (
    Vec<(GroupId, UserId)>,
    Vec<(GroupId, GroupId)>,
    Vec<GroupId>,
);

pub fn graph(c: &Connection) -> Result<Graph> {
    let pairs = |sql: &str| -> Result<Vec<(i64, i64)>> {
        let mut st = c.prepare_cached(sql)?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    };
    let members = pairs("SELECT group_id, user_id FROM user_group_members")?
        .into_iter()
        .map(|(g, u)| (GroupId(g), UserId(u)))
        .collect();
    let subgroups = pairs("SELECT group_id, subgroup_id FROM user_group_subgroups")?
        .into_iter()
        .map(|(g, s)| (GroupId(g), GroupId(s)))
        .collect();
    let mut st = c.prepare_cached("SELECT id FROM user_groups WHERE deactivated")?;
    let deactivated = st
        .query_map([], |r| Ok(GroupId(r.get(0)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok((members, subgroups, deactivated))
}

fn subgroups(c: &Connection, group: GroupId) -> Result<Vec<GroupId>> {
    let mut st = c.prepare_cached(
        "SELECT subgroup_id FROM user_group_subgroups WHERE group_id = ?1 ORDER BY subgroup_id",
    )?;
    let rows = st.query_map([group.0], |r| Ok(GroupId(r.get(0)?)))?;
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

const COLUMNS: &str = "id, name, description, is_system_group, deactivated, creator_id, \
     date_created, can_add_members_group, can_join_group, can_leave_group, can_manage_group, \
     can_mention_group, can_remove_members_group";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<UserGroup> {
    let mut settings = Vec::with_capacity(GroupPermission::ALL.len());
    for i in 0..GroupPermission::ALL.len() {
        settings.push(GroupSetting::from_stored_text(&r.get::<_, String>(7 + i)?));
    }
    Ok(UserGroup {
        id: GroupId(r.get(0)?),
        name: r.get(1)?,
        description: r.get(2)?,
        is_system_group: r.get(3)?,
        deactivated: r.get(4)?,
        creator_id: r.get::<_, Option<i64>>(5)?.map(UserId),
        date_created: r.get(6)?,
        settings,
    })
}

/// A group's whole record.
pub fn record(c: &Connection, id: GroupId) -> Result<Option<UserGroup>> {
    let mut st = c.prepare_cached(&format!("SELECT {COLUMNS} FROM user_groups WHERE id = ?1"))?;
    Ok(st.query_row([id.0], from_row).optional()?)
}

/// A group by name, ignoring case.
pub fn by_name(c: &Connection, name: &str) -> Result<Option<UserGroup>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM user_groups WHERE name = ?1 COLLATE NOCASE"
    ))?;
    Ok(st.query_row([name], from_row).optional()?)
}

/// Every group's record by id, deactivated ones when asked.
pub fn records(c: &Connection, include_deactivated: bool) -> Result<Vec<UserGroup>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM user_groups WHERE ?1 OR NOT deactivated ORDER BY id"
    ))?;
    let rows = st.query_map([include_deactivated], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every group with its active direct members and direct subgroups (the system groups'
/// derived from roles), deactivated groups when asked.
pub fn listings(c: &Connection, include_deactivated: bool) -> Result<Vec<GroupListing>> {
    let mut members: HashMap<GroupId, Vec<UserId>> = HashMap::new();
    let mut st = c.prepare_cached(
        "SELECT m.group_id, m.user_id FROM user_group_members m \
         JOIN users u ON u.id = m.user_id WHERE u.is_active ORDER BY m.group_id, m.user_id",
    )?;
    for row in st.query_map([], |r| Ok((GroupId(r.get(0)?), UserId(r.get(1)?))))? {
        let (g, u) = row?;
        members.entry(g).or_default().push(u);
    }
    let mut st = c.prepare_cached(
        "SELECT id, role FROM users WHERE is_active AND NOT is_system_bot ORDER BY id",
    )?;
    let roles: Vec<(UserId, i64)> = st
        .query_map([], |r| Ok((UserId(r.get(0)?), r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut subgroups: HashMap<GroupId, Vec<GroupId>> = HashMap::new();
    let mut st = c.prepare_cached(
        "SELECT group_id, subgroup_id FROM user_group_subgroups ORDER BY group_id, subgroup_id",
    )?;
    for row in st.query_map([], |r| Ok((GroupId(r.get(0)?), GroupId(r.get(1)?))))? {
        let (g, s) = row?;
        subgroups.entry(g).or_default().push(s);
    }
    Ok(records(c, include_deactivated)?
        .into_iter()
        .map(|group| {
            let (members, direct_subgroups) = if group.is_system_group {
                let members = match sys::direct_role(group.id) {
                    Some(role) => roles
                        .iter()
                        .filter(|(_, r)| *r == role as i64)
                        .map(|(u, _)| *u)
                        .collect(),
                    None => Vec::new(),
                };
                (
                    members,
                    sys::direct_subgroup(group.id).into_iter().collect(),
                )
            } else {
                (
                    members.remove(&group.id).unwrap_or_default(),
                    subgroups.remove(&group.id).unwrap_or_default(),
                )
            };
            GroupListing {
                group,
                members,
                direct_subgroups,
            }
        })
        .collect())
}

/// One group with its active direct members and direct subgroups (as [`listings`] shows it).
pub fn listing(c: &Connection, id: GroupId) -> Result<Option<GroupListing>> {
    let Some(group) = record(c, id)? else {
        return Ok(None);
    };
    let ids = |sql: &str| -> Result<Vec<i64>> {
        let mut st = c.prepare_cached(sql)?;
        let rows = st.query_map([id.0], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    };
    let (members, direct_subgroups) = if group.is_system_group {
        let members = match sys::direct_role(id) {
            Some(role) => {
                let mut st = c.prepare_cached(
                    "SELECT id FROM users WHERE is_active AND NOT is_system_bot AND role = ?1 \
                     ORDER BY id",
                )?;
                let rows = st.query_map([role as i64], |r| Ok(UserId(r.get(0)?)))?;
                rows.collect::<rusqlite::Result<_>>()?
            }
            None => Vec::new(),
        };
        (members, sys::direct_subgroup(id).into_iter().collect())
    } else {
        (
            ids(
                "SELECT m.user_id FROM user_group_members m JOIN users u ON u.id = m.user_id \
                 WHERE m.group_id = ?1 AND u.is_active ORDER BY m.user_id",
            )?
            .into_iter()
            .map(UserId)
            .collect(),
            ids(
                "SELECT subgroup_id FROM user_group_subgroups WHERE group_id = ?1 \
                 ORDER BY subgroup_id",
            )?
            .into_iter()
            .map(GroupId)
            .collect(),
        )
    };
    Ok(Some(GroupListing {
        group,
        members,
        direct_subgroups,
    }))
}

/// Whether a group other than `except` has this name, ignoring case.
pub fn name_taken(c: &Connection, name: &str, except: Option<GroupId>) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT 1 FROM user_groups WHERE name = ?1 COLLATE NOCASE AND id IS NOT ?2",
    )?
    .query_row(params![name, except.map(|g| g.0)], |_| Ok(()))
    .optional()?
    .is_some())
}

fn setting_texts(g: &UserGroup) -> Vec<String> {
    g.settings
        .iter()
        .map(GroupSetting::to_stored_text)
        .collect()
}

/// Stores a new named group; returns its id.
pub fn insert(c: &Connection, g: &UserGroup) -> Result<GroupId> {
    let s = setting_texts(g);
    c.prepare_cached(
        "INSERT INTO user_groups (name, description, is_system_group, deactivated, creator_id, \
         date_created, can_add_members_group, can_join_group, can_leave_group, can_manage_group, \
         can_mention_group, can_remove_members_group) \
         VALUES (?1, ?2, 0, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        g.name,
        g.description,
        g.deactivated,
        g.creator_id.map(|u| u.0),
        g.date_created,
        s[0],
        s[1],
        s[2],
        s[3],
        s[4],
        s[5]
    ])?;
    Ok(GroupId(c.last_insert_rowid()))
}

/// Writes a group's name, description, state and settings.
pub fn update(c: &Connection, g: &UserGroup) -> Result<()> {
    let s = setting_texts(g);
    c.prepare_cached(
        "UPDATE user_groups SET name = ?2, description = ?3, deactivated = ?4, \
         can_add_members_group = ?5, can_join_group = ?6, can_leave_group = ?7, \
         can_manage_group = ?8, can_mention_group = ?9, can_remove_members_group = ?10 \
         WHERE id = ?1",
    )?
    .execute(params![
        g.id.0,
        g.name,
        g.description,
        g.deactivated,
        s[0],
        s[1],
        s[2],
        s[3],
        s[4],
        s[5]
    ])?;
    Ok(())
}

/// Whether `user` is stored as a direct member of `group` (whatever the group's state).
pub fn has_direct_member(c: &Connection, group: GroupId, user: UserId) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT 1 FROM user_group_members WHERE group_id = ?1 AND user_id = ?2")?
            .query_row([group.0, user.0], |_| Ok(()))
            .optional()?
            .is_some(),
    )
}

/// Makes `user` a direct member of `group`; false when they already were one.
pub fn add_member(c: &Connection, group: GroupId, user: UserId) -> Result<bool> {
    let added = c
        .prepare_cached(
            "INSERT OR IGNORE INTO user_group_members (group_id, user_id) VALUES (?1, ?2)",
        )?
        .execute([group.0, user.0])?;
    Ok(added > 0)
}

pub fn remove_member(c: &Connection, group: GroupId, user: UserId) -> Result<()> {
    c.prepare_cached("DELETE FROM user_group_members WHERE group_id = ?1 AND user_id = ?2")?
        .execute([group.0, user.0])?;
    Ok(())
}

/// The groups `user` is a direct member of.
pub fn groups_of(c: &Connection, user: UserId) -> Result<Vec<GroupId>> {
    let mut st = c.prepare_cached(
        "SELECT group_id FROM user_group_members WHERE user_id = ?1 ORDER BY group_id",
    )?;
    let rows = st.query_map([user.0], |r| Ok(GroupId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The stored direct subgroups of a named group.
pub fn direct_subgroups(c: &Connection, group: GroupId) -> Result<Vec<GroupId>> {
    subgroups(c, group)
}

pub fn add_subgroup(c: &Connection, group: GroupId, subgroup: GroupId) -> Result<()> {
    c.prepare_cached(
        "INSERT OR IGNORE INTO user_group_subgroups (group_id, subgroup_id) VALUES (?1, ?2)",
    )?
    .execute([group.0, subgroup.0])?;
    Ok(())
}

pub fn remove_subgroup(c: &Connection, group: GroupId, subgroup: GroupId) -> Result<()> {
    c.prepare_cached("DELETE FROM user_group_subgroups WHERE group_id = ?1 AND subgroup_id = ?2")?
        .execute([group.0, subgroup.0])?;
    Ok(())
}

/// The groups that have `group` as a direct subgroup.
pub fn supergroups(c: &Connection, group: GroupId) -> Result<Vec<GroupId>> {
    let mut st = c.prepare_cached(
        "SELECT group_id FROM user_group_subgroups WHERE subgroup_id = ?1 ORDER BY group_id",
    )?;
    let rows = st.query_map([group.0], |r| Ok(GroupId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
