//! SQL for bots' services: the outgoing webhook an outgoing-webhook bot posts to, and which
//! embedded bot an embedded bot is, with its configuration (table `bot_services`); and bots'
//! default channels (table `bot_defaults`).
//!
//! Synchronous functions over a connection; callers run them through `Db::read` / `Db::write`.
//! The bots themselves are rows of `users` (see `db::users`).

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::{Error, Result};
use crate::ids::{ChannelId, UserId};
use crate::model::{BotDefaults, BotService};

/// Stores `bot`'s service (one per bot).
pub fn insert_service(c: &Connection, bot: UserId, s: &BotService) -> Result<()> {
    let config = serde_json::to_string(&s.config_data)
        .map_err(|e| Error::internal(format!("bot config: {e}")))?;
    c.prepare_cached(
        "INSERT INTO bot_services (bot_id, base_url, interface, token, service_name, config_data)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        bot.0,
        s.base_url,
        s.interface,
        s.token,
        s.service_name,
        config
    ])?;
    Ok(())
}

/// `bot`'s service, if it has one.
pub fn service(c: &Connection, bot: UserId) -> Result<Option<BotService>> {
    let row = c
        .prepare_cached(
            "SELECT base_url, interface, token, service_name, config_data
             FROM bot_services WHERE bot_id = ?1",
        )?
        .query_row([bot.0], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
            ))
        })
        .optional()?;
    let Some((base_url, interface, token, service_name, config)) = row else {
        return Ok(None);
    };
    let config_data: BTreeMap<String, String> = serde_json::from_str(&config)
        .map_err(|e| Error::internal(format!("bot {} config: {e}", bot.0)))?;
    Ok(Some(BotService {
        base_url,
        interface,
        token,
        service_name,
        config_data,
    }))
}

/// Changes `bot`'s outgoing webhook (URL and format); false if it has no service.
pub fn set_webhook(c: &Connection, bot: UserId, base_url: &str, interface: i64) -> Result<bool> {
    Ok(
        c.prepare_cached(
            "UPDATE bot_services SET base_url = ?2, interface = ?3 WHERE bot_id = ?1",
        )?
        .execute(params![bot.0, base_url, interface])?
            > 0,
    )
}

/// Replaces `bot`'s configuration; false if it has no service.
pub fn set_config(c: &Connection, bot: UserId, config: &BTreeMap<String, String>) -> Result<bool> {
    let config =
        serde_json::to_string(config).map_err(|e| Error::internal(format!("bot config: {e}")))?;
    Ok(
        c.prepare_cached("UPDATE bot_services SET config_data = ?2 WHERE bot_id = ?1")?
            .execute(params![bot.0, config])?
            > 0,
    )
}

/// `bot`'s default channels by name (an archived or deleted channel still names itself).
pub fn defaults(c: &Connection, bot: UserId) -> Result<BotDefaults> {
    Ok(c.prepare_cached(
        "SELECT s.name, e.name, d.all_public_channels FROM bot_defaults d
         LEFT JOIN channels s ON s.id = d.sending_channel_id
         LEFT JOIN channels e ON e.id = d.events_channel_id
         WHERE d.bot_id = ?1",
    )?
    .query_row([bot.0], |r| {
        Ok(BotDefaults {
            sending_channel: r.get(0)?,
            events_channel: r.get(1)?,
            all_public_channels: r.get(2)?,
        })
    })
    .optional()?
    .unwrap_or_default())
}

/// `bot`'s default channels as ids: (sending, events, all public).
pub fn default_ids(
    c: &Connection,
    bot: UserId,
) -> Result<(Option<ChannelId>, Option<ChannelId>, bool)> {
    Ok(c.prepare_cached(
        "SELECT sending_channel_id, events_channel_id, all_public_channels FROM bot_defaults
         WHERE bot_id = ?1",
    )?
    .query_row([bot.0], |r| {
        Ok((
            r.get::<_, Option<i64>>(0)?.map(ChannelId),
            r.get::<_, Option<i64>>(1)?.map(ChannelId),
            r.get(2)?,
        ))
    })
    .optional()?
    .unwrap_or((None, None, false)))
}

/// Stores `bot`'s default channels.
pub fn set_defaults(
    c: &Connection,
    bot: UserId,
    sending: Option<ChannelId>,
    events: Option<ChannelId>,
    all_public: bool,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO bot_defaults (bot_id, sending_channel_id, events_channel_id,
             all_public_channels) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (bot_id) DO UPDATE SET sending_channel_id = ?2, events_channel_id = ?3,
             all_public_channels = ?4",
    )?
    .execute(params![
        bot.0,
        sending.map(|c| c.0),
        events.map(|c| c.0),
        all_public
    ])?;
    Ok(())
}

/// Changes `bot`'s owner.
pub fn set_owner(c: &Connection, bot: UserId, owner: UserId) -> Result<()> {
    c.prepare_cached("UPDATE users SET bot_owner_id = ?2 WHERE id = ?1")?
        .execute(params![bot.0, owner.0])?;
    Ok(())
}
