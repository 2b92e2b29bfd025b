//! SQL of Dependency-Track component searches across the portfolio: by hash and by identity
//! (coordinates, purl, CPE, SWID tag id), limited to the projects a caller may see.
//!
//! Synchronous functions over a connection; no HTTP types.

use rusqlite::{Connection, ToSql, params_from_iter};

use crate::db::dtrack_portfolio::{ComponentCols, component_at};
use crate::error::Result;
use crate::ids::{ProjectId, TeamId};
use crate::model::dtrack::Component;

/// What a component search looks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ComponentSearch {
    /// A hash in any of the stored algorithms (compared ignoring case).
    pub hash: Option<String>,
    /// Coordinates: each given part must be equal.
    pub group: Option<String>,
    pub name: Option<String>,
    pub version: Option<String>,
    /// Alternatives to the coordinates: any that is equal matches.
    pub purl: Option<String>,
    pub cpe: Option<String>,
    pub swid_tag_id: Option<String>,
    /// Only this project's components.
    pub project: Option<ProjectId>,
    /// Only projects mapped to these teams (`None` = every project).
    pub teams: Option<Vec<TeamId>>,
}

/// A page of the components a search finds (by project, name, version) and the total.
pub fn components(
    c: &Connection,
    s: &ComponentSearch,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<Component>, i64)> {
    let mut args: Vec<String> = Vec::new();
    let mut arg = |v: &str| {
        args.push(v.to_string());
        format!("?{}", args.len())
    };
    let mut any: Vec<String> = Vec::new();
    if let Some(h) = &s.hash {
        let m = arg(&h.to_lowercase());
        any.push(format!(
            "(lower(c.md5) = {m} OR lower(c.sha1) = {m} OR lower(c.sha256) = {m}
              OR lower(c.sha512) = {m})"
        ));
    }
    let mut coords: Vec<String> = Vec::new();
    for (col, v) in [
        ("grp", &s.group),
        ("name", &s.name),
        ("version", &s.version),
    ] {
        if let Some(v) = v {
            coords.push(format!("c.{col} = {}", arg(v)));
        }
    }
    if !coords.is_empty() {
        any.push(format!("({})", coords.join(" AND ")));
    }
    for (col, v) in [
        ("purl", &s.purl),
        ("cpe", &s.cpe),
        ("swid_tag_id", &s.swid_tag_id),
    ] {
        if let Some(v) = v {
            any.push(format!("c.{col} = {}", arg(v)));
        }
    }
    let mut cond = if any.is_empty() {
        "0".to_string()
    } else {
        format!("({})", any.join(" OR "))
    };
    if let Some(p) = s.project {
        cond.push_str(&format!(" AND c.project_id = {}", p.0));
    }
    if let Some(teams) = &s.teams {
        cond.push_str(" AND ");
        cond.push_str(&crate::db::dtrack_portfolio::mapped_to_teams(
            "c.project_id",
            teams,
        ));
    }
    let bind: Vec<&dyn ToSql> = args.iter().map(|a| a as &dyn ToSql).collect();
    let total: i64 = c.query_row(
        &format!("SELECT count(*) FROM dt_components c WHERE {cond}"),
        params_from_iter(bind.iter()),
        |r| r.get(0),
    )?;
    let sql = format!(
        "SELECT {} FROM dt_components c JOIN dt_projects p ON p.id = c.project_id
         WHERE {cond} ORDER BY p.name, p.version, c.name, c.version, c.id LIMIT {} OFFSET {}",
        ComponentCols::Full.select("c", "p"),
        limit.unwrap_or(-1),
        offset.max(0)
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(params_from_iter(bind.iter()), |r| {
        component_at(r, 0, ComponentCols::Full)
    })?;
    Ok((rows.collect::<rusqlite::Result<_>>()?, total))
}
