//! Who is in a named group: adding and removing members (joining and leaving included) and
//! subgroups (cycles refused) under the group's permissions, and the membership events of
//! role changes and deactivations (system groups follow roles). Never changes a group's
//! name, description or settings (that is `management`).

use rusqlite::Connection;

use crate::db::groups as db;
use crate::domain::core::Core;
use crate::domain::notices;
use crate::error::{Error, Result};
use crate::events::{Event, UserGroupMembers, UserGroupSubgroups};
use crate::ids::{GroupId, UserId};
use crate::model::{GroupPermission, Role, User, system_groups as sys};

use super::checks::{active_user, check_caller, for_update, insufficient, usable_subgroup};
use super::permission::{graph, holds, may_manage, recursive_subgroups};

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
                events.push(Event::UserGroupMembers(UserGroupMembers {
                    group_id: id,
                    user_ids: added,
                    add: true,
                }));
            }
            if !removed.is_empty() {
                events.push(Event::UserGroupMembers(UserGroupMembers {
                    group_id: id,
                    user_ids: removed,
                    add: false,
                }));
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
        events.push(Event::UserGroupSubgroups(UserGroupSubgroups {
            group_id: id,
            subgroup_ids: added,
            add: true,
        }));
    }
    if !removed.is_empty() {
        events.push(Event::UserGroupSubgroups(UserGroupSubgroups {
            group_id: id,
            subgroup_ids: removed,
            add: false,
        }));
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

/// The system groups' membership events of a role change: the user leaves the system group of
/// `old` and joins that of `new` (`None`: not an active user).
pub fn role_events(user: UserId, old: Option<Role>, new: Option<Role>) -> Vec<Event> {
    if old == new {
        return Vec::new();
    }
    let mut events = Vec::new();
    if let Some(role) = old {
        events.push(Event::UserGroupMembers(UserGroupMembers {
            group_id: sys::of_role(role),
            user_ids: vec![user],
            add: false,
        }));
    }
    if let Some(role) = new {
        events.push(Event::UserGroupMembers(UserGroupMembers {
            group_id: sys::of_role(role),
            user_ids: vec![user],
            add: true,
        }));
    }
    events
}

/// Removes a user being deactivated from every named group, inside the deactivation's write;
/// returns the events to emit.
pub fn remove_from_all(c: &Connection, user: UserId) -> Result<Vec<Event>> {
    let mut events = Vec::new();
    for g in db::groups_of(c, user)? {
        db::remove_member(c, g, user)?;
        events.push(Event::UserGroupMembers(UserGroupMembers {
            group_id: g,
            user_ids: vec![user],
            add: false,
        }));
    }
    Ok(events)
}
