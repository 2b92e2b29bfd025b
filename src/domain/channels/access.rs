//! Who may do what with one channel: see it exist, read its content, post, administer it;
//! and who hears of its changes. Pure rules over stored records; changes nothing.

use crate::db::{channels as db, users as users_db};
use crate::error::{Error, Result};
use crate::ids::{ChannelId, UserId};
use crate::model::{Channel, ChannelSetting, Role, User};

/// What a user may do with one channel.
#[derive(Clone, Debug)]
pub struct Access {
    pub channel: Channel,
    pub subscribed: bool,
    /// May read the channel's messages.
    pub content: bool,
    /// May see that the channel exists and its settings.
    pub metadata: bool,
    /// May change the channel's settings or archive it.
    pub administer: bool,
}

/// Computes a user's access to a channel.
pub fn access(c: &rusqlite::Connection, user: &User, channel: Channel) -> Result<Access> {
    let subscribed = db::is_subscribed(c, user.id, channel.id)?;
    let public = !channel.invite_only;
    let content = subscribed
        || (public && user.role != Role::Guest)
        || crate::domain::user_groups::holds(c, user, channel.setting(ChannelSetting::Subscribe))?;
    let administer = user.role.is_admin()
        || crate::domain::user_groups::holds(
            c,
            user,
            channel.setting(ChannelSetting::AdministerChannel),
        )?;
    Ok(Access {
        metadata: content || administer,
        subscribed,
        content,
        administer,
        channel,
    })
}

/// Who hears of a channel's existence and changes (its events): for a public channel every
/// active member except guests who are not subscribed (whom `access` denies its content), for
/// a private one its subscribers.
pub fn metadata_audience(c: &rusqlite::Connection, ch: &Channel) -> Result<Vec<UserId>> {
    let subscribers = db::subscriber_ids(c, ch.id)?;
    if ch.invite_only {
        return Ok(subscribers);
    }
    Ok(users_db::all(c)?
        .into_iter()
        .filter(|u| u.is_active)
        .filter(|u| u.role != Role::Guest || subscribers.contains(&u.id))
        .map(|u| u.id)
        .collect())
}

pub(super) fn invalid_channel_id() -> Error {
    Error::bad_request("Invalid channel ID")
}

/// The channel with this id if the user may see it exists (else "Invalid channel ID").
pub fn visible_by_id(c: &rusqlite::Connection, user: &User, id: ChannelId) -> Result<Access> {
    let ch = db::get(c, id)?.ok_or_else(invalid_channel_id)?;
    let a = access(c, user, ch)?;
    if !a.metadata {
        return Err(invalid_channel_id());
    }
    Ok(a)
}
