//! Where a due push goes: `domain::push` (the bouncer), with its outcome reduced to what the
//! job pass acts on. No SQL text, no HTTP.

use crate::domain::core::Core;
use crate::error::Result;
use crate::ids::{GroupId, MessageId, UserId};

use super::Trigger;
use crate::domain::push::PushOutcome;

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
    core: &Core,
    user: UserId,
    message: MessageId,
    trigger: Trigger,
    group: Option<GroupId>,
) -> PushResult {
    let outcome = crate::domain::push::send_message_push(core, user, message, trigger, group).await;
    reduce(outcome, "message")
}

/// Sends the remove notification of these messages to one user.
pub async fn push_remove(core: &Core, user: UserId, messages: &[MessageId]) -> PushResult {
    let outcome = crate::domain::push::send_remove_push(core, user, messages).await;
    reduce(outcome, "remove")
}

fn reduce(outcome: Result<PushOutcome>, what: &'static str) -> PushResult {
    match outcome {
        Ok(PushOutcome::Sent) => PushResult::Sent,
        Ok(PushOutcome::NothingToSend) => PushResult::Nothing,
        Ok(PushOutcome::RetryLater(reason)) => {
            tracing::warn!(push = what, %reason, "push notification service unavailable; will retry");
            PushResult::RetryLater
        }
        Ok(PushOutcome::Failed { reason, permanent }) => {
            tracing::warn!(push = what, %reason, permanent, "push notification refused");
            if permanent {
                PushResult::Failed
            } else {
                PushResult::RetryLater
            }
        }
        Err(e) => {
            tracing::error!(push = what, error = %e.msg, detail = ?e.detail, "push notification failed");
            PushResult::RetryLater
        }
    }
}
