//! Bot accounts made by users (`POST /bots`, `GET /bots`): who may create which type, their
//! names and addresses, and the service an outgoing-webhook or embedded bot keeps.
//!
//! Bots are users (`users.is_bot`, `bot_type`, `bot_owner_id`); their service lives in
//! `bot_services`. Nothing here sends webhooks or runs embedded bots: the service is stored for
//! the code that will. Must not know any wire format.

use std::collections::BTreeMap;

use crate::app::AppState;
use crate::db::{bots as bots_db, users as users_db};
use crate::domain::realm_settings;
use crate::domain::users::{self, NewUser};
use crate::error::{Error, Result};
use crate::events::{Event, PersonChange};
use crate::ids::UserId;
use crate::model::{BotService, Role, User};
use crate::password;

/// Upstream's bot types.
pub const GENERIC_BOT: i64 = users::GENERIC_BOT;
pub const INCOMING_WEBHOOK_BOT: i64 = 2;
pub const OUTGOING_WEBHOOK_BOT: i64 = 3;
pub const EMBEDDED_BOT: i64 = 4;

/// Outgoing-webhook request formats: Zulip's own (upstream's `Service.GENERIC`) and Slack's.
pub const INTERFACE_GENERIC: i64 = 1;
pub const INTERFACE_SLACK: i64 = 2;

/// The embedded bots upstream ships (`zerver/lib/bot_lib.py` EMBEDDED_BOTS); an embedded bot
/// must be one of them. Outpost stores them but does not run them.
pub const EMBEDDED_BOT_NAMES: &[&str] = &[
    "converter",
    "encrypt",
    "helloworld",
    "virtual_fs",
    "giphy",
    "followup",
];

/// The longest service name accepted (upstream's `Service.name` column).
pub const MAX_SERVICE_NAME_LENGTH: usize = 100;

/// The longest payload URL accepted (upstream's URL validator's bound).
pub const MAX_PAYLOAD_URL_LENGTH: usize = 2048;

/// A bot to create, as the client asked for it.
pub struct NewBot {
    pub full_name: String,
    pub short_name: String,
    pub bot_type: i64,
    /// `payload_url`, already checked with [`check_payload_url`]; `""` when not given.
    pub payload_url: String,
    pub interface_type: i64,
    pub service_name: Option<String>,
    pub config_data: BTreeMap<String, String>,
}

/// A `payload_url`: an absolute http or https URL with a host, of bounded length, without
/// spaces or control characters.
pub fn check_payload_url(url: &str) -> Result<()> {
    let bad = || Error::bad_request("payload_url is not a URL");
    if url.len() > MAX_PAYLOAD_URL_LENGTH
        || url.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(bad());
    }
    let lower = url.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))
        .ok_or_else(bad)?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split_once(']').map(|(h, _)| h).unwrap_or(""),
        None => host.split(':').next().unwrap_or(""),
    };
    if host.is_empty() || host.starts_with('.') || host.ends_with("..") {
        return Err(bad());
    }
    Ok(())
}

/// The bot types `caller` may create (upstream's `allowed_bot_types` joined with its creation
/// policy): all with `can_create_bots_group`, incoming webhooks only with
/// `can_create_write_only_bots_group`.
fn check_may_create(c: &rusqlite::Connection, caller: &User, bot_type: i64) -> Result<()> {
    if realm_settings::holds(c, caller, realm_settings::CAN_CREATE_BOTS)? {
        return Ok(());
    }
    if bot_type == INCOMING_WEBHOOK_BOT
        && realm_settings::holds(c, caller, realm_settings::CAN_CREATE_WRITE_ONLY_BOTS)?
    {
        return Ok(());
    }
    Err(Error::bad_request("Insufficient permission"))
}

fn check_caller(caller: &User) -> Result<()> {
    if caller.role == Role::Guest {
        return Err(Error::bad_request("Not allowed for guest users"));
    }
    Ok(())
}

/// `caller`'s active bots, oldest first (`GET /bots`).
pub async fn owned(state: &AppState, caller: &User) -> Result<Vec<User>> {
    check_caller(caller)?;
    let id = caller.id;
    state
        .db
        .read(move |c| users_db::active_bots_owned_by(c, id))
        .await
}

