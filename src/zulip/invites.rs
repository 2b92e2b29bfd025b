//! Invitation endpoints: `POST /invites`, `POST /invites/multiuse`, `GET /invites`,
//! `DELETE /invites/{id}`, `DELETE /invites/multiuse/{id}`, `POST /invites/{id}/resend`.

use serde_json::Value;

use crate::domain::invites::{self, InviteOptions};
use crate::error::{Error, Result};
use crate::model::{Role, User};
use crate::zulip::ChatState;

use super::channels::int_list;
use super::envelope::Success;
use super::params::{Params, as_int};
use super::wire;

/// The options both kinds of invitation take; `channels_required` for email invitations.
fn options(p: &mut Params, channels_required: bool, email: bool) -> Result<InviteOptions> {
    let expires_in_minutes = match p.json("invite_expires_in_minutes")? {
        None => None,
        Some(Value::Null) => Some(None),
        Some(v) => Some(Some(as_int(&v).ok_or_else(|| {
            Error::bad_request("invite_expires_in_minutes is not an integer")
        })?)),
    };
    let invite_as = p.int("invite_as")?.unwrap_or(Role::Member.code());
    let channels = match int_list(p, "stream_ids")? {
        Some(ids) => ids,
        None if channels_required => return Err(Error::missing("stream_ids")),
        None => Vec::new(),
    };
    let groups = int_list(p, "group_ids")?.unwrap_or_default();
    let include_defaults = p
        .bool("include_realm_default_subscriptions")?
        .unwrap_or(false);
    let notify_referrer = if email {
        p.bool("notify_referrer_on_join")?.unwrap_or(true)
    } else {
        false
    };
    Ok(InviteOptions {
        expires_in_minutes,
        invite_as,
        channels,
        groups,
        include_defaults,
        notify_referrer,
        welcome_text: p.str("welcome_message_custom_text"),
    })
}

/// # `POST /api/v1/invites`
pub async fn send(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let emails = p.required_str("invitee_emails")?;
    let opts = options(p, true, true)?;
    invites::invite(state, caller, &emails, opts).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/invites/multiuse`
pub async fn create_link(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let opts = options(p, false, false)?;
    let link = invites::create_link(state, caller, opts).await?;
    Ok(Success::new().field("invite_link", link))
}

/// # `GET /api/v1/invites`
pub async fn list(state: &ChatState, caller: &User) -> Result<Success> {
    let all = invites::list(state, caller).await?;
    let list: Vec<Value> = all
        .iter()
        .map(|i| wire::invite(i, &invites::link_url(state, &i.key.0)))
        .collect();
    Ok(Success::new().field("invites", list))
}

/// # `DELETE /api/v1/invites/{id}` and `DELETE /api/v1/invites/multiuse/{id}`
pub async fn revoke(state: &ChatState, caller: &User, id: i64, multiuse: bool) -> Result<Success> {
    invites::revoke(state, caller, id, multiuse).await?;
    Ok(Success::new())
}

/// # `POST /api/v1/invites/{id}/resend`
pub async fn resend(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    invites::resend(state, caller, id).await?;
    Ok(Success::new())
}
