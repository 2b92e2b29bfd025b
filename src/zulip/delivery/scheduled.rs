//! Delivery of scheduled message and reminder events, to their owner only.

use crate::db::scheduled as scheduled_db;
use crate::error::Result;
use crate::events::ScheduledOp;
use crate::ids::{ScheduledId, UserId};
use crate::model::ScheduledKind;
use crate::zulip::ChatState;
use crate::zulip::wire::{events, scheduled as wire};

use super::push_to_users;

/// `scheduled_messages` or `reminders`: an item as it is now, or its removal.
pub(super) async fn changed(
    state: &ChatState,
    seq: u64,
    owner: UserId,
    id: ScheduledId,
    kind: ScheduledKind,
    op: ScheduledOp,
) -> Result<()> {
    let event_type = match kind {
        ScheduledKind::Message => "scheduled_messages",
        ScheduledKind::Reminder => "reminders",
    };
    let body = match op {
        ScheduledOp::Removed => events::scheduled_removed(kind, id.0),
        ScheduledOp::Added | ScheduledOp::Updated => {
            let Some(item) = state.db.read(move |c| scheduled_db::get_any(c, id)).await? else {
                return Ok(());
            };
            events::scheduled_changed(&wire::item(&item), kind, op == ScheduledOp::Added)
        }
    };
    push_to_users(state, seq, Some(&[owner]), event_type, &body);
    Ok(())
}
