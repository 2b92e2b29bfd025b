//! Carrying out notification jobs: the pass that claims due jobs, drops those whose message
//! was read or deleted, asks [`Activity`] whether the user is idle, hands a due email to the
//! missed-message batch and a due push to `domain::push`, and retries a push the bouncer could
//! not take with backoff. Also the retraction of pushes whose message was read (written in
//! the commit that reads it) and the pass that sends those remove notifications.
//!
//! A user who was active when the job came due gets a second look after the queue timeout
//! (upstream sends what is still unread when the user's last queue goes away). Takes `now`
//! as parameters; the worker in `zulip::notifications` reads the clock. No SQL text, no HTTP.

use std::time::Instant;

use super::Trigger;
use super::activity::Activity;
use super::deliver::{self, PushResult};
use crate::db::{WriteTx, notifications as db};
use crate::domain::core::Core;
use crate::error::Result;
use crate::events::Event;
use crate::ids::{GroupId, MessageId, UserId};

/// Jobs claimed per pass.
const BATCH: usize = 100;
/// Attempts at a push before it is given up (upstream's three retries after the first).
pub const MAX_PUSH_ATTEMPTS: i64 = 4;
/// The newest message ids one remove notification carries (upstream's APNs-size bound).
pub const MAX_REMOVE_IDS: usize = 200;
/// Shown pushes one read retracts at most (the rest go with the next read).
const MAX_RETRACT_SCAN: usize = 1000;

/// The wait before retry `attempts` (1-based): 10 s, 40 s, 160 s, ...
fn backoff_ms(attempts: i64) -> i64 {
    10_000 * 4_i64.pow(attempts.clamp(1, 6) as u32 - 1)
}

/// What one pass did, for logs and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    pub pushes_sent: usize,
    pub emails_queued: usize,
    pub removals_sent: usize,
    pub dropped: usize,
    pub retried: usize,
}

/// Releases claims left by a process that stopped (nothing is in flight at start-up).
pub async fn release_claims(core: &Core) -> Result<()> {
    core.db.write(|tx| db::unclaim_all(tx)).await
}

/// The earliest due time (UNIX ms) of a job or removal, if any.
pub async fn next_due(core: &Core) -> Result<Option<i64>> {
    core.db.read(db::next_due).await
}

/// Runs every job and removal due at `now_ms`.
pub async fn run_due(
    core: &Core,
    activity: &dyn Activity,
    now_ms: i64,
    now: Instant,
) -> Result<PassReport> {
    let mut report = PassReport::default();
    loop {
        let jobs = core
            .db
            .write(move |tx| db::claim_due(tx, now_ms, BATCH))
            .await?;
        let n = jobs.len();
        for job in jobs {
            run_job(core, activity, job, now_ms, now, &mut report).await?;
        }
        if n < BATCH {
            break;
        }
    }
    loop {
        let removals = core
            .db
            .write(move |tx| db::claim_due_removals(tx, now_ms, BATCH))
            .await?;
        let n = removals.len();
        for r in removals {
            let result = deliver::push_remove(core, r.user_id, &r.message_ids).await;
            let id = r.id;
            match result {
                PushResult::RetryLater if r.attempts + 1 < MAX_PUSH_ATTEMPTS => {
                    let attempts = r.attempts + 1;
                    let due = now_ms + backoff_ms(attempts);
                    core.db
                        .write(move |tx| db::retry_removal(tx, id, attempts, due))
                        .await?;
                    report.retried += 1;
                }
                outcome => {
                    if outcome == PushResult::Sent {
                        report.removals_sent += 1;
                    } else {
                        report.dropped += 1;
                    }
                    core.db.write(move |tx| db::delete_removal(tx, id)).await?;
                }
            }
        }
        if n < BATCH {
            break;
        }
    }
    Ok(report)
}

