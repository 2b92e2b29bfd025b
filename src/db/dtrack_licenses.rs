//! SQL of Dependency-Track license groups and their member licenses (SPDX ids of the
//! built-in catalogue, which itself is data, not a table).
//!
//! Synchronous functions over a connection; no HTTP types.

use rusqlite::{Connection, OptionalExtension as _, params};

use crate::error::Result;
use crate::model::dtrack::LicenseGroup;

fn members(c: &Connection, group: i64) -> Result<Vec<String>> {
    let mut st = c.prepare_cached(
        "SELECT license_id FROM dt_license_group_licenses WHERE group_id = ?1 ORDER BY license_id",
    )?;
    let rows = st.query_map([group], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn one(c: &Connection, cond: &str, arg: &str) -> Result<Option<LicenseGroup>> {
    let sql = format!("SELECT id, uuid, name, risk_weight FROM dt_license_groups WHERE {cond}");
    let g = c
        .prepare_cached(&sql)?
        .query_row([arg], |r| {
            Ok(LicenseGroup {
                id: r.get(0)?,
                uuid: r.get(1)?,
                name: r.get(2)?,
                risk_weight: r.get(3)?,
                ..LicenseGroup::default()
            })
        })
        .optional()?;
    match g {
        Some(mut g) => {
            g.licenses = members(c, g.id)?;
            Ok(Some(g))
        }
        None => Ok(None),
    }
}

pub fn group_by_uuid(c: &Connection, uuid: &str) -> Result<Option<LicenseGroup>> {
    one(c, "uuid = ?1", uuid)
}

pub fn group_by_name(c: &Connection, name: &str) -> Result<Option<LicenseGroup>> {
    one(c, "name = ?1", name)
}

/// A page of the groups, by name, with their members.
pub fn groups(c: &Connection, offset: i64, limit: i64) -> Result<Vec<LicenseGroup>> {
    let mut st = c.prepare_cached(
        "SELECT id, uuid, name, risk_weight FROM dt_license_groups ORDER BY name, id
         LIMIT ?1 OFFSET ?2",
    )?;
    let rows = st.query_map(params![limit, offset.max(0)], |r| {
        Ok(LicenseGroup {
            id: r.get(0)?,
            uuid: r.get(1)?,
            name: r.get(2)?,
            risk_weight: r.get(3)?,
            ..LicenseGroup::default()
        })
    })?;
    let mut out: Vec<LicenseGroup> = rows.collect::<rusqlite::Result<_>>()?;
    for g in &mut out {
        g.licenses = members(c, g.id)?;
    }
    Ok(out)
}

pub fn group_count(c: &Connection) -> Result<i64> {
    Ok(c.query_row("SELECT count(*) FROM dt_license_groups", [], |r| r.get(0))?)
}

pub fn insert_group(c: &Connection, uuid: &str, name: &str, risk_weight: i64) -> Result<()> {
    c.execute(
        "INSERT INTO dt_license_groups (uuid, name, risk_weight) VALUES (?1, ?2, ?3)",
        params![uuid, name, risk_weight],
    )?;
    Ok(())
}

pub fn update_group(c: &Connection, id: i64, name: &str, risk_weight: i64) -> Result<()> {
    c.execute(
        "UPDATE dt_license_groups SET name = ?2, risk_weight = ?3 WHERE id = ?1",
        params![id, name, risk_weight],
    )?;
    Ok(())
}

pub fn delete_group(c: &Connection, id: i64) -> Result<()> {
    c.execute("DELETE FROM dt_license_groups WHERE id = ?1", [id])?;
    Ok(())
}

pub fn add_member(c: &Connection, group: i64, license_id: &str) -> Result<()> {
    c.execute(
        "INSERT OR IGNORE INTO dt_license_group_licenses (group_id, license_id) VALUES (?1, ?2)",
        params![group, license_id],
    )?;
    Ok(())
}

pub fn remove_member(c: &Connection, group: i64, license_id: &str) -> Result<()> {
    c.execute(
        "DELETE FROM dt_license_group_licenses WHERE group_id = ?1 AND license_id = ?2",
        params![group, license_id],
    )?;
    Ok(())
}
