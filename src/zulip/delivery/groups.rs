//! `user_group` events: every queue hears of groups being created, changed, joined, left and
//! nested; a deactivation is an update for clients that list deactivated groups and a removal
//! for the others.

use crate::db::groups as groups_db;
use crate::error::Result;
use crate::events::GroupChange;
use crate::ids::{GroupId, UserId};
use crate::zulip::ChatState;
use crate::zulip::wire::{self, events};

use super::{event_json, push_to_users, queues_wanting};

/// A new group, as it is now.
pub(super) async fn added(state: &ChatState, seq: u64, id: GroupId) -> Result<()> {
    let listing = state.db.read(move |c| groups_db::listing(c, id)).await?;
    if let Some(l) = listing {
        let body = events::user_group_added(wire::user_group(&l));
        push_to_users(state, seq, None, "user_group", &body);
    }
    Ok(())
}

/// A changed attribute, as the group is now.
pub(super) async fn updated(
    state: &ChatState,
    seq: u64,
    id: GroupId,
    change: GroupChange,
) -> Result<()> {
    let Some(g) = state.db.read(move |c| groups_db::record(c, id)).await? else {
        return Ok(());
    };
    let body = events::user_group_updated(&g, change);
    if change != GroupChange::Deactivated {
        push_to_users(state, seq, None, "user_group", &body);
        return Ok(());
    }
    let wanted = queues_wanting(state, seq, None, "user_group");
    if wanted.is_empty() {
        return Ok(());
    }
    let update = event_json(&body);
    let remove = event_json(&events::user_group_removed(id));
    for q in wanted {
        let json = if q.options.include_deactivated_groups {
            &update
        } else {
            &remove
        };
        state.queues.push(&q, std::sync::Arc::clone(json));
    }
    Ok(())
}

/// Users joined or left a group.
pub(super) fn members(state: &ChatState, seq: u64, id: GroupId, users: &[UserId], add: bool) {
    let body = events::user_group_members(id, users, add);
    push_to_users(state, seq, None, "user_group", &body);
}

/// Subgroups were added or removed.
pub(super) fn subgroups(state: &ChatState, seq: u64, id: GroupId, subs: &[GroupId], add: bool) {
    let body = events::user_group_subgroups(id, subs, add);
    push_to_users(state, seq, None, "user_group", &body);
}
