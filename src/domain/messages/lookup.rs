//! The realm as the Markdown renderer sees it: mention and link targets read from the database.

use rusqlite::{Connection, OptionalExtension};

use crate::db::channels as channels_db;
use crate::markdown::{Lookup, MentionChannel, MentionGroup, MentionUser};
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
        let Ok(mut st) = self.conn.prepare_cached(
            "SELECT id, full_name FROM users WHERE full_name = ?1 COLLATE NOCASE AND is_active \
             ORDER BY id",
        ) else {
            return Vec::new();
        };
        st.query_map([name], |r| {
            Ok(MentionUser {
                id: r.get(0)?,
                full_name: r.get(1)?,
            })
        })
        .map(|rows| rows.filter_map(|r| r.ok()).collect())
        .unwrap_or_default()
    }

    fn user_by_id(&self, id: i64) -> Option<MentionUser> {
        self.conn
            .prepare_cached("SELECT id, full_name FROM users WHERE id = ?1 AND is_active")
            .ok()?
            .query_row([id], |r| {
                Ok(MentionUser {
                    id: r.get(0)?,
                    full_name: r.get(1)?,
                })
            })
            .optional()
            .ok()?
    }

    fn group_by_name(&self, name: &str) -> Option<MentionGroup> {
        self.conn
            .prepare_cached(
                "SELECT id, name FROM user_groups WHERE name = ?1 COLLATE NOCASE \
                 AND NOT deactivated AND NOT is_system_group",
            )
            .ok()?
            .query_row([name], |r| {
                Ok(MentionGroup {
                    id: r.get(0)?,
                    name: r.get(1)?,
                })
            })
            .optional()
            .ok()?
    }

    fn realm_url(&self) -> Option<String> {
        Some(self.realm_url.to_string())
    }

    fn latest_message_in_topic(&self, channel_id: i64, topic: &str) -> Option<i64> {
        self.conn
            .prepare_cached(
                "SELECT max(id) FROM messages WHERE channel_id = ?1 AND topic = ?2 COLLATE NOCASE",
            )
            .ok()?
            .query_row(rusqlite::params![channel_id, topic], |r| r.get(0))
            .ok()?
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
