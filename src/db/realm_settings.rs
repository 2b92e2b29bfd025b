//! SQL for the organization's settings: the sparse `realm_settings` table (only values an
//! administrator changed from their default are stored).
//!
//! Values are opaque text here; `domain::realm_settings` owns their types, defaults and
//! validation.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;

/// Every stored `(name, value)`.
pub fn all(c: &Connection) -> Result<Vec<(String, String)>> {
    let mut st = c.prepare_cached("SELECT name, value FROM realm_settings ORDER BY name")?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One stored value, if an administrator changed that setting.
pub fn get(c: &Connection, name: &str) -> Result<Option<String>> {
    Ok(
        c.prepare_cached("SELECT value FROM realm_settings WHERE name = ?1")?
            .query_row([name], |r| r.get(0))
            .optional()?,
    )
}

pub fn set(c: &Connection, name: &str, value: &str) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO realm_settings (name, value) VALUES (?1, ?2) \
         ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    )?
    .execute(params![name, value])?;
    Ok(())
}
