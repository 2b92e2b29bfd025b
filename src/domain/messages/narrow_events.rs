//! Narrows on event queues: which terms a queue's filter can evaluate (upstream's rule for
//! `POST /register`), resolving their operands once at registration, and matching each new
//! message against them, negated terms included.
//!
//! A queue sees a message only after delivery decided the owner may read it, so matching needs
//! no database: channel and sender operands are resolved to ids when the queue is registered,
//! the way `GET /messages` resolves them for the same viewer; a channel name that names no
//! channel the owner may know of then is kept and compared with the message's channel name, so a
//! queue can wait for a channel created (or joined) later. Must not build SQL.

use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::model::{Message, Narrow, NarrowTerm, Operand, RESOLVED_TOPIC_PREFIX, User};

use super::narrow::{channel_ref, topic_operand, user_ref};

/// Operators an event queue's narrow may use.
const QUEUE_OPERATORS: [&str; 5] = ["channel", "stream", "topic", "sender", "is"];

/// `is:` operands an event queue's narrow may use: those decided by the message and the flags
/// it is delivered with.
const QUEUE_IS_OPERANDS: [&str; 7] = [
    "dm",
    "private",
    "starred",
    "unread",
    "mentioned",
    "alerted",
    "resolved",
];

impl Narrow {
    /// Refuses terms an event queue cannot evaluate, with upstream's errors ("Operator X not
    /// supported.", "Operand X not supported.").
    pub fn check_for_events(&self) -> Result<()> {
        for t in &self.terms {
            if !QUEUE_OPERATORS.contains(&t.operator.as_str()) {
                return Err(Error::bad_request(format!(
                    "Operator {} not supported.",
                    t.operator
                )));
            }
            if t.operator == "is"
                && !t
                    .operand
                    .as_str()
                    .is_some_and(|o| QUEUE_IS_OPERANDS.contains(&o))
            {
                return Err(Error::bad_request(format!(
                    "Operand {} not supported.",
                    super::narrow::display(&t.operand)
                )));
            }
        }
        Ok(())
    }

    /// Whether a new message passes this queue narrow (resolved by [`for_queue`]), given its
    /// channel's name and the flags it is delivered with: every term holds, or fails when
    /// negated.
    pub fn matches(&self, message: &Message, channel_name: Option<&str>, flags: &[&str]) -> bool {
        self.terms
            .iter()
            .all(|t| term_matches(t, message, channel_name, flags) != t.negated)
    }
}

fn term_matches(t: &NarrowTerm, m: &Message, channel_name: Option<&str>, flags: &[&str]) -> bool {
    let has = |f: &str| flags.contains(&f);
    match (t.operator.as_str(), &t.operand) {
        ("channel" | "stream", Operand::Int(id)) => m.channel_id.is_some_and(|c| c.0 == *id),
        ("channel" | "stream", Operand::Str(name)) => {
            m.channel_id.is_some()
                && channel_name.is_some_and(|n| n.eq_ignore_ascii_case(name.trim()))
        }
        ("topic", Operand::Str(topic)) => {
            m.channel_id.is_some() && m.topic.eq_ignore_ascii_case(topic)
        }
        ("sender", Operand::Int(id)) => m.sender_id.0 == *id,
        ("is", Operand::Str(what)) => match what.as_str() {
            "dm" | "private" => m.conversation_id.is_some(),
            "starred" => has("starred"),
            "mentioned" => has("mentioned") || has("wildcard_mentioned"),
            "unread" => !has("read"),
            "alerted" => has("has_alert_word"),
            "resolved" => m.channel_id.is_some() && m.topic.starts_with(RESOLVED_TOPIC_PREFIX),
            _ => false,
        },
        // A sender the owner could not name when registering, or an operand that names no
        // channel: no message matches.
        _ => false,
    }
}

