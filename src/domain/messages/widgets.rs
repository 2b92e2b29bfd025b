//! Message widgets: the poll or to-do list a message starting with `/poll` or `/todo` carries
//! as its first submessage, and the rules for the submessages readers add to it
//! (`POST /submessage`: votes, new options, tasks, strikes). Upstream's rules: the message's
//! sender attaches the first submessage; a widget's data is checked against its type; only the
//! author may change a poll's question or a list's title. Must not build SQL.

use serde_json::{Map, Value};

use crate::db::submessages as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, SubmessageAdded};
use crate::ids::MessageId;
use crate::model::User;

/// Largest submessage content accepted, in bytes.
pub const MAX_CONTENT_BYTES: usize = 10_000;
/// Highest option or task index a widget may use (upstream's clients use the same bound).
const MAX_IDX: i64 = 1000;

/// The widget submessage content (`{"widget_type", "extra_data"}`) a message's Markdown source
/// starts, if its first word is `/poll` or `/todo`.
pub fn widget_for(content: &str) -> Option<Value> {
    let first = content.split_whitespace().next()?;
    let kind = match first {
        "/poll" => "poll",
        "/todo" => "todo",
        _ => return None,
    };
    let rest = content.replacen(first, "", 1);
    let mut lines = rest.lines();
    let title = lines.next().map(str::trim).unwrap_or("").to_string();
    // List markers (`-` or `*`) before an option or task are dropped.
    let items: Vec<String> = lines
        .map(|l| {
            let l = l.trim();
            l.strip_prefix(['-', '*']).map(str::trim_start).unwrap_or(l)
        })
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    let mut extra = Map::new();
    if kind == "poll" {
        extra.insert("question".into(), Value::from(title));
        extra.insert("options".into(), Value::from(items));
    } else {
        extra.insert("task_list_title".into(), Value::from(title));
        let tasks: Vec<Value> = items
            .iter()
            .map(|t| {
                let (task, desc) = t.split_once(": ").unwrap_or((t, ""));
                let mut o = Map::new();
                o.insert("task".into(), Value::from(task.trim()));
                o.insert("desc".into(), Value::from(desc.trim()));
                Value::Object(o)
            })
            .collect();
        extra.insert("tasks".into(), Value::from(tasks));
    }
    let mut w = Map::new();
    w.insert("widget_type".into(), Value::from(kind));
    w.insert("extra_data".into(), Value::Object(extra));
    Some(Value::Object(w))
}

