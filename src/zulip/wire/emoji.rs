//! Custom emoji as the chat API shows them: the `RealmEmoji` objects of `GET /realm/emoji`,
//! register's `realm_emoji` and the `realm_emoji` event.

use serde_json::{Map, Value, json};

use crate::domain::realm_emoji::{source_url, still_url};
use crate::model::uploads::RealmEmoji;

/// One emoji (upstream's `RealmEmoji` schema).
pub fn realm_emoji(e: &RealmEmoji) -> Value {
    json!({
        "id": e.id.to_string(),
        "name": e.name,
        "source_url": source_url(e),
        "still_url": still_url(e),
        "deactivated": e.deactivated,
        "author_id": e.author_id.map(|u| u.0),
    })
}

/// Every emoji keyed by its id as a string.
pub fn realm_emoji_map(all: &[RealmEmoji]) -> Value {
    let mut m = Map::new();
    for e in all {
        m.insert(e.id.to_string(), realm_emoji(e));
    }
    Value::Object(m)
}

/// The `realm_emoji` `update` event: the whole set.
pub fn realm_emoji_event(all: &[RealmEmoji]) -> Value {
    json!({"type": "realm_emoji", "op": "update", "realm_emoji": realm_emoji_map(all)})
}