/// Carries out one job: one read (is the message still unread?), the push if one is due, and
/// one write with everything the job led to (the email batched, the push marked shown, the
/// job deleted or put off).
async fn run_job(
    core: &Core,
    activity: &dyn Activity,
    mut job: db::JobRow,
    now_ms: i64,
    now: Instant,
    report: &mut PassReport,
) -> Result<()> {
    let (user, message) = (job.user_id, job.message_id);
    let read = core
        .db
        .read(move |c| db::is_read_or_gone(c, user, message))
        .await?;
    let id = job.id;
    if read {
        report.dropped += 1;
        return core.db.write(move |tx| db::delete_job(tx, id)).await;
    }
    let idle = activity.is_idle(user, now_ms / 1000, now);
    let group = job.mentioned_group_id.map(GroupId);
    let mut second_look = false;
    // Email: only for an idle user; an active one gets a second look later.
    let mut email = None;
    if let Some(trigger) = job.email_trigger.as_deref().and_then(Trigger::parse) {
        if idle {
            email = Some(trigger);
            report.emails_queued += 1;
            job.email_trigger = None;
        } else if job.stage == 0 {
            second_look = true;
        } else {
            job.email_trigger = None;
        }
    }
    // Push: while idle, or always with online push.
    let mut shown = false;
    if let Some(trigger) = job.push_trigger.as_deref().and_then(Trigger::parse) {
        if idle || job.online_push {
            match deliver::push_message(core, user, message, trigger, group).await {
                PushResult::Sent => {
                    shown = true;
                    report.pushes_sent += 1;
                    job.push_trigger = None;
                }
                PushResult::RetryLater if job.attempts + 1 < MAX_PUSH_ATTEMPTS => {
                    job.attempts += 1;
                    report.retried += 1;
                }
                PushResult::RetryLater | PushResult::Failed | PushResult::Nothing => {
                    job.push_trigger = None;
                }
            }
        } else if job.stage == 0 {
            second_look = true;
        } else {
            job.push_trigger = None;
        }
    }
    let done = job.push_trigger.is_none() && job.email_trigger.is_none();
    let due = if second_look && job.stage == 0 {
        job.stage = 1;
        now_ms + activity.offline_after().as_millis() as i64
    } else {
        now_ms + backoff_ms(job.attempts)
    };
    let now_secs = now_ms / 1000;
    core.db
        .write(move |tx| {
            if let Some(trigger) = email {
                super::email::enqueue(tx, user, message, trigger, group, now_secs)?;
            }
            if shown {
                db::mark_push_active(tx, user, message)?;
            }
            if done {
                db::delete_job(tx, id)
            } else {
                db::reschedule_job(tx, &job, due)
            }
        })
        .await
}

/// Retracts the user's shown pushes whose messages are now read (or gone): queues one remove
/// notification with the newest of them, in the caller's transaction (the one that marked
/// them read). Cheap when the user has no shown push.
pub fn retract_read(tx: &mut WriteTx<'_>, user: UserId, now_ms: i64) -> Result<()> {
    if !db::has_active_pushes(tx, user)? {
        return Ok(());
    }
    let ids = db::active_pushes_read(tx, user, MAX_RETRACT_SCAN)?;
    if ids.is_empty() {
        return Ok(());
    }
    db::clear_push_active(tx, user, &ids)?;
    let newest = &ids[ids.len().saturating_sub(MAX_REMOVE_IDS)..];
    db::insert_removal(tx, user, newest, now_ms)?;
    tx.emit(Event::NotificationsQueued);
    Ok(())
}

/// Retracts every shown push of deleted messages (upstream clears them on deletion): one
/// remove notification per user who was shown one, in the deletion's transaction.
pub fn retract_deleted(tx: &mut WriteTx<'_>, ids: &[MessageId], now_ms: i64) -> Result<()> {
    let shown = db::active_push_users(tx, ids)?;
    if shown.is_empty() {
        return Ok(());
    }
    let mut by_user: std::collections::BTreeMap<UserId, Vec<MessageId>> = Default::default();
    for (user, id) in shown {
        by_user.entry(user).or_default().push(id);
    }
    for (user, mut messages) in by_user {
        messages.sort_unstable();
        db::clear_push_active(tx, user, &messages)?;
        let newest = &messages[messages.len().saturating_sub(MAX_REMOVE_IDS)..];
        db::insert_removal(tx, user, newest, now_ms)?;
    }
    tx.emit(Event::NotificationsQueued);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_bounded() {
        assert_eq!(backoff_ms(1), 10_000);
        assert_eq!(backoff_ms(2), 40_000);
        assert_eq!(backoff_ms(3), 160_000);
        assert_eq!(backoff_ms(50), backoff_ms(6));
    }
}
