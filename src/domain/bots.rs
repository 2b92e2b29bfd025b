//! Bot accounts made by users (`POST /bots`, `GET /bots`): who may create which type, their
//! names and addresses, and the service an outgoing-webhook or embedded bot keeps.
//!
//! Bots are users (`users.is_bot`, `bot_type`, `bot_owner_id`); their service lives in
//! `bot_services`, their default channels in `bot_defaults`. `PATCH /bots/{id}` changes name,
//! role, owner, service and defaults in one commit. Bots are owned by humans only: no bot
//! calls any of these endpoints, and a bot goes when its owner is deactivated. Outgoing
//! webhooks are sent by `domain::outgoing_webhooks`; embedded bots are stored but not run.
//! Must not know any wire format.

use std::collections::BTreeMap;

use crate::db::{bots as bots_db, users as users_db};
use crate::domain::core::Core;
use crate::domain::users::{self, NewUser};
use crate::domain::{realm_settings, user_groups};
use crate::error::{Error, Result};
use crate::events::{Event, PersonChange, UserUpdated};
use crate::ids::{ChannelId, UserId};
use crate::model::{BotDefaults, BotService, Role, User};
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
    pub defaults: DefaultsChange,
}

/// Default channels to set: each by name (`""` for none), `None` to leave as it is.
#[derive(Default)]
pub struct DefaultsChange {
    pub sending: Option<String>,
    pub events: Option<String>,
    pub all_public: Option<bool>,
}

impl DefaultsChange {
    fn is_empty(&self) -> bool {
        self.sending.is_none() && self.events.is_none() && self.all_public.is_none()
    }
}

/// Changes to a bot (`PATCH /bots/{id}`); `None` leaves a property as it is.
pub struct BotUpdate {
    pub full_name: Option<String>,
    pub role: Option<i64>,
    pub bot_owner_id: Option<i64>,
    /// Checked with [`check_payload_url`].
    pub service_payload_url: Option<String>,
    pub service_interface: i64,
    pub config_data: Option<BTreeMap<String, String>>,
    pub defaults: DefaultsChange,
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
    if user_groups::holds_realm(c, caller, realm_settings::CAN_CREATE_BOTS)? {
        return Ok(());
    }
    if bot_type == INCOMING_WEBHOOK_BOT
        && user_groups::holds_realm(c, caller, realm_settings::CAN_CREATE_WRITE_ONLY_BOTS)?
    {
        return Ok(());
    }
    Err(Error::bad_request("Insufficient permission"))
}

/// Who may use the bot endpoints at all (upstream's `require_member_or_admin`): no guests, and
/// no bots, so a bot never makes, lists, changes, deactivates or re-keys bots (a bot's bots
/// would be out of its human owner's sight and reach), whatever its role.
pub fn check_caller(caller: &User) -> Result<()> {
    if caller.role == Role::Guest {
        return Err(Error::bad_request("Not allowed for guest users"));
    }
    check_human(caller)
}

/// No bots (upstream's `human_users_only`), for the endpoints open to guests who own a bot.
pub fn check_human(caller: &User) -> Result<()> {
    if caller.is_bot {
        return Err(Error::bad_request(
            "This endpoint does not accept bot requests.",
        ));
    }
    Ok(())
}

/// `caller`'s active bots with their default channels, oldest first (`GET /bots`).
pub async fn owned(state: &Core, caller: &User) -> Result<Vec<(User, BotDefaults)>> {
    check_caller(caller)?;
    let id = caller.id;
    state
        .db
        .read(move |c| {
            users_db::active_bots_owned_by(c, id)?
                .into_iter()
                .map(|b| {
                    let d = bots_db::defaults(c, b.id)?;
                    Ok((b, d))
                })
                .collect()
        })
        .await
}

/// A default channel named by `caller`: `""` is none; otherwise a channel whose content the
/// caller may see (upstream's `access_stream_by_name`).
fn default_channel(
    c: &rusqlite::Connection,
    caller: &User,
    name: &str,
) -> Result<Option<ChannelId>> {
    if name.is_empty() {
        return Ok(None);
    }
    let not_found = || Error::bad_request(format!("Invalid channel name '{name}'"));
    let ch = crate::db::channels::by_name(c, name)?.ok_or_else(not_found)?;
    let a = crate::domain::channels::access(c, caller, ch)?;
    if !a.content {
        return Err(not_found());
    }
    Ok(Some(a.channel.id))
}

