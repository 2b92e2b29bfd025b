//! Channel rules: who may see, join, post to and administer a channel; creating, updating and
//! archiving channels; subscribing and unsubscribing users.
//!
//! Every check runs inside the same transaction as the change it guards. Writes emit the events
//! that describe them. No HTTP or wire JSON here.

use serde_json::Value;

use crate::app::AppState;
use crate::db::topics as topics_db;
use crate::db::{WriteTx, channels as db, groups, users as users_db};
use crate::domain::notices;
use crate::error::{Error, ErrorKind, Result};
use crate::events::Event;
use crate::ids::{ChannelId, GroupId, UserId};
use crate::model::{Channel, ChannelSetting, GroupSetting, Role, Subscription, TopicsPolicy, User};

use super::realm_settings;

pub const MAX_NAME_LENGTH: usize = 60;
pub const MAX_DESCRIPTION_LENGTH: usize = 1024;

/// Colors given to new subscriptions, in order of preference.
const COLORS: [&str; 24] = [
    "#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5",
    "#f5ce6e", "#c2726a", "#94c849", "#bd86e5", "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063",
    "#9987e1", "#e4523d", "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462",
];

/// What a user may do with one channel.
#[derive(Clone, Debug)]
pub struct Access {
    pub channel: Channel,
    pub subscribed: bool,
    /// May read the channel's messages.
    pub content: bool,
    /// May see that the channel exists and its settings.
    pub metadata: bool,
    /// May change the channel's settings or archive it.
    pub administer: bool,
}

/// Computes a user's access to a channel.
pub fn access(c: &rusqlite::Connection, user: &User, channel: Channel) -> Result<Access> {
    let subscribed = db::is_subscribed(c, user.id, channel.id)?;
    let public = !channel.invite_only;
    let content = subscribed
        || (public && user.role != Role::Guest)
        || groups::holds(c, user, channel.setting(ChannelSetting::Subscribe))?;
    let administer = user.role.is_admin()
        || groups::holds(c, user, channel.setting(ChannelSetting::AdministerChannel))?;
    Ok(Access {
        metadata: content || administer,
        subscribed,
        content,
        administer,
        channel,
    })
}

/// Who hears of a channel's existence and changes (its events): for a public channel every
/// active member except guests who are not subscribed (whom `access` denies its content), for
/// a private one its subscribers.
pub fn metadata_audience(c: &rusqlite::Connection, ch: &Channel) -> Result<Vec<UserId>> {
    let subscribers = db::subscriber_ids(c, ch.id)?;
    if ch.invite_only {
        return Ok(subscribers);
    }
    Ok(users_db::all(c)?
        .into_iter()
        .filter(|u| u.is_active)
        .filter(|u| u.role != Role::Guest || subscribers.contains(&u.id))
        .map(|u| u.id)
        .collect())
}

fn invalid_channel_id() -> Error {
    Error::bad_request("Invalid channel ID")
}

/// The channel with this id if the user may see it exists (else "Invalid channel ID").
pub fn visible_by_id(c: &rusqlite::Connection, user: &User, id: ChannelId) -> Result<Access> {
    let ch = db::get(c, id)?.ok_or_else(invalid_channel_id)?;
    let a = access(c, user, ch)?;
    if !a.metadata {
        return Err(invalid_channel_id());
    }
    Ok(a)
}

/// Validates and trims a channel name.
pub fn check_name(raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(Error::bad_request("Channel name can't be empty."));
    }
    if name.chars().count() > MAX_NAME_LENGTH {
        return Err(Error::bad_request(format!(
            "Channel name too long (limit: {MAX_NAME_LENGTH} characters)."
        )));
    }
    if let Some(pos) = name.chars().position(|ch| ch.is_control() || ch == '\u{0}') {
        return Err(Error::bad_request(format!(
            "Invalid character in channel name, at position {}.",
            pos + 1
        )));
    }
    Ok(name.to_string())
}

pub fn check_description(d: &str) -> Result<String> {
    if d.contains('\0') {
        return Err(Error::bad_request(
            "description must not contain null bytes",
        ));
    }
    if d.chars().count() > MAX_DESCRIPTION_LENGTH {
        return Err(Error::bad_request(format!(
            "description is too long (limit: {MAX_DESCRIPTION_LENGTH} characters)"
        )));
    }
    Ok(d.trim().replace(['\r', '\n'], " "))
}

