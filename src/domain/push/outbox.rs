//! The outbox of device-token calls to Zulip's push notification service: a legacy token
//! added (`push/register`) or removed (`push/unregister`) and a user's devices forgotten on
//! deactivation (`push/unregister/all`) are queued in the commit of that change ([`enqueue`])
//! and made by one worker ([`worker`]), oldest first, off the request path. A call that may
//! succeed later (network, timeout, 5xx) is put off with a doubling back-off and given up after
//! [`MAX_ATTEMPTS`]; one the service refuses is logged and dropped. Across a restart the queue
//! stays and the worker resumes it.
//!
//! Form fields as upstream's `add_push_device_token`, `remove_push_device_token` and
//! `clear_push_device_tokens` send them. Encrypted registrations go the same way
//! (`push/e2ee/register`, [`Action::E2eeRegister`]); the service's device id or refusal is
//! recorded for them. No SQL text, no HTTP server types.

use std::sync::Arc;
use std::time::Duration;

use rusqlite::Connection;

use crate::db::push_bouncer as db;
use crate::db::push_e2ee as e2ee_db;
use crate::domain::core::Core;
use crate::error::Result;
use crate::ids::UserId;

use super::Stats;
use super::bouncer::{Body, CallError};

/// Attempts after which a call that keeps failing is given up (about 4 hours of back-off).
pub const MAX_ATTEMPTS: i64 = 30;
/// The longest back-off between two attempts.
const MAX_BACKOFF_SECS: i64 = 600;
/// How long the worker sleeps with nothing queued: a request that queued a call wakes it at
/// once; a deactivation (queued inside another rule's write) waits for the next look.
const IDLE: Duration = Duration::from_secs(30);

/// What a queued call does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Register,
    Unregister,
    UnregisterAll,
    /// An encrypted registration (its `push_account_id` in the token column).
    E2eeRegister,
}

impl Action {
    fn name(self) -> &'static str {
        match self {
            Action::Register => "register",
            Action::Unregister => "unregister",
            Action::UnregisterAll => "unregister_all",
            Action::E2eeRegister => "e2ee_register",
        }
    }

    fn endpoint(self) -> &'static str {
        match self {
            Action::Register => "push/register",
            Action::Unregister => "push/unregister",
            Action::UnregisterAll => "push/unregister/all",
            Action::E2eeRegister => super::e2ee::REGISTER_ENDPOINT,
        }
    }

    fn parse(s: &str) -> Option<Action> {
        [
            Action::Register,
            Action::Unregister,
            Action::UnregisterAll,
            Action::E2eeRegister,
        ]
        .into_iter()
        .find(|a| a.name() == s)
    }
}

/// Queues a call inside the caller's write; `token` is (kind `apns`/`fcm`, token, app id).
pub fn enqueue(
    c: &Connection,
    user: UserId,
    action: Action,
    token: Option<(&str, &str, Option<&str>)>,
) -> Result<()> {
    db::enqueue(c, user, action.name(), token, crate::time::now_millis())
}

/// The back-off after `attempts` failures: 2 s doubling, at most 10 minutes.
pub fn backoff_ms(attempts: i64) -> i64 {
    let secs = 1i64 << attempts.clamp(1, 20);
    secs.min(MAX_BACKOFF_SECS) * 1000
}

/// 1 for APNs, 2 for FCM, as the service numbers token kinds.
pub fn kind_number(kind: &str) -> i64 {
    if kind == "apns" { 1 } else { 2 }
}

/// The form of a queued call.
fn form(job: &db::OutboxJob, action: Action, creds: &super::credentials::Credentials) -> Body {
    let mut f = vec![
        ("server_uuid".to_string(), creds.zulip_org_id.clone()),
        ("realm_uuid".to_string(), creds.realm_uuid.clone()),
        ("user_id".to_string(), job.user_id.0.to_string()),
    ];
    if action != Action::UnregisterAll {
        let kind = job.kind.as_deref().unwrap_or("fcm");
        f.push(("token".into(), job.token.clone().unwrap_or_default()));
        f.push(("token_kind".into(), kind_number(kind).to_string()));
        if action == Action::Register && kind == "apns" {
            f.push((
                "ios_app_id".into(),
                job.ios_app_id.clone().unwrap_or_default(),
            ));
        }
    }
    Body::Form(f)
}

/// What became of one attempt.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing queued.
    Empty,
    /// The oldest call is due at this time (UNIX ms).
    Waiting(i64),
    /// A call was made, put off or given up.
    Done,
}

