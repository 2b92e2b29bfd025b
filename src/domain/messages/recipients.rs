//! Who a message goes to: the recipient as a request names it, the channel it resolves to and
//! whether the sender may post there, the direct-message participants, and whether a user
//! receives a message with a given destination. It must not render, store or notify.

use rusqlite::Connection;
use serde_json::Value;

use crate::db::{channels as channels_db, users as users_db};
use crate::domain::channels::{self, UserRefArg};
use crate::domain::emails;
use crate::error::{Error, Result};
use crate::ids::{ChannelId, UserId};
use crate::model::{Channel, ChannelSetting, Role, User};

/// Who a message goes to, as the request named it.
#[derive(Clone, Debug, PartialEq)]
pub enum Recipient {
    ChannelName(String),
    ChannelId(i64),
    Users(Vec<UserRefArg>),
}

fn stream_does_not_exist(r: &Recipient) -> Error {
    match r {
        Recipient::ChannelId(id) => Error::coded(
            "STREAM_DOES_NOT_EXIST",
            format!("Channel with ID '{id}' does not exist"),
            vec![("stream_id", Value::from(*id))],
        ),
        Recipient::ChannelName(name) => Error::coded(
            "STREAM_DOES_NOT_EXIST",
            format!("Channel '{name}' does not exist"),
            vec![("stream", Value::from(name.as_str()))],
        ),
        Recipient::Users(_) => Error::bad_request("Invalid recipient"),
    }
}

/// Resolves the channel a message goes to and checks the sender may post there.
pub(super) fn resolve_channel(c: &Connection, sender: &User, r: &Recipient) -> Result<Channel> {
    let ch = match r {
        Recipient::ChannelId(id) => channels_db::get(c, ChannelId(*id))?,
        Recipient::ChannelName(name) => {
            if name.trim().is_empty() {
                return Err(Error::bad_request("Channel name can't be empty."));
            }
            channels_db::by_name(c, name.trim())?
        }
        Recipient::Users(_) => None,
    };
    let ch = ch.ok_or_else(|| stream_does_not_exist(r))?;
    let a = channels::access(c, sender, ch)?;
    if !a.metadata || (a.channel.invite_only && !a.subscribed) {
        return Err(stream_does_not_exist(r));
    }
    if a.channel.is_archived || (sender.role == Role::Guest && !a.subscribed) {
        return Err(Error::bad_request(format!(
            "Not authorized to send to channel '{}'",
            a.channel.name
        )));
    }
    if !crate::domain::user_groups::holds(
        c,
        sender,
        a.channel.setting(ChannelSetting::SendMessage),
    )? {
        return Err(Error::bad_request(
            "You do not have permission to post in this channel.",
        ));
    }
    Ok(a.channel)
}

/// Resolves direct-message recipients; returns all participants, sorted, sender included.
/// Emails name users as `emails::resolve` allows the sender (`host` is the realm's).
pub(super) fn resolve_users(
    c: &Connection,
    sender: &User,
    host: &str,
    refs: &[UserRefArg],
) -> Result<Vec<UserId>> {
    if refs.is_empty() {
        return Err(Error::bad_request("Message must have recipients"));
    }
    let mut ids = vec![sender.id];
    for r in refs {
        let user = match r {
            UserRefArg::Id(id) => users_db::get_any(c, UserId(*id))?
                .ok_or_else(|| Error::bad_request(format!("Invalid user ID {id}")))?,
            UserRefArg::Email(e) => emails::resolve(c, sender, host, e)?
                .ok_or_else(|| Error::bad_request(format!("Invalid email '{}'", e.trim())))?,
        };
        if !user.is_active {
            return Err(Error::bad_request(format!(
                "'{}' is no longer using Zulip.",
                emails::api_email(&user, host)
            )));
        }
        ids.push(user.id);
    }
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// Whether `user` receives a message with this destination.
pub(super) fn receives(
    c: &Connection,
    user: UserId,
    ch: Option<ChannelId>,
    dm: Option<&[UserId]>,
) -> Result<bool> {
    match (ch, dm) {
        (Some(ch), _) => channels_db::is_subscribed(c, user, ch),
        (None, Some(members)) => Ok(members.contains(&user)),
        (None, None) => Ok(false),
    }
}