/// Parses a group-setting value from a request (an id or `{direct_members, direct_subgroups}`).
pub fn parse_group_setting(name: &str, v: &Value) -> Result<GroupSetting> {
    let bad = || Error::bad_request(format!("{name} is not a valid group-setting value"));
    match v {
        Value::Number(n) => Ok(GroupSetting::Group(GroupId(n.as_i64().ok_or_else(bad)?))),
        Value::Object(o) => {
            let ids = |k: &str| -> Result<Vec<i64>> {
                match o.get(k) {
                    None => Ok(Vec::new()),
                    Some(Value::Array(a)) => a.iter().map(|x| x.as_i64().ok_or_else(bad)).collect(),
                    Some(_) => Err(bad()),
                }
            };
            if o.keys()
                .any(|k| k != "direct_members" && k != "direct_subgroups")
            {
                return Err(bad());
            }
            Ok(GroupSetting::Members {
                users: ids("direct_members")?.into_iter().map(UserId).collect(),
                groups: ids("direct_subgroups")?.into_iter().map(GroupId).collect(),
            }
            .normalized())
        }
        _ => Err(bad()),
    }
}

/// Checks that every group and user a setting names exists and may be used.
fn validate_setting(
    c: &rusqlite::Connection,
    which: ChannelSetting,
    g: &GroupSetting,
) -> Result<()> {
    let (users, groups_named): (Vec<UserId>, Vec<GroupId>) = match g {
        GroupSetting::Group(id) => (vec![], vec![*id]),
        GroupSetting::Members { users, groups } => (users.clone(), groups.clone()),
    };
    for gid in groups_named {
        let info = groups::get(c, gid)?
            .ok_or_else(|| Error::bad_request(format!("Invalid user group ID: {}", gid.0)))?;
        if info.deactivated {
            return Err(Error::bad_request("User group is deactivated."));
        }
        if info.id == crate::model::system_groups::INTERNET {
            return Err(Error::bad_request(format!(
                "'{}' setting cannot be set to 'role:internet' group.",
                which.name()
            )));
        }
    }
    for u in users {
        if !users_db::get(c, u)?.is_some_and(|x| x.is_active) {
            return Err(Error::bad_request(format!("Invalid user ID: {}", u.0)));
        }
    }
    Ok(())
}

/// `realm_default`, `unlimited` or a positive number of days.
pub fn parse_retention(raw: &str) -> Result<Option<i64>> {
    match raw.trim_matches('"') {
        "realm_default" => Ok(None),
        "unlimited" => Ok(Some(-1)),
        n => match n.parse::<i64>() {
            Ok(days) if days >= 1 => Ok(Some(days)),
            _ => Err(Error::bad_request(format!(
                "Bad value for 'message_retention_days': {raw}"
            ))),
        },
    }
}

/// Settings of a channel to create.
#[derive(Clone, Debug, Default)]
pub struct ChannelOptions {
    pub description: Option<String>,
    pub invite_only: bool,
    pub is_web_public: bool,
    pub is_default: bool,
    pub history_public_to_subscribers: Option<bool>,
    pub topics_policy: Option<TopicsPolicy>,
    /// `Some(None)`: the realm default was asked for explicitly.
    pub message_retention_days: Option<Option<i64>>,
    pub folder_id: Option<i64>,
    pub settings: Vec<(ChannelSetting, GroupSetting)>,
    /// Announce the new channels in the realm's new-channel announcements channel.
    pub announce: bool,
}

/// Checks the creator's right to make a channel with these options; who may create public and
/// private channels is the organization's `can_create_*_channel_group` setting.
fn check_create_permission(
    c: &rusqlite::Connection,
    actor: &User,
    opts: &ChannelOptions,
) -> Result<()> {
    if actor.role == Role::Guest {
        return Err(Error::bad_request("Not allowed for guest users"));
    }
    if opts.is_web_public {
        return Err(Error::bad_request("Web-public channels are not enabled."));
    }
    if opts.is_default && !actor.role.is_admin() {
        return Err(Error::not_admin());
    }
    if matches!(opts.message_retention_days, Some(Some(_))) && actor.role != Role::Owner {
        return Err(Error::not_owner());
    }
    if opts.folder_id.is_some() {
        return Err(Error::bad_request("Invalid channel folder ID"));
    }
    let setting = if opts.invite_only {
        realm_settings::CAN_CREATE_PRIVATE_CHANNEL
    } else {
        realm_settings::CAN_CREATE_PUBLIC_CHANNEL
    };
    if !realm_settings::holds(c, actor, setting)? {
        return Err(Error::bad_request("Insufficient permission"));
    }
    Ok(())
}

