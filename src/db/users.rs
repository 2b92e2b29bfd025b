//! SQL for users, their credentials and their status.
//!
//! Synchronous functions over a connection; callers run them through `Db::read` / `Db::write`.
//! Lookups by email are case-insensitive, as Zulip's are.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::Result;
use crate::ids::UserId;
use crate::model::EmailVisibility;
use crate::model::{Role, Secret, User, UserStatus};

const COLUMNS: &str = "id, email, full_name, role, is_active, is_bot, bot_type, bot_owner_id, \
     api_key, timezone, date_joined, avatar_source, avatar_version, email_address_visibility, \
     can_create_users, can_change_user_emails, presence_enabled, is_system_bot";

fn from_row(r: &Row<'_>) -> rusqlite::Result<User> {
    let role: i64 = r.get(3)?;
    let vis: i64 = r.get(13)?;
    Ok(User {
        id: UserId(r.get(0)?),
        email: r.get(1)?,
        full_name: r.get(2)?,
        role: Role::from_code(role).unwrap_or(Role::Member),
        is_active: r.get(4)?,
        is_bot: r.get(5)?,
        bot_type: r.get(6)?,
        bot_owner_id: r.get::<_, Option<i64>>(7)?.map(UserId),
        api_key: Secret(r.get(8)?),
        timezone: r.get(9)?,
        date_joined: r.get(10)?,
        avatar_source: r.get(11)?,
        avatar_version: r.get(12)?,
        email_visibility: EmailVisibility::from_code(vis).unwrap_or(EmailVisibility::Everyone),
        can_create_users: r.get(14)?,
        can_change_user_emails: r.get(15)?,
        presence_enabled: r.get(16)?,
        is_system_bot: r.get(17)?,
    })
}

/// A member of the realm by id (never a system bot).
pub fn get(c: &Connection, id: UserId) -> Result<Option<User>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users WHERE id = ?1 AND NOT is_system_bot"
    ))?;
    Ok(st.query_row([id.0], from_row).optional()?)
}

/// Any user by id, the system bots included: for senders and direct-message participants.
pub fn get_any(c: &Connection, id: UserId) -> Result<Option<User>> {
    let mut st = c.prepare_cached(&format!("SELECT {COLUMNS} FROM users WHERE id = ?1"))?;
    Ok(st.query_row([id.0], from_row).optional()?)
}

/// The users (system bots included) with these ids, by id, in one query; ids without a user
/// are left out.
pub fn get_many(c: &Connection, ids: &[UserId]) -> Result<HashMap<UserId, User>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let list = serde_json::to_string(&ids.iter().map(|u| u.0).collect::<Vec<_>>())
        .expect("integers serialize");
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users WHERE id IN (SELECT value FROM json_each(?1))"
    ))?;
    let rows = st.query_map([list], from_row)?;
    let mut out = HashMap::with_capacity(ids.len());
    for u in rows {
        let u = u?;
        out.insert(u.id, u);
    }
    Ok(out)
}

/// A member of the realm by email (never a system bot).
pub fn by_email(c: &Connection, email: &str) -> Result<Option<User>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users WHERE email = ?1 COLLATE NOCASE AND NOT is_system_bot"
    ))?;
    Ok(st.query_row([email], from_row).optional()?)
}

/// The user holding an API key (system bots hold none that is ever given out), as incoming
/// webhooks name their caller by key alone.
pub fn by_api_key(c: &Connection, key: &str) -> Result<Option<User>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users WHERE api_key = ?1 AND NOT is_system_bot"
    ))?;
    Ok(st.query_row([key], from_row).optional()?)
}

/// Any user by email, the system bots included.
pub fn by_email_any(c: &Connection, email: &str) -> Result<Option<User>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users WHERE email = ?1 COLLATE NOCASE"
    ))?;
    Ok(st.query_row([email], from_row).optional()?)
}

/// Every member of the realm, active or not, humans and bots, by id (not the system bots).
pub fn all(c: &Connection) -> Result<Vec<User>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users WHERE NOT is_system_bot ORDER BY id"
    ))?;
    let rows = st.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The realm's active bots owned by `owner`, oldest first (`GET /bots`).
