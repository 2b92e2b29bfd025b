//! Changing a channel: `PATCH /streams/{id}` (all changes together or none, each named by a
//! [`ChannelProperty`] in its event) and archiving.

use crate::db::channels as db;
use crate::db::topics as topics_db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{ChannelArchived, ChannelUpdated, Event};
use crate::ids::ChannelId;
use crate::model::{ChannelProperty, ChannelSetting, GroupSetting, Role, TopicsPolicy, User};

use super::access::visible_by_id;
use super::values::{check_description, check_name, validate_setting};

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
pub async fn update(state: &Core, actor: &User, id: ChannelId, up: ChannelUpdate) -> Result<()> {
    let new_name = up.new_name.as_deref().map(check_name).transpose()?;
    let description = up
        .description
        .as_deref()
        .map(check_description)
        .transpose()?;
    if up.is_web_public == Some(true) {
        return Err(Error::bad_request("Web-public channels are not enabled."));
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
            let mut changed: Vec<ChannelProperty> = Vec::new();
            if let Some(name) = new_name.filter(|n| *n != ch.name) {
                if db::by_name(tx, &name)?.is_some_and(|o| o.id != ch.id) {
                    return Err(Error::bad_request(format!("Channel name '{name}' is already taken.")));
                }
                ch.name = name;
                changed.push(ChannelProperty::Name);
            }
            if let Some(d) = description.filter(|d| *d != ch.description) {
                ch.rendered_description = crate::markdown::render(&d);
                ch.description = d;
                changed.push(ChannelProperty::Description);
            }
            if let Some(p) = up.invite_only.filter(|p| *p != ch.invite_only) {
                if !p && !actor.role.is_admin() && !a.content {
                    return Err(Error::bad_request("Channel content access is required."));
                }
                ch.invite_only = p;
                if !p {
                    ch.history_public_to_subscribers = true;
                }
                changed.push(ChannelProperty::InviteOnly);
            }
            if let Some(h) = up.history_public_to_subscribers {
                if !ch.invite_only && !h {
                    return Err(Error::bad_request(
                        "Invalid parameters: history_public_to_subscribers must be true for public channels",
                    ));
                }
                if h != ch.history_public_to_subscribers {
                    ch.history_public_to_subscribers = h;
                    changed.push(ChannelProperty::HistoryPublicToSubscribers);
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
                changed.push(ChannelProperty::IsDefault);
            }
            if let Some(r) = up.message_retention_days.filter(|r| *r != ch.message_retention_days) {
                if actor.role != Role::Owner {
                    return Err(Error::not_owner());
                }
                ch.message_retention_days = r;
                changed.push(ChannelProperty::MessageRetentionDays);
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
                changed.push(ChannelProperty::TopicsPolicy);
            }
            if let Some(folder) = up.folder_id.filter(|f| *f != ch.folder_id) {
                if let Some(f) = folder {
                    crate::domain::channel_folders::usable(tx, f)?;
                }
                ch.folder_id = folder;
                changed.push(ChannelProperty::FolderId);
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
                    changed.push(ChannelProperty::Setting(change.which));
                }
            }
            if changed.is_empty() {
                return Ok(());
            }
            db::update(tx, &ch)?;
            for property in changed {
                tx.emit(Event::ChannelUpdated(ChannelUpdated { channel_id: ch.id, property }));
            }
            Ok(())
        })
        .await
}

/// `DELETE /streams/{id}`: archives the channel.
pub async fn archive(state: &Core, actor: &User, id: ChannelId) -> Result<()> {
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
            tx.emit(Event::ChannelArchived(ChannelArchived {
                channel_id: ch.id,
            }));
            Ok(())
        })
        .await
}
