//! SQL for reading messages through narrows: the conditions over `messages m` that a narrow's
//! resolved terms and a viewer's access become, and the statements that run them.
//!
//! Owns the SQL text of every narrow condition ([`narrow_sql`] over [`Cond`]), of the viewer's
//! access condition ([`access_sql`]) and of the one definition of a user's received and read
//! state of a message (`received_by`, `read_by`), which the narrows, unread counts and read
//! receipts share. Which operators exist and how their operands resolve to ids stays with
//! `domain::messages::narrow`, which hands over resolved [`Cond`]s.

use rusqlite::Connection;
use rusqlite::types::Value;

use super::messages::{columns, from_row};
use crate::error::Result;
use crate::ids::{ChannelId, ConversationId, MessageId, UserId};
use crate::model::{Message, MessageAccess, RESOLVED_TOPIC_PREFIX, flags as bits};

/// SQL: the user `user` (a SQL expression: an id literal or a column such as `u.id`) has
/// received message `m`: a direct message (membership is checked by the caller's access
/// condition), a channel message under one of their subscription periods, or one whose stored
/// flags say so.
pub fn received_by(user: &str) -> String {
    format!(
        "(m.conversation_id IS NOT NULL OR EXISTS (SELECT 1 FROM subscription_periods sp \
         WHERE sp.user_id = {user} AND sp.channel_id = m.channel_id \
         AND sp.first_message_id <= m.id \
         AND (sp.last_message_id IS NULL OR sp.last_message_id >= m.id)) OR EXISTS (SELECT 1 \
         FROM message_flags rf WHERE rf.user_id = {user} AND rf.message_id = m.id \
         AND rf.flags & {received} != 0))",
        received = bits::RECEIVED
    )
}

/// SQL: the user `user` (as in [`received_by`]) has read message `m`: its read bit, or at or
/// below their read floor for its scope without an unread override.
pub fn read_by(user: &str) -> String {
    format!(
        "(EXISTS (SELECT 1 FROM message_flags f WHERE f.user_id = {user} \
         AND f.message_id = m.id AND f.flags & {read} != 0) \
         OR (m.id <= coalesce((SELECT floor_id FROM read_floors rfl WHERE rfl.user_id = {user} \
         AND rfl.scope = coalesce(m.channel_id, 0)), 0) AND NOT EXISTS (SELECT 1 \
         FROM message_flags f2 WHERE f2.user_id = {user} AND f2.message_id = m.id \
         AND f2.flags & {over} != 0)))",
        read = bits::READ,
        over = bits::UNREAD_OVERRIDE
    )
}

/// One resolved narrow condition on message `m`, for one viewer.
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    /// In this channel.
    Channel(ChannelId),
    /// A channel message in this (normalized) topic, compared case-insensitively.
    Topic(String),
    /// In this direct conversation (`None`: a conversation that does not exist).
    Conversation(Option<ConversationId>),
    /// In a direct conversation this user belongs to.
    DmIncluding(UserId),
    Sender(UserId),
    Id(i64),
    /// Full-text search for all of these words and phrases (never empty).
    Search(Vec<String>),
    /// `in:home`: not in a channel or topic the viewer muted.
    Home,
    /// `channels:public`: in a channel that is not private.
    PublicChannels,
    HasLink,
    HasImage,
    HasAttachment,
    HasReaction,
    /// A direct message.
    Dm,
    Starred,
    Alerted,
    Unread,
    Mentioned,
    Resolved,
    Followed,
    Muted,
}

/// A SQL condition with its parameters.
#[derive(Debug, Default)]
pub struct Sql {
    pub cond: String,
    pub params: Vec<Value>,
}

