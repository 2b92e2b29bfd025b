//! User rules: creation, authentication, role and profile changes, activation. Statuses are
//! `domain::user_status`; what a profile field value may be is
//! `domain::profile_fields::values`.
//!
//! Functions take typed input and the acting user, check permissions and invariants (the last
//! owner keeps the role, only owners touch the owner role, a new or changed address is not and
//! does not look like another account's ([`email_clash`], `domain::email_keys`), ...), and run
//! their reads and writes through `state.db`. Logins look users up, cache them and count their
//! failures under one key, `email_keys::login_key`. Each write emits the events that describe
//! it. No HTTP or wire JSON here.

use std::sync::Arc;

use serde_json::Value;

use crate::db::{WriteTx, profile_fields as fields_db, users as users_db};
use crate::domain::core::Core;
use crate::domain::credentials::Cached;
use crate::domain::email_keys;
use crate::error::{Error, ErrorKind, LoginFailure, Result};
use crate::events::{Event, PersonChange};
use crate::ids::{ProfileFieldId, UserId};
use crate::model::{ProfileValue, Role, User};
use crate::password;

pub const MAX_NAME_LENGTH: usize = 100;
pub const MIN_NAME_LENGTH: usize = 2;
pub const MIN_PASSWORD_LENGTH: usize = 6;
pub const MAX_PASSWORD_LENGTH: usize = 100;
/// An id no user has (ids start at 1), for lookups that must cost what a real one costs.
const NO_ONE: UserId = UserId(0);
const NAME_INVALID_CHARS: &[char] = &['*', '`', '\\', '>', '"', '@'];

/// Validates and normalizes a full name as Zulip does.
pub fn check_full_name(raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.chars().count() > MAX_NAME_LENGTH {
        return Err(Error::bad_request("Name too long!"));
    }
    if name.chars().count() < MIN_NAME_LENGTH {
        return Err(Error::bad_request("Name too short!"));
    }
    if name
        .chars()
        .any(|c| NAME_INVALID_CHARS.contains(&c) || c.is_control())
    {
        return Err(Error::bad_request("Invalid characters in name!"));
    }
    Ok(name.to_string())
}

/// Inside a write: gives `user` a new (already checked) full name and announces it; a name
/// equal to the current one changes nothing.
pub fn rename(tx: &mut WriteTx<'_>, user: &User, name: String) -> Result<()> {
    if name != user.full_name {
        users_db::set_full_name(tx, user.id, &name)?;
        tx.emit(Event::UserUpdated {
            user_id: user.id,
            change: PersonChange::FullName(name),
        });
    }
    Ok(())
}

/// A plausible email address: one `@`, a non-empty local part, a dotted domain, no spaces.
pub fn is_valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && email.len() <= 254
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// How a wanted address collides with an existing account's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmailClash {
    /// The same address (ASCII case aside, as logins compare them).
    Same,
    /// A different string that looks the same (`email_keys::lookalike_key`): KELVIN SIGN for
    /// `k`, fullwidth letters, Cyrillic `а` for `a`, ...
    LookAlike,
}

impl EmailClash {
    /// What an API answer says about an address that clashes.
    pub fn message(self) -> &'static str {
        match self {
            EmailClash::Same => "Email is already in use.",
            EmailClash::LookAlike => "Email is too similar to the address of an existing account.",
        }
    }
}

/// Every account's address under both keys, read once, to check many wanted addresses
/// against (an invitation names several) without reading or folding the accounts again.
pub struct EmailKeys {
    login: std::collections::HashMap<String, UserId>,
    alike: std::collections::HashMap<String, Vec<UserId>>,
}

impl EmailKeys {
    /// Reads every account (active, deactivated, bot or system bot).
    pub fn load(c: &rusqlite::Connection) -> Result<EmailKeys> {
        let mut keys = EmailKeys {
            login: std::collections::HashMap::new(),
            alike: std::collections::HashMap::new(),
        };
        for (id, other) in users_db::all_emails(c)? {
            keys.login.insert(email_keys::login_key(&other), id);
            keys.alike
                .entry(email_keys::lookalike_key(&other))
                .or_default()
                .push(id);
        }
        Ok(keys)
    }

