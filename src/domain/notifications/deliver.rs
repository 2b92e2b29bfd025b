//! Where a due notification goes: a push through `domain::push` (the bouncer) and a
//! missed-message email into its batch (`notifications::email`), with their outcomes reduced to
//! what the job pass acts on. No SQL text, no HTTP.

use crate::db::WriteTx;
use crate::domain::core::Core;
use crate::error::Result;
use crate::ids::{GroupId, MessageId, UserId};

use super::Trigger;

/// What became of a push, as the job pass sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushResult {
    /// The bouncer took it.
    Sent,
    /// Nothing to send (no device, push not configured).
    Nothing,
    /// The bouncer could not be reached or failed; try again later.
    RetryLater,
    /// Refused for good.
    Failed,
}

/// Sends the push of one message to one user.
pub async fn push_message(
    _core: &Core,
    _user: UserId,
    _message: MessageId,
    _trigger: Trigger,
    _group: Option<GroupId>,
) -> PushResult {
    PushResult::Nothing
}

/// Sends the remove notification of these messages to one user.
pub async fn push_remove(_core: &Core, _user: UserId, _messages: &[MessageId]) -> PushResult {
    PushResult::Nothing
}

/// Adds one message to the user's missed-message email batch.
pub fn email_enqueue(
    _tx: &mut WriteTx<'_>,
    _user: UserId,
    _message: MessageId,
    _trigger: Trigger,
    _group: Option<GroupId>,
    _now_secs: i64,
) -> Result<()> {
    Ok(())
}
