//! Portfolio endpoints: projects and components.
//!
//! Thin handlers: parse, call `domain::dtrack::portfolio`, render with `wire`.
//!
//! Must not contain SQL or domain rules.

use hyper::StatusCode;
use serde_json::Value;

use crate::db::dtrack_portfolio::ProjectQuery;
use crate::domain::Core;
use crate::domain::dtrack::portfolio as domain;
use crate::error::Error;
use crate::http;
use crate::model::dtrack::{
    Component, Contact, ExternalRef, Organization, Principal, ProjectDetails, ProjectFields,
    TeamRef,
};

use super::params::{
    Query, check_name, check_printable, json_body, trimmed, valid_uuids, violation,
};
use super::respond::{Fail, Out, json, json_list};
use super::wire;

/// Upstream's default project ordering.
pub const DEFAULT_ORDER: &str = "p.name ASC, p.version DESC, p.id ASC";

/// Upstream's ordering of `GET /project?name=`.
pub const BY_VERSION_ORDER: &str = "p.version DESC, p.id ASC";

/// The `ORDER BY` of a project listing from `sortName`/`sortOrder`, as Alpine: no name ⇒ the
/// endpoint's default; a name without a valid direction ⇒ no ordering; unknown fields ⇒ 400.
pub fn project_order(q: &Query, default: &str) -> Result<String, Fail> {
    let Some((name, dir)) = q.sort() else {
        return Ok(default.to_string());
    };
    let column = match name.as_str() {
        "name" => "p.name",
        "version" => "p.version",
        "group" => "p.grp",
        "description" => "p.description",
        "publisher" => "p.publisher",
        "classifier" => "p.classifier",
        "cpe" => "p.cpe",
        "purl" => "p.purl",
        "swidTagId" => "p.swid_tag_id",
        "uuid" => "p.uuid",
        "active" => "p.active",
        "isLatest" => "p.is_latest",
        "collectionLogic" => "p.collection_logic",
        "id" => "p.id",
        "lastBomImport" => "p.last_bom_import_ms",
        "lastBomImportFormat" => "p.last_bom_import_format",
        // Persistent upstream, never set here: ordering by them is ordering by NULL.
        "author"
        | "directDependencies"
        | "lastInheritedRiskScore"
        | "lastVulnerabilityAnalysis"
        | "collectionTag" => "NULL",
        "bomRef" | "metrics" | "versions" => {
            return Err(Fail::Problem {
                title: "Field not sortable",
                detail: format!(
                    "Can not sort by Project#{name}: The field is computed and can not be queried or sorted by"
                ),
            });
        }
        _ => {
            return Err(Fail::Problem {
                title: "Field not sortable",
                detail: format!("Can not sort by Project#{name}: The field does not exist"),
            });
        }
    };
    Ok(match dir {
        Some(true) => format!("{column} DESC, p.id ASC"),
        Some(false) => format!("{column} ASC, p.id ASC"),
        None => String::new(),
    })
}

fn contacts_in(list: Vec<wire::ContactIn>) -> Vec<Contact> {
    list.into_iter()
        .map(|c| Contact {
            name: trimmed(c.name),
            email: trimmed(c.email),
            phone: trimmed(c.phone),
        })
        .collect()
}

fn organization_in(o: wire::OrganizationIn) -> Organization {
    Organization {
        name: trimmed(o.name),
        urls: o.urls.unwrap_or_default(),
        contacts: contacts_in(o.contacts.unwrap_or_default()),
    }
}

/// Every string inside the 4.13 descriptive fields, with its path, for the printable check.
fn nested_strings(p: &wire::ProjectIn) -> Vec<(String, &str)> {
    let mut out = Vec::new();
    fn contacts<'a>(out: &mut Vec<(String, &'a str)>, at: &str, list: &'a [wire::ContactIn]) {
        for (i, c) in list.iter().enumerate() {
            for (k, v) in [("name", &c.name), ("email", &c.email), ("phone", &c.phone)] {
                if let Some(v) = v {
                    out.push((format!("{at}[{i}].{k}"), v.as_str()));
                }
            }
        }
    }
    fn org<'a>(out: &mut Vec<(String, &'a str)>, at: &str, o: &'a wire::OrganizationIn) {
        if let Some(n) = &o.name {
            out.push((format!("{at}.name"), n.as_str()));
        }
        for (i, u) in o.urls.iter().flatten().enumerate() {
            out.push((format!("{at}.urls[{i}]"), u.as_str()));
        }
        contacts(
            out,
            &format!("{at}.contacts"),
            o.contacts.as_deref().unwrap_or_default(),
        );
    }
    contacts(
        &mut out,
        "authors",
        p.authors.as_deref().unwrap_or_default(),
    );
    if let Some(a) = &p.author {
        out.push(("author".into(), a.as_str()));
    }
    if let Some(o) = &p.manufacturer {
        org(&mut out, "manufacturer", o);
    }
    if let Some(o) = &p.supplier {
        org(&mut out, "supplier", o);
    }
    for (i, r) in p.external_references.iter().flatten().enumerate() {
        for (k, v) in [("url", &r.url), ("comment", &r.comment)] {
            if let Some(v) = v {
                out.push((format!("externalReferences[{i}].{k}"), v.as_str()));
            }
        }
    }
    if let Some(t) = &p.collection_tag {
        out.push(("collectionTag.name".into(), t.name.as_str()));
    }
    out
}

