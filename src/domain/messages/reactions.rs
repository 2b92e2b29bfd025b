//! Emoji reactions on messages.

use crate::app::AppState;
use crate::db::messages as db;
use crate::error::{Error, Result};
use crate::events::Event;
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

/// `POST /messages/{id}/reactions`.
pub async fn add(
    state: &AppState,
    user: &User,
    id: MessageId,
    name: String,
    code: Option<String>,
    reaction_type: Option<String>,
) -> Result<()> {
    let rtype = canonical_type(reaction_type.as_deref().unwrap_or("unicode_emoji"))?;
    let user = user.clone();
    state
        .db
        .write(move |tx| {
            super::readable(tx, &user, id)?;
            let (name, code) = match rtype {
                "unicode_emoji" => {
                    let code = match code {
                        Some(c) => {
                            if crate::emoji::by_code(&c).is_none() {
                                return Err(Error::bad_request("Invalid emoji code."));
                            }
                            c
                        }
                        None => crate::emoji::code_for_name(&name).ok_or_else(|| {
                            Error::bad_request(format!("Emoji '{name}' does not exist"))
                        })?,
                    };
                    // Voting for an existing reaction keeps the name it was first given.
                    match db::existing_reaction_name(tx, id, rtype, &code)? {
                        Some(existing) => (existing, code),
                        None if crate::emoji::name_matches_code(&name, &code) => (name, code),
                        None => return Err(Error::bad_request("Invalid emoji name.")),
                    }
                }
                "zulip_extra_emoji" => {
                    if name != EXTRA_EMOJI || code.as_deref().is_some_and(|c| c != EXTRA_EMOJI) {
                        return Err(Error::bad_request("Invalid emoji name."));
                    }
                    (name, EXTRA_EMOJI.to_string())
                }
                _ => return Err(Error::bad_request("Invalid custom emoji.")),
            };
            let reaction = Reaction {
                message_id: id,
                user_id: user.id,
                emoji_name: name,
                emoji_code: code,
                reaction_type: rtype.to_string(),
            };
            if !db::add_reaction(tx, &reaction)? {
                return Err(Error::coded(
                    "REACTION_ALREADY_EXISTS",
                    "Reaction already exists.",
                    vec![],
                ));
            }
            tx.emit(Event::ReactionChanged {
                message_id: id,
                user_id: user.id,
                add: true,
                emoji_name: reaction.emoji_name,
                emoji_code: reaction.emoji_code,
                reaction_type: reaction.reaction_type,
            });
            Ok(())
        })
        .await
}

/// `DELETE /messages/{id}/reactions`.
pub async fn remove(
    state: &AppState,
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
            let code = match (code, &name) {
                (Some(c), _) => c,
                (None, Some(n)) if rtype == "unicode_emoji" => crate::emoji::code_for_name(n)
                    .ok_or_else(|| Error::bad_request(format!("Emoji '{n}' does not exist")))?,
                (None, Some(n)) => n.clone(),
                (None, None) => unreachable!("checked above"),
            };
            if rtype == "unicode_emoji" && crate::emoji::by_code(&code).is_none() {
                return Err(Error::bad_request("Invalid emoji code."));
            }
            let removed = db::remove_reaction(tx, id, user.id, rtype, &code)?.ok_or_else(|| {
                Error::coded("REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.", vec![])
            })?;
            tx.emit(Event::ReactionChanged {
                message_id: id,
                user_id: user.id,
                add: false,
                emoji_name: removed.emoji_name,
                emoji_code: removed.emoji_code,
                reaction_type: removed.reaction_type,
            });
            Ok(())
        })
        .await
}