/// Makes the oldest queued call if it is due at `now_ms`.
pub async fn step(core: &Core, now_ms: i64) -> Result<Step> {
    let Some(job) = core.db.read(db::oldest).await? else {
        return Ok(Step::Empty);
    };
    if job.due_at > now_ms {
        return Ok(Step::Waiting(job.due_at));
    }
    let id = job.id;
    let Some(action) = Action::parse(&job.action) else {
        tracing::error!(id, action = %job.action, "push outbox: unknown action, dropped");
        core.db.write(move |tx| db::remove(tx, id)).await?;
        return Ok(Step::Done);
    };
    let Some(service) = super::service(core)? else {
        tracing::info!(
            id,
            "push outbox: the server does not use the push notification service; call dropped"
        );
        core.db.write(move |tx| db::remove(tx, id)).await?;
        return Ok(Step::Done);
    };
    let creds = service
        .credentials
        .clone()
        .expect("a configured service has credentials");
    if action == Action::E2eeRegister {
        return forward_registration(core, &service, &creds.realm_uuid, job, now_ms).await;
    }
    let result = service
        .post(action.endpoint(), form(&job, action, &creds))
        .await;
    let user = job.user_id.0;
    match result {
        Ok(_) => {
            Stats::add(&core.push_stats.outbox_made);
            tracing::info!(
                user,
                action = action.name(),
                "push outbox: forwarded to the push notification service"
            );
            core.db.write(move |tx| db::remove(tx, id)).await?;
        }
        Err(CallError::RetryLater(why)) if job.attempts + 1 < MAX_ATTEMPTS => {
            Stats::add(&core.push_stats.outbox_retried);
            let due = now_ms + backoff_ms(job.attempts + 1);
            tracing::warn!(user, action = action.name(), attempts = job.attempts + 1, error = %why,
                "push outbox: the push notification service failed; trying again later");
            core.db
                .write(move |tx| db::reschedule(tx, id, due, &why))
                .await?;
        }
        Err(e) => {
            Stats::add(&core.push_stats.outbox_given_up);
            tracing::error!(user, action = action.name(), attempts = job.attempts + 1,
                error = %e.describe(), "push outbox: call given up");
            core.db.write(move |tx| db::remove(tx, id)).await?;
        }
    }
    Ok(Step::Done)
}

/// Forwards an encrypted registration (`push/e2ee/register`) and records what the service
/// made of it: its device id, or the error code it refused the registration with (a key it
/// does not have, a registration it cannot open or that is too old). Failures that may pass
/// are retried like every call.
async fn forward_registration(
    core: &Core,
    service: &super::bouncer::Service,
    realm_uuid: &str,
    job: db::OutboxJob,
    now_ms: i64,
) -> Result<Step> {
    let (id, user) = (job.id, job.user_id);
    let account = job.token.as_deref().and_then(|t| t.parse::<i64>().ok());
    let found = match account {
        Some(a) => {
            core.db
                .read(move |c| e2ee_db::forwarding(c, user, a))
                .await?
        }
        None => None,
    };
    let (Some(account), Some(registration)) = (account, found) else {
        tracing::info!(id, "push outbox: the registration is gone; call dropped");
        core.db.write(move |tx| db::remove(tx, id)).await?;
        return Ok(Step::Done);
    };
    let body = super::e2ee::register_form(realm_uuid, account, &registration);
    let endpoint = Action::E2eeRegister.endpoint();
    let result = match service.post(endpoint, body).await {
        Ok(bytes) => super::e2ee::register_answer(&bytes).map_err(CallError::RetryLater),
        Err(e) => Err(e),
    };
    let now = now_ms / 1000;
    match result {
        Ok(device) => {
            Stats::add(&core.push_stats.outbox_made);
            tracing::info!(
                user = user.0,
                account,
                "push outbox: encrypted registration forwarded"
            );
            core.db
                .write(move |tx| {
                    e2ee_db::set_device(tx, user, account, device, now)?;
                    db::remove(tx, id)
                })
                .await?;
        }
        Err(CallError::RetryLater(why)) if job.attempts + 1 < MAX_ATTEMPTS => {
            Stats::add(&core.push_stats.outbox_retried);
            let due = now_ms + backoff_ms(job.attempts + 1);
            tracing::warn!(user = user.0, account, attempts = job.attempts + 1, error = %why,
                "push outbox: forwarding a registration failed; trying again later");
            core.db
                .write(move |tx| db::reschedule(tx, id, due, &why))
                .await?;
        }
        Err(e) => {
            Stats::add(&core.push_stats.outbox_given_up);
            let code = match &e {
                CallError::Refused { code, .. } => code.clone(),
                _ => "BAD_REQUEST".to_string(),
            };
            tracing::error!(user = user.0, account, error = %e.describe(),
                "push outbox: the service refused an encrypted registration");
            core.db
                .write(move |tx| {
                    e2ee_db::set_error(tx, user, account, &code, now)?;
                    db::remove(tx, id)
                })
                .await?;
        }
    }
    Ok(Step::Done)
}

/// Makes the queued calls until the server stops.
pub async fn worker(core: Arc<Core>, mut stop: tokio::sync::watch::Receiver<bool>) {
    loop {
        if *stop.borrow() {
            return;
        }
        let wait = match step(&core, crate::time::now_millis()).await {
            Ok(Step::Done) => continue,
            Ok(Step::Empty) => IDLE,
            Ok(Step::Waiting(due)) => {
                Duration::from_millis((due - crate::time::now_millis()).clamp(0, 600_000) as u64)
            }
            Err(e) => {
                tracing::error!(error = %e.msg, detail = ?e.detail, "push outbox: step failed");
                Duration::from_secs(5)
            }
        };
        tokio::select! {
            _ = core.push_wake.notified() => {}
            _ = tokio::time::sleep(wait) => {}
            _ = stop.wait_for(|s| *s) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_ten_minutes() {
        assert_eq!(backoff_ms(1), 2000);
        assert_eq!(backoff_ms(3), 8000);
        assert_eq!(backoff_ms(25), 600_000);
    }
}
