//! Tag endpoints (`/v1/tag*`), and the policy scoping endpoints of the policy resource
//! (`/v1/policy/{uuid}/project/{uuid}`, `/v1/policy/{uuid}/tag/{name}`).
//!
//! Thin handlers over `domain::dtrack::tags` and `domain::dtrack::policies`: they parse the
//! JSON arrays of names or UUIDs these endpoints take (with upstream's bean-validation
//! answers), the listing parameters, and render. Must not contain SQL or domain rules.

use hyper::StatusCode;
use serde_json::Value;

use crate::domain::Core;
use crate::domain::dtrack::policies as policy_domain;
use crate::domain::dtrack::tags::{self as domain, Listing};
use crate::http;
use crate::model::dtrack::{Principal, tag_name};

use super::params::{Query, is_valid_uuid, valid_uuids};
use super::respond::{Fail, Out, Violation, json, json_list};
use super::wire::{policy as pw, tags as tw};

/// Most names or UUIDs one request may carry (upstream's `@Size(min = 1, max = 100)`).
const MAX_ITEMS: usize = 100;
/// Longest tag name (upstream's column and `@Size(max = 255)`).
const MAX_NAME: usize = 255;

fn mapping_problem(detail: impl Into<String>) -> Fail {
    Fail::Problem {
        title: "The provided JSON payload could not be mapped",
        detail: detail.into(),
    }
}

/// A JSON array of strings (a Java `Set<String>`: duplicates collapse, order kept), checked
/// as `@Size(min = 1, max = 100)` on the parameter `path`.
fn string_set(body: &[u8], path: &str) -> Result<Vec<String>, Fail> {
    let v: Value = serde_json::from_slice(body).map_err(|e| mapping_problem(e.to_string()))?;
    let Value::Array(items) = v else {
        return Err(mapping_problem(
            "Cannot deserialize a set of strings from a non-array value",
        ));
    };
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let Value::String(s) = item else {
            return Err(mapping_problem(
                "Cannot deserialize a string from a non-string value",
            ));
        };
        if !out.contains(&s) {
            out.push(s);
        }
        if out.len() > MAX_ITEMS {
            break;
        }
    }
    if out.is_empty() || out.len() > MAX_ITEMS {
        return Err(Fail::Validation(vec![Violation {
            message: format!("size must be between 1 and {MAX_ITEMS}"),
            template: "{jakarta.validation.constraints.Size.message}".into(),
            path: path.to_string(),
            invalid: Value::from(format!("[{}]", out.join(", "))),
        }]));
    }
    Ok(out)
}

