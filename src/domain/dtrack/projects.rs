//! Project rules beyond create/read/update/delete: partial updates (`PATCH`), clones, the
//! latest version of a name, children, listings by tag and classifier, and project
//! properties with upstream's type checks (ENCRYPTEDSTRING values sealed, never shown).
//!
//! Error texts are upstream's. Must not touch HTTP types or SQL.

use crate::db::dtrack_clone as clone;
use crate::db::dtrack_portfolio as db;
use crate::db::dtrack_projects as more;
use crate::domain::core::Core;
use crate::error::{Error, ErrorKind, Result};
use crate::model::dtrack::{
    CloneRequest, Principal, PrincipalKind, Project, ProjectFields, ProjectPatch, ProjectProperty,
};

use super::portfolio::{
    PROJECT_FORBIDDEN, PROJECT_NOT_FOUND, apply_update, check_latest_access, visible,
    visible_project,
};
use super::state::write;

fn conflict(msg: &'static str) -> Error {
    Error::new(ErrorKind::Conflict { code: "CONFLICT" }, msg)
}

/// The fields of a stored project, as a full update would send them back.
fn fields_of(p: &Project) -> ProjectFields {
    ProjectFields {
        name: p.name.clone(),
        version: p.version.clone(),
        group: p.group.clone(),
        description: p.description.clone(),
        publisher: p.publisher.clone(),
        classifier: p.classifier.clone(),
        cpe: p.cpe.clone(),
        purl: p.purl.clone(),
        swid_tag_id: p.swid_tag_id.clone(),
        active: p.active,
        is_latest: p.is_latest,
        tags: p.tags.clone(),
        parent_uuid: p.parent.as_ref().map(|r| r.uuid.clone()),
        access_teams: Vec::new(),
        collection_logic: p.collection_logic.clone(),
        details: p.details.clone(),
    }
}

/// `PATCH /project/{uuid}`: changes only what was sent. `None` when nothing changed
/// (upstream answers 304).
pub async fn patch_project(
    state: &Core,
    who: &Principal,
    uuid: &str,
    patch: ProjectPatch,
) -> Result<Option<Project>> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    write(state, move |tx| {
        let cur = visible(
            tx,
            acl,
            &who,
            db::project_by_uuid(tx, &uuid)?,
            "The UUID of the project could not be found.",
            PROJECT_FORBIDDEN,
        )?;
        let before = fields_of(&cur);
        let mut f = before.clone();
        let set = |slot: &mut Option<String>, v: Option<String>| {
            if v.is_some() {
                *slot = v;
            }
        };
        if let Some(n) = patch.name {
            f.name = n;
        }
        set(&mut f.version, patch.version);
        if (f.name != before.name || f.version != before.version)
            && db::project_id_by_name(tx, &f.name, f.version.as_deref())?.is_some()
        {
            return Err(conflict(
                "A project with the specified name and version already exists.",
            ));
        }
        set(&mut f.group, patch.group);
        set(&mut f.description, patch.description);
        set(&mut f.publisher, patch.publisher);
        set(&mut f.classifier, patch.classifier);
        set(&mut f.cpe, patch.cpe);
        set(&mut f.purl, patch.purl);
        set(&mut f.swid_tag_id, patch.swid_tag_id);
        if let Some(a) = patch.active {
            f.active = a;
        }
        if let Some(l) = patch.is_latest {
            f.is_latest = l;
        }
        if let Some(t) = patch.tags {
            f.tags = t;
        }
        if patch.parent_uuid.is_some() {
            f.parent_uuid = patch.parent_uuid;
        }
        if let Some(l) = patch.collection_logic {
            f.collection_logic = l;
        }
        let d = patch.details;
        if d.authors.is_some() {
            f.details.authors = d.authors;
        }
        if d.manufacturer.is_some() {
            f.details.manufacturer = d.manufacturer;
        }
        if d.supplier.is_some() {
            f.details.supplier = d.supplier;
        }
        if d.external_references.is_some() {
            f.details.external_references = d.external_references;
        }
        if d.collection_tag.is_some() {
            f.details.collection_tag = d.collection_tag;
        }
        if f.collection_logic != "AGGREGATE_DIRECT_CHILDREN_WITH_TAG" {
            f.details.collection_tag = None;
        }
        f.tags.sort();
        f.tags.dedup();
        if f == before {
            return Ok(None);
        }
        apply_update(tx, acl, &who, &cur, f).map(Some)
    })
    .await
}

