//! Licenses: the built-in SPDX catalogue (the vendored `spdx-licenses.tsv`, SPDX License List
//! 3.29, CC0-1.0), how a component's license text resolves to one of its licenses, and
//! license groups (named sets of catalogue licenses that LICENSE_GROUP conditions name).
//!
//! A catalogue license's UUID is derived from its SPDX id (SHA3-256, shaped as a version-4
//! UUID), so it is the same on every installation and across restarts; upstream draws them at
//! random when it seeds its table. Must not touch HTTP types or SQL.

use std::collections::HashMap;

use sha3::{Digest as _, Sha3_256};

use crate::db::dtrack_licenses as db;
use crate::domain::core::Core;
use crate::error::{Error, ErrorKind, Result};
use crate::model::dtrack::{License, LicenseGroup};

use super::state::write;

const CATALOGUE: &str = include_str!("spdx-licenses.tsv");

pub const LICENSE_NOT_FOUND: &str = "The license could not be found.";
pub const GROUP_NOT_FOUND: &str = "The license group could not be found.";
pub const GROUP_EXISTS: &str = "A license group with the specified name already exists.";
/// How many license groups there may be.
pub const MAX_GROUPS: i64 = 1000;

/// The stable UUID of a catalogue license.
pub fn license_uuid(license_id: &str) -> String {
    let h = Sha3_256::digest(format!("outpost-spdx-license:{license_id}").as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&h[..16]);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    uuid::Uuid::from_bytes(b).to_string()
}

fn parse(line: &str) -> Option<License> {
    if line.starts_with('#') || line.is_empty() {
        return None;
    }
    let mut f = line.split('\t');
    let (id, name, flags) = (f.next()?, f.next()?, f.next()?);
    Some(License {
        uuid: license_uuid(id),
        license_id: id.to_string(),
        name: name.to_string(),
        osi_approved: flags.contains('o'),
        fsf_libre: flags.contains('f'),
        deprecated: flags.contains('d'),
    })
}

/// Every catalogue license, ordered by name as upstream lists them.
pub fn catalogue() -> Vec<License> {
    let mut all: Vec<License> = CATALOGUE.lines().filter_map(parse).collect();
    all.sort_by(|a, b| a.name.cmp(&b.name).then(a.license_id.cmp(&b.license_id)));
    all
}

/// The catalogue license with this SPDX id (exactly as the list spells it).
pub fn by_id(license_id: &str) -> Option<License> {
    CATALOGUE
        .lines()
        .filter_map(parse)
        .find(|l| l.license_id == license_id)
}

/// The catalogue license with this UUID.
pub fn by_uuid(uuid: &str) -> Option<License> {
    CATALOGUE.lines().filter_map(parse).find(|l| l.uuid == uuid)
}

/// The catalogue license a component's license text names: its SPDX id (exactly, else
/// ignoring case, as SPDX ids compare), else its full name (a current id before a deprecated
/// one of the same name); `None` = unresolved.
pub fn resolve(text: &str) -> Option<License> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let all: Vec<License> = CATALOGUE.lines().filter_map(parse).collect();
    let found = all
        .iter()
        .find(|l| l.license_id == text)
        .or_else(|| all.iter().find(|l| l.license_id.eq_ignore_ascii_case(text)))
        .or_else(|| all.iter().find(|l| l.name == text && !l.deprecated))
        .or_else(|| all.iter().find(|l| l.name == text));
    found.cloned()
}

/// What policy evaluation needs to know about licenses: catalogue UUIDs → SPDX ids, the
/// catalogue by lower-cased id and by name (for [`LicenseFacts::resolve`]), and each license
/// group's members (by group UUID). Empty = no catalogue (conditions then compare text).
#[derive(Clone, Debug, Default)]
pub struct LicenseFacts {
    pub ids_by_uuid: HashMap<String, String>,
    ids_by_lower: HashMap<String, String>,
    ids_by_name: HashMap<String, String>,
    pub groups: HashMap<String, Vec<String>>,
}

impl LicenseFacts {
    /// [`resolve`] over the facts' maps: the SPDX id a component's license text names.
    pub fn resolve(&self, text: &str) -> Option<&str> {
        let text = text.trim();
        self.ids_by_lower
            .get(&text.to_lowercase())
            .or_else(|| self.ids_by_name.get(text))
            .map(String::as_str)
    }
}