/// Inserts a new channel inside a write; the caller has checked the name is free.
fn insert_channel(
    tx: &mut WriteTx<'_>,
    actor: &User,
    name: &str,
    opts: &ChannelOptions,
) -> Result<Channel> {
    let mut settings: Vec<GroupSetting> = ChannelSetting::ALL
        .iter()
        .map(|s| s.default_for(actor.id))
        .collect();
    for (which, g) in &opts.settings {
        validate_setting(tx, *which, g)?;
        let i = ChannelSetting::ALL
            .iter()
            .position(|s| s == which)
            .expect("listed");
        settings[i] = g.clone();
    }
    let description = check_description(opts.description.as_deref().unwrap_or(""))?;
    let history_public = if opts.invite_only {
        opts.history_public_to_subscribers.unwrap_or(false)
    } else {
        true
    };
    let mut ch = Channel {
        id: ChannelId(0),
        name: name.to_string(),
        rendered_description: crate::markdown::render(&description),
        description,
        invite_only: opts.invite_only,
        is_web_public: opts.is_web_public,
        history_public_to_subscribers: history_public,
        is_default: opts.is_default,
        topics_policy: opts.topics_policy.unwrap_or(TopicsPolicy::Inherit),
        message_retention_days: opts.message_retention_days.flatten(),
        folder_id: opts.folder_id,
        creator_id: Some(actor.id),
        date_created: crate::time::now_secs(),
        is_archived: false,
        settings,
        first_message_id: None,
    };
    ch.id = db::insert(tx, &ch)?;
    tx.emit(Event::ChannelCreated { channel_id: ch.id });
    Ok(ch)
}

/// Picks a color the user does not use yet, if any is left.
fn pick_color(c: &rusqlite::Connection, user: UserId) -> Result<String> {
    let used = db::colors_of(c, user)?;
    Ok(COLORS
        .iter()
        .find(|col| !used.iter().any(|u| u == *col))
        .unwrap_or(&COLORS[used.len() % COLORS.len()])
        .to_string())
}

fn subscribe_one(
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
        tx.emit(Event::Subscribed {
            user_id: user,
            channel_id: ch,
        });
    }
    Ok(added)
}

