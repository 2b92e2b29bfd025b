//! How uploaded images are previewed: what an image is (read from its headers when it is
//! uploaded), how a message previews a linked upload, and thumbnails made on first request,
//! one at a time, and stored beside the uploads. It must not decide who may download a file
//! (that is `access`).

use std::path::PathBuf;

use rusqlite::Connection;

use crate::db::uploads as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::model::User;
use crate::model::uploads::ImageInfo;

use super::access::{file_not_found, find_for};
use super::names::percent_decode;
use super::storage::{store_file, thumbnail_key, thumbnails_dir};

/// What an uploaded image is: its shown size and whether it is animated, or unusable when it
/// is not a PNG, JPEG, GIF or WebP that decodes within the limits, or its thumbnail would not
/// (then no preview is offered, and its thumbnail is refused).
pub(super) fn image_info(data: &[u8]) -> ImageInfo {
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
