//! Tag resource shapes: the tag listing's rows, tagged projects and policies, a policy's tags,
//! and the `Tag operation failed` problem.
//!
//! Must not touch the database.

use serde_json::{Map, Value, json};

use crate::domain::dtrack::tags::{TagRow, TaggedProject};

/// A row of `GET /tag` (`TagListResponseItem`); notification rules are not served, so none
/// carries a tag.
pub fn row(r: &TagRow) -> Value {
    json!({
        "name": r.name,
        "projectCount": r.project_count,
        "collectionProjectCount": r.collection_project_count,
        "policyCount": r.policy_count,
        "notificationRuleCount": 0,
    })
}

/// A project of `GET /tag/{name}/project` and `/collectionProject`.
pub fn project(p: &TaggedProject) -> Value {
    let mut m = Map::new();
    m.insert("uuid".into(), Value::from(p.uuid.as_str()));
    m.insert("name".into(), Value::from(p.name.as_str()));
    if let Some(v) = &p.version {
        m.insert("version".into(), Value::from(v.as_str()));
    }
    Value::Object(m)
}

/// A policy of `GET /tag/{name}/policy`.
pub fn policy(uuid: &str, name: &str) -> Value {
    json!({"uuid": uuid, "name": name})
}

/// A tag as upstream's `Tag` serialises.
pub fn tag(name: &str) -> Value {
    json!({"name": name})
}

/// The 400 problem of a refused deletion, with the reason per tag.
pub fn deletion_refused(refused: &[(String, String)]) -> Value {
    let list: Vec<&str> = refused.iter().map(|(n, _)| n.as_str()).collect();
    let errors: Map<String, Value> = refused
        .iter()
        .map(|(n, why)| (n.clone(), Value::from(why.as_str())))
        .collect();
    json!({
        "status": 400,
        "title": "Tag operation failed",
        "detail": format!("The tag(s) {} could not be deleted", list.join(",")),
        "errors": errors,
    })
}