    /// Whether `email` is, or looks like, the address of an account other than `except`.
    pub fn clash(&self, email: &str, except: Option<UserId>) -> Option<EmailClash> {
        let other = |id: &UserId| Some(*id) != except;
        if self
            .login
            .get(&email_keys::login_key(email))
            .is_some_and(other)
        {
            return Some(EmailClash::Same);
        }
        self.alike
            .get(&email_keys::lookalike_key(email))
            .is_some_and(|ids| ids.iter().any(other))
            .then_some(EmailClash::LookAlike)
    }
}

/// Whether `email` is, or looks like, the address of an account other than `except` (any
/// account: active, deactivated, bot or system bot).
pub fn email_clash(
    c: &rusqlite::Connection,
    email: &str,
    except: Option<UserId>,
) -> Result<Option<EmailClash>> {
    Ok(EmailKeys::load(c)?.clash(email, except))
}

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
    tx.emit(Event::UserCreated { user_id: id });
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
    tx.emit(Event::UserCreated { user_id: id });
    for e in crate::domain::user_groups::role_events(id, None, Some(p.role)) {
        tx.emit(e);
    }
    Ok(id)
}

pub fn check_password_strength(pw: &str) -> Result<()> {
    let n = pw.chars().count();
    if n < MIN_PASSWORD_LENGTH {
        return Err(Error::bad_request("The password is too weak."));
    }
    if n > MAX_PASSWORD_LENGTH {
        return Err(Error::bad_request(format!(
            "password is too long (limit: {MAX_PASSWORD_LENGTH} characters)"
        )));
    }
    Ok(())
}

/// Looks up a user by email for authentication, through the cache (the system bots, not
/// being realm members, never log in).
/// Unknown emails are cached too, so probing emails costs the same whether they have accounts or not.
/// The cache entry, hit or miss, is under [`email_keys::login_key`], and the database is asked
/// for that same key, so whatever is cached is what the lookup found for that key and nothing
/// else (a miss for `\u{212A}im@x` is never filed under `kim@x`).
pub async fn by_login_email(state: &Core, email: &str) -> Result<Option<Arc<User>>> {
    let key = email_keys::login_key(email);
    match state.users.get(&key) {
        Some(Cached::User(u)) => return Ok(Some(u)),
        Some(Cached::NoSuchUser) => return Ok(None),
        None => {}
    }
    let generation = state.users.generation();
    let lookup = key.clone();
    let found = state
        .db
        .read(move |c| users_db::by_email(c, &lookup))
        .await?
        .map(Arc::new);
    state.users.put(key, generation, found.clone());
    Ok(found)
}

/// The user whose API key this is (incoming webhooks name their caller by key alone).
pub async fn by_api_key(state: &Core, key: &str) -> Result<Option<Arc<User>>> {
    let key = key.to_string();
    Ok(state
        .db
        .read(move |c| users_db::by_api_key(c, &key))
        .await?
        .map(Arc::new))
}

/// Refuses (429) a password check for `key` (an [`email_keys::login_key`]) once it has used
/// up its failures: logins and `PATCH /settings`' `old_password` share the limit.
pub fn check_login_limit(state: &Core, key: &str) -> Result<()> {
    match state.logins.blocked_for(key) {
        Some(wait) => Err(Error::new(
            ErrorKind::RateLimited { retry_after: wait },
            "API usage exceeded rate limit",
        )),
        None => Ok(()),
    }
}

