//! The notification worker: one background task that runs the notification pass
//! (`domain::notifications::jobs`) whenever a commit queued jobs or the earliest job comes due,
//! with the chat listener's presence and event queues as the measure of who is idle. Reads the
//! clock for the pass; holds no rules and no wire shapes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::domain::notifications::activity::Live;
use crate::domain::notifications::jobs;
use crate::zulip::ChatState;

/// A queue not polled for this long counts as offline for notifications (upstream's
/// `EVENT_QUEUE_OFFLINE_TIMEOUT_SECS`), however long it lives (a mobile queue lives 12 h).
const OFFLINE_AFTER: Duration = Duration::from_secs(600);

/// How long the worker sleeps when nothing is queued (a commit that queues wakes it at once).
const IDLE: Duration = Duration::from_secs(60);

/// Runs until the server stops.
pub async fn run(state: Arc<ChatState>) {
    let mut stopping = state.stopping.subscribe();
    if let Err(e) = jobs::release_claims(&state).await {
        tracing::error!(error = %e.msg, detail = ?e.detail, "notifications: cannot start");
        return;
    }
    let offline_after = state.config.events.queue_timeout.min(OFFLINE_AFTER);
    loop {
        if *stopping.borrow() {
            return;
        }
        let live = Live {
            presence: &state.presence,
            queues: &state.queues,
            offline_after,
        };
        let now_ms = crate::time::now_millis();
        let pass = jobs::run_due(&state, &live, now_ms, Instant::now());
        let outcome = tokio::select! {
            r = pass => r,
            _ = stopping.wait_for(|s| *s) => return,
        };
        if let Err(e) = outcome {
            tracing::error!(error = %e.msg, detail = ?e.detail, "notifications: pass failed");
        }
        let wait = match jobs::next_due(&state).await {
            Ok(Some(due)) => {
                let ms = (due - crate::time::now_millis()).clamp(0, IDLE.as_millis() as i64);
                Duration::from_millis(ms as u64)
            }
            Ok(None) => IDLE,
            Err(_) => Duration::from_secs(1),
        };
        tokio::select! {
            _ = state.notify_wake.notified() => {}
            _ = tokio::time::sleep(wait) => {}
            _ = stopping.wait_for(|s| *s) => return,
        }
    }
}
