//! Where uploads live on disk: the uploads and thumbnails directories under the data
//! directory, storage keys made only of characters generated here, writing a file atomically
//! (temporary file, sync, rename), removing stored files, and copying them for a backup. It
//! must not decide who may read a file or when one is no longer needed.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::db::uploads as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::model::uploads::Attachment;

/// Characters of the random part of a storage key and URL.
const KEY_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/// The directory holding thumbnails of uploaded images (made again when missing, so not part
/// of backups).
pub fn thumbnails_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("thumbnails")
}

/// Where the thumbnail of the upload stored as `storage_key` lives under [`thumbnails_dir`].
pub(super) fn thumbnail_key(storage_key: &str) -> String {
    format!("{storage_key}.{}", crate::markdown::THUMBNAIL_FORMAT)
}

/// The directory holding the uploaded files.
pub fn uploads_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("uploads")
}

pub(super) fn random_part(len: usize) -> String {
    crate::password::random_string(KEY_CHARS, len)
}

fn io_error(what: &str, e: std::io::Error) -> Error {
    Error::internal(format!("{what}: {e}"))
}

/// Writes `data` as `uploads/<key>`: a new owner-only temporary file, synced, renamed into
/// place, and the directory synced.
pub(crate) fn store_file(dir: &Path, key: &str, data: &[u8]) -> Result<()> {
    let tmp_dir = dir.join("tmp");
    let (sub, file) = key
        .split_once('/')
        .ok_or_else(|| Error::internal("bad storage key"))?;
    let final_dir = dir.join(sub);
    for d in [dir, tmp_dir.as_path(), final_dir.as_path()] {
        crate::private_files::private_dir(d).map_err(|e| io_error("upload directory", e))?;
    }
    let tmp = tmp_dir.join(format!("{sub}{file}.part"));
    let write = || -> std::io::Result<()> {
        let mut f = crate::private_files::new_private_file(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, final_dir.join(file))?;
        std::fs::File::open(&final_dir)?.sync_all()
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_error("storing an upload", e)
    })
}

/// The file of a record.
pub fn file_path(data_dir: &Path, a: &Attachment) -> PathBuf {
    uploads_dir(data_dir).join(&a.storage_key)
}

pub(super) async fn remove_files(state: &Core, keys: Vec<String>) {
    if keys.is_empty() {
        return;
    }
    let dir = uploads_dir(&state.config.data_dir);
    let thumbs = thumbnails_dir(&state.config.data_dir);
    let _ = tokio::task::spawn_blocking(move || {
        for k in keys {
            if let Err(e) = std::fs::remove_file(dir.join(&k))
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!(error = %e, "could not remove an uploaded file");
            }
            let _ = std::fs::remove_file(thumbs.join(thumbnail_key(&k)));
        }
    })
    .await;
}

/// Where `outpost backup --to FILE` puts the uploaded files: the directory `FILE.uploads`.
pub fn backup_dir_for(db_copy: &Path) -> PathBuf {
    let mut name = db_copy.as_os_str().to_owned();
    name.push(".uploads");
    PathBuf::from(name)
}

/// Copies the file of every record in the database backup `db_copy` from the data directory
/// into [`backup_dir_for`] it (owner-only), so the backup holds exactly the files its records
/// name. Files never change once stored, so copying after the snapshot is consistent; a file
/// deleted in between is reported. Returns how many files were copied.
pub fn backup_files(data_dir: &Path, db_copy: &Path) -> Result<usize> {
    let keys = db::storage_keys_in(db_copy)?;
    let src = uploads_dir(data_dir);
    let dest = backup_dir_for(db_copy);
    let fail = |what: &Path, e: std::io::Error| {
        Error::internal(format!("cannot back up {}: {e}", what.display()))
    };
    crate::private_files::private_dir(&dest).map_err(|e| fail(&dest, e))?;
    let mut copied = 0;
    for key in keys {
        let Some((sub, file)) = key.split_once('/') else {
            continue;
        };
        let from = src.join(sub).join(file);
        let to_dir = dest.join(sub);
        crate::private_files::private_dir(&to_dir).map_err(|e| fail(&to_dir, e))?;
        let to = to_dir.join(file);
        let mut out = crate::private_files::new_private_file(&to).map_err(|e| fail(&to, e))?;
        let mut input = std::fs::File::open(&from).map_err(|e| fail(&from, e))?;
        std::io::copy(&mut input, &mut out).map_err(|e| fail(&from, e))?;
        out.sync_all().map_err(|e| fail(&to, e))?;
        copied += 1;
    }
    Ok(copied)
}
