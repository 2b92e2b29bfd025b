//! Subscriptions: subscribing (creating missing channels on the way) and unsubscribing users,
//! who may do so for whom, new subscriptions' colors, and a user's personal subscription
//! properties.

use serde_json::Value;

use crate::db::{WriteTx, channels as db, users as users_db};
use crate::domain::core::Core;
use crate::domain::notices;
use crate::error::{Error, Result};
use crate::events::{Event, Subscribed, SubscriptionPropertyChanged, Unsubscribed};
use crate::ids::{ChannelId, UserId};
use crate::model::{ChannelSetting, Role, SubscriptionProperty, User};

use super::access::{Access, access};
use super::creation::{ChannelOptions, check_create_permission, insert_channel};
use super::values::{check_color, check_name};

/// Colors given to new subscriptions, in order of preference.
const COLORS: [&str; 24] = [
    "#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5",
    "#f5ce6e", "#c2726a", "#94c849", "#bd86e5", "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063",
    "#9987e1", "#e4523d", "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462",
];

/// Picks a color the user does not use yet, if any is left.
pub(super) fn pick_color(c: &rusqlite::Connection, user: UserId) -> Result<String> {
    let used = db::colors_of(c, user)?;
    Ok(COLORS
        .iter()
        .find(|col| !used.iter().any(|u| u == *col))
        .unwrap_or(&COLORS[used.len() % COLORS.len()])
        .to_string())
}

pub(super) fn subscribe_one(
    tx: &mut WriteTx<'_>,
    user: UserId,
    ch: ChannelId,
    color: Option<&str>,
) -> Result<bool> {
    let color = match color {
        Some(c) => c.to_string(),
        None => pick_color(tx, user)?,
    };
    let added = db::subscribe(tx, user, ch, &color)?;
    if added {
        tx.emit(Event::Subscribed(Subscribed {
            user_id: user,
            channel_id: ch,
        }));
    }
    Ok(added)
}

/// One channel asked for in `POST /users/me/subscriptions`.
#[derive(Clone, Debug)]
pub struct SubscriptionRequest {
    pub name: String,
    pub description: Option<String>,
    pub color: Option<String>,
}

/// The outcome of a subscribe request, by user id and channel name.
#[derive(Clone, Debug, Default)]
pub struct SubscribeOutcome {
    pub subscribed: Vec<(UserId, Vec<String>)>,
    pub already_subscribed: Vec<(UserId, Vec<String>)>,
    pub unauthorized: Vec<String>,
}

fn push_name(list: &mut Vec<(UserId, Vec<String>)>, user: UserId, name: &str) {
    match list.iter_mut().find(|(u, _)| *u == user) {
        Some((_, names)) => names.push(name.to_string()),
        None => list.push((user, vec![name.to_string()])),
    }
}

/// `POST /users/me/subscriptions`: subscribes the caller or `principals` to channels,
/// creating the missing ones with `opts`.
pub async fn subscribe(
    state: &Core,
    actor: &User,
    requests: Vec<SubscriptionRequest>,
    principals: Option<Vec<UserRefArg>>,
    errors_fatal: bool,
    opts: ChannelOptions,
) -> Result<SubscribeOutcome> {
    if actor.role == Role::Guest {
        return Err(Error::bad_request("Not allowed for guest users"));
    }
    let mut names = Vec::with_capacity(requests.len());
    for r in &requests {
        names.push(check_name(&r.name)?);
        if let Some(c) = &r.color {
            check_color(c)?;
        }
    }
    let actor = actor.clone();
    let host = state.config.realm_host().to_string();
    let realm_url = state.config.chat.external_url.clone();
    state
        .db
        .write(move |tx| {
            let targets = resolve_principals(tx, &actor, &host, principals)?;
            let acting_for_others = targets.iter().any(|u| *u != actor.id);
            let mut out = SubscribeOutcome::default();
            let mut created_channels = Vec::new();
            // Per other user, the existing channels they were newly subscribed to.
            let mut told: Vec<(UserId, Vec<String>)> = Vec::new();
            for (req, name) in requests.iter().zip(names) {
                let (ch, created) = match db::by_name(tx, &name)? {
                    Some(ch) if ch.is_archived => {
                        return Err(Error::bad_request(format!(
                            "Unable to access channel ({name})."
                        )));
                    }
                    Some(ch) => (ch, false),
                    None => {
                        check_create_permission(tx, &actor, &opts)?;
                        let mut o = opts.clone();
                        o.description = req.description.clone().or(o.description);
                        (insert_channel(tx, &actor, &name, &o)?, true)
                    }
                };
                let a = access(tx, &actor, ch)?;
                let allowed = created || may_subscribe(tx, &actor, &a, acting_for_others)?;
                if !allowed {
                    if errors_fatal {
                        return Err(Error::bad_request(format!(
                            "Unable to access channel ({}).",
                            a.channel.name
                        )));
                    }
                    out.unauthorized.push(a.channel.name.clone());
                    continue;
                }
                for user in &targets {
                    let color = if *user == actor.id {
                        req.color.as_deref()
                    } else {
                        None
                    };
                    if subscribe_one(tx, *user, a.channel.id, color)? {
                        push_name(&mut out.subscribed, *user, &a.channel.name);
                        if *user != actor.id && !created {
                            push_name(&mut told, *user, &a.channel.name);
                        }
                    } else {
                        push_name(&mut out.already_subscribed, *user, &a.channel.name);
                    }
                }
                if created {
                    created_channels.push(a.channel);
                }
            }
            // Notification Bot's messages, in upstream's order: to the people subscribed by
            // someone else (not bots), then the announcement, then the creation notices.
            for (user, mut names) in told {
                if users_db::get(tx, user)?.is_some_and(|u| !u.is_bot) {
                    names.sort();
                    notices::subscribed_by_other(tx, &actor, user, &names, &realm_url)?;
                }
            }
            notices::channels_created(tx, &actor, &created_channels, opts.announce, &realm_url)?;
            Ok(out)
        })
        .await
}

