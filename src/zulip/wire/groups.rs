//! JSON shapes of user groups (the User group record of `GET /user_groups`, register's
//! `realm_user_groups` and the `user_group` add event).

use serde_json::{Map, Value, json};

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