/// Password login (`POST /fetch_api_key`): the user and their API key.
pub async fn login_with_password(state: &Core, username: &str, pw: String) -> Result<Arc<User>> {
    let limiter_key = email_keys::login_key(username);
    check_login_limit(state, &limiter_key)?;
    let bad = || {
        Error::new(
            ErrorKind::LoginFailed(LoginFailure::BadCredentials),
            "Your username or password is incorrect",
        )
    };
    let user = by_login_email(state, username.trim()).await?;
    // The same work whether the username exists or not, so timing does not reveal accounts:
    // one read of a stored hash (of no one, for an unknown name) and one argon2 verification
    // (against a dummy hash when there is no stored one).
    let id = user.as_ref().map_or(NO_ONE, |u| u.id);
    let stored = state
        .db
        .read(move |c| users_db::password_hash(c, id))
        .await?;
    let verified = state
        .db
        .cpu(move || password::verify_or_dummy(&pw, stored.as_deref()))
        .await?;
    let Some(user) = user.filter(|_| verified) else {
        state.logins.record_failure(&limiter_key);
        return Err(bad());
    };
    if !user.is_active {
        return Err(Error::new(
            ErrorKind::LoginFailed(LoginFailure::UserDeactivated),
            "Account is deactivated",
        ));
    }
    state.logins.clear(&limiter_key);
    Ok(user)
}

/// Development login: the user with this email, no password.
pub async fn login_for_development(state: &Core, email: &str) -> Result<Arc<User>> {
    let user = by_login_email(state, email.trim()).await?.ok_or_else(|| {
        Error::new(
            ErrorKind::LoginFailed(LoginFailure::BadCredentials),
            "This user is not registered.",
        )
    })?;
    if !user.is_active {
        return Err(Error::new(
            ErrorKind::LoginFailed(LoginFailure::UserDeactivated),
            "Account is deactivated",
        ));
    }
    Ok(user)
}

/// Replaces the caller's API key; returns the new one.
pub async fn regenerate_api_key(state: &Core, user: UserId) -> Result<String> {
    let key = password::new_api_key();
    let stored = key.clone();
    state
        .db
        .write(move |tx| {
            users_db::set_api_key(tx, user, &stored)?;
            // A new key means the old credentials are compromised: web logins end too.
            super::sessions::end_all_for(tx, user)?;
            tx.emit(Event::UserUpdated {
                user_id: user,
                change: PersonChange::ApiKey,
            });
            Ok(())
        })
        .await?;
    Ok(key)
}

pub async fn get(state: &Core, id: UserId) -> Result<Option<User>> {
    state.db.read(move |c| users_db::get(c, id)).await
}

/// Every user with the profile values of each (values are empty unless asked for).
pub async fn list(state: &Core, with_profiles: bool) -> Result<(Vec<User>, Vec<ProfileValue>)> {
    state
        .db
        .read(move |c| {
            let users = users_db::all(c)?;
            let values = if with_profiles {
                fields_db::values(c, None)?
            } else {
                Vec::new()
            };
            Ok((users, values))
        })
        .await
}

pub async fn profile_values(state: &Core, id: UserId) -> Result<Vec<ProfileValue>> {
    state.db.read(move |c| fields_db::values(c, Some(id))).await
}

/// A requested change of a profile field value; `None` clears it.
pub struct ProfileEdit {
    pub field_id: i64,
    pub value: Option<Value>,
}

/// What `PATCH /users/{id}` may change.
pub struct UserUpdate {
    pub full_name: Option<String>,
    pub role: Option<i64>,
    pub new_email: Option<String>,
    pub profile_data: Option<Vec<ProfileEdit>>,
}

/// Inside a write: gives `user` a new role on the request of an administrator (`actor_is_owner`
/// says whether an owner), with upstream's checks and events; the same role changes nothing.
pub fn change_role_in(
    tx: &mut WriteTx<'_>,
    actor_is_owner: bool,
    user: &User,
    role: Role,
) -> Result<()> {
    let target = user.id;
    if role == user.role {
        return Ok(());
    }
    if (role == Role::Owner || user.role == Role::Owner) && !actor_is_owner {
        return Err(Error::not_owner());
    }
    if user.role == Role::Owner && users_db::count_active_owners(tx)? <= 1 {
        return Err(Error::bad_request(
            "The owner permission cannot be removed from the only organization owner.",
        ));
    }
    if user.role == Role::Guest && role.is_admin() {
        return Err(Error::bad_request(
            "Guests cannot be organization administrators",
        ));
    }
    users_db::set_role(tx, target, role)?;
    tx.emit(Event::UserUpdated {
        user_id: target,
        change: PersonChange::Role(role.code()),
    });
    // The system groups list active users only.
    let (old, new) = if user.is_active {
        (Some(user.role), Some(role))
    } else {
        (None, None)
    };
    for e in crate::domain::user_groups::role_events(target, old, new) {
        tx.emit(e);
    }
    Ok(())
}

