//! SQL for channels, subscriptions and subscription periods.
//!
//! Group settings are stored as text in one column each, in the form
//! [`GroupSetting::to_stored_text`] writes and [`GroupSetting::from_stored_text`] reads, so no
//! caller sees the storage form and this module builds no JSON.

use std::sync::LazyLock;

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::{Error, Result};
use crate::ids::{ChannelId, UserId};
use crate::model::{
    Channel, ChannelSetting, ChannelStats, GroupSetting, Subscription, TopicsPolicy,
};

/// The column list [`from_row`] reads; the queries built on it are made once.
fn columns() -> String {
    let mut cols = String::from(
        "c.id, c.name, c.description, c.rendered_description, c.invite_only, c.is_web_public, \
         c.history_public_to_subscribers, c.is_default, c.topics_policy, \
         c.message_retention_days, c.folder_id, c.creator_id, c.date_created, c.is_archived, \
         (SELECT min(m.id) FROM messages m WHERE m.channel_id = c.id)",
    );
    for s in ChannelSetting::ALL {
        cols.push_str(", c.");
        cols.push_str(s.name());
    }
    cols
}

fn from_row(r: &Row<'_>) -> rusqlite::Result<Channel> {
    let policy: String = r.get(8)?;
    let mut settings = Vec::with_capacity(ChannelSetting::ALL.len());
    for i in 0..ChannelSetting::ALL.len() {
        let text: String = r.get(15 + i)?;
        settings.push(GroupSetting::from_stored_text(&text));
    }
    Ok(Channel {
        id: ChannelId(r.get(0)?),
        name: r.get(1)?,
        description: r.get(2)?,
        rendered_description: r.get(3)?,
        invite_only: r.get(4)?,
        is_web_public: r.get(5)?,
        history_public_to_subscribers: r.get(6)?,
        is_default: r.get(7)?,
        topics_policy: TopicsPolicy::from_name(&policy).unwrap_or(TopicsPolicy::Inherit),
        message_retention_days: r.get(9)?,
        folder_id: r.get(10)?,
        creator_id: r.get::<_, Option<i64>>(11)?.map(UserId),
        date_created: r.get(12)?,
        is_archived: r.get(13)?,
        first_message_id: r.get(14)?,
        settings,
    })
}

pub fn get(c: &Connection, id: ChannelId) -> Result<Option<Channel>> {
    static SQL: LazyLock<String> =
        LazyLock::new(|| format!("SELECT {} FROM channels c WHERE c.id = ?1", columns()));
    let mut st = c.prepare_cached(&SQL)?;
    Ok(st.query_row([id.0], from_row).optional()?)
}

/// Whether a channel is archived; `None` when there is no such channel.
pub fn is_archived(c: &Connection, id: ChannelId) -> Result<Option<bool>> {
    Ok(
        c.prepare_cached("SELECT is_archived FROM channels WHERE id = ?1")?
            .query_row([id.0], |r| r.get(0))
            .optional()?,
    )
}

pub fn by_name(c: &Connection, name: &str) -> Result<Option<Channel>> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT {} FROM channels c WHERE c.name = ?1 COLLATE NOCASE",
            columns()
        )
    });
    let mut st = c.prepare_cached(&SQL)?;
    Ok(st.query_row([name], from_row).optional()?)
}

