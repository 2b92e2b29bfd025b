//! More project endpoints: `PATCH /project/{uuid}`, `PUT /project/clone`, children, the
//! latest version of a name, listings by tag and classifier, and project properties.
//!
//! Thin handlers: parse, call `domain::dtrack::projects` (or the portfolio listing), render
//! with `wire`. Must not contain SQL or domain rules.

use hyper::StatusCode;
use serde_json::Value;

use crate::db::dtrack_portfolio::ProjectQuery;
use crate::domain::Core;
use crate::domain::dtrack::portfolio as portfolio_domain;
use crate::domain::dtrack::projects as domain;
use crate::error::Error;
use crate::http;
use crate::ids::ProjectId;
use crate::model::dtrack::{CloneRequest, Principal, ProjectPatch, ProjectProperty};

use super::params::{
    Query, check_name, check_printable, is_valid_uuid, json_body, trimmed, valid_uuids, violation,
};
use super::portfolio::{DEFAULT_ORDER, details_in, logic_name, project_order};
use super::respond::{Fail, Out, Violation, json, json_list};
use super::wire;

/// # `PATCH /api/v1/project/{uuid}`
///
/// Changes only the fields sent; 200 Project, or 304 when nothing changed.
pub async fn patch_project(state: &Core, who: &Principal, uuid: &str, body: &[u8]) -> Out {
    valid_uuids(&[(uuid, "patchProject.arg0")])?;
    let mut p: wire::ProjectIn = json_body(body)?;
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
    let name = match &p.name {
        Some(n) => Some(check_name(Some(n), "name")?.trim().to_string()),
        None => None,
    };
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
    let parent_uuid = match p.parent.take() {
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
    let details = details_in(&mut p)?;
    let patch = ProjectPatch {
        name,
        version: trimmed(p.version),
        group: trimmed(p.group),
        description: p.description,
        publisher: trimmed(p.publisher),
        classifier: p.classifier.map(|c| c.name()),
        cpe: trimmed(p.cpe),
        purl: trimmed(p.purl),
        swid_tag_id: trimmed(p.swid_tag_id),
        active: p.active,
        is_latest: p.is_latest,
        tags: p.tags.map(|ts| {
            ts.into_iter()
                .filter_map(|t| trimmed(Some(t.name)))
                .collect()
        }),
        parent_uuid,
        collection_logic: p.collection_logic.map(logic_name),
        details,
    };
    match domain::patch_project(state, who, uuid, patch).await? {
        Some(updated) => Ok(json(StatusCode::OK, &wire::project(&updated))),
        None => Ok(http::empty(StatusCode::NOT_MODIFIED)),
    }
}

/// # `PUT /api/v1/project/clone`
///
/// Clones a project with the parts its flags ask for; 200 `{"token"}`. The clone is complete
/// when the answer is sent, so the token reports "not processing".
pub async fn clone_project(state: &Core, who: &Principal, body: &[u8]) -> Out {
    let c: wire::CloneIn = json_body(body)?;
    let mut bad = Vec::new();
    match &c.project {
        None => bad.push(Violation {
            message: "must not be null".into(),
            template: "{jakarta.validation.constraints.NotNull.message}".into(),
            path: "project".into(),
            invalid: Value::Null,
        }),
        Some(u) if !is_valid_uuid(u) => bad.push(Violation {
            message:
                "must match \"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$\""
                    .into(),
            template: "{jakarta.validation.constraints.Pattern.message}".into(),
            path: "project".into(),
            invalid: Value::from(u.as_str()),
        }),
        Some(_) => {}
    }
    if c.version.as_deref().is_none_or(|v| v.trim().is_empty()) {
        bad.push(Violation {
            message: "must not be blank".into(),
            template: "{jakarta.validation.constraints.NotBlank.message}".into(),
            path: "version".into(),
            invalid: c.version.clone().map(Value::from).unwrap_or(Value::Null),
        });
    }
    if !bad.is_empty() {
        return Err(Fail::Validation(bad));
    }
    check_printable(&[("version", c.version.as_deref())])?;
    let req = CloneRequest {
        project: c.project.unwrap_or_default(),
        version: c.version.unwrap_or_default(),
        include_tags: c.include_tags,
        include_properties: c.include_properties,
        include_components: c.include_components || c.include_dependencies,
        include_services: c.include_services,
        include_audit_history: c.include_audit_history,
        include_acl: c.include_acl,
        include_policy_violations: c.include_policy_violations,
        make_clone_latest: c.make_clone_latest,
    };
    domain::clone_project(state, who, req).await?;
    let token = uuid::Uuid::new_v4().to_string();
    Ok(json(StatusCode::OK, &wire::bom_token(&token)))
}

/// A project listing with metrics, as upstream's tag, classifier and children listings.
async fn listing(
    state: &Core,
    who: &Principal,
    q: &Query,
    filter: impl FnOnce(&mut ProjectQuery),
) -> Out {
    let page = q.page();
    let mut query = ProjectQuery {
        team: None,
        visible_to: portfolio_domain::visibility(state.config.dtrack.acl_enabled, who),
        name: None,
        search: None,
        not_assigned_to: None,
        exclude_inactive: q.flag("excludeInactive"),
        only_root: false,
        tag: None,
        classifier: None,
        parent: None,
        order: project_order(q, DEFAULT_ORDER)?,
        offset: page.offset,
        limit: page.limit,
    };
    filter(&mut query);
    let (projects, total) = portfolio_domain::list(state, query, true).await?;
    let body = super::evaluation::projects(state, &projects).await?;
    Ok(json_list(&body, total))
}

/// Upstream's classifier names; anything else is 400.
fn classifier(name: &str) -> Result<String, Fail> {
    serde_json::from_value::<wire::Classifier>(Value::from(name))
        .map(|c| c.name())
        .map_err(|_| Error::bad_request("The classifier type specified is not valid.").into())
}

/// # `GET /api/v1/project/tag/{tag}`
///
/// Paginated, `excludeInactive`, `onlyRoot`; ACL-filtered; each project with its metrics.
pub async fn by_tag(state: &Core, who: &Principal, tag: &str, q: &Query) -> Out {
    let tag = crate::model::dtrack::tag_name(tag).unwrap_or_default();
    let only_root = q.flag("onlyRoot");
    listing(state, who, q, |query| {
        query.tag = Some(tag);
        query.only_root = only_root;
    })
    .await
}

/// # `GET /api/v1/project/classifier/{classifier}`
///
/// As [`by_tag`]; 400 `The classifier type specified is not valid.`
pub async fn by_classifier(state: &Core, who: &Principal, name: &str, q: &Query) -> Out {
    let kind = classifier(name)?;
    let only_root = q.flag("onlyRoot");
    listing(state, who, q, |query| {
        query.classifier = Some(kind);
        query.only_root = only_root;
    })
    .await
}

/// The parent of a children listing, checked.
async fn parent(state: &Core, who: &Principal, uuid: &str, arg: &str) -> Result<ProjectId, Fail> {
    valid_uuids(&[(uuid, arg)])?;
    Ok(domain::parent_for_children(state, who, uuid).await?)
}

/// # `GET /api/v1/project/{uuid}/children`
///
/// The direct children: paginated, `excludeInactive`, with metrics; 404
/// `The UUID of the project could not be found.`, 403 under the ACL.
pub async fn children(state: &Core, who: &Principal, uuid: &str, q: &Query) -> Out {
    let id = parent(state, who, uuid, "getChildrenProjects.arg0").await?;
    listing(state, who, q, |query| query.parent = Some(id)).await
}

/// # `GET /api/v1/project/{uuid}/children/classifier/{classifier}`
pub async fn children_by_classifier(
    state: &Core,
    who: &Principal,
    uuid: &str,
    name: &str,
    q: &Query,
) -> Out {
    valid_uuids(&[(uuid, "getChildrenProjectsByClassifier.arg1")])?;
    let kind = classifier(name)?;
    let id = parent(state, who, uuid, "getChildrenProjectsByClassifier.arg1").await?;
    listing(state, who, q, |query| {
        query.parent = Some(id);
        query.classifier = Some(kind);
    })
    .await
}

/// # `GET /api/v1/project/{uuid}/children/tag/{tag}`
pub async fn children_by_tag(
    state: &Core,
    who: &Principal,
    uuid: &str,
    tag: &str,
    q: &Query,
) -> Out {
    let id = parent(state, who, uuid, "getChildrenProjectsByTag.arg1").await?;
    let tag = crate::model::dtrack::tag_name(tag).unwrap_or_default();
    listing(state, who, q, |query| {
        query.parent = Some(id);
        query.tag = Some(tag);
    })
    .await
}

/// # `GET /api/v1/project/latest/{name}`
///
/// The version of `name` flagged latest, with metrics; 404 `The project could not be found.`
pub async fn latest(state: &Core, who: &Principal, name: &str) -> Out {
    let p = domain::latest(state, who, name).await?;
    Ok(json(
        StatusCode::OK,
        &super::evaluation::project(state, &p).await?,
    ))
}

/// Upstream's bean constraints on a property's group, name, value and description.
fn check_property(p: &wire::PropertyIn, value_too: bool) -> Result<(), Fail> {
    let mut bad = Vec::new();
    let mut fields = vec![
        ("groupName", p.group_name.as_deref(), 255, true),
        ("propertyName", p.property_name.as_deref(), 255, true),
    ];
    if value_too {
        fields.push(("propertyValue", p.property_value.as_deref(), 1024, false));
        fields.push(("description", p.description.as_deref(), 255, false));
    }
    for (path, v, max, required) in fields {
        let t = v.map(str::trim);
        match t {
            None | Some("") if required => bad.push(Violation {
                message: "must not be blank".into(),
                template: "{jakarta.validation.constraints.NotBlank.message}".into(),
                path: path.into(),
                invalid: v.map(Value::from).unwrap_or(Value::Null),
            }),
            Some(t) if t.chars().count() > max => bad.push(Violation {
                message: format!(
                    "size must be between {} and {max}",
                    if required { 1 } else { 0 }
                ),
                template: "{jakarta.validation.constraints.Size.message}".into(),
                path: path.into(),
                invalid: Value::from(t),
            }),
            Some(t) if t.chars().any(char::is_control) => {
                let msg = format!("The {path} must not contain control characters");
                bad.push(Violation {
                    message: msg.clone(),
                    template: msg,
                    path: path.into(),
                    invalid: Value::from(t),
                })
            }
            _ => {}
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(Fail::Validation(bad))
    }
}

fn property_of(p: wire::PropertyIn, kind: &str) -> ProjectProperty {
    ProjectProperty {
        group: trimmed(p.group_name).unwrap_or_default(),
        name: trimmed(p.property_name).unwrap_or_default(),
        value: trimmed(p.property_value),
        kind: kind.to_string(),
        description: trimmed(p.description),
    }
}

/// # `GET /api/v1/project/{uuid}/property`
///
/// The project's properties; ENCRYPTEDSTRING values show as the placeholder.
pub async fn get_properties(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getProperties.arg0")])?;
    let list = domain::properties(state, who, uuid).await?;
    let body: Vec<Value> = list.iter().map(wire::property).collect();
    Ok(json(StatusCode::OK, &body))
}

/// # `PUT /api/v1/project/{uuid}/property`
///
/// 201 ProjectProperty; 409 `A property with the specified project/group/name combination
/// already exists.`; 400 when the value does not fit the type.
pub async fn create_property(state: &Core, who: &Principal, uuid: &str, body: &[u8]) -> Out {
    valid_uuids(&[(uuid, "createProperty.arg0")])?;
    let p: wire::PropertyIn = json_body(body)?;
    check_property(&p, true)?;
    let Some(kind) = p.property_type else {
        return Err(violation(
            "must not be null",
            "{jakarta.validation.constraints.NotNull.message}",
            "propertyType",
            Value::Null,
        ));
    };
    let prop = property_of(p, kind.name());
    let created = domain::create_property(state, who, uuid, prop).await?;
    Ok(json(StatusCode::CREATED, &wire::property(&created)))
}

/// # `POST /api/v1/project/{uuid}/property`
///
/// Sets the value of the property named by group and name; 200 ProjectProperty; 404 `A
/// property with the specified project/group/name combination could not be found.`; 304 when
/// an ENCRYPTEDSTRING's placeholder comes back unchanged.
pub async fn update_property(state: &Core, who: &Principal, uuid: &str, body: &[u8]) -> Out {
    valid_uuids(&[(uuid, "updateProperty.arg0")])?;
    let p: wire::PropertyIn = json_body(body)?;
    check_property(&p, true)?;
    let prop = property_of(p, "");
    let updated =
        domain::update_property(state, who, uuid, prop, wire::ENCRYPTED_PLACEHOLDER).await?;
    Ok(json(StatusCode::OK, &wire::property(&updated)))
}

/// # `DELETE /api/v1/project/{uuid}/property`
///
/// The body names the property by group and name; 204; 404 `The project property could not be
/// found.`
pub async fn delete_property(state: &Core, who: &Principal, uuid: &str, body: &[u8]) -> Out {
    valid_uuids(&[(uuid, "deleteProperty.arg0")])?;
    let p: wire::PropertyIn = json_body(body)?;
    check_property(&p, false)?;
    let prop = property_of(p, "");
    domain::delete_property(state, who, uuid, &prop.group, &prop.name).await?;
    Ok(http::empty(StatusCode::NO_CONTENT))
}
