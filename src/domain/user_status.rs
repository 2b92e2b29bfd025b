//! User statuses: reading one and the caller's changes (`POST /users/me/status`), with the
//! emoji rules a status shares with reactions. No HTTP or wire JSON here.

use crate::db::users as users_db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, UserStatusChanged};
use crate::ids::UserId;
use crate::model::{User, UserStatus};

pub const MAX_STATUS_TEXT_LENGTH: usize = 60;

pub async fn status(state: &Core, id: UserId) -> Result<Option<(User, UserStatus)>> {
    state
        .db
        .read(move |c| {
            let Some(user) = users_db::get(c, id)? else {
                return Ok(None);
            };
            let status = users_db::status(c, id)?;
            Ok(Some((user, status)))
        })
        .await
}

/// A status change; `None` fields stay as they are.
pub struct StatusUpdate {
    pub status_text: Option<String>,
    pub away: Option<bool>,
    pub emoji_name: Option<String>,
    pub emoji_code: Option<String>,
    pub reaction_type: Option<String>,
}

/// Updates the caller's status (`POST /users/me/status`).
pub async fn update(state: &Core, user: &User, up: StatusUpdate) -> Result<()> {
    if user.is_bot {
        return Err(Error::bad_request(
            "This endpoint does not accept bot requests.",
        ));
    }
    if up.status_text.is_none()
        && up.away.is_none()
        && up.emoji_name.is_none()
        && up.emoji_code.is_none()
        && up.reaction_type.is_none()
    {
        return Err(Error::bad_request("Client did not pass any new values."));
    }
    let text = up.status_text.map(|t| t.trim().to_string());
    if text
        .as_ref()
        .is_some_and(|t| t.chars().count() > MAX_STATUS_TEXT_LENGTH)
    {
        return Err(Error::bad_request(format!(
            "status_text is too long (limit: {MAX_STATUS_TEXT_LENGTH} characters)"
        )));
    }
    if text.as_ref().is_some_and(|t| t.contains('\0')) {
        return Err(Error::bad_request(
            "status_text must not contain null bytes",
        ));
    }
    if up.emoji_name.is_none() && (up.emoji_code.is_some() || up.reaction_type.is_some()) {
        return Err(Error::bad_request(
            "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
        ));
    }
    let emoji = match up.emoji_name {
        None => None,
        Some(name) if name.is_empty() => Some((String::new(), String::new(), String::new())),
        Some(name) => {
            let rt = up
                .reaction_type
                .unwrap_or_else(|| "unicode_emoji".to_string());
            let code = check_emoji(&name, up.emoji_code.as_deref(), &rt)?;
            Some((name, code, rt))
        }
    };
    let id = user.id;
    let away = up.away;
    state
        .db
        .write(move |tx| {
            let mut status = users_db::status(tx, id)?;
            if let Some(t) = text {
                status.status_text = t;
            }
            if let Some((name, mut code, rt)) = emoji {
                // Custom emoji are the database's: looked up and checked inside the write.
                if rt == "realm_emoji" {
                    if code.is_empty() {
                        code = crate::domain::realm_emoji::active_code(tx, &name)?.ok_or_else(
                            || Error::bad_request(format!("Emoji '{name}' does not exist")),
                        )?;
                    }
                    crate::domain::realm_emoji::check_use(tx, &name, &code)?;
                }
                status.emoji_name = name;
                status.emoji_code = code;
                status.reaction_type = rt;
            }
            users_db::set_status(tx, id, &status, crate::time::now_secs())?;
            if let Some(away) = away {
                users_db::set_presence_enabled(tx, id, !away)?;
            }
            tx.emit(Event::UserStatusChanged(UserStatusChanged { user_id: id }));
            Ok(())
        })
        .await
}

/// Validates an emoji given by name (and optionally code); returns its code.
pub fn check_emoji(name: &str, code: Option<&str>, reaction_type: &str) -> Result<String> {
    match reaction_type {
        "unicode_emoji" => {
            let code = match code {
                Some(c) => c.to_string(),
                None => crate::emoji::code_for_name(name)
                    .ok_or_else(|| Error::bad_request(format!("Emoji '{name}' does not exist")))?,
            };
            if crate::emoji::by_code(&code).is_none() {
                return Err(Error::bad_request("Invalid emoji code."));
            }
            if !crate::emoji::name_matches_code(name, &code) {
                return Err(Error::bad_request("Invalid emoji name."));
            }
            Ok(code)
        }
        "zulip_extra_emoji" | "service_extra_emoji" => {
            if name != "zulip" || code.is_some_and(|c| c != "zulip") {
                return Err(Error::bad_request("Invalid emoji name."));
            }
            Ok("zulip".to_string())
        }
        // Checked against the organization's emoji where the status is stored.
        "realm_emoji" => Ok(code.unwrap_or_default().to_string()),
        _ => Err(Error::bad_request("Invalid reaction_type")),
    }
}
