//! Missed-message emails, the decision's half: [`enqueue`] records a user's missed message in
//! the commit of the notification decision, joining the user's pending batch (or starting one
//! that ends after their `email_notifications_batching_period_seconds`), as upstream's
//! `MissedMessageWorker` does. Sending the due batches is `domain::account_mail::missed`. The
//! SQL is `db::missed_emails`. No HTTP, no SQL text.

use crate::db::{WriteTx, missed_emails as db, users as users_db};
use crate::domain::settings;
use crate::error::Result;
use crate::events::Event;
use crate::ids::{GroupId, MessageId, UserId};
use crate::model::{SettingValue, Trigger};

/// The user's batching period.
const BATCHING: &str = "email_notifications_batching_period_seconds";

/// Inside the write that decided `user` is to be emailed about `message`: records it in the
/// user's pending batch (at that batch's time), or starts a batch due after the user's
/// batching period.
pub fn enqueue(
    tx: &mut WriteTx<'_>,
    user: UserId,
    message: MessageId,
    trigger: Trigger,
    mentioned_group: Option<GroupId>,
    now_secs: i64,
) -> Result<()> {
    let at = match db::pending_time(tx, user)? {
        Some(t) => t,
        None => {
            let period = match users_db::get(tx, user)? {
                Some(u) => match settings::value_in(tx, &u, BATCHING)? {
                    SettingValue::Int(n) => n,
                    _ => 120,
                },
                None => return Ok(()),
            };
            now_secs + period
        }
    };
    db::insert(
        tx,
        user,
        message,
        trigger.as_str(),
        mentioned_group.map(|g| g.0),
        at,
    )?;
    tx.emit(Event::MissedEmailsQueued);
    Ok(())
}
