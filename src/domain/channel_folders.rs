//! Channel folders: administrators create, rename, describe and archive them; channels name
//! the folder they sit in (`folder_id`). Each change emits its event. No SQL, no wire shapes.

use rusqlite::Connection;

use crate::db::channel_folders as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{ChannelFolderAdded, ChannelFolderUpdated, Event, FolderChange};
use crate::ids::ChannelFolderId;
use crate::model::{ChannelFolder, User};

/// Upstream's `max_channel_folder_name_length`.
pub const MAX_NAME_LENGTH: usize = 60;
/// Upstream's `max_channel_folder_description_length`.
pub const MAX_DESCRIPTION_LENGTH: usize = 1024;

fn invalid_folder() -> Error {
    Error::bad_request("Invalid channel folder ID")
}

fn check_length(param: &str, value: &str, max: usize) -> Result<()> {
    if value.chars().count() > max {
        return Err(Error::bad_request(format!(
            "{param} is too long (limit: {max} characters)"
        )));
    }
    Ok(())
}

/// A folder name as upstream accepts it (not blank, printable, within the limit).
pub fn check_name(name: &str) -> Result<()> {
    check_length("name", name, MAX_NAME_LENGTH)?;
    if name.trim().is_empty() {
        return Err(Error::bad_request("Channel folder name can't be empty."));
    }
    if let Some(pos) = name.chars().position(char::is_control) {
        return Err(Error::bad_request(format!(
            "Invalid character in channel folder name, at position {}.",
            pos + 1
        )));
    }
    Ok(())
}

fn check_description(description: &str) -> Result<()> {
    if description.contains('\0') {
        return Err(Error::bad_request(
            "description must not contain null bytes",
        ));
    }
    check_length("description", description, MAX_DESCRIPTION_LENGTH)
}

fn name_free(c: &Connection, name: &str, except: Option<ChannelFolderId>) -> Result<()> {
    if db::name_taken(c, name, except)? {
        return Err(Error::bad_request(format!(
            "Channel folder '{name}' already exists"
        )));
    }
    Ok(())
}

/// The folder a channel may be put in: one that exists and is not archived.
pub fn usable(c: &Connection, id: i64) -> Result<ChannelFolderId> {
    let id = ChannelFolderId(id);
    match db::get(c, id)? {
        Some(f) if !f.is_archived => Ok(id),
        _ => Err(invalid_folder()),
    }
}

/// `POST /channel_folders/create`.
pub async fn create(
    state: &Core,
    actor: &User,
    name: String,
    description: String,
) -> Result<ChannelFolderId> {
    if !actor.role.is_admin() {
        return Err(Error::not_admin());
    }
    check_description(&description)?;
    check_name(&name)?;
    let creator = actor.id;
    state
        .db
        .write(move |tx| {
            name_free(tx, &name, None)?;
            let mut folder = ChannelFolder {
                id: ChannelFolderId(0),
                rendered_description: crate::markdown::render(&description),
                name,
                description,
                creator_id: Some(creator),
                date_created: crate::time::now_secs(),
                is_archived: false,
            };
            folder.id = db::insert(tx, &folder)?;
            tx.emit(Event::ChannelFolderAdded(ChannelFolderAdded {
                folder_id: folder.id,
            }));
            Ok(folder.id)
        })
        .await
}

/// `GET /channel_folders`: by id, archived ones when asked.
pub async fn list(state: &Core, include_archived: bool) -> Result<Vec<ChannelFolder>> {
    state.db.read(move |c| db::all(c, include_archived)).await
}

/// What `PATCH /channel_folders/{id}` asks to change.
#[derive(Clone, Debug, Default)]
pub struct FolderUpdate {
    pub name: Option<String>,
    pub description: Option<String>,
    pub is_archived: Option<bool>,
}

/// `PATCH /channel_folders/{id}`: every change is checked before any is made; unchanged
/// values are no change.
pub async fn update(
    state: &Core,
    actor: &User,
    id: ChannelFolderId,
    up: FolderUpdate,
) -> Result<()> {
    if !actor.role.is_admin() {
        return Err(Error::not_admin());
    }
    if let Some(d) = &up.description {
        check_description(d)?;
    }
    if let Some(n) = &up.name {
        check_length("name", n, MAX_NAME_LENGTH)?;
    }
    state
        .db
        .write(move |tx| {
            let mut folder = db::get(tx, id)?.ok_or_else(invalid_folder)?;
            let mut changes = Vec::new();
            if let Some(name) = up.name.filter(|n| *n != folder.name) {
                check_name(&name)?;
                name_free(tx, &name, Some(id))?;
                folder.name = name;
                changes.push(FolderChange::Name);
            }
            if let Some(d) = up.description.filter(|d| *d != folder.description) {
                folder.rendered_description = crate::markdown::render(&d);
                folder.description = d;
                changes.push(FolderChange::Description);
            }
            if let Some(archive) = up.is_archived.filter(|a| *a != folder.is_archived) {
                if archive && db::in_use(tx, id)? {
                    return Err(Error::bad_request(
                        "You need to remove all the channels from this folder to archive it.",
                    ));
                }
                if !archive {
                    name_free(tx, &folder.name, Some(id))?;
                }
                folder.is_archived = archive;
                changes.push(FolderChange::Archived);
            }
            if changes.is_empty() {
                return Ok(());
            }
            db::update(tx, &folder)?;
            for change in changes {
                tx.emit(Event::ChannelFolderUpdated(ChannelFolderUpdated {
                    folder_id: id,
                    change,
                }));
            }
            Ok(())
        })
        .await
}
