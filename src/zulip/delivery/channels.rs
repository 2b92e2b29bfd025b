//! Delivery of channel events: creation, changes and archiving to those who may see the
//! channel, subscriptions (the subscriber's own and their peers'), subscription properties and
//! topic visibility policies.

use std::sync::Arc;

use crate::db::{channels as channels_db, users as users_db};
use crate::domain::channels::{self as channels_domain, metadata_audience};
use crate::error::Result;
use crate::ids::{ChannelId, UserId};
use crate::model::{Channel, ChannelProperty, SubscriptionProperty};
use crate::zulip::ChatState;
use crate::zulip::wire::{self, events};

use super::{event_json, push_to_users, queues_wanting};

/// A user's visibility policy for a topic, to their own queues.
pub(super) fn user_topic(
    state: &ChatState,
    seq: u64,
    user_id: UserId,
    channel_id: ChannelId,
    topic: &str,
    visibility_policy: i64,
) {
    let body = events::user_topic(
        channel_id,
        topic,
        crate::time::now_secs(),
        visibility_policy,
    );
    push_to_users(state, seq, Some(&[user_id]), "user_topic", &body);
}

/// One of a user's subscription properties, to their own queues.
pub(super) async fn subscription_property(
    state: &ChatState,
    seq: u64,
    uid: UserId,
    ch: ChannelId,
    property: SubscriptionProperty,
) -> Result<()> {
    let sub = state
        .db
        .read(move |c| channels_db::subscription(c, uid, ch))
        .await?;
    let Some(sub) = sub else { return Ok(()) };
    let body = events::subscription_property(&sub, property);
    push_to_users(state, seq, Some(&[uid]), "subscription", &body);
    Ok(())
}

/// A channel and who may see it, in one read; `None` when the channel is gone.
async fn channel_with_audience(
    state: &ChatState,
    ch: ChannelId,
) -> Result<Option<(Channel, Vec<UserId>)>> {
    state
        .db
        .read(move |c| {
            let Some(channel) = channels_db::get(c, ch)? else {
                return Ok(None);
            };
            let audience = metadata_audience(c, &channel)?;
            Ok(Some((channel, audience)))
        })
        .await
}

/// A new channel, to those who may see it.
pub(super) async fn created(state: &ChatState, seq: u64, ch: ChannelId) -> Result<()> {
    // One read for the channel, its audience and its statistics.
    let listed = state
        .db
        .read(move |c| {
            let Some(channel) = channels_db::get(c, ch)? else {
                return Ok(None);
            };
            let audience = metadata_audience(c, &channel)?;
            let stats = channels_db::stats(c, &channel, crate::time::now_secs())?;
            Ok(Some((channel, stats, audience)))
        })
        .await?;
    let Some((channel, stats, audience)) = listed else {
        return Ok(());
    };
    let body = events::channel_created(wire::channel(&channel, &stats));
    push_to_users(state, seq, Some(&audience), "stream", &body);
    Ok(())
}

/// A changed channel property, to those who may see the channel.
pub(super) async fn updated(
    state: &ChatState,
    seq: u64,
    ch: ChannelId,
    property: ChannelProperty,
) -> Result<()> {
    let Some((channel, audience)) = channel_with_audience(state, ch).await? else {
        return Ok(());
    };
    let Some(body) = events::channel_updated(&channel, property) else {
        return Ok(());
    };
    push_to_users(state, seq, Some(&audience), "stream", &body);
    Ok(())
}

/// A subscription added or removed: the subscriber's own event, and the peers' event to the
/// others who may see the channel.
pub(super) async fn deliver_subscription(
    state: &ChatState,
    seq: u64,
    user: UserId,
    ch: ChannelId,
    added: bool,
) -> Result<()> {
    let loaded = state
        .db
        .read(move |c| {
            let Some(u) = users_db::get_any(c, user)? else {
                return Ok(None);
            };
            let Some(channel) = channels_db::get(c, ch)? else {
                return Ok(None);
            };
            let audience = metadata_audience(c, &channel)?;
            let sub = channels_db::subscription(c, user, ch)?;
            let access = channels_domain::access(c, &u, channel)?;
            let stats = channels_db::stats(c, &access.channel, crate::time::now_secs())?;
            let subscribers = channels_db::subscriber_ids(c, ch)?;
            Ok(Some((access, sub, stats, audience, subscribers)))
        })
        .await?;
    let Some((access, sub, stats, audience, subscribers)) = loaded else {
        return Ok(());
    };
    if added {
        let Some(sub) = sub else { return Ok(()) };
        let listed = channels_domain::Listed {
            access,
            subscription: Some(sub.clone()),
            subscribers: Some(subscribers),
            stats,
        };
        let own = events::subscription_added(wire::subscription(&listed, &sub));
        push_to_users(state, seq, Some(&[user]), "subscription", &own);
    } else {
        let own = events::subscription_removed(ch, &access.channel.name);
        push_to_users(state, seq, Some(&[user]), "subscription", &own);
    }
    let peers: Vec<UserId> = audience.into_iter().filter(|u| *u != user).collect();
    let peer = events::subscription_peer(added, ch, user);
    push_to_users(state, seq, Some(&peers), "subscription", &peer);
    Ok(())
}

/// A channel was archived. Clients that know archived channels keep it, marked; the others
/// see it deleted.
pub(super) async fn deliver_archive(state: &ChatState, seq: u64, ch: ChannelId) -> Result<()> {
    let Some((channel, audience)) = channel_with_audience(state, ch).await? else {
        return Ok(());
    };
    let name = channel.name;
    let (archived, deleted) = events::channel_archived(ch, &name);
    let (archived, deleted) = (event_json(&archived), event_json(&deleted));
    for q in queues_wanting(state, seq, Some(&audience), "stream") {
        let body = if q.options.archived_channels {
            &archived
        } else {
            &deleted
        };
        state.queues.push(&q, Arc::clone(body));
    }
    Ok(())
}
