//! Register builders for the caller's messages: `max_message_id`, `unread_msgs`,
//! `starred_messages`, topic visibility (`user_topics`, legacy `muted_topics`),
//! `alert_words` and `recent_private_conversations`.

use std::collections::BTreeMap;

use rusqlite::Connection;
use serde_json::Value;

use super::{Ctx, State};
use crate::db::conversations as conversations_db;
use crate::db::{
    channels as channels_db, messages as messages_db, topics as topics_db, unreads as unreads_db,
};
use crate::domain::messages::send::{EMPTY_TOPIC_DISPLAY_NAME, visibility};
use crate::error::Result;
use crate::zulip::wire::{self, Unreads};

/// Most unread message ids reported (Zulip's cap).
const MAX_UNREAD: usize = 50_000;

/// `message`: the newest message the caller received.
pub(super) fn max_message_id(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let id = messages_db::max_received_id(c, ctx.user.id)?;
    m.insert("max_message_id".into(), Value::from(id));
    Ok(())
}

/// `update_message_flags` (together with `message`): unread messages grouped as Zulip
/// reports them.
pub(super) fn unread_msgs(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    if !ctx.wants("message") {
        return Ok(());
    }
    let user = &ctx.user;
    let mut rows = unreads_db::unread(c, user.id, MAX_UNREAD)?;
    rows.sort_by_key(|r| r.0);
    let old_unreads_missing = rows.len() > MAX_UNREAD;
    rows.truncate(MAX_UNREAD);
    let mut streams: BTreeMap<(i64, String), Vec<i64>> = BTreeMap::new();
    let mut pms: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    let mut huddles: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    let mut mentions = Vec::new();
    for (id, ch, topic, conv, _sender, mentioned) in &rows {
        if *mentioned {
            mentions.push(*id);
        }
        match (ch, conv) {
            (Some(ch), _) => {
                let topic = if topic.is_empty() && !ctx.empty_topic_name {
                    EMPTY_TOPIC_DISPLAY_NAME.to_string()
                } else {
                    topic.clone()
                };
                streams.entry((*ch, topic)).or_default().push(*id);
            }
            (None, Some(conv)) => {
                let members = conversations_db::members(c, *conv)?;
                if members.len() <= 2 {
                    let other = members
                        .iter()
                        .find(|u| **u != user.id)
                        .copied()
                        .unwrap_or(user.id);
                    pms.entry(other.0).or_default().push(*id);
                } else {
                    let key = members
                        .iter()
                        .map(|u| u.0.to_string())
                        .collect::<Vec<_>>()
                        .join(",");
                    huddles.entry(key).or_default().push(*id);
                }
            }
            _ => {}
        }
    }
    let unreads = Unreads {
        pms,
        streams,
        huddles,
        mentions,
        count: rows.len(),
        old_unreads_missing,
    };
    m.insert("unread_msgs".into(), wire::unread_msgs(unreads));
    Ok(())
}

/// `starred_messages`: the ids the caller starred.
pub(super) fn starred(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let ids = unreads_db::starred(c, ctx.user.id)?;
    m.insert("starred_messages".into(), Value::from(ids));
    Ok(())
}

/// `user_topic`: every topic the caller set a visibility policy for.
pub(super) fn user_topics(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let list: Vec<Value> = topics_db::policies_of(c, ctx.user.id)?
        .iter()
        .map(|(ch, topic, policy, updated)| wire::user_topic(*ch, topic, *policy, *updated))
        .collect();
    m.insert("user_topics".into(), Value::Array(list));
    Ok(())
}

/// `muted_topics` (legacy): the muted topics as `[channel, topic, time]`; left out when the
/// client named `user_topic` too.
pub(super) fn muted_topics(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    if ctx.named_types() && ctx.wants("user_topic") {
        return Ok(());
    }
    let mut list = Vec::new();
    for (ch, topic, policy, updated) in &topics_db::policies_of(c, ctx.user.id)? {
        if *policy == visibility::MUTED
            && let Some(channel) = channels_db::get(c, *ch)?
        {
            list.push(wire::muted_topic(&channel.name, topic, *updated));
        }
    }
    m.insert("muted_topics".into(), Value::Array(list));
    Ok(())
}

/// `alert_words`: the caller's alert words.
pub(super) fn alert_words(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let words = crate::db::alert_words::of_user(c, ctx.user.id)?;
    m.insert("alert_words".into(), Value::from(words));
    Ok(())
}

/// `recent_private_conversations`: the caller's direct conversations, newest first.
pub(super) fn recent_conversations(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let user = ctx.user.id;
    let mut found = Vec::new();
    for conv in conversations_db::of_user(c, user)? {
        let Some(max) = unreads_db::newest_in_conversation(c, conv)? else {
            continue;
        };
        let others: Vec<i64> = conversations_db::members(c, conv)?
            .into_iter()
            .filter(|u| *u != user)
            .map(|u| u.0)
            .collect();
        found.push((max, others));
    }
    found.sort_by_key(|(max, _)| std::cmp::Reverse(*max));
    let list: Vec<Value> = found
        .iter()
        .map(|(max, others)| wire::recent_conversation(*max, others))
        .collect();
    m.insert("recent_private_conversations".into(), Value::Array(list));
    Ok(())
}

/// `scheduled_messages`: the caller's undelivered scheduled messages.
pub(super) fn scheduled_messages(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let items =
        crate::db::scheduled::open_for(c, ctx.user.id, crate::model::ScheduledKind::Message)?;
    m.insert(
        "scheduled_messages".into(),
        crate::zulip::wire::scheduled::items(&items),
    );
    Ok(())
}

/// `reminders`: the caller's undelivered reminders.
pub(super) fn reminders(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let items =
        crate::db::scheduled::open_for(c, ctx.user.id, crate::model::ScheduledKind::Reminder)?;
    m.insert(
        "reminders".into(),
        crate::zulip::wire::scheduled::items(&items),
    );
    Ok(())
}
