//! Uploads on the wire: `POST /user_uploads`' answer fields, `GET /attachments`' attachment
//! dictionaries and the `attachment` event (feature level 382 shapes: `create_time` and
//! `date_sent` in milliseconds, `messages` as `{id, date_sent}`).

use serde_json::{Value, json};

use crate::events::AttachmentChange;
use crate::model::uploads::AttachmentView;

/// One attachment dictionary.
pub fn attachment(v: &AttachmentView) -> Value {
    let a = &v.attachment;
    json!({
        "id": a.id,
        "name": a.name,
        "path_id": a.path_id,
        "size": a.size,
        "create_time": a.create_time * 1000,
        "messages": v.messages.iter().map(|m| json!({
            "id": m.id.0,
            "date_sent": m.date_sent * 1000,
        })).collect::<Vec<_>>(),
    })
}

/// An `attachment` event (`add`, `update` or `remove`).
pub fn attachment_event(change: &AttachmentChange, upload_space_used: i64) -> Value {
    let (op, attachment) = match change {
        AttachmentChange::Added(v) => ("add", attachment(v)),
        AttachmentChange::Updated(v) => ("update", attachment(v)),
        AttachmentChange::Removed(id) => ("remove", json!({"id": id})),
    };
    json!({
        "type": "attachment",
        "op": op,
        "attachment": attachment,
        "upload_space_used": upload_space_used,
    })
}
