//! SQL for bots' services: the outgoing webhook an outgoing-webhook bot posts to, and which
//! embedded bot an embedded bot is, with its configuration (table `bot_services`).
//!
//! Synchronous functions over a connection; callers run them through `Db::read` / `Db::write`.
//! The bots themselves are rows of `users` (see `db::users`).

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::{Error, Result};
use crate::ids::UserId;
use crate::model::BotService;

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
