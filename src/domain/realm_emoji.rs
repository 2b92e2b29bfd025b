//! Custom emoji: who may add one (`can_add_custom_emoji_group`, administrators for the names of
//! built-in emoji), the name rules, the picture (scaled to 64x64 by `domain::images` and stored
//! atomically under `<data_dir>/emoji/`), deactivation (by its author or an administrator;
//! the emoji stays listed, and old messages and reactions keep showing it), the files served
//! under `/user_avatars/`, and the checks reactions and status emoji make.
//!
//! Stored file names are made only of characters this module generated; no part of a request
//! becomes a file system path. No HTTP, no wire JSON, no SQL text.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::db::realm_emoji as db;
use crate::domain::core::Core;
use crate::domain::uploads::REALM_ID;
use crate::error::{Error, Result};
use crate::events::{Event, RealmEmojiChanged};
use crate::model::uploads::RealmEmoji;
use crate::model::{Role, User};

const MIB: usize = 1024 * 1024;

/// Characters of the random part of a stored picture's name.
const FILE_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// Longest emoji name, in characters (upstream sets none; a bound on what a request may store).
const MAX_NAME_CHARS: usize = 60;

/// The directory holding the pictures.
pub fn emoji_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("emoji")
}

/// The URL (path) of an emoji's picture, relative to the organization.
pub fn source_url(e: &RealmEmoji) -> String {
    format!("/user_avatars/{REALM_ID}/emoji/images/{}", e.file_name)
}

/// The URL of an animated emoji's still first frame.
pub fn still_url(e: &RealmEmoji) -> Option<String> {
    e.still_name
        .as_ref()
        .map(|s| format!("/user_avatars/{REALM_ID}/emoji/images/still/{s}"))
}

/// Upstream's emoji name rule: lowercase letters, digits, `-` and `_` (spaces arrive as `_`),
/// ending in a letter or digit.
pub fn check_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::bad_request("Emoji name is missing"));
    }
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
    if !name.chars().all(allowed) {
        return Err(Error::bad_request(
            "Emoji names must contain only lowercase English letters, digits, spaces, dashes, \
             and underscores.",
        ));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(Error::bad_request(format!(
            "Emoji name is too long (limit: {MAX_NAME_CHARS} characters)"
        )));
    }
    if name.ends_with(['-', '_']) {
        return Err(Error::bad_request(
            "Emoji names must end with either a letter or digit.",
        ));
    }
    Ok(())
}

/// `GET /realm/emoji`: every emoji, deactivated ones too.
pub async fn list(state: &Core) -> Result<Vec<RealmEmoji>> {
    state.db.read(db::all).await
}

/// The uploaded files of an emoji request, or why the body could not be read.
pub type Files = std::result::Result<Vec<bytes::Bytes>, Error>;

fn exists_error() -> Error {
    Error::bad_request("A custom emoji with this name already exists.")
}

/// Checks that do not depend on the file, in upstream's order.
fn check_may_add(c: &Connection, caller: &User, name: &str) -> Result<()> {
    if !crate::domain::user_groups::holds_realm(
        c,
        caller,
        crate::domain::realm_settings::CAN_ADD_CUSTOM_EMOJI,
    )? {
        return Err(Error::bad_request("Insufficient permission"));
    }
    if db::active_by_name(c, name)?.is_some() {
        return Err(exists_error());
    }
    Ok(())
}

async fn remove_pictures(state: &Core, names: Vec<String>) {
    let dir = emoji_dir(&state.config.data_dir).join("images");
    let _ = tokio::task::spawn_blocking(move || {
        for n in names {
            let _ = std::fs::remove_file(dir.join(n));
        }
    })
    .await;
}

