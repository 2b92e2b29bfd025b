//! Narrows: parsing Zulip's narrow (the legacy `[operator, operand]` pairs and the
//! `{"operator", "operand", "negated"}` objects) into one [`Narrow`], and the rules of its
//! operators: which exist, how their operands resolve to channels, users, conversations and
//! messages for one viewer, and which conditions they become. The viewer's access (which
//! channels they may read fully, which only where they received messages, which conversations
//! are theirs) is always part of what a narrow reads. The SQL text of those conditions lives in
//! `db::message_narrows`; what an event queue can evaluate is in `narrow_events`.

use rusqlite::Connection;
use serde_json::Value;

use crate::db::conversations as conversations_db;
use crate::db::message_narrows::{self as narrows_db, Cond};
use crate::db::{channels as channels_db, messages as messages_db, users as users_db};
use crate::domain::channels::access;
use crate::domain::emails;
use crate::error::{Error, Result};
use crate::ids::{ChannelId, MessageId, UserId};
use crate::model::{Channel, MessageAccess, User};

pub use crate::db::message_narrows::Sql;
pub use crate::model::{Narrow, NarrowTerm as Term, Operand};

pub(super) fn bad_narrow(desc: String) -> Error {
    Error::coded(
        "BAD_NARROW",
        format!("Invalid narrow operator: {desc}"),
        vec![("desc", Value::from(desc))],
    )
}

/// Most terms one narrow may have.
pub const MAX_TERMS: usize = 100;

/// Every operator a narrow may use.
const OPERATORS: [&str; 20] = [
    "channel",
    "stream",
    "topic",
    "subject",
    "dm",
    "pm-with",
    "pm_with",
    "group-pm-with",
    "group_pm_with",
    "dm-including",
    "is",
    "sender",
    "id",
    "search",
    "in",
    "near",
    "channels",
    "streams",
    "has",
    "with",
];

/// Operators that name a direct conversation.
const DM_OPERATORS: [&str; 6] = [
    "dm",
    "pm-with",
    "pm_with",
    "group-pm-with",
    "group_pm_with",
    "dm-including",
];

fn operand(v: &Value) -> Operand {
    match v {
        Value::String(s) => Operand::Str(s.clone()),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Operand::Int(i),
            None => Operand::OtherNumber(n.to_string()),
        },
        Value::Array(items) => Operand::List(items.iter().map(operand).collect()),
        other => Operand::Other(other.to_string()),
    }
}

impl Narrow {
    /// Parses a narrow: a list of `[operator, operand]` pairs or
    /// `{"operator", "operand", "negated"?}` objects, with known operators only.
    pub fn parse(v: &Value) -> Result<Narrow> {
        let Value::Array(items) = v else {
            return Err(Error::bad_request("narrow is not a list"));
        };
        // Clients send a handful; every term costs SQL and, on an event queue, work per event.
        if items.len() > MAX_TERMS {
            return Err(Error::bad_request(format!(
                "narrow has too many terms (at most {MAX_TERMS})"
            )));
        }
        let mut terms = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let bad = || Error::bad_request(format!("Invalid narrow[{i}]"));
            let term = match item {
                Value::Array(pair) if pair.len() == 2 => Term {
                    operator: pair[0].as_str().ok_or_else(bad)?.to_string(),
                    operand: operand(&pair[1]),
                    negated: false,
                },
                Value::Object(o) => Term {
                    operator: o
                        .get("operator")
                        .and_then(Value::as_str)
                        .ok_or_else(bad)?
                        .to_string(),
                    operand: operand(o.get("operand").ok_or_else(bad)?),
                    negated: o.get("negated").and_then(Value::as_bool).unwrap_or(false),
                },
                _ => return Err(bad()),
            };
            if !OPERATORS.contains(&term.operator.as_str()) {
                return Err(bad_narrow(format!("unknown operator {}", term.operator)));
            }
            terms.push(term);
        }
        let has = |ops: &[&str]| {
            terms
                .iter()
                .any(|t| !t.negated && ops.contains(&t.operator.as_str()))
        };
        if has(&["channel", "stream", "topic", "subject"]) && has(&DM_OPERATORS) {
            return Err(bad_narrow(
                "No message can be both a channel message and direct message".into(),
            ));
        }
        Ok(Narrow { terms })
    }

    /// The narrow's (not negated) `search` strings, for match highlighting.
    pub fn search_terms(&self) -> Vec<String> {
        self.terms
            .iter()
            .filter(|t| t.operator == "search" && !t.negated)
            .filter_map(|t| t.operand.as_str().map(str::to_string))
            .collect()
    }
}

