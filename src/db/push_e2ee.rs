//! SQL for end-to-end encrypted push: what Zulip's push notification service made of each
//! encrypted registration (`push_e2ee_devices`: pending from the registration's commit, then
//! the service's device id or its error code), the registrations a notification is encrypted
//! for, and the deletions the service's answers ask for.
//!
//! Synchronous functions over a connection; callers run them through `Db::read` / `Db::write`.
//! Knows nothing of HTTP, of the service's API, of payloads or of cryptography.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::UserId;

/// A registration the service took: where encrypted notifications for it go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForwardedDevice {
    pub push_account_id: i64,
    /// `apns` or `fcm`.
    pub token_kind: String,
    /// The client's public key (standard base64 of 32 bytes).
    pub push_public_key: String,
    /// The id the service gave the device.
    pub bouncer_device_id: i64,
}

/// What a forwarding call sends: the stored registration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forwarding {
    pub encrypted_push_registration: String,
    pub bouncer_public_key: String,
}

/// Marks a registration (new or replaced) as waiting to be forwarded.
pub fn mark_pending(c: &Connection, user: UserId, account: i64, now: i64) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO push_e2ee_devices (user_id, push_account_id, updated_at) \
         VALUES (?1, ?2, ?3) ON CONFLICT (user_id, push_account_id) DO UPDATE SET \
         bouncer_device_id = NULL, error_code = NULL, updated_at = excluded.updated_at",
    )?
    .execute(params![user.0, account, now])?;
    Ok(())
}

/// The registration a queued forwarding call is for, if it still exists.
pub fn forwarding(c: &Connection, user: UserId, account: i64) -> Result<Option<Forwarding>> {
    Ok(c.prepare_cached(
        "SELECT encrypted_push_registration, bouncer_public_key FROM push_registrations \
         WHERE user_id = ?1 AND push_account_id = ?2",
    )?
    .query_row(params![user.0, account], |r| {
        Ok(Forwarding {
            encrypted_push_registration: r.get(0)?,
            bouncer_public_key: r.get(1)?,
        })
    })
    .optional()?)
}

/// Records the device id the service gave a registration.
pub fn set_device(
    c: &Connection,
    user: UserId,
    account: i64,
    device_id: i64,
    now: i64,
) -> Result<()> {
    c.prepare_cached(
        "UPDATE push_e2ee_devices SET bouncer_device_id = ?3, error_code = NULL, \
         updated_at = ?4 WHERE user_id = ?1 AND push_account_id = ?2",
    )?
    .execute(params![user.0, account, device_id, now])?;
    Ok(())
}

/// Records why the service refused a registration.
pub fn set_error(c: &Connection, user: UserId, account: i64, code: &str, now: i64) -> Result<()> {
    c.prepare_cached(
        "UPDATE push_e2ee_devices SET bouncer_device_id = NULL, error_code = ?3, \
         updated_at = ?4 WHERE user_id = ?1 AND push_account_id = ?2",
    )?
    .execute(params![user.0, account, code, now])?;
    Ok(())
}

/// The service's state of one registration: (device id, error code); `None` when unknown.
pub fn state(
    c: &Connection,
    user: UserId,
    account: i64,
) -> Result<Option<(Option<i64>, Option<String>)>> {
    Ok(c.prepare_cached(
        "SELECT bouncer_device_id, error_code FROM push_e2ee_devices \
         WHERE user_id = ?1 AND push_account_id = ?2",
    )?
    .query_row(params![user.0, account], |r| Ok((r.get(0)?, r.get(1)?)))
    .optional()?)
}

/// The user's registrations the service took, by account id.
pub fn forwarded_of(c: &Connection, user: UserId) -> Result<Vec<ForwardedDevice>> {
    let mut st = c.prepare_cached(
        "SELECT r.push_account_id, r.token_kind, r.push_public_key, d.bouncer_device_id \
         FROM push_registrations r JOIN push_e2ee_devices d \
           ON d.user_id = r.user_id AND d.push_account_id = r.push_account_id \
         WHERE r.user_id = ?1 AND d.bouncer_device_id IS NOT NULL \
         ORDER BY r.push_account_id",
    )?;
    let rows = st.query_map([user.0], |r| {
        Ok(ForwardedDevice {
            push_account_id: r.get(0)?,
            token_kind: r.get(1)?,
            push_public_key: r.get(2)?,
            bouncer_device_id: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether the user has a registration the service took.
pub fn has_forwarded(c: &Connection, user: UserId) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM push_e2ee_devices \
         WHERE user_id = ?1 AND bouncer_device_id IS NOT NULL)",
    )?
    .query_row([user.0], |r| r.get(0))?)
}

/// Deletes the registrations with these service device ids (the service no longer knows them);
/// how many went.
pub fn delete_by_device_ids(c: &Connection, ids: &[i64]) -> Result<usize> {
    let mut find = c.prepare_cached(
        "SELECT user_id, push_account_id FROM push_e2ee_devices WHERE bouncer_device_id = ?1",
    )?;
    let mut gone = Vec::new();
    for id in ids {
        let rows = find.query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
        for row in rows {
            gone.push(row?);
        }
    }
    let mut del_reg = c.prepare_cached(
        "DELETE FROM push_registrations WHERE user_id = ?1 AND push_account_id = ?2",
    )?;
    let mut del_dev = c.prepare_cached(
        "DELETE FROM push_e2ee_devices WHERE user_id = ?1 AND push_account_id = ?2",
    )?;
    for (user, account) in &gone {
        del_reg.execute(params![user, account])?;
        del_dev.execute(params![user, account])?;
    }
    Ok(gone.len())
}

/// Forgets what the service made of a user's registrations (on deactivation).
pub fn delete_of_user(c: &Connection, user: UserId) -> Result<()> {
    c.prepare_cached("DELETE FROM push_e2ee_devices WHERE user_id = ?1")?
        .execute([user.0])?;
    Ok(())
}