/// Applies an administrator's changes to another user, all or nothing.
pub async fn update(state: &Core, actor: &User, target: UserId, up: UserUpdate) -> Result<()> {
    if !actor.role.is_admin() {
        return Err(Error::not_admin());
    }
    let role = match up.role {
        Some(code) => {
            Some(Role::from_code(code).ok_or_else(|| Error::bad_request("Invalid role"))?)
        }
        None => None,
    };
    let full_name = up.full_name.as_deref().map(check_full_name).transpose()?;
    if let Some(email) = &up.new_email {
        if !actor.can_change_user_emails {
            return Err(Error::bad_request(
                "User not authorized to change user emails",
            ));
        }
        if actor.role != Role::Owner {
            return Err(Error::not_owner());
        }
        if !is_valid_email(email.trim()) {
            return Err(Error::bad_request("Invalid email address."));
        }
    }
    let actor_is_owner = actor.role == Role::Owner;
    let new_email = up.new_email.map(|e| e.trim().to_string());
    let profile_data = up.profile_data;
    state
        .db
        .write(move |tx| {
            let user =
                users_db::get(tx, target)?.ok_or_else(|| Error::bad_request("No such user"))?;
            if let Some(role) = role {
                change_role_in(tx, actor_is_owner, &user, role)?;
            }
            if let Some(name) = full_name {
                rename(tx, &user, name)?;
            }
            if let Some(edits) = profile_data {
                apply_profile_edits(tx, target, edits)?;
            }
            if let Some(email) = new_email.filter(|e| *e != user.email) {
                if let Some(clash) = email_clash(tx, &email, Some(target))? {
                    return Err(Error::bad_request(clash.message()));
                }
                users_db::set_email(tx, target, &email)?;
                tx.emit(Event::UserUpdated {
                    user_id: target,
                    change: PersonChange::Email(email),
                });
            }
            Ok(())
        })
        .await
}

/// A user's own profile field values (`PATCH` and `DELETE /users/me/profile_data`), all or
/// nothing: fields an administrator made not editable by users need an administrator.
pub async fn update_own_profile(state: &Core, me: &User, edits: Vec<ProfileEdit>) -> Result<()> {
    if me.is_bot {
        return Err(Error::bad_request(
            "This endpoint does not accept bot requests.",
        ));
    }
    let (id, is_admin) = (me.id, me.role.is_admin());
    state
        .db
        .write(move |tx| {
            for edit in &edits {
                let field =
                    fields_db::get(tx, ProfileFieldId(edit.field_id))?.ok_or_else(|| {
                        Error::bad_request(format!("Field id {} not found.", edit.field_id))
                    })?;
                if !field.editable_by_user && !is_admin {
                    return Err(Error::bad_request(
                        "You are not allowed to change this field. Contact an administrator to \
                         update it.",
                    ));
                }
            }
            apply_profile_edits(tx, id, edits)
        })
        .await
}

fn apply_profile_edits(
    tx: &mut crate::db::WriteTx<'_>,
    user: UserId,
    edits: Vec<ProfileEdit>,
) -> Result<()> {
    for edit in edits {
        let field_id = ProfileFieldId(edit.field_id);
        let field = fields_db::get(tx, field_id)?
            .ok_or_else(|| Error::bad_request(format!("Field id {} not found.", edit.field_id)))?;
        let value = match edit.value {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::Array(a)) if a.is_empty() => None,
            Some(v) => Some(v),
        };
        let Some(value) = value else {
            fields_db::clear_value(tx, user, field_id)?;
            tx.emit(Event::UserUpdated {
                user_id: user,
                change: PersonChange::ProfileField {
                    field_id,
                    value: None,
                    rendered_value: None,
                },
            });
            continue;
        };
        let stored = crate::domain::profile_fields::values::validate(tx, &field, &value)?;
        let rendered = field
            .field_type
            .is_markdown()
            .then(|| crate::markdown::render(&stored));
        fields_db::set_value(
            tx,
            &ProfileValue {
                user_id: user,
                field_id,
                value: stored.clone(),
                rendered_value: rendered.clone(),
            },
        )?;
        tx.emit(Event::UserUpdated {
            user_id: user,
            change: PersonChange::ProfileField {
                field_id,
                value: Some(stored),
                rendered_value: rendered,
            },
        });
    }
    Ok(())
}

