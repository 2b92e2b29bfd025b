//! Bot records for the people who administer them: register's `realm_bots` and `realm_bot`
//! events (upstream's `Bot` object, API key and service included).

use serde_json::{Value, json};

use crate::model::{BotDefaults, BotService, User};

/// A bot's `services`: the outgoing webhook (URL, format, token) or the embedded bot (name,
/// configuration); empty for the other types.
pub fn services(bot_type: Option<i64>, service: Option<&BotService>) -> Value {
    match (bot_type, service) {
        (Some(3), Some(s)) => json!([{
            "base_url": s.base_url,
            "interface": s.interface,
            "token": s.token,
        }]),
        (Some(4), Some(s)) => json!([{
            "service_name": s.service_name,
            "config_data": s.config_data,
        }]),
        _ => json!([]),
    }
}

/// Upstream's `Bot` object for `bot` (its owner and administrators only: it holds the key).
pub fn bot(bot: &User, service: Option<&BotService>, defaults: &BotDefaults, host: &str) -> Value {
    json!({
        "user_id": bot.id.0,
        "email": super::api_email(bot, host),
        "full_name": bot.full_name,
        "bot_type": bot.bot_type,
        "is_active": bot.is_active,
        "api_key": bot.api_key.0,
        "default_sending_stream": defaults.sending_channel,
        "default_events_register_stream": defaults.events_channel,
        "default_all_public_streams": defaults.all_public_channels,
        "avatar_url": super::user_avatar_url(bot, host),
        "services": services(bot.bot_type, service),
        "owner_id": bot.bot_owner_id.map(|o| o.0),
    })
}

/// `realm_bot` `add`: a bot was created.
pub fn realm_bot_added(bot: Value) -> Value {
    json!({"type": "realm_bot", "op": "add", "bot": bot})
}

/// `realm_bot` `delete`: the recipient no longer administers the bot (it changed owners).
pub fn realm_bot_removed(bot_id: i64) -> Value {
    json!({"type": "realm_bot", "op": "delete", "bot": {"user_id": bot_id}})
}

/// `realm_bot` `update`: one property of a bot changed (`field` is its name and value).
pub fn realm_bot_updated(bot_id: i64, field: &str, value: Value) -> Value {
    let mut bot = serde_json::Map::new();
    bot.insert("user_id".into(), json!(bot_id));
    bot.insert(field.into(), value);
    json!({"type": "realm_bot", "op": "update", "bot": bot})
}

/// The JSON an outgoing webhook posts (upstream's generic interface): the raw content as
/// `data`, the message as the bot sees it (`message`, raw Markdown plus `rendered_content`),
/// the bot's address and name, its service token and the trigger.
pub fn outgoing_webhook_payload(
    message: Value,
    bot: &User,
    token: &str,
    trigger: &str,
    host: &str,
) -> Value {
    let data = message.get("content").cloned().unwrap_or(Value::Null);
    json!({
        "data": data,
        "message": message,
        "bot_email": super::api_email(bot, host),
        "bot_full_name": bot.full_name,
        "token": token,
        "trigger": trigger,
    })
}
