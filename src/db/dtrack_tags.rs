//! SQL of Dependency-Track tags: the tag names (`dt_tags`), which projects carry them
//! (`dt_project_tags`, and a project's collection tag), and the scoping of policies to projects
//! and tags (`dt_policy_projects`, `dt_policy_tags`).
//!
//! Names arrive normalised (see `model::dtrack::tag_name`). Synchronous functions over a
//! connection; no HTTP types, no rules about who may do what.

use std::collections::HashSet;

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, params, params_from_iter};

use super::dtrack_portfolio::mapped_to_teams;
use crate::error::Result;
use crate::ids::{ProjectId, TeamId};

/// Records tag names (existing ones stay).
pub fn ensure(c: &Connection, names: &[String]) -> Result<()> {
    let mut st = c.prepare_cached("INSERT OR IGNORE INTO dt_tags (name) VALUES (?1)")?;
    for n in names {
        st.execute([n])?;
    }
    Ok(())
}

/// Whether a tag of this name exists.
pub fn exists(c: &Connection, name: &str) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT count(*) FROM dt_tags WHERE name = ?1")?
            .query_row([name], |r| r.get::<_, i64>(0))?
            > 0,
    )
}

/// The ACL condition on a project id column (`1 = 1` when nothing is filtered).
fn acl(column: &str, visible_to: Option<&[TeamId]>) -> String {
    match visible_to {
        None => "1 = 1".into(),
        Some(teams) => mapped_to_teams(column, teams),
    }
}

/// A row of the tag listing.
#[derive(Clone, Debug, PartialEq)]
pub struct TagRow {
    pub name: String,
    pub project_count: i64,
    pub collection_project_count: i64,
    pub policy_count: i64,
}

/// A page of a listing: a `LIKE` fragment (already `%`-wrapped), the ordering (a field of
/// the listing's `*_SORTS` and whether descending; `None` = upstream's default order), and
/// the range.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    pub like: Option<String>,
    pub sort: Option<(String, bool)>,
    pub offset: i64,
    pub limit: Option<i64>,
}

/// The fields the tag listing sorts by.
pub const TAG_SORTS: &[&str] = &[
    "name",
    "projectCount",
    "collectionProjectCount",
    "policyCount",
    "notificationRuleCount",
];
/// The fields the tagged-project listings sort by.
pub const PROJECT_SORTS: &[&str] = &["name", "version"];
/// The fields the tagged-policy listing sorts by.
pub const POLICY_SORTS: &[&str] = &["name"];

/// The `ORDER BY` terms of a listing: `default` unless a known field is asked for (the
/// result columns carry the fields' names), then `tie`.
fn order(l: &Listing, known: &[&str], default: &str, tie: &str) -> String {
    match &l.sort {
        Some((field, desc)) if known.contains(&field.as_str()) => {
            let dir = if *desc { "DESC" } else { "ASC" };
            format!("\"{field}\" {dir}, {tie}")
        }
        _ => default.to_string(),
    }
}

fn limit_clause(l: &Listing) -> String {
    format!("LIMIT {} OFFSET {}", l.limit.unwrap_or(-1), l.offset.max(0))
}

/// Every tag with the number of (visible) projects carrying it, of (visible) collection
/// projects using it, and of policies scoped to it; and the total number of tags matching.
pub fn list(
    c: &Connection,
    l: &Listing,
    visible_to: Option<&[TeamId]>,
) -> Result<(Vec<TagRow>, i64)> {
    let filter = if l.like.is_some() {
        "WHERE t.name LIKE ?1"
    } else {
        ""
    };
    let sql = format!(
        "SELECT t.name AS name,
             (SELECT count(*) FROM dt_project_tags pt WHERE pt.name = t.name AND {}) AS projectCount,
             (SELECT count(*) FROM dt_projects p WHERE p.collection_tag = t.name AND {})
                 AS collectionProjectCount,
             (SELECT count(*) FROM dt_policy_tags y WHERE y.name = t.name) AS policyCount,
             0 AS notificationRuleCount
         FROM dt_tags t {filter} ORDER BY {} {}",
        acl("pt.project_id", visible_to),
        acl("p.id", visible_to),
        order(l, TAG_SORTS, "t.name ASC", "t.name ASC"),
        limit_clause(l)
    );
    let args: Vec<SqlValue> = l.like.iter().cloned().map(SqlValue::Text).collect();
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(params_from_iter(args.iter()), |r| {
        Ok(TagRow {
            name: r.get(0)?,
            project_count: r.get(1)?,
            collection_project_count: r.get(2)?,
            policy_count: r.get(3)?,
        })
    })?;
    let rows = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    let total: i64 = c.query_row(
        &format!("SELECT count(*) FROM dt_tags t {filter}"),
        params_from_iter(args.iter()),
        |r| r.get(0),
    )?;
    Ok((rows, total))
}

