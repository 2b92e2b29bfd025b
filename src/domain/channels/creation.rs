//! Creating channels: who may create public and private ones, and the insert with its
//! creation notice and event. Subscribing the initial members is `subscriptions`'.

use crate::db::{WriteTx, channels as db, users as users_db};
use crate::domain::core::Core;
use crate::domain::notices;
use crate::error::{Error, ErrorKind, Result};
use crate::events::{ChannelCreated, Event};
use crate::ids::{ChannelId, UserId};
use crate::model::{Channel, ChannelSetting, GroupSetting, Role, TopicsPolicy, User};

use crate::domain::{realm_settings, user_groups};

use super::subscriptions::subscribe_one;
use super::values::{check_description, check_name, validate_setting};

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
pub(super) fn check_create_permission(
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
    if let Some(folder) = opts.folder_id {
        crate::domain::channel_folders::usable(c, folder)?;
    }
    let setting = if opts.invite_only {
        realm_settings::CAN_CREATE_PRIVATE_CHANNEL
    } else {
        realm_settings::CAN_CREATE_PUBLIC_CHANNEL
    };
    if !user_groups::holds_realm(c, actor, setting)? {
        return Err(Error::bad_request("Insufficient permission"));
    }
    Ok(())
}

/// Inserts a new channel inside a write; the caller has checked the name is free.
pub(super) fn insert_channel(
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
    tx.emit(Event::ChannelCreated(ChannelCreated { channel_id: ch.id }));
    Ok(ch)
}

/// `POST /channels/create`: a new channel with these subscribers; returns its id.
pub async fn create(
    state: &Core,
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