impl Sql {
    fn push(&mut self, v: impl Into<Value>) -> String {
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

/// SQL: the user's stored flags on message `m` include a bit of `mask`.
pub fn flag_sql(user: i64, mask: i64) -> String {
    format!(
        "EXISTS (SELECT 1 FROM message_flags f WHERE f.user_id = {user} AND f.message_id = m.id \
         AND f.flags & {mask} != 0)"
    )
}

/// SQL: `access.viewer` may read message `m`: it is in one of the channels readable in full,
/// in one of their conversations, or in a channel where they received it.
pub fn access_sql(access: &MessageAccess) -> String {
    let full: Vec<i64> = access.full_channels.iter().map(|c| c.0).collect();
    let convs: Vec<i64> = access.conversations.iter().map(|c| c.0).collect();
    format!(
        "(m.channel_id IN ({full}) OR m.conversation_id IN ({convs}) OR \
         (m.channel_id IS NOT NULL AND {received}))",
        full = ids_list(&full),
        convs = ids_list(&convs),
        received = received_by(&access.viewer.0.to_string()),
    )
}

/// Words and phrases as an FTS5 query that ANDs them.
pub fn fts_query(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// SQL: messages `m` where every condition holds (or fails, when its flag says negated), for
/// `viewer`; `1` when there are none.
pub fn narrow_sql(viewer: UserId, conds: &[(Cond, bool)]) -> Sql {
    let mut sql = Sql::default();
    let u = viewer.0;
    let me = u.to_string();
    let muted_channel = format!(
        "m.channel_id IN (SELECT channel_id FROM subscriptions WHERE user_id = {u} \
         AND active AND is_muted)"
    );
    let topic_policy = |policy: i64| {
        format!(
            "EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = {u} AND \
             ut.channel_id = m.channel_id AND ut.topic = m.topic AND ut.visibility_policy = {policy})"
        )
    };
    let mut parts = Vec::with_capacity(conds.len());
    for (cond, negated) in conds {
        let text = match cond {
            Cond::Channel(ch) => format!("m.channel_id = {}", ch.0),
            Cond::Topic(topic) => {
                let p = sql.push(topic.clone());
                format!("(m.channel_id IS NOT NULL AND m.topic = {p} COLLATE NOCASE)")
            }
            Cond::Conversation(conv) => format!("m.conversation_id = {}", conv.map_or(-1, |c| c.0)),
            Cond::DmIncluding(who) => format!(
                "m.conversation_id IN (SELECT conversation_id FROM dm_members WHERE user_id = {})",
                who.0
            ),
            Cond::Sender(who) => format!("m.sender_id = {}", who.0),
            Cond::Id(id) => format!("m.id = {id}"),
            Cond::Search(tokens) => {
                let p = sql.push(fts_query(tokens));
                format!("m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH {p})")
            }
            Cond::Home => format!(
                "NOT (m.channel_id IS NOT NULL AND ({muted_channel} OR {}))",
                topic_policy(1)
            ),
            Cond::PublicChannels => {
                "m.channel_id IN (SELECT id FROM channels WHERE NOT invite_only)".to_string()
            }
            Cond::HasLink => "m.rendered_content LIKE '%<a %'".to_string(),
            // Read from the attachment records, not the HTML.
            Cond::HasImage => "EXISTS (SELECT 1 FROM attachment_messages am JOIN attachments a \
                               ON a.id = am.attachment_id WHERE am.message_id = m.id AND \
                               a.is_image)"
                .to_string(),
            Cond::HasAttachment => {
                "EXISTS (SELECT 1 FROM attachment_messages am WHERE am.message_id = m.id)"
                    .to_string()
            }
            Cond::HasReaction => {
                "EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)".to_string()
            }
            Cond::Dm => "m.conversation_id IS NOT NULL".to_string(),
            Cond::Starred => flag_sql(u, bits::STARRED),
            Cond::Alerted => flag_sql(u, bits::HAS_ALERT_WORD),
            Cond::Unread => format!("({} AND NOT {})", received_by(&me), read_by(&me)),
            Cond::Mentioned => format!(
                "({} OR ({} AND (m.wildcard & 1 != 0 OR (m.wildcard & 2 != 0 AND EXISTS \
                 (SELECT 1 FROM messages p WHERE p.channel_id = m.channel_id AND p.topic = \
                 m.topic COLLATE NOCASE AND p.sender_id = {u} AND p.id <= m.id)))))",
                flag_sql(u, bits::MENTIONED | bits::GROUP_MENTIONED),
                received_by(&me)
            ),
            Cond::Resolved => {
                let p = sql.push(format!("{RESOLVED_TOPIC_PREFIX}%"));
                format!("m.topic LIKE {p}")
            }
            Cond::Followed => topic_policy(3),
            Cond::Muted => format!("({muted_channel} OR {})", topic_policy(1)),
        };
        if *negated {
            parts.push(format!("NOT ({text})"));
        } else {
            parts.push(text);
        }
    }
    sql.cond = if parts.is_empty() {
        "1".to_string()
    } else {
        parts.join(" AND ")
    };
    sql
}

/// A message with one viewer's state: received and read as computed by the given expressions,
/// and the viewer's stored flag bits (0 when no row exists).
pub struct ViewedRow {
    pub message: Message,
    pub received: bool,
    pub read: bool,
    pub stored: i64,
}

/// Messages `m` matching `cond` (then `tail`, e.g. ORDER BY/LIMIT) with `viewer`'s state.
fn select_with_state(
    c: &Connection,
    viewer: UserId,
    cond: &str,
    params: &[Value],
    tail: &str,
) -> Result<Vec<ViewedRow>> {
    let user = viewer.0.to_string();
    let sql = format!(
        "SELECT {cols}, {received} AS rcv, {read} AS rd, coalesce((SELECT flags FROM \
         message_flags fx WHERE fx.user_id = {u} AND fx.message_id = m.id), 0) AS fl \
         FROM messages m WHERE {cond} {tail}",
        cols = columns("m"),
        received = received_by(&user),
        read = read_by(&user),
        u = viewer.0,
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(rusqlite::params_from_iter(params.iter()), |r| {
        Ok(ViewedRow {
            message: from_row(r)?,
            received: r.get(13)?,
            read: r.get(14)?,
            stored: r.get(15)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Which messages around an anchor a page reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Older than the anchor, newest first.
    Before,
    /// The anchor itself.
    At,
    /// Newer than the anchor, oldest first.
    After,
}

/// Up to `limit` messages the viewer may read that match `narrow`, on one `side` of `anchor`,
/// with the viewer's state (`limit` is ignored for [`Side::At`]).
pub fn around(
    c: &Connection,
    access: &MessageAccess,
    narrow: &Sql,
    side: Side,
    anchor: i64,
    limit: i64,
) -> Result<Vec<ViewedRow>> {
    let cond = format!("{} AND ({})", access_sql(access), narrow.cond);
    let n = narrow.params.len() + 1;
    let mut params = narrow.params.clone();
    params.push(Value::Integer(anchor));
    let (cond, tail) = match side {
        Side::Before => (
            format!("{cond} AND m.id < ?{n}"),
            format!("ORDER BY m.id DESC LIMIT {limit}"),
        ),
        Side::At => (format!("{cond} AND m.id = ?{n}"), String::new()),
        Side::After => (
            format!("{cond} AND m.id > ?{n}"),
            format!("ORDER BY m.id ASC LIMIT {limit}"),
        ),
    };
    select_with_state(c, access.viewer, &cond, &params, &tail)
}

/// The messages among `ids` the viewer may read that match `narrow`, in id order, with the
/// viewer's state.
pub fn among_ids(
    c: &Connection,
    access: &MessageAccess,
    narrow: &Sql,
    ids: &[i64],
) -> Result<Vec<ViewedRow>> {
    let cond = format!(
        "{} AND ({}) AND m.id IN ({})",
        access_sql(access),
        narrow.cond,
        ids_list(ids)
    );
    select_with_state(c, access.viewer, &cond, &narrow.params, "ORDER BY m.id")
}

/// One message with `viewer`'s state (no access check: the caller has made it).
pub fn one(c: &Connection, viewer: UserId, id: MessageId) -> Result<Vec<ViewedRow>> {
    select_with_state(c, viewer, "m.id = ?1", &[Value::Integer(id.0)], "")
}

/// The oldest message the viewer may read that matches `narrow` and that they received but
/// have not read, if any.
pub fn first_unread(c: &Connection, access: &MessageAccess, narrow: &Sql) -> Result<Option<i64>> {
    let user = access.viewer.0.to_string();
    let sql = format!(
        "SELECT min(m.id) FROM messages m WHERE {} AND ({}) AND {} AND NOT {}",
        access_sql(access),
        narrow.cond,
        received_by(&user),
        read_by(&user)
    );
    Ok(c.query_row(
        &sql,
        rusqlite::params_from_iter(narrow.params.iter()),
        |r| r.get(0),
    )?)
}

/// Ids of messages `m` matching `cond` that `user` received but has not read, in id order.
fn unread_ids(
    c: &Connection,
    user: UserId,
    cond: &str,
    params: &[Value],
) -> Result<Vec<MessageId>> {
    let u = user.0.to_string();
    let sql = format!(
        "SELECT m.id FROM messages m WHERE {cond} AND {} AND NOT {} ORDER BY m.id",
        received_by(&u),
        read_by(&u)
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(rusqlite::params_from_iter(params.iter()), |r| {
        Ok(MessageId(r.get(0)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The channel's messages `user` received but has not read, in id order.
pub fn unread_in_channel(c: &Connection, user: UserId, ch: ChannelId) -> Result<Vec<MessageId>> {
    unread_ids(c, user, &format!("m.channel_id = {}", ch.0), &[])
}

/// The topic's (case-insensitive) messages `user` received but has not read, in id order.
pub fn unread_in_topic(
    c: &Connection,
    user: UserId,
    ch: ChannelId,
    topic: &str,
) -> Result<Vec<MessageId>> {
    unread_ids(
        c,
        user,
        &format!("m.channel_id = {} AND m.topic = ?1 COLLATE NOCASE", ch.0),
        &[Value::Text(topic.to_string())],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_words_are_quoted_for_fts() {
        let tokens = ["hello", "big world", "x\"y"].map(String::from);
        assert_eq!(fts_query(&tokens), "\"hello\" \"big world\" \"x\"\"y\"");
    }

    #[test]
    fn negated_conditions_are_wrapped_and_empty_narrows_match_all() {
        assert_eq!(narrow_sql(UserId(1), &[]).cond, "1");
        let sql = narrow_sql(
            UserId(1),
            &[(Cond::Channel(ChannelId(4)), true), (Cond::Resolved, false)],
        );
        assert_eq!(sql.cond, "NOT (m.channel_id = 4) AND m.topic LIKE ?1");
        assert_eq!(sql.params, vec![Value::Text("✔ %".into())]);
    }
}