/// Inside a write: applies `change` to `bot`'s default channels and announces each property
/// that changed.
fn apply_defaults(
    tx: &mut crate::db::WriteTx<'_>,
    caller: &User,
    bot: UserId,
    change: &DefaultsChange,
    announce: bool,
) -> Result<()> {
    if change.is_empty() {
        return Ok(());
    }
    let (sending, events, all_public) = bots_db::default_ids(tx, bot)?;
    let new_sending = match &change.sending {
        Some(name) => default_channel(tx, caller, name)?,
        None => sending,
    };
    let new_events = match &change.events {
        Some(name) => default_channel(tx, caller, name)?,
        None => events,
    };
    let new_all = change.all_public.unwrap_or(all_public);
    bots_db::set_defaults(tx, bot, new_sending, new_events, new_all)?;
    if announce {
        for (changed, field) in [
            (new_sending != sending, "default_sending_stream"),
            (new_events != events, "default_events_register_stream"),
            (new_all != all_public, "default_all_public_streams"),
        ] {
            if changed {
                tx.emit(Event::UserUpdated(UserUpdated {
                    user_id: bot,
                    change: PersonChange::BotDefault(field),
                }));
            }
        }
    }
    Ok(())
}

/// Creates a bot owned by `caller` (`POST /bots`), with its service for outgoing-webhook and
/// embedded bots; returns the bot and its API key. Checks run in upstream's order, and a
/// refused request changes nothing.
pub async fn create(
    state: &Core,
    caller: &User,
    new: NewBot,
) -> Result<(User, String, BotDefaults)> {
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
    let defaults = new.defaults;
    let bot = state
        .db
        .write(move |tx| {
            match users::email_clash(tx, prepared.email(), None)? {
                Some(users::EmailClash::Same) => {
                    return Err(Error::bad_request("Username already in use"));
                }
                Some(clash) => return Err(Error::bad_request(clash.message())),
                None => {}
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
            // Stored before the creation event is published, so `realm_bot` `add` has them.
            apply_defaults(tx, &caller, id, &defaults, false)?;
            let bot = users_db::get(tx, id)?
                .ok_or_else(|| Error::internal("a new bot vanished in its own transaction"))?;
            Ok((bot, bots_db::defaults(tx, id)?))
        })
        .await?;
    let (bot, defaults) = bot;
    Ok((bot, api_key, defaults))
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

/// Deactivates a bot (`DELETE /bots/{id}`) on its owner's or an administrator's request (never
/// a bot's), with any bots it owns (see `users::deactivate_in`).
pub async fn deactivate(state: &Core, caller: &User, id: UserId) -> Result<()> {
    check_human(caller)?;
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
/// administrator's request (never a bot's); returns it.
pub async fn regenerate_api_key(state: &Core, caller: &User, id: UserId) -> Result<String> {
    check_human(caller)?;
    let caller = caller.clone();
    let key = password::new_api_key();
    let stored = key.clone();
    state
        .db
        .write(move |tx| {
            access_bot(tx, &caller, id)?;
            users_db::set_api_key(tx, id, &stored)?;
            tx.emit(Event::UserUpdated(UserUpdated {
                user_id: id,
                change: PersonChange::ApiKey,
            }));
            Ok(())
        })
        .await?;
    Ok(key)
}

/// A bot after `PATCH /bots/{id}`, with what the response shows.
pub struct UpdatedBot {
    pub bot: User,
    pub defaults: BotDefaults,
    pub owner: Option<User>,
}

/// Changes a bot (`PATCH /bots/{id}`) on its owner's or an administrator's request: all the
/// changes in one commit, or none. Checks and events as upstream's `patch_bot_backend`.
pub async fn update(state: &Core, caller: &User, id: UserId, up: BotUpdate) -> Result<UpdatedBot> {
    check_caller(caller)?;
    let full_name = up
        .full_name
        .as_deref()
        .map(users::check_full_name)
        .transpose()?;
    let role = match up.role {
        Some(code) => {
            Some(Role::from_code(code).ok_or_else(|| Error::bad_request("Invalid role"))?)
        }
        None => None,
    };
    if let Some(config) = &up.config_data
        && config
            .iter()
            .any(|(k, v)| k.contains('\0') || v.contains('\0'))
    {
        return Err(Error::bad_request(
            "config_data must not contain null bytes",
        ));
    }
    let caller = caller.clone();
    state
        .db
        .write(move |tx| {
            let bot = access_bot(tx, &caller, id)?;
            if let Some(name) = full_name
                && name != bot.full_name
            {
                if !name.eq_ignore_ascii_case(&bot.full_name)
                    && users_db::active_bot_named(tx, &name)?
                {
                    return Err(Error::bad_request("Name is already in use."));
                }
                users::rename(tx, &bot, name)?;
            }
            if let Some(role) = role.filter(|r| *r != bot.role) {
                if (role == Role::Owner || bot.role == Role::Owner) && caller.role != Role::Owner {
                    return Err(Error::not_owner());
                }
                if !caller.role.is_admin() {
                    return Err(Error::not_admin());
                }
                users::change_role_in(tx, caller.role == Role::Owner, &bot, role)?;
            }
            if let Some(owner_id) = up.bot_owner_id {
                let owner = users_db::get(tx, UserId(owner_id))?
                    .filter(|u| !u.is_system_bot)
                    .ok_or_else(|| Error::bad_request("Failed to change owner, no such user"))?;
                if !owner.is_active {
                    return Err(Error::bad_request(
                        "Failed to change owner, user is deactivated",
                    ));
                }
                if owner.is_bot {
                    return Err(Error::bad_request(
                        "Failed to change owner, bots can't own other bots",
                    ));
                }
                if bot.bot_owner_id != Some(owner.id) {
                    bots_db::set_owner(tx, bot.id, owner.id)?;
                    tx.emit(Event::UserUpdated(UserUpdated {
                        user_id: bot.id,
                        change: PersonChange::BotOwner {
                            previous: bot.bot_owner_id,
                        },
                    }));
                }
            }
            apply_defaults(tx, &caller, bot.id, &up.defaults, true)?;
            let mut services_changed = false;
            if let Some(url) = &up.service_payload_url {
                if ![INTERFACE_GENERIC, INTERFACE_SLACK].contains(&up.service_interface) {
                    return Err(Error::bad_request("Invalid interface type"));
                }
                services_changed |= bot.bot_type == Some(OUTGOING_WEBHOOK_BOT)
                    && bots_db::set_webhook(tx, bot.id, url, up.service_interface)?;
            }
            if let Some(config) = &up.config_data {
                // Upstream's `set_bot_config`: each key given is set, the others kept.
                if let Some(mut service) = bots_db::service(tx, bot.id)? {
                    service.config_data.extend(config.clone());
                    services_changed |= bots_db::set_config(tx, bot.id, &service.config_data)?;
                } else if !config.is_empty() {
                    bots_db::insert_service(
                        tx,
                        bot.id,
                        &BotService {
                            base_url: String::new(),
                            interface: INTERFACE_GENERIC,
                            token: String::new(),
                            service_name: String::new(),
                            config_data: config.clone(),
                        },
                    )?;
                    services_changed = true;
                }
            }
            if services_changed {
                tx.emit(Event::UserUpdated(UserUpdated {
                    user_id: bot.id,
                    change: PersonChange::BotServices,
                }));
            }
            let bot = users_db::get(tx, bot.id)?
                .ok_or_else(|| Error::internal("a bot vanished in its own transaction"))?;
            let owner = match bot.bot_owner_id {
                Some(o) => users_db::get(tx, o)?,
                None => None,
            };
            let defaults = bots_db::defaults(tx, bot.id)?;
            Ok(UpdatedBot {
                bot,
                defaults,
                owner,
            })
        })
        .await
}

/// `user`'s default channels when it is a bot users made (none otherwise): register uses them
/// when a bot's client names no narrow or `all_public_streams`, a send when it names no
/// channel.
pub async fn defaults_of(state: &Core, user: &User) -> Result<BotDefaults> {
    if !user.is_bot || user.is_system_bot {
        return Ok(BotDefaults::default());
    }
    let id = user.id;
    state.db.read(move |c| bots_db::defaults(c, id)).await
}

/// The channel a bot's message without a channel goes to (upstream's
/// `default_sending_stream`), if it has one.
pub async fn default_sending_channel(state: &Core, user: &User) -> Result<Option<ChannelId>> {
    if !user.is_bot || user.is_system_bot {
        return Ok(None);
    }
    let id = user.id;
    let (sending, _, _) = state.db.read(move |c| bots_db::default_ids(c, id)).await?;
    Ok(sending)
}