/// Resolves a queue narrow (already checked by [`Narrow::check_for_events`]) for its owner:
/// channel operands become the id of a channel `viewer` may know of, sender operands the id of
/// the user they name (by id or by an email `viewer` may use), topics are normalized as stored.
/// A channel or sender that names nothing stays as given: a channel name then matches by name,
/// anything else matches no message.
pub async fn for_queue(state: &Core, viewer: &User, narrow: Narrow) -> Result<Narrow> {
    if narrow.is_empty() {
        return Ok(narrow);
    }
    let viewer = viewer.clone();
    let host = state.config.realm_host().to_string();
    state
        .db
        .read(move |c| {
            let mut terms = Vec::with_capacity(narrow.terms.len());
            for mut t in narrow.terms {
                t.operand = match t.operator.as_str() {
                    "channel" | "stream" => match channel_ref(c, &viewer, &t.operand)? {
                        Some(ch) => Operand::Int(ch.id.0),
                        None => t.operand,
                    },
                    "topic" => Operand::Str(topic_operand(&t.operand)?),
                    "sender" => match user_ref(c, &viewer, &host, &t.operand)? {
                        Some(u) => Operand::Int(u.0),
                        None => t.operand,
                    },
                    _ => t.operand,
                };
                terms.push(t);
            }
            Ok(Narrow { terms })
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{ChannelId, ConversationId, MessageId, UserId};
    use serde_json::json;

    fn message(channel: Option<i64>, topic: &str, sender: i64) -> Message {
        Message {
            id: MessageId(1),
            sender_id: UserId(sender),
            channel_id: channel.map(ChannelId),
            conversation_id: if channel.is_some() {
                None
            } else {
                Some(ConversationId(9))
            },
            topic: topic.to_string(),
            content: String::new(),
            rendered_content: String::new(),
            client: String::new(),
            sent_at: 0,
            is_me_message: false,
            wildcard: 0,
            last_edit_at: None,
            last_moved_at: None,
        }
    }

    #[test]
    fn negated_terms_invert_their_match() {
        let n = Narrow::parse(&json!([
            {"operator": "channel", "operand": 4, "negated": true},
            {"operator": "is", "operand": "resolved", "negated": true},
            ["sender", 7]
        ]))
        .unwrap();
        assert!(n.matches(&message(Some(5), "lunch", 7), None, &[]));
        assert!(!n.matches(&message(Some(4), "lunch", 7), None, &[]));
        assert!(!n.matches(&message(Some(5), "✔ lunch", 7), None, &[]));
        assert!(!n.matches(&message(Some(5), "lunch", 8), None, &[]));
    }

    #[test]
    fn flags_and_unresolved_operands() {
        let unread = Narrow::parse(&json!([["is", "unread"]])).unwrap();
        assert!(unread.matches(&message(None, "", 7), None, &[]));
        assert!(!unread.matches(&message(None, "", 7), None, &["read", "historical"]));
        // A channel name the owner could not resolve at registration matches by name.
        let later = Narrow::parse(&json!([["channel", "Later"]])).unwrap();
        assert!(later.matches(&message(Some(5), "lunch", 7), Some("later"), &[]));
        assert!(!later.matches(&message(Some(5), "lunch", 7), Some("other"), &[]));
        assert!(!later.matches(&message(None, "", 7), None, &[]));
        // A sender that named nobody matches nothing.
        let nobody = Narrow::parse(&json!([["sender", "nobody@example.com"]])).unwrap();
        assert!(!nobody.matches(&message(Some(5), "lunch", 7), None, &[]));
    }

    #[test]
    fn queues_refuse_what_they_cannot_evaluate() {
        let check = |v| {
            Narrow::parse(&v)
                .unwrap()
                .check_for_events()
                .map_err(|e| e.msg)
        };
        assert_eq!(
            check(json!([["search", "x"]])),
            Err("Operator search not supported.".into())
        );
        assert_eq!(
            check(json!([["is", "followed"]])),
            Err("Operand followed not supported.".into())
        );
        assert_eq!(check(json!([["stream", "a"], ["is", "starred"]])), Ok(()));
    }
}