/// `PUT /project/clone`: copies the project, done by the time the token is answered (the
/// token then reports "not processing"). Returns the clone.
pub async fn clone_project(state: &Core, who: &Principal, req: CloneRequest) -> Result<Project> {
    let acl = state.config.dtrack.acl_enabled;
    let who = who.clone();
    write(state, move |tx| {
        let source = visible(
            tx,
            acl,
            &who,
            db::project_by_uuid(tx, &req.project)?,
            "The UUID of the project could not be found.",
            PROJECT_FORBIDDEN,
        )?;
        let version = Some(req.version.trim().to_string()).filter(|v| !v.is_empty());
        if db::project_id_by_name(tx, &source.name, version.as_deref())?.is_some() {
            return Err(conflict(
                "A project with the specified name and version already exists.",
            ));
        }
        if req.make_clone_latest && !source.is_latest {
            check_latest_access(tx, acl, &who, &source.name)?;
        }
        let uuid = uuid::Uuid::new_v4().to_string();
        let parts = clone::CloneParts {
            tags: req.include_tags,
            properties: req.include_properties,
            components: req.include_components,
            findings_audit: req.include_audit_history,
            acl: req.include_acl,
            violations: req.include_policy_violations,
        };
        let id = clone::clone_project(
            tx,
            source.id,
            &uuid,
            version.as_deref(),
            req.make_clone_latest,
            parts,
        )?;
        if req.make_clone_latest {
            db::clear_latest(tx, &source.name, id)?;
        }
        if acl
            && matches!(who.kind, PrincipalKind::ApiKey { .. })
            && let Some((t, _)) = who.teams.first()
        {
            db::add_access_team(tx, id, *t)?;
        }
        if req.include_components {
            super::policies::evaluate_project(tx, id)?;
        }
        db::project_by_id(tx, id)?.ok_or_else(|| Error::internal("clone vanished"))
    })
    .await
}

/// `GET /project/latest/{name}`: the version flagged latest; 404, or 403 under the ACL.
pub async fn latest(state: &Core, who: &Principal, name: &str) -> Result<Project> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, name) = (who.clone(), name.to_string());
    state
        .db
        .read(move |c| {
            let id = visible(
                c,
                acl,
                &who,
                more::latest_version(c, &name)?,
                PROJECT_NOT_FOUND,
                PROJECT_FORBIDDEN,
            )?;
            let mut p =
                db::project_by_id(c, id)?.ok_or_else(|| Error::not_found(PROJECT_NOT_FOUND))?;
            p.metrics = crate::db::dtrack_metrics::latest_metrics(c, p.id)?;
            Ok(p)
        })
        .await
}

/// The project a children listing is for: 404 with the UUID text, 403 under the ACL.
pub async fn parent_for_children(
    state: &Core,
    who: &Principal,
    uuid: &str,
) -> Result<crate::ids::ProjectId> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    state
        .db
        .read(move |c| {
            visible(
                c,
                acl,
                &who,
                db::project_id_by_uuid(c, &uuid)?,
                "The UUID of the project could not be found.",
                PROJECT_FORBIDDEN,
            )
        })
        .await
}

/// The property types upstream knows.
pub const PROPERTY_TYPES: &[&str] = &[
    "BOOLEAN",
    "INTEGER",
    "NUMBER",
    "STRING",
    "ENCRYPTEDSTRING",
    "TIMESTAMP",
    "URL",
    "UUID",
];

/// Most properties one project may hold.
pub const MAX_PROPERTIES: i64 = 1000;

/// The value stored for a property of type `kind`, checked as upstream checks it:
/// booleans normalized, integers and numbers parsed, URLs and UUIDs validated,
/// ENCRYPTEDSTRING values sealed with the installation's key. `Ok(None)` for an
/// ENCRYPTEDSTRING update that sends back the placeholder (nothing to change).
fn stored_value(
    key: &[u8],
    kind: &str,
    value: Option<&str>,
    placeholder: &str,
) -> Result<Option<Option<String>>> {
    let bad = |m: &str| Err(Error::bad_request(m.to_string()));
    let Some(v) = value else {
        return Ok(Some(match kind {
            "BOOLEAN" => Some("false".into()),
            _ => None,
        }));
    };
    Ok(Some(Some(match kind {
        "BOOLEAN" => v.trim().eq_ignore_ascii_case("true").to_string(),
        "INTEGER" => match v.trim().parse::<i32>() {
            Ok(n) => n.to_string(),
            Err(_) => return bad("The property expected an integer and an integer was not sent."),
        },
        "NUMBER" => {
            let t = v.trim();
            let numeric = t.parse::<f64>().is_ok_and(f64::is_finite)
                && t.bytes()
                    .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
            if !numeric {
                return bad("The property expected a number and a number was not sent.");
            }
            v.to_string()
        }
        "URL" => {
            let scheme_ok = v.split_once("://").is_some_and(|(s, rest)| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                    && !rest.is_empty()
            }) && !v.chars().any(char::is_whitespace);
            if !scheme_ok {
                return bad("The property expected a URL but the URL was malformed.");
            }
            v.to_string()
        }
        "UUID" => {
            if uuid::Uuid::parse_str(v).is_err() || v.len() != 36 {
                return bad("The property expected a UUID but a valid UUID was not sent.");
            }
            v.to_string()
        }
        "ENCRYPTEDSTRING" => {
            if v == placeholder {
                return Ok(None);
            }
            super::sealed::seal(key, v)
        }
        _ => v.to_string(),
    })))
}

