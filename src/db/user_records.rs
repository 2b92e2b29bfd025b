//! SQL for the records a user keeps on the server (in `schema.sql`): muted users, drafts,
//! saved snippets, legacy push tokens and encrypted push registrations. Every query is scoped
//! to the owning user, so a foreign id reads as absent. Knows no rules and no JSON.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::message_narrows::{read_by, received_by};
use crate::error::Result;
use crate::ids::{MessageId, UserId};
use crate::model::records::{
    Draft, DraftKind, MutedUser, PushRegistration, PushToken, SavedSnippet,
};

// ---- muted users ----

/// The users `user` muted, oldest mute first.
pub fn muted_by(c: &Connection, user: UserId) -> Result<Vec<MutedUser>> {
    let mut st = c.prepare_cached(
        "SELECT muted_user_id, date_muted FROM muted_users WHERE user_id = ?1 \
         ORDER BY date_muted, muted_user_id",
    )?;
    let rows = st.query_map([user.0], |r| {
        Ok(MutedUser {
            id: UserId(r.get(0)?),
            timestamp: r.get(1)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The users who muted `user`.
pub fn muters_of(c: &Connection, user: UserId) -> Result<Vec<UserId>> {
    let mut st = c.prepare_cached("SELECT user_id FROM muted_users WHERE muted_user_id = ?1")?;
    let rows = st.query_map([user.0], |r| Ok(UserId(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn is_muted(c: &Connection, user: UserId, muted: UserId) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT 1 FROM muted_users WHERE user_id = ?1 AND muted_user_id = ?2")?
            .query_row(params![user.0, muted.0], |_| Ok(()))
            .optional()?
            .is_some(),
    )
}

pub fn mute(c: &Connection, user: UserId, muted: UserId, at: i64) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO muted_users (user_id, muted_user_id, date_muted) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![user.0, muted.0, at])?;
    Ok(())
}

pub fn unmute(c: &Connection, user: UserId, muted: UserId) -> Result<()> {
    c.prepare_cached("DELETE FROM muted_users WHERE user_id = ?1 AND muted_user_id = ?2")?
        .execute(params![user.0, muted.0])?;
    Ok(())
}

/// Up to `limit` messages `sender` sent that `user` received and has not read, oldest first.
pub fn unread_from(
    c: &Connection,
    user: UserId,
    sender: UserId,
    limit: usize,
) -> Result<Vec<MessageId>> {
    let u = user.0.to_string();
    let sql = format!(
        "SELECT m.id FROM messages m WHERE m.sender_id = ?1 AND {} AND NOT {} ORDER BY m.id \
         LIMIT ?2",
        received_by(&u),
        read_by(&u)
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(params![sender.0, limit as i64], |r| {
        Ok(MessageId(r.get(0)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

// ---- drafts ----

const DRAFT_COLUMNS: &str = "id, kind, recipients, topic, content, last_edit";

fn draft_row(r: &Row<'_>) -> rusqlite::Result<Draft> {
    let kind: String = r.get(1)?;
    let to: String = r.get(2)?;
    Ok(Draft {
        id: r.get(0)?,
        kind: DraftKind::from_name(&kind).unwrap_or(DraftKind::Unaddressed),
        to: to.split(',').filter_map(|s| s.parse().ok()).collect(),
        topic: r.get(3)?,
        content: r.get(4)?,
        timestamp: r.get(5)?,
    })
}

fn recipients_text(to: &[i64]) -> String {
    to.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

/// A user's drafts, most recently edited first, at most `limit`.
pub fn drafts_of(c: &Connection, user: UserId, limit: usize) -> Result<Vec<Draft>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {DRAFT_COLUMNS} FROM drafts WHERE user_id = ?1 \
         ORDER BY last_edit DESC, id DESC LIMIT ?2"
    ))?;
    let rows = st.query_map(params![user.0, limit as i64], draft_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn draft_count(c: &Connection, user: UserId) -> Result<usize> {
    Ok(
        c.prepare_cached("SELECT count(*) FROM drafts WHERE user_id = ?1")?
            .query_row([user.0], |r| r.get::<_, i64>(0))? as usize,
    )
}

pub fn draft(c: &Connection, user: UserId, id: i64) -> Result<Option<Draft>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {DRAFT_COLUMNS} FROM drafts WHERE user_id = ?1 AND id = ?2"
    ))?;
    Ok(st.query_row(params![user.0, id], draft_row).optional()?)
}

/// Inserts a draft (its `id` is ignored) and returns the new id.
pub fn insert_draft(c: &Connection, user: UserId, d: &Draft) -> Result<i64> {
    c.prepare_cached(
        "INSERT INTO drafts (user_id, kind, recipients, topic, content, last_edit) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        user.0,
        d.kind.name(),
        recipients_text(&d.to),
        d.topic,
        d.content,
        d.timestamp
    ])?;
    Ok(c.last_insert_rowid())
}

pub fn update_draft(c: &Connection, user: UserId, d: &Draft) -> Result<()> {
    c.prepare_cached(
        "UPDATE drafts SET kind = ?3, recipients = ?4, topic = ?5, content = ?6, last_edit = ?7 \
         WHERE user_id = ?1 AND id = ?2",
    )?
    .execute(params![
        user.0,
        d.id,
        d.kind.name(),
        recipients_text(&d.to),
        d.topic,
        d.content,
        d.timestamp
    ])?;
    Ok(())
}

/// Deletes one draft; whether it existed.
pub fn delete_draft(c: &Connection, user: UserId, id: i64) -> Result<bool> {
    Ok(
        c.prepare_cached("DELETE FROM drafts WHERE user_id = ?1 AND id = ?2")?
            .execute(params![user.0, id])?
            > 0,
    )
}

pub fn delete_all_drafts(c: &Connection, user: UserId) -> Result<()> {
    c.prepare_cached("DELETE FROM drafts WHERE user_id = ?1")?
        .execute([user.0])?;
    Ok(())
}

// ---- saved snippets ----

fn snippet_row(r: &Row<'_>) -> rusqlite::Result<SavedSnippet> {
    Ok(SavedSnippet {
        id: r.get(0)?,
        title: r.get(1)?,
        content: r.get(2)?,
        date_created: r.get(3)?,
    })
}

/// A user's saved snippets, oldest first.
pub fn snippets_of(c: &Connection, user: UserId) -> Result<Vec<SavedSnippet>> {
    let mut st = c.prepare_cached(
        "SELECT id, title, content, date_created FROM saved_snippets WHERE user_id = ?1 \
         ORDER BY id",
    )?;
    let rows = st.query_map([user.0], snippet_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn snippet(c: &Connection, user: UserId, id: i64) -> Result<Option<SavedSnippet>> {
    let mut st = c.prepare_cached(
        "SELECT id, title, content, date_created FROM saved_snippets \
         WHERE user_id = ?1 AND id = ?2",
    )?;
    Ok(st.query_row(params![user.0, id], snippet_row).optional()?)
}

pub fn snippet_count(c: &Connection, user: UserId) -> Result<usize> {
    Ok(
        c.prepare_cached("SELECT count(*) FROM saved_snippets WHERE user_id = ?1")?
            .query_row([user.0], |r| r.get::<_, i64>(0))? as usize,
    )
}

pub fn insert_snippet(c: &Connection, user: UserId, s: &SavedSnippet) -> Result<i64> {
    c.prepare_cached(
        "INSERT INTO saved_snippets (user_id, title, content, date_created) \
         VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![user.0, s.title, s.content, s.date_created])?;
    Ok(c.last_insert_rowid())
}

pub fn update_snippet(c: &Connection, user: UserId, s: &SavedSnippet) -> Result<()> {
    c.prepare_cached(
        "UPDATE saved_snippets SET title = ?3, content = ?4 WHERE user_id = ?1 AND id = ?2",
    )?
    .execute(params![user.0, s.id, s.title, s.content])?;
    Ok(())
}

pub fn delete_snippet(c: &Connection, user: UserId, id: i64) -> Result<bool> {
    Ok(
        c.prepare_cached("DELETE FROM saved_snippets WHERE user_id = ?1 AND id = ?2")?
            .execute(params![user.0, id])?
            > 0,
    )
}

// ---- push devices ----

fn kind_name(kind: &str) -> &'static str {
    if kind == "apns" { "apns" } else { "fcm" }
}

/// A user's legacy push tokens, by kind and token.
pub fn push_tokens_of(c: &Connection, user: UserId) -> Result<Vec<PushToken>> {
    let mut st = c.prepare_cached(
        "SELECT kind, token, ios_app_id FROM push_tokens WHERE user_id = ?1 ORDER BY kind, token",
    )?;
    let rows = st.query_map([user.0], |r| {
        Ok(PushToken {
            kind: kind_name(&r.get::<_, String>(0)?),
            token: r.get(1)?,
            ios_app_id: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether the user has this token, and how many push devices (tokens and registrations)
/// they have in all.
pub fn push_token_exists(c: &Connection, user: UserId, kind: &str, token: &str) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT 1 FROM push_tokens WHERE user_id = ?1 AND kind = ?2 AND token = ?3",
    )?
    .query_row(params![user.0, kind, token], |_| Ok(()))
    .optional()?
    .is_some())
}

pub fn push_device_count(c: &Connection, user: UserId) -> Result<usize> {
    Ok(c.prepare_cached(
        "SELECT (SELECT count(*) FROM push_tokens WHERE user_id = ?1) + \
             (SELECT count(*) FROM push_registrations WHERE user_id = ?1)",
    )?
    .query_row([user.0], |r| r.get::<_, i64>(0))? as usize)
}

/// Adds a token, or updates its app id when the user already has it.
pub fn upsert_push_token(c: &Connection, user: UserId, t: &PushToken, at: i64) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO push_tokens (user_id, kind, token, ios_app_id, date_created) \
         VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (user_id, kind, token) DO UPDATE SET ios_app_id = excluded.ios_app_id",
    )?
    .execute(params![user.0, t.kind, t.token, t.ios_app_id, at])?;
    Ok(())
}

/// Removes a token; whether the user had it.
pub fn delete_push_token(c: &Connection, user: UserId, kind: &str, token: &str) -> Result<bool> {
    Ok(
        c.prepare_cached(
            "DELETE FROM push_tokens WHERE user_id = ?1 AND kind = ?2 AND token = ?3",
        )?
        .execute(params![user.0, kind, token])?
            > 0,
    )
}

/// A user's encrypted push registrations, by account id.
pub fn push_registrations_of(c: &Connection, user: UserId) -> Result<Vec<PushRegistration>> {
    let mut st = c.prepare_cached(
        "SELECT push_account_id, token_kind, push_public_key, bouncer_public_key, \
         encrypted_push_registration FROM push_registrations WHERE user_id = ?1 \
         ORDER BY push_account_id",
    )?;
    let rows = st.query_map([user.0], |r| {
        Ok(PushRegistration {
            push_account_id: r.get(0)?,
            token_kind: kind_name(&r.get::<_, String>(1)?),
            push_public_key: r.get(2)?,
            bouncer_public_key: r.get(3)?,
            encrypted_push_registration: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn push_registration_exists(c: &Connection, user: UserId, account: i64) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT 1 FROM push_registrations WHERE user_id = ?1 AND push_account_id = ?2",
    )?
    .query_row(params![user.0, account], |_| Ok(()))
    .optional()?
    .is_some())
}

/// Stores a registration, replacing the one with the same account id.
pub fn upsert_push_registration(
    c: &Connection,
    user: UserId,
    r: &PushRegistration,
    at: i64,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO push_registrations (user_id, push_account_id, token_kind, push_public_key, \
         bouncer_public_key, encrypted_push_registration, date_created) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
         ON CONFLICT (user_id, push_account_id) DO UPDATE SET token_kind = excluded.token_kind, \
         push_public_key = excluded.push_public_key, \
         bouncer_public_key = excluded.bouncer_public_key, \
         encrypted_push_registration = excluded.encrypted_push_registration",
    )?
    .execute(params![
        user.0,
        r.push_account_id,
        r.token_kind,
        r.push_public_key,
        r.bouncer_public_key,
        r.encrypted_push_registration,
        at
    ])?;
    Ok(())
}

/// Forgets every push device of a user (on deactivation).
pub fn delete_push_devices(c: &Connection, user: UserId) -> Result<()> {
    c.prepare_cached("DELETE FROM push_tokens WHERE user_id = ?1")?
        .execute([user.0])?;
    c.prepare_cached("DELETE FROM push_registrations WHERE user_id = ?1")?
        .execute([user.0])?;
    super::push_e2ee::delete_of_user(c, user)?;
    Ok(())
}
