//! SQL of the Dependency-Track portfolio: projects (tags, parents, access teams) and components.
//!
//! Synchronous functions over a connection; no HTTP types.

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension as _, Row, params, params_from_iter};

use crate::error::Result;
use crate::ids::{ComponentId, ProjectId, TeamId};
use crate::model::dtrack::{Component, Project, ProjectFields, ProjectRef, tag_name};

const PROJECT_COLS: &str = "p.id, p.uuid, p.name, p.version, p.grp, p.description, p.publisher,
    p.classifier, p.cpe, p.purl, p.swid_tag_id, p.active, p.is_latest, p.collection_logic,
    pp.uuid, pp.name, pp.version, p.last_bom_import_ms, p.last_bom_import_format, p.authors,
    p.manufacturer, p.supplier, p.external_references, p.collection_tag";

fn project_row(r: &Row<'_>) -> rusqlite::Result<Project> {
    let parent_uuid: Option<String> = r.get(14)?;
    Ok(Project {
        id: ProjectId(r.get(0)?),
        uuid: r.get(1)?,
        name: r.get(2)?,
        version: r.get(3)?,
        group: r.get(4)?,
        description: r.get(5)?,
        publisher: r.get(6)?,
        classifier: r.get(7)?,
        cpe: r.get(8)?,
        purl: r.get(9)?,
        swid_tag_id: r.get(10)?,
        active: r.get(11)?,
        is_latest: r.get(12)?,
        collection_logic: r.get(13)?,
        tags: Vec::new(),
        parent: match parent_uuid {
            Some(uuid) => Some(ProjectRef {
                uuid,
                name: r.get(15)?,
                version: r.get(16)?,
            }),
            None => None,
        },
        children: None,
        last_bom_import_ms: r.get(17)?,
        last_bom_import_format: r.get(18)?,
        metrics: None,
        versions: None,
        details: super::dtrack_projects::decode(
            r.get(19)?,
            r.get(20)?,
            r.get(21)?,
            r.get(22)?,
            r.get(23)?,
        ),
        properties: Vec::new(),
    })
}

