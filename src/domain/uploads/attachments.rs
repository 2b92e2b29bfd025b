//! One's own uploads: storing a new one (the size limit and the organization's quota, its
//! record written after its file), listing them with the messages linking them, deleting one,
//! and the event that tells an owner an attachment changed. It must not touch the file system
//! but through `storage`, nor decide who may download a file.

use rand::RngExt as _;

use crate::db::WriteTx;
use crate::db::uploads as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{AttachmentChange, AttachmentChanged, Event};
use crate::ids::UserId;
use crate::model::User;
use crate::model::uploads::{Attachment, AttachmentView};

use super::REALM_ID;
use super::names::{content_type_for, sanitize_name, url_of};
use super::previews::image_info;
use super::storage::{random_part, remove_files, store_file, uploads_dir};

const MIB: i64 = 1024 * 1024;

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

pub(super) fn emit_change(
    tx: &mut WriteTx<'_>,
    owner: UserId,
    change: AttachmentChange,
) -> Result<()> {
    let upload_space_used = db::space_used_by(tx, owner)?;
    tx.emit(Event::AttachmentChanged(AttachmentChanged {
        user_id: owner,
        change,
        upload_space_used,
    }));
    Ok(())
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
