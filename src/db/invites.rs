//! SQL for invitations (the `invitations` table): creating them, finding them
//! by id or link key, listing the open ones, and marking them used or revoked.

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::Result;
use crate::ids::{ChannelId, GroupId, InvitationId, UserId};
use crate::model::{Invitation, InvitationStatus, Role, Secret};

const COLUMNS: &str = "id, multiuse, email, link_key, referrer_id, invited_as, created, expires, \
     notify_referrer, include_defaults, welcome_text, channel_ids, group_ids, status";

fn join_ids(ids: impl Iterator<Item = i64>) -> String {
    ids.map(|i| i.to_string()).collect::<Vec<_>>().join(",")
}

fn split_ids(s: &str) -> Vec<i64> {
    s.split(',').filter_map(|p| p.parse().ok()).collect()
}

fn from_row(r: &Row<'_>) -> rusqlite::Result<Invitation> {
    let role: i64 = r.get(5)?;
    let status: i64 = r.get(13)?;
    let channels: String = r.get(11)?;
    let groups: String = r.get(12)?;
    Ok(Invitation {
        id: InvitationId(r.get(0)?),
        multiuse: r.get(1)?,
        email: r.get(2)?,
        key: Secret(r.get(3)?),
        referrer: UserId(r.get(4)?),
        invited_as: Role::from_code(role).unwrap_or(Role::Member),
        created: r.get(6)?,
        expires: r.get(7)?,
        notify_referrer: r.get(8)?,
        include_defaults: r.get(9)?,
        welcome_text: r.get(10)?,
        channels: split_ids(&channels).into_iter().map(ChannelId).collect(),
        groups: split_ids(&groups).into_iter().map(GroupId).collect(),
        status: InvitationStatus::from_code(status).unwrap_or(InvitationStatus::Revoked),
    })
}

/// Stores a new invitation (its `id` and `status` are ignored); returns its id.
pub fn insert(c: &Connection, inv: &Invitation) -> Result<InvitationId> {
    c.execute(
        "INSERT INTO invitations (multiuse, email, link_key, referrer_id, invited_as, created, \
         expires, notify_referrer, include_defaults, welcome_text, channel_ids, group_ids, status) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 0)",
        params![
            inv.multiuse,
            inv.email,
            inv.key.0,
            inv.referrer.0,
            inv.invited_as.code(),
            inv.created,
            inv.expires,
            inv.notify_referrer,
            inv.include_defaults,
            inv.welcome_text,
            join_ids(inv.channels.iter().map(|c| c.0)),
            join_ids(inv.groups.iter().map(|g| g.0)),
        ],
    )?;
    Ok(InvitationId(c.last_insert_rowid()))
}

pub fn get(c: &Connection, id: InvitationId) -> Result<Option<Invitation>> {
    let mut st = c.prepare_cached(&format!("SELECT {COLUMNS} FROM invitations WHERE id = ?1"))?;
    Ok(st.query_row([id.0], from_row).optional()?)
}

pub fn by_key(c: &Connection, key: &str) -> Result<Option<Invitation>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM invitations WHERE link_key = ?1"
    ))?;
    Ok(st.query_row([key], from_row).optional()?)
}

/// The open invitations not expired at `now`, oldest first; only `referrer`'s when given.
pub fn open(c: &Connection, now: i64, referrer: Option<UserId>) -> Result<Vec<Invitation>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM invitations WHERE status = 0 \
         AND (expires IS NULL OR expires > ?1) AND (?2 IS NULL OR referrer_id = ?2) ORDER BY id"
    ))?;
    let rows = st.query_map(params![now, referrer.map(|u| u.0)], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether an open, unexpired email invitation to `email` exists (case-insensitively).
pub fn open_for_email(c: &Connection, email: &str, now: i64) -> Result<bool> {
    let mut st = c.prepare_cached(
        "SELECT 1 FROM invitations WHERE email = ?1 COLLATE NOCASE AND status = 0 \
         AND (expires IS NULL OR expires > ?2) LIMIT 1",
    )?;
    Ok(st
        .query_row(params![email, now], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Email invitations created since `since` (for the daily limit).
pub fn email_invitations_since(c: &Connection, since: i64) -> Result<i64> {
    Ok(c.query_row(
        "SELECT count(*) FROM invitations WHERE NOT multiuse AND created >= ?1",
        [since],
        |r| r.get(0),
    )?)
}

pub fn set_status(c: &Connection, id: InvitationId, status: InvitationStatus) -> Result<()> {
    c.execute(
        "UPDATE invitations SET status = ?2 WHERE id = ?1",
        params![id.0, status.code()],
    )?;
    Ok(())
}

/// Revokes every other open email invitation to `email` (someone signed up with one of them).
pub fn revoke_others_for_email(c: &Connection, email: &str, used: InvitationId) -> Result<()> {
    c.execute(
        "UPDATE invitations SET status = 2 WHERE email = ?1 COLLATE NOCASE AND status = 0 \
         AND id <> ?2",
        params![email, used.0],
    )?;
    Ok(())
}