fn tags(c: &Connection, id: ProjectId) -> Result<Vec<String>> {
    let mut st =
        c.prepare_cached("SELECT name FROM dt_project_tags WHERE project_id = ?1 ORDER BY name")?;
    let rows = st.query_map([id.0], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn one(c: &Connection, cond: &str, arg: &dyn rusqlite::ToSql) -> Result<Option<Project>> {
    let sql = format!(
        "SELECT {PROJECT_COLS} FROM dt_projects p LEFT JOIN dt_projects pp ON pp.id = p.parent_id
         WHERE {cond} ORDER BY p.id LIMIT 1"
    );
    let p = c
        .prepare_cached(&sql)?
        .query_row([arg], project_row)
        .optional()?;
    match p {
        Some(mut p) => {
            p.tags = tags(c, p.id)?;
            p.properties = super::dtrack_projects::properties(c, p.id)?;
            Ok(Some(p))
        }
        None => Ok(None),
    }
}

pub fn project_by_uuid(c: &Connection, uuid: &str) -> Result<Option<Project>> {
    one(c, "p.uuid = ?1", &uuid)
}

pub fn project_by_id(c: &Connection, id: ProjectId) -> Result<Option<Project>> {
    one(c, "p.id = ?1", &id.0)
}

pub fn project_id_by_uuid(c: &Connection, uuid: &str) -> Result<Option<ProjectId>> {
    Ok(
        c.prepare_cached("SELECT id FROM dt_projects WHERE uuid = ?1")?
            .query_row([uuid], |r| r.get(0).map(ProjectId))
            .optional()?,
    )
}

/// The first project with exactly this name and version (`None` version matches no version).
pub fn project_id_by_name(
    c: &Connection,
    name: &str,
    version: Option<&str>,
) -> Result<Option<ProjectId>> {
    Ok(c.prepare_cached(
        "SELECT id FROM dt_projects WHERE name = ?1 AND version IS ?2 ORDER BY id LIMIT 1",
    )?
    .query_row(params![name, version], |r| r.get(0).map(ProjectId))
    .optional()?)
}

/// Direct children of a project (scalar fields only), by name.
pub fn children(c: &Connection, id: ProjectId) -> Result<Vec<Project>> {
    let sql = format!(
        "SELECT {PROJECT_COLS} FROM dt_projects p LEFT JOIN dt_projects pp ON pp.id = p.parent_id
         WHERE p.parent_id = ?1 ORDER BY p.name, p.version DESC, p.id"
    );
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map([id.0], project_row)?;
    let mut out: Vec<Project> = rows.collect::<rusqlite::Result<_>>()?;
    for p in &mut out {
        p.parent = None;
    }
    Ok(out)
}

pub fn insert_project(
    c: &Connection,
    uuid: &str,
    f: &ProjectFields,
    parent: Option<ProjectId>,
) -> Result<ProjectId> {
    c.execute(
        "INSERT INTO dt_projects (uuid, name, version, grp, description, publisher, classifier,
             cpe, purl, swid_tag_id, active, is_latest, parent_id, collection_logic)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        params![
            uuid,
            f.name,
            f.version,
            f.group,
            f.description,
            f.publisher,
            f.classifier,
            f.cpe,
            f.purl,
            f.swid_tag_id,
            f.active,
            f.is_latest,
            parent.map(|p| p.0),
            logic(f)
        ],
    )?;
    let id = ProjectId(c.last_insert_rowid());
    set_tags(c, id, &f.tags)?;
    super::dtrack_projects::set_details(c, id, &f.details)?;
    Ok(id)
}

pub fn update_project(
    c: &Connection,
    id: ProjectId,
    f: &ProjectFields,
    parent: Option<ProjectId>,
) -> Result<()> {
    c.execute(
        "UPDATE dt_projects SET name = ?2, version = ?3, grp = ?4, description = ?5,
             publisher = ?6, classifier = ?7, cpe = ?8, purl = ?9, swid_tag_id = ?10,
             active = ?11, is_latest = ?12, parent_id = ?13, collection_logic = ?14
         WHERE id = ?1",
        params![
            id.0,
            f.name,
            f.version,
            f.group,
            f.description,
            f.publisher,
            f.classifier,
            f.cpe,
            f.purl,
            f.swid_tag_id,
            f.active,
            f.is_latest,
            parent.map(|p| p.0),
            logic(f)
        ],
    )?;
    set_tags(c, id, &f.tags)?;
    super::dtrack_projects::set_details(c, id, &f.details)
}

/// The stored collection logic of fields (`NONE` when unset).
fn logic(f: &ProjectFields) -> &str {
    if f.collection_logic.is_empty() {
        "NONE"
    } else {
        &f.collection_logic
    }
}

fn set_tags(c: &Connection, id: ProjectId, tags: &[String]) -> Result<()> {
    c.execute("DELETE FROM dt_project_tags WHERE project_id = ?1", [id.0])?;
    add_tags(c, id, tags)
}

/// Clears the "latest" flag of the other versions of a project name.
pub fn clear_latest(c: &Connection, name: &str, except: ProjectId) -> Result<()> {
    c.execute(
        "UPDATE dt_projects SET is_latest = 0 WHERE name = ?1 AND id != ?2",
        params![name, except.0],
    )?;
    Ok(())
}

pub fn delete_project(c: &Connection, id: ProjectId) -> Result<()> {
    c.execute("DELETE FROM dt_projects WHERE id = ?1", [id.0])?;
    Ok(())
}

/// Whether `ancestor` is `id` or one of its ancestors.
pub fn is_self_or_ancestor(c: &Connection, id: ProjectId, ancestor: ProjectId) -> Result<bool> {
    Ok(c.query_row(
        "WITH RECURSIVE up(id) AS (SELECT ?1 UNION SELECT p.parent_id FROM dt_projects p
             JOIN up ON p.id = up.id WHERE p.parent_id IS NOT NULL)
         SELECT count(*) FROM up WHERE id = ?2",
        params![id.0, ancestor.0],
        |r| r.get::<_, i64>(0),
    )? > 0)
}

/// Maps a team to a project; false if the mapping existed.
pub fn add_access_team(c: &Connection, project: ProjectId, team: TeamId) -> Result<bool> {
    Ok(c.execute(
        "INSERT OR IGNORE INTO dt_project_access_teams (project_id, team_id) VALUES (?1, ?2)",
        params![project.0, team.0],
    )? == 1)
}

pub fn remove_access_team(c: &Connection, project: ProjectId, team: TeamId) -> Result<()> {
    c.execute(
        "DELETE FROM dt_project_access_teams WHERE project_id = ?1 AND team_id = ?2",
        params![project.0, team.0],
    )?;
    Ok(())
}

