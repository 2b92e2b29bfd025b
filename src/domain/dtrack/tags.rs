//! Tags as upstream's tag resource manages them: names of their own (trimmed, lower-cased)
//! that projects carry, collection projects aggregate by, and policies are scoped to.
//!
//! Who may do what follows upstream: listings are filtered by the portfolio ACL; a tag is
//! deleted only when the caller may change everything carrying it; tagging projects skips the
//! projects the caller cannot see. Changes that move a policy's reach re-evaluate the projects
//! concerned in the same write. Error texts are upstream's. Must not touch HTTP types or SQL.

use crate::db::dtrack_portfolio as pdb;
use crate::db::dtrack_tags as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::model::dtrack::Principal;
use crate::model::dtrack::permissions::Permission;

use super::policies::{evaluate_all, evaluate_project};
use super::portfolio::{has_access, visibility};
use super::state::write;

pub use crate::db::dtrack_tags::{Listing, TagRow, TaggedProject};

fn missing(name: &str) -> Error {
    Error::not_found(format!("A tag with name {name} does not exist"))
}

/// `GET /tag`: a page of tags with their counts, and the total.
pub async fn list(state: &Core, who: &Principal, l: Listing) -> Result<(Vec<TagRow>, i64)> {
    let teams = visibility(state.config.dtrack.acl_enabled, who);
    state
        .db
        .read(move |c| db::list(c, &l, teams.as_deref()))
        .await
}

/// `PUT /tag`: creates the tags that do not exist yet.
pub async fn create(state: &Core, names: Vec<String>) -> Result<()> {
    write(state, move |tx| db::ensure(tx, &names)).await
}

/// Why tags could not be deleted: `(tag, reason)` pairs, by tag.
pub type Refusals = Vec<(String, String)>;

/// `DELETE /tag`: deletes every named tag, or none of them (the refusals say why).
pub async fn delete(state: &Core, who: &Principal, names: Vec<String>) -> Result<Refusals> {
    let acl = state.config.dtrack.acl_enabled;
    let teams = visibility(acl, who);
    let portfolio = who.permissions.contains(Permission::PortfolioManagement);
    let policy = who.permissions.contains(Permission::PolicyManagement);
    write(state, move |tx| {
        let rows = db::deletion_rows(tx, &names, teams.as_deref())?;
        let mut refused: Refusals = names
            .iter()
            .filter(|n| !rows.iter().any(|r| &r.name == *n))
            .map(|n| (n.clone(), "Tag does not exist".to_string()))
            .collect();
        if refused.is_empty() {
            for r in &rows {
                let why = if r.projects > 0 && !portfolio {
                    Some(format!(
                        "The tag is assigned to {} project(s), but the authenticated principal is missing the PORTFOLIO_MANAGEMENT permission.",
                        r.projects
                    ))
                } else if r.projects > r.accessible_projects {
                    Some(format!(
                        "The tag is assigned to {} project(s) that are not accessible by the authenticated principal.",
                        r.projects - r.accessible_projects
                    ))
                } else if r.collection_projects > 0 && !portfolio {
                    Some(format!(
                        "The tag is used by {} collection project(s), but the authenticated principal is missing the PORTFOLIO_MANAGEMENT permission.",
                        r.collection_projects
                    ))
                } else if r.collection_projects > r.accessible_collection_projects {
                    Some(format!(
                        "The tag is used by {} collection project(s) that are not accessible by the authenticated principal.",
                        r.collection_projects - r.accessible_collection_projects
                    ))
                } else if r.policies > 0 && !policy {
                    Some(format!(
                        "The tag is assigned to {} policies, but the authenticated principal is missing the POLICY_MANAGEMENT permission.",
                        r.policies
                    ))
                } else {
                    None
                };
                if let Some(why) = why {
                    refused.push((r.name.clone(), why));
                }
            }
        }
        if !refused.is_empty() {
            refused.sort();
            return Ok(refused);
        }
        // A policy loses the tag: it reaches fewer projects, or every one once it has no
        // scope left.
        let reach_changed = rows.iter().any(|r| r.policies > 0);
        db::delete(tx, &names)?;
        if reach_changed {
            evaluate_all(tx)?;
        }
        Ok(Vec::new())
    })
    .await
}

/// `GET /tag/{name}/project` (or `/collectionProject`): the visible projects carrying the
/// tag (or aggregating by it).
pub async fn projects(
    state: &Core,
    who: &Principal,
    name: String,
    collection: bool,
    l: Listing,
) -> Result<(Vec<TaggedProject>, i64)> {
    let teams = visibility(state.config.dtrack.acl_enabled, who);
    state
        .db
        .read(move |c| db::tagged_projects(c, &name, collection, &l, teams.as_deref()))
        .await
}

/// `GET /tag/{name}/policy`: the policies scoped to the tag, `(uuid, name)`.
pub async fn policies(
    state: &Core,
    name: String,
    l: Listing,
) -> Result<(Vec<(String, String)>, i64)> {
    state
        .db
        .read(move |c| db::tagged_policies(c, &name, &l))
        .await
}

/// `POST`/`DELETE /tag/{name}/project`: puts the tag on (or takes it off) the named projects
/// the caller can see; unknown and invisible projects are skipped, as upstream does. 404
/// when the tag does not exist.
pub async fn tag_projects(
    state: &Core,
    who: &Principal,
    name: String,
    uuids: Vec<String>,
    add: bool,
) -> Result<()> {
    let acl = state.config.dtrack.acl_enabled;
    let who = who.clone();
    write(state, move |tx| {
        if !db::exists(tx, &name)? {
            return Err(missing(&name));
        }
        for u in &uuids {
            let Some(id) = pdb::project_id_by_uuid(tx, u)? else {
                continue;
            };
            if !has_access(tx, acl, &who, id)? {
                continue;
            }
            let changed = if add {
                db::tag_project(tx, &name, id)?
            } else {
                db::untag_project(tx, &name, id)?
            };
            if changed {
                evaluate_project(tx, id)?;
            }
        }
        Ok(())
    })
    .await
}

/// `POST`/`DELETE /tag/{name}/policy`: scopes the named policies to the tag (or stops);
/// unknown policies are skipped. 404 when the tag does not exist.
pub async fn tag_policies(state: &Core, name: String, uuids: Vec<String>, add: bool) -> Result<()> {
    write(state, move |tx| {
        if !db::exists(tx, &name)? {
            return Err(missing(&name));
        }
        let mut changed = false;
        for u in &uuids {
            let Some(p) = crate::db::dtrack_policies::policy_by_uuid(tx, u)? else {
                continue;
            };
            changed |= if add {
                db::tag_policy(tx, p.id, &name)?
            } else {
                db::untag_policy(tx, p.id, &name)?
            };
        }
        if changed {
            evaluate_all(tx)?;
        }
        Ok(())
    })
    .await
}

/// `GET /tag/policy/{uuid}`: a policy's tags. 404 `The policy could not be found.` (where
/// upstream fails with a 500).
pub async fn of_policy(state: &Core, uuid: String) -> Result<Vec<String>> {
    state
        .db
        .read(move |c| {
            let p = crate::db::dtrack_policies::policy_by_uuid(c, &uuid)?
                .ok_or_else(|| Error::not_found(super::policies::POLICY_NOT_FOUND))?;
            db::policy_tags(c, p.id)
        })
        .await
}
