//! The durable mail outbox: a mail is queued ([`queue`]) in the same write transaction as what
//! caused it (an invitation, a reset request, a batch of missed messages), so nothing
//! acknowledged is lost; the worker ([`worker`]) drains it over SMTP from tokio's blocking pool,
//! retrying a failed attempt with exponential backoff up to [`MAX_ATTEMPTS`], then logging and
//! counting the mail as abandoned. Without `[email] host` (development) a mail is not sent and
//! only its link goes to the log. A restart makes every waiting mail due at once.
//!
//! Owns the outbox's rules; its SQL is `db::mail_outbox`, the SMTP conversation `mail`'s. Knows
//! nothing of what a mail says. Never logs a body or a link (except the development case).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::db::WriteTx;
use crate::db::mail_outbox::{self as db, Queued};
use crate::domain::core::Core;
use crate::error::Result;
use crate::events::Event;
use crate::mail::Mail;

/// What the outbox did since start (read by the metrics listener).
pub use crate::mail::MailCounters;

/// Attempts of one mail before it is abandoned (the last retry comes about 2 hours after the
/// first attempt).
pub const MAX_ATTEMPTS: i64 = 8;

/// Mails sent by one pass.
const BATCH: usize = 32;

/// How long the worker sleeps when nothing waits (a queued mail wakes it at once).
const IDLE: Duration = Duration::from_secs(600);

/// The wait before the retry after `attempts_so_far` failed attempts: 30 s, 1 min, 2 min, ...
pub fn backoff(attempts_so_far: i64) -> Duration {
    Duration::from_secs(30 << attempts_so_far.clamp(0, 8))
}

/// Inside a write: queues `mail`, due at once, and wakes the worker after the commit.
pub fn queue(tx: &mut WriteTx<'_>, mail: &Mail) -> Result<()> {
    let headers: String = mail
        .headers
        .iter()
        .map(|(n, v)| format!("{n}: {v}\n"))
        .collect();
    db::insert(
        tx,
        &Queued {
            id: 0,
            recipient: mail.to.clone(),
            sender: mail.from.clone(),
            subject: mail.subject.clone(),
            text_body: mail.text.clone(),
            html_body: mail.html.clone(),
            headers,
            log_link: mail.link.clone(),
            attempts: 0,
        },
        crate::time::now_millis(),
    )?;
    tx.emit(Event::MailQueued);
    Ok(())
}

fn mail_of(q: &Queued) -> Mail {
    Mail {
        to: q.recipient.clone(),
        from: q.sender.clone(),
        subject: q.subject.clone(),
        text: q.text_body.clone(),
        html: q.html_body.clone(),
        headers: q
            .headers
            .lines()
            .filter_map(|l| l.split_once(": "))
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        link: q.log_link.clone(),
    }
}

/// What one pass did.
#[derive(Debug, Default, PartialEq)]
pub struct Drained {
    pub sent: usize,
    pub retried: usize,
    pub abandoned: usize,
    /// When the next waiting mail is due (UNIX milliseconds).
    pub next_due: Option<i64>,
}

/// Claims up to a batch of the mails due at `now_ms` and sends each (one SMTP conversation per
/// mail, on a blocking thread): a sent mail is removed, a failed one rescheduled or, after
/// [`MAX_ATTEMPTS`], abandoned. Tests call it with explicit times.
pub async fn drain(core: &Core, now_ms: i64) -> Result<Drained> {
    let claimed = core
        .db
        .write(move |tx| db::claim_due(tx, now_ms, BATCH))
        .await?;
    let mut out = Drained::default();
    for q in claimed {
        let mail = mail_of(&q);
        let outcome = if core.mailer.enabled() {
            let mailer = core.mailer.clone();
            tokio::task::spawn_blocking(move || mailer.send_blocking(&mail))
                .await
                .unwrap_or_else(|e| Err(format!("the sending thread failed: {e}")))
        } else {
            tracing::info!(to = %q.recipient, subject = %q.subject, link = %q.log_link,
                "no [email] host configured; mail not sent");
            Ok(())
        };
        let counters = &core.mailer.counters;
        let (id, attempts) = (q.id, q.attempts);
        match outcome {
            Ok(()) => {
                if core.mailer.enabled() {
                    counters.sent.fetch_add(1, Ordering::Relaxed);
                }
                core.db.write(move |tx| db::remove(tx, id)).await?;
                out.sent += 1;
            }
            Err(e) if attempts + 1 < MAX_ATTEMPTS => {
                counters.failed_attempts.fetch_add(1, Ordering::Relaxed);
                let due = now_ms + backoff(attempts).as_millis() as i64;
                tracing::info!(error = %e, attempt = attempts + 1, "mail not sent; will retry");
                core.db.write(move |tx| db::reschedule(tx, id, due)).await?;
                out.retried += 1;
            }
            Err(e) => {
                counters.failed_attempts.fetch_add(1, Ordering::Relaxed);
                counters.abandoned.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(error = %e, attempts = attempts + 1, subject = %q.subject,
                    "mail abandoned after its last attempt");
                core.db.write(move |tx| db::remove(tx, id)).await?;
                out.abandoned += 1;
            }
        }
    }
    out.next_due = core.db.read(db::next_due).await?;
    Ok(out)
}

/// How many mails wait in the outbox.
pub async fn waiting(core: &Core) -> Result<i64> {
    core.db.read(db::count).await
}

/// Drains the outbox until the server stops: a pass at start (after releasing the claims of a
/// previous run and making every waiting mail due), then whenever a mail is queued or the next
/// retry is due. Reads the clock and passes it to [`drain`].
pub async fn worker(core: Arc<Core>, mut stop: tokio::sync::watch::Receiver<bool>) {
    let now = crate::time::now_millis();
    if let Err(e) = core.db.write(move |tx| db::release_all(tx, now)).await {
        tracing::error!(error = %e.msg, "mail outbox: cannot start");
        return;
    }
    loop {
        if *stop.borrow() {
            return;
        }
        let wait = match drain(&core, crate::time::now_millis()).await {
            Ok(d) if d.sent + d.retried + d.abandoned > 0 => Duration::ZERO,
            Ok(d) => match d.next_due {
                Some(due) => Duration::from_millis(
                    (due - crate::time::now_millis()).clamp(0, IDLE.as_millis() as i64) as u64,
                ),
                None => IDLE,
            },
            Err(e) => {
                tracing::error!(error = %e.msg, "mail outbox pass failed; retrying");
                Duration::from_secs(5)
            }
        };
        if wait.is_zero() {
            continue;
        }
        tokio::select! {
            _ = core.mail_wake.notified() => {}
            _ = stop.changed() => {}
            _ = tokio::time::sleep(wait) => {}
        }
    }
}
