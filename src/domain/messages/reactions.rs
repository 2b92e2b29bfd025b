//! Emoji reactions on messages.

use crate::db::reactions as reactions_db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, ReactionChanged};
use crate::ids::MessageId;
use crate::model::{Reaction, User};

/// Zulip's single built-in extra emoji.
const EXTRA_EMOJI: &str = "zulip";

/// The stored reaction type: Zulip's `zulip_extra_emoji` also answers to `service_extra_emoji`.
fn canonical_type(t: &str) -> Result<&'static str> {
    match t {
        "unicode_emoji" => Ok("unicode_emoji"),
        "realm_emoji" => Ok("realm_emoji"),
        "zulip_extra_emoji" | "service_extra_emoji" => Ok("zulip_extra_emoji"),
        _ => Err(Error::bad_request("Invalid reaction_type")),
    }
}

/// The code and reaction type an emoji name stands for (upstream's `get_emoji_data`): an active
/// custom emoji, Zulip's extra emoji or a Unicode emoji of Zulip's table.
fn emoji_data(c: &rusqlite::Connection, name: &str) -> Result<(String, &'static str)> {
    if let Some(code) = crate::domain::realm_emoji::active_code(c, name)? {
        return Ok((code, "realm_emoji"));
    }
    if name == EXTRA_EMOJI {
        return Ok((EXTRA_EMOJI.to_string(), "zulip_extra_emoji"));
    }
    crate::emoji::code_for_name(name)
        .map(|code| (code, "unicode_emoji"))
        .ok_or_else(|| Error::bad_request(format!("Emoji '{name}' does not exist")))
}

/// Whether a new reaction may use `name` with `code` (upstream's `check_emoji_request`): the
/// code must be one of the type's and the name one of that emoji's names.
fn check_new_reaction(c: &rusqlite::Connection, name: &str, code: &str, rtype: &str) -> Result<()> {
    match rtype {
        "unicode_emoji" => {
            if crate::emoji::by_code(code).is_none() {
                return Err(Error::bad_request("Invalid emoji code."));
            }
            if !crate::emoji::name_matches_code(name, code) {
                return Err(Error::bad_request("Invalid emoji name."));
            }
            Ok(())
        }
        "zulip_extra_emoji" => {
            if code != EXTRA_EMOJI {
                return Err(Error::bad_request("Invalid emoji code."));
            }
            if name != code {
                return Err(Error::bad_request("Invalid emoji name."));
            }
            Ok(())
        }
        _ => crate::domain::realm_emoji::check_use(c, name, code),
    }
}

/// `POST /messages/{id}/reactions`. A missing code or type is looked up from the name; a
/// reaction with a code someone already reacted with is a vote and keeps that reaction's name;
/// otherwise the name and code must agree in Zulip's emoji table.
pub async fn add(
    state: &Core,
    user: &User,
    id: MessageId,
    name: String,
    code: Option<String>,
    reaction_type: Option<String>,
) -> Result<()> {
    let given_type = reaction_type.as_deref().map(canonical_type).transpose()?;
    let user = user.clone();
    state
        .db
        .write(move |tx| {
            super::readable(tx, &user, id)?;
            let (code, rtype) = match (code, given_type) {
                (Some(code), Some(t)) => (code, t),
                (code, t) => {
                    let (found_code, found_type) = emoji_data(tx, &name)?;
                    (code.unwrap_or(found_code), t.unwrap_or(found_type))
                }
            };
            let name = match reactions_db::existing_name(tx, id, rtype, &code)? {
                Some(existing) => existing,
                None => {
                    check_new_reaction(tx, &name, &code, rtype)?;
                    name
                }
            };
            let reaction = Reaction {
                message_id: id,
                user_id: user.id,
                emoji_name: name,
                emoji_code: code,
                reaction_type: rtype.to_string(),
            };
            if !reactions_db::add(tx, &reaction)? {
                return Err(Error::coded(
                    "REACTION_ALREADY_EXISTS",
                    "Reaction already exists.",
                    vec![],
                ));
            }
            tx.emit(Event::ReactionChanged(ReactionChanged {
                message_id: id,
                user_id: user.id,
                add: true,
                emoji_name: reaction.emoji_name,
                emoji_code: reaction.emoji_code,
                reaction_type: reaction.reaction_type,
            }));
            Ok(())
        })
        .await
}

/// `DELETE /messages/{id}/reactions`.
pub async fn remove(
    state: &Core,
    user: &User,
    id: MessageId,
    name: Option<String>,
    code: Option<String>,
    reaction_type: Option<String>,
) -> Result<()> {
    if name.is_none() && code.is_none() {
        return Err(Error::bad_request(
            "At least one of the following arguments must be present: emoji_name, emoji_code",
        ));
    }
    let rtype = canonical_type(reaction_type.as_deref().unwrap_or("unicode_emoji"))?;
    let user = user.clone();
    state
        .db
        .write(move |tx| {
            super::readable(tx, &user, id)?;
            // Without a code, the name's code in the current table (as upstream).
            let code = match (code, &name) {
                (Some(c), _) => c,
                (None, Some(n)) => emoji_data(tx, n)?.0,
                (None, None) => unreachable!("checked above"),
            };
            if rtype == "unicode_emoji" && crate::emoji::by_code(&code).is_none() {
                return Err(Error::bad_request("Invalid emoji code."));
            }
            let removed =
                reactions_db::remove(tx, id, user.id, rtype, &code)?.ok_or_else(|| {
                    Error::coded("REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.", vec![])
                })?;
            tx.emit(Event::ReactionChanged(ReactionChanged {
                message_id: id,
                user_id: user.id,
                add: false,
                emoji_name: removed.emoji_name,
                emoji_code: removed.emoji_code,
                reaction_type: removed.reaction_type,
            }));
            Ok(())
        })
        .await
}
