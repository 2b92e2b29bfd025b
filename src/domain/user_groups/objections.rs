//! What refuses a group's deactivation: the settings (organization, active channels, other
//! active groups) that still name it, and the error that reports them (as plain data: the chat
//! API's wire renders `CANNOT_DEACTIVATE_GROUP_IN_USE`). Reads only; never changes a setting;
//! builds no JSON.

use rusqlite::Connection;

use crate::db::{channels as channels_db, groups as db};
use crate::domain::realm_settings;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::GroupId;
use crate::model::{ChannelSetting, GroupPermission, GroupSetting};

/// Where a group is in use: the error's plain data (`crate::error::GroupObjection`).
pub use crate::error::GroupObjection as Objection;

fn names(setting: &GroupSetting, group: GroupId) -> bool {
    match setting {
        GroupSetting::Group(g) => *g == group,
        GroupSetting::Members { groups, .. } => groups.contains(&group),
    }
}

/// The settings (organization, active channels, other active groups) that name `group`.
pub(super) fn objections(c: &Connection, group: GroupId) -> Result<Vec<Objection>> {
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
                group_id: g.id.0,
                settings,
            });
        }
    }
    Ok(out)
}

/// The refusal of a deactivation, with its objections as plain data (each API renders them).
pub(super) fn in_use(objections: Vec<Objection>) -> Error {
    Error::new(
        ErrorKind::GroupInUse(objections),
        "Cannot deactivate user group in use.",
    )
}
