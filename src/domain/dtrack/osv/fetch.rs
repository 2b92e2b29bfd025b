//! Fetching OSV's exports on a schedule: for each configured ecosystem, `GET
//! <[dtrack.osv] base_url>/<ecosystem>/all.zip` (through [`http_get::download`]: the
//! environment's proxies, redirects checked hop by hop), streamed to a temporary file in the
//! data directory within [`MAX_DOWNLOAD_BYTES`], then imported as `dtrack import-osv` would.
//! Once an ecosystem has been imported whole, later runs read its `modified_id.csv` and fetch
//! only the records changed since (`<ID>.json`), falling back to the whole export when the
//! list is missing.
//!
//! The download runs on a blocking thread with timeouts; a failure is logged and the next
//! ecosystem goes on. Must not touch HTTP server types or SQL.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::domain::core::Core;
use crate::domain::dtrack::http_get;

/// Largest export downloaded (npm's is the largest, well below this).
pub const MAX_DOWNLOAD_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// The configured ecosystems.
fn ecosystems(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_string)
        .collect()
}

/// Records fetched one by one at most; more changes than this fetch the whole export.
const MAX_INCREMENTAL: usize = 2_000;

/// Ids usable in a URL path and a file name.
fn safe_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 255
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b))
}

/// The ids of `modified_id.csv` (`<RFC 3339 time>,<id>`, newest first) that are newer than
/// what is stored, up to the first one already current; `None` when the list is unusable or
/// names more than [`MAX_INCREMENTAL`] changes.
async fn changed_ids(state: &Core, csv: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(csv).ok()?;
    let mut entries = Vec::new();
    for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (time, id) = l.split_once(',')?;
        let at = crate::time::parse_rfc3339_millis(time)?;
        if !safe_id(id.trim()) {
            return None;
        }
        entries.push((at, id.trim().to_string()));
    }
    state
        .db
        .read(move |c| {
            let mut out = Vec::new();
            for (at, id) in entries {
                let stored = crate::db::dtrack_osv::record(c, &id)?
                    .and_then(|(_, m)| crate::time::parse_rfc3339_millis(&m));
                if stored.is_some_and(|s| s >= at) {
                    break;
                }
                out.push(id);
                if out.len() > MAX_INCREMENTAL {
                    return Ok(None);
                }
            }
            Ok(Some(out))
        })
        .await
        .ok()?
}

/// Fetches and imports one ecosystem: after a first whole export, only the records that
/// `modified_id.csv` lists as changed (each `<ID>.json`); the whole `all.zip` again when the
/// list is missing or long. Temporary files are removed after.
pub async fn sync_ecosystem(state: &Core, base: &str, eco: &str) -> Result<(), String> {
    let dir = state.config.data_dir.join("osv");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let stem = eco.replace(':', "_");
    let synced = dir.join(format!("{stem}.synced"));
    let work = dir.join(format!("{stem}.{}.part", uuid::Uuid::new_v4()));
    std::fs::create_dir(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let outcome = sync_into(state, base, eco, &work, synced.exists()).await;
    let _ = std::fs::remove_dir_all(&work);
    if outcome.is_ok() {
        std::fs::write(&synced, b"")
            .map_err(|e| format!("cannot write {}: {e}", synced.display()))?;
    }
    outcome
}

async fn get(state: &Core, url: String, dest: PathBuf) -> Result<u64, String> {
    http_get::download_blocking(url, dest, state.config.proxy.clone(), MAX_DOWNLOAD_BYTES).await
}

async fn sync_into(
    state: &Core,
    base: &str,
    eco: &str,
    work: &Path,
    incremental: bool,
) -> Result<(), String> {
    // Names such as `Red Hat` and `GitHub Actions` are one path segment.
    let eco = &eco.replace(' ', "%20");
    if incremental {
        let csv = work.join("modified_id.csv");
        let listed = match get(state, format!("{base}/{eco}/modified_id.csv"), csv.clone()).await {
            Ok(_) => changed_ids(state, &csv).await,
            Err(e) => {
                tracing::info!(ecosystem = eco, error = %e, "no usable modified_id.csv; fetching the whole export");
                None
            }
        };
        if let Some(ids) = listed {
            let records = work.join("records");
            std::fs::create_dir(&records).map_err(|e| e.to_string())?;
            for id in &ids {
                get(
                    state,
                    format!("{base}/{eco}/{id}.json"),
                    records.join(format!("{id}.json")),
                )
                .await?;
            }
            tracing::info!(
                ecosystem = eco,
                records = ids.len(),
                "OSV changes downloaded"
            );
            return super::import::import_path(state, &records)
                .await
                .map(|_| ())
                .map_err(|e| e.to_string());
        }
    }
    let zip = work.join("all.zip");
    let bytes = get(state, format!("{base}/{eco}/all.zip"), zip.clone()).await?;
    tracing::info!(ecosystem = eco, bytes, "OSV export downloaded");
    super::import::import_path(state, &zip)
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The scheduled fetcher: every `[dtrack.osv] interval`, each configured ecosystem in turn, until
/// `stop` resolves. Does nothing without a base URL and ecosystems.
pub async fn worker(state: Arc<Core>, mut stop: tokio::sync::watch::Receiver<bool>) {
    let cfg = &state.config.dtrack;
    let base = cfg.osv_base_url.trim_end_matches('/').to_string();
    let ecos = ecosystems(&cfg.osv_ecosystems);
    if base.is_empty() || ecos.is_empty() {
        return;
    }
    loop {
        for eco in &ecos {
            if *stop.borrow() {
                return;
            }
            if let Err(e) = sync_ecosystem(&state, &base, eco).await {
                tracing::error!(ecosystem = %eco, error = %e, "OSV fetch failed; next try at the next interval");
            }
        }
        tokio::select! {
            _ = stop.changed() => return,
            _ = tokio::time::sleep(cfg.osv_interval) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecosystem_lists_are_comma_separated() {
        assert_eq!(ecosystems(" npm, PyPI ,,"), vec!["npm", "PyPI"]);
    }
}
