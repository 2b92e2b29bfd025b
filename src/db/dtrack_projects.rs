//! SQL of Dependency-Track project details and properties: the 4.13 descriptive fields (stored
//! as JSON text in `dt_projects`), the collection tag and members, project properties, and the
//! look-ups of the further project endpoints and the VEX import (latest version, affected
//! components). Clones are in `dtrack_clone`.
//!
//! Synchronous functions over a connection; no HTTP types. The JSON here is a storage format,
//! not an API shape.

use rusqlite::{Connection, OptionalExtension as _, params};
use serde_json::{Map, Value};

use crate::error::Result;
use crate::ids::ProjectId;
use crate::model::dtrack::{Contact, ExternalRef, Organization, ProjectDetails, ProjectProperty};

fn text(v: &Option<String>) -> Value {
    v.as_deref().map(Value::from).unwrap_or(Value::Null)
}

fn get_text(o: &Value, key: &str) -> Option<String> {
    o.get(key).and_then(Value::as_str).map(str::to_string)
}

fn contact_value(c: &Contact) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), text(&c.name));
    m.insert("email".into(), text(&c.email));
    m.insert("phone".into(), text(&c.phone));
    Value::Object(m)
}

fn contact_of(v: &Value) -> Contact {
    Contact {
        name: get_text(v, "name"),
        email: get_text(v, "email"),
        phone: get_text(v, "phone"),
    }
}

fn contacts_of(v: Option<&Value>) -> Vec<Contact> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(contact_of).collect())
        .unwrap_or_default()
}

fn org_value(o: &Organization) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), text(&o.name));
    m.insert(
        "urls".into(),
        Value::from(
            o.urls
                .iter()
                .map(|u| Value::from(u.as_str()))
                .collect::<Vec<_>>(),
        ),
    );
    m.insert(
        "contacts".into(),
        Value::from(o.contacts.iter().map(contact_value).collect::<Vec<_>>()),
    );
    Value::Object(m)
}

fn org_of(v: &Value) -> Organization {
    Organization {
        name: get_text(v, "name"),
        urls: v
            .get("urls")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|u| u.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        contacts: contacts_of(v.get("contacts")),
    }
}

fn reference_value(r: &ExternalRef) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), text(&r.kind));
    m.insert("url".into(), Value::from(r.url.as_str()));
    m.insert("comment".into(), text(&r.comment));
    Value::Object(m)
}

fn reference_of(v: &Value) -> ExternalRef {
    ExternalRef {
        kind: get_text(v, "type"),
        url: get_text(v, "url").unwrap_or_default(),
        comment: get_text(v, "comment"),
    }
}

/// The stored texts of the details: (authors, manufacturer, supplier, external references).
pub fn encode(
    d: &ProjectDetails,
) -> (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
) {
    let list = |vs: Vec<Value>| Value::from(vs).to_string();
    (
        d.authors
            .as_ref()
            .map(|a| list(a.iter().map(contact_value).collect())),
        d.manufacturer.as_ref().map(|o| org_value(o).to_string()),
        d.supplier.as_ref().map(|o| org_value(o).to_string()),
        d.external_references
            .as_ref()
            .map(|r| list(r.iter().map(reference_value).collect())),
    )
}

/// The details from their stored texts; unreadable text reads as absent (never an error: a
/// stored value must not break a read).
pub fn decode(
    authors: Option<String>,
    manufacturer: Option<String>,
    supplier: Option<String>,
    references: Option<String>,
    collection_tag: Option<String>,
) -> ProjectDetails {
    let parse = |s: Option<String>| s.and_then(|s| serde_json::from_str::<Value>(&s).ok());
    ProjectDetails {
        authors: parse(authors)
            .filter(Value::is_array)
            .map(|v| contacts_of(Some(&v))),
        manufacturer: parse(manufacturer)
            .filter(Value::is_object)
            .map(|v| org_of(&v)),
        supplier: parse(supplier).filter(Value::is_object).map(|v| org_of(&v)),
        external_references: parse(references)
            .and_then(|v| v.as_array().map(|a| a.iter().map(reference_of).collect())),
        collection_tag,
    }
}

