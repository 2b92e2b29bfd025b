//! SQL for channel folders.

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::Result;
use crate::ids::{ChannelFolderId, UserId};
use crate::model::ChannelFolder;

const COLUMNS: &str =
    "id, name, description, rendered_description, creator_id, date_created, is_archived";

fn from_row(r: &Row<'_>) -> rusqlite::Result<ChannelFolder> {
    Ok(ChannelFolder {
        id: ChannelFolderId(r.get(0)?),
        name: r.get(1)?,
        description: r.get(2)?,
        rendered_description: r.get(3)?,
        creator_id: r.get::<_, Option<i64>>(4)?.map(UserId),
        date_created: r.get(5)?,
        is_archived: r.get(6)?,
    })
}

pub fn get(c: &Connection, id: ChannelFolderId) -> Result<Option<ChannelFolder>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM channel_folders WHERE id = ?1"
    ))?;
    Ok(st.query_row([id.0], from_row).optional()?)
}

/// The folders by id, archived ones too when asked.
pub fn all(c: &Connection, include_archived: bool) -> Result<Vec<ChannelFolder>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM channel_folders WHERE ?1 OR NOT is_archived ORDER BY id"
    ))?;
    let rows = st.query_map([include_archived], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether a folder other than `except` that is not archived has this name, ignoring case.
pub fn name_taken(c: &Connection, name: &str, except: Option<ChannelFolderId>) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT 1 FROM channel_folders WHERE name = ?1 COLLATE NOCASE AND NOT is_archived \
             AND id IS NOT ?2",
    )?
    .query_row(params![name, except.map(|f| f.0)], |_| Ok(()))
    .optional()?
    .is_some())
}

pub fn insert(c: &Connection, f: &ChannelFolder) -> Result<ChannelFolderId> {
    c.prepare_cached(
        "INSERT INTO channel_folders (name, description, rendered_description, creator_id, \
         date_created, is_archived) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        f.name,
        f.description,
        f.rendered_description,
        f.creator_id.map(|u| u.0),
        f.date_created,
        f.is_archived
    ])?;
    Ok(ChannelFolderId(c.last_insert_rowid()))
}

pub fn update(c: &Connection, f: &ChannelFolder) -> Result<()> {
    c.prepare_cached(
        "UPDATE channel_folders SET name = ?2, description = ?3, rendered_description = ?4, \
         is_archived = ?5 WHERE id = ?1",
    )?
    .execute(params![
        f.id.0,
        f.name,
        f.description,
        f.rendered_description,
        f.is_archived
    ])?;
    Ok(())
}

/// Whether a channel that is not archived is in the folder.
pub fn in_use(c: &Connection, id: ChannelFolderId) -> Result<bool> {
    Ok(
        c.prepare_cached(
            "SELECT 1 FROM channels WHERE folder_id = ?1 AND NOT is_archived LIMIT 1",
        )?
        .query_row([id.0], |_| Ok(()))
        .optional()?
        .is_some(),
    )
}
