//! SQL of project clones: the project row with its details, and as asked its tags, properties,
//! access teams, components with their findings, analyses with their audit trail, and policy
//! violations with their analyses.
//!
//! Synchronous functions over a connection; no HTTP types.

use rusqlite::{Connection, OptionalExtension as _, params};

use crate::error::Result;
use crate::ids::ProjectId;

/// What a clone copies besides the project row.
#[derive(Clone, Copy, Debug, Default)]
pub struct CloneParts {
    pub tags: bool,
    pub properties: bool,
    pub components: bool,
    pub findings_audit: bool,
    pub acl: bool,
    pub violations: bool,
}

/// Copies project `from` as a new project `uuid` with version `version` (parent, details and
/// flags kept; latest as asked), and the parts asked for. Returns the new project's id.
pub fn clone_project(
    c: &Connection,
    from: ProjectId,
    uuid: &str,
    version: Option<&str>,
    latest: bool,
    parts: CloneParts,
) -> Result<ProjectId> {
    c.execute(
        "INSERT INTO dt_projects (uuid, name, version, grp, description, publisher, classifier,
             cpe, purl, swid_tag_id, active, is_latest, collection_logic, parent_id, authors,
             manufacturer, supplier, external_references, collection_tag)
         SELECT ?2, name, ?3, grp, description, publisher, classifier, cpe, purl, swid_tag_id,
             active, ?4, collection_logic, parent_id, authors, manufacturer, supplier,
             external_references, collection_tag
         FROM dt_projects WHERE id = ?1",
        params![from.0, uuid, version, latest],
    )?;
    let to = ProjectId(c.last_insert_rowid());
    if parts.tags {
        c.execute(
            "INSERT INTO dt_project_tags (project_id, name)
             SELECT ?2, name FROM dt_project_tags WHERE project_id = ?1",
            params![from.0, to.0],
        )?;
    }
    if parts.properties {
        c.execute(
            "INSERT INTO dt_project_properties (project_id, group_name, property_name,
                 property_value, property_type, description)
             SELECT ?2, group_name, property_name, property_value, property_type, description
             FROM dt_project_properties WHERE project_id = ?1",
            params![from.0, to.0],
        )?;
    }
    if parts.acl {
        c.execute(
            "INSERT OR IGNORE INTO dt_project_access_teams (project_id, team_id)
             SELECT ?2, team_id FROM dt_project_access_teams WHERE project_id = ?1",
            params![from.0, to.0],
        )?;
    }
    if parts.components {
        clone_components(c, from, to, parts)?;
    }
    Ok(to)
}

/// Copies the components of `from` into `to` with their findings, and, as asked, their
/// analyses with the audit trail and their policy violations.
fn clone_components(
    c: &Connection,
    from: ProjectId,
    to: ProjectId,
    parts: CloneParts,
) -> Result<()> {
    let ids: Vec<i64> = {
        let mut st = c.prepare("SELECT id FROM dt_components WHERE project_id = ?1 ORDER BY id")?;
        let rows = st.query_map([from.0], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for old in ids {
        let new_uuid = uuid::Uuid::new_v4().to_string();
        c.execute(
            "INSERT INTO dt_components (uuid, project_id, name, version, grp, purl, cpe,
                 swid_tag_id, classifier, description, license, md5, sha1, sha256, sha512,
                 is_internal)
             SELECT ?3, ?2, name, version, grp, purl, cpe, swid_tag_id, classifier, description,
                 license, md5, sha1, sha256, sha512, is_internal
             FROM dt_components WHERE id = ?1",
            params![old, to.0, new_uuid],
        )?;
        let new = c.last_insert_rowid();
        c.execute(
            "INSERT INTO dt_component_vulnerabilities (component_id, vulnerability_id,
                 attributed_on_ms)
             SELECT ?2, vulnerability_id, attributed_on_ms FROM dt_component_vulnerabilities
             WHERE component_id = ?1",
            params![old, new],
        )?;
        if parts.findings_audit {
            let analyses: Vec<i64> = {
                let mut st = c.prepare("SELECT id FROM dt_analyses WHERE component_id = ?1")?;
                let rows = st.query_map([old], |r| r.get(0))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            for a in analyses {
                c.execute(
                    "INSERT INTO dt_analyses (project_id, component_id, vulnerability_id, state,
                         justification, response, details, suppressed)
                     SELECT ?2, ?3, vulnerability_id, state, justification, response, details,
                         suppressed
                     FROM dt_analyses WHERE id = ?1",
                    params![a, to.0, new],
                )?;
                let na = c.last_insert_rowid();
                c.execute(
                    "INSERT INTO dt_analysis_comments (analysis_id, timestamp_ms, comment,
                         commenter)
                     SELECT ?2, timestamp_ms, comment, commenter FROM dt_analysis_comments
                     WHERE analysis_id = ?1 ORDER BY id",
                    params![a, na],
                )?;
            }
        }
        if parts.violations {
            let violations: Vec<i64> = {
                let mut st =
                    c.prepare("SELECT id FROM dt_policy_violations WHERE component_id = ?1")?;
                let rows = st.query_map([old], |r| r.get(0))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            for v in violations {
                c.execute(
                    "INSERT INTO dt_policy_violations (uuid, type, project_id, component_id,
                         condition_id, timestamp_ms)
                     SELECT ?4, type, ?2, ?3, condition_id, timestamp_ms
                     FROM dt_policy_violations WHERE id = ?1",
                    params![v, to.0, new, uuid::Uuid::new_v4().to_string()],
                )?;
                let nv = c.last_insert_rowid();
                let old_a: Option<i64> = c
                    .query_row(
                        "SELECT id FROM dt_violation_analyses WHERE violation_id = ?1",
                        [v],
                        |r| r.get(0),
                    )
                    .optional()?;
                let Some(old_a) = old_a else {
                    continue;
                };
                c.execute(
                    "INSERT INTO dt_violation_analyses (violation_id, state, suppressed)
                     SELECT ?2, state, suppressed FROM dt_violation_analyses WHERE id = ?1",
                    params![old_a, nv],
                )?;
                let new_a = c.last_insert_rowid();
                if parts.findings_audit {
                    c.execute(
                        "INSERT INTO dt_violation_analysis_comments (analysis_id, timestamp_ms,
                             comment, commenter)
                         SELECT ?2, timestamp_ms, comment, commenter
                         FROM dt_violation_analysis_comments WHERE analysis_id = ?1 ORDER BY id",
                        params![old_a, new_a],
                    )?;
                }
            }
        }
    }
    Ok(())
}