/// Parses a narrow (see [`Narrow::parse`]).
pub fn parse(v: &Value) -> Result<Narrow> {
    Narrow::parse(v)
}

/// What the viewer may read: channels readable in full, channels readable where received,
/// and the viewer's conversations.
pub fn message_access(c: &Connection, viewer: &User) -> Result<MessageAccess> {
    let mut full = Vec::new();
    for ch in channels_db::all(c)? {
        let a = access(c, viewer, ch)?;
        if a.content && a.channel.history_public_to_subscribers {
            full.push(a.channel.id);
        }
    }
    Ok(MessageAccess {
        viewer: viewer.id,
        full_channels: full,
        conversations: conversations_db::of_user(c, viewer.id)?,
    })
}

/// A user named by id, or by an email `viewer` may use for them (`emails::resolve`).
pub(super) fn user_ref(
    c: &Connection,
    viewer: &User,
    host: &str,
    v: &Operand,
) -> Result<Option<UserId>> {
    Ok(match v {
        Operand::Int(id) => users_db::get_any(c, UserId(*id))
            .ok()
            .flatten()
            .map(|u| u.id),
        Operand::Str(s) => emails::resolve(c, viewer, host, s)?.map(|u| u.id),
        _ => None,
    })
}

fn user_list(c: &Connection, viewer: &User, host: &str, v: &Operand) -> Result<Vec<UserId>> {
    let items: Vec<Operand> = match v {
        Operand::List(a) => a.clone(),
        Operand::Str(s) => s
            .split(',')
            .map(|e| Operand::Str(e.trim().to_string()))
            .collect(),
        Operand::Int(_) | Operand::OtherNumber(_) => vec![v.clone()],
        Operand::Other(_) => return Err(bad_narrow("invalid operand".into())),
    };
    items
        .iter()
        .map(|i| {
            user_ref(c, viewer, host, i)?
                .ok_or_else(|| bad_narrow(format!("unknown user {}", display(i))))
        })
        .collect()
}

/// An operand as error messages show it: strings bare, anything else as JSON.
pub(super) fn display(v: &Operand) -> String {
    match v {
        Operand::Str(s) => s.clone(),
        other => json_text(other),
    }
}

fn json_text(v: &Operand) -> String {
    match v {
        Operand::Str(s) => Value::from(s.as_str()).to_string(),
        Operand::Int(i) => i.to_string(),
        Operand::OtherNumber(s) | Operand::Other(s) => s.clone(),
        Operand::List(items) => format!(
            "[{}]",
            items.iter().map(json_text).collect::<Vec<_>>().join(",")
        ),
    }
}

/// A message id operand (`id`, `with`): an integer or a string of one.
fn message_id(v: &Operand) -> Result<i64> {
    match v {
        Operand::Int(id) => Some(*id),
        Operand::Str(s) => s.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| bad_narrow("invalid message ID".into()))
}

/// Whether the viewer may know this channel exists: they may see its metadata, or they were
/// subscribed to it once (their own history there stays readable).
fn knows_channel(c: &Connection, viewer: &User, ch: &Channel) -> Result<bool> {
    Ok(access(c, viewer, ch.clone())?.metadata
        || messages_db::period_channels(c, viewer.id)?.contains(&ch.id.0))
}

/// The channel a `channel` operand names (an id, a string of one, or a name) if the viewer may
/// know of it; a channel they may not know of answers as one that does not exist.
pub(super) fn channel_ref(c: &Connection, viewer: &User, v: &Operand) -> Result<Option<Channel>> {
    let ch = match v {
        Operand::Int(id) => channels_db::get(c, ChannelId(*id)).ok().flatten(),
        Operand::Str(s) => match s.parse::<i64>() {
            Ok(id) => channels_db::get(c, ChannelId(id))?,
            Err(_) => channels_db::by_name(c, s.trim())?,
        },
        _ => None,
    };
    Ok(match ch {
        Some(ch) if knows_channel(c, viewer, &ch)? => Some(ch),
        _ => None,
    })
}