/// Writes a project's details and collection tag.
pub fn set_details(c: &Connection, id: ProjectId, d: &ProjectDetails) -> Result<()> {
    let (authors, manufacturer, supplier, references) = encode(d);
    // The collection tag is a tag like any other (created if new, stored as upstream does).
    let collection_tag = d
        .collection_tag
        .as_deref()
        .and_then(crate::model::dtrack::tag_name);
    if let Some(t) = &collection_tag {
        super::dtrack_tags::ensure(c, std::slice::from_ref(t))?;
    }
    c.execute(
        "UPDATE dt_projects SET authors = ?2, manufacturer = ?3, supplier = ?4,
             external_references = ?5, collection_tag = ?6 WHERE id = ?1",
        params![
            id.0,
            authors,
            manufacturer,
            supplier,
            references,
            collection_tag
        ],
    )?;
    Ok(())
}

/// Sets a project's collection logic.
pub fn set_collection_logic(c: &Connection, id: ProjectId, logic: &str) -> Result<()> {
    c.execute(
        "UPDATE dt_projects SET collection_logic = ?2 WHERE id = ?1",
        params![id.0, logic],
    )?;
    Ok(())
}

const PROPERTY_COLS: &str = "group_name, property_name, property_value, property_type, description";

fn property_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ProjectProperty> {
    Ok(ProjectProperty {
        group: r.get(0)?,
        name: r.get(1)?,
        value: r.get(2)?,
        kind: r.get(3)?,
        description: r.get(4)?,
    })
}

/// A project's properties by group and name.
pub fn properties(c: &Connection, project: ProjectId) -> Result<Vec<ProjectProperty>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {PROPERTY_COLS} FROM dt_project_properties WHERE project_id = ?1
         ORDER BY group_name, property_name"
    ))?;
    let rows = st.query_map([project.0], property_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn property(
    c: &Connection,
    project: ProjectId,
    group: &str,
    name: &str,
) -> Result<Option<ProjectProperty>> {
    Ok(c.prepare_cached(&format!(
        "SELECT {PROPERTY_COLS} FROM dt_project_properties
         WHERE project_id = ?1 AND group_name = ?2 AND property_name = ?3"
    ))?
    .query_row(params![project.0, group, name], property_row)
    .optional()?)
}

/// How many properties a project has.
pub fn property_count(c: &Connection, project: ProjectId) -> Result<i64> {
    Ok(c.query_row(
        "SELECT count(*) FROM dt_project_properties WHERE project_id = ?1",
        [project.0],
        |r| r.get(0),
    )?)
}

pub fn insert_property(c: &Connection, project: ProjectId, p: &ProjectProperty) -> Result<()> {
    c.execute(
        "INSERT INTO dt_project_properties (project_id, group_name, property_name,
             property_value, property_type, description) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![project.0, p.group, p.name, p.value, p.kind, p.description],
    )?;
    Ok(())
}

pub fn set_property_value(
    c: &Connection,
    project: ProjectId,
    group: &str,
    name: &str,
    value: Option<&str>,
) -> Result<()> {
    c.execute(
        "UPDATE dt_project_properties SET property_value = ?4
         WHERE project_id = ?1 AND group_name = ?2 AND property_name = ?3",
        params![project.0, group, name, value],
    )?;
    Ok(())
}