pub fn active_bots_owned_by(c: &Connection, owner: UserId) -> Result<Vec<User>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users
         WHERE is_bot AND NOT is_system_bot AND is_active AND bot_owner_id = ?1
         ORDER BY date_joined, id"
    ))?;
    let rows = st.query_map([owner.0], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The realm's bots (deactivated ones included), oldest first; only those owned by `owner`
/// when given (register's `realm_bots`).
pub fn realm_bots(c: &Connection, owner: Option<UserId>) -> Result<Vec<User>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users
         WHERE is_bot AND NOT is_system_bot AND (?1 IS NULL OR bot_owner_id = ?1)
         ORDER BY date_joined, id"
    ))?;
    let rows = st.query_map([owner.map(|o| o.0)], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The active administrators and owners of the realm.
pub fn active_admin_ids(c: &Connection) -> Result<Vec<UserId>> {
    let mut st = c.prepare_cached(
        "SELECT id FROM users WHERE is_active AND NOT is_bot AND NOT is_system_bot
         AND role IN (100, 200) ORDER BY id",
    )?;
    let rows = st.query_map([], |r| Ok(UserId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether an active bot of the realm has this full name (case-insensitively).
pub fn active_bot_named(c: &Connection, full_name: &str) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT 1 FROM users WHERE is_bot AND NOT is_system_bot AND is_active
         AND full_name = ?1 COLLATE NOCASE",
    )?
    .query_row([full_name], |_| Ok(()))
    .optional()?
    .is_some())
}

/// The system bots, by id.
pub fn system_bots(c: &Connection) -> Result<Vec<User>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users WHERE is_system_bot ORDER BY id"
    ))?;
    let rows = st.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The system bot with this address.
pub fn system_bot(c: &Connection, email: &str) -> Result<Option<User>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users WHERE is_system_bot AND email = ?1"
    ))?;
    Ok(st.query_row([email], from_row).optional()?)
}

pub fn count_active_owners(c: &Connection) -> Result<i64> {
    Ok(c.query_row(
        "SELECT count(*) FROM users WHERE role = 100 AND is_active AND NOT is_bot",
        [],
        |r| r.get(0),
    )?)
}

/// Active people in the realm (not bots).
pub fn count_active_humans(c: &Connection) -> Result<i64> {
    Ok(c.query_row(
        "SELECT count(*) FROM users WHERE is_active AND NOT is_bot",
        [],
        |r| r.get(0),
    )?)
}

/// What it takes to create a user.
pub struct NewUser<'a> {
    pub email: &'a str,
    pub full_name: &'a str,
    pub role: Role,
    pub api_key: &'a str,
    pub password_hash: Option<&'a str>,
    pub date_joined: i64,
    pub email_visibility: EmailVisibility,
    pub can_create_users: bool,
    pub can_change_user_emails: bool,
}

pub fn insert(c: &Connection, u: &NewUser<'_>) -> Result<UserId> {
    c.execute(
        "INSERT INTO users (email, full_name, role, api_key, password_hash, date_joined, \
         email_address_visibility, can_create_users, can_change_user_emails) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            u.email,
            u.full_name,
            u.role.code(),
            u.api_key,
            u.password_hash,
            u.date_joined,
            u.email_visibility as i64,
            u.can_create_users,
            u.can_change_user_emails,
        ],
    )?;
    Ok(UserId(c.last_insert_rowid()))
}

/// Makes a just-created user a bot of `bot_type` owned by `owner`.
pub fn make_bot(c: &Connection, id: UserId, bot_type: i64, owner: UserId) -> Result<()> {
    c.prepare_cached(
        "UPDATE users SET is_bot = 1, bot_type = ?2, bot_owner_id = ?3 WHERE id = ?1",
    )?
    .execute(params![id.0, bot_type, owner.0])?;
    Ok(())
}