/// A `topic` operand as stored topics are: normalized like a sent topic.
pub(super) fn topic_operand(v: &Operand) -> Result<String> {
    let topic = v
        .as_str()
        .ok_or_else(|| bad_narrow("invalid topic".into()))?;
    Ok(super::topics::normalize_topic(topic).unwrap_or_else(|_| topic.to_string()))
}

/// Operators that say where a message is; a `with` term replaces them.
const LOCATION_OPERATORS: [&str; 10] = [
    "channel",
    "stream",
    "topic",
    "subject",
    "dm",
    "pm-with",
    "pm_with",
    "group-pm-with",
    "group_pm_with",
    "with",
];

/// Resolves a `with:<message id>` term as upstream: when the viewer can read that message,
/// the narrow's location terms become the message's current channel and topic (or its direct
/// conversation), so links to a message keep working after it moves. Otherwise the `with`
/// term is dropped and the rest of the narrow stands.
fn resolve_with(c: &Connection, viewer: &User, terms: &[Term]) -> Result<Option<Vec<Term>>> {
    let Some(with) = terms.iter().find(|t| t.operator == "with" && !t.negated) else {
        return Ok(None);
    };
    let id = message_id(&with.operand)?;
    let found = match super::readable(c, viewer, MessageId(id)) {
        Ok(r) => Some(r.message),
        Err(e) if e.kind == crate::error::ErrorKind::BadRequest => None,
        Err(e) => return Err(e),
    };
    let mut out: Vec<Term> = terms
        .iter()
        .filter(|t| match &found {
            Some(_) => !LOCATION_OPERATORS.contains(&t.operator.as_str()),
            None => t.operator != "with",
        })
        .cloned()
        .collect();
    if let Some(m) = found {
        let term = |operator: &str, operand: Operand| Term {
            operator: operator.to_string(),
            operand,
            negated: false,
        };
        match (m.channel_id, m.conversation_id) {
            (Some(ch), _) => {
                out.push(term("channel", Operand::Int(ch.0)));
                out.push(term("topic", Operand::Str(m.topic)));
            }
            (None, Some(conv)) => {
                let members = conversations_db::members(c, conv)?
                    .into_iter()
                    .map(|u| Operand::Int(u.0))
                    .collect();
                out.push(term("dm", Operand::List(members)));
            }
            (None, None) => {}
        }
    }
    Ok(Some(out))
}

/// The condition one term stands for, for `viewer`; `None` for terms that filter nothing
/// (`near`, `with`, `in:all`, a search without words).
fn condition(c: &Connection, viewer: &User, host: &str, t: &Term) -> Result<Option<Cond>> {
    let unknown = |what: &str| bad_narrow(format!("unknown {what} {}", display(&t.operand)));
    Ok(Some(match t.operator.as_str() {
        "channel" | "stream" => {
            let ch = channel_ref(c, viewer, &t.operand)?.ok_or_else(|| unknown("channel"))?;
            Cond::Channel(ch.id)
        }
        "topic" | "subject" => Cond::Topic(topic_operand(&t.operand)?),
        "dm" | "pm-with" | "pm_with" | "group-pm-with" | "group_pm_with" => {
            let mut members = user_list(c, viewer, host, &t.operand)?;
            members.push(viewer.id);
            members.sort_unstable();
            members.dedup();
            Cond::Conversation(conversations_db::find(c, &members)?)
        }
        "dm-including" => Cond::DmIncluding(
            user_ref(c, viewer, host, &t.operand)?.ok_or_else(|| unknown("user"))?,
        ),
        "sender" => {
            Cond::Sender(user_ref(c, viewer, host, &t.operand)?.ok_or_else(|| unknown("user"))?)
        }
        "id" => Cond::Id(message_id(&t.operand)?),
        "near" | "with" => return Ok(None),
        "search" => {
            let q = t
                .operand
                .as_str()
                .ok_or_else(|| bad_narrow("invalid search".into()))?;
            if q.contains('\0') {
                // SQLite's full-text query parser stops at a NUL byte.
                return Err(bad_narrow("search must not contain null bytes".into()));
            }
            let tokens = search_tokens(q);
            if tokens.is_empty() {
                return Ok(None);
            }
            Cond::Search(tokens)
        }
        "in" => match t.operand.as_str() {
            Some("all") => return Ok(None),
            Some("home") => Cond::Home,
            _ => return Err(unknown("'in' operand")),
        },
        "channels" | "streams" => match t.operand.as_str() {
            Some("public") | Some("web-public") => Cond::PublicChannels,
            _ => return Err(unknown("channels operand")),
        },
        "has" => match t.operand.as_str() {
            Some("link") => Cond::HasLink,
            Some("image") => Cond::HasImage,
            Some("attachment") => Cond::HasAttachment,
            Some("reaction") => Cond::HasReaction,
            _ => return Err(unknown("'has' operand")),
        },
        "is" => match t.operand.as_str() {
            Some("dm") | Some("private") => Cond::Dm,
            Some("starred") => Cond::Starred,
            Some("alerted") => Cond::Alerted,
            Some("unread") => Cond::Unread,
            Some("mentioned") => Cond::Mentioned,
            Some("resolved") => Cond::Resolved,
            Some("followed") => Cond::Followed,
            Some("muted") => Cond::Muted,
            _ => return Err(unknown("'is' operand")),
        },
        other => return Err(bad_narrow(format!("unknown operator {other}"))),
    }))
}