/// Whether `actor` may subscribe themselves (and, if `for_others`, other users) to a channel.
fn may_subscribe(
    c: &rusqlite::Connection,
    actor: &User,
    a: &Access,
    for_others: bool,
) -> Result<bool> {
    let self_ok = a.subscribed
        || (!a.channel.invite_only && actor.role != Role::Guest)
        || crate::domain::user_groups::holds(
            c,
            actor,
            a.channel.setting(ChannelSetting::Subscribe),
        )?
        || crate::domain::user_groups::holds(
            c,
            actor,
            a.channel.setting(ChannelSetting::AddSubscribers),
        )?
        || a.administer && !a.channel.invite_only;
    if !for_others {
        return Ok(self_ok);
    }
    // Adding others: members may add to channels whose content they can access; the channel's
    // own add-subscribers and administer groups always may.
    Ok(crate::domain::user_groups::holds(
        c,
        actor,
        a.channel.setting(ChannelSetting::AddSubscribers),
    )? || a.administer && (a.content || a.channel.invite_only && actor.role.is_admin())
        || (actor.role <= Role::Member && a.content))
}

/// Whether `actor` may subscribe other users to the channel of `a` (as an invitation does).
pub fn may_add_others(c: &rusqlite::Connection, actor: &User, a: &Access) -> Result<bool> {
    may_subscribe(c, actor, a, true)
}

/// Inside a write: subscribes a new user to channels chosen for them (an invitation's);
/// channels archived since are skipped.
pub fn subscribe_new_user(
    tx: &mut WriteTx<'_>,
    user: UserId,
    channels: &[ChannelId],
) -> Result<()> {
    for id in channels {
        if db::get(tx, *id)?.is_some_and(|ch| !ch.is_archived) {
            subscribe_one(tx, user, *id, None)?;
        }
    }
    Ok(())
}

/// A user named in `principals`: by email or by id.
#[derive(Clone, Debug, PartialEq)]
pub enum UserRefArg {
    Id(i64),
    Email(String),
}

/// The users `principals` name (the actor when absent); emails as `emails::resolve` allows
/// the actor.
fn resolve_principals(
    c: &rusqlite::Connection,
    actor: &User,
    host: &str,
    principals: Option<Vec<UserRefArg>>,
) -> Result<Vec<UserId>> {
    let Some(list) = principals else {
        return Ok(vec![actor.id]);
    };
    let mut out = Vec::with_capacity(list.len());
    for p in list {
        let user = match &p {
            UserRefArg::Id(id) => users_db::get(c, UserId(*id))?,
            UserRefArg::Email(e) => crate::domain::emails::resolve(c, actor, host, e)?,
        };
        // The system bots are no realm members: they cannot be subscribed.
        let Some(user) = user.filter(|u| u.is_active && !u.is_system_bot) else {
            return Err(Error::bad_request("No such user"));
        };
        if !out.contains(&user.id) {
            out.push(user.id);
        }
    }
    Ok(out)
}