/// Every ENCRYPTEDSTRING property whose stored value starts with `prefix` (the upgrade of old
/// sealed values at start), as project, group, name and value.
pub fn sealed_properties_with_prefix(
    c: &Connection,
    prefix: &str,
) -> Result<Vec<(ProjectId, String, String, String)>> {
    let mut st = c.prepare(
        "SELECT project_id, group_name, property_name, property_value
         FROM dt_project_properties
         WHERE property_type = 'ENCRYPTEDSTRING' AND substr(property_value, 1, length(?1)) = ?1",
    )?;
    let rows = st.query_map([prefix], |r| {
        Ok((ProjectId(r.get(0)?), r.get(1)?, r.get(2)?, r.get(3)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn delete_property(c: &Connection, project: ProjectId, group: &str, name: &str) -> Result<()> {
    c.execute(
        "DELETE FROM dt_project_properties
         WHERE project_id = ?1 AND group_name = ?2 AND property_name = ?3",
        params![project.0, group, name],
    )?;
    Ok(())
}

/// The version of a project name flagged latest (the first, should there be several).
pub fn latest_version(c: &Connection, name: &str) -> Result<Option<ProjectId>> {
    Ok(c.prepare_cached(
        "SELECT id FROM dt_projects WHERE name = ?1 AND is_latest = 1 ORDER BY id LIMIT 1",
    )?
    .query_row([name], |r| r.get(0).map(ProjectId))
    .optional()?)
}

/// Whether a project has direct children that are active.
pub fn has_active_child(c: &Connection, id: ProjectId) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT 1 FROM dt_projects WHERE parent_id = ?1 AND active = 1 LIMIT 1")?
            .exists([id.0])?,
    )
}

/// Whether a project has components.
pub fn has_components(c: &Connection, id: ProjectId) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT 1 FROM dt_components WHERE project_id = ?1 LIMIT 1")?
            .exists([id.0])?,
    )
}

/// A project's collection logic and collection tag.
pub fn collection_of(c: &Connection, id: ProjectId) -> Result<Option<(String, Option<String>)>> {
    Ok(
        c.prepare_cached("SELECT collection_logic, collection_tag FROM dt_projects WHERE id = ?1")?
            .query_row([id.0], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?,
    )
}

/// A project's parent, if any.
pub fn parent_of(c: &Connection, id: ProjectId) -> Result<Option<ProjectId>> {
    Ok(
        c.prepare_cached("SELECT parent_id FROM dt_projects WHERE id = ?1")?
            .query_row([id.0], |r| r.get::<_, Option<i64>>(0))
            .optional()?
            .flatten()
            .map(ProjectId),
    )
}

/// The direct children a collection aggregates under its logic: all of them, those carrying
/// the collection tag, or those flagged latest.
pub fn collection_members(
    c: &Connection,
    id: ProjectId,
    logic: &str,
    tag: Option<&str>,
) -> Result<Vec<ProjectId>> {
    let ids = |sql: &str, args: &[&dyn rusqlite::ToSql]| -> Result<Vec<ProjectId>> {
        let mut st = c.prepare_cached(sql)?;
        let rows = st.query_map(args, |r| r.get(0).map(ProjectId))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    };
    match (logic, tag) {
        ("AGGREGATE_DIRECT_CHILDREN", _) => {
            ids("SELECT id FROM dt_projects WHERE parent_id = ?1", &[&id.0])
        }
        ("AGGREGATE_DIRECT_CHILDREN_WITH_TAG", Some(t)) => ids(
            "SELECT p.id FROM dt_projects p JOIN dt_project_tags t ON t.project_id = p.id
             WHERE p.parent_id = ?1 AND t.name = ?2",
            &[&id.0, &t],
        ),
        ("AGGREGATE_LATEST_VERSION_CHILDREN", _) => ids(
            "SELECT id FROM dt_projects WHERE parent_id = ?1 AND is_latest = 1",
            &[&id.0],
        ),
        _ => Ok(Vec::new()),
    }
}

/// The id of a vulnerability by source and id.
pub fn vulnerability_id_by_source(
    c: &Connection,
    source: &str,
    vuln_id: &str,
) -> Result<Option<crate::ids::VulnerabilityId>> {
    Ok(
        c.prepare_cached("SELECT id FROM dt_vulnerabilities WHERE source = ?1 AND vuln_id = ?2")?
            .query_row(params![source, vuln_id], |r| {
                r.get(0).map(crate::ids::VulnerabilityId)
            })
            .optional()?,
    )
}

/// The components of a project affected by a vulnerability: (id, uuid, group, name, version,
/// purl).
#[allow(clippy::type_complexity)]
pub fn affected_components(
    c: &Connection,
    project: ProjectId,
    vuln: crate::ids::VulnerabilityId,
) -> Result<
    Vec<(
        crate::ids::ComponentId,
        String,
        Option<String>,
        String,
        Option<String>,
        Option<String>,
    )>,
> {
    let mut st = c.prepare_cached(
        "SELECT c.id, c.uuid, c.grp, c.name, c.version, c.purl
         FROM dt_component_vulnerabilities cv JOIN dt_components c ON c.id = cv.component_id
         WHERE c.project_id = ?1 AND cv.vulnerability_id = ?2 ORDER BY c.id",
    )?;
    let rows = st.query_map(params![project.0, vuln.0], |r| {
        Ok((
            crate::ids::ComponentId(r.get(0)?),
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
