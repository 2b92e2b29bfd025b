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

use std::io::Write as _;
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit as _, Mac as _};
use rand::RngExt as _;
use rusqlite::Connection;
use sha2::Sha256;

use crate::db::WriteTx;
use crate::db::uploads as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{AttachmentChange, Event};
use crate::ids::{MessageId, UserId};
use crate::model::User;
use crate::model::uploads::{Attachment, AttachmentView, ImageInfo};

/// The organization's id in upload URLs (Outpost serves one organization).
pub const REALM_ID: i64 = 1;

const MIB: i64 = 1024 * 1024;

/// How long a temporary download URL works (upstream's 60 seconds).
pub const TEMPORARY_URL_SECS: i64 = 60;

/// Files without a record younger than this are left alone by the sweep: they may be uploads
/// whose record is being written right now.
const STRAY_FILE_GRACE_SECS: u64 = 3600;

/// Characters of the random part of a storage key and URL.
const KEY_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/// Longest stored file name, in characters.
const MAX_NAME_CHARS: usize = 128;

/// The directory holding thumbnails of uploaded images (made again when missing, so not part
/// of backups).
pub fn thumbnails_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("thumbnails")
}

/// Where the thumbnail of the upload stored as `storage_key` lives under [`thumbnails_dir`].
fn thumbnail_key(storage_key: &str) -> String {
    format!("{storage_key}.{}", crate::markdown::THUMBNAIL_FORMAT)
}

/// The directory holding the uploaded files.
pub fn uploads_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("uploads")
}

/// The file name an upload is stored and linked under: the last path component of what the
/// client sent, keeping letters, digits, `.`, `-` and `_`, with whitespace as `-`; never empty,
/// never starting with a dot.
pub fn sanitize_name(raw: &str) -> String {
    let base = raw.rsplit(['/', '\\']).next().unwrap_or("");
    let mut out = String::new();
    for c in base.trim().chars() {
        if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
            out.push(c);
        } else if c.is_whitespace() {
            out.push('-');
        }
    }
    let out: String = out
        .trim_start_matches(['.', '-'])
        .chars()
        .take(MAX_NAME_CHARS)
        .collect();
    if out.is_empty() {
        "uploaded-file".to_string()
    } else {
        out
    }
}

/// The content type a stored name is served with, and whether it is an image.
pub fn content_type_for(name: &str) -> (&'static str, bool) {
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => ("image/png", true),
        "jpg" | "jpeg" => ("image/jpeg", true),
        "gif" => ("image/gif", true),
        "webp" => ("image/webp", true),
        "bmp" => ("image/bmp", true),
        "svg" => ("image/svg+xml", true),
        "pdf" => ("application/pdf", false),
        "txt" | "log" => ("text/plain", false),
        "md" => ("text/markdown", false),
        "csv" => ("text/csv", false),
        "json" => ("application/json", false),
        "html" | "htm" => ("text/html", false),
        "zip" => ("application/zip", false),
        "gz" => ("application/gzip", false),
        "mp3" => ("audio/mpeg", false),
        "ogg" => ("audio/ogg", false),
        "wav" => ("audio/wav", false),
        "mp4" => ("video/mp4", false),
        "webm" => ("video/webm", false),
        _ => ("application/octet-stream", false),
    }
}

/// Whether a browser may show this type in place (`Content-Disposition: inline`): types that
/// cannot run script in the server's origin. Everything else is served as an attachment.
pub fn serves_inline(content_type: &str) -> bool {
    matches!(
        content_type,
        "image/png"
            | "image/jpeg"
            | "image/gif"
            | "image/webp"
            | "image/bmp"
            | "application/pdf"
            | "text/plain"
            | "audio/mpeg"
            | "audio/ogg"
            | "audio/wav"
            | "video/mp4"
            | "video/webm"
    )
}