/// `POST /realm/emoji/{name}`: adds an emoji from the one uploaded image. Every refusal
/// changes nothing.
pub async fn add(state: &Core, caller: &User, raw_name: &str, files: Files) -> Result<()> {
    let name = raw_name.trim().replace(' ', "_");
    check_name(&name)?;
    if caller.role == Role::Guest {
        return Err(Error::bad_request("Not allowed for guest users"));
    }
    {
        let (caller, name) = (caller.clone(), name.clone());
        state
            .db
            .read(move |c| check_may_add(c, &caller, &name))
            .await?;
    }
    let files = files?;
    let [file] = files.as_slice() else {
        return Err(Error::bad_request("You must upload exactly one file."));
    };
    if crate::emoji::code_for_name(&name).is_some() && !caller.role.is_admin() {
        return Err(Error::bad_request(
            "Only administrators can override default emoji.",
        ));
    }
    let max = state.config.limits.max_emoji_file_size_mib;
    if file.len() > max * MIB {
        return Err(Error::bad_request(format!(
            "Uploaded file is larger than the allowed limit of {max} MiB"
        )));
    }
    let data = file.clone();
    let picture = {
        // One image is decoded at a time (shared with thumbnails).
        let _permit = state
            .thumbnailer
            .acquire()
            .await
            .map_err(|_| Error::internal("the image decoder is closed"))?;
        state
            .db
            .cpu(move || crate::domain::images::emoji(&data))
            .await??
    };
    let random = crate::password::random_string(FILE_CHARS, 16);
    let file_name = format!("{random}.{}", picture.ext);
    let still_name = picture
        .still
        .as_ref()
        .map(|_| format!("{random}-still.png"));
    let dir = emoji_dir(&state.config.data_dir);
    {
        let (dir, file_name, still_name) = (dir.clone(), file_name.clone(), still_name.clone());
        tokio::task::spawn_blocking(move || -> Result<()> {
            crate::domain::uploads::store_file(
                &dir,
                &format!("images/{file_name}"),
                &picture.data,
            )?;
            if let (Some(still), Some(name)) = (picture.still, still_name) {
                crate::domain::uploads::store_file(&dir, &format!("images/{name}"), &still)?;
            }
            Ok(())
        })
        .await
        .map_err(|e| Error::internal(format!("emoji writer: {e}")))??;
    }
    let record = RealmEmoji {
        id: 0,
        name: name.clone(),
        author_id: Some(caller.id),
        file_name: file_name.clone(),
        still_name: still_name.clone(),
        deactivated: false,
    };
    let caller = caller.clone();
    let stored = state
        .db
        .write(move |tx| {
            // Checked again inside the write: another request may have won the name.
            check_may_add(tx, &caller, &record.name)?;
            db::insert(tx, &record, crate::time::now_secs())?;
            tx.emit(Event::RealmEmojiChanged(RealmEmojiChanged {
                emoji: db::all(tx)?,
            }));
            Ok(())
        })
        .await;
    if let Err(e) = stored {
        remove_pictures(
            state,
            std::iter::once(file_name).chain(still_name).collect(),
        )
        .await;
        return Err(e);
    }
    Ok(())
}

/// `DELETE /realm/emoji/{name}`: deactivates the active emoji called `name`, for its author
/// or an administrator.
pub async fn deactivate(state: &Core, caller: &User, name: String) -> Result<()> {
    let caller = caller.clone();
    state
        .db
        .write(move |tx| {
            let Some(e) = db::active_by_name(tx, &name)? else {
                return Err(Error::not_found(format!("Emoji '{name}' does not exist")));
            };
            if !caller.role.is_admin() && e.author_id != Some(caller.id) {
                return Err(Error::bad_request(
                    "Must be an organization administrator or emoji author",
                ));
            }
            db::deactivate(tx, e.id)?;
            tx.emit(Event::RealmEmojiChanged(RealmEmojiChanged {
                emoji: db::all(tx)?,
            }));
            Ok(())
        })
        .await
}

/// The stored picture `/user_avatars/<realm>/emoji/images/[still/]<file>` names, with its
/// content type; "File not found." for anything else. Pictures of deactivated emoji are
/// still served: old messages show them.
pub async fn find_picture(state: &Core, segs: Vec<String>) -> Result<(PathBuf, &'static str)> {
    let not_found = || Error::not_found("File not found.");
    let realm = REALM_ID.to_string();
    let file = match segs
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [r, "emoji", "images", file] if *r == realm => file.to_string(),
        [r, "emoji", "images", "still", file] if *r == realm => file.to_string(),
        _ => return Err(not_found()),
    };
    let safe = !file.is_empty()
        && file
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        && !file.starts_with('.');
    if !safe {
        return Err(not_found());
    }
    let still = segs.len() == 5;
    let f = file.clone();
    let e = state
        .db
        .read(move |c| db::by_file(c, &f))
        .await?
        .ok_or_else(not_found)?;
    let stored = if still {
        e.still_name.as_deref() == Some(file.as_str())
    } else {
        e.file_name == file
    };
    if !stored {
        return Err(not_found());
    }
    let content_type = if file.ends_with(".gif") {
        "image/gif"
    } else {
        "image/png"
    };
    Ok((
        emoji_dir(&state.config.data_dir).join("images").join(file),
        content_type,
    ))
}

/// The picture URL of the active emoji called `name` (Markdown's `:name:`).
pub fn active_url(c: &Connection, name: &str) -> Option<String> {
    db::active_by_name(c, name).ok()?.map(|e| source_url(&e))
}

