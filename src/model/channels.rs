//! Channel, subscription and group-setting records.

use crate::ids::{ChannelId, GroupId, UserId};

/// The fixed ids of the system groups (seeded by `schema.sql`).
pub mod system_groups {
    use crate::ids::GroupId;
    pub const NOBODY: GroupId = GroupId(1);
    pub const OWNERS: GroupId = GroupId(2);
    pub const ADMINISTRATORS: GroupId = GroupId(3);
    pub const MODERATORS: GroupId = GroupId(4);
    pub const FULL_MEMBERS: GroupId = GroupId(5);
    pub const MEMBERS: GroupId = GroupId(6);
    pub const EVERYONE: GroupId = GroupId(7);
    pub const INTERNET: GroupId = GroupId(8);

    /// The role whose holders are the direct members of a system group (the rest come in
    /// through the nested subgroup, e.g. owners are administrators through `role:owners`).
    pub fn direct_role(group: GroupId) -> Option<crate::model::Role> {
        use crate::model::Role;
        Some(match group {
            OWNERS => Role::Owner,
            ADMINISTRATORS => Role::Administrator,
            MODERATORS => Role::Moderator,
            FULL_MEMBERS => Role::Member,
            EVERYONE => Role::Guest,
            _ => return None,
        })
    }

    /// The system group whose direct members hold `role` (the inverse of [`direct_role`]).
    pub fn of_role(role: crate::model::Role) -> GroupId {
        use crate::model::Role;
        match role {
            Role::Owner => OWNERS,
            Role::Administrator => ADMINISTRATORS,
            Role::Moderator => MODERATORS,
            Role::Member => FULL_MEMBERS,
            Role::Guest => EVERYONE,
        }
    }

    /// The system group nested directly inside this one.
    pub fn direct_subgroup(group: GroupId) -> Option<GroupId> {
        Some(match group {
            ADMINISTRATORS => OWNERS,
            MODERATORS => ADMINISTRATORS,
            FULL_MEMBERS => MODERATORS,
            MEMBERS => FULL_MEMBERS,
            EVERYONE => MEMBERS,
            INTERNET => EVERYONE,
            _ => return None,
        })
    }
}

/// Who holds a permission: one group, or a set of users and groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupSetting {
    Group(GroupId),
    Members {
        users: Vec<UserId>,
        groups: Vec<GroupId>,
    },
}

impl GroupSetting {
    /// The canonical form: an anonymous set holding exactly one group and no users is that group.
    pub fn normalized(self) -> GroupSetting {
        match self {
            GroupSetting::Members { users, groups } if users.is_empty() && groups.len() == 1 => {
                GroupSetting::Group(groups[0])
            }
            GroupSetting::Members {
                mut users,
                mut groups,
            } => {
                users.sort_unstable();
                users.dedup();
                groups.sort_unstable();
                groups.dedup();
                GroupSetting::Members { users, groups }
            }
            g => g,
        }
    }
}

/// The stored text of a group setting, one column per setting: a group id (`7`) or the set
/// `{"direct_members":[1,2],"direct_subgroups":[3]}`. Written and read here, by hand, so the
/// storage layer handles plain text and builds no JSON.
impl GroupSetting {
    pub fn to_stored_text(&self) -> String {
        fn list(ids: impl Iterator<Item = i64>) -> String {
            ids.map(|i| i.to_string()).collect::<Vec<_>>().join(",")
        }
        match self {
            GroupSetting::Group(id) => id.0.to_string(),
            GroupSetting::Members { users, groups } => format!(
                "{{\"direct_members\":[{}],\"direct_subgroups\":[{}]}}",
                list(users.iter().map(|u| u.0)),
                list(groups.iter().map(|g| g.0))
            ),
        }
    }