/// Percent-encodes a `path_id` for a URL (every byte outside `A-Za-z0-9 . - _ /`).
pub fn encode_path(path_id: &str) -> String {
    let mut out = String::with_capacity(path_id.len());
    for b in path_id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The URL (path) of an upload, as `POST /user_uploads` answers it and messages link it.
pub fn url_of(path_id: &str) -> String {
    format!("/user_uploads/{}", encode_path(path_id))
}

fn random_part(len: usize) -> String {
    crate::password::random_string(KEY_CHARS, len)
}

fn quota_exceeded() -> Error {
    Error::coded(
        "REALM_UPLOAD_QUOTA",
        "Upload would exceed your organization's upload quota.",
        Vec::new(),
    )
}

fn invalid_attachment() -> Error {
    Error::bad_request("Invalid attachment")
}

fn file_not_found() -> Error {
    Error::not_found("File not found.")
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

async fn remove_files(state: &Core, keys: Vec<String>) {
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

/// What `POST /user_uploads` answers.
pub struct Uploaded {
    pub url: String,
    pub filename: String,
}

/// Stores one uploaded file for `owner`; refuses it when it is larger than the configured
/// limit or would exceed the organization's quota.
pub async fn upload(
    state: &Core,
    owner: &User,
    raw_name: &str,
    data: bytes::Bytes,
) -> Result<Uploaded> {
    let limits = &state.config.limits;
    let max = limits.max_file_upload_size_mib;
    let size = data.len() as i64;
    if size > max as i64 * MIB {
        return Err(Error::bad_request(format!(
            "File is larger than this server's configured maximum upload size ({max} MiB)."
        )));
    }
    let quota = limits.upload_quota_mib as i64 * MIB;
    if quota > 0 {
        let used = state.db.read(db::space_used).await?;
        if used + size > quota {
            return Err(quota_exceeded());
        }
    }
    let name = sanitize_name(raw_name);
    let (content_type, is_image) = content_type_for(&name);
    let sub: String = format!("{:02x}", rand::rng().random_range(0..256u32));
    let storage_key = format!("{sub}/{}", random_part(24));
    // What an image is comes from its headers only (no pixels are decoded here).
    let image = if is_image {
        let data = data.clone();
        Some(state.db.cpu(move || image_info(&data)).await?)
    } else {
        None
    };
    let dir = uploads_dir(&state.config.data_dir);
    let key = storage_key.clone();
    tokio::task::spawn_blocking(move || store_file(&dir, &key, &data))
        .await
        .map_err(|e| Error::internal(format!("upload writer: {e}")))??;
    let path_id = format!("{REALM_ID}/{storage_key}/{name}");
    let record = Attachment {
        id: 0,
        owner_id: owner.id,
        path_id: path_id.clone(),
        storage_key: storage_key.clone(),
        name: name.clone(),
        size,
        content_type: content_type.to_string(),
        is_image,
        create_time: crate::time::now_secs(),
        claimed: false,
    };
    let me = owner.id;
    let stored = state
        .db
        .write(move |tx| {
            if quota > 0 && db::space_used(tx)? + size > quota {
                return Err(quota_exceeded());
            }
            let id = db::insert(tx, &record)?;
            if let Some(info) = &image {
                db::insert_image(tx, id, info)?;
            }
            let view = AttachmentView {
                attachment: Attachment { id, ..record },
                messages: Vec::new(),
            };
            emit_change(tx, me, AttachmentChange::Added(view))?;
            Ok(())
        })
        .await;
    if let Err(e) = stored {
        remove_files(state, vec![storage_key]).await;
        return Err(e);
    }
    Ok(Uploaded {
        url: url_of(&path_id),
        filename: name,
    })
}

/// What an uploaded image is: its shown size and whether it is animated, or unusable when it
/// is not a PNG, JPEG, GIF or WebP that decodes within the limits, or its thumbnail would not
/// (then no preview is offered, and its thumbnail is refused).
fn image_info(data: &[u8]) -> ImageInfo {
    use crate::domain::images;
    let (w, h) = crate::markdown::THUMBNAIL_BOX;
    match images::probe(data).and_then(|p| images::check_thumbnail(&p, w, h).map(|()| p)) {
        Ok(p) => ImageInfo {
            usable: true,
            width: p.width,
            height: p.height,
            animated: p.animated,
            content_type: p.content_type().to_string(),
        },
        Err(_) => ImageInfo {
            usable: false,
            width: 0,
            height: 0,
            animated: false,
            content_type: String::new(),
        },
    }
}

fn emit_change(tx: &mut WriteTx<'_>, owner: UserId, change: AttachmentChange) -> Result<()> {
    let upload_space_used = db::space_used_by(tx, owner)?;
    tx.emit(Event::AttachmentChanged {
        user_id: owner,
        change,
        upload_space_used,
    });
    Ok(())
}

/// Whether `viewer` may download `a`: they uploaded it, or can read a message linking it.
fn may_access(c: &Connection, viewer: &User, a: &Attachment) -> Result<bool> {
    if a.owner_id == viewer.id {
        return Ok(true);
    }
    for m in db::linking_messages(c, a.id)? {
        if crate::domain::messages::readable(c, viewer, m.id).is_ok() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A file to serve.
pub struct Download {
    pub attachment: Attachment,
    pub path: PathBuf,
}

/// The upload at `path_id` (the decoded URL path after `/user_uploads/`) if `viewer` may
/// download it; "File not found." otherwise, whether it is missing or not theirs to see.
pub async fn find_for(state: &Core, viewer: &User, path_id: String) -> Result<Download> {
    let viewer = viewer.clone();
    let a = state
        .db
        .read(move |c| match db::by_path(c, &path_id)? {
            Some(a) if may_access(c, &viewer, &a)? => Ok(a),
            _ => Err(file_not_found()),
        })
        .await?;
    Ok(Download {
        path: file_path(&state.config.data_dir, &a),
        attachment: a,
    })
}

/// The thumbnail `/user_uploads/thumbnail/<path_id>/<format>` names, for a `viewer` who may
/// download the original ("File not found." otherwise, and for formats the server does not
/// make and images that cannot be decoded). Made on first request, one at a time, and stored
/// atomically beside the uploads; later requests read the stored file.
pub async fn thumbnail_for(
    state: &Core,
    viewer: &User,
    path_id: String,
    format: &str,
) -> Result<bytes::Bytes> {
    if format != crate::markdown::THUMBNAIL_FORMAT {
        return Err(file_not_found());
    }
    let lookup = path_id.clone();
    let found = find_for(state, viewer, path_id).await?;
    if !found.attachment.is_image {
        return Err(file_not_found());
    }
    let info = state
        .db
        .read(move |c| db::image_by_path(c, &lookup))
        .await?;
    if info.is_some_and(|i| !i.usable) {
        return Err(file_not_found());
    }
    let dir = thumbnails_dir(&state.config.data_dir);
    let key = thumbnail_key(&found.attachment.storage_key);
    let path = dir.join(&key);
    let read = |p: PathBuf| async move {
        tokio::task::spawn_blocking(move || std::fs::read(p))
            .await
            .map_err(|e| Error::internal(format!("thumbnail reader: {e}")))
    };
    if let Ok(data) = read(path.clone()).await? {
        return Ok(data.into());
    }
    let _permit = state
        .thumbnailer
        .acquire()
        .await
        .map_err(|_| Error::internal("the thumbnailer is closed"))?;
    // Another request may have made it while this one waited.
    if let Ok(data) = read(path).await? {
        return Ok(data.into());
    }
    let original = match read(found.path).await? {
        Ok(d) => d,
        Err(_) => return Err(file_not_found()),
    };
    let (w, h) = crate::markdown::THUMBNAIL_BOX;
    let made = state
        .db
        .cpu(move || crate::domain::images::thumbnail_webp(&original, w, h))
        .await?;
    let thumb = match made {
        Ok(t) => t,
        Err(e) => {
            tracing::info!(reason = %e.msg, "an uploaded image could not be thumbnailed");
            return Err(file_not_found());
        }
    };
    let stored = thumb.clone();
    tokio::task::spawn_blocking(move || store_file(&dir, &key, &stored))
        .await
        .map_err(|e| Error::internal(format!("thumbnail writer: {e}")))??;
    Ok(thumb.into())
}

/// The per-process secret of temporary download URLs (they die with the process, which is
/// well within their lifetime's spirit).
pub struct UrlKey([u8; 32]);

impl UrlKey {
    pub fn random() -> UrlKey {
        let mut k = [0u8; 32];
        rand::rng().fill(&mut k);
        UrlKey(k)
    }

    fn mac(&self, attachment: i64, path_id: &str, expires: i64) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(format!("upload\n{attachment}\n{path_id}\n{expires}").as_bytes());
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

impl std::fmt::Debug for UrlKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UrlKey(***)")
    }
}

/// A URL (path) that serves the upload at `path_id` without credentials until `now` plus
/// [`TEMPORARY_URL_SECS`], for a `viewer` who may download it.
pub async fn temporary_url(
    state: &Core,
    viewer: &User,
    path_id: String,
    now: i64,
) -> Result<String> {
    let found = find_for(state, viewer, path_id).await?;
    let a = &found.attachment;
    let expires = now + TEMPORARY_URL_SECS;
    let mac = state.upload_urls.mac(a.id, &a.path_id, expires);
    Ok(format!(
        "/user_uploads/temporary/{}-{expires}-{mac}/{}",
        a.id,
        encode_path(&a.name)
    ))
}

/// A token's number written exactly as [`temporary_url`] writes it: decimal digits, no sign,
/// no leading zero (so one URL has one spelling).
fn canonical_number(s: &str) -> Option<i64> {
    let n = s.parse::<i64>().ok()?;
    (n >= 0 && n.to_string() == s).then_some(n)
}

/// The upload a temporary URL's token (`<id>-<expires>-<mac>`, each exactly as
/// [`temporary_url`] writes it) names, if the token is genuine and unexpired at `now`.
pub async fn find_temporary(state: &Core, token: &str, now: i64) -> Result<Download> {
    let mut it = token.splitn(3, '-');
    let (Some(id), Some(expires), Some(mac)) = (it.next(), it.next(), it.next()) else {
        return Err(file_not_found());
    };
    let (Some(id), Some(expires)) = (canonical_number(id), canonical_number(expires)) else {
        return Err(file_not_found());
    };
    if expires < now {
        return Err(file_not_found());
    }
    let mac = mac.to_string();
    let a = state
        .db
        .read(move |c| db::by_id(c, id))
        .await?
        .ok_or_else(file_not_found)?;
    let want = state.upload_urls.mac(a.id, &a.path_id, expires);
    if !crate::password::constant_time_eq(want.as_bytes(), mac.as_bytes()) {
        return Err(file_not_found());
    }
    Ok(Download {
        path: file_path(&state.config.data_dir, &a),
        attachment: a,
    })
}

/// `GET /attachments`: the caller's uploads with the messages linking them, and the bytes
/// they take.
pub async fn list(state: &Core, owner: &User) -> Result<(Vec<AttachmentView>, i64)> {
    let me = owner.id;
    state
        .db
        .read(move |c| {
            let mut out = Vec::new();
            for a in db::of_owner(c, me)? {
                let messages = db::linking_messages(c, a.id)?;
                out.push(AttachmentView {
                    attachment: a,
                    messages,
                });
            }
            Ok((out, db::space_used_by(c, me)?))
        })
        .await
}

/// `DELETE /attachments/{id}`: removes one of the caller's uploads ("Invalid attachment" for
/// any other id) and its file.
pub async fn delete(state: &Core, owner: &User, id: i64) -> Result<()> {
    let me = owner.id;
    let key = state
        .db
        .write(move |tx| {
            let a = db::owned(tx, me, id)?.ok_or_else(invalid_attachment)?;
            db::delete(tx, a.id)?;
            emit_change(tx, me, AttachmentChange::Removed(a.id))?;
            Ok(a.storage_key)
        })
        .await?;
    remove_files(state, vec![key]).await;
    Ok(())
}

/// The `path_id`s a message's content links (`/user_uploads/<realm>/<2>/<random>/<name>`,
/// relative or under any host), percent-decoded.
pub fn linked_paths(content: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = content;
    while let Some(i) = rest.find("/user_uploads/") {
        rest = &rest[i + "/user_uploads/".len()..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | ']' | '>' | '"' | '\'' | '<'))
            .unwrap_or(rest.len());
        let raw = &rest[..end];
        let decoded = percent_decode(raw);
        let segs: Vec<&str> = decoded.split('/').collect();
        if segs.len() == 4
            && segs[0] == REALM_ID.to_string()
            && segs.iter().all(|s| !s.is_empty())
            && !out.contains(&decoded)
        {
            out.push(decoded);
        }
    }
    out
}

/// How a message previews the upload at `raw_path` (the URL path after `/user_uploads/`, as
/// linked): a thumbnail for an image that decoded within the limits when it was uploaded, the
/// image itself for an animation or an upload from before thumbnails, nothing for an image
/// that cannot be decoded.
pub fn preview_of(c: &Connection, raw_path: &str) -> crate::markdown::UploadPreview {
    use crate::markdown::UploadPreview;
    match db::image_by_path(c, &percent_decode(raw_path)) {
        Ok(Some(i)) if !i.usable => UploadPreview::None,
        Ok(Some(i)) if !i.animated => UploadPreview::Thumbnail {
            width: i.width,
            height: i.height,
            content_type: i.content_type,
        },
        _ => UploadPreview::Original,
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Some(v) = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Records the uploads a new or edited message links, as upstream claims them: those the
/// sender uploaded or can already read through another message. Called inside the message's
/// write; tells each owner their attachment changed.
pub fn link_message(
    tx: &mut WriteTx<'_>,
    sender: &User,
    message: MessageId,
    content: &str,
) -> Result<()> {
    db::unlink_message(tx, message)?;
    for path in linked_paths(content) {
        let Some(a) = db::by_path(tx, &path)? else {
            continue;
        };
        if !may_access(tx, sender, &a)? {
            continue;
        }
        db::link(tx, a.id, message)?;
        let messages = db::linking_messages(tx, a.id)?;
        let owner = a.owner_id;
        let view = AttachmentView {
            attachment: Attachment { claimed: true, ..a },
            messages,
        };
        emit_change(tx, owner, AttachmentChange::Updated(view))?;
    }
    Ok(())
}

/// Deletes the records of claimed attachments no message links any more (their last linking
/// message was deleted or edited away), inside the caller's write; returns their storage keys
/// for [`remove_stored`] after the commit.
pub fn drop_orphans(tx: &mut WriteTx<'_>) -> Result<Vec<String>> {
    let mut keys = Vec::new();
    for a in db::orphaned(tx)? {
        db::delete(tx, a.id)?;
        emit_change(tx, a.owner_id, AttachmentChange::Removed(a.id))?;
        keys.push(a.storage_key);
    }
    Ok(keys)
}

/// Removes the files of records deleted by [`drop_orphans`] (after their commit).
pub async fn remove_stored(state: &Core, keys: Vec<String>) {
    remove_files(state, keys).await;
}

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
/// linking message removes an upload at once, see [`drop_orphans`]), and files without a record
/// older than an hour.
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

/// Whether `message` links an attachment, and whether one of them is an image (`has:`
/// operators read the records, not the HTML).
pub fn kinds_linked(c: &Connection, message: MessageId) -> Result<(bool, bool)> {
    let linked = db::of_message(c, message)?;
    Ok((!linked.is_empty(), linked.iter().any(|a| a.is_image)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitized() {
        assert_eq!(sanitize_name("../../etc/passwd"), "passwd");
        assert_eq!(sanitize_name("..\\..\\boot.ini"), "boot.ini");
        assert_eq!(sanitize_name("my photo (1).png"), "my-photo-1.png");
        assert_eq!(sanitize_name(".."), "uploaded-file");
        assert_eq!(sanitize_name(".hidden"), "hidden");
        assert_eq!(sanitize_name(""), "uploaded-file");
        assert_eq!(sanitize_name("naïve.txt"), "naïve.txt");
        assert_eq!(sanitize_name(&"a".repeat(500)).len(), MAX_NAME_CHARS);
    }

    #[test]
    fn links_are_found_and_decoded() {
        let content = "see [a.txt](/user_uploads/1/ab/XYZ/a.txt) and \
                       https://x.test/user_uploads/1/cd/QRS/na%C3%AFve.txt and /user_uploads/2/a/b/c \
                       and /user_uploads/1/ab/XYZ/a.txt";
        assert_eq!(
            linked_paths(content),
            vec![
                "1/ab/XYZ/a.txt".to_string(),
                "1/cd/QRS/naïve.txt".to_string()
            ]
        );
        assert_eq!(encode_path("1/cd/QRS/naïve.txt"), "1/cd/QRS/na%C3%AFve.txt");
    }
}