/// The id (as a string: reactions' `emoji_code`) of the active emoji called `name`.
pub fn active_code(c: &Connection, name: &str) -> Result<Option<String>> {
    Ok(db::active_by_name(c, name)?.map(|e| e.id.to_string()))
}

/// Whether a new reaction or status may use the custom emoji `code` under `name` (upstream's
/// `check_emoji_request`).
pub fn check_use(c: &Connection, name: &str, code: &str) -> Result<()> {
    let found = match code.parse::<i64>() {
        Ok(id) if code.bytes().all(|b| b.is_ascii_digit()) => db::by_id(c, id)?,
        _ => None,
    };
    let e = found.ok_or_else(|| Error::bad_request("Invalid custom emoji."))?;
    if e.name != name {
        return Err(Error::bad_request("Invalid custom emoji name."));
    }
    if e.deactivated {
        return Err(Error::bad_request(
            "This custom emoji has been deactivated.",
        ));
    }
    Ok(())
}

/// Pictures without a record younger than this are left alone: they may belong to an emoji
/// whose record is being written right now.
const STRAY_GRACE_SECS: u64 = 3600;

/// Removes, at `now` (UNIX seconds), pictures no record names that are older than an hour
/// (left by a crash between storing a picture and its record) and leftover temporary files;
/// returns how many.
pub async fn sweep(state: &Core, now: i64) -> Result<usize> {
    let dir = emoji_dir(&state.config.data_dir);
    let old = move |p: &Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .is_some_and(|t| (now.max(0) as u64).saturating_sub(t.as_secs()) > STRAY_GRACE_SECS)
    };
    let mut candidates: Vec<(Option<String>, PathBuf)> = Vec::new();
    for (sub, named) in [("images", true), ("tmp", false)] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_file() && old(&p) {
                let name = named.then(|| e.file_name().to_string_lossy().into_owned());
                candidates.push((name, p));
            }
        }
    }
    let stray = state
        .db
        .read(move |c| {
            let mut out = Vec::new();
            for (name, path) in candidates {
                let known = match &name {
                    Some(n) => db::by_file(c, n)?.is_some(),
                    None => false,
                };
                if !known {
                    out.push(path);
                }
            }
            Ok(out)
        })
        .await?;
    let n = stray.len();
    for p in stray {
        let _ = std::fs::remove_file(p);
    }
    Ok(n)
}

/// Where `outpost backup --to FILE` puts the emoji pictures: the directory `FILE.emoji`.
pub fn backup_dir_for(db_copy: &Path) -> PathBuf {
    let mut name = db_copy.as_os_str().to_owned();
    name.push(".emoji");
    PathBuf::from(name)
}

/// Copies every picture the database backup `db_copy` names into [`backup_dir_for`] it
/// (owner-only); returns how many. Pictures never change once stored.
pub fn backup_pictures(data_dir: &Path, db_copy: &Path) -> Result<usize> {
    let names = db::file_names_in(db_copy)?;
    let src = emoji_dir(data_dir).join("images");
    let to_dir = backup_dir_for(db_copy);
    let fail = |what: &Path, e: std::io::Error| {
        Error::internal(format!("cannot back up {}: {e}", what.display()))
    };
    crate::private_files::private_dir(&to_dir).map_err(|e| fail(&to_dir, e))?;
    for n in &names {
        let (from, to) = (src.join(n), to_dir.join(n));
        let mut out = crate::private_files::new_private_file(&to).map_err(|e| fail(&to, e))?;
        let mut input = std::fs::File::open(&from).map_err(|e| fail(&from, e))?;
        std::io::copy(&mut input, &mut out).map_err(|e| fail(&from, e))?;
        out.sync_all().map_err(|e| fail(&to, e))?;
    }
    Ok(names.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_upstream() {
        assert!(check_name("green_tick").is_ok());
        assert!(check_name("a-1").is_ok());
        assert_eq!(check_name("").unwrap_err().msg, "Emoji name is missing");
        for bad in ["my_EMoji", "my_em*oji", "a/b", "na\u{ef}ve", "../x"] {
            assert!(
                check_name(bad)
                    .unwrap_err()
                    .msg
                    .starts_with("Emoji names must contain"),
                "{bad}"
            );
        }
        assert_eq!(
            check_name(&"a".repeat(61)).unwrap_err().msg,
            "Emoji name is too long (limit: 60 characters)"
        );
        assert!(check_name(&"a".repeat(60)).is_ok());
        assert_eq!(
            check_name("my_emoji_").unwrap_err().msg,
            "Emoji names must end with either a letter or digit."
        );
    }
}
