//! Whether a user holds a group-setting value ([`holds`]): the one answer behind every
//! permission decision (organization, channel and group settings). System groups go by role,
//! named groups through their members and nested subgroups. It reads the named groups'
//! membership graph once per write generation (a token the database changes on every write to
//! groups, members and subgroups, see `schema.sql`) and keeps it per database thread: each `Db`
//! owns its threads, entries are keyed by database file and token, so several servers in one
//! process never share one, and a transaction sees its own writes' token.
//!
//! Also the permissions built on it: holding an organization permission ([`holds_realm`]),
//! managing a group, adding members, mentioning a group. Reads only: never writes groups or
//! members (that is `management` and `membership`).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rusqlite::Connection;

use crate::db::{groups as db, users as users_db};
use crate::domain::realm_settings;
use crate::error::{Error, Result};
use crate::ids::{GroupId, UserId};
use crate::model::{GroupPermission, GroupSetting, Role, User, UserGroup, system_groups as sys};

/// The named groups' membership graph as of one write generation.
#[derive(Debug, Default)]
pub(super) struct Graph {
    members: HashMap<GroupId, HashSet<UserId>>,
    subgroups: HashMap<GroupId, Vec<GroupId>>,
    deactivated: HashSet<GroupId>,
}

struct Cached {
    database: String,
    token: i64,
    graph: Arc<Graph>,
}

thread_local! {
    static GRAPH: RefCell<Option<Cached>> = const { RefCell::new(None) };
}

fn load_graph(c: &Connection) -> Result<Graph> {
    let (members, subgroups, deactivated) = db::graph(c)?;
    let mut g = Graph {
        deactivated: deactivated.into_iter().collect(),
        ..Graph::default()
    };
    for (group, user) in members {
        g.members.entry(group).or_default().insert(user);
    }
    for (group, sub) in subgroups {
        g.subgroups.entry(group).or_default().push(sub);
    }
    Ok(g)
}

