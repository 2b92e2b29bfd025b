//! Fetching FIRST's EPSS scores on a schedule: once a day, `GET [dtrack.epss] url` (through
//! [`http_get::download`]: the environment's proxies, redirects checked hop by hop) into a
//! temporary file in the data directory within [`epss::MAX_BYTES`], imported as
//! `outpost dtrack import-epss` would (the same file again changes nothing; an older one is
//! refused), then removed. A failure is logged and tried again the next day.
//!
//! Must not touch HTTP server types or SQL.

use std::sync::Arc;
use std::time::Duration;

use crate::domain::core::Core;
use crate::domain::dtrack::epss::{self, EpssReport};
use crate::domain::dtrack::http_get;

/// Time between two fetches (FIRST publishes one file a day).
pub const INTERVAL: Duration = Duration::from_secs(86_400);

/// Downloads the file at `url` and imports it; the temporary file is removed after.
pub async fn fetch_once(state: &Core, url: &str) -> Result<EpssReport, String> {
    let dir = state.config.data_dir.join("epss");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let part = dir.join(format!("{}.part", uuid::Uuid::new_v4()));
    let proxies = state.config.proxy.clone();
    let downloaded =
        http_get::download_blocking(url.to_string(), part.clone(), proxies, epss::MAX_BYTES).await;
    let outcome = match downloaded {
        Ok(bytes) => {
            tracing::info!(bytes, "EPSS scores downloaded");
            epss::import_file(state, &part)
                .await
                .map_err(|e| format!("importing the EPSS scores of {url}: {e}"))
        }
        Err(e) => Err(e),
    };
    let _ = std::fs::remove_file(&part);
    outcome
}

/// The scheduled fetcher: at start and then every [`INTERVAL`], until `stop` resolves. Does
/// nothing without a URL.
pub async fn worker(state: Arc<Core>, mut stop: tokio::sync::watch::Receiver<bool>) {
    let url = state.config.dtrack.epss_url.clone();
    if url.is_empty() {
        return;
    }
    loop {
        if *stop.borrow() {
            return;
        }
        match fetch_once(&state, &url).await {
            Ok(r) => tracing::info!(
                score_date = %r.score_date,
                rows = r.rows,
                changed = r.changed,
                dropped = r.dropped,
                unchanged = r.unchanged,
                problems = r.problem_count,
                "EPSS scores imported"
            ),
            Err(e) => {
                tracing::error!(error = %e, "EPSS fetch failed; next try in a day")
            }
        }
        tokio::select! {
            _ = stop.changed() => return,
            _ = tokio::time::sleep(INTERVAL) => {}
        }
    }
}
