//! The realm as the Markdown renderer sees it: mention and link targets read from the database.

use rusqlite::Connection;

use crate::db::{channels as channels_db, message_mentions as mentions_db};
use crate::ids::ChannelId;
use crate::markdown::{Lookup, MentionChannel, MentionGroup, MentionUser, UploadPreview};
use crate::model::User;

/// Answers the renderer's questions for a message `sender` is writing.
pub struct DbLookup<'a> {
    pub conn: &'a Connection,
    pub sender: &'a User,
    /// The realm's external URL, for making links into the realm relative.
    pub realm_url: &'a str,
}

impl Lookup for DbLookup<'_> {
    fn users_by_name(&self, name: &str) -> Vec<MentionUser> {
        mentions_db::active_users_named(self.conn, name)
            .map(|rows| {
                rows.into_iter()
                    .map(|(id, full_name)| MentionUser { id, full_name })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn user_by_id(&self, id: i64) -> Option<MentionUser> {
        let (id, full_name) = mentions_db::active_user(self.conn, id).ok()??;
        Some(MentionUser { id, full_name })
    }

    fn group_by_name(&self, name: &str) -> Option<MentionGroup> {
        let (id, name) = mentions_db::mentionable_group(self.conn, name).ok()??;
        Some(MentionGroup { id, name })
    }

    fn realm_url(&self) -> Option<String> {
        Some(self.realm_url.to_string())
    }

    fn latest_message_in_topic(&self, channel_id: i64, topic: &str) -> Option<i64> {
        mentions_db::latest_in_topic(self.conn, ChannelId(channel_id), topic).ok()?
    }

    fn realm_emoji(&self, name: &str) -> Option<String> {
        crate::domain::realm_emoji::active_url(self.conn, name)
    }

    fn upload_preview(&self, path_id: &str) -> UploadPreview {
        crate::domain::uploads::preview_of(self.conn, path_id)
    }

    fn channel_by_name(&self, name: &str) -> Option<MentionChannel> {
        let ch = channels_db::by_name(self.conn, name).ok()??;
        let access = crate::domain::channels::access(self.conn, self.sender, ch).ok()?;
        access.metadata.then_some(MentionChannel {
            id: access.channel.id.0,
            name: access.channel.name,
        })
    }
}
