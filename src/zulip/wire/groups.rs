//! JSON shapes of user groups (the User group record of `GET /user_groups`, register's
//! `realm_user_groups` and the `user_group` add event), and the objections that keep a group
//! from being deactivated (`CANNOT_DEACTIVATE_GROUP_IN_USE`).

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::GroupObjection;

use crate::model::{GroupListing, GroupPermission};

use super::group_setting;

/// A group with its active direct members and direct subgroups.
pub fn user_group(l: &GroupListing) -> Value {
    let g = &l.group;
    let mut m = Map::new();
    m.insert("id".into(), json!(g.id.0));
    m.insert("name".into(), json!(g.name));
    m.insert("description".into(), json!(g.description));
    m.insert(
        "members".into(),
        json!(l.members.iter().map(|u| u.0).collect::<Vec<_>>()),
    );
    m.insert(
        "direct_subgroup_ids".into(),
        json!(l.direct_subgroups.iter().map(|s| s.0).collect::<Vec<_>>()),
    );
    m.insert("creator_id".into(), json!(g.creator_id.map(|u| u.0)));
    m.insert("date_created".into(), json!(g.date_created));
    m.insert("is_system_group".into(), json!(g.is_system_group));
    m.insert("deactivated".into(), json!(g.deactivated));
    for p in GroupPermission::ALL {
        m.insert(p.name().into(), group_setting(g.setting(p)));
    }
    Value::Object(m)
}

/// One objection of `CANNOT_DEACTIVATE_GROUP_IN_USE`: `{"type": "realm" | "channel" |
/// "user_group", "settings": [...]}` with the `channel_id` or `group_id` it names. Fields in
/// alphabetical order, as a `serde_json::Map` keeps them.
#[derive(Serialize)]
struct ObjectionRecord<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    channel_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    group_id: Option<i64>,
    settings: &'a [&'static str],
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The `objections` list of `CANNOT_DEACTIVATE_GROUP_IN_USE`, in the order given.
pub fn group_objections(objections: &[GroupObjection]) -> Value {
    let records: Vec<ObjectionRecord<'_>> = objections
        .iter()
        .map(|o| match o {
            GroupObjection::Realm { settings } => ObjectionRecord {
                channel_id: None,
                group_id: None,
                settings,
                kind: "realm",
            },
            GroupObjection::Channel {
                channel_id,
                settings,
            } => ObjectionRecord {
                channel_id: Some(*channel_id),
                group_id: None,
                settings,
                kind: "channel",
            },
            GroupObjection::Group { group_id, settings } => ObjectionRecord {
                channel_id: None,
                group_id: Some(*group_id),
                settings,
                kind: "user_group",
            },
        })
        .collect();
    serde_json::to_value(records).expect("objections serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objections_name_what_they_are_in_order() {
        let list = [
            GroupObjection::Realm {
                settings: vec!["can_create_groups"],
            },
            GroupObjection::Channel {
                channel_id: 4,
                settings: vec!["can_send_message_group"],
            },
            GroupObjection::Group {
                group_id: 9,
                settings: vec!["can_mention_group", "can_join_group"],
            },
        ];
        assert_eq!(
            group_objections(&list).to_string(),
            r#"[{"settings":["can_create_groups"],"type":"realm"},{"channel_id":4,"settings":["can_send_message_group"],"type":"channel"},{"group_id":9,"settings":["can_mention_group","can_join_group"],"type":"user_group"}]"#
        );
        assert_eq!(group_objections(&[]), json!([]));
    }
}
