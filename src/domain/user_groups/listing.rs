//! Reading groups for the group endpoints: the list of groups, a group's members and
//! subgroups (direct or through nesting), and whether a user is a member. Reads only.

use crate::db::groups as db;
use crate::domain::core::Core;
use crate::error::Result;
use crate::ids::{GroupId, UserId};
use crate::model::{GroupListing, GroupSetting, User, system_groups as sys};

use super::checks::{active_user, check_caller, invalid_group};
use super::permission::{graph, holds, recursive_subgroups, users_holding};

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
