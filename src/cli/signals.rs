//! The process signals of `outpost serve`: SIGINT/SIGTERM end the server gracefully
//! ([`shutdown_signal`]), SIGHUP reloads the listeners' TLS files ([`reload_tls_on_hangup`]).
//! Must not load config or touch data.

use crate::app;

/// Reads the listeners' TLS certificate and key files again on each SIGHUP until the server
/// stops (a pair that fails to load is logged and the old one kept). SIGHUP no longer ends
/// the process, with or without TLS.
pub(super) fn reload_tls_on_hangup(
    tls: app::TlsListeners,
    mut stopping: tokio::sync::watch::Receiver<bool>,
) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut hangup = match signal(SignalKind::hangup()) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "cannot watch SIGHUP; TLS files are not reloaded");
                return;
            }
        };
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    got = hangup.recv() => {
                        if got.is_none() {
                            return;
                        }
                        if tls.is_empty() {
                            tracing::info!("SIGHUP: no listener uses TLS; nothing to reload");
                        } else {
                            // Each failure has been logged with its cause.
                            let _ = tls.reload();
                        }
                    }
                    _ = stopping.wait_for(|s| *s) => return,
                }
            }
        });
    }
    #[cfg(not(unix))]
    {
        let _ = (tls, stopping);
    }
}

/// Resolves on SIGINT or SIGTERM.
pub(super) async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
