//! Scheduled messages and reminders as clients see them (upstream's `ScheduledMessage` and
//! reminder objects).

use serde_json::{Value, json};

use crate::model::{Scheduled, ScheduledKind, ScheduledState};

/// One scheduled message or reminder.
pub fn item(s: &Scheduled) -> Value {
    let failed = s.state == ScheduledState::Failed;
    match s.kind {
        ScheduledKind::Message => {
            let mut v = json!({
                "scheduled_message_id": s.id.0,
                "content": s.content,
                "rendered_content": s.rendered_content,
                "scheduled_delivery_timestamp": s.deliver_at,
                "failed": failed,
            });
            match s.channel_id {
                Some(ch) => {
                    v["type"] = json!("stream");
                    v["to"] = json!(ch.0);
                    v["topic"] = json!(s.topic);
                }
                None => {
                    v["type"] = json!("private");
                    let to: Vec<i64> = s.recipients.iter().map(|u| u.0).collect();
                    v["to"] = json!(to);
                }
            }
            v
        }
        ScheduledKind::Reminder => json!({
            "reminder_id": s.id.0,
            "type": "private",
            "to": [s.owner.0],
            "content": s.content,
            "rendered_content": s.rendered_content,
            "scheduled_delivery_timestamp": s.deliver_at,
            "failed": failed,
            "reminder_target_message_id": s.target_message_id.map(|m| m.0),
        }),
    }
}

/// A list of items.
pub fn items(list: &[Scheduled]) -> Value {
    Value::Array(list.iter().map(item).collect())
}
