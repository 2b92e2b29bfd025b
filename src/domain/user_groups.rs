//! User groups: members create named groups, edit, join, leave, nest and deactivate them under
//! each group's own permissions (`can_*_group`) and the organization's; the role-based system
//! groups follow roles and are never edited. No SQL, no wire shapes.
//!
//! [`holds`] is the one answer to "is this user in this group-setting value", for every
//! permission check (organization, channel and group settings): system groups by role, named
//! groups through their members and nested subgroups. It reads the named groups' membership
//! graph once per write generation (a token the database changes on every write to groups,
//! members and subgroups, see `schema.sql`) and keeps it per database thread: each `Db` owns its
//! threads, entries are keyed by database file and token, so several servers in one process
//! never share one, and a transaction sees its own writes' token.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rusqlite::Connection;

use crate::db::{channels as channels_db, groups as db, users as users_db};
use crate::domain::core::Core;
use crate::domain::{notices, realm_settings};
use crate::error::{Error, Result};
use crate::events::{Event, GroupChange};
use crate::ids::{GroupId, UserId};
use crate::model::{
    ChannelSetting, GroupListing, GroupPermission, GroupSetting, Role, User, UserGroup,
    system_groups as sys,
};

/// Upstream's `max_user_group_name_length` (`NamedUserGroup.MAX_NAME_LENGTH`).
pub const MAX_NAME_LENGTH: usize = 100;

/// Names reserved for system groups and other kinds of mention.
const RESERVED_PREFIXES: [&str; 4] = ["role:", "user:", "stream:", "channel:"];

// ---------------------------------------------------------------------------------------------
// Membership evaluation

