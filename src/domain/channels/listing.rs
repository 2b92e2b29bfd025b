//! Reading channels: the caller's subscriptions, `GET /streams` and one channel, ids by name,
//! and members, each with the caller's subscription and activity figures. Changes nothing.

use crate::db::channels as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::ids::{ChannelId, UserId};
use crate::model::{Role, Subscription, User};

use super::access::{Access, access, invalid_channel_id, visible_by_id};

/// A channel with the caller's subscription and activity figures, for listings.
pub struct Listed {
    pub access: Access,
    pub subscription: Option<Subscription>,
    pub subscribers: Option<Vec<UserId>>,
    pub stats: crate::model::ChannelStats,
}

fn listed(
    c: &rusqlite::Connection,
    a: Access,
    subscription: Option<Subscription>,
    with_subscribers: bool,
) -> Result<Listed> {
    let subscribers = if with_subscribers {
        Some(db::subscriber_ids(c, a.channel.id)?)
    } else {
        None
    };
    let stats = db::stats(c, &a.channel, crate::time::now_secs())?;
    Ok(Listed {
        access: a,
        subscription,
        subscribers,
        stats,
    })
}

/// The caller's active subscriptions (archived channels left out).
pub async fn my_subscriptions(
    state: &Core,
    actor: &User,
    with_subscribers: bool,
) -> Result<Vec<Listed>> {
    let actor = actor.clone();
    state
        .db
        .read(move |c| {
            let mut out = Vec::new();
            for sub in db::subscriptions_of(c, actor.id)? {
                let Some(ch) = db::get(c, sub.channel_id)? else {
                    continue;
                };
                if ch.is_archived {
                    continue;
                }
                let a = access(c, &actor, ch)?;
                out.push(listed(c, a, Some(sub), with_subscribers)?);
            }
            Ok(out)
        })
        .await
}

/// Which channels `GET /streams` should list.
#[derive(Clone, Copy, Debug)]
pub struct ListFilter {
    pub include_public: bool,
    pub include_subscribed: bool,
    pub include_all: bool,
    pub exclude_archived: bool,
    pub include_default: bool,
}

/// `GET /streams`.
pub async fn list(state: &Core, actor: &User, f: ListFilter) -> Result<Vec<Listed>> {
    if f.include_all && !actor.role.is_admin() {
        return Err(Error::bad_request("User not authorized for this query"));
    }
    let actor = actor.clone();
    state
        .db
        .read(move |c| {
            let mut out = Vec::new();
            for ch in db::all(c)? {
                if f.exclude_archived && ch.is_archived {
                    continue;
                }
                let a = access(c, &actor, ch)?;
                let wanted = (f.include_all && a.metadata)
                    || (f.include_public && !a.channel.invite_only && actor.role != Role::Guest)
                    || (f.include_subscribed && a.subscribed)
                    || (f.include_default && a.channel.is_default);
                if wanted && a.metadata {
                    out.push(listed(c, a, None, false)?);
                }
            }
            Ok(out)
        })
        .await
}

/// `GET /streams/{id}`.
pub async fn get(state: &Core, actor: &User, id: ChannelId) -> Result<Listed> {
    let actor = actor.clone();
    state
        .db
        .read(move |c| {
            let a = visible_by_id(c, &actor, id)?;
            listed(c, a, None, false)
        })
        .await
}

/// `GET /get_stream_id`.
pub async fn id_by_name(state: &Core, actor: &User, name: String) -> Result<ChannelId> {
    let actor = actor.clone();
    state
        .db
        .read(move |c| {
            let not_found = || Error::bad_request(format!("Invalid channel name '{name}'"));
            let ch = db::by_name(c, &name)?.ok_or_else(not_found)?;
            let a = access(c, &actor, ch)?;
            if !a.metadata {
                return Err(not_found());
            }
            Ok(a.channel.id)
        })
        .await
}

/// `GET /streams/{id}/members`.
pub async fn members(state: &Core, actor: &User, id: ChannelId) -> Result<Vec<UserId>> {
    let actor = actor.clone();
    state
        .db
        .read(move |c| {
            let a = visible_by_id(c, &actor, id)?;
            if !a.content && !a.administer {
                return Err(invalid_channel_id());
            }
            db::subscriber_ids(c, id)
        })
        .await
}