/// The narrow's condition for `viewer` (without the access condition), as `db::message_narrows`
/// takes it.
/// `host` is the realm's, for placeholder emails.
pub fn terms_sql(c: &Connection, viewer: &User, host: &str, narrow: &Narrow) -> Result<Sql> {
    let resolved = resolve_with(c, viewer, &narrow.terms)?;
    let terms = resolved.as_deref().unwrap_or(&narrow.terms);
    let mut conds = Vec::with_capacity(terms.len());
    for t in terms {
        if let Some(cond) = condition(c, viewer, host, t)? {
            conds.push((cond, t.negated));
        }
    }
    Ok(narrows_db::narrow_sql(viewer.id, &conds))
}

/// The words and quoted phrases of a search string.
pub fn search_tokens(q: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = q.trim();
    while !rest.is_empty() {
        if let Some(stripped) = rest.strip_prefix('"')
            && let Some(end) = stripped.find('"')
        {
            let phrase = stripped[..end].trim();
            if !phrase.is_empty() {
                out.push(phrase.to_string());
            }
            rest = stripped[end + 1..].trim_start();
            continue;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = rest[..end].trim_matches('"');
        if !word.is_empty() {
            out.push(word.to_string());
        }
        rest = rest[end..].trim_start();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn too_many_terms_are_refused() {
        let ok = Value::Array(vec![json!(["search", "x"]); MAX_TERMS]);
        assert_eq!(parse(&ok).unwrap().terms.len(), MAX_TERMS);
        let over = Value::Array(vec![json!(["search", "x"]); MAX_TERMS + 1]);
        assert_eq!(
            parse(&over).unwrap_err().msg,
            "narrow has too many terms (at most 100)"
        );
    }

    #[test]
    fn parses_both_forms_and_rejects_unknown_operators() {
        let terms = parse(
            &json!([["stream", "Denmark"], {"operator": "topic", "operand": "x", "negated": true}]),
        )
        .unwrap()
        .terms;
        assert_eq!(terms.len(), 2);
        assert_eq!(terms[0].operand, Operand::Str("Denmark".into()));
        assert!(terms[1].negated);
        let e = parse(&json!([["color", "red"]])).unwrap_err();
        assert_eq!(e.msg, "Invalid narrow operator: unknown operator color");
        let e = parse(&json!([["stream", "a"], ["dm", "b@x.c"]])).unwrap_err();
        assert!(matches!(
            e.kind,
            crate::error::ErrorKind::Coded {
                code: "BAD_NARROW",
                ..
            }
        ));
        assert!(parse(&json!({"a": 1})).is_err());
    }

    #[test]
    fn search_strings_split_into_words_and_phrases() {
        assert_eq!(
            search_tokens("hello \"big world\" x\"y"),
            vec!["hello", "big world", "x\"y"]
        );
        assert_eq!(search_tokens("  "), Vec::<String>::new());
    }

    #[test]
    fn operands_keep_their_kind_for_messages() {
        let n = parse(&json!([["dm", [1, "a"]], ["id", 1.5], ["is", null]])).unwrap();
        let shown: Vec<String> = n.terms.iter().map(|t| display(&t.operand)).collect();
        assert_eq!(shown, vec!["[1,\"a\"]", "1.5", "null"]);
    }
}
