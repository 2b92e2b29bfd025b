//! Who may download an upload: its uploader, or anyone who can read a message linking it;
//! finding the file a request names ("File not found." for what is missing or not the
//! viewer's to see), and the short-lived signed download URLs with their per-process key (a
//! token is taken only as issued, digit for digit). It must not write records or files.

use std::path::PathBuf;

use hmac::{Hmac, KeyInit as _, Mac as _};
use rand::RngExt as _;
use rusqlite::Connection;
use sha2::Sha256;

use crate::db::uploads as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::model::User;
use crate::model::uploads::Attachment;

use super::names::encode_path;
use super::storage::file_path;

/// How long a temporary download URL works (upstream's 60 seconds).
pub const TEMPORARY_URL_SECS: i64 = 60;

pub(super) fn file_not_found() -> Error {
    Error::not_found("File not found.")
}

/// Whether `viewer` may download `a`: they uploaded it, or can read a message linking it.
pub(super) fn may_access(c: &Connection, viewer: &User, a: &Attachment) -> Result<bool> {
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