/// What decides whether a tag may be deleted.
#[derive(Clone, Debug, PartialEq)]
pub struct DeletionRow {
    pub name: String,
    pub projects: i64,
    pub accessible_projects: i64,
    pub collection_projects: i64,
    pub accessible_collection_projects: i64,
    pub policies: i64,
}

/// The deletion facts of the named tags that exist.
pub fn deletion_rows(
    c: &Connection,
    names: &[String],
    visible_to: Option<&[TeamId]>,
) -> Result<Vec<DeletionRow>> {
    let sql = format!(
        "SELECT t.name,
             (SELECT count(*) FROM dt_project_tags pt WHERE pt.name = t.name),
             (SELECT count(*) FROM dt_project_tags pt WHERE pt.name = t.name AND {}),
             (SELECT count(*) FROM dt_projects p WHERE p.collection_tag = t.name),
             (SELECT count(*) FROM dt_projects p WHERE p.collection_tag = t.name AND {}),
             (SELECT count(*) FROM dt_policy_tags y WHERE y.name = t.name)
         FROM dt_tags t WHERE t.name = ?1",
        acl("pt.project_id", visible_to),
        acl("p.id", visible_to),
    );
    let mut st = c.prepare(&sql)?;
    let mut out = Vec::new();
    for n in names {
        let mut rows = st.query_map([n], |r| {
            Ok(DeletionRow {
                name: r.get(0)?,
                projects: r.get(1)?,
                accessible_projects: r.get(2)?,
                collection_projects: r.get(3)?,
                accessible_collection_projects: r.get(4)?,
                policies: r.get(5)?,
            })
        })?;
        if let Some(row) = rows.next() {
            out.push(row?);
        }
    }
    Ok(out)
}

/// Deletes tags: off every project and policy, and as collection tags.
pub fn delete(c: &Connection, names: &[String]) -> Result<()> {
    for n in names {
        c.execute(
            "UPDATE dt_projects SET collection_tag = NULL WHERE collection_tag = ?1",
            [n],
        )?;
        c.execute("DELETE FROM dt_project_tags WHERE name = ?1", [n])?;
        c.execute("DELETE FROM dt_tags WHERE name = ?1", [n])?;
    }
    Ok(())
}

/// A project as tag listings show it.
#[derive(Clone, Debug, PartialEq)]
pub struct TaggedProject {
    pub uuid: String,
    pub name: String,
    pub version: Option<String>,
}

/// The (visible) projects carrying a tag, or using it as their collection tag.
pub fn tagged_projects(
    c: &Connection,
    name: &str,
    collection: bool,
    l: &Listing,
    visible_to: Option<&[TeamId]>,
) -> Result<(Vec<TaggedProject>, i64)> {
    let tagged = if collection {
        "p.collection_tag = ?1"
    } else {
        "p.id IN (SELECT project_id FROM dt_project_tags WHERE name = ?1)"
    };
    let mut args = vec![SqlValue::Text(name.to_string())];
    let mut cond = format!("{tagged} AND {}", acl("p.id", visible_to));
    if let Some(like) = &l.like {
        args.push(SqlValue::Text(like.clone()));
        cond.push_str(" AND p.name LIKE ?2");
    }
    let sql = format!(
        "SELECT p.uuid, p.name AS name, p.version AS version FROM dt_projects p
         WHERE {cond} ORDER BY {} {}",
        order(
            l,
            PROJECT_SORTS,
            "name ASC, version DESC, p.id ASC",
            "p.id ASC"
        ),
        limit_clause(l)
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(params_from_iter(args.iter()), |r| {
        Ok(TaggedProject {
            uuid: r.get(0)?,
            name: r.get(1)?,
            version: r.get(2)?,
        })
    })?;
    let rows = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    let total: i64 = c.query_row(
        &format!("SELECT count(*) FROM dt_projects p WHERE {cond}"),
        params_from_iter(args.iter()),
        |r| r.get(0),
    )?;
    Ok((rows, total))
}

/// The policies scoped to a tag: `(uuid, name)`.
pub fn tagged_policies(
    c: &Connection,
    name: &str,
    l: &Listing,
) -> Result<(Vec<(String, String)>, i64)> {
    let mut args = vec![SqlValue::Text(name.to_string())];
    let mut cond = "y.name = ?1".to_string();
    if let Some(like) = &l.like {
        args.push(SqlValue::Text(like.clone()));
        cond.push_str(" AND p.name LIKE ?2");
    }
    let from = "dt_policies p JOIN dt_policy_tags y ON y.policy_id = p.id";
    let sql = format!(
        "SELECT p.uuid, p.name AS name FROM {from} WHERE {cond} ORDER BY {} {}",
        order(l, POLICY_SORTS, "name ASC", "p.id ASC"),
        limit_clause(l)
    );
    let mut st = c.prepare(&sql)?;
    let rows = st.query_map(params_from_iter(args.iter()), |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    let rows = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    let total: i64 = c.query_row(
        &format!("SELECT count(*) FROM {from} WHERE {cond}"),
        params_from_iter(args.iter()),
        |r| r.get(0),
    )?;
    Ok((rows, total))
}

/// Puts a tag on a project; false if it was there.
pub fn tag_project(c: &Connection, name: &str, project: ProjectId) -> Result<bool> {
    Ok(c.execute(
        "INSERT OR IGNORE INTO dt_project_tags (project_id, name) VALUES (?1, ?2)",
        params![project.0, name],
    )? == 1)
}

/// Takes a tag off a project; false if it was not there.
pub fn untag_project(c: &Connection, name: &str, project: ProjectId) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM dt_project_tags WHERE project_id = ?1 AND name = ?2",
        params![project.0, name],
    )? == 1)
}

