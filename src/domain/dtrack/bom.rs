//! BOM uploads: acceptance (the document is stored before a token is returned), the
//! background worker that imports pending uploads oldest first (also those accepted before a
//! restart), and the import itself.
//!
//! An import reconciles the project's components with the BOM's (components with the same
//! group, name, version and purl keep their identity, analyses and violations; others are
//! added or removed), evaluates policies and records metrics, all in one write. Must not touch
//! HTTP types or SQL.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt as _;

use crate::db::dtrack_bom as db;
use crate::db::dtrack_portfolio as pdb;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::ids::ProjectId;

use super::cyclonedx::{self, InvalidBom};
use super::portfolio::{PROJECT_FORBIDDEN, PROJECT_NOT_FOUND, visible};
use super::state::write;
use crate::model::dtrack::permissions::Permission;
use crate::model::dtrack::{Principal, ProjectFields};

/// Where an upload goes.
#[derive(Clone, Debug)]
pub enum Target {
    Uuid(String),
    Name {
        name: String,
        version: Option<String>,
        auto_create: bool,
        parent_uuid: Option<String>,
        parent_name: Option<(String, Option<String>)>,
        is_latest: bool,
    },
}

/// Why an upload was refused before a token was issued.
#[derive(Debug)]
pub enum Refusal {
    Error(Error),
    Invalid(InvalidBom),
}

impl From<Error> for Refusal {
    fn from(e: Error) -> Refusal {
        Refusal::Error(e)
    }
}

/// Validates and stores an upload; returns its token. The worker imports it later.
///
/// The caller's access to the target is checked before the document is parsed, so a refused
/// caller costs no parsing; parsing runs on the document thread (`Db::documents`).
pub async fn accept(
    state: &Core,
    who: &Principal,
    target: Target,
    tags: Vec<String>,
    content: Vec<u8>,
) -> Result<String, Refusal> {
    let acl = state.config.dtrack.acl_enabled;
    let may_create = who.permissions.contains(Permission::PortfolioManagement)
        || who.permissions.contains(Permission::ProjectCreationUpload);
    let who = who.clone();
    {
        let (who, target, tags) = (who.clone(), target.clone(), tags.clone());
        state
            .db
            .read(move |c| place(c, acl, &who, may_create, &target, &tags, false))
            .await?;
    }
    let bytes = content;
    let (bytes, checked) = state
        .db
        .documents(move || {
            let r = cyclonedx::parse(&bytes).map(|_| ());
            (bytes, r)
        })
        .await?;
    let token = uuid::Uuid::new_v4().to_string();
    let tok = token.clone();
    let refused = checked.as_ref().err().cloned();
    // Resolved again in the write (the project may have changed since the check); a refused
    // document rolls everything back, including a project it would have created.
    let outcome = write(state, move |tx| {
        let project = place(tx, acl, &who, may_create, &target, &tags, true)?
            .ok_or_else(|| Error::internal("an upload's project was not created"))?;
        if checked.is_err() {
            return Err(Error::bad_request("invalid BOM").with_detail(INVALID_MARK));
        }
        pdb::add_tags(tx, project, &tags)?;
        db::insert_upload(tx, &tok, project, &bytes, crate::time::now_millis())
    })
    .await;
    match (outcome, refused) {
        (Ok(()), _) => {
            state.dtrack.bom_ready.notify_one();
            Ok(token)
        }
        (Err(e), Some(invalid)) if e.detail.as_deref() == Some(INVALID_MARK) => {
            Err(Refusal::Invalid(invalid))
        }
        (Err(e), _) => Err(Refusal::Error(e)),
    }
}

/// Resolves where an upload goes and checks the caller may put it there, as upstream orders
/// it (401, 404, 403, collection projects). With `create` false nothing is written, and a
/// project the upload would create answers `None`; with it true the project is made.
fn place(
    tx: &rusqlite::Connection,
    acl: bool,
    who: &Principal,
    may_create: bool,
    target: &Target,
    tags: &[String],
    create: bool,
) -> Result<Option<ProjectId>> {
    let project = match &target {
        Target::Uuid(u) => pdb::project_id_by_uuid(tx, u)?,
        Target::Name {
            name,
            version,
            auto_create,
            parent_uuid,
            parent_name,
            is_latest,
        } => match pdb::project_id_by_name(tx, name, version.as_deref())? {
            Some(id) => Some(id),
            None if *auto_create => {
                if !may_create {
                    return Err(Error::unauthorized(
                        "The principal does not have permission to create project.",
                    ));
                }
                let parent = match (parent_uuid, parent_name) {
                    (Some(u), _) => Some(pdb::project_id_by_uuid(tx, u)?),
                    (None, Some((n, v))) => Some(pdb::project_id_by_name(tx, n, v.as_deref())?),
                    (None, None) => None,
                };
                let parent = parent
                    .map(|p| {
                        visible(
                            tx,
                            acl,
                            who,
                            p,
                            "The parent component could not be found.",
                            "Access to the specified parent project is forbidden",
                        )
                    })
                    .transpose()?;
                if !create {
                    return Ok(None);
                }
                let f = ProjectFields {
                    name: name.clone(),
                    version: version.clone(),
                    classifier: Some("APPLICATION".into()),
                    active: true,
                    is_latest: *is_latest,
                    tags: tags.to_vec(),
                    ..ProjectFields::default()
                };
                let id = pdb::insert_project(tx, &uuid::Uuid::new_v4().to_string(), &f, parent)?;
                if *is_latest {
                    pdb::clear_latest(tx, name, id)?;
                }
                if acl
                    && matches!(who.kind, crate::model::dtrack::PrincipalKind::ApiKey { .. })
                    && let Some((t, _)) = who.teams.first()
                {
                    pdb::add_access_team(tx, id, *t)?;
                }
                Some(id)
            }
            None => None,
        },
    };
    let project = visible(tx, acl, who, project, PROJECT_NOT_FOUND, PROJECT_FORBIDDEN)?;
    let p = pdb::project_by_id(tx, project)?.ok_or_else(|| Error::not_found(PROJECT_NOT_FOUND))?;
    if p.collection_logic != "NONE" {
        return Err(Error::bad_request(
            "BOM cannot be uploaded to collection project.",
        ));
    }
    Ok(Some(project))
}