    /// Reads [`GroupSetting::to_stored_text`]'s form (whitespace allowed); anything else is
    /// unreadable and fails closed to the `nobody` group.
    pub fn from_stored_text(text: &str) -> GroupSetting {
        // The usual form, a bare group id, without the copy below.
        if let Ok(id) = text.parse::<i64>() {
            return GroupSetting::Group(GroupId(id));
        }
        // Text without whitespace (as `to_stored_text` writes it) is read in place.
        let compact: std::borrow::Cow<'_, str> = if text.chars().any(char::is_whitespace) {
            text.chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .into()
        } else {
            text.into()
        };
        if let Ok(id) = compact.parse::<i64>() {
            return GroupSetting::Group(GroupId(id));
        }
        let ids = |start: &str| -> Vec<i64> {
            compact
                .find(start)
                .map(|at| &compact[at + start.len()..])
                .and_then(|rest| rest.split_once(']'))
                .map(|(inner, _)| inner.split(',').filter_map(|s| s.parse().ok()).collect())
                .unwrap_or_default()
        };
        if compact.starts_with('{') && compact.ends_with('}') {
            return GroupSetting::Members {
                users: ids("\"direct_members\":[")
                    .into_iter()
                    .map(UserId)
                    .collect(),
                groups: ids("\"direct_subgroups\":[")
                    .into_iter()
                    .map(GroupId)
                    .collect(),
            };
        }
        GroupSetting::Group(system_groups::NOBODY)
    }
}

/// How a channel treats the empty topic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopicsPolicy {
    Inherit,
    AllowEmptyTopic,
    DisableEmptyTopic,
    EmptyTopicOnly,
}

impl TopicsPolicy {
    pub fn from_name(s: &str) -> Option<TopicsPolicy> {
        Some(match s {
            "inherit" => TopicsPolicy::Inherit,
            "allow_empty_topic" => TopicsPolicy::AllowEmptyTopic,
            "disable_empty_topic" => TopicsPolicy::DisableEmptyTopic,
            "empty_topic_only" => TopicsPolicy::EmptyTopicOnly,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            TopicsPolicy::Inherit => "inherit",
            TopicsPolicy::AllowEmptyTopic => "allow_empty_topic",
            TopicsPolicy::DisableEmptyTopic => "disable_empty_topic",
            TopicsPolicy::EmptyTopicOnly => "empty_topic_only",
        }
    }
}

/// The permission settings of a channel, in a fixed order (see [`ChannelSetting::ALL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelSetting {
    AddSubscribers,
    AdministerChannel,
    CreateTopic,
    DeleteAnyMessage,
    DeleteOwnMessage,
    MoveMessagesOutOfChannel,
    MoveMessagesWithinChannel,
    RemoveSubscribers,
    ResolveTopics,
    SendMessage,
    Subscribe,
}

impl ChannelSetting {
    pub const ALL: [ChannelSetting; 11] = [
        ChannelSetting::AddSubscribers,
        ChannelSetting::AdministerChannel,
        ChannelSetting::CreateTopic,
        ChannelSetting::DeleteAnyMessage,
        ChannelSetting::DeleteOwnMessage,
        ChannelSetting::MoveMessagesOutOfChannel,
        ChannelSetting::MoveMessagesWithinChannel,
        ChannelSetting::RemoveSubscribers,
        ChannelSetting::ResolveTopics,
        ChannelSetting::SendMessage,
        ChannelSetting::Subscribe,
    ];

    /// The API name, which is also the database column.
    pub fn name(self) -> &'static str {
        match self {
            ChannelSetting::AddSubscribers => "can_add_subscribers_group",
            ChannelSetting::AdministerChannel => "can_administer_channel_group",
            ChannelSetting::CreateTopic => "can_create_topic_group",
            ChannelSetting::DeleteAnyMessage => "can_delete_any_message_group",
            ChannelSetting::DeleteOwnMessage => "can_delete_own_message_group",
            ChannelSetting::MoveMessagesOutOfChannel => "can_move_messages_out_of_channel_group",
            ChannelSetting::MoveMessagesWithinChannel => "can_move_messages_within_channel_group",
            ChannelSetting::RemoveSubscribers => "can_remove_subscribers_group",
            ChannelSetting::ResolveTopics => "can_resolve_topics_group",
            ChannelSetting::SendMessage => "can_send_message_group",
            ChannelSetting::Subscribe => "can_subscribe_group",
        }
    }

    /// Upstream's default for a new channel created by `creator`.
    pub fn default_for(self, creator: UserId) -> GroupSetting {
        use system_groups as g;
        match self {
            ChannelSetting::AdministerChannel => GroupSetting::Members {
                users: vec![creator],
                groups: vec![],
            },
            ChannelSetting::RemoveSubscribers => GroupSetting::Group(g::ADMINISTRATORS),
            ChannelSetting::SendMessage
            | ChannelSetting::CreateTopic
            | ChannelSetting::DeleteOwnMessage => GroupSetting::Group(g::EVERYONE),
            ChannelSetting::AddSubscribers
            | ChannelSetting::DeleteAnyMessage
            | ChannelSetting::MoveMessagesOutOfChannel
            | ChannelSetting::MoveMessagesWithinChannel
            | ChannelSetting::ResolveTopics
            | ChannelSetting::Subscribe => GroupSetting::Group(g::NOBODY),
        }
    }
}

