//! Component searches across the portfolio (`/component/hash/{hash}`,
//! `/component/identity`): what may be searched for, and that only the projects a caller may
//! see are searched (under the ACL, those mapped to its teams). Must not touch HTTP types or
//! SQL.

use crate::db::dtrack_search::{self as db, ComponentSearch};
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::model::dtrack::{Component, Principal};

use super::portfolio::{visibility, visible_project};

/// The longest hash or identity part a search takes (a SHA-512 in hex is 128).
pub const MAX_TERM: usize = 1024;

/// What `/component/identity` may name; at least one of them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Identity {
    pub group: Option<String>,
    pub name: Option<String>,
    pub version: Option<String>,
    pub purl: Option<String>,
    pub cpe: Option<String>,
    pub swid_tag_id: Option<String>,
    /// A project's UUID: only its components.
    pub project: Option<String>,
}

fn check_term(v: &Option<String>) -> Result<()> {
    match v {
        Some(v) if v.len() > MAX_TERM => Err(Error::bad_request(format!(
            "A search term may be at most {MAX_TERM} bytes long."
        ))),
        _ => Ok(()),
    }
}

/// `GET /component/hash/{hash}`: components with this MD5, SHA-1, SHA-256 or SHA-512.
pub async fn by_hash(
    state: &Core,
    who: &Principal,
    hash: &str,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<Component>, i64)> {
    let hash = Some(hash.trim().to_string());
    check_term(&hash)?;
    let s = ComponentSearch {
        hash,
        teams: visibility(state.config.dtrack.acl_enabled, who),
        ..ComponentSearch::default()
    };
    state
        .db
        .read(move |c| db::components(c, &s, offset, limit))
        .await
}

/// `GET /component/identity`: components whose coordinates (each part given equal), purl,
/// CPE or SWID tag id equal those asked for.
pub async fn by_identity(
    state: &Core,
    who: &Principal,
    id: Identity,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<Component>, i64)> {
    for v in [
        &id.group,
        &id.name,
        &id.version,
        &id.purl,
        &id.cpe,
        &id.swid_tag_id,
    ] {
        check_term(v)?;
    }
    if [
        &id.group,
        &id.name,
        &id.version,
        &id.purl,
        &id.cpe,
        &id.swid_tag_id,
    ]
    .iter()
    .all(|v| v.is_none())
    {
        return Err(Error::bad_request(
            "Either group, name, version, purl, cpe or swidTagId must be specified.",
        ));
    }
    let acl = state.config.dtrack.acl_enabled;
    let who = who.clone();
    let teams = visibility(acl, &who);
    state
        .db
        .read(move |c| {
            let project = match &id.project {
                Some(uuid) => Some(visible_project(c, acl, &who, uuid)?),
                None => None,
            };
            let s = ComponentSearch {
                group: id.group,
                name: id.name,
                version: id.version,
                purl: id.purl,
                cpe: id.cpe,
                swid_tag_id: id.swid_tag_id,
                project,
                teams,
                ..ComponentSearch::default()
            };
            db::components(c, &s, offset, limit)
        })
        .await
}
