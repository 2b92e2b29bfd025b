//! Exchange with other CycloneDX tools: what a project's BOM and VEX exports contain, and the
//! import of a VEX, which applies its analyses to the project's existing findings with the
//! audit trail (commenter `CycloneDX VEX`), as upstream's importer.
//!
//! Error texts are upstream's. Must not touch HTTP types or SQL.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::db::dtrack_findings as fdb;
use crate::db::dtrack_portfolio as db;
use crate::db::dtrack_projects as more;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::ids::ComponentId;
use crate::model::dtrack::{Analysis, Component, Principal, Project, Vulnerability};

use super::bom::Refusal;
use super::findings::{AnalysisChange, analysis_of, audit_comments, store_analysis};
use super::portfolio::{PROJECT_FORBIDDEN, PROJECT_NOT_FOUND, visible};
use super::state::write;
use super::vex;

/// Most components an export writes: larger projects are refused rather than rendered.
pub const MAX_EXPORT_COMPONENTS: i64 = 100_000;

/// One finding of an export: the affected component's uuid, the vulnerability and its
/// analysis, if any.
#[derive(Clone, Debug)]
pub struct ExportFinding {
    pub component_uuid: String,
    pub vulnerability: Vulnerability,
    pub analysis: Option<Analysis>,
}

/// What an export writes.
#[derive(Clone, Debug)]
pub struct Export {
    pub project: Project,
    pub components: Vec<Component>,
    /// Empty for the plain inventory.
    pub findings: Vec<ExportFinding>,
}

/// The contents of `GET /bom/cyclonedx/project/{uuid}` and `GET /vex/cyclonedx/project/{uuid}`:
/// 404 `The project could not be found.`, 403 under the ACL.
pub async fn export(
    state: &Core,
    who: &Principal,
    uuid: &str,
    with_findings: bool,
) -> Result<Export> {
    let acl = state.config.dtrack.acl_enabled;
    let (who, uuid) = (who.clone(), uuid.to_string());
    state
        .db
        .read(move |c| {
            let project = visible(
                c,
                acl,
                &who,
                db::project_by_uuid(c, &uuid)?,
                PROJECT_NOT_FOUND,
                PROJECT_FORBIDDEN,
            )?;
            let (components, total) = db::components(c, project.id, 0, Some(MAX_EXPORT_COMPONENTS))?;
            if total > MAX_EXPORT_COMPONENTS {
                return Err(Error::bad_request(format!(
                    "The project has more than {MAX_EXPORT_COMPONENTS} components, more than one export may hold."
                )));
            }
            let mut findings = Vec::new();
            if with_findings {
                for f in fdb::findings(c, project.id, true)? {
                    let analysis = match fdb::analysis_id(
                        c,
                        f.component.component_id(),
                        f.vulnerability.vulnerability_id(),
                    )? {
                        Some(id) => fdb::analysis(c, id)?,
                        None => None,
                    };
                    findings.push(ExportFinding {
                        component_uuid: f.component.uuid.clone(),
                        vulnerability: f.vulnerability,
                        analysis,
                    });
                }
            }
            Ok(Export {
                project,
                components,
                findings,
            })
        })
        .await
}

/// Which project a VEX is for.
pub enum VexTarget {
    Uuid(String),
    Name(String, Option<String>),
}

/// The commenter of the audit trail a VEX import writes.
pub const VEX_COMMENTER: &str = "CycloneDX VEX";

/// `PUT|POST /vex`: checks the document and applies its analyses to the project's findings in
/// one write. Statements about vulnerabilities or components the project does not have are
/// skipped, as upstream skips them. The caller's access to the project is checked before the
/// document is parsed (on the document thread, `Db::documents`), and again in the write.
pub async fn import_vex(
    state: &Core,
    who: &Principal,
    target: VexTarget,
    bytes: Vec<u8>,
) -> std::result::Result<(), Refusal> {
    let acl = state.config.dtrack.acl_enabled;
    let who = who.clone();
    let target = Arc::new(target);
    {
        let (who, target) = (who.clone(), Arc::clone(&target));
        state
            .db
            .read(move |c| vex_project(c, acl, &who, &target).map(|_| ()))
            .await
            .map_err(Refusal::Error)?;
    }
    let doc = state
        .db
        .documents(move || vex::parse(&bytes))
        .await
        .map_err(Refusal::Error)?
        .map_err(Refusal::Invalid)?;
    write(state, move |tx| {
        let project = vex_project(tx, acl, &who, &target)?;
        apply(tx, &project, &doc)
    })
    .await
    .map_err(Refusal::Error)
}