/// Creates a bot owned by `caller` (`POST /bots`), with its service for outgoing-webhook and
/// embedded bots; returns the bot and its API key. Checks run in upstream's order, and a
/// refused request changes nothing.
pub async fn create(state: &AppState, caller: &User, new: NewBot) -> Result<(User, String)> {
    check_caller(caller)?;
    let short_name = new.short_name.trim().to_string();
    if short_name.is_empty() {
        return Err(Error::bad_request("Bad name or username"));
    }
    if let Some(name) = &new.service_name {
        if name.chars().count() > MAX_SERVICE_NAME_LENGTH {
            return Err(Error::bad_request(format!(
                "service_name is too long (limit: {MAX_SERVICE_NAME_LENGTH} characters)"
            )));
        }
        if name.contains('\0') {
            return Err(Error::bad_request(
                "service_name must not contain null bytes",
            ));
        }
    }
    if new
        .config_data
        .iter()
        .any(|(k, v)| k.contains('\0') || v.contains('\0'))
    {
        return Err(Error::bad_request(
            "config_data must not contain null bytes",
        ));
    }
    let service_name = if new.bot_type == INCOMING_WEBHOOK_BOT {
        new.service_name.filter(|s| !s.is_empty())
    } else {
        Some(
            new.service_name
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| short_name.clone()),
        )
    };
    let full_name = users::check_full_name(&new.full_name)?;
    let checked_name = full_name.clone();
    let email = format!("{short_name}-bot@{}", state.config.realm_host());
    if new.bot_type == EMBEDDED_BOT
        && !EMBEDDED_BOT_NAMES.contains(&service_name.as_deref().unwrap_or(""))
    {
        return Err(Error::bad_request("Invalid embedded bot name."));
    }
    if !users::is_valid_email(&email) {
        return Err(Error::bad_request("Bad name or username"));
    }
    let prepared = users::prepare(
        state,
        NewUser {
            email,
            full_name,
            role: Role::Member,
            password: None,
            can_create_users: false,
            can_change_user_emails: false,
        },
    )
    .await?;
    let api_key = prepared.api_key().to_string();
    let visibility = state.config.chat.email_address_visibility;
    let caller = caller.clone();
    let bot_type = new.bot_type;
    let interface = new.interface_type;
    let payload_url = new.payload_url;
    let config_data = new.config_data;
    let bot = state
        .db
        .write(move |tx| {
            if users_db::email_taken(tx, prepared.email())? {
                return Err(Error::bad_request("Username already in use"));
            }
            if users_db::active_bot_named(tx, &checked_name)? {
                return Err(Error::bad_request("Name is already in use."));
            }
            check_may_create(tx, &caller, bot_type)?;
            if ![
                GENERIC_BOT,
                INCOMING_WEBHOOK_BOT,
                OUTGOING_WEBHOOK_BOT,
                EMBEDDED_BOT,
            ]
            .contains(&bot_type)
            {
                return Err(Error::bad_request("Invalid bot type"));
            }
            if ![INTERFACE_GENERIC, INTERFACE_SLACK].contains(&interface) {
                return Err(Error::bad_request("Invalid interface type"));
            }
            let id = users::insert_bot(tx, &prepared, visibility, bot_type, caller.id)?;
            // Outgoing webhooks keep their URL, format and a fresh token; embedded bots their
            // name and configuration; incoming webhooks their integration and configuration,
            // when given (upstream's bot config).
            let service = match bot_type {
                OUTGOING_WEBHOOK_BOT => Some(BotService {
                    base_url: payload_url,
                    interface,
                    token: password::new_api_key(),
                    service_name: service_name.unwrap_or_default(),
                    config_data: BTreeMap::new(),
                }),
                EMBEDDED_BOT => Some(BotService {
                    base_url: payload_url,
                    interface,
                    token: password::new_api_key(),
                    service_name: service_name.unwrap_or_default(),
                    config_data,
                }),
                INCOMING_WEBHOOK_BOT if service_name.is_some() || !config_data.is_empty() => {
                    Some(BotService {
                        base_url: String::new(),
                        interface,
                        token: String::new(),
                        service_name: service_name.unwrap_or_default(),
                        config_data,
                    })
                }
                _ => None,
            };
            if let Some(service) = service {
                bots_db::insert_service(tx, id, &service)?;
            }
            users_db::get(tx, id)?
                .ok_or_else(|| Error::internal("a new bot vanished in its own transaction"))
        })
        .await?;
    Ok((bot, api_key))
}

/// Inside a transaction: the active bot `id` if `caller` may administer it (its owner or an
/// administrator), upstream's `access_bot_by_id`.
fn access_bot(c: &rusqlite::Connection, caller: &User, id: UserId) -> Result<User> {
    let bot = users_db::get(c, id)?
        .filter(|u| u.is_bot && u.is_active)
        .ok_or_else(|| Error::bad_request("No such bot"))?;
    if !caller.role.is_admin() && bot.bot_owner_id != Some(caller.id) {
        return Err(Error::bad_request("Insufficient permission"));
    }
    Ok(bot)
}

/// Deactivates a bot (`DELETE /bots/{id}`) on its owner's or an administrator's request.
pub async fn deactivate(state: &AppState, caller: &User, id: UserId) -> Result<()> {
    let caller = caller.clone();
    state
        .db
        .write(move |tx| {
            let bot = access_bot(tx, &caller, id)?;
            users::deactivate_in(tx, &bot)
        })
        .await
}

/// Gives a bot a new API key (`POST /bots/{id}/api_key/regenerate`) on its owner's or an
/// administrator's request; returns it.
pub async fn regenerate_api_key(state: &AppState, caller: &User, id: UserId) -> Result<String> {
    let caller = caller.clone();
    let key = password::new_api_key();
    let stored = key.clone();
    state
        .db
        .write(move |tx| {
            access_bot(tx, &caller, id)?;
            users_db::set_api_key(tx, id, &stored)?;
            tx.emit(Event::UserUpdated {
                user_id: id,
                change: PersonChange::ApiKey,
            });
            Ok(())
        })
        .await?;
    Ok(key)
}