/// A field check of `data`: the exact keys it must have, each with its type check.
type Check = (&'static str, fn(&Value) -> bool);

fn is_str(v: &Value) -> bool {
    v.is_string()
}
fn is_bool(v: &Value) -> bool {
    v.is_boolean()
}
fn is_vote(v: &Value) -> bool {
    matches!(v.as_i64(), Some(1 | -1))
}
fn is_idx(v: &Value) -> bool {
    v.as_i64().is_some_and(|n| (0..=MAX_IDX).contains(&n))
}

/// `data` must be an object with exactly these keys, each passing its check.
fn exactly(what: &str, data: &Map<String, Value>, checks: &[Check]) -> Result<()> {
    for (key, ok) in checks {
        match data.get(*key) {
            None => {
                return Err(Error::bad_request(format!(
                    "{key} key is missing from {what}"
                )));
            }
            Some(v) if !ok(v) => {
                return Err(Error::bad_request(format!(
                    "{what}[\"{key}\"] is not valid"
                )));
            }
            Some(_) => {}
        }
    }
    let extra: Vec<&str> = data
        .keys()
        .filter(|k| !checks.iter().any(|(c, _)| c == k))
        .map(String::as_str)
        .collect();
    if !extra.is_empty() {
        return Err(Error::bad_request(format!(
            "Unexpected arguments: {}",
            extra.join(", ")
        )));
    }
    Ok(())
}

/// Checks a reader's submessage against the message's widget type.
fn check_data(widget: &str, data: &Value, is_author: bool) -> Result<()> {
    let what = format!("{widget} data");
    let Some(obj) = data.as_object() else {
        return Err(Error::bad_request(format!("{what} is not a dict")));
    };
    let Some(kind) = obj.get("type").and_then(Value::as_str) else {
        return Err(Error::bad_request(format!(
            "type key is missing from {what}"
        )));
    };
    let t: Check = ("type", is_str);
    match (widget, kind) {
        ("poll", "vote") => exactly(&what, obj, &[t, ("key", is_str), ("vote", is_vote)]),
        ("poll", "question") if !is_author => Err(Error::bad_request(
            "You can't edit a question unless you are the author.",
        )),
        ("poll", "question") => exactly(&what, obj, &[t, ("question", is_str)]),
        ("poll", "new_option") => exactly(&what, obj, &[t, ("option", is_str), ("idx", is_idx)]),
        ("todo", "new_task") => exactly(
            &what,
            obj,
            &[
                t,
                ("key", is_idx),
                ("task", is_str),
                ("desc", is_str),
                ("completed", is_bool),
            ],
        ),
        ("todo", "strike") => exactly(&what, obj, &[t, ("key", is_str)]),
        ("todo", "new_task_list_title") if !is_author => Err(Error::bad_request(
            "You can't edit the task list title unless you are the author.",
        )),
        ("todo", "new_task_list_title") => exactly(&what, obj, &[t, ("title", is_str)]),
        _ => Err(Error::bad_request(format!(
            "Unknown type for {what}: {kind}"
        ))),
    }
}

/// `POST /submessage`: attaches `content` (JSON text) to a message the caller can read.
pub async fn add(
    state: &Core,
    user: &User,
    message: MessageId,
    msg_type: String,
    content: String,
) -> Result<()> {
    if content.len() > MAX_CONTENT_BYTES {
        return Err(Error::bad_request(format!(
            "Submessage content is too long (at most {MAX_CONTENT_BYTES} bytes)"
        )));
    }
    if msg_type.is_empty() || msg_type.len() > 100 || msg_type.chars().any(char::is_control) {
        return Err(Error::bad_request("Invalid msg_type"));
    }
    let data: Value = serde_json::from_str(&content)
        .map_err(|_| Error::bad_request("Invalid json for submessage"))?;
    let user = user.clone();
    state
        .db
        .write(move |tx| {
            let m = super::readable(tx, &user, message)?.message;
            // The sender starts a message's submessages; then its readers may add theirs.
            if m.sender_id != user.id && !db::has_any_from(tx, message, m.sender_id)? {
                return Err(Error::bad_request(
                    "You cannot attach a submessage to this message.",
                ));
            }
            let widget = db::widget_content(tx, message)?
                .and_then(|c| serde_json::from_str::<Value>(&c).ok())
                .and_then(|w| w.get("widget_type")?.as_str().map(str::to_string));
            if let Some(widget @ ("poll" | "todo")) = widget.as_deref() {
                check_data(widget, &data, m.sender_id == user.id)?;
            }
            let id = db::insert(tx, message, user.id, &msg_type, &content)?;
            tx.emit(Event::SubmessageAdded(SubmessageAdded {
                message_id: message,
                submessage_id: id,
                sender_id: user.id,
                msg_type,
                content,
            }));
            Ok(())
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn poll_and_todo_commands_carry_their_widget() {
        assert_eq!(
            widget_for("/poll Lunch?\n- pizza\n* sushi\n\n  tacos  "),
            Some(json!({"widget_type": "poll", "extra_data": {
                "question": "Lunch?", "options": ["pizza", "sushi", "tacos"]}}))
        );
        assert_eq!(
            widget_for("/todo Release\nbuild: on 2 cores\n- test"),
            Some(json!({"widget_type": "todo", "extra_data": {
                "task_list_title": "Release",
                "tasks": [{"task": "build", "desc": "on 2 cores"}, {"task": "test", "desc": ""}]}}))
        );
        assert_eq!(
            widget_for("/poll"),
            Some(json!({"widget_type": "poll", "extra_data": {"question": "", "options": []}}))
        );
        assert_eq!(widget_for("/polls are fun"), None);
        assert_eq!(widget_for("hello /poll"), None);
    }

    #[test]
    fn reader_data_is_checked_against_the_widget() {
        assert!(
            check_data(
                "poll",
                &json!({"type": "vote", "key": "1,2", "vote": 1}),
                false
            )
            .is_ok()
        );
        assert!(
            check_data(
                "poll",
                &json!({"type": "vote", "key": "1,2", "vote": 2}),
                false
            )
            .is_err()
        );
        assert!(
            check_data(
                "poll",
                &json!({"type": "vote", "key": "k", "vote": 1, "x": 1}),
                false
            )
            .is_err()
        );
        assert_eq!(
            check_data("poll", &json!({"type": "question", "question": "q"}), false)
                .unwrap_err()
                .msg,
            "You can't edit a question unless you are the author."
        );
        assert!(
            check_data(
                "poll",
                &json!({"type": "new_option", "option": "o", "idx": 1001}),
                true
            )
            .is_err()
        );
        assert!(
            check_data(
                "todo",
                &json!({"type": "new_task", "key": 3, "task": "t", "desc": "", "completed": false}),
                false
            )
            .is_ok()
        );
        assert!(check_data("todo", &json!({"type": "strike", "key": "3,1"}), false).is_ok());
        assert!(check_data("todo", &json!({"type": "explode"}), true).is_err());
        assert!(check_data("todo", &json!([1]), true).is_err());
    }
}
