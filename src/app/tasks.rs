//! The server's background tasks, all started by [`spawn`] (the one list of them): event
//! delivery, the heartbeat pass, the queue and upload sweeps, the scheduler, the outgoing-webhook
//! worker, the push outbox, the ACME renewals, and with the Dependency-Track listener its BOM, key-usage and OSV
//! workers. The timer tasks here are the only ones that read the clock; the passes they run take
//! `now`. Each stops with `ChatState::stopping`. Must not bind listeners or serve requests.

use std::sync::Arc;

use tokio::task::JoinHandle;

use super::TlsListeners;
use crate::zulip::ChatState;

/// Starts every background task of a server; returns those that write and must finish their
/// pass before the queues are saved (`Server::wait`).
pub(super) fn spawn(state: &Arc<ChatState>, tls: &TlsListeners) -> Vec<JoinHandle<()>> {
    let stop_rx = state.stopping.subscribe();
    // Event delivery into client queues, the idle-queue sweep and the long-poll heartbeats.
    let pipeline = state.hub.attach_pipeline();
    tokio::spawn(crate::zulip::delivery::run(Arc::clone(state), pipeline));
    tokio::spawn(sweep_queues(Arc::clone(state)));
    tokio::spawn(heartbeats(Arc::clone(state)));
    // Certificates over ACME: one renewal task per listener that has `[<listener>.acme]`.
    let acme_listeners = [
        ("chat", &tls.chat, &state.config.chat.acme),
        ("dtrack", &tls.dtrack, &state.config.dtrack.acme),
    ];
    for (name, listener_tls, acme) in acme_listeners {
        if let (Some(listener_tls), true) = (listener_tls, acme.enabled()) {
            let settings = crate::acme::Settings::new(name, acme, &state.config.data_dir);
            let stored = crate::acme::install_stored(&settings, listener_tls);
            tokio::spawn(crate::acme::run(
                settings,
                Arc::clone(listener_tls),
                stored,
                stop_rx.clone(),
            ));
        }
    }
    // Dependency-Track's workers, with its listener.
    if state.config.dtrack.enabled {
        let core = &state.core;
        tokio::spawn(crate::domain::dtrack::bom::worker(
            Arc::clone(core),
            stop_rx.clone(),
        ));
        tokio::spawn(crate::domain::dtrack::identity::key_usage_worker(
            Arc::clone(core),
            stop_rx.clone(),
        ));
        tokio::spawn(crate::domain::dtrack::osv::fetch::worker(
            Arc::clone(core),
            stop_rx.clone(),
        ));
        tokio::spawn(crate::domain::dtrack::epss_fetch::worker(
            Arc::clone(core),
            stop_rx.clone(),
        ));
        tokio::spawn(crate::domain::dtrack::watch::worker(
            Arc::clone(core),
            stop_rx,
        ));
    }
    // Device-token calls to Zulip's push notification service, queued with the changes.
    tokio::spawn(crate::domain::push::outbox::worker(
        Arc::clone(&state.core),
        state.stopping.subscribe(),
    ));
    vec![
        tokio::spawn(scheduler(Arc::clone(state))),
        tokio::spawn(sweep_uploads(Arc::clone(state))),
        tokio::spawn(crate::zulip::outgoing_webhooks::run(Arc::clone(state))),
        tokio::spawn(crate::zulip::notifications::run(Arc::clone(state))),
        tokio::spawn(crate::domain::account_mail::missed::worker(
            Arc::clone(&state.core),
            state.stopping.subscribe(),
        )),
        tokio::spawn(crate::domain::account_mail::digest::worker(
            Arc::clone(&state.core),
            state.stopping.subscribe(),
        )),
        tokio::spawn(crate::domain::outbox::worker(
            Arc::clone(&state.core),
            state.stopping.subscribe(),
        )),
    ]
}

