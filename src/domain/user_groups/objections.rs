//! What refuses a group's deactivation: the settings (organization, active channels, other
//! active groups) that still name it, and the `CANNOT_DEACTIVATE_GROUP_IN_USE` error that
//! reports them. Reads only; never changes a setting.

use rusqlite::Connection;

use crate::db::{channels as channels_db, groups as db};
use crate::domain::realm_settings;
use crate::error::{Error, Result};
use crate::ids::GroupId;
use crate::model::{ChannelSetting, GroupPermission, GroupSetting};

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
                group_id: g.id,
                settings,
            });
        }
    }
    Ok(out)
}

/// `CANNOT_DEACTIVATE_GROUP_IN_USE` with its objections (as the error's plain data).
pub(super) fn in_use(objections: Vec<Objection>) -> Error {
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
