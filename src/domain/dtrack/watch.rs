//! Noticing commits by other processes: Dependency-Track's cached answers (rendered findings,
//! counts, the OSV coverage) are keyed by this process's write generation, which another
//! process's import (`outpost dtrack import-osv`, `import-nvd`, `import-epss` beside a running
//! server) does not bump. [`worker`] looks at the database every [`CHANGE_WATCH_PERIOD`]
//! through `db::health::ChangeWatch` and renews the generation when it changed.
//!
//! Must not touch HTTP types or SQL.

use std::sync::Arc;

use crate::domain::core::Core;

/// How often Dependency-Track looks for commits by other connections.
pub const CHANGE_WATCH_PERIOD: std::time::Duration = std::time::Duration::from_secs(15);

/// Dependency-Track's cached answers (rendered findings, counts, the OSV coverage) are keyed
/// by this process's write generation; a commit by another process (`outpost dtrack
/// import-osv`, `import-nvd` or `import-epss` beside the server) does not bump it. This task
/// looks every [`CHANGE_WATCH_PERIOD`] and, when the database changed, renews the generation,
/// so such an import shows within that period. Its own connection; the look runs on a
/// blocking thread.
pub async fn worker(core: Arc<Core>, mut stop: tokio::sync::watch::Receiver<bool>) {
    use crate::db::health::ChangeWatch;
    let path = core.db.path().to_path_buf();
    let mut watch = match tokio::task::spawn_blocking(move || ChangeWatch::open(&path)).await {
        Ok(Ok(w)) => w,
        _ => {
            tracing::warn!(
                "cannot watch the database for other writers; imports by other processes show once this one writes"
            );
            return;
        }
    };
    let mut tick = tokio::time::interval(CHANGE_WATCH_PERIOD);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            _ = tick.tick() => {}
        }
        // The watch goes to the blocking thread and comes back with the answer.
        let Ok((back, changed)) = tokio::task::spawn_blocking(move || {
            let changed = watch.changed().unwrap_or(false);
            (watch, changed)
        })
        .await
        else {
            return;
        };
        watch = back;
        if changed {
            core.dtrack.data_changed_elsewhere();
        }
    }
}
