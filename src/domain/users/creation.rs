//! Creating users and bots: checking and hashing a new account's input ([`prepare`]), then
//! inserting it inside a write with its events, system-group membership, the caller's
//! joining steps and the signup notices (none for bots). Never changes an existing account.

use crate::db::{WriteTx, users as users_db};
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, UserCreated};
use crate::ids::UserId;
use crate::model::{Role, User};
use crate::password;

use super::clashes::email_clash;
use super::values::{check_full_name, check_password_strength, is_valid_email};

/// Everything needed to create a user.
pub struct NewUser {
    pub email: String,
    pub full_name: String,
    pub role: Role,
    pub password: Option<String>,
    pub can_create_users: bool,
    pub can_change_user_emails: bool,
}

/// A user to create, checked and with its password hashed (see [`prepare`]).
pub struct Prepared {
    email: String,
    full_name: String,
    role: Role,
    hash: Option<String>,
    api_key: String,
    can_create_users: bool,
    can_change_user_emails: bool,
}

impl Prepared {
    pub fn email(&self) -> &str {
        &self.email
    }

    pub fn api_key(&self) -> &str {
        &self.api_key
    }
}

/// Checks a new user's name, email and password and hashes the password (on the CPU threads).
pub async fn prepare(state: &Core, new: NewUser) -> Result<Prepared> {
    let email = new.email.trim().to_string();
    let full_name =
        check_full_name(&new.full_name).map_err(|_| Error::bad_request("Bad name or username"))?;
    if !is_valid_email(&email) {
        return Err(Error::bad_request("Bad name or username"));
    }
    let hash = match new.password {
        Some(pw) => {
            check_password_strength(&pw)?;
            Some(
                state
                    .db
                    .cpu(move || password::hash(&pw))
                    .await?
                    .map_err(Error::internal)?,
            )
        }
        None => None,
    };
    Ok(Prepared {
        email,
        full_name,
        role: new.role,
        hash,
        api_key: password::new_api_key(),
        can_create_users: new.can_create_users,
        can_change_user_emails: new.can_change_user_emails,
    })
}

/// Inside a write: creates a prepared user and announces it. `joined` runs right after the
/// user exists (subscriptions, groups, an inviter's notice), before the signup announcement
/// and Welcome Bot's message, which follow in upstream's order.
pub fn insert_prepared(
    tx: &mut WriteTx<'_>,
    p: &Prepared,
    visibility: crate::model::EmailVisibility,
    realm_url: &str,
    joined: impl FnOnce(&mut WriteTx<'_>, &User) -> Result<()>,
) -> Result<UserId> {
    if let Some(clash) = email_clash(tx, &p.email, None)? {
        return Err(Error::bad_request(clash.message()));
    }
    let id = users_db::insert(
        tx,
        &users_db::NewUser {
            email: &p.email,
            full_name: &p.full_name,
            role: p.role,
            api_key: &p.api_key,
            password_hash: p.hash.as_deref(),
            date_joined: crate::time::now_secs(),
            email_visibility: visibility,
            can_create_users: p.can_create_users,
            can_change_user_emails: p.can_change_user_emails,
        },
    )?;
    tx.emit(Event::UserCreated(UserCreated { user_id: id }));
    for e in crate::domain::user_groups::role_events(id, None, Some(p.role)) {
        tx.emit(e);
    }
    let user = users_db::get(tx, id)?
        .ok_or_else(|| Error::internal("a new user vanished in its own transaction"))?;
    joined(tx, &user)?;
    let first = users_db::count_active_humans(tx)? == 1;
    crate::domain::notices::user_joined(tx, &user, first, realm_url)?;
    Ok(id)
}

/// Creates a user; returns its id and API key.
pub async fn create(state: &Core, new: NewUser) -> Result<(UserId, String)> {
    let prepared = prepare(state, new).await?;
    let api_key = prepared.api_key.clone();
    let visibility = state.config.chat.email_address_visibility;
    let realm_url = state.config.chat.external_url.clone();
    let id = state
        .db
        .write(move |tx| insert_prepared(tx, &prepared, visibility, &realm_url, |_, _| Ok(())))
        .await?;
    Ok((id, api_key))
}

/// Upstream's `UserProfile.DEFAULT_BOT`: a generic bot.
pub const GENERIC_BOT: i64 = 1;

/// Creates a generic bot owned by the active human member with `owner_email` (the command
/// line's `create-user --bot-owner`); returns its id and API key. Bots get no signup
/// announcement and no Welcome Bot message, as upstream.
pub async fn create_bot(
    state: &Core,
    new: NewUser,
    owner_email: String,
) -> Result<(UserId, String)> {
    let p = prepare(state, new).await?;
    let api_key = p.api_key.clone();
    let visibility = state.config.chat.email_address_visibility;
    let id = state
        .db
        .write(move |tx| {
            let owner = match users_db::by_email(tx, owner_email.trim())? {
                Some(o) if o.is_active && !o.is_bot => o,
                _ => return Err(Error::bad_request("Invalid bot owner")),
            };
            if let Some(clash) = email_clash(tx, &p.email, None)? {
                return Err(Error::bad_request(clash.message()));
            }
            insert_bot(tx, &p, visibility, GENERIC_BOT, owner.id)
        })
        .await?;
    Ok((id, api_key))
}

/// Inside a write: creates a prepared user (whose email is free) as a bot of `bot_type` owned
/// by `owner` and announces it; no signup notices, as upstream does for bots.
pub fn insert_bot(
    tx: &mut WriteTx<'_>,
    p: &Prepared,
    visibility: crate::model::EmailVisibility,
    bot_type: i64,
    owner: UserId,
) -> Result<UserId> {
    let id = users_db::insert(
        tx,
        &users_db::NewUser {
            email: &p.email,
            full_name: &p.full_name,
            role: p.role,
            api_key: &p.api_key,
            password_hash: p.hash.as_deref(),
            date_joined: crate::time::now_secs(),
            email_visibility: visibility,
            can_create_users: p.can_create_users,
            can_change_user_emails: p.can_change_user_emails,
        },
    )?;
    users_db::make_bot(tx, id, bot_type, owner)?;
    tx.emit(Event::UserCreated(UserCreated { user_id: id }));
    for e in crate::domain::user_groups::role_events(id, None, Some(p.role)) {
        tx.emit(e);
    }
    Ok(id)
}
