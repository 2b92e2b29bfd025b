//! Narrows: parsing Zulip's narrow terms and turning them into SQL over `messages m` for one
//! viewer. The viewer's access (which channels they may read fully, which only where they
//! received messages, which conversations are theirs) is always part of the condition.

use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;
use serde_json::Value;

use crate::db::{
    channels as channels_db, message_narrows as narrows_db, messages as messages_db,
    users as users_db,
};
use crate::domain::channels::access;
use crate::domain::emails;
use crate::error::{Error, Result};
use crate::ids::UserId;
use crate::model::{Role, User, flags as bits};

/// One narrow term.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub operator: String,
    pub operand: Value,
    pub negated: bool,
}

fn bad_narrow(desc: String) -> Error {
    Error::coded(
        "BAD_NARROW",
        format!("Invalid narrow operator: {desc}"),
        vec![("desc", Value::from(desc))],
    )
}

/// Most terms one narrow may have.
pub const MAX_TERMS: usize = 100;

/// Parses a narrow: a list of `[operator, operand]` pairs or
/// `{"operator", "operand", "negated"?}` objects.
pub fn parse(v: &Value) -> Result<Vec<Term>> {
    let Value::Array(items) = v else {
        return Err(Error::bad_request("narrow is not a list"));
    };
    // Clients send a handful; every term costs SQL and, on an event queue, work per event.
    if items.len() > MAX_TERMS {
        return Err(Error::bad_request(format!(
            "narrow has too many terms (at most {MAX_TERMS})"
        )));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let bad = || Error::bad_request(format!("Invalid narrow[{i}]"));
        let term = match item {
            Value::Array(pair) if pair.len() == 2 => Term {
                operator: pair[0].as_str().ok_or_else(bad)?.to_string(),
                operand: pair[1].clone(),
                negated: false,
            },
            Value::Object(o) => Term {
                operator: o
                    .get("operator")
                    .and_then(Value::as_str)
                    .ok_or_else(bad)?
                    .to_string(),
                operand: o.get("operand").cloned().ok_or_else(bad)?,
                negated: o.get("negated").and_then(Value::as_bool).unwrap_or(false),
            },
            _ => return Err(bad()),
        };
        let known = [
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
        if !known.contains(&term.operator.as_str()) {
            return Err(bad_narrow(format!("unknown operator {}", term.operator)));
        }
        out.push(term);
    }
    let has = |ops: &[&str]| {
        out.iter()
            .any(|t| !t.negated && ops.contains(&t.operator.as_str()))
    };
    let dm_ops = [
        "dm",
        "pm-with",
        "pm_with",
        "group-pm-with",
        "group_pm_with",
        "dm-including",
    ];
    if has(&["channel", "stream", "topic", "subject"]) && has(&dm_ops) {
        return Err(bad_narrow(
            "No message can be both a channel message and direct message".into(),
        ));
    }
    Ok(out)
}

/// Whether the narrow contains a `search` term (for match highlighting).
pub fn search_terms(terms: &[Term]) -> Vec<String> {
    terms
        .iter()
        .filter(|t| t.operator == "search" && !t.negated)
        .filter_map(|t| t.operand.as_str().map(str::to_string))
        .collect()
}

/// A SQL condition with its parameters.
#[derive(Debug, Default)]
pub struct Sql {
    pub cond: String,
    pub params: Vec<SqlValue>,
}

impl Sql {
    fn push(&mut self, v: impl Into<SqlValue>) -> String {
        self.params.push(v.into());
        format!("?{}", self.params.len())
    }
}

fn ids_list(ids: &[i64]) -> String {
    if ids.is_empty() {
        "NULL".to_string()
    } else {
        ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
    }
}

/// SQL: the viewer has received message `m` (see `db::message_narrows::received_by`).
pub fn received_sql(user: UserId) -> String {
    narrows_db::received_by(&user.0.to_string())
}

/// SQL: the viewer has read message `m` (see `db::message_narrows::read_by`).
pub fn read_sql(user: UserId) -> String {
    narrows_db::read_by(&user.0.to_string())
}

/// The viewer's access condition: channels readable in full, channels readable where received,
/// and the viewer's conversations.
pub fn access_sql(c: &Connection, viewer: &User) -> Result<String> {
    let mut full = Vec::new();
    for ch in channels_db::all(c)? {
        let a = access(c, viewer, ch)?;
        if a.content && a.channel.history_public_to_subscribers {
            full.push(a.channel.id.0);
        }
    }
    let convs = messages_db::conversations_of(c, viewer.id)?;
    Ok(format!(
        "(m.channel_id IN ({full}) OR m.conversation_id IN ({convs}) OR \
         (m.channel_id IS NOT NULL AND {received}))",
        full = ids_list(&full),
        convs = ids_list(&convs),
        received = received_sql(viewer.id),
    ))
}

/// A user named by id, or by an email `viewer` may use for them (`emails::resolve`).
fn user_ref(c: &Connection, viewer: &User, host: &str, v: &Value) -> Result<Option<UserId>> {
    Ok(match v {
        Value::Number(n) => n
            .as_i64()
            .and_then(|id| users_db::get_any(c, UserId(id)).ok().flatten())
            .map(|u| u.id),
        Value::String(s) => emails::resolve(c, viewer, host, s)?.map(|u| u.id),
        _ => None,
    })
}

fn user_list(c: &Connection, viewer: &User, host: &str, v: &Value) -> Result<Vec<UserId>> {
    let items: Vec<Value> = match v {
        Value::Array(a) => a.clone(),
        Value::String(s) => s.split(',').map(|e| Value::from(e.trim())).collect(),
        Value::Number(_) => vec![v.clone()],
        _ => return Err(bad_narrow("invalid operand".into())),
    };
    items
        .iter()
        .map(|i| {
            user_ref(c, viewer, host, i)?
                .ok_or_else(|| bad_narrow(format!("unknown user {}", display(i))))
        })
        .collect()
}

fn display(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether the viewer may know this channel exists: they may see its metadata, or they were
/// subscribed to it once (their own history there stays readable).
fn knows_channel(c: &Connection, viewer: &User, ch: &crate::model::Channel) -> Result<bool> {
    Ok(access(c, viewer, ch.clone())?.metadata
        || messages_db::period_channels(c, viewer.id)?.contains(&ch.id.0))
}

/// Translates terms into a condition (without the access condition). `host` is the realm's,
/// for placeholder emails.
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
    let id = match &with.operand {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| bad_narrow("invalid message ID".into()))?;
    let found = match super::readable(c, viewer, crate::ids::MessageId(id)) {
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
        let term = |operator: &str, operand: Value| Term {
            operator: operator.to_string(),
            operand,
            negated: false,
        };
        match (m.channel_id, m.conversation_id) {
            (Some(ch), _) => {
                out.push(term("channel", Value::from(ch.0)));
                out.push(term("topic", Value::from(m.topic)));
            }
            (None, Some(conv)) => {
                let members: Vec<i64> = messages_db::conversation_members(c, conv)?
                    .into_iter()
                    .map(|u| u.0)
                    .collect();
                out.push(term("dm", Value::from(members)));
            }
            (None, None) => {}
        }
    }
    Ok(Some(out))
}

pub fn terms_sql(c: &Connection, viewer: &User, host: &str, terms: &[Term]) -> Result<Sql> {
    let resolved = resolve_with(c, viewer, terms)?;
    let terms = resolved.as_deref().unwrap_or(terms);
    let mut sql = Sql::default();
    let mut parts: Vec<String> = Vec::new();
    let u = viewer.id.0;
    for t in terms {
        let op = t.operator.as_str();
        let cond = match op {
            "channel" | "stream" => {
                let ch = match &t.operand {
                    Value::Number(n) => n.as_i64().and_then(|id| {
                        channels_db::get(c, crate::ids::ChannelId(id))
                            .ok()
                            .flatten()
                    }),
                    Value::String(s) => match s.parse::<i64>() {
                        Ok(id) => channels_db::get(c, crate::ids::ChannelId(id))?,
                        Err(_) => channels_db::by_name(c, s.trim())?,
                    },
                    _ => None,
                };
                // A channel the viewer may not know of answers as one that does not exist.
                let ch = match ch {
                    Some(ch) if knows_channel(c, viewer, &ch)? => Some(ch),
                    _ => None,
                };
                let ch = ch.ok_or_else(|| {
                    bad_narrow(format!("unknown channel {}", display(&t.operand)))
                })?;
                format!("m.channel_id = {}", ch.id.0)
            }
            "topic" | "subject" => {
                let topic = t
                    .operand
                    .as_str()
                    .ok_or_else(|| bad_narrow("invalid topic".into()))?;
                let topic =
                    super::send::normalize_topic(topic).unwrap_or_else(|_| topic.to_string());
                let p = sql.push(topic);
                format!("(m.channel_id IS NOT NULL AND m.topic = {p} COLLATE NOCASE)")
            }
            "dm" | "pm-with" | "pm_with" | "group-pm-with" | "group_pm_with" => {
                let mut members = user_list(c, viewer, host, &t.operand)?;
                members.push(viewer.id);
                members.sort_unstable();
                members.dedup();
                let conv = messages_db::find_conversation(c, &members)?.unwrap_or(-1);
                format!("m.conversation_id = {conv}")
            }
            "dm-including" => {
                let who = user_ref(c, viewer, host, &t.operand)?
                    .ok_or_else(|| bad_narrow(format!("unknown user {}", display(&t.operand))))?;
                format!(
                    "m.conversation_id IN (SELECT conversation_id FROM dm_members WHERE user_id = {})",
                    who.0
                )
            }
            "sender" => {
                let who = user_ref(c, viewer, host, &t.operand)?
                    .ok_or_else(|| bad_narrow(format!("unknown user {}", display(&t.operand))))?;
                format!("m.sender_id = {}", who.0)
            }
            "id" => {
                let id = match &t.operand {
                    Value::Number(n) => n.as_i64(),
                    Value::String(s) => s.trim().parse().ok(),
                    _ => None,
                }
                .ok_or_else(|| bad_narrow("invalid message ID".into()))?;
                format!("m.id = {id}")
            }
            "near" | "with" => continue,
            "search" => {
                let q = t
                    .operand
                    .as_str()
                    .ok_or_else(|| bad_narrow("invalid search".into()))?;
                if q.contains('\0') {
                    // SQLite's full-text query parser stops at a NUL byte.
                    return Err(bad_narrow("search must not contain null bytes".into()));
                }
                let fts = fts_query(q);
                if fts.is_empty() {
                    continue;
                }
                let p = sql.push(fts);
                format!("m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH {p})")
            }
            "in" => match t.operand.as_str() {
                Some("all") => continue,
                Some("home") => format!(
                    "NOT (m.channel_id IS NOT NULL AND (m.channel_id IN (SELECT channel_id FROM \
                     subscriptions WHERE user_id = {u} AND active AND is_muted) OR EXISTS (SELECT \
                     1 FROM user_topics ut WHERE ut.user_id = {u} AND ut.channel_id = m.channel_id \
                     AND ut.topic = m.topic AND ut.visibility_policy = 1)))"
                ),
                _ => {
                    return Err(bad_narrow(format!(
                        "unknown 'in' operand {}",
                        display(&t.operand)
                    )));
                }
            },
            "channels" | "streams" => match t.operand.as_str() {
                Some("public") | Some("web-public") => {
                    "m.channel_id IN (SELECT id FROM channels WHERE NOT invite_only)".to_string()
                }
                _ => {
                    return Err(bad_narrow(format!(
                        "unknown channels operand {}",
                        display(&t.operand)
                    )));
                }
            },
            "has" => match t.operand.as_str() {
                Some("link") => "m.rendered_content LIKE '%<a %'".to_string(),
                Some("image") => "m.rendered_content LIKE '%<img %'".to_string(),
                Some("attachment") => "m.content LIKE '%/user_uploads/%'".to_string(),
                Some("reaction") => {
                    "EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)".to_string()
                }
                _ => {
                    return Err(bad_narrow(format!(
                        "unknown 'has' operand {}",
                        display(&t.operand)
                    )));
                }
            },
            "is" => match t.operand.as_str() {
                Some("dm") | Some("private") => "m.conversation_id IS NOT NULL".to_string(),
                Some("starred") => flag_sql(u, bits::STARRED),
                Some("alerted") => flag_sql(u, bits::HAS_ALERT_WORD),
                Some("unread") => format!(
                    "({} AND NOT {})",
                    received_sql(viewer.id),
                    read_sql(viewer.id)
                ),
                Some("mentioned") => format!(
                    "({} OR ({} AND (m.wildcard & 1 != 0 OR (m.wildcard & 2 != 0 AND EXISTS \
                     (SELECT 1 FROM messages p WHERE p.channel_id = m.channel_id AND p.topic = \
                     m.topic COLLATE NOCASE AND p.sender_id = {u} AND p.id <= m.id)))))",
                    flag_sql(u, bits::MENTIONED | bits::GROUP_MENTIONED),
                    received_sql(viewer.id)
                ),
                Some("resolved") => "m.topic LIKE '✔ %'".to_string(),
                Some("followed") => format!(
                    "EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = {u} AND \
                     ut.channel_id = m.channel_id AND ut.topic = m.topic AND ut.visibility_policy = 3)"
                ),
                Some("muted") => format!(
                    "(m.channel_id IN (SELECT channel_id FROM subscriptions WHERE user_id = {u} \
                     AND active AND is_muted) OR EXISTS (SELECT 1 FROM user_topics ut WHERE \
                     ut.user_id = {u} AND ut.channel_id = m.channel_id AND ut.topic = m.topic \
                     AND ut.visibility_policy = 1))"
                ),
                _ => {
                    return Err(bad_narrow(format!(
                        "unknown 'is' operand {}",
                        display(&t.operand)
                    )));
                }
            },
            other => return Err(bad_narrow(format!("unknown operator {other}"))),
        };
        if t.negated {
            parts.push(format!("NOT ({cond})"));
        } else {
            parts.push(cond);
        }
    }
    if viewer.role == Role::Guest {
        // Guests never see public channels they are not subscribed to; access_sql covers it.
    }
    sql.cond = if parts.is_empty() {
        "1".to_string()
    } else {
        parts.join(" AND ")
    };
    Ok(sql)
}

/// SQL: the user's stored flags on message `m` include a bit of `mask`.
pub fn flag_sql(user: i64, mask: i64) -> String {
    format!(
        "EXISTS (SELECT 1 FROM message_flags f WHERE f.user_id = {user} AND f.message_id = m.id \
         AND f.flags & {mask} != 0)"
    )
}

/// Words and "quoted phrases" of a search, as an FTS5 query that ANDs them.
pub fn fts_query(q: &str) -> String {
    search_tokens(q)
        .into_iter()
        .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" ")
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
        assert_eq!(parse(&ok).unwrap().len(), MAX_TERMS);
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
        .unwrap();
        assert_eq!(terms.len(), 2);
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
    fn search_queries_are_quoted_for_fts() {
        assert_eq!(
            fts_query("hello \"big world\" x\"y"),
            "\"hello\" \"big world\" \"x\"\"y\""
        );
        assert_eq!(search_tokens("  "), Vec::<String>::new());
    }
}
