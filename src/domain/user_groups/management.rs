//! Creating, changing (name, description, permission settings) and deactivating named
//! groups, under the organization's `can_create_groups` and each group's managers. Members and
//! subgroups are `membership`; what stops a deactivation is `objections`.

use crate::db::groups as db;
use crate::domain::core::Core;
use crate::domain::realm_settings;
use crate::error::{Error, Result};
use crate::events::{Event, GroupChange, UserGroupAdded, UserGroupUpdated};
use crate::ids::{GroupId, UserId};
use crate::model::{GroupPermission, GroupSetting, User, UserGroup};

use super::checks::{
    active_user, check_caller, check_description, check_name, check_setting, for_update,
    insufficient, name_free, usable_subgroup,
};
use super::objections::{in_use, objections};
use super::permission::{holds_realm, may_manage};

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
            if !holds_realm(tx, &actor, realm_settings::CAN_CREATE_GROUPS)? {
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
            tx.emit(Event::UserGroupAdded(UserGroupAdded { group_id: group.id }));
            Ok(group.id)
        })
        .await
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
                tx.emit(Event::UserGroupUpdated(UserGroupUpdated {
                    group_id: id,
                    change,
                }));
            }
            Ok(())
        })
        .await
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
            tx.emit(Event::UserGroupUpdated(UserGroupUpdated {
                group_id: id,
                change: GroupChange::Deactivated,
            }));
            Ok(())
        })
        .await
}
