//! User group records: a group as stored, and the permission settings every group carries.

use crate::ids::{GroupId, UserId};

use super::{GroupSetting, system_groups as sys};

/// The permission settings of a user group, in a fixed order (see [`GroupPermission::ALL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupPermission {
    AddMembers,
    Join,
    Leave,
    Manage,
    Mention,
    RemoveMembers,
}

impl GroupPermission {
    pub const ALL: [GroupPermission; 6] = [
        GroupPermission::AddMembers,
        GroupPermission::Join,
        GroupPermission::Leave,
        GroupPermission::Manage,
        GroupPermission::Mention,
        GroupPermission::RemoveMembers,
    ];

    /// The API name, which is also the database column.
    pub fn name(self) -> &'static str {
        match self {
            GroupPermission::AddMembers => "can_add_members_group",
            GroupPermission::Join => "can_join_group",
            GroupPermission::Leave => "can_leave_group",
            GroupPermission::Manage => "can_manage_group",
            GroupPermission::Mention => "can_mention_group",
            GroupPermission::RemoveMembers => "can_remove_members_group",
        }
    }

    /// Upstream's default for a new group created by `creator`.
    pub fn default_for(self, creator: UserId) -> GroupSetting {
        match self {
            GroupPermission::AddMembers | GroupPermission::Manage => GroupSetting::Members {
                users: vec![creator],
                groups: vec![],
            },
            GroupPermission::Join | GroupPermission::RemoveMembers => {
                GroupSetting::Group(sys::NOBODY)
            }
            GroupPermission::Leave | GroupPermission::Mention => GroupSetting::Group(sys::EVERYONE),
        }
    }

    /// Whether the setting may name `role:everyone` (none may name `role:internet`).
    pub fn allows_everyone(self) -> bool {
        matches!(self, GroupPermission::Leave | GroupPermission::Mention)
    }

    /// Whether the setting may name `role:owners` (not `can_mention_group` at feature level
    /// 382).
    pub fn allows_owners(self) -> bool {
        self != GroupPermission::Mention
    }
}

/// A user group as stored (members and subgroups are read separately).
#[derive(Clone, Debug, PartialEq)]
pub struct UserGroup {
    pub id: GroupId,
    pub name: String,
    pub description: String,
    pub is_system_group: bool,
    pub deactivated: bool,
    pub creator_id: Option<UserId>,
    pub date_created: Option<i64>,
    /// In [`GroupPermission::ALL`] order.
    pub settings: Vec<GroupSetting>,
}

impl UserGroup {
    pub fn setting(&self, which: GroupPermission) -> &GroupSetting {
        let i = GroupPermission::ALL
            .iter()
            .position(|p| *p == which)
            .expect("every permission is listed");
        &self.settings[i]
    }
}

/// A group with its active direct members and its direct subgroups, as listings show it.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupListing {
    pub group: UserGroup,
    pub members: Vec<UserId>,
    pub direct_subgroups: Vec<GroupId>,
}