/// Scopes a policy to a tag; false if it was.
pub fn tag_policy(c: &Connection, policy: i64, name: &str) -> Result<bool> {
    Ok(c.execute(
        "INSERT OR IGNORE INTO dt_policy_tags (policy_id, name) VALUES (?1, ?2)",
        params![policy, name],
    )? == 1)
}

/// Removes a tag from a policy's scope; false if it was not in it.
pub fn untag_policy(c: &Connection, policy: i64, name: &str) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM dt_policy_tags WHERE policy_id = ?1 AND name = ?2",
        params![policy, name],
    )? == 1)
}

/// Scopes a policy to a project; false if it was.
pub fn add_policy_project(c: &Connection, policy: i64, project: ProjectId) -> Result<bool> {
    Ok(c.execute(
        "INSERT OR IGNORE INTO dt_policy_projects (policy_id, project_id) VALUES (?1, ?2)",
        params![policy, project.0],
    )? == 1)
}

/// Removes a project from a policy's scope; false if it was not in it.
pub fn remove_policy_project(c: &Connection, policy: i64, project: ProjectId) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM dt_policy_projects WHERE policy_id = ?1 AND project_id = ?2",
        params![policy, project.0],
    )? == 1)
}

/// A policy's tags, by name.
pub fn policy_tags(c: &Connection, policy: i64) -> Result<Vec<String>> {
    let mut st =
        c.prepare_cached("SELECT name FROM dt_policy_tags WHERE policy_id = ?1 ORDER BY name")?;
    let rows = st.query_map([policy], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A policy's projects, by name and version as upstream orders them.
pub fn policy_projects(c: &Connection, policy: i64) -> Result<Vec<ProjectId>> {
    let mut st = c.prepare_cached(
        "SELECT p.id FROM dt_policy_projects pp JOIN dt_projects p ON p.id = pp.project_id
         WHERE pp.policy_id = ?1 ORDER BY p.name, p.version, p.id",
    )?;
    let rows = st.query_map([policy], |r| r.get(0).map(ProjectId))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The policies that apply to a project, as upstream's policy engine selects them: global
/// ones (neither projects nor tags), those scoped to the project, to one of its ancestors
/// when the policy includes children, or to one of the project's tags.
pub fn applicable_policies(c: &Connection, project: ProjectId) -> Result<HashSet<i64>> {
    let mut st = c.prepare_cached(
        "WITH RECURSIVE up(id) AS (
             SELECT parent_id FROM dt_projects WHERE id = ?1 AND parent_id IS NOT NULL
             UNION SELECT p.parent_id FROM dt_projects p JOIN up ON p.id = up.id
                 WHERE p.parent_id IS NOT NULL)
         SELECT y.id FROM dt_policies y
         WHERE (NOT EXISTS (SELECT 1 FROM dt_policy_projects WHERE policy_id = y.id)
                AND NOT EXISTS (SELECT 1 FROM dt_policy_tags WHERE policy_id = y.id))
            OR y.id IN (SELECT policy_id FROM dt_policy_projects WHERE project_id = ?1)
            OR (y.include_children
                AND y.id IN (SELECT policy_id FROM dt_policy_projects
                             WHERE project_id IN (SELECT id FROM up)))
            OR y.id IN (SELECT t.policy_id FROM dt_policy_tags t
                        JOIN dt_project_tags pt ON pt.name = t.name
                        WHERE pt.project_id = ?1)",
    )?;
    let rows = st.query_map([project.0], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