/// The graph of the current write generation, from this thread's cache when it is current.
pub(super) fn graph(c: &Connection) -> Result<Arc<Graph>> {
    let token = db::generation(c)?;
    let database = c.path().unwrap_or("").to_string();
    if database.is_empty() {
        return Ok(Arc::new(load_graph(c)?));
    }
    let hit = GRAPH.with(|cell| {
        cell.borrow()
            .as_ref()
            .filter(|e| e.token == token && e.database == database)
            .map(|e| Arc::clone(&e.graph))
    });
    if let Some(g) = hit {
        return Ok(g);
    }
    let g = Arc::new(load_graph(c)?);
    GRAPH.with(|cell| {
        *cell.borrow_mut() = Some(Cached {
            database,
            token,
            graph: Arc::clone(&g),
        })
    });
    Ok(g)
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

fn is_system(g: GroupId) -> bool {
    g.0 <= sys::INTERNET.0
}

fn holds_in(graph: &Graph, user: &User, start: &[GroupId]) -> bool {
    let mut pending: Vec<GroupId> = start.to_vec();
    let mut seen: HashSet<GroupId> = HashSet::new();
    while let Some(g) = pending.pop() {
        if !seen.insert(g) {
            continue;
        }
        if is_system(g) {
            if role_in_system_group(user.role, g) {
                return true;
            }
            continue;
        }
        if graph.deactivated.contains(&g) {
            continue;
        }
        if graph.members.get(&g).is_some_and(|m| m.contains(&user.id)) {
            return true;
        }
        if let Some(subs) = graph.subgroups.get(&g) {
            pending.extend(subs.iter().copied());
        }
    }
    false
}

/// Whether `user` holds a group-setting value: is one of its users, or belongs (by role, or
/// through members and nested subgroups) to one of its groups. Deactivated groups hold nobody.
pub fn holds(c: &Connection, user: &User, setting: &GroupSetting) -> Result<bool> {
    let groups: &[GroupId] = match setting {
        GroupSetting::Group(g) => std::slice::from_ref(g),
        GroupSetting::Members { users, groups } => {
            if users.contains(&user.id) {
                return Ok(true);
            }
            groups
        }
    };
    if groups.iter().all(|g| is_system(*g)) {
        return Ok(groups.iter().any(|g| role_in_system_group(user.role, *g)));
    }
    let graph = graph(c)?;
    Ok(holds_in(&graph, user, groups))
}

/// The named and system groups reachable from `group` through subgroups (itself excluded).
pub(super) fn recursive_subgroups(graph: &Graph, group: GroupId) -> Vec<GroupId> {
    let mut out = Vec::new();
    let mut pending: Vec<GroupId> = match sys::direct_subgroup(group) {
        Some(s) if is_system(group) => vec![s],
        _ => graph.subgroups.get(&group).cloned().unwrap_or_default(),
    };
    let mut seen = HashSet::new();
    while let Some(g) = pending.pop() {
        if !seen.insert(g) {
            continue;
        }
        out.push(g);
        if is_system(g) {
            pending.extend(sys::direct_subgroup(g));
        } else if let Some(subs) = graph.subgroups.get(&g) {
            pending.extend(subs.iter().copied());
        }
    }
    out.sort_unstable();
    out
}

/// Every active user (bots included) that holds `setting`, by id.
pub fn users_holding(c: &Connection, setting: &GroupSetting) -> Result<Vec<UserId>> {
    let mut out = Vec::new();
    for u in users_db::all(c)?.into_iter().filter(|u| u.is_active) {
        if holds(c, &u, setting)? {
            out.push(u.id);
        }
    }
    Ok(out)
}

/// A (non-silent) mention of a named group: the sender must hold its `can_mention_group`; a
/// system bot's notice may mention only groups everyone may mention.
pub fn check_mention(c: &Connection, sender: &User, group: GroupId, system: bool) -> Result<()> {
    let Some(g) = db::record(c, group)? else {
        return Ok(());
    };
    let setting = g.setting(GroupPermission::Mention);
    let everyone = *setting == GroupSetting::Group(sys::EVERYONE);
    if everyone || (!system && holds(c, sender, setting)?) {
        return Ok(());
    }
    Err(Error::bad_request(format!(
        "You are not allowed to mention user group '{}'.",
        g.name
    )))
}

/// Whether `user` holds a group-valued organization permission (e.g.
/// [`realm_settings::CAN_INVITE_USERS`]).
pub fn holds_realm(c: &Connection, user: &User, name: &str) -> Result<bool> {
    let g = realm_settings::group_setting(c, name)?;
    holds(c, user, &g)
}

/// Whether `actor` may manage `group` (rename, describe, change settings and subgroups,
/// deactivate): the group's `can_manage_group` or the organization's `can_manage_all_groups`.
pub(super) fn may_manage(c: &Connection, actor: &User, group: &UserGroup) -> Result<bool> {
    Ok(holds(c, actor, group.setting(GroupPermission::Manage))?
        || holds_realm(c, actor, realm_settings::CAN_MANAGE_ALL_GROUPS)?)
}

/// Whether `actor` may add members to `group` (its managers, or those in its
/// `can_add_members_group`): what inviting someone into the group needs.
pub fn may_add_members(c: &Connection, actor: &User, group: &UserGroup) -> Result<bool> {
    Ok(
        may_manage(c, actor, group)?
            || holds(c, actor, group.setting(GroupPermission::AddMembers))?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Synchronous;
    use crate::model::EmailVisibility;

    fn member(c: &Connection, email: &str) -> User {
        let id = users_db::insert(
            c,
            &users_db::NewUser {
                email,
                full_name: email,
                role: Role::Member,
                api_key: email,
                password_hash: None,
                date_joined: 0,
                email_visibility: EmailVisibility::Everyone,
                can_create_users: false,
                can_change_user_emails: false,
            },
        )
        .unwrap();
        users_db::get(c, id).unwrap().unwrap()
    }

    fn group(c: &Connection, name: &str, creator: UserId) -> GroupId {
        let g = UserGroup {
            id: GroupId(0),
            name: name.into(),
            description: String::new(),
            is_system_group: false,
            deactivated: false,
            creator_id: Some(creator),
            date_created: Some(0),
            settings: GroupPermission::ALL
                .iter()
                .map(|p| p.default_for(creator))
                .collect(),
        };
        db::insert(c, &g).unwrap()
    }

    /// The cached graph follows every write, inside the writing transaction too, and a rolled
    /// back write leaves no stale entry behind.
    #[test]
    fn holds_follows_writes_through_the_generation_token() {
        let dir = tempfile::tempdir().unwrap();
        let mut c =
            crate::db::migrate::open_writer(&dir.path().join("db.sqlite"), Synchronous::Normal)
                .unwrap();
        let alice = member(&c, "alice@x.test");
        let outer = group(&c, "outer", alice.id);
        let inner = group(&c, "inner", alice.id);
        db::add_subgroup(&c, outer, inner).unwrap();
        let setting = GroupSetting::Group(outer);
        assert!(!holds(&c, &alice, &setting).unwrap());
        db::add_member(&c, inner, alice.id).unwrap();
        assert!(holds(&c, &alice, &setting).unwrap());
        // Seen inside a transaction, and gone again when it rolls back.
        let tx = c.transaction().unwrap();
        db::remove_member(&tx, inner, alice.id).unwrap();
        assert!(!holds(&tx, &alice, &setting).unwrap());
        drop(tx);
        assert!(holds(&c, &alice, &setting).unwrap());
        // A deactivated group holds nobody; system groups go by role.
        let mut g = db::record(&c, inner).unwrap().unwrap();
        g.deactivated = true;
        db::update(&c, &g).unwrap();
        assert!(!holds(&c, &alice, &setting).unwrap());
        let anonymous = GroupSetting::Members {
            users: vec![],
            groups: vec![outer, sys::MEMBERS],
        };
        assert!(holds(&c, &alice, &anonymous).unwrap());
        assert!(!holds(&c, &alice, &GroupSetting::Group(sys::MODERATORS)).unwrap());
    }
}