/// The 4.13 descriptive fields and the collection tag of a Project body, checked: reference
/// types are upstream's enum names and every reference has a URL.
pub(super) fn details_in(p: &mut wire::ProjectIn) -> Result<ProjectDetails, Fail> {
    check_printable(
        &nested_strings(p)
            .iter()
            .map(|(k, v)| (k.as_str(), Some(*v)))
            .collect::<Vec<_>>(),
    )?;
    let authors = match (p.authors.take(), p.author.take()) {
        (Some(list), _) => Some(contacts_in(list)),
        (None, Some(name)) => Some(vec![Contact {
            name: trimmed(Some(name)),
            ..Contact::default()
        }]),
        (None, None) => None,
    };
    let external_references = match p.external_references.take() {
        Some(list) => {
            let mut out = Vec::with_capacity(list.len());
            for (i, r) in list.into_iter().enumerate() {
                if let Some(t) = &r.kind
                    && !wire::EXTERNAL_REFERENCE_TYPES.contains(&t.as_str())
                {
                    return Err(Fail::Problem {
                        title: "The provided JSON payload could not be mapped",
                        detail: format!(
                            "Cannot deserialize value of type `ExternalReference.Type` from String \"{t}\": not one of the values accepted for Enum class (externalReferences[{i}].type)"
                        ),
                    });
                }
                let Some(url) = trimmed(r.url) else {
                    return Err(violation(
                        "must not be blank",
                        "{jakarta.validation.constraints.NotBlank.message}",
                        &format!("externalReferences[{i}].url"),
                        Value::Null,
                    ));
                };
                out.push(ExternalRef {
                    kind: r.kind,
                    url,
                    comment: trimmed(r.comment),
                });
            }
            Some(out)
        }
        None => None,
    };
    Ok(ProjectDetails {
        authors,
        manufacturer: p.manufacturer.take().map(organization_in),
        supplier: p.supplier.take().map(organization_in),
        external_references,
        collection_tag: p.collection_tag.take().and_then(|t| trimmed(Some(t.name))),
    })
}

/// The stored name of a collection logic.
pub(super) fn logic_name(l: wire::CollectionLogic) -> String {
    wire::enum_name(l)
}

