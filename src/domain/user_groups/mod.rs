//! User groups, one idea per file: members create named groups, edit, join, leave, nest and
//! deactivate them under each group's own permissions (`can_*_group`) and the organization's;
//! the role-based system groups follow roles and are never edited. Whether a user holds a
//! group-setting value, through nested subgroups and a per-generation cache, is `permission`
//! (the check behind every permission decision); the input rules that refuse a request are
//! `checks`; reads for the group endpoints are `listing`; creating, changing and deactivating
//! groups is `management`; members and subgroups are `membership`; the settings that keep a
//! group from being deactivated are `objections`. No SQL, no wire shapes.

mod checks;
mod listing;
mod management;
mod membership;
mod objections;
mod permission;

pub use checks::{MAX_NAME_LENGTH, check_name};
pub use listing::{is_member, list, members, subgroups};
pub use management::{GroupUpdate, NewGroup, SettingChange, create, deactivate, update};
pub use membership::{
    MemberChange, remove_from_all, role_events, update_members, update_subgroups,
};
pub use objections::Objection;
pub use permission::{
    check_mention, holds, holds_realm, may_add_members, role_in_system_group, users_holding,
};
