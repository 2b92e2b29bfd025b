//! User group endpoints (`/user_groups*`).

use serde_json::Value;

use crate::domain::user_groups::{self, GroupUpdate, MemberChange, NewGroup, SettingChange};
use crate::error::{Error, Result};
use crate::ids::{GroupId, UserId};
use crate::model::{GroupPermission, User};
use crate::zulip::ChatState;

use super::channels::int_list;
use super::envelope::Success;
use super::params::Params;
use super::wire;

/// A group-setting value: a group id, or an object with both `direct_members` and
/// `direct_subgroups`.
fn parse_group_setting(name: &str, v: &Value) -> Result<crate::model::GroupSetting> {
    if let Value::Object(o) = v
        && !(o.contains_key("direct_members") && o.contains_key("direct_subgroups"))
    {
        return Err(Error::bad_request(format!(
            "{name} is not a valid group-setting value"
        )));
    }
    crate::domain::channels::parse_group_setting(name, v)
}

fn user_ids(p: &mut Params, name: &str) -> Result<Vec<UserId>> {
    Ok(int_list(p, name)?
        .unwrap_or_default()
        .into_iter()
        .map(UserId)
        .collect())
}

fn group_ids(p: &mut Params, name: &str) -> Result<Vec<GroupId>> {
    Ok(int_list(p, name)?
        .unwrap_or_default()
        .into_iter()
        .map(GroupId)
        .collect())
}

/// # `GET /api/v1/user_groups`
pub async fn list(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let include = p.bool("include_deactivated_groups")?.unwrap_or(false);
    let groups = user_groups::list(state, caller, include).await?;
    let list: Vec<Value> = groups.iter().map(wire::user_group).collect();
    Ok(Success::new().field("user_groups", list))
}

/// # `POST /api/v1/user_groups/create`
pub async fn create(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let name = p.required_str("name")?;
    let description = p.required_str("description")?;
    if p.json("members")?.is_none() {
        return Err(Error::missing("members"));
    }
    let mut new = NewGroup {
        name,
        description,
        members: Vec::new(),
        subgroups: group_ids(p, "subgroups")?,
        settings: Vec::new(),
    };
    new.members = user_ids(p, "members")?;
    for which in GroupPermission::ALL {
        if let Some(v) = p.json(which.name())? {
            new.settings
                .push((which, parse_group_setting(which.name(), &v)?));
        }
    }
    let id = user_groups::create(state, caller, new).await?;
    Ok(Success::new().field("group_id", id.0))
}

/// # `PATCH /api/v1/user_groups/{user_group_id}`
///
/// Name, description and permission settings (`{"new": ..., "old": ...}`).
pub async fn update(state: &ChatState, caller: &User, id: i64, p: &mut Params) -> Result<Success> {
    let mut up = GroupUpdate {
        name: p.str("name"),
        description: p.str("description"),
        settings: Vec::new(),
    };
    for which in GroupPermission::ALL {
        let Some(v) = p.json(which.name())? else {
            continue;
        };
        let Value::Object(o) = &v else {
            return Err(Error::bad_request(format!(
                "{} is not a dict",
                which.name()
            )));
        };
        let new = o
            .get("new")
            .ok_or_else(|| Error::bad_request(format!("{}[\"new\"] is missing", which.name())))?;
        up.settings.push(SettingChange {
            which,
            new: parse_group_setting(which.name(), new)?,
            old: o
                .get("old")
                .map(|old| parse_group_setting(which.name(), old))
                .transpose()?,
        });
    }
    user_groups::update(state, caller, GroupId(id), up).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/user_groups/{user_group_id}/members`
pub async fn update_members(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let change = MemberChange {
        add: user_ids(p, "add")?,
        delete: user_ids(p, "delete")?,
        add_subgroups: group_ids(p, "add_subgroups")?,
        delete_subgroups: group_ids(p, "delete_subgroups")?,
    };
    user_groups::update_members(state, caller, GroupId(id), change).await?;
    Ok(Success::new())
}

/// # `GET /api/v1/user_groups/{user_group_id}/members`
pub async fn members(state: &ChatState, caller: &User, id: i64, p: &mut Params) -> Result<Success> {
    let direct = p.bool("direct_member_only")?.unwrap_or(false);
    let ids = user_groups::members(state, caller, GroupId(id), direct).await?;
    Ok(Success::new().field("members", ids.iter().map(|u| u.0).collect::<Vec<_>>()))
}

/// # `GET /api/v1/user_groups/{user_group_id}/members/{user_id}`
pub async fn is_member(
    state: &ChatState,
    caller: &User,
    id: i64,
    user: i64,
    p: &mut Params,
) -> Result<Success> {
    let direct = p.bool("direct_member_only")?.unwrap_or(false);
    let is = user_groups::is_member(state, caller, GroupId(id), UserId(user), direct).await?;
    Ok(Success::new().field("is_user_group_member", is))
}

/// # `POST /api/v1/user_groups/{user_group_id}/subgroups`
pub async fn update_subgroups(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let add = group_ids(p, "add")?;
    let delete = group_ids(p, "delete")?;
    user_groups::update_subgroups(state, caller, GroupId(id), add, delete).await?;
    Ok(Success::new())
}

/// # `GET /api/v1/user_groups/{user_group_id}/subgroups`
pub async fn subgroups(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let direct = p.bool("direct_subgroup_only")?.unwrap_or(false);
    let ids = user_groups::subgroups(state, caller, GroupId(id), direct).await?;
    Ok(Success::new().field("subgroups", ids.iter().map(|g| g.0).collect::<Vec<_>>()))
}

/// # `POST /api/v1/user_groups/{user_group_id}/deactivate`
pub async fn deactivate(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    user_groups::deactivate(state, caller, GroupId(id)).await?;
    Ok(Success::new())
}