fn fields(mut p: wire::ProjectIn, updating: bool) -> Result<ProjectFields, Fail> {
    let mut details = details_in(&mut p)?;
    let collection_logic = logic_name(p.collection_logic.unwrap_or(wire::CollectionLogic::None));
    if collection_logic != "AGGREGATE_DIRECT_CHILDREN_WITH_TAG" {
        details.collection_tag = None;
    }
    let tags: Vec<(String, Option<&str>)> = p
        .tags
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, t)| (format!("tags[{i}].name"), Some(t.name.as_str())))
        .collect();
    let mut printable_fields = vec![
        ("version", p.version.as_deref()),
        ("group", p.group.as_deref()),
        ("description", p.description.as_deref()),
        ("publisher", p.publisher.as_deref()),
        ("cpe", p.cpe.as_deref()),
        ("purl", p.purl.as_deref()),
        ("swidTagId", p.swid_tag_id.as_deref()),
    ];
    printable_fields.extend(tags.iter().map(|(path, v)| (path.as_str(), *v)));
    check_printable(&printable_fields)?;
    let name = if updating && trimmed(p.name.clone()).is_none() {
        String::new()
    } else {
        check_name(p.name.as_deref(), "name")?.trim().to_string()
    };
    let parent_uuid = match p.parent {
        Some(parent) => match parent.uuid {
            Some(u) => Some(u),
            None => {
                return Err(
                    Error::bad_request("parent.uuid must be provided when parent is set").into(),
                );
            }
        },
        None => None,
    };
    let mut access_teams = Vec::new();
    for (i, t) in p.access_teams.unwrap_or_default().into_iter().enumerate() {
        access_teams.push(match (t.uuid, t.name) {
            (Some(u), _) => TeamRef::Uuid(u),
            (None, Some(n)) => TeamRef::Name(n),
            (None, None) => {
                return Err(Error::bad_request(format!(
                    "accessTeams must either specify a UUID or a name,but the team at index {i} has neither."
                ))
                .into());
            }
        });
    }
    if let Some(d) = &p.description
        && d.chars().count() > 255
    {
        return Err(violation(
            "size must be between 0 and 255",
            "{jakarta.validation.constraints.Size.message}",
            "description",
            Value::from(d.as_str()),
        ));
    }
    Ok(ProjectFields {
        name,
        version: trimmed(p.version),
        group: trimmed(p.group),
        description: p.description,
        publisher: trimmed(p.publisher),
        classifier: Some(p.classifier.unwrap_or(wire::Classifier::Application).name()),
        cpe: trimmed(p.cpe),
        purl: trimmed(p.purl),
        swid_tag_id: trimmed(p.swid_tag_id),
        active: p.active.unwrap_or(true),
        is_latest: p.is_latest.unwrap_or(false),
        tags: p
            .tags
            .unwrap_or_default()
            .into_iter()
            .filter_map(|t| trimmed(Some(t.name)))
            .collect(),
        parent_uuid,
        access_teams,
        collection_logic,
        details,
    })
}

/// # `PUT /api/v1/project`
///
/// 201 Project; 409 `A project with the specified name already exists.`
pub async fn create_project(state: &Core, who: &Principal, body: &[u8]) -> Out {
    let p: wire::ProjectIn = json_body(body)?;
    let f = fields(p, false)?;
    let created = domain::create_project(state, who, f).await?;
    Ok(json(StatusCode::CREATED, &wire::project(&created)))
}

/// # `POST /api/v1/project`
///
/// Updates the project named by `uuid`; 200 Project.
pub async fn update_project(state: &Core, who: &Principal, body: &[u8]) -> Out {
    let p: wire::ProjectIn = json_body(body)?;
    let uuid = p.uuid.clone().unwrap_or_default();
    let f = fields(p, true)?;
    let updated = domain::update_project(state, who, &uuid, f).await?;
    Ok(json(StatusCode::OK, &wire::project(&updated)))
}

/// # `GET /api/v1/project`
///
/// Paginated and sortable; `name` (exact, ordered by version; no metrics), `searchText`
/// (name fragment or exact tag), `excludeInactive`, `onlyRoot`, `notAssignedToTeamWithUuid`;
/// `X-Total-Count`. ACL-filtered. Without `name`, each project carries its latest metrics.
pub async fn get_projects(state: &Core, who: &Principal, q: &Query) -> Out {
    let not_assigned = match q.get("notAssignedToTeamWithUuid").filter(|v| !v.is_empty()) {
        Some(u) => {
            valid_uuids(&[(u, "getProjects.arg3")])?;
            Some(domain::team_for_listing(state, u).await?)
        }
        None => None,
    };
    let name = q.get("name").map(str::to_string);
    let default = if name.is_some() {
        BY_VERSION_ORDER
    } else {
        DEFAULT_ORDER
    };
    let page = q.page();
    let query = ProjectQuery {
        team: None,
        visible_to: domain::visibility(state.config.dtrack.acl_enabled, who),
        search: if name.is_none() {
            q.search().map(str::to_string)
        } else {
            None
        },
        name,
        not_assigned_to: not_assigned,
        exclude_inactive: q.flag("excludeInactive"),
        only_root: q.flag("onlyRoot"),
        tag: None,
        classifier: None,
        parent: None,
        order: project_order(q, default)?,
        offset: page.offset,
        limit: page.limit,
    };
    let with_metrics = query.name.is_none();
    let (projects, total) = domain::list(state, query, with_metrics).await?;
    let body = super::evaluation::projects(state, &projects).await?;
    Ok(json_list(&body, total))
}

/// # `GET /api/v1/project/lookup?name=&version=`
pub async fn lookup_project(state: &Core, who: &Principal, q: &Query) -> Out {
    let name = q.get("name").unwrap_or("");
    let p = domain::lookup(state, who, name, q.get("version")).await?;
    Ok(json(
        StatusCode::OK,
        &super::evaluation::project(state, &p).await?,
    ))
}

