//! SQL of accepted BOM uploads and of replacing a project's components with a BOM's.
//!
//! Synchronous functions over a connection; no HTTP types.

use rusqlite::{Connection, OptionalExtension as _, params};

use crate::error::Result;
use crate::ids::{ComponentId, ProjectId};
use crate::model::dtrack::Component;

pub fn insert_upload(
    c: &Connection,
    token: &str,
    project: ProjectId,
    content: &[u8],
    now_ms: i64,
) -> Result<()> {
    c.execute(
        "INSERT INTO dt_bom_uploads (token, project_id, content, received_ms) VALUES (?1, ?2, ?3, ?4)",
        params![token, project.0, content, now_ms],
    )?;
    Ok(())
}

/// The oldest unprocessed upload: (token, project, document).
pub fn next_pending(c: &Connection) -> Result<Option<(String, ProjectId, Vec<u8>)>> {
    Ok(c.prepare_cached(
        "SELECT token, project_id, content FROM dt_bom_uploads
             WHERE processed_ms IS NULL ORDER BY received_ms, token LIMIT 1",
    )?
    .query_row([], |r| {
        Ok((
            r.get(0)?,
            ProjectId(r.get(1)?),
            r.get::<_, Option<Vec<u8>>>(2)?.unwrap_or_default(),
        ))
    })
    .optional()?)
}

/// Marks an upload processed (dropping its document); `error` if it could not be imported.
pub fn finish_upload(c: &Connection, token: &str, now_ms: i64, error: Option<&str>) -> Result<()> {
    c.execute(
        "UPDATE dt_bom_uploads SET processed_ms = ?2, content = NULL, error = ?3 WHERE token = ?1",
        params![token, now_ms, error],
    )?;
    Ok(())
}

/// Whether an upload with this token is still waiting or being processed.
pub fn is_pending(c: &Connection, token: &str) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT 1 FROM dt_bom_uploads WHERE token = ?1 AND processed_ms IS NULL")?
            .exists([token])?,
    )
}

/// A project's components as (id, identity key) for reconciliation.
pub fn component_keys(c: &Connection, project: ProjectId) -> Result<Vec<(ComponentId, String)>> {
    let mut st = c.prepare_cached(
        "SELECT id, coalesce(grp, '') || char(0) || name || char(0) || coalesce(version, '')
                || char(0) || coalesce(purl, '')
         FROM dt_components WHERE project_id = ?1",
    )?;
    let rows = st.query_map([project.0], |r| Ok((ComponentId(r.get(0)?), r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The identity key [`component_keys`] computes, for a component not yet stored.
pub fn key_of(c: &Component) -> String {
    format!(
        "{}\0{}\0{}\0{}",
        c.group.as_deref().unwrap_or(""),
        c.name,
        c.version.as_deref().unwrap_or(""),
        c.purl.as_deref().unwrap_or("")
    )
}
