//! `outpost restore`: puts a backup written by `outpost backup` (the database copy `FILE` and
//! its uploaded files in `FILE.uploads/`, its custom emoji pictures in `FILE.emoji/`) in place of a stopped server's data.
//!
//! Refused while a server holds the data directory's lock ([`crate::data_lock`]). The backup is
//! copied into the data directory first and checked there (SQLite's integrity check, an
//! Outpost schema no newer than this binary's), so nothing changes unless it passes. The
//! current database is checkpointed (its write-ahead log emptied into the file) and kept as
//! `outpost.sqlite3.pre-restore`; the checked copy then replaces it with one atomic rename, and
//! stale write-ahead-log and shared-memory files go. The uploads and emoji picture directories
//! are replaced the same way (the old ones kept with a `.pre-restore` suffix), and saved event queues are dropped: they
//! belong to the data being replaced. The next `serve` upgrades an older schema. Files only;
//! the SQL lives in `db::migrate`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// What a restore did.
#[derive(Debug)]
pub struct Restored {
    /// The schema version of the restored database (upgraded at the next start if older).
    pub schema_version: i64,
    /// Uploaded files put back; `None` when the backup had no uploads directory.
    pub files: Option<usize>,
    /// Custom emoji pictures put back; `None` when the backup had no emoji directory.
    pub pictures: Option<usize>,
    /// Where the replaced database was kept, if there was one.
    pub previous: Option<PathBuf>,
}

/// Suffix of what a restore sets aside.
const PREVIOUS: &str = "pre-restore";

/// How deep an uploads directory goes (`<user>/<random>/<name>` at most, with room to spare).
const MAX_UPLOAD_DEPTH: usize = 4;

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn io_error(what: &Path, e: io::Error) -> Error {
    Error::internal(format!("{}: {e}", what.display()))
}

fn remove_file_if_present(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error(path, e)),
    }
}

fn remove_dir_if_present(path: &Path) -> Result<()> {
    match fs::remove_dir_all(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error(path, e)),
    }
}

fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_error(dir, e))
}

/// Copies `from` to the new owner-only file `to`, flushed to disk.
fn copy_private(from: &Path, to: &Path) -> Result<()> {
    let mut input = fs::File::open(from).map_err(|e| io_error(from, e))?;
    let mut out = crate::private_files::new_private_file(to).map_err(|e| io_error(to, e))?;
    io::copy(&mut input, &mut out).map_err(|e| io_error(from, e))?;
    out.sync_all().map_err(|e| io_error(to, e))
}

/// Copies the directory tree `from` into the new owner-only directory `to` (regular files and
/// directories only, at most [`MAX_UPLOAD_DEPTH`] deep); returns how many files it copied.
fn copy_tree(from: &Path, to: &Path, depth: usize) -> Result<usize> {
    if depth > MAX_UPLOAD_DEPTH {
        return Err(Error::bad_request(format!(
            "{} is nested deeper than an uploads directory",
            from.display()
        )));
    }
    crate::private_files::private_dir(to).map_err(|e| io_error(to, e))?;
    let mut files = 0;
    for entry in fs::read_dir(from).map_err(|e| io_error(from, e))? {
        let entry = entry.map_err(|e| io_error(from, e))?;
        let kind = entry.file_type().map_err(|e| io_error(&entry.path(), e))?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            files += copy_tree(&entry.path(), &target, depth + 1)?;
        } else if kind.is_file() {
            copy_private(&entry.path(), &target)?;
            files += 1;
        }
    }
    Ok(files)
}