pub fn all(c: &Connection) -> Result<Vec<Channel>> {
    static SQL: LazyLock<String> =
        LazyLock::new(|| format!("SELECT {} FROM channels c ORDER BY c.id", columns()));
    let mut st = c.prepare_cached(&SQL)?;
    let rows = st.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Inserts a channel (its `id` and `first_message_id` are ignored); returns the new id.
pub fn insert(c: &Connection, ch: &Channel) -> Result<ChannelId> {
    let mut names = String::new();
    let mut marks = String::new();
    for (i, s) in ChannelSetting::ALL.iter().enumerate() {
        names.push_str(", ");
        names.push_str(s.name());
        marks.push_str(&format!(", ?{}", 14 + i));
    }
    let sql = format!(
        "INSERT INTO channels (name, description, rendered_description, invite_only, \
         is_web_public, history_public_to_subscribers, is_default, topics_policy, \
         message_retention_days, folder_id, creator_id, date_created, is_archived{names}) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13{marks})"
    );
    let texts: Vec<String> = ch
        .settings
        .iter()
        .map(GroupSetting::to_stored_text)
        .collect();
    let mut values: Vec<Box<dyn rusqlite::ToSql>> = vec![
        Box::new(ch.name.clone()),
        Box::new(ch.description.clone()),
        Box::new(ch.rendered_description.clone()),
        Box::new(ch.invite_only),
        Box::new(ch.is_web_public),
        Box::new(ch.history_public_to_subscribers),
        Box::new(ch.is_default),
        Box::new(ch.topics_policy.name()),
        Box::new(ch.message_retention_days),
        Box::new(ch.folder_id),
        Box::new(ch.creator_id.map(|u| u.0)),
        Box::new(ch.date_created),
        Box::new(ch.is_archived),
    ];
    for t in texts {
        values.push(Box::new(t));
    }
    c.execute(&sql, rusqlite::params_from_iter(values.iter()))?;
    Ok(ChannelId(c.last_insert_rowid()))
}

/// Writes every mutable column of a channel back.
pub fn update(c: &Connection, ch: &Channel) -> Result<()> {
    let mut sets = String::new();
    for (i, s) in ChannelSetting::ALL.iter().enumerate() {
        sets.push_str(&format!(", {} = ?{}", s.name(), 13 + i));
    }
    let sql = format!(
        "UPDATE channels SET name = ?2, description = ?3, rendered_description = ?4, \
         invite_only = ?5, is_web_public = ?6, history_public_to_subscribers = ?7, \
         is_default = ?8, topics_policy = ?9, message_retention_days = ?10, \
         is_archived = ?11, folder_id = ?12{sets} WHERE id = ?1"
    );
    let mut values: Vec<Box<dyn rusqlite::ToSql>> = vec![
        Box::new(ch.id.0),
        Box::new(ch.name.clone()),
        Box::new(ch.description.clone()),
        Box::new(ch.rendered_description.clone()),
        Box::new(ch.invite_only),
        Box::new(ch.is_web_public),
        Box::new(ch.history_public_to_subscribers),
        Box::new(ch.is_default),
        Box::new(ch.topics_policy.name()),
        Box::new(ch.message_retention_days),
        Box::new(ch.is_archived),
        Box::new(ch.folder_id),
    ];
    for s in &ch.settings {
        values.push(Box::new(s.to_stored_text()));
    }
    c.execute(&sql, rusqlite::params_from_iter(values.iter()))?;
    Ok(())
}

fn sub_from_row(r: &Row<'_>) -> rusqlite::Result<Subscription> {
    Ok(Subscription {
        channel_id: ChannelId(r.get(0)?),
        user_id: UserId(r.get(1)?),
        active: r.get(2)?,
        color: r.get(3)?,
        is_muted: r.get(4)?,
        pin_to_top: r.get(5)?,
        desktop_notifications: r.get(6)?,
        audible_notifications: r.get(7)?,
        push_notifications: r.get(8)?,
        email_notifications: r.get(9)?,
        wildcard_mentions_notify: r.get(10)?,
    })
}

const SUB_COLUMNS: &str = "channel_id, user_id, active, color, is_muted, pin_to_top, \
     desktop_notifications, audible_notifications, push_notifications, email_notifications, \
     wildcard_mentions_notify";

pub fn subscription(c: &Connection, user: UserId, ch: ChannelId) -> Result<Option<Subscription>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {SUB_COLUMNS} FROM subscriptions WHERE channel_id = ?1 AND user_id = ?2"
    ))?;
    Ok(st
        .query_row(params![ch.0, user.0], sub_from_row)
        .optional()?)
}

pub fn is_subscribed(c: &Connection, user: UserId, ch: ChannelId) -> Result<bool> {
    let mut st = c.prepare_cached(
        "SELECT active FROM subscriptions WHERE channel_id = ?1 AND user_id = ?2",
    )?;
    Ok(st
        .query_row(params![ch.0, user.0], |r| r.get::<_, bool>(0))
        .optional()?
        .unwrap_or(false))
}

