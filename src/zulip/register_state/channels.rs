//! Register builders for channels: `subscriptions` (with `unsubscribed` and
//! `never_subscribed`) and `streams`.

use std::collections::HashSet;

use rusqlite::Connection;
use serde_json::Value;

use super::{Ctx, State};
use crate::db::{channels as channels_db, users as users_db};
use crate::domain::channels::{self, ListFilter, Listed};
use crate::error::Result;
use crate::ids::UserId;
use crate::zulip::ChatState;
use crate::zulip::realtime::{PARTIAL_SUBSCRIBERS_THRESHOLD, SubscriberDetail};
use crate::zulip::wire;

/// `subscription`: every channel the caller may see, split by subscription state. Under
/// `include_subscribers=partial`, big channels list only bots and recently active users.
pub(super) fn subscriptions(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let user = &ctx.user;
    let detail = ctx.subscribers;
    let with_subscribers = detail != SubscriberDetail::None;
    let bots: HashSet<UserId> = if detail == SubscriberDetail::Partial {
        users_db::all(c)?
            .into_iter()
            .filter(|u| u.is_bot)
            .map(|u| u.id)
            .collect()
    } else {
        HashSet::new()
    };
    let recent_or_bot = |id: &UserId| bots.contains(id) || ctx.recently_active.contains(id);
    let mut subscribed = Vec::new();
    let mut unsubscribed = Vec::new();
    let mut never = Vec::new();
    let now = crate::time::now_secs();
    for ch in channels_db::all(c)? {
        if ch.is_archived {
            continue;
        }
        let sub = channels_db::subscription(c, user.id, ch.id)?;
        let access = channels::access(c, user, ch)?;
        if !access.metadata {
            continue;
        }
        let stats = channels_db::stats(c, &access.channel, now)?;
        let mut subscribers = if with_subscribers && access.content {
            Some(channels_db::subscriber_ids(c, access.channel.id)?)
        } else {
            None
        };
        let partial = detail == SubscriberDetail::Partial
            && subscribers
                .as_ref()
                .is_some_and(|ids| ids.len() >= PARTIAL_SUBSCRIBERS_THRESHOLD);
        if partial && let Some(ids) = subscribers.as_mut() {
            ids.retain(recent_or_bot);
        }
        let listed = Listed {
            access,
            subscription: sub.clone(),
            subscribers,
            stats,
        };
        let record = match &sub {
            Some(s) => wire::subscription_record(&listed, s),
            None => wire::never_subscribed(&listed),
        };
        let v = Value::from(if partial {
            record.with_partial_subscribers()
        } else {
            record
        });
        match sub {
            Some(s) if s.active => subscribed.push(v),
            Some(_) => unsubscribed.push(v),
            None => never.push(v),
        }
    }
    m.insert("subscriptions".into(), Value::Array(subscribed));
    m.insert("unsubscribed".into(), Value::Array(unsubscribed));
    m.insert("never_subscribed".into(), Value::Array(never));
    Ok(())
}

/// `stream`: the public channels and the caller's subscriptions, as `GET /streams` lists them.
pub(super) async fn streams(state: &ChatState, ctx: &Ctx, out: &mut State) -> Result<()> {
    let filter = ListFilter {
        include_public: true,
        include_subscribed: true,
        include_all: false,
        exclude_archived: !ctx.archived_channels,
        include_default: false,
    };
    let listed = channels::list(state, &ctx.user, filter).await?;
    let streams: Vec<Value> = listed
        .iter()
        .map(|l| wire::basic_channel(l, false).into())
        .collect();
    out.insert("streams".into(), Value::Array(streams));
    Ok(())
}

/// `channel_folders`: every folder, archived ones too (clients show where channels sit).
pub(super) fn channel_folders(c: &Connection, _ctx: &Ctx, m: &mut State) -> Result<()> {
    let folders = crate::db::channel_folders::all(c, true)?;
    m.insert(
        "channel_folders".into(),
        Value::Array(folders.iter().map(wire::channel_folder).collect()),
    );
    Ok(())
}
