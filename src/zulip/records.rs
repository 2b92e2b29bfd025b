//! Endpoints of the records a user keeps on the server: drafts, saved snippets, muted users
//! and push devices. Parsing here; the rules in `domain::records` and `domain::push`.

use serde_json::Value;

use crate::domain::push::{self, RegistrationInput, TokenKind};
use crate::domain::records::{self, DraftInput};
use crate::error::{Error, Result};
use crate::model::User;
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::{Params, as_int};
use super::wire;

/// One draft object as upstream's draft model takes it: `type`, `to`, `topic`, `content`
/// required, `timestamp` optional, nothing else.
fn draft_input(name: &str, v: Value) -> Result<DraftInput> {
    let Value::Object(mut o) = v else {
        return Err(Error::bad_request(format!("{name} is not a dict")));
    };
    if let Some(extra) = o.keys().find(|k| {
        !matches!(
            k.as_str(),
            "type" | "to" | "topic" | "content" | "timestamp"
        )
    }) {
        return Err(Error::bad_request(format!(
            "{name} has an unexpected key: {extra}"
        )));
    }
    let mut string = |key: &str| match o.remove(key) {
        None => Err(Error::bad_request(format!("{name}['{key}'] is missing"))),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(Error::bad_request(format!(
            "{name}['{key}'] is not a string"
        ))),
    };
    let kind = string("type")?;
    let topic = string("topic")?;
    let content = string("content")?;
    let to = match o.remove("to") {
        None => return Err(Error::bad_request(format!("{name}['to'] is missing"))),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                as_int(i).ok_or_else(|| {
                    Error::bad_request(format!("{name}['to'] is not a list of integers"))
                })
            })
            .collect::<Result<Vec<i64>>>()?,
        Some(_) => return Err(Error::bad_request(format!("{name}['to'] is not a list"))),
    };
    let timestamp = match o.remove("timestamp") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(_) => {
            return Err(Error::bad_request(format!(
                "{name}['timestamp'] is not a number"
            )));
        }
    };
    Ok(DraftInput {
        kind,
        to,
        topic,
        content,
        timestamp,
    })
}

/// # `GET /api/v1/drafts`
pub async fn get_drafts(state: &ChatState, caller: &User) -> Result<Success> {
    let drafts = records::list_drafts(state, caller).await?;
    let list: Vec<Value> = drafts.iter().map(wire::draft).collect();
    Ok(Success::new()
        .field("count", list.len())
        .field("drafts", list))
}

/// # `POST /api/v1/drafts`
pub async fn create_drafts(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let inputs = match p.json("drafts")? {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| draft_input(&format!("drafts[{i}]"), v))
            .collect::<Result<Vec<_>>>()?,
        Some(_) => return Err(Error::bad_request("drafts is not a list")),
    };
    let ids = records::create_drafts(state, caller, inputs).await?;
    Ok(Success::new().field("ids", ids))
}

/// # `PATCH /api/v1/drafts/{draft_id}`
pub async fn edit_draft(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let draft = p.json("draft")?.ok_or_else(|| Error::missing("draft"))?;
    records::edit_draft(state, caller, id, draft_input("draft", draft)?).await?;
    Ok(Success::new())
}

/// # `DELETE /api/v1/drafts/{draft_id}`
pub async fn delete_draft(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    records::delete_draft(state, caller, id).await?;
    Ok(Success::new())
}

/// # `GET /api/v1/saved_snippets`
pub async fn get_snippets(state: &ChatState, caller: &User) -> Result<Success> {
    let list = records::list_snippets(state, caller).await?;
    let list: Vec<Value> = list.iter().map(wire::saved_snippet).collect();
    Ok(Success::new().field("saved_snippets", list))
}

/// # `POST /api/v1/saved_snippets`
pub async fn create_snippet(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let title = p.required_str("title")?;
    let content = p.required_str("content")?;
    let id = records::create_snippet(state, caller, title, content).await?;
    Ok(Success::new().field("saved_snippet_id", id))
}

/// # `PATCH /api/v1/saved_snippets/{saved_snippet_id}`
pub async fn edit_snippet(
    state: &ChatState,
    caller: &User,
    id: i64,
    p: &mut Params,
) -> Result<Success> {
    let title = p.str("title");
    let content = p.str("content");
    records::edit_snippet(state, caller, id, title, content).await?;
    Ok(Success::new())
}

/// # `DELETE /api/v1/saved_snippets/{saved_snippet_id}`
pub async fn delete_snippet(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    records::delete_snippet(state, caller, id).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/users/me/muted_users/{muted_user_id}`
pub async fn mute_user(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    records::mute(state, caller, id).await?;
    Ok(Success::new())
}

/// # `DELETE /api/v1/users/me/muted_users/{muted_user_id}`
pub async fn unmute_user(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    records::unmute(state, caller, id).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/users/me/apns_device_token` and `/users/me/android_gcm_reg_id`
pub async fn add_push_token(
    state: &ChatState,
    caller: &User,
    kind: TokenKind,
    p: &mut Params,
) -> Result<Success> {
    let token = p.required_str("token")?;
    let appid = match kind {
        TokenKind::Apns => Some(p.required_str("appid")?),
        TokenKind::Fcm => None,
    };
    push::add_token(state, caller, kind, token, appid).await?;
    Ok(Success::new())
}

/// # `DELETE /api/v1/users/me/apns_device_token` and `/users/me/android_gcm_reg_id`
pub async fn remove_push_token(
    state: &ChatState,
    caller: &User,
    kind: TokenKind,
    p: &mut Params,
) -> Result<Success> {
    let token = p.required_str("token")?;
    push::remove_token(state, caller, kind, token).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/mobile_push/register`
pub async fn register_push_device(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let input = RegistrationInput {
        token_kind: p.required_str("token_kind")?,
        push_account_id: p.required_int("push_account_id")?,
        push_public_key: p.required_str("push_public_key")?,
        bouncer_public_key: p.required_str("bouncer_public_key")?,
        encrypted_push_registration: p.required_str("encrypted_push_registration")?,
    };
    push::register(state, caller, input).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/mobile_push/test_notification`
pub async fn test_push_notification(
    state: &ChatState,
    caller: &User,
    p: &mut Params,
) -> Result<Success> {
    let token = p.str("token");
    push::send::test_notification(state, caller, token).await?;
    Ok(Success::new())
}
