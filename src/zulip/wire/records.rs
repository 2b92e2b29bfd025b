//! Shapes of the records a user keeps on the server: muted users, drafts and saved snippets,
//! as `GET /drafts`, `GET /saved_snippets`, register and their events show them.

use serde_json::{Value, json};

use crate::events::{DraftChange, SnippetChange};
use crate::model::records::{Draft, MutedUser, SavedSnippet};

/// One entry of `muted_users`.
pub fn muted_users(list: &[MutedUser]) -> Value {
    Value::Array(
        list.iter()
            .map(|m| json!({"id": m.id.0, "timestamp": m.timestamp}))
            .collect(),
    )
}

/// A draft object.
pub fn draft(d: &Draft) -> Value {
    json!({
        "id": d.id,
        "type": d.kind.name(),
        "to": d.to,
        "topic": d.topic,
        "content": d.content,
        "timestamp": d.timestamp,
    })
}

/// A saved snippet object.
pub fn saved_snippet(s: &SavedSnippet) -> Value {
    json!({
        "id": s.id,
        "title": s.title,
        "content": s.content,
        "date_created": s.date_created,
    })
}

/// The `muted_users` event: the whole new list.
pub fn muted_users_event(list: &[MutedUser]) -> Value {
    json!({"type": "muted_users", "muted_users": muted_users(list)})
}

/// A `drafts` event (`add`, `update` or `remove`).
pub fn drafts_event(change: &DraftChange) -> Value {
    match change {
        DraftChange::Added(list) => json!({
            "type": "drafts",
            "op": "add",
            "drafts": list.iter().map(draft).collect::<Vec<_>>(),
        }),
        DraftChange::Updated(d) => json!({"type": "drafts", "op": "update", "draft": draft(d)}),
        DraftChange::Removed(id) => json!({"type": "drafts", "op": "remove", "draft_id": id}),
    }
}

/// A `saved_snippets` event (`add`, `update` or `remove`).
pub fn saved_snippets_event(change: &SnippetChange) -> Value {
    match change {
        SnippetChange::Added(s) => {
            json!({"type": "saved_snippets", "op": "add", "saved_snippet": saved_snippet(s)})
        }
        SnippetChange::Updated(s) => {
            json!({"type": "saved_snippets", "op": "update", "saved_snippet": saved_snippet(s)})
        }
        SnippetChange::Removed(id) => {
            json!({"type": "saved_snippets", "op": "remove", "saved_snippet_id": id})
        }
    }
}