/// Every user's id and address, the system bots included (for comparisons SQL cannot make,
/// such as look-alike addresses).
pub fn all_emails(c: &Connection) -> Result<Vec<(UserId, String)>> {
    let mut st = c.prepare_cached("SELECT id, email FROM users")?;
    let rows = st.query_map([], |r| Ok((UserId(r.get(0)?), r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The stored password hash of a user; `None` when they have none or there is no such user.
pub fn password_hash(c: &Connection, id: UserId) -> Result<Option<String>> {
    Ok(
        c.prepare_cached("SELECT password_hash FROM users WHERE id = ?1")?
            .query_row([id.0], |r| r.get::<_, Option<String>>(0))
            .optional()?
            .flatten(),
    )
}

pub fn set_full_name(c: &Connection, id: UserId, name: &str) -> Result<()> {
    c.execute(
        "UPDATE users SET full_name = ?2 WHERE id = ?1",
        params![id.0, name],
    )?;
    Ok(())
}

pub fn set_role(c: &Connection, id: UserId, role: Role) -> Result<()> {
    c.execute(
        "UPDATE users SET role = ?2 WHERE id = ?1",
        params![id.0, role.code()],
    )?;
    Ok(())
}

pub fn set_email(c: &Connection, id: UserId, email: &str) -> Result<()> {
    c.execute(
        "UPDATE users SET email = ?2 WHERE id = ?1",
        params![id.0, email],
    )?;
    Ok(())
}

pub fn set_api_key(c: &Connection, id: UserId, key: &str) -> Result<()> {
    c.execute(
        "UPDATE users SET api_key = ?2 WHERE id = ?1",
        params![id.0, key],
    )?;
    Ok(())
}

pub fn set_active(c: &Connection, id: UserId, active: bool) -> Result<()> {
    c.execute(
        "UPDATE users SET is_active = ?2 WHERE id = ?1",
        params![id.0, active],
    )?;
    Ok(())
}

pub fn set_presence_enabled(c: &Connection, id: UserId, enabled: bool) -> Result<()> {
    c.execute(
        "UPDATE users SET presence_enabled = ?2 WHERE id = ?1",
        params![id.0, enabled],
    )?;
    Ok(())
}

pub fn set_timezone(c: &Connection, id: UserId, tz: &str) -> Result<()> {
    c.execute(
        "UPDATE users SET timezone = ?2 WHERE id = ?1",
        params![id.0, tz],
    )?;
    Ok(())
}

pub fn set_password_hash(c: &Connection, id: UserId, hash: &str) -> Result<()> {
    c.execute(
        "UPDATE users SET password_hash = ?2 WHERE id = ?1",
        params![id.0, hash],
    )?;
    Ok(())
}

pub fn status(c: &Connection, id: UserId) -> Result<UserStatus> {
    let mut st = c.prepare_cached(
        "SELECT status_text, emoji_name, emoji_code, reaction_type FROM user_status \
         WHERE user_id = ?1",
    )?;
    Ok(st
        .query_row([id.0], |r| status_from(r, 0))
        .optional()?
        .unwrap_or_default())
}

/// A status from four columns starting at `at`: text, emoji name, emoji code, reaction type.
fn status_from(r: &Row<'_>, at: usize) -> rusqlite::Result<UserStatus> {
    Ok(UserStatus {
        status_text: r.get(at)?,
        emoji_name: r.get(at + 1)?,
        emoji_code: r.get(at + 2)?,
        reaction_type: r.get(at + 3)?,
    })
}

/// Every stored status, by user id (users without one are absent).
pub fn all_statuses(c: &Connection) -> Result<HashMap<UserId, UserStatus>> {
    let mut st = c.prepare_cached(
        "SELECT user_id, status_text, emoji_name, emoji_code, reaction_type FROM user_status",
    )?;
    let rows = st
        .query_map([], |r| Ok((UserId(r.get(0)?), status_from(r, 1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

pub fn set_status(c: &Connection, id: UserId, s: &UserStatus, now: i64) -> Result<()> {
    c.execute(
        "INSERT INTO user_status (user_id, status_text, emoji_name, emoji_code, reaction_type, \
         updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
         ON CONFLICT (user_id) DO UPDATE SET status_text = excluded.status_text, \
         emoji_name = excluded.emoji_name, emoji_code = excluded.emoji_code, \
         reaction_type = excluded.reaction_type, updated_at = excluded.updated_at",
        params![
            id.0,
            s.status_text,
            s.emoji_name,
            s.emoji_code,
            s.reaction_type,
            now
        ],
    )?;
    Ok(())
}
