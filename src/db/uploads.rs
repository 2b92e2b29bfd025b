//! SQL for uploaded files (in `schema.sql`): the attachment records and which messages link
//! them. Knows no rules and no JSON; the files themselves are `domain::uploads`'.

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::Result;
use crate::ids::{MessageId, UserId};
use crate::model::uploads::{Attachment, ImageInfo, LinkingMessage};

const COLUMNS: &str = "id, owner_id, path_id, storage_key, name, size, content_type, is_image, \
                       create_time, claimed";

fn row(r: &Row<'_>) -> rusqlite::Result<Attachment> {
    Ok(Attachment {
        id: r.get(0)?,
        owner_id: UserId(r.get(1)?),
        path_id: r.get(2)?,
        storage_key: r.get(3)?,
        name: r.get(4)?,
        size: r.get(5)?,
        content_type: r.get(6)?,
        is_image: r.get(7)?,
        create_time: r.get(8)?,
        claimed: r.get(9)?,
    })
}

/// Stores a record (its `id` and `claimed` are ignored); returns the new id.
pub fn insert(c: &Connection, a: &Attachment) -> Result<i64> {
    c.prepare_cached(
        "INSERT INTO attachments (owner_id, path_id, storage_key, name, size, content_type, \
         is_image, create_time) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        a.owner_id.0,
        a.path_id,
        a.storage_key,
        a.name,
        a.size,
        a.content_type,
        a.is_image,
        a.create_time
    ])?;
    Ok(c.last_insert_rowid())
}

pub fn by_path(c: &Connection, path_id: &str) -> Result<Option<Attachment>> {
    Ok(c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM attachments WHERE path_id = ?1"
    ))?
    .query_row([path_id], row)
    .optional()?)
}

pub fn by_id(c: &Connection, id: i64) -> Result<Option<Attachment>> {
    Ok(
        c.prepare_cached(&format!("SELECT {COLUMNS} FROM attachments WHERE id = ?1"))?
            .query_row([id], row)
            .optional()?,
    )
}

/// The attachment `id` if `owner` uploaded it.
pub fn owned(c: &Connection, owner: UserId, id: i64) -> Result<Option<Attachment>> {
    Ok(c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM attachments WHERE id = ?1 AND owner_id = ?2"
    ))?
    .query_row(params![id, owner.0], row)
    .optional()?)
}

/// Everything `owner` uploaded, oldest first.
pub fn of_owner(c: &Connection, owner: UserId) -> Result<Vec<Attachment>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM attachments WHERE owner_id = ?1 ORDER BY id"
    ))?;
    let rows = st.query_map([owner.0], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The messages linking an attachment, oldest first.
pub fn linking_messages(c: &Connection, attachment: i64) -> Result<Vec<LinkingMessage>> {
    let mut st = c.prepare_cached(
        "SELECT m.id, m.sent_at FROM attachment_messages am JOIN messages m \
         ON m.id = am.message_id WHERE am.attachment_id = ?1 ORDER BY m.id",
    )?;
    let rows = st.query_map([attachment], |r| {
        Ok(LinkingMessage {
            id: MessageId(r.get(0)?),
            date_sent: r.get(1)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Bytes `owner`'s uploads take.
pub fn space_used_by(c: &Connection, owner: UserId) -> Result<i64> {
    Ok(
        c.prepare_cached("SELECT coalesce(sum(size), 0) FROM attachments WHERE owner_id = ?1")?
            .query_row([owner.0], |r| r.get(0))?,
    )
}

/// Bytes all uploads of the organization take.
pub fn space_used(c: &Connection) -> Result<i64> {
    Ok(
        c.prepare_cached("SELECT coalesce(sum(size), 0) FROM attachments")?
            .query_row([], |r| r.get(0))?,
    )
}

/// Records that `message` links `attachment`, which is claimed from now on.
pub fn link(c: &Connection, attachment: i64, message: MessageId) -> Result<()> {
    c.prepare_cached(
        "INSERT OR IGNORE INTO attachment_messages (attachment_id, message_id) VALUES (?1, ?2)",
    )?
    .execute(params![attachment, message.0])?;
    c.prepare_cached("UPDATE attachments SET claimed = 1 WHERE id = ?1")?
        .execute([attachment])?;
    Ok(())
}

/// Forgets every link of `message` (before its edited content is linked anew).
pub fn unlink_message(c: &Connection, message: MessageId) -> Result<()> {
    c.prepare_cached("DELETE FROM attachment_messages WHERE message_id = ?1")?
        .execute([message.0])?;
    Ok(())
}

/// The attachments `message` links.
pub fn of_message(c: &Connection, message: MessageId) -> Result<Vec<Attachment>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {} FROM attachments a JOIN attachment_messages am ON am.attachment_id = a.id \
         WHERE am.message_id = ?1 ORDER BY a.id",
        COLUMNS
            .split(", ")
            .map(|col| format!("a.{col}"))
            .collect::<Vec<_>>()
            .join(", ")
    ))?;
    let rows = st.query_map([message.0], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn delete(c: &Connection, id: i64) -> Result<()> {
    c.prepare_cached("DELETE FROM attachments WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

/// Claimed attachments no message links any more (their last linking message is gone).
pub fn orphaned(c: &Connection) -> Result<Vec<Attachment>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM attachments a WHERE claimed = 1 AND NOT EXISTS \
         (SELECT 1 FROM attachment_messages am WHERE am.attachment_id = a.id)"
    ))?;
    let rows = st.query_map([], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Attachments no message links (never, or no more) uploaded before `cutoff` (UNIX seconds).
pub fn unlinked_before(c: &Connection, cutoff: i64) -> Result<Vec<Attachment>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM attachments a WHERE create_time < ?1 AND NOT EXISTS \
         (SELECT 1 FROM attachment_messages am WHERE am.attachment_id = a.id)"
    ))?;
    let rows = st.query_map([cutoff], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether a record names this stored file.
pub fn storage_key_known(c: &Connection, key: &str) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT 1 FROM attachments WHERE storage_key = ?1")?
            .query_row([key], |_| Ok(()))
            .optional()?
            .is_some(),
    )
}

/// The storage keys every record in the database file at `path` names (a backup copy, opened
/// read-only for this one question).
pub fn storage_keys_in(path: &std::path::Path) -> Result<Vec<String>> {
    let c = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let mut st = c.prepare("SELECT storage_key FROM attachments ORDER BY id")?;
    let rows = st.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Records what an uploaded image is.
pub fn insert_image(c: &Connection, attachment: i64, info: &ImageInfo) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO image_attachments (attachment_id, usable, width, height, animated, \
         content_type) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        attachment,
        info.usable,
        info.width,
        info.height,
        info.animated,
        info.content_type
    ])?;
    Ok(())
}

/// What the upload at `path_id` is, if it is an image that was looked at when uploaded.
pub fn image_by_path(c: &Connection, path_id: &str) -> Result<Option<ImageInfo>> {
    Ok(c.prepare_cached(
        "SELECT i.usable, i.width, i.height, i.animated, i.content_type \
             FROM image_attachments i JOIN attachments a ON a.id = i.attachment_id \
             WHERE a.path_id = ?1",
    )?
    .query_row([path_id], |r| {
        Ok(ImageInfo {
            usable: r.get(0)?,
            width: r.get(1)?,
            height: r.get(2)?,
            animated: r.get(3)?,
            content_type: r.get(4)?,
        })
    })
    .optional()?)
}
