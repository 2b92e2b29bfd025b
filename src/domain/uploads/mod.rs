//! Uploaded files: storing them (size limit, organization quota, atomic writes under the data
//! directory), who may download them (the uploader, or anyone who can read a message linking
//! them), short-lived signed download URLs (a token is taken only as issued, digit for digit),
//! the links messages make to them, listing and
//! deleting one's own, and the cleanup of files nobody needs any more.
//!
//! Files live at `<data_dir>/uploads/<storage key>`, where the key is made only of characters
//! this module generated; no part of a request path or file name is ever used to build a file
//! system path. A file is written to `uploads/tmp/`, synced and renamed into place before its
//! record is committed, so a record never names a half-written file; a crash can leave a file
//! without a record, which [`sweep`] removes. No HTTP, no wire JSON, no SQL text.
//!
//! One idea a file: `names` (stored names, content types, URL encoding), `storage` (the files
//! on disk), `attachments` (one's own uploads), `access` (who may download, temporary URLs),
//! `previews` (image previews and thumbnails), `links` (the messages linking a file) and
//! `sweep` (the periodic cleanup). This file only declares them and keeps the old paths.

mod access;
mod attachments;
mod links;
mod names;
mod previews;
mod storage;
mod sweep;

pub use access::{Download, TEMPORARY_URL_SECS, UrlKey, find_for, find_temporary, temporary_url};
pub use attachments::{Uploaded, delete, list, upload};
pub use links::{drop_orphans, kinds_linked, link_message, linked_paths, remove_stored};
pub use names::{content_type_for, encode_path, sanitize_name, serves_inline, url_of};
pub use previews::{preview_of, thumbnail_for};
pub(crate) use storage::store_file;
pub use storage::{backup_dir_for, backup_files, file_path, thumbnails_dir, uploads_dir};
pub use sweep::{Swept, sweep};

/// The organization's id in upload URLs (Outpost serves one organization).
pub const REALM_ID: i64 = 1;