/// # `GET /api/v1/project/{uuid}`
pub async fn get_project(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getProject.arg0")])?;
    let p = domain::project(state, who, uuid).await?;
    Ok(json(
        StatusCode::OK,
        &super::evaluation::project(state, &p).await?,
    ))
}

/// # `DELETE /api/v1/project/{uuid}`
///
/// 204; 404 `The UUID of the project could not be found.`
pub async fn delete_project(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "deleteProject.arg0")])?;
    domain::delete_project(state, who, uuid).await?;
    Ok(http::empty(StatusCode::NO_CONTENT))
}

fn component_fields(c: wire::ComponentIn) -> Result<Component, Fail> {
    check_printable(&[
        ("version", c.version.as_deref()),
        ("group", c.group.as_deref()),
        ("description", c.description.as_deref()),
        ("purl", c.purl.as_deref()),
        ("cpe", c.cpe.as_deref()),
        ("swidTagId", c.swid_tag_id.as_deref()),
        ("license", c.license.as_deref()),
    ])?;
    let name = check_name(c.name.as_deref(), "name")?.trim().to_string();
    for (field, value, len) in [
        ("md5", &c.md5, 32),
        ("sha1", &c.sha1, 40),
        ("sha256", &c.sha256, 64),
        ("sha512", &c.sha512, 128),
    ] {
        if let Some(v) = value
            && !(v.len() == len && v.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return Err(violation(
                &format!("must match \"^[0-9a-fA-F]{{{len}}}$\""),
                "{jakarta.validation.constraints.Pattern.message}",
                field,
                Value::from(v.as_str()),
            ));
        }
    }
    Ok(Component {
        uuid: c.uuid.unwrap_or_default(),
        name,
        version: trimmed(c.version),
        group: trimmed(c.group),
        purl: trimmed(c.purl),
        cpe: trimmed(c.cpe),
        swid_tag_id: trimmed(c.swid_tag_id),
        classifier: c.classifier.map(|k| k.name()),
        description: c.description,
        license: trimmed(c.license),
        md5: c.md5,
        sha1: c.sha1,
        sha256: c.sha256,
        sha512: c.sha512,
        is_internal: c.is_internal.unwrap_or(false),
        ..Component::default()
    })
}

/// # `PUT /api/v1/component/project/{uuid}`
///
/// 201 Component; 404 `The project could not be found.`
pub async fn create_component(state: &Core, who: &Principal, project: &str, body: &[u8]) -> Out {
    valid_uuids(&[(project, "createComponent.arg0")])?;
    let c: wire::ComponentIn = json_body(body)?;
    let f = component_fields(c)?;
    let created = domain::create_component(state, who, project, f).await?;
    Ok(json(StatusCode::CREATED, &wire::component(&created)))
}

/// # `POST /api/v1/component`
///
/// Updates the component named by `uuid`; 200 Component.
pub async fn update_component(state: &Core, who: &Principal, body: &[u8]) -> Out {
    let c: wire::ComponentIn = json_body(body)?;
    let f = component_fields(c)?;
    let updated = domain::update_component(state, who, f).await?;
    Ok(json(StatusCode::OK, &wire::component(&updated)))
}

/// # `GET /api/v1/component/{uuid}`
pub async fn get_component(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getComponentByUuid.arg0")])?;
    let c = domain::component(state, who, uuid).await?;
    Ok(json(StatusCode::OK, &wire::component(&c)))
}

/// # `DELETE /api/v1/component/{uuid}`
///
/// 204.
pub async fn delete_component(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "deleteComponent.arg0")])?;
    domain::delete_component(state, who, uuid).await?;
    Ok(http::empty(StatusCode::NO_CONTENT))
}

/// # `GET /api/v1/component/project/{uuid}`
///
/// Paginated, `X-Total-Count`.
pub async fn get_components(state: &Core, who: &Principal, project: &str, q: &Query) -> Out {
    valid_uuids(&[(project, "getAllComponents.arg0")])?;
    let page = q.page();
    let (cs, total) =
        crate::domain::dtrack::evaluation::components(state, who, project, page.offset, page.limit)
            .await?;
    let body: Vec<Value> = cs
        .iter()
        .map(|(c, e)| wire::evaluation::component(c, *e))
        .collect();
    Ok(json_list(&body, total))
}