/// Deactivates a user (not a bot), with the bots they own, on an administrator's request.
pub async fn deactivate(state: &Core, actor: &User, target: UserId) -> Result<()> {
    if !actor.role.is_admin() {
        return Err(Error::not_admin());
    }
    let actor_is_owner = actor.role == Role::Owner;
    state
        .db
        .write(move |tx| {
            let user = users_db::get(tx, target)?
                .filter(|u| u.is_active && !u.is_bot)
                .ok_or_else(|| Error::bad_request("No such user"))?;
            if user.role == Role::Owner {
                if !actor_is_owner {
                    return Err(Error::not_owner());
                }
                if users_db::count_active_owners(tx)? <= 1 {
                    return Err(Error::bad_request(
                        "Cannot deactivate the only organization owner",
                    ));
                }
            }
            deactivate_in(tx, &user)
        })
        .await
}

/// Inside a write: deactivates an (active, checked) user or bot and announces it: out of its
/// groups, its push registrations forgotten, its web sessions ended (its event queues and
/// cached credentials end when the commit's events are published). The active bots it owns
/// are deactivated first, the same way, as upstream's `do_deactivate_user` does, and so are
/// bots owned by those bots (which bots could make before they were refused `POST /bots`);
/// reactivating the user later brings none of them back.
pub fn deactivate_in(tx: &mut WriteTx<'_>, user: &User) -> Result<()> {
    for bot in owned_bots_closure(tx, user.id)? {
        deactivate_one(tx, &bot)?;
    }
    deactivate_one(tx, user)
}

/// The active bots `owner` owns, then the active bots those own, and so on, each once.
fn owned_bots_closure(c: &rusqlite::Connection, owner: UserId) -> Result<Vec<User>> {
    let mut seen = std::collections::HashSet::from([owner]);
    let mut found = Vec::new();
    let mut next = 0;
    let mut current = owner;
    loop {
        for bot in users_db::active_bots_owned_by(c, current)? {
            if seen.insert(bot.id) {
                found.push(bot);
            }
        }
        let Some(bot) = found.get(next) else {
            return Ok(found);
        };
        current = bot.id;
        next += 1;
    }
}

fn deactivate_one(tx: &mut WriteTx<'_>, user: &User) -> Result<()> {
    let target = user.id;
    users_db::set_active(tx, target, false)?;
    super::sessions::end_all_for(tx, target)?;
    let mut left = crate::domain::user_groups::remove_from_all(tx, target)?;
    left.extend(crate::domain::user_groups::role_events(
        target,
        Some(user.role),
        None,
    ));
    // A deactivated user's devices get no notifications; their registrations go.
    super::push::forget_devices(tx, target)?;
    tx.emit(Event::UserDeactivated { user_id: target });
    for e in left {
        tx.emit(e);
    }
    Ok(())
}

/// Reactivates a deactivated user or bot on an administrator's request; a user's bots stay
/// as they are.
pub async fn reactivate(state: &Core, actor: &User, target: UserId) -> Result<()> {
    if !actor.role.is_admin() {
        return Err(Error::not_admin());
    }
    state
        .db
        .write(move |tx| {
            let user =
                users_db::get(tx, target)?.ok_or_else(|| Error::bad_request("No such user"))?;
            if user.is_active {
                return Err(Error::bad_request("User is already active."));
            }
            users_db::set_active(tx, target, true)?;
            tx.emit(Event::UserReactivated { user_id: target });
            for e in crate::domain::user_groups::role_events(target, None, Some(user.role)) {
                tx.emit(e);
            }
            Ok(())
        })
        .await
}
