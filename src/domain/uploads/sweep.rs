//! The timer-driven sweep of files nobody needs: uploads no message links after the
//! configured weeks, and files without a record (left by a crash between file and record, or
//! thumbnails of deleted uploads) older than an hour. It must not remove what a message links.

use std::path::{Path, PathBuf};

use crate::db::uploads as db;
use crate::domain::core::Core;
use crate::error::Result;
use crate::events::AttachmentChange;

use super::attachments::emit_change;
use super::storage::{remove_files, thumbnails_dir, uploads_dir};

/// Files without a record younger than this are left alone by the sweep: they may be uploads
/// whose record is being written right now.
const STRAY_FILE_GRACE_SECS: u64 = 3600;

/// What one [`sweep`] removed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Swept {
    /// Records deleted (not linked by any message in time).
    pub records: usize,
    /// Files without a record deleted (left by a crash between file and record), and
    /// thumbnails of deleted records.
    pub stray_files: usize,
}

/// The periodic cleanup at `now` (UNIX seconds): uploads no message links that are older than
/// the configured weeks (never linked, or only by messages since edited; deleting the last
/// linking message removes an upload at once, see [`drop_orphans`](super::drop_orphans)), and
/// files without a record older than an hour.
pub async fn sweep(state: &Core, now: i64) -> Result<Swept> {
    let weeks = state.config.limits.unlinked_upload_weeks as i64;
    let cutoff = now - weeks * 7 * 24 * 3600;
    let keys = state
        .db
        .write(move |tx| {
            let mut keys = Vec::new();
            for a in db::unlinked_before(tx, cutoff)? {
                db::delete(tx, a.id)?;
                emit_change(tx, a.owner_id, AttachmentChange::Removed(a.id))?;
                keys.push(a.storage_key);
            }
            Ok(keys)
        })
        .await?;
    let records = keys.len();
    remove_files(state, keys).await;
    let mut candidates = stray_candidates(&uploads_dir(&state.config.data_dir), now);
    // Thumbnails of records that are gone (an upload deleted while its thumbnail was made).
    let suffix = format!(".{}", crate::markdown::THUMBNAIL_FORMAT);
    for (key, path) in stray_candidates(&thumbnails_dir(&state.config.data_dir), now) {
        let key = key.map(|k| k.strip_suffix(&suffix).unwrap_or(&k).to_string());
        candidates.push((key, path));
    }
    let known = state
        .db
        .read(move |c| {
            let mut unknown = Vec::new();
            for (key, path) in candidates {
                if key.is_none_or(|k| !db::storage_key_known(c, &k).unwrap_or(true)) {
                    unknown.push(path);
                }
            }
            Ok(unknown)
        })
        .await?;
    let stray_files = known.len();
    for p in known {
        let _ = std::fs::remove_file(p);
    }
    Ok(Swept {
        records,
        stray_files,
    })
}

/// Files under the uploads directory older than the grace period at `now`: stored files with
/// their storage key, and leftover temporary files (key `None`).
fn stray_candidates(dir: &Path, now: i64) -> Vec<(Option<String>, PathBuf)> {
    let old = |p: &Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .is_some_and(|t| {
                (now.max(0) as u64).saturating_sub(t.as_secs()) > STRAY_FILE_GRACE_SECS
            })
    };
    let mut out = Vec::new();
    let Ok(subs) = std::fs::read_dir(dir) else {
        return out;
    };
    for sub in subs.flatten() {
        let name = sub.file_name().to_string_lossy().into_owned();
        let Ok(files) = std::fs::read_dir(sub.path()) else {
            continue;
        };
        for f in files.flatten() {
            let p = f.path();
            if !old(&p) {
                continue;
            }
            if name == "tmp" {
                out.push((None, p));
            } else {
                let file = f.file_name().to_string_lossy().into_owned();
                out.push((Some(format!("{name}/{file}")), p));
            }
        }
    }
    out
}