/// The named groups' membership graph as of one write generation.
#[derive(Debug, Default)]
struct Graph {
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
fn graph(c: &Connection) -> Result<Arc<Graph>> {
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
fn recursive_subgroups(graph: &Graph, group: GroupId) -> Vec<GroupId> {
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

// ---------------------------------------------------------------------------------------------
// Input rules

fn invalid_group() -> Error {
    Error::bad_request("Invalid user group")
}

fn insufficient() -> Error {
    Error::bad_request("Insufficient permission")
}

/// `GET /user_groups` and the other group endpoints: members and administrators only.
fn check_caller(actor: &User) -> Result<()> {
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

fn check_description(description: &str, max: usize) -> Result<()> {
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

fn name_free(c: &Connection, name: &str, except: Option<GroupId>) -> Result<()> {
    if db::name_taken(c, name, except)? {
        return Err(Error::bad_request(format!(
            "User group '{name}' already exists."
        )));
    }
    Ok(())
}

/// Checks that a group's permission setting names existing, active users and groups the
/// setting may hold.
fn check_setting(c: &Connection, which: GroupPermission, g: &GroupSetting) -> Result<()> {
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

fn active_user(c: &Connection, id: UserId) -> Result<User> {
    users_db::get(c, id)?
        .filter(|u| u.is_active)
        .ok_or_else(|| Error::bad_request(format!("Invalid user ID: {}", id.0)))
}

/// The group a change is addressed to: a named group (system groups follow roles).
fn for_update(c: &Connection, id: GroupId) -> Result<UserGroup> {
    let g = db::record(c, id)?.ok_or_else(invalid_group)?;
    if g.is_system_group {
        return Err(insufficient());
    }
    Ok(g)
}

/// Whether `actor` may manage `group` (rename, describe, change settings and subgroups,
/// deactivate): the group's `can_manage_group` or the organization's `can_manage_all_groups`.
fn may_manage(c: &Connection, actor: &User, group: &UserGroup) -> Result<bool> {
    Ok(holds(c, actor, group.setting(GroupPermission::Manage))?
        || realm_settings::holds(c, actor, realm_settings::CAN_MANAGE_ALL_GROUPS)?)
}

/// Whether `actor` may add members to `group` (its managers, or those in its
/// `can_add_members_group`): what inviting someone into the group needs.
pub fn may_add_members(c: &Connection, actor: &User, group: &UserGroup) -> Result<bool> {
    Ok(
        may_manage(c, actor, group)?
            || holds(c, actor, group.setting(GroupPermission::AddMembers))?,
    )
}

// ---------------------------------------------------------------------------------------------
// Reads

/// `GET /user_groups`: every group, deactivated ones when asked.
pub async fn list(
    state: &Core,
    actor: &User,
    include_deactivated: bool,
) -> Result<Vec<GroupListing>> {
    check_caller(actor)?;
    state
        .db
        .read(move |c| db::listings(c, include_deactivated))
        .await
}

/// `GET /user_groups/{id}/members`: the active members, direct ones only when asked.
pub async fn members(
    state: &Core,
    actor: &User,
    id: GroupId,
    direct_only: bool,
) -> Result<Vec<UserId>> {
    check_caller(actor)?;
    state
        .db
        .read(move |c| {
            let listing = db::listing(c, id)?.ok_or_else(invalid_group)?;
            if direct_only {
                return Ok(listing.members);
            }
            users_holding(c, &GroupSetting::Group(id))
        })
        .await
}

/// `GET /user_groups/{id}/members/{user_id}`.
pub async fn is_member(
    state: &Core,
    actor: &User,
    id: GroupId,
    user: UserId,
    direct_only: bool,
) -> Result<bool> {
    check_caller(actor)?;
    state
        .db
        .read(move |c| {
            let g = db::record(c, id)?.ok_or_else(invalid_group)?;
            let u = active_user(c, user)?;
            if direct_only {
                return Ok(match sys::direct_role(g.id) {
                    Some(role) => u.role == role,
                    None if g.is_system_group => false,
                    None => db::has_direct_member(c, g.id, u.id)?,
                });
            }
            holds(c, &u, &GroupSetting::Group(g.id))
        })
        .await
}

/// `GET /user_groups/{id}/subgroups`: direct subgroups only when asked.
pub async fn subgroups(
    state: &Core,
    actor: &User,
    id: GroupId,
    direct_only: bool,
) -> Result<Vec<GroupId>> {
    check_caller(actor)?;
    state
        .db
        .read(move |c| {
            let g = db::record(c, id)?.ok_or_else(invalid_group)?;
            if direct_only {
                return Ok(if g.is_system_group {
                    sys::direct_subgroup(g.id).into_iter().collect()
                } else {
                    db::direct_subgroups(c, g.id)?
                });
            }
            let graph = graph(c)?;
            Ok(recursive_subgroups(&graph, g.id))
        })
        .await
}

// ---------------------------------------------------------------------------------------------
// Writes

/// What `POST /user_groups/create` asks for.
#[derive(Clone, Debug, Default)]
pub struct NewGroup {
    pub name: String,
    pub description: String,
    pub members: Vec<UserId>,
    pub subgroups: Vec<GroupId>,
    pub settings: Vec<(GroupPermission, GroupSetting)>,
}

/// `POST /user_groups/create`.
pub async fn create(state: &Core, actor: &User, new: NewGroup) -> Result<GroupId> {
    check_caller(actor)?;
    check_name(&new.name)?;
    check_description(
        &new.description,
        state.config.limits.max_user_group_description_length,
    )?;
    let actor = actor.clone();
    state
        .db
        .write(move |tx| {
            if !realm_settings::holds(tx, &actor, realm_settings::CAN_CREATE_GROUPS)? {
                return Err(insufficient());
            }
            name_free(tx, &new.name, None)?;
            let mut settings: Vec<GroupSetting> = GroupPermission::ALL
                .iter()
                .map(|p| p.default_for(actor.id))
                .collect();
            for (which, value) in &new.settings {
                check_setting(tx, *which, value)?;
                let i = GroupPermission::ALL
                    .iter()
                    .position(|p| p == which)
                    .expect("listed");
                settings[i] = value.clone();
            }
            let mut members = new.members.clone();
            members.sort_unstable();
            members.dedup();
            for u in &members {
                active_user(tx, *u)?;
            }
            let mut subs = new.subgroups.clone();
            subs.sort_unstable();
            subs.dedup();
            for s in &subs {
                usable_subgroup(tx, *s)?;
            }
            let mut group = UserGroup {
                id: GroupId(0),
                name: new.name,
                description: new.description,
                is_system_group: false,
                deactivated: false,
                creator_id: Some(actor.id),
                date_created: Some(crate::time::now_secs()),
                settings,
            };
            group.id = db::insert(tx, &group)?;
            for u in &members {
                db::add_member(tx, group.id, *u)?;
            }
            for s in &subs {
                db::add_subgroup(tx, group.id, *s)?;
            }
            tx.emit(Event::UserGroupAdded { group_id: group.id });
            Ok(group.id)
        })
        .await
}

/// A subgroup that may be added: an existing, active group.
fn usable_subgroup(c: &Connection, id: GroupId) -> Result<()> {
    let g = db::get(c, id)?
        .ok_or_else(|| Error::bad_request(format!("Invalid user group ID: {}", id.0)))?;
    if g.deactivated {
        return Err(Error::bad_request("User group is deactivated."));
    }
    Ok(())
}

/// One permission change of `PATCH /user_groups/{id}`: the new value and, when given, the
/// value the client expects to replace.
#[derive(Clone, Debug)]
pub struct SettingChange {
    pub which: GroupPermission,
    pub new: GroupSetting,
    pub old: Option<GroupSetting>,
}

/// What `PATCH /user_groups/{id}` asks to change.
#[derive(Clone, Debug, Default)]
pub struct GroupUpdate {
    pub name: Option<String>,
    pub description: Option<String>,
    pub settings: Vec<SettingChange>,
}

/// `PATCH /user_groups/{id}`: every change is checked before any is made; unchanged values are
/// no change.
pub async fn update(state: &Core, actor: &User, id: GroupId, up: GroupUpdate) -> Result<()> {
    check_caller(actor)?;
    if up.name.is_none() && up.description.is_none() && up.settings.is_empty() {
        return Err(Error::bad_request("No new data supplied"));
    }
    if let Some(n) = &up.name {
        check_name(n)?;
    }
    if let Some(d) = &up.description {
        check_description(d, state.config.limits.max_user_group_description_length)?;
    }
    let actor = actor.clone();
    state
        .db
        .write(move |tx| {
            let mut g = for_update(tx, id)?;
            if !may_manage(tx, &actor, &g)? {
                return Err(insufficient());
            }
            let mut changes = Vec::new();
            if let Some(name) = up.name.filter(|n| *n != g.name) {
                name_free(tx, &name, Some(id))?;
                g.name = name;
                changes.push(GroupChange::Name);
            }
            if let Some(d) = up.description.filter(|d| *d != g.description) {
                g.description = d;
                changes.push(GroupChange::Description);
            }
            for change in up.settings {
                let i = GroupPermission::ALL
                    .iter()
                    .position(|p| *p == change.which)
                    .expect("listed");
                if let Some(old) = change.old
                    && old.normalized() != g.settings[i].clone().normalized()
                {
                    return Err(Error::coded(
                        "EXPECTATION_MISMATCH",
                        "'old' value does not match the expected value.",
                        vec![],
                    ));
                }
                check_setting(tx, change.which, &change.new)?;
                if change.new != g.settings[i] {
                    g.settings[i] = change.new;
                    changes.push(GroupChange::Setting(change.which));
                }
            }
            if changes.is_empty() {
                return Ok(());
            }
            db::update(tx, &g)?;
            for change in changes {
                tx.emit(Event::UserGroupUpdated {
                    group_id: id,
                    change,
                });
            }
            Ok(())
        })
        .await
}

/// What `POST /user_groups/{id}/members` asks to change.
#[derive(Clone, Debug, Default)]
pub struct MemberChange {
    pub add: Vec<UserId>,
    pub delete: Vec<UserId>,
    pub add_subgroups: Vec<GroupId>,
    pub delete_subgroups: Vec<GroupId>,
}

/// `POST /user_groups/{id}/members`: joining and leaving are checked against the group's
/// `can_join_group` and `can_leave_group`, adding and removing others against
/// `can_add_members_group` and `can_remove_members_group` (managers may do all); subgroups are
/// added under `can_add_members_group` and removed by managers. Deactivated groups' members may
/// change too. Notification Bot tells those added or removed by someone else.
pub async fn update_members(
    state: &Core,
    actor: &User,
    id: GroupId,
    change: MemberChange,
) -> Result<()> {
    check_caller(actor)?;
    if change.add.is_empty()
        && change.delete.is_empty()
        && change.add_subgroups.is_empty()
        && change.delete_subgroups.is_empty()
    {
        return Err(Error::bad_request(
            "Nothing to do. Specify at least one of \"add\", \"delete\", \"add_subgroups\" or \
             \"delete_subgroups\".",
        ));
    }
    let actor = actor.clone();
    let realm_url = state.config.chat.external_url.clone();
    state
        .db
        .write(move |tx| {
            let g = for_update(tx, id)?;
            let manage = may_manage(tx, &actor, &g)?;
            let may_add = manage || holds(tx, &actor, g.setting(GroupPermission::AddMembers))?;
            let may_remove =
                manage || holds(tx, &actor, g.setting(GroupPermission::RemoveMembers))?;
            if !change.add.is_empty() {
                let joining = change.add == [actor.id];
                let allowed =
                    may_add || (joining && holds(tx, &actor, g.setting(GroupPermission::Join))?);
                if !allowed {
                    return Err(insufficient());
                }
            }
            if !change.delete.is_empty() {
                let leaving = change.delete == [actor.id];
                let allowed = may_remove
                    || (leaving && holds(tx, &actor, g.setting(GroupPermission::Leave))?);
                if !allowed {
                    return Err(insufficient());
                }
            }
            // Subgroups are added under can_add_members_group, removed by managers only.
            if (!change.add_subgroups.is_empty() && !may_add)
                || (!change.delete_subgroups.is_empty() && !manage)
            {
                return Err(insufficient());
            }
            let mut events = Vec::new();
            let mut added = Vec::new();
            let mut added_users = Vec::new();
            for u in &change.add {
                let user = active_user(tx, *u)?;
                if db::has_direct_member(tx, id, *u)? || added.contains(u) {
                    return Err(Error::bad_request(format!(
                        "User {} is already a member of this group",
                        u.0
                    )));
                }
                added.push(*u);
                added_users.push(user);
            }
            let mut removed = Vec::new();
            let mut removed_users = Vec::new();
            for u in &change.delete {
                let user = active_user(tx, *u)?;
                if !db::has_direct_member(tx, id, *u)? || removed.contains(u) {
                    return Err(Error::bad_request(format!(
                        "There is no member '{}' in this user group",
                        u.0
                    )));
                }
                removed.push(*u);
                removed_users.push(user);
            }
            for u in &added {
                db::add_member(tx, id, *u)?;
            }
            for u in &removed {
                db::remove_member(tx, id, *u)?;
            }
            if !added.is_empty() {
                events.push(Event::UserGroupMembers {
                    group_id: id,
                    user_ids: added,
                    add: true,
                });
            }
            if !removed.is_empty() {
                events.push(Event::UserGroupMembers {
                    group_id: id,
                    user_ids: removed,
                    add: false,
                });
            }
            events.extend(change_subgroups(
                tx,
                id,
                &change.add_subgroups,
                &change.delete_subgroups,
            )?);
            for e in events {
                tx.emit(e);
            }
            notices::group_membership_changed(tx, &actor, &g.name, &added_users, true, &realm_url)?;
            notices::group_membership_changed(
                tx,
                &actor,
                &g.name,
                &removed_users,
                false,
                &realm_url,
            )?;
            Ok(())
        })
        .await
}

/// Adds and removes subgroups (cycles refused); returns the events to emit.
fn change_subgroups(
    c: &Connection,
    id: GroupId,
    add: &[GroupId],
    delete: &[GroupId],
) -> Result<Vec<Event>> {
    let current = db::direct_subgroups(c, id)?;
    let mut added = Vec::new();
    for s in add {
        usable_subgroup(c, *s)?;
        if current.contains(s) || added.contains(s) {
            return Err(Error::bad_request(format!(
                "User group {} is already a subgroup of this group.",
                s.0
            )));
        }
        added.push(*s);
    }
    let mut removed = Vec::new();
    for s in delete {
        db::get(c, *s)?
            .ok_or_else(|| Error::bad_request(format!("Invalid user group ID: {}", s.0)))?;
        if !current.contains(s) || removed.contains(s) {
            return Err(Error::bad_request(format!(
                "User group {} is not a subgroup of this group.",
                s.0
            )));
        }
        removed.push(*s);
    }
    if !added.is_empty() {
        let graph = graph(c)?;
        for s in &added {
            if *s == id || recursive_subgroups(&graph, *s).contains(&id) {
                return Err(Error::bad_request(format!(
                    "User group {} is already a subgroup of one of the passed subgroups.",
                    id.0
                )));
            }
        }
    }
    for s in &added {
        db::add_subgroup(c, id, *s)?;
    }
    for s in &removed {
        db::remove_subgroup(c, id, *s)?;
    }
    let mut events = Vec::new();
    if !added.is_empty() {
        events.push(Event::UserGroupSubgroups {
            group_id: id,
            subgroup_ids: added,
            add: true,
        });
    }
    if !removed.is_empty() {
        events.push(Event::UserGroupSubgroups {
            group_id: id,
            subgroup_ids: removed,
            add: false,
        });
    }
    Ok(events)
}

/// `POST /user_groups/{id}/subgroups`: added under `can_add_members_group`, removed by managers.
pub async fn update_subgroups(
    state: &Core,
    actor: &User,
    id: GroupId,
    add: Vec<GroupId>,
    delete: Vec<GroupId>,
) -> Result<()> {
    check_caller(actor)?;
    if add.is_empty() && delete.is_empty() {
        return Err(Error::bad_request(
            "Nothing to do. Specify at least one of \"add\" or \"delete\".",
        ));
    }
    let actor = actor.clone();
    state
        .db
        .write(move |tx| {
            let g = for_update(tx, id)?;
            let manage = may_manage(tx, &actor, &g)?;
            let may_add = add.is_empty()
                || manage
                || holds(tx, &actor, g.setting(GroupPermission::AddMembers))?;
            if !(may_add && (delete.is_empty() || manage)) {
                return Err(insufficient());
            }
            for e in change_subgroups(tx, id, &add, &delete)? {
                tx.emit(e);
            }
            Ok(())
        })
        .await
}

/// Where a group is in use, as `CANNOT_DEACTIVATE_GROUP_IN_USE` reports it.
#[derive(Clone, Debug, PartialEq)]
pub enum Objection {
    Realm {
        settings: Vec<&'static str>,
    },
    Channel {
        channel_id: i64,
        settings: Vec<&'static str>,
    },
    Group {
        group_id: GroupId,
        settings: Vec<&'static str>,
    },
}

fn names(setting: &GroupSetting, group: GroupId) -> bool {
    match setting {
        GroupSetting::Group(g) => *g == group,
        GroupSetting::Members { groups, .. } => groups.contains(&group),
    }
}

/// The settings (organization, active channels, other active groups) that name `group`.
fn objections(c: &Connection, group: GroupId) -> Result<Vec<Objection>> {
    let mut out = Vec::new();
    let realm: Vec<&'static str> = realm_settings::all(c, "")?
        .into_iter()
        .filter(|(_, v)| matches!(v, crate::model::RealmValue::Group(g) if names(g, group)))
        .map(|(name, _)| name)
        .collect();
    if !realm.is_empty() {
        out.push(Objection::Realm { settings: realm });
    }
    for ch in channels_db::all(c)?
        .into_iter()
        .filter(|ch| !ch.is_archived)
    {
        let settings: Vec<&'static str> = ChannelSetting::ALL
            .iter()
            .zip(&ch.settings)
            .filter(|(_, v)| names(v, group))
            .map(|(s, _)| s.name())
            .collect();
        if !settings.is_empty() {
            out.push(Objection::Channel {
                channel_id: ch.id.0,
                settings,
            });
        }
    }
    for g in db::records(c, false)?.into_iter().filter(|g| g.id != group) {
        let settings: Vec<&'static str> = GroupPermission::ALL
            .iter()
            .zip(&g.settings)
            .filter(|(_, v)| names(v, group))
            .map(|(p, _)| p.name())
            .collect();
        if !settings.is_empty() {
            out.push(Objection::Group {
                group_id: g.id,
                settings,
            });
        }
    }
    Ok(out)
}

/// `POST /user_groups/{id}/deactivate`: refused while a setting names the group.
pub async fn deactivate(state: &Core, actor: &User, id: GroupId) -> Result<()> {
    check_caller(actor)?;
    let actor = actor.clone();
    state
        .db
        .write(move |tx| {
            let mut g = for_update(tx, id)?;
            if !may_manage(tx, &actor, &g)? {
                return Err(insufficient());
            }
            if g.deactivated {
                return Err(Error::bad_request("User group is already deactivated."));
            }
            let objections = objections(tx, id)?;
            if !objections.is_empty() {
                return Err(in_use(objections));
            }
            g.deactivated = true;
            db::update(tx, &g)?;
            tx.emit(Event::UserGroupUpdated {
                group_id: id,
                change: GroupChange::Deactivated,
            });
            Ok(())
        })
        .await
}

/// `CANNOT_DEACTIVATE_GROUP_IN_USE` with its objections (as the error's plain data).
fn in_use(objections: Vec<Objection>) -> Error {
    let list: Vec<serde_json::Value> = objections
        .into_iter()
        .map(|o| {
            let mut m = serde_json::Map::new();
            let (kind, settings) = match o {
                Objection::Realm { settings } => ("realm", settings),
                Objection::Channel {
                    channel_id,
                    settings,
                } => {
                    m.insert("channel_id".into(), channel_id.into());
                    ("channel", settings)
                }
                Objection::Group { group_id, settings } => {
                    m.insert("group_id".into(), group_id.0.into());
                    ("user_group", settings)
                }
            };
            m.insert("type".into(), kind.into());
            m.insert("settings".into(), settings.into());
            serde_json::Value::Object(m)
        })
        .collect();
    Error::coded(
        "CANNOT_DEACTIVATE_GROUP_IN_USE",
        "Cannot deactivate user group in use.",
        vec![("objections", serde_json::Value::Array(list))],
    )
}

/// The system groups' membership events of a role change: the user leaves the system group of
/// `old` and joins that of `new` (`None`: not an active user).
pub fn role_events(user: UserId, old: Option<Role>, new: Option<Role>) -> Vec<Event> {
    if old == new {
        return Vec::new();
    }
    let mut events = Vec::new();
    if let Some(role) = old {
        events.push(Event::UserGroupMembers {
            group_id: sys::of_role(role),
            user_ids: vec![user],
            add: false,
        });
    }
    if let Some(role) = new {
        events.push(Event::UserGroupMembers {
            group_id: sys::of_role(role),
            user_ids: vec![user],
            add: true,
        });
    }
    events
}

/// Removes a user being deactivated from every named group, inside the deactivation's write;
/// returns the events to emit.
pub fn remove_from_all(c: &Connection, user: UserId) -> Result<Vec<Event>> {
    let mut events = Vec::new();
    for g in db::groups_of(c, user)? {
        db::remove_member(c, g, user)?;
        events.push(Event::UserGroupMembers {
            group_id: g,
            user_ids: vec![user],
            add: false,
        });
    }
    Ok(events)
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