/// The license facts (inside a transaction), for evaluating LICENSE and LICENSE_GROUP.
pub fn facts(c: &rusqlite::Connection) -> Result<LicenseFacts> {
    let mut f = LicenseFacts::default();
    for l in CATALOGUE.lines().filter_map(parse) {
        f.ids_by_lower
            .insert(l.license_id.to_lowercase(), l.license_id.clone());
        // Deprecated ids share their successor's name (`GPL-3.0` and `GPL-3.0-only`): a name
        // names the current id.
        if !l.deprecated || !f.ids_by_name.contains_key(&l.name) {
            f.ids_by_name.insert(l.name.clone(), l.license_id.clone());
        }
        f.ids_by_uuid.insert(l.uuid, l.license_id);
    }
    f.groups = db::groups(c, 0, MAX_GROUPS)?
        .into_iter()
        .map(|g| (g.uuid, g.licenses))
        .collect();
    Ok(f)
}

/// `GET /license`: a page of the catalogue (`search` in the id or name, ignoring case) and
/// the total.
pub fn list(search: Option<&str>, offset: i64, limit: Option<i64>) -> (Vec<License>, i64) {
    let needle = search.map(str::to_lowercase);
    let hits: Vec<License> = catalogue()
        .into_iter()
        .filter(|l| {
            needle.as_deref().is_none_or(|n| {
                l.license_id.to_lowercase().contains(n) || l.name.to_lowercase().contains(n)
            })
        })
        .collect();
    let total = hits.len() as i64;
    let start = offset.clamp(0, total) as usize;
    let take = limit.unwrap_or(total).clamp(0, total) as usize;
    (hits.into_iter().skip(start).take(take).collect(), total)
}

/// `GET /license/{licenseId}`.
pub fn license(license_id: &str) -> Result<License> {
    by_id(license_id).ok_or_else(|| Error::not_found(LICENSE_NOT_FOUND))
}

fn with_members(mut g: LicenseGroup) -> LicenseGroup {
    g.license_records = g.licenses.iter().filter_map(|id| by_id(id)).collect();
    g
}

/// `GET /licenseGroup`: a page of the groups (by name) and the total.
pub async fn groups(state: &Core, offset: i64, limit: i64) -> Result<(Vec<LicenseGroup>, i64)> {
    let (gs, total) = state
        .db
        .read(move |c| Ok((db::groups(c, offset, limit)?, db::group_count(c)?)))
        .await?;
    Ok((gs.into_iter().map(with_members).collect(), total))
}

/// `GET /licenseGroup/{uuid}`.
pub async fn group(state: &Core, uuid: &str) -> Result<LicenseGroup> {
    let uuid = uuid.to_string();
    let g = state.db.read(move |c| db::group_by_uuid(c, &uuid)).await?;
    g.map(with_members)
        .ok_or_else(|| Error::not_found(GROUP_NOT_FOUND))
}

fn conflict() -> Error {
    Error::new(ErrorKind::Conflict { code: "CONFLICT" }, GROUP_EXISTS)
}

/// `PUT /licenseGroup`: a new group with no licenses.
pub async fn create_group(state: &Core, name: String, risk_weight: i64) -> Result<LicenseGroup> {
    let g = write(state, move |tx| {
        if db::group_by_name(tx, &name)?.is_some() {
            return Err(conflict());
        }
        if db::group_count(tx)? >= MAX_GROUPS {
            return Err(Error::bad_request(format!(
                "At most {MAX_GROUPS} license groups may exist."
            )));
        }
        let uuid = uuid::Uuid::new_v4().to_string();
        db::insert_group(tx, &uuid, &name, risk_weight)?;
        db::group_by_uuid(tx, &uuid)?.ok_or_else(|| Error::internal("license group vanished"))
    })
    .await?;
    Ok(with_members(g))
}

/// `POST /licenseGroup`: renames a group or changes its risk weight.
pub async fn update_group(
    state: &Core,
    uuid: &str,
    name: String,
    risk_weight: i64,
) -> Result<LicenseGroup> {
    let uuid = uuid.to_string();
    let g = write(state, move |tx| {
        let g = db::group_by_uuid(tx, &uuid)?.ok_or_else(|| Error::not_found(GROUP_NOT_FOUND))?;
        if db::group_by_name(tx, &name)?.is_some_and(|o| o.uuid != g.uuid) {
            return Err(conflict());
        }
        db::update_group(tx, g.id, &name, risk_weight)?;
        db::group_by_uuid(tx, &uuid)?.ok_or_else(|| Error::internal("license group vanished"))
    })
    .await?;
    Ok(with_members(g))
}