/// Restores the backup `from` (and `from.uploads/`) into `data_dir`, whose database is
/// `db_path`. See the module documentation for the steps.
pub fn restore(data_dir: &Path, db_path: &Path, from: &Path) -> Result<Restored> {
    if !from.is_file() {
        return Err(Error::bad_request(format!(
            "no backup file at {}",
            from.display()
        )));
    }
    crate::private_files::private_dir(data_dir).map_err(|e| io_error(data_dir, e))?;
    let _lock = crate::data_lock::DataLock::try_acquire(data_dir)
        .map_err(|e| Error::bad_request(e.to_string()))?;

    // 1. A private copy inside the data directory (same filesystem: the rename is atomic),
    //    checked before anything else changes.
    let incoming = with_suffix(db_path, ".restoring");
    for stale in [
        incoming.clone(),
        with_suffix(&incoming, "-wal"),
        with_suffix(&incoming, "-shm"),
    ] {
        remove_file_if_present(&stale)?;
    }
    copy_private(from, &incoming)?;
    let schema_version = match crate::db::migrate::verify_restorable(&incoming) {
        Ok(v) => v,
        Err(e) => {
            let _ = fs::remove_file(&incoming);
            let _ = fs::remove_file(with_suffix(&incoming, "-wal"));
            let _ = fs::remove_file(with_suffix(&incoming, "-shm"));
            return Err(e);
        }
    };
    remove_file_if_present(&with_suffix(&incoming, "-wal"))?;
    remove_file_if_present(&with_suffix(&incoming, "-shm"))?;

    // 2. The current database: its log emptied into the file, the file kept aside (a hard link,
    //    so the live name still holds a complete database until the rename below).
    let wal = with_suffix(db_path, "-wal");
    let shm = with_suffix(db_path, "-shm");
    let previous = if db_path.exists() {
        let kept = with_suffix(db_path, &format!(".{PREVIOUS}"));
        if let Err(e) = crate::db::migrate::checkpoint_file(db_path) {
            // Unreadable (perhaps why it is being restored): keep its log beside it instead.
            tracing::warn!(error = %e.msg, "cannot checkpoint the current database");
            for (log, name) in [(&wal, "-wal"), (&shm, "-shm")] {
                if log.exists() {
                    let aside = with_suffix(&kept, name);
                    fs::rename(log, &aside).map_err(|e| io_error(log, e))?;
                }
            }
        }
        remove_file_if_present(&kept)?;
        fs::hard_link(db_path, &kept).map_err(|e| io_error(&kept, e))?;
        Some(kept)
    } else {
        None
    };
    // The emptied log and the shared-memory index belong to the old file.
    remove_file_if_present(&wal)?;
    remove_file_if_present(&shm)?;

    // 3. The swap.
    fs::rename(&incoming, db_path).map_err(|e| io_error(db_path, e))?;
    sync_dir(data_dir)?;

    // 4. The uploaded files and the custom emoji pictures, each replaced as a whole.
    let files = replace_dir(
        &crate::domain::uploads::backup_dir_for(from),
        &crate::domain::uploads::uploads_dir(data_dir),
    )?;
    let pictures = replace_dir(
        &crate::domain::realm_emoji::backup_dir_for(from),
        &crate::domain::realm_emoji::emoji_dir(data_dir).join("images"),
    )?;

    // 5. Event queues saved by the last graceful stop describe the replaced data.
    remove_file_if_present(&crate::events::snapshot::path_in(data_dir))?;
    Ok(Restored {
        schema_version,
        files,
        pictures,
        previous,
    })
}

/// Replaces the directory `live` by a copy of `backup`, keeping the old one beside it as
/// `<live>.pre-restore`; returns how many files it copied, `None` (and changes nothing) when
/// the backup has no such directory.
fn replace_dir(backup: &Path, live: &Path) -> Result<Option<usize>> {
    if !backup.is_dir() {
        return Ok(None);
    }
    let parent = live.parent().unwrap_or(live);
    crate::private_files::private_dir(parent).map_err(|e| io_error(parent, e))?;
    let staging = with_suffix(live, ".restoring");
    remove_dir_if_present(&staging)?;
    let n = copy_tree(backup, &staging, 1)?;
    if live.exists() {
        let kept = with_suffix(live, &format!(".{PREVIOUS}"));
        remove_dir_if_present(&kept)?;
        fs::rename(live, &kept).map_err(|e| io_error(live, e))?;
    }
    fs::rename(&staging, live).map_err(|e| io_error(live, e))?;
    sync_dir(parent)?;
    Ok(Some(n))
}