/// Marks the internal error that rolls back an upload whose document was refused.
const INVALID_MARK: &str = "bom-document-refused";

/// `GET /event/token/{uuid}`: whether the upload (or queued project analysis) is still being
/// processed.
pub async fn is_processing(state: &Core, token: &str) -> Result<bool> {
    let t = token.to_string();
    if state.db.read(move |c| db::is_pending(c, &t)).await? {
        return Ok(true);
    }
    super::osv::matching::is_pending(state, token).await
}

/// Imports one parsed BOM into a project (inside the caller's write).
fn import(tx: &rusqlite::Connection, project: ProjectId, bom: &cyclonedx::Bom) -> Result<()> {
    let mut existing: HashMap<String, crate::ids::ComponentId> = db::component_keys(tx, project)?
        .into_iter()
        .map(|(id, k)| (k, id))
        .collect();
    let mut seen = std::collections::HashSet::new();
    for comp in &bom.components {
        let key = db::key_of(comp);
        if !seen.insert(key.clone()) {
            continue;
        }
        let id = match existing.remove(&key) {
            Some(id) => {
                pdb::update_component(tx, id, comp)?;
                id
            }
            None => {
                let mut c = comp.clone();
                c.uuid = uuid::Uuid::new_v4().to_string();
                pdb::insert_component(tx, project, &c)?
            }
        };
        crate::db::dtrack_osv::set_component_source(tx, id, comp.source_package.as_ref())?;
    }
    for (_, id) in existing {
        pdb::delete_component(tx, id)?;
    }
    pdb::set_last_bom_import(
        tx,
        project,
        crate::time::now_millis(),
        &format!("CycloneDX {}", bom.spec_version),
    )?;
    super::osv::matching::match_project(tx, project, &mut Default::default())?;
    super::policies::evaluate_project(tx, project)
}

/// Parses and imports one stored upload, recording a refused document as the upload's error.
async fn import_upload(
    state: &Core,
    token: String,
    project: ProjectId,
    content: Vec<u8>,
) -> Result<()> {
    let parsed = state
        .db
        .documents(move || cyclonedx::parse(&content))
        .await?;
    write(state, move |tx| {
        let now = crate::time::now_millis();
        match &parsed {
            Ok(bom) => {
                import(tx, project, bom)?;
                db::finish_upload(tx, &token, now, None)
            }
            Err(e) => db::finish_upload(tx, &token, now, Some(&e.detail)),
        }
    })
    .await
}

/// Processes the oldest pending upload; false when there was none. Whatever happens to the
/// import (an error, or a panic in parsing or writing), the upload is marked processed with
/// its failure, logged once, so one bad upload never blocks the queue or stops the worker.
pub async fn process_next(state: &Core) -> Result<bool> {
    let Some((token, project, content)) = state.db.read(db::next_pending).await? else {
        return Ok(false);
    };
    let outcome = AssertUnwindSafe(import_upload(state, token.clone(), project, content))
        .catch_unwind()
        .await;
    let failure = match outcome {
        Ok(Ok(())) => return Ok(true),
        Ok(Err(e)) => {
            tracing::error!(error = %e, "BOM import failed");
            e.to_string()
        }
        Err(_) => {
            // The panic itself was reported once by the panic hook.
            tracing::warn!("a BOM import panicked; the upload is marked failed");
            "internal error during import".to_string()
        }
    };
    write(state, move |tx| {
        db::finish_upload(tx, &token, crate::time::now_millis(), Some(&failure))
    })
    .await?;
    Ok(true)
}

/// The background worker: imports pending uploads, then runs queued project analyses, until
/// `stop` resolves.
pub async fn worker(state: std::sync::Arc<Core>, mut stop: tokio::sync::watch::Receiver<bool>) {
    loop {
        if *stop.borrow() {
            return;
        }
        let next = match process_next(&state).await {
            Ok(false) => super::osv::matching::process_next(&state).await,
            other => other,
        };
        match next {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => {
                tracing::error!(error = %e, "BOM queue unavailable; retrying later");
                tokio::time::sleep(std::time::Duration::from_secs(5)).await;
            }
        }
        tokio::select! {
            _ = state.dtrack.bom_ready.notified() => {}
            _ = stop.changed() => {}
            _ = tokio::time::sleep(std::time::Duration::from_secs(30)) => {}
        }
    }
}