/// Tag names of a body: `@NotBlank` each, at most 255 characters; normalised as stored.
fn tag_names(body: &[u8], path: &str) -> Result<Vec<String>, Fail> {
    let raw = string_set(body, path)?;
    let element = format!("{path}[].<iterable element>");
    let mut bad = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for r in &raw {
        match tag_name(r) {
            None => bad.push(Violation {
                message: "must not be blank".into(),
                template: "{jakarta.validation.constraints.NotBlank.message}".into(),
                path: element.clone(),
                invalid: Value::from(r.as_str()),
            }),
            Some(n) if n.chars().count() > MAX_NAME || n.chars().any(char::is_control) => {
                bad.push(Violation {
                    message:
                        "The name may only contain printable characters and at most 255 of them"
                            .into(),
                    template: "{jakarta.validation.constraints.Size.message}".into(),
                    path: element.clone(),
                    invalid: Value::from(r.as_str()),
                })
            }
            Some(n) => {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
    }
    if bad.is_empty() {
        Ok(names)
    } else {
        Err(Fail::Validation(bad))
    }
}

/// UUIDs of a body: `@ValidUuid` each.
fn uuids(body: &[u8], path: &str) -> Result<Vec<String>, Fail> {
    let raw = string_set(body, path)?;
    let element = format!("{path}[].<iterable element>");
    let bad: Vec<Violation> = raw
        .iter()
        .filter(|u| !is_valid_uuid(u))
        .map(|u| Violation {
            message: "Invalid UUID".into(),
            template: "Invalid UUID".into(),
            path: element.clone(),
            invalid: Value::from(u.as_str()),
        })
        .collect();
    if bad.is_empty() {
        Ok(raw)
    } else {
        Err(Fail::Validation(bad))
    }
}

/// The listing parameters: `searchText`/`filter`, the page, and `sortName`/`sortOrder` among
/// `known` (anything else is upstream's "Field not sortable" problem, naming `entity`).
fn listing(q: &Query, entity: &str, known: &[&str]) -> Result<Listing, Fail> {
    let sort = match q.sort() {
        None => None,
        Some((field, _)) if !known.contains(&field.as_str()) => {
            return Err(Fail::Problem {
                title: "Field not sortable",
                detail: format!(
                    "Can not sort by {entity}#{field}: Field does not exist or is not sortable"
                ),
            });
        }
        Some((field, desc)) => Some((field, desc.unwrap_or(false))),
    };
    let page = q.page();
    Ok(Listing {
        like: q.search().map(|s| format!("%{}%", s.to_lowercase())),
        sort,
        offset: page.offset,
        limit: page.limit,
    })
}

/// A tag name from the path, as stored (an empty name matches no tag).
fn path_tag(name: &str) -> String {
    tag_name(name).unwrap_or_default()
}

/// # `GET /api/v1/tag`
///
/// Every tag with `projectCount`, `collectionProjectCount`, `policyCount` and
/// `notificationRuleCount` (always 0: notification rules are not served yet), paged, sorted,
/// filtered by `searchText`; counts of projects respect the portfolio ACL.
pub async fn list(state: &Core, who: &Principal, q: &Query) -> Out {
    let l = listing(q, "Tag", crate::db::dtrack_tags::TAG_SORTS)?;
    let (rows, total) = domain::list(state, who, l).await?;
    let body: Vec<Value> = rows.iter().map(tw::row).collect();
    Ok(json_list(&body, total))
}

/// # `PUT /api/v1/tag`
///
/// A JSON array of names; creates those that do not exist (lower-cased, trimmed); 201.
pub async fn create(state: &Core, body: &[u8]) -> Out {
    let names = tag_names(body, "createTags.arg0")?;
    domain::create(state, names).await?;
    Ok(http::empty(StatusCode::CREATED))
}

/// # `DELETE /api/v1/tag`
///
/// A JSON array of names; 204, or 400 `Tag operation failed` with `errors` by tag name when
/// any of them does not exist or carries what the caller may not change (nothing is deleted).
pub async fn delete(state: &Core, who: &Principal, body: &[u8]) -> Out {
    let names = tag_names(body, "deleteTags.arg0")?;
    let refused = domain::delete(state, who, names).await?;
    if refused.is_empty() {
        return Ok(http::empty(StatusCode::NO_CONTENT));
    }
    Err(Fail::Raw(tw::deletion_refused(&refused)))
}

/// # `GET /api/v1/tag/{name}/project` and `/collectionProject`
///
/// The visible projects carrying (or aggregating by) the tag: `[{uuid, name, version}]`.
pub async fn projects(
    state: &Core,
    who: &Principal,
    name: &str,
    collection: bool,
    q: &Query,
) -> Out {
    let entity = if collection {
        "TaggedCollectionProject"
    } else {
        "TaggedProject"
    };
    let l = listing(q, entity, crate::db::dtrack_tags::PROJECT_SORTS)?;
    let (rows, total) = domain::projects(state, who, path_tag(name), collection, l).await?;
    let body: Vec<Value> = rows.iter().map(tw::project).collect();
    Ok(json_list(&body, total))
}

/// # `POST` / `DELETE /api/v1/tag/{name}/project`
///
/// A JSON array of project UUIDs; 204; 404 problem when the tag does not exist.
pub async fn tag_projects(
    state: &Core,
    who: &Principal,
    name: &str,
    body: &[u8],
    add: bool,
) -> Out {
    let path = if add {
        "tagProjects.arg1"
    } else {
        "untagProjects.arg1"
    };
    let list = uuids(body, path)?;
    domain::tag_projects(state, who, path_tag(name), list, add)
        .await
        .map_err(Fail::missing_as_problem)?;
    Ok(http::empty(StatusCode::NO_CONTENT))
}

/// # `GET /api/v1/tag/{name}/policy`
///
/// The policies scoped to the tag: `[{uuid, name}]`.
pub async fn policies(state: &Core, name: &str, q: &Query) -> Out {
    let l = listing(q, "TaggedPolicy", crate::db::dtrack_tags::POLICY_SORTS)?;
    let (rows, total) = domain::policies(state, path_tag(name), l).await?;
    let body: Vec<Value> = rows.iter().map(|(u, n)| tw::policy(u, n)).collect();
    Ok(json_list(&body, total))
}

/// # `POST` / `DELETE /api/v1/tag/{name}/policy`
///
/// A JSON array of policy UUIDs; 204; 404 problem when the tag does not exist.
pub async fn tag_policies(state: &Core, name: &str, body: &[u8], add: bool) -> Out {
    let path = if add {
        "tagPolicies.arg1"
    } else {
        "untagPolicies.arg1"
    };
    let list = uuids(body, path)?;
    domain::tag_policies(state, path_tag(name), list, add)
        .await
        .map_err(Fail::missing_as_problem)?;
    Ok(http::empty(StatusCode::NO_CONTENT))
}

/// # `GET /api/v1/tag/policy/{uuid}` (and the deprecated `GET /api/v1/tag/{uuid}`)
///
/// A policy's tags, `[{name}]`; 404 `The policy could not be found.`
pub async fn of_policy(state: &Core, uuid: &str, arg: &str) -> Out {
    valid_uuids(&[(uuid, arg)])?;
    let tags = domain::of_policy(state, uuid.to_string()).await?;
    let body: Vec<Value> = tags.iter().map(|t| tw::tag(t)).collect();
    Ok(json_list(&body, tags.len() as i64))
}

/// # `POST` / `DELETE /api/v1/policy/{policy}/project/{project}`
///
/// 200 with the policy; 304 when the project already is (or is not) in its scope; 404 `The
/// policy could not be found.` / `The project could not be found.`
pub async fn scope_project(state: &Core, policy: &str, project: &str, add: bool) -> Out {
    let method = if add {
        "addProjectToPolicy"
    } else {
        "removeProjectFromPolicy"
    };
    valid_uuids(&[
        (policy, &format!("{method}.arg0")),
        (project, &format!("{method}.arg1")),
    ])?;
    scoped(policy_domain::scope_project(state, policy, project, add).await?)
}

/// # `POST` / `DELETE /api/v1/policy/{policy}/tag/{name}` (deprecated upstream)
///
/// As [`scope_project`]; 404 `The tag could not be found.`
pub async fn scope_tag(state: &Core, policy: &str, tag: &str, add: bool) -> Out {
    let method = if add {
        "addTagToPolicy"
    } else {
        "removeTagFromPolicy"
    };
    valid_uuids(&[(policy, &format!("{method}.arg0"))])?;
    scoped(policy_domain::scope_tag(state, policy, tag, add).await?)
}

fn scoped(p: policy_domain::Scoped) -> Out {
    Ok(match p {
        Some(p) => json(StatusCode::OK, &pw::policy(&p)),
        None => http::empty(StatusCode::NOT_MODIFIED),
    })
}