/// A user's active subscriptions.
pub fn subscriptions_of(c: &Connection, user: UserId) -> Result<Vec<Subscription>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {SUB_COLUMNS} FROM subscriptions WHERE user_id = ?1 AND active ORDER BY channel_id"
    ))?;
    let rows = st.query_map([user.0], sub_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Ids of a channel's active subscribers who are active users.
pub fn subscriber_ids(c: &Connection, ch: ChannelId) -> Result<Vec<UserId>> {
    let mut st = c.prepare_cached(
        "SELECT s.user_id FROM subscriptions s JOIN users u ON u.id = s.user_id \
         WHERE s.channel_id = ?1 AND s.active AND u.is_active ORDER BY s.user_id",
    )?;
    let rows = st.query_map([ch.0], |r| Ok(UserId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The next message id the database will assign (subscription periods start there).
pub fn next_message_id(c: &Connection) -> Result<i64> {
    Ok(
        c.query_row("SELECT coalesce(max(id), 0) + 1 FROM messages", [], |r| {
            r.get(0)
        })?,
    )
}

/// Subscribes (or resubscribes) a user; `color` is used only for a first subscription.
/// Returns false if the user was already subscribed.
pub fn subscribe(c: &Connection, user: UserId, ch: ChannelId, color: &str) -> Result<bool> {
    if is_subscribed(c, user, ch)? {
        return Ok(false);
    }
    c.execute(
        "INSERT INTO subscriptions (channel_id, user_id, active, color) VALUES (?1, ?2, 1, ?3) \
         ON CONFLICT (channel_id, user_id) DO UPDATE SET active = 1",
        params![ch.0, user.0, color],
    )?;
    let next = next_message_id(c)?;
    c.execute(
        "INSERT INTO subscription_periods (user_id, channel_id, first_message_id) \
         VALUES (?1, ?2, ?3) ON CONFLICT DO UPDATE SET last_message_id = NULL",
        params![user.0, ch.0, next],
    )?;
    Ok(true)
}

/// Unsubscribes a user; returns false if they were not subscribed.
pub fn unsubscribe(c: &Connection, user: UserId, ch: ChannelId) -> Result<bool> {
    if !is_subscribed(c, user, ch)? {
        return Ok(false);
    }
    c.execute(
        "UPDATE subscriptions SET active = 0 WHERE channel_id = ?1 AND user_id = ?2",
        params![ch.0, user.0],
    )?;
    let last = next_message_id(c)? - 1;
    c.execute(
        "UPDATE subscription_periods SET last_message_id = ?3 \
         WHERE user_id = ?1 AND channel_id = ?2 AND last_message_id IS NULL",
        params![user.0, ch.0, last],
    )?;
    Ok(true)
}

/// Writes a subscription's personal settings back.
pub fn update_subscription(c: &Connection, s: &Subscription) -> Result<()> {
    let n = c.execute(
        "UPDATE subscriptions SET color = ?3, is_muted = ?4, pin_to_top = ?5, \
         desktop_notifications = ?6, audible_notifications = ?7, push_notifications = ?8, \
         email_notifications = ?9, wildcard_mentions_notify = ?10 \
         WHERE channel_id = ?1 AND user_id = ?2",
        params![
            s.channel_id.0,
            s.user_id.0,
            s.color,
            s.is_muted,
            s.pin_to_top,
            s.desktop_notifications,
            s.audible_notifications,
            s.push_notifications,
            s.email_notifications,
            s.wildcard_mentions_notify,
        ],
    )?;
    if n == 0 {
        return Err(Error::internal("subscription vanished during update"));
    }
    Ok(())
}

/// Colors already used by a user's subscriptions (to pick a fresh one).
pub fn colors_of(c: &Connection, user: UserId) -> Result<Vec<String>> {
    let mut st = c.prepare_cached("SELECT color FROM subscriptions WHERE user_id = ?1")?;
    let rows = st.query_map([user.0], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn stats(c: &Connection, ch: &Channel, now: i64) -> Result<ChannelStats> {
    const WEEK: i64 = 7 * 24 * 3600;
    let subscriber_count: i64 = c
        .prepare_cached(
            "SELECT count(*) FROM subscriptions s JOIN users u ON u.id = s.user_id \
             WHERE s.channel_id = ?1 AND s.active AND u.is_active",
        )?
        .query_row([ch.id.0], |r| r.get(0))?;
    let mut count_since =
        c.prepare_cached("SELECT count(*) FROM messages WHERE channel_id = ?1 AND sent_at >= ?2")?;
    let last_week: i64 = count_since.query_row(params![ch.id.0, now - WEEK], |r| r.get(0))?;
    let weekly_traffic = if now - ch.date_created < WEEK {
        None
    } else {
        let four_weeks: i64 =
            count_since.query_row(params![ch.id.0, now - 4 * WEEK], |r| r.get(0))?;
        Some((four_weeks + 3) / 4)
    };
    Ok(ChannelStats {
        subscriber_count,
        weekly_traffic,
        recently_active: last_week > 0,
    })
}
