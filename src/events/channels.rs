//! The payloads of events about channels, subscriptions, channel folders and user groups.
//!
//! Plain data with newtype ids; must not touch the database or know any wire format.

use crate::ids::{ChannelFolderId, ChannelId, GroupId, UserId};
use crate::model::{ChannelProperty, GroupPermission, SubscriptionProperty};

/// A channel was created.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelCreated {
    pub channel_id: ChannelId,
}

/// A channel setting changed.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelUpdated {
    pub channel_id: ChannelId,
    pub property: ChannelProperty,
}

/// A channel was archived.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelArchived {
    pub channel_id: ChannelId,
}

/// A user was subscribed to a channel.
#[derive(Clone, Debug, PartialEq)]
pub struct Subscribed {
    pub user_id: UserId,
    pub channel_id: ChannelId,
}

/// A user was unsubscribed from a channel.
#[derive(Clone, Debug, PartialEq)]
pub struct Unsubscribed {
    pub user_id: UserId,
    pub channel_id: ChannelId,
}

/// A personal subscription setting changed.
#[derive(Clone, Debug, PartialEq)]
pub struct SubscriptionPropertyChanged {
    pub user_id: UserId,
    pub channel_id: ChannelId,
    pub property: SubscriptionProperty,
}

/// A channel folder was created.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelFolderAdded {
    pub folder_id: ChannelFolderId,
}

/// One attribute of a channel folder changed.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelFolderUpdated {
    pub folder_id: ChannelFolderId,
    pub change: FolderChange,
}

/// The attribute of a channel folder that changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FolderChange {
    Name,
    /// The description and its rendering.
    Description,
    Archived,
}

/// A named user group was created.
#[derive(Clone, Debug, PartialEq)]
pub struct UserGroupAdded {
    pub group_id: GroupId,
}

/// One attribute of a named user group changed (deactivation included).
#[derive(Clone, Debug, PartialEq)]
pub struct UserGroupUpdated {
    pub group_id: GroupId,
    pub change: GroupChange,
}

/// The attribute of a user group that changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupChange {
    Name,
    Description,
    Setting(GroupPermission),
    Deactivated,
}

/// Users joined (`add`) or left a group's direct members.
#[derive(Clone, Debug, PartialEq)]
pub struct UserGroupMembers {
    pub group_id: GroupId,
    pub user_ids: Vec<UserId>,
    pub add: bool,
}

/// Groups became (`add`) or stopped being a group's direct subgroups.
#[derive(Clone, Debug, PartialEq)]
pub struct UserGroupSubgroups {
    pub group_id: GroupId,
    pub subgroup_ids: Vec<GroupId>,
    pub add: bool,
}