/// `DELETE /users/me/subscriptions`: returns (removed, not_removed) channel names.
pub async fn unsubscribe(
    state: &Core,
    actor: &User,
    names: Vec<String>,
    principals: Option<Vec<UserRefArg>>,
) -> Result<(Vec<String>, Vec<String>)> {
    let actor = actor.clone();
    let host = state.config.realm_host().to_string();
    state
        .db
        .write(move |tx| {
            let targets = resolve_principals(tx, &actor, &host, principals)?;
            // Every named channel must exist (for the actor) before anything changes; the
            // unknown ones are listed together, in request order.
            let mut found = Vec::with_capacity(names.len());
            let mut missing: Vec<&str> = Vec::new();
            for name in &names {
                let known = match db::by_name(tx, name.trim())? {
                    Some(ch) => Some(access(tx, &actor, ch)?).filter(|a| a.metadata),
                    None => None,
                };
                match known {
                    Some(a) => found.push(a),
                    None => missing.push(name.trim()),
                }
            }
            if !missing.is_empty() {
                return Err(Error::bad_request(format!(
                    "Channel(s) ({}) do not exist",
                    missing.join(", ")
                )));
            }
            let mut removed = Vec::new();
            let mut not_removed = Vec::new();
            for a in found {
                if targets.iter().any(|u| *u != actor.id) {
                    let may = a.administer
                        || crate::domain::user_groups::holds(
                            tx,
                            &actor,
                            a.channel.setting(ChannelSetting::RemoveSubscribers),
                        )?;
                    if !may {
                        return Err(Error::bad_request("Insufficient permission"));
                    }
                }
                let mut any = false;
                for u in &targets {
                    if db::unsubscribe(tx, *u, a.channel.id)? {
                        tx.emit(Event::Unsubscribed(Unsubscribed {
                            user_id: *u,
                            channel_id: a.channel.id,
                        }));
                        any = true;
                    }
                }
                if any {
                    removed.push(a.channel.name.clone());
                } else {
                    not_removed.push(a.channel.name.clone());
                }
            }
            Ok((removed, not_removed))
        })
        .await
}

/// One `subscription_data` entry of `POST /users/me/subscriptions/properties`.
#[derive(Clone, Debug)]
pub struct PropertyChange {
    pub channel_id: i64,
    pub property: String,
    pub value: Value,
}

/// Applies personal subscription settings, all or nothing.
pub async fn set_properties(
    state: &Core,
    actor: &User,
    changes: Vec<PropertyChange>,
) -> Result<()> {
    let actor_id = actor.id;
    state
        .db
        .write(move |tx| {
            for change in changes {
                let ch = ChannelId(change.channel_id);
                let mut sub = db::subscription(tx, actor_id, ch)?
                    .filter(|s| s.active)
                    .ok_or_else(|| {
                        Error::bad_request(format!(
                            "Not subscribed to channel ID {}",
                            change.channel_id
                        ))
                    })?;
                let flag = |v: &Value| -> Result<bool> {
                    v.as_bool().ok_or_else(|| {
                        Error::bad_request(format!("{} is not a boolean", change.property))
                    })
                };
                let Some(property) = SubscriptionProperty::from_name(&change.property) else {
                    return Err(Error::bad_request(format!(
                        "Unknown subscription property: {}",
                        change.property
                    )));
                };
                match property {
                    SubscriptionProperty::Color => {
                        let c = change
                            .value
                            .as_str()
                            .ok_or_else(|| Error::bad_request("color is not a string"))?;
                        check_color(c)?;
                        sub.color = c.to_lowercase();
                    }
                    SubscriptionProperty::IsMuted => sub.is_muted = flag(&change.value)?,
                    SubscriptionProperty::InHomeView => sub.is_muted = !flag(&change.value)?,
                    SubscriptionProperty::PinToTop => sub.pin_to_top = flag(&change.value)?,
                    SubscriptionProperty::DesktopNotifications => {
                        sub.desktop_notifications = Some(flag(&change.value)?)
                    }
                    SubscriptionProperty::AudibleNotifications => {
                        sub.audible_notifications = Some(flag(&change.value)?)
                    }
                    SubscriptionProperty::PushNotifications => {
                        sub.push_notifications = Some(flag(&change.value)?)
                    }
                    SubscriptionProperty::EmailNotifications => {
                        sub.email_notifications = Some(flag(&change.value)?)
                    }
                    SubscriptionProperty::WildcardMentionsNotify => {
                        sub.wildcard_mentions_notify = Some(flag(&change.value)?)
                    }
                }
                db::update_subscription(tx, &sub)?;
                tx.emit(Event::SubscriptionPropertyChanged(
                    SubscriptionPropertyChanged {
                        user_id: actor_id,
                        channel_id: ch,
                        property,
                    },
                ));
            }
            Ok(())
        })
        .await
}