/// A channel as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    pub id: ChannelId,
    pub name: String,
    pub description: String,
    pub rendered_description: String,
    pub invite_only: bool,
    pub is_web_public: bool,
    pub history_public_to_subscribers: bool,
    pub is_default: bool,
    pub topics_policy: TopicsPolicy,
    /// `None`: the realm default; `Some(-1)`: unlimited.
    pub message_retention_days: Option<i64>,
    pub folder_id: Option<i64>,
    pub creator_id: Option<UserId>,
    pub date_created: i64,
    pub is_archived: bool,
    /// In [`ChannelSetting::ALL`] order.
    pub settings: Vec<GroupSetting>,
    /// Id of the oldest message still in the channel, if any.
    pub first_message_id: Option<i64>,
}

impl Channel {
    pub fn setting(&self, which: ChannelSetting) -> &GroupSetting {
        let i = ChannelSetting::ALL
            .iter()
            .position(|s| *s == which)
            .expect("every setting is listed");
        &self.settings[i]
    }
}

/// A user's (possibly past) subscription and its personal settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Subscription {
    pub channel_id: ChannelId,
    pub user_id: UserId,
    pub active: bool,
    pub color: String,
    pub is_muted: bool,
    pub pin_to_top: bool,
    pub desktop_notifications: Option<bool>,
    pub audible_notifications: Option<bool>,
    pub push_notifications: Option<bool>,
    pub email_notifications: Option<bool>,
    pub wildcard_mentions_notify: Option<bool>,
}

/// Activity figures shown with a channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChannelStats {
    pub subscriber_count: i64,
    /// Average messages per week over the last four weeks; `None` for channels younger than a
    /// week (Zulip's "new channel").
    pub weekly_traffic: Option<i64>,
    /// A message was sent in the last week.
    pub recently_active: bool,
}

/// A folder administrators sort channels into.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelFolder {
    pub id: crate::ids::ChannelFolderId,
    pub name: String,
    pub description: String,
    pub rendered_description: String,
    pub creator_id: Option<UserId>,
    /// UNIX seconds.
    pub date_created: i64,
    pub is_archived: bool,
}

#[cfg(test)]
mod stored_text_tests {
    use super::*;

    #[test]
    fn group_settings_round_trip_through_their_stored_text() {
        let set = GroupSetting::Members {
            users: vec![UserId(1), UserId(22)],
            groups: vec![GroupId(3)],
        };
        let text = set.to_stored_text();
        assert_eq!(text, r#"{"direct_members":[1,22],"direct_subgroups":[3]}"#);
        assert_eq!(GroupSetting::from_stored_text(&text), set);
        let empty = GroupSetting::Members {
            users: vec![],
            groups: vec![],
        };
        assert_eq!(
            empty.to_stored_text(),
            r#"{"direct_members":[],"direct_subgroups":[]}"#
        );
        assert_eq!(
            GroupSetting::from_stored_text(&empty.to_stored_text()),
            empty
        );
        assert_eq!(GroupSetting::Group(GroupId(7)).to_stored_text(), "7");
        assert_eq!(
            GroupSetting::from_stored_text("7"),
            GroupSetting::Group(GroupId(7))
        );
        assert_eq!(
            GroupSetting::from_stored_text(r#"{ "direct_members": [4, 5] }"#),
            GroupSetting::Members {
                users: vec![UserId(4), UserId(5)],
                groups: vec![],
            }
        );
        assert_eq!(
            GroupSetting::from_stored_text("garbage"),
            GroupSetting::Group(system_groups::NOBODY)
        );
    }
}