/// `POST /channels/create`: a new channel with these subscribers; returns its id.
pub async fn create(
    state: &AppState,
    actor: &User,
    raw_name: &str,
    subscribers: Vec<i64>,
    opts: ChannelOptions,
) -> Result<ChannelId> {
    let name = check_name(raw_name)?;
    let actor = actor.clone();
    let realm_url = state.config.chat.external_url.clone();
    state
        .db
        .write(move |tx| {
            check_create_permission(tx, &actor, &opts)?;
            if db::by_name(tx, &name)?.is_some() {
                return Err(Error::new(
                    ErrorKind::Conflict {
                        code: "CHANNEL_ALREADY_EXISTS",
                    },
                    format!("Channel '{name}' already exists"),
                ));
            }
            let mut users = Vec::with_capacity(subscribers.len());
            for id in subscribers {
                let u = users_db::get(tx, UserId(id))?
                    .filter(|u| u.is_active)
                    .ok_or_else(|| Error::bad_request(format!("Invalid user ID: {id}")))?;
                users.push(u.id);
            }
            let ch = insert_channel(tx, &actor, &name, &opts)?;
            for u in users {
                subscribe_one(tx, u, ch.id, None)?;
            }
            let id = ch.id;
            notices::channels_created(tx, &actor, &[ch], opts.announce, &realm_url)?;
            Ok(id)
        })
        .await
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
    state: &AppState,
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
        || groups::holds(c, actor, a.channel.setting(ChannelSetting::Subscribe))?
        || groups::holds(c, actor, a.channel.setting(ChannelSetting::AddSubscribers))?
        || a.administer && !a.channel.invite_only;
    if !for_others {
        return Ok(self_ok);
    }
    // Adding others: members may add to channels whose content they can access; the channel's
    // own add-subscribers and administer groups always may.
    Ok(
        groups::holds(c, actor, a.channel.setting(ChannelSetting::AddSubscribers))?
            || a.administer && (a.content || a.channel.invite_only && actor.role.is_admin())
            || (actor.role <= Role::Member && a.content),
    )
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
            UserRefArg::Email(e) => super::emails::resolve(c, actor, host, e)?,
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
    state: &AppState,
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
                        || groups::holds(
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
                        tx.emit(Event::Unsubscribed {
                            user_id: *u,
                            channel_id: a.channel.id,
                        });
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

/// Checks a `#rrggbb` color.
pub fn check_color(c: &str) -> Result<()> {
    let ok = c.len() == 7 && c.starts_with('#') && c[1..].bytes().all(|b| b.is_ascii_hexdigit());
    if ok {
        Ok(())
    } else {
        Err(Error::bad_request("color is not a valid hex color code"))
    }
}

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
    state: &AppState,
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
pub async fn list(state: &AppState, actor: &User, f: ListFilter) -> Result<Vec<Listed>> {
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
pub async fn get(state: &AppState, actor: &User, id: ChannelId) -> Result<Listed> {
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
pub async fn id_by_name(state: &AppState, actor: &User, name: String) -> Result<ChannelId> {
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
pub async fn members(state: &AppState, actor: &User, id: ChannelId) -> Result<Vec<UserId>> {
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

/// A requested change of a group setting: the new value and, optionally, the expected old one.
#[derive(Clone, Debug)]
pub struct SettingChange {
    pub which: ChannelSetting,
    pub new: GroupSetting,
    pub old: Option<GroupSetting>,
}

/// What `PATCH /streams/{id}` may change.
#[derive(Clone, Debug, Default)]
pub struct ChannelUpdate {
    pub new_name: Option<String>,
    pub description: Option<String>,
    pub invite_only: Option<bool>,
    pub is_web_public: Option<bool>,
    pub history_public_to_subscribers: Option<bool>,
    pub is_default: Option<bool>,
    pub message_retention_days: Option<Option<i64>>,
    pub topics_policy: Option<TopicsPolicy>,
    pub folder_id: Option<Option<i64>>,
    pub settings: Vec<SettingChange>,
}

/// `PATCH /streams/{id}`: all changes apply together or not at all.
pub async fn update(
    state: &AppState,
    actor: &User,
    id: ChannelId,
    up: ChannelUpdate,
) -> Result<()> {
    let new_name = up.new_name.as_deref().map(check_name).transpose()?;
    let description = up
        .description
        .as_deref()
        .map(check_description)
        .transpose()?;
    if up.is_web_public == Some(true) {
        return Err(Error::bad_request("Web-public channels are not enabled."));
    }
    if let Some(Some(_)) = up.folder_id {
        return Err(Error::bad_request("Invalid channel folder ID"));
    }
    let actor = actor.clone();
    state
        .db
        .write(move |tx| {
            let a = visible_by_id(tx, &actor, id)?;
            if !a.administer {
                return Err(Error::coded(
                    "CANNOT_ADMINISTER_CHANNEL",
                    "You do not have permission to administer this channel.",
                    vec![],
                ));
            }
            let mut ch = a.channel.clone();
            let mut changed: Vec<&'static str> = Vec::new();
            if let Some(name) = new_name.filter(|n| *n != ch.name) {
                if db::by_name(tx, &name)?.is_some_and(|o| o.id != ch.id) {
                    return Err(Error::bad_request(format!("Channel name '{name}' is already taken.")));
                }
                ch.name = name;
                changed.push("name");
            }
            if let Some(d) = description.filter(|d| *d != ch.description) {
                ch.rendered_description = crate::markdown::render(&d);
                ch.description = d;
                changed.push("description");
            }
            if let Some(p) = up.invite_only.filter(|p| *p != ch.invite_only) {
                if !p && !actor.role.is_admin() && !a.content {
                    return Err(Error::bad_request("Channel content access is required."));
                }
                ch.invite_only = p;
                if !p {
                    ch.history_public_to_subscribers = true;
                }
                changed.push("invite_only");
            }
            if let Some(h) = up.history_public_to_subscribers {
                if !ch.invite_only && !h {
                    return Err(Error::bad_request(
                        "Invalid parameters: history_public_to_subscribers must be true for public channels",
                    ));
                }
                if h != ch.history_public_to_subscribers {
                    ch.history_public_to_subscribers = h;
                    changed.push("history_public_to_subscribers");
                }
            }
            if let Some(d) = up.is_default.filter(|d| *d != ch.is_default) {
                if !actor.role.is_admin() {
                    return Err(Error::not_admin());
                }
                if d && ch.invite_only {
                    return Err(Error::bad_request("A default channel cannot be private."));
                }
                ch.is_default = d;
                changed.push("is_default");
            }
            if let Some(r) = up.message_retention_days.filter(|r| *r != ch.message_retention_days) {
                if actor.role != Role::Owner {
                    return Err(Error::not_owner());
                }
                ch.message_retention_days = r;
                changed.push("message_retention_days");
            }
            if let Some(p) = up.topics_policy.filter(|p| *p != ch.topics_policy) {
                if p == TopicsPolicy::EmptyTopicOnly
                    && topics_db::channel_has_named_topic(tx, ch.id)?
                {
                    return Err(Error::bad_request(
                        "To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.",
                    ));
                }
                ch.topics_policy = p;
                changed.push("topics_policy");
            }
            for change in &up.settings {
                let i = ChannelSetting::ALL.iter().position(|s| *s == change.which).expect("listed");
                if let Some(old) = &change.old
                    && old.clone().normalized() != ch.settings[i].clone().normalized()
                {
                    return Err(Error::coded(
                        "EXPECTATION_MISMATCH",
                        "'old' value does not match the expected value.",
                        vec![],
                    ));
                }
                validate_setting(tx, change.which, &change.new)?;
                if change.new != ch.settings[i] {
                    ch.settings[i] = change.new.clone();
                    changed.push(change.which.name());
                }
            }
            if changed.is_empty() {
                return Ok(());
            }
            db::update(tx, &ch)?;
            for property in changed {
                tx.emit(Event::ChannelUpdated { channel_id: ch.id, property });
            }
            Ok(())
        })
        .await
}

/// `DELETE /streams/{id}`: archives the channel.
pub async fn archive(state: &AppState, actor: &User, id: ChannelId) -> Result<()> {
    let actor = actor.clone();
    state
        .db
        .write(move |tx| {
            let a = visible_by_id(tx, &actor, id)?;
            if !a.administer {
                return Err(Error::coded(
                    "CANNOT_ADMINISTER_CHANNEL",
                    "You do not have permission to administer this channel.",
                    vec![],
                ));
            }
            if a.channel.is_archived {
                return Err(Error::bad_request("Channel is already deactivated"));
            }
            let mut ch = a.channel;
            ch.is_archived = true;
            ch.is_default = false;
            db::update(tx, &ch)?;
            tx.emit(Event::ChannelArchived { channel_id: ch.id });
            Ok(())
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
    state: &AppState,
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
                match change.property.as_str() {
                    "color" => {
                        let c = change
                            .value
                            .as_str()
                            .ok_or_else(|| Error::bad_request("color is not a string"))?;
                        check_color(c)?;
                        sub.color = c.to_lowercase();
                    }
                    "is_muted" => sub.is_muted = flag(&change.value)?,
                    "in_home_view" => sub.is_muted = !flag(&change.value)?,
                    "pin_to_top" => sub.pin_to_top = flag(&change.value)?,
                    "desktop_notifications" => {
                        sub.desktop_notifications = Some(flag(&change.value)?)
                    }
                    "audible_notifications" => {
                        sub.audible_notifications = Some(flag(&change.value)?)
                    }
                    "push_notifications" => sub.push_notifications = Some(flag(&change.value)?),
                    "email_notifications" => sub.email_notifications = Some(flag(&change.value)?),
                    "wildcard_mentions_notify" => {
                        sub.wildcard_mentions_notify = Some(flag(&change.value)?)
                    }
                    other => {
                        return Err(Error::bad_request(format!(
                            "Unknown subscription property: {other}"
                        )));
                    }
                }
                db::update_subscription(tx, &sub)?;
                tx.emit(Event::SubscriptionPropertyChanged {
                    user_id: actor_id,
                    channel_id: ch,
                    property: change.property.clone(),
                });
            }
            Ok(())
        })
        .await
}