/// Answers parked long-polls whose heartbeat time has come, until the server stops. The pass
/// runs every quarter of the heartbeat interval (but at least once a second and at most every
/// 10 ms), so a heartbeat comes at most that much late, without a timer per parked poll.
async fn heartbeats(state: Arc<ChatState>) {
    let mut stopping = state.stopping.subscribe();
    let period = (state.config.events.heartbeat / 4).clamp(
        std::time::Duration::from_millis(10),
        std::time::Duration::from_secs(1),
    );
    let heartbeat = crate::zulip::delivery::heartbeat_event();
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {
                state.queues.heartbeats(std::time::Instant::now(), &heartbeat);
            }
            _ = stopping.wait_for(|s| *s) => return,
        }
    }
}

/// How often unneeded uploads are looked for.
const UPLOAD_SWEEP_PERIOD: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes uploads nobody needs any more (`domain::uploads::sweep`), emoji pictures without
/// a record (`domain::realm_emoji::sweep`) and expired web sessions (`domain::sessions::sweep`)
/// every hour until the server stops; this task reads the clock and passes it on.
async fn sweep_uploads(state: Arc<ChatState>) {
    let mut stopping = state.stopping.subscribe();
    let mut tick = tokio::time::interval(UPLOAD_SWEEP_PERIOD);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stopping.wait_for(|s| *s) => return,
        }
        match crate::domain::uploads::sweep(&state, crate::time::now_secs()).await {
            Ok(s) if s.records + s.stray_files > 0 => {
                tracing::info!(records = s.records, files = s.stray_files, "swept uploads");
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e.msg, "upload sweep failed"),
        }
        match crate::domain::realm_emoji::sweep(&state, crate::time::now_secs()).await {
            Ok(n) if n > 0 => tracing::info!(files = n, "swept emoji pictures"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e.msg, "emoji picture sweep failed"),
        }
        if let Err(e) = crate::domain::account_mail::sweep(&state, crate::time::now_secs()).await {
            tracing::warn!(error = %e.msg, "account link sweep failed");
        }
        match crate::domain::sessions::sweep(&state, crate::time::now_secs()).await {
            Ok(n) if n > 0 => tracing::info!(sessions = n, "swept expired web sessions"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e.msg, "web session sweep failed"),
        }
    }
}

/// Sweeps idle event queues and prunes idle rate-limit buckets every `gc_interval` until the
/// server stops; this task reads the clock and passes it to both.
async fn sweep_queues(state: Arc<ChatState>) {
    let mut stopping = state.stopping.subscribe();
    let mut tick = tokio::time::interval(state.config.events.gc_interval);
    tick.tick().await;
    loop {
        tokio::select! {
            _ = tick.tick() => {
                let now = std::time::Instant::now();
                let n = state.queues.sweep(now);
                if n > 0 {
                    tracing::debug!(collected = n, "swept idle event queues");
                }
                state.rates.prune(now);
            }
            _ = stopping.wait_for(|s| *s) => return,
        }
    }
}

/// Delivers scheduled messages and reminders: a pass at start (overdue items go out at once),
/// then a sleep until the next item's time or until a new item is stored
/// (`Core::scheduler_wake`), until the server stops. This task reads the clock and passes
/// it to `domain::scheduled::deliver_due`.
async fn scheduler(state: Arc<ChatState>) {
    let mut stopping = state.stopping.subscribe();
    loop {
        let now = crate::time::now_secs();
        let next = match crate::domain::scheduled::deliver_due(&state, now).await {
            Ok((sent, next)) => {
                if sent > 0 {
                    tracing::debug!(sent, "delivered scheduled messages");
                }
                next
            }
            Err(e) => {
                tracing::warn!(error = %e.msg, "scheduled delivery pass failed; retrying");
                Some(now + 5)
            }
        };
        // Wake just after the next item's second starts; with nothing pending, wait for a new
        // item (checking again daily).
        let wait = match next {
            Some(at) => {
                let due = std::time::UNIX_EPOCH + std::time::Duration::from_secs(at.max(0) as u64);
                due.duration_since(std::time::SystemTime::now())
                    .unwrap_or_default()
                    + std::time::Duration::from_millis(2)
            }
            None => std::time::Duration::from_secs(86_400),
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = state.scheduler_wake.notified() => {}
            _ = stopping.wait_for(|s| *s) => return,
        }
    }
}