/// `DELETE /licenseGroup/{uuid}`.
pub async fn delete_group(state: &Core, uuid: &str) -> Result<()> {
    let uuid = uuid.to_string();
    write(state, move |tx| {
        let g = db::group_by_uuid(tx, &uuid)?.ok_or_else(|| Error::not_found(GROUP_NOT_FOUND))?;
        db::delete_group(tx, g.id)
    })
    .await
}

/// `POST|DELETE /licenseGroup/{uuid}/license/{licenseUuid}`: adds or removes a catalogue
/// license; `Ok(None)` when there was nothing to change (upstream's 304).
pub async fn set_member(
    state: &Core,
    uuid: &str,
    license_uuid: &str,
    member: bool,
) -> Result<Option<LicenseGroup>> {
    let (uuid, license_uuid) = (uuid.to_string(), license_uuid.to_string());
    let g = write(state, move |tx| {
        let g = db::group_by_uuid(tx, &uuid)?.ok_or_else(|| Error::not_found(GROUP_NOT_FOUND))?;
        let l = by_uuid(&license_uuid).ok_or_else(|| Error::not_found(LICENSE_NOT_FOUND))?;
        let has = g.licenses.contains(&l.license_id);
        if has == member {
            return Ok(None);
        }
        if member {
            db::add_member(tx, g.id, &l.license_id)?;
        } else {
            db::remove_member(tx, g.id, &l.license_id)?;
        }
        db::group_by_uuid(tx, &uuid)
    })
    .await?;
    Ok(g.map(with_members))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_is_the_spdx_list() {
        let all = catalogue();
        assert_eq!(all.len(), 740);
        let apache = by_id("Apache-2.0").unwrap();
        assert_eq!(apache.name, "Apache License 2.0");
        assert!(apache.osi_approved && apache.fsf_libre && !apache.deprecated);
        assert!(by_id("GPL-2.0").unwrap().deprecated);
        assert_eq!(by_uuid(&apache.uuid).unwrap().license_id, "Apache-2.0");
        let mut uuids: Vec<&str> = all.iter().map(|l| l.uuid.as_str()).collect();
        uuids.sort();
        uuids.dedup();
        assert_eq!(uuids.len(), 740);
    }

    #[test]
    fn uuids_are_stable_and_shaped_as_version_4() {
        let u = license_uuid("MIT");
        assert_eq!(u, license_uuid("MIT"));
        assert_ne!(u, license_uuid("mit"));
        let parsed = uuid::Uuid::parse_str(&u).unwrap();
        assert_eq!(parsed.get_version_num(), 4);
    }

    #[test]
    fn component_licenses_resolve_by_id_then_case_then_name() {
        assert_eq!(resolve("MIT").unwrap().license_id, "MIT");
        assert_eq!(resolve("apache-2.0").unwrap().license_id, "Apache-2.0");
        assert_eq!(
            resolve("Apache License 2.0").unwrap().license_id,
            "Apache-2.0"
        );
        let gpl = "GNU General Public License v3.0 only";
        assert_eq!(resolve(gpl).unwrap().license_id, "GPL-3.0-only");
        let f = LicenseFacts {
            ids_by_name: [(gpl.to_string(), "GPL-3.0-only".to_string())].into(),
            ..LicenseFacts::default()
        };
        assert_eq!(f.resolve(gpl), Some("GPL-3.0-only"));
        assert!(resolve("Some Proprietary Terms").is_none());
        assert!(resolve("  ").is_none());
    }

    #[test]
    fn pages_of_the_catalogue() {
        let (page, total) = list(Some("apache"), 0, Some(2));
        assert_eq!(page.len(), 2);
        assert!(total >= 3);
        let (none, total) = list(Some("no such license at all"), 0, None);
        assert!(none.is_empty() && total == 0);
        let (past, _) = list(None, 10_000, Some(10));
        assert!(past.is_empty());
    }
}