/// Rewrites property values sealed in the old `sealed:v1:` form in the current one, in one
/// write, at start. A value that does not open under this installation's key is left as it
/// is (and logged once by count); returns how many were rewritten.
pub async fn reseal_legacy_properties(state: &Core) -> Result<usize> {
    let key = state.dtrack.secret_key().to_vec();
    let (done, unreadable) = write(state, move |tx| {
        let (mut done, mut unreadable) = (0, 0);
        for (project, group, name, value) in
            more::sealed_properties_with_prefix(tx, super::sealed::LEGACY_PREFIX)?
        {
            match super::sealed::reseal(&key, &value) {
                Some(new) => {
                    more::set_property_value(tx, project, &group, &name, Some(&new))?;
                    done += 1;
                }
                None => unreadable += 1,
            }
        }
        Ok((done, unreadable))
    })
    .await?;
    if done > 0 {
        tracing::info!(
            count = done,
            "re-sealed encrypted property values in the current form"
        );
    }
    if unreadable > 0 {
        tracing::warn!(
            count = unreadable,
            "encrypted property values that do not open under keys/secret.key were left as they are"
        );
    }
    Ok(done)
}

/// `GET /project/{uuid}/property`.
pub async fn properties(state: &Core, who: &Principal, uuid: &str) -> Result<Vec<ProjectProperty>> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    state
        .db
        .read(move |c| {
            let id = visible_project(c, acl, &who, &uuid)?;
            more::properties(c, id)
        })
        .await
}

/// `PUT /project/{uuid}/property`: 409 when the group and name exist.
pub async fn create_property(
    state: &Core,
    who: &Principal,
    uuid: &str,
    mut p: ProjectProperty,
) -> Result<ProjectProperty> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    // On creation there is no earlier value a placeholder could stand for: it is sealed as sent.
    p.value = stored_value(state.dtrack.secret_key(), &p.kind, p.value.as_deref(), "")?.flatten();
    write(state, move |tx| {
        let id = visible_project(tx, acl, &who, &uuid)?;
        if more::property(tx, id, &p.group, &p.name)?.is_some() {
            return Err(conflict(
                "A property with the specified project/group/name combination already exists.",
            ));
        }
        if more::property_count(tx, id)? >= MAX_PROPERTIES {
            return Err(Error::bad_request(format!(
                "A project can hold at most {MAX_PROPERTIES} properties."
            )));
        }
        more::insert_property(tx, id, &p)?;
        more::property(tx, id, &p.group, &p.name)?
            .ok_or_else(|| Error::internal("property vanished"))
    })
    .await
}

/// `POST /project/{uuid}/property`: sets the value of an existing property (its type is the
/// stored one); 304 when an ENCRYPTEDSTRING's placeholder is sent back.
pub async fn update_property(
    state: &Core,
    who: &Principal,
    uuid: &str,
    p: ProjectProperty,
    placeholder: &'static str,
) -> Result<ProjectProperty> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    let key = state.dtrack.secret_key().to_vec();
    write(state, move |tx| {
        let id = visible_project(tx, acl, &who, &uuid)?;
        let cur = more::property(tx, id, &p.group, &p.name)?.ok_or_else(|| {
            Error::not_found(
                "A property with the specified project/group/name combination could not be found.",
            )
        })?;
        let Some(value) = stored_value(&key, &cur.kind, p.value.as_deref(), placeholder)? else {
            return Err(Error::new(ErrorKind::NotModified, ""));
        };
        more::set_property_value(tx, id, &p.group, &p.name, value.as_deref())?;
        more::property(tx, id, &p.group, &p.name)?
            .ok_or_else(|| Error::internal("property vanished"))
    })
    .await
}

/// `DELETE /project/{uuid}/property`.
pub async fn delete_property(
    state: &Core,
    who: &Principal,
    uuid: &str,
    group: &str,
    name: &str,
) -> Result<()> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid, group, name) = (
        who.clone(),
        uuid.to_string(),
        group.to_string(),
        name.to_string(),
    );
    write(state, move |tx| {
        let id = visible_project(tx, acl, &who, &uuid)?;
        if more::property(tx, id, &group, &name)?.is_none() {
            return Err(Error::not_found("The project property could not be found."));
        }
        more::delete_property(tx, id, &group, &name)
    })
    .await
}