/// Whether any of `teams` is mapped to the project.
pub fn has_access_team(c: &Connection, project: ProjectId, teams: &[TeamId]) -> Result<bool> {
    let mut st = c.prepare_cached(
        "SELECT 1 FROM dt_project_access_teams WHERE project_id = ?1 AND team_id = ?2",
    )?;
    for t in teams {
        if st.exists(params![project.0, t.0])? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A project listing: filters, ordering and range already decided by the caller.
pub struct ProjectQuery {
    /// Only projects mapped to this team.
    pub team: Option<TeamId>,
    /// Only projects mapped to one of these teams (portfolio ACL); `None` = no filter.
    pub visible_to: Option<Vec<TeamId>>,
    pub name: Option<String>,
    /// Upstream's `searchText`: a case-insensitive name fragment, or an exact tag.
    pub search: Option<String>,
    /// Leaves out projects mapped to this team.
    pub not_assigned_to: Option<TeamId>,
    pub exclude_inactive: bool,
    pub only_root: bool,
    /// Only projects carrying this exact tag.
    pub tag: Option<String>,
    /// Only projects with this classifier.
    pub classifier: Option<String>,
    /// Only direct children of this project.
    pub parent: Option<ProjectId>,
    /// `ORDER BY` terms over `p.` columns; empty = database order.
    pub order: String,
    pub offset: i64,
    /// `None` = all rows.
    pub limit: Option<i64>,
}

/// The page of projects and the total number matching.
pub fn projects(c: &Connection, q: &ProjectQuery) -> Result<(Vec<Project>, i64)> {
    let mut conds: Vec<String> = vec!["1 = 1".into()];
    let mut args: Vec<SqlValue> = Vec::new();
    if let Some(t) = q.team {
        args.push(SqlValue::Integer(t.0));
        conds.push(format!(
            "p.id IN (SELECT project_id FROM dt_project_access_teams WHERE team_id = ?{})",
            args.len()
        ));
    }
    if let Some(teams) = &q.visible_to {
        conds.push(mapped_to_teams("p.id", teams));
    }
    if let Some(n) = &q.name {
        args.push(SqlValue::Text(n.clone()));
        conds.push(format!("p.name = ?{}", args.len()));
    }
    if let Some(text) = &q.search {
        args.push(SqlValue::Text(format!("%{}%", text.to_lowercase())));
        let like = args.len();
        args.push(SqlValue::Text(tag_name(text).unwrap_or_default()));
        conds.push(format!(
            "(lower(p.name) LIKE ?{like} OR p.id IN (SELECT project_id FROM dt_project_tags WHERE name = ?{}))",
            args.len()
        ));
    }
    if let Some(t) = q.not_assigned_to {
        args.push(SqlValue::Integer(t.0));
        conds.push(format!(
            "p.id NOT IN (SELECT project_id FROM dt_project_access_teams WHERE team_id = ?{})",
            args.len()
        ));
    }
    if q.exclude_inactive {
        conds.push("p.active = 1".into());
    }
    if q.only_root {
        conds.push("p.parent_id IS NULL".into());
    }
    if let Some(t) = &q.tag {
        args.push(SqlValue::Text(t.clone()));
        conds.push(format!(
            "p.id IN (SELECT project_id FROM dt_project_tags WHERE name = ?{})",
            args.len()
        ));
    }
    if let Some(k) = &q.classifier {
        args.push(SqlValue::Text(k.clone()));
        conds.push(format!("p.classifier = ?{}", args.len()));
    }
    if let Some(parent) = q.parent {
        args.push(SqlValue::Integer(parent.0));
        conds.push(format!("p.parent_id = ?{}", args.len()));
    }
    let filter = conds.join(" AND ");
    let total: i64 = c.query_row(
        &format!("SELECT count(*) FROM dt_projects p WHERE {filter}"),
        params_from_iter(args.iter()),
        |r| r.get(0),
    )?;
    let order = if q.order.is_empty() {
        String::new()
    } else {
        format!("ORDER BY {}", q.order)
    };
    let sql = format!(
        "SELECT {PROJECT_COLS} FROM dt_projects p LEFT JOIN dt_projects pp ON pp.id = p.parent_id
         WHERE {filter} {order} LIMIT {} OFFSET {}",
        q.limit.unwrap_or(-1),
        q.offset.max(0)
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(params_from_iter(args.iter()), project_row)?;
    let mut out: Vec<Project> = rows.collect::<rusqlite::Result<_>>()?;
    for p in &mut out {
        p.tags = tags(c, p.id)?;
        p.properties = super::dtrack_projects::properties(c, p.id)?;
    }
    Ok((out, total))
}

/// How much of a component a query reads: everything, or the identity a policy violation
/// shows (through the purl). Either way the component's project (uuid, name, version) follows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ComponentCols {
    Full,
    Brief,
}

const COMPONENT_IDENTITY: &[&str] = &["id", "uuid", "name", "version", "grp", "purl"];
const COMPONENT_DETAILS: &[&str] = &[
    "cpe",
    "swid_tag_id",
    "classifier",
    "description",
    "license",
    "md5",
    "sha1",
    "sha256",
    "sha512",
    "is_internal",
];

impl ComponentCols {
    /// The select list, `c` naming the components' table and `p` their projects'; read it
    /// back with [`component_at`].
    pub fn select(self, c: &str, p: &str) -> String {
        let details = match self {
            ComponentCols::Full => COMPONENT_DETAILS,
            ComponentCols::Brief => &[],
        };
        let mut cols: Vec<String> = COMPONENT_IDENTITY
            .iter()
            .chain(details)
            .map(|col| format!("{c}.{col}"))
            .collect();
        cols.extend(["uuid", "name", "version"].map(|col| format!("{p}.{col}")));
        cols.join(", ")
    }

    /// How many columns [`ComponentCols::select`] lists.
    pub fn count(self) -> usize {
        match self {
            ComponentCols::Full => COMPONENT_IDENTITY.len() + COMPONENT_DETAILS.len() + 3,
            ComponentCols::Brief => COMPONENT_IDENTITY.len() + 3,
        }
    }
}

/// THE component mapper: the columns of [`ComponentCols::select`] starting at column `at`.
pub fn component_at(r: &Row<'_>, at: usize, cols: ComponentCols) -> rusqlite::Result<Component> {
    let mut i = at;
    let mut next = || {
        i += 1;
        i - 1
    };
    let mut comp = Component {
        id: r.get(next())?,
        uuid: r.get(next())?,
        name: r.get(next())?,
        version: r.get(next())?,
        group: r.get(next())?,
        purl: r.get(next())?,
        ..Component::default()
    };
    if cols == ComponentCols::Full {
        comp.cpe = r.get(next())?;
        comp.swid_tag_id = r.get(next())?;
        comp.classifier = r.get(next())?;
        comp.description = r.get(next())?;
        comp.license = r.get(next())?;
        comp.md5 = r.get(next())?;
        comp.sha1 = r.get(next())?;
        comp.sha256 = r.get(next())?;
        comp.sha512 = r.get(next())?;
        comp.is_internal = r.get(next())?;
    }
    comp.project = Some(ProjectRef {
        uuid: r.get(next())?,
        name: r.get(next())?,
        version: r.get(next())?,
    });
    Ok(comp)
}

fn component_row(r: &Row<'_>) -> rusqlite::Result<Component> {
    component_at(r, 0, ComponentCols::Full)
}

pub fn insert_component(c: &Connection, project: ProjectId, f: &Component) -> Result<ComponentId> {
    c.execute(
        "INSERT INTO dt_components (uuid, project_id, name, version, grp, purl, cpe, swid_tag_id,
             classifier, description, license, md5, sha1, sha256, sha512, is_internal)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        params![
            f.uuid,
            project.0,
            f.name,
            f.version,
            f.group,
            f.purl,
            f.cpe,
            f.swid_tag_id,
            f.classifier,
            f.description,
            f.license,
            f.md5,
            f.sha1,
            f.sha256,
            f.sha512,
            f.is_internal
        ],
    )?;
    Ok(ComponentId(c.last_insert_rowid()))
}

pub fn update_component(c: &Connection, id: ComponentId, f: &Component) -> Result<()> {
    c.execute(
        "UPDATE dt_components SET name = ?2, version = ?3, grp = ?4, purl = ?5, cpe = ?6,
             swid_tag_id = ?7, classifier = ?8, description = ?9, license = ?10, md5 = ?11,
             sha1 = ?12, sha256 = ?13, sha512 = ?14, is_internal = ?15
         WHERE id = ?1",
        params![
            id.0,
            f.name,
            f.version,
            f.group,
            f.purl,
            f.cpe,
            f.swid_tag_id,
            f.classifier,
            f.description,
            f.license,
            f.md5,
            f.sha1,
            f.sha256,
            f.sha512,
            f.is_internal
        ],
    )?;
    Ok(())
}

pub fn delete_component(c: &Connection, id: ComponentId) -> Result<()> {
    c.execute("DELETE FROM dt_components WHERE id = ?1", [id.0])?;
    Ok(())
}

/// A component and the id of its project.
pub fn component_by_uuid(c: &Connection, uuid: &str) -> Result<Option<(Component, ProjectId)>> {
    let sql = format!(
        "SELECT {}, p.id FROM dt_components c JOIN dt_projects p ON p.id = c.project_id
         WHERE c.uuid = ?1",
        ComponentCols::Full.select("c", "p")
    );
    Ok(c.prepare_cached(&sql)?
        .query_row([uuid], |r| {
            Ok((
                component_row(r)?,
                ProjectId(r.get(ComponentCols::Full.count())?),
            ))
        })
        .optional()?)
}

/// A project's components by name, with the total.
pub fn components(
    c: &Connection,
    project: ProjectId,
    offset: i64,
    limit: Option<i64>,
) -> Result<(Vec<Component>, i64)> {
    let total: i64 = c.query_row(
        "SELECT count(*) FROM dt_components WHERE project_id = ?1",
        [project.0],
        |r| r.get(0),
    )?;
    let sql = format!(
        "SELECT {} FROM dt_components c JOIN dt_projects p ON p.id = c.project_id
         WHERE c.project_id = ?1 ORDER BY c.name, c.version, c.id LIMIT ?2 OFFSET ?3",
        ComponentCols::Full.select("c", "p")
    );
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map(
        params![project.0, limit.unwrap_or(-1), offset.max(0)],
        component_row,
    )?;
    Ok((rows.collect::<rusqlite::Result<_>>()?, total))
}

/// The teams mapped to a project.
pub fn access_teams(c: &Connection, project: ProjectId) -> Result<Vec<TeamId>> {
    let mut st = c.prepare_cached(
        "SELECT team_id FROM dt_project_access_teams WHERE project_id = ?1 ORDER BY team_id",
    )?;
    let rows = st.query_map([project.0], |r| r.get(0).map(TeamId))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Adds tags to a project (existing ones stay), as upstream stores tag names (trimmed,
/// lower-cased; blank ones dropped), creating the tags that do not exist yet.
pub fn add_tags(c: &Connection, id: ProjectId, tags: &[String]) -> Result<()> {
    let names: Vec<String> = tags.iter().filter_map(|t| tag_name(t)).collect();
    super::dtrack_tags::ensure(c, &names)?;
    for t in &names {
        c.execute(
            "INSERT OR IGNORE INTO dt_project_tags (project_id, name) VALUES (?1, ?2)",
            params![id.0, t],
        )?;
    }
    Ok(())
}

/// Records when and in which format the last BOM was imported.
pub fn set_last_bom_import(c: &Connection, id: ProjectId, at_ms: i64, format: &str) -> Result<()> {
    c.execute(
        "UPDATE dt_projects SET last_bom_import_ms = ?2, last_bom_import_format = ?3 WHERE id = ?1",
        params![id.0, at_ms, format],
    )?;
    Ok(())
}

/// Every version of a project name: (uuid, version, active).
pub fn versions(c: &Connection, name: &str) -> Result<Vec<(String, Option<String>, bool)>> {
    let mut st = c.prepare_cached(
        "SELECT uuid, version, active FROM dt_projects WHERE name = ?1 ORDER BY id",
    )?;
    let rows = st.query_map([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The SQL condition that the project in column `project` is mapped to one of `teams` (the
/// ACL's filter); the ids are integers, so they are written into the text.
pub fn mapped_to_teams(project: &str, teams: &[TeamId]) -> String {
    let list = teams
        .iter()
        .map(|t| t.0.to_string())
        .collect::<Vec<_>>()
        .join(",");
    format!(
        "{project} IN (SELECT project_id FROM dt_project_access_teams WHERE team_id IN ({list}))"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_select_lists_what_the_mapper_reads() {
        assert_eq!(
            ComponentCols::Full.select("c", "p"),
            "c.id, c.uuid, c.name, c.version, c.grp, c.purl, c.cpe, c.swid_tag_id, \
             c.classifier, c.description, c.license, c.md5, c.sha1, c.sha256, c.sha512, \
             c.is_internal, p.uuid, p.name, p.version"
        );
        assert_eq!(
            ComponentCols::Brief.select("c", "pr"),
            "c.id, c.uuid, c.name, c.version, c.grp, c.purl, pr.uuid, pr.name, pr.version"
        );
        for cols in [ComponentCols::Full, ComponentCols::Brief] {
            assert_eq!(cols.select("c", "p").split(", ").count(), cols.count());
        }
    }
}