/// The project a VEX is for, if the caller may see it and it is not a collection.
fn vex_project(
    c: &rusqlite::Connection,
    acl: bool,
    who: &Principal,
    target: &VexTarget,
) -> Result<Project> {
    let found = match target {
        VexTarget::Uuid(u) => db::project_by_uuid(c, u)?,
        VexTarget::Name(n, v) => match db::project_id_by_name(c, n, v.as_deref())? {
            Some(id) => db::project_by_id(c, id)?,
            None => None,
        },
    };
    let project = visible(c, acl, who, found, PROJECT_NOT_FOUND, PROJECT_FORBIDDEN)?;
    if project.collection_logic != "NONE" {
        return Err(Error::bad_request(
            "VEX cannot be uploaded to collection project.",
        ));
    }
    Ok(project)
}

/// A component's group, name and version.
type Coordinates<'a> = (Option<&'a str>, &'a str, Option<&'a str>);

/// Applies every applicable statement of a VEX to a project's findings.
fn apply(tx: &rusqlite::Connection, project: &Project, doc: &vex::Vex) -> Result<()> {
    let by_ref: HashMap<&str, &Component> = doc
        .components
        .iter()
        .map(|(r, c)| (r.as_str(), c))
        .collect();
    let now = crate::time::now_millis();
    let mut changed = false;
    for s in &doc.statements {
        let Some(vuln) = more::vulnerability_id_by_source(tx, &s.source, &s.vuln_id)? else {
            continue;
        };
        let affected = more::affected_components(tx, project.id, vuln)?;
        // Index the affected components once, so each `affects` entry is one look-up.
        let mut by_uuid = HashMap::new();
        let mut by_purl: HashMap<&str, Vec<ComponentId>> = HashMap::new();
        let mut by_coords: HashMap<Coordinates<'_>, Vec<ComponentId>> = HashMap::new();
        for (id, uuid, grp, name, version, purl) in &affected {
            by_uuid.insert(uuid.as_str(), *id);
            if let Some(p) = purl {
                by_purl.entry(p.as_str()).or_default().push(*id);
            }
            by_coords
                .entry((grp.as_deref(), name.as_str(), version.as_deref()))
                .or_default()
                .push(*id);
        }
        let mut targets: Vec<ComponentId> = Vec::new();
        let mut seen = HashSet::new();
        for r in &s.affects {
            let hits: Vec<ComponentId> =
                if doc.project_ref.as_deref() == Some(r.as_str()) || *r == project.uuid {
                    affected.iter().map(|a| a.0).collect()
                } else if let Some(id) = by_uuid.get(r.as_str()) {
                    vec![*id]
                } else if let Some(c) = by_ref.get(r.as_str()) {
                    match &c.purl {
                        Some(p) => by_purl.get(p.as_str()).cloned().unwrap_or_default(),
                        None => by_coords
                            .get(&(c.group.as_deref(), c.name.as_str(), c.version.as_deref()))
                            .cloned()
                            .unwrap_or_default(),
                    }
                } else {
                    Vec::new()
                };
            for id in hits {
                if seen.insert(id) {
                    targets.push(id);
                }
            }
        }
        for comp in targets {
            let (id, old) = analysis_of(tx, project.id, comp, vuln)?;
            let suppress = s
                .state
                .as_deref()
                .map(|st| matches!(st, "FALSE_POSITIVE" | "NOT_AFFECTED" | "RESOLVED"));
            let change = AnalysisChange {
                state: s.state.clone().or(Some(old.state.clone())),
                justification: s.justification.clone().or(old.justification.clone()),
                response: s.response.clone().or(old.response.clone()),
                details: s.details.clone(),
                suppressed: suppress,
                ..AnalysisChange::default()
            };
            let comments = audit_comments(&old, &change);
            changed |= !comments.is_empty();
            let new = Analysis {
                state: change.state.clone().unwrap_or_else(|| "NOT_SET".into()),
                justification: change.justification.clone(),
                response: change.response.clone(),
                details: change.details.clone().or(old.details.clone()),
                suppressed: change.suppressed.unwrap_or(old.suppressed),
                comments: Vec::new(),
            };
            store_analysis(tx, id, &new, &comments, now, VEX_COMMENTER)?;
        }
    }
    if changed {
        super::metrics::record(tx, project.id)?;
    }
    Ok(())
}
