//! The organization's settings: their defaults, stored values and the channels they name.
//!
//! Reads go through `db::realm_settings`; a setting absent from the table has its default.
//! Owns no wire shapes.

use rusqlite::Connection;

use crate::db::{channels as channels_db, realm_settings as db};
use crate::error::Result;
use crate::ids::ChannelId;
use crate::model::Channel;

/// Where Notification Bot announces new channels (`announce=true`).
pub const NEW_STREAM_ANNOUNCEMENTS: &str = "new_stream_announcements_stream_id";
/// Where Notification Bot announces new users.
pub const SIGNUP_ANNOUNCEMENTS: &str = "signup_announcements_stream_id";

/// The channel a channel-valued setting names: `None` when unset (`-1`, the default) or when
/// that channel is gone or archived.
pub fn channel_setting(c: &Connection, name: &str) -> Result<Option<Channel>> {
    let Some(id) = db::get(c, name)?.and_then(|v| v.parse::<i64>().ok()) else {
        return Ok(None);
    };
    if id < 0 {
        return Ok(None);
    }
    Ok(channels_db::get(c, ChannelId(id))?.filter(|ch| !ch.is_archived))
}
