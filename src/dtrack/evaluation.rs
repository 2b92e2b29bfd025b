//! Our own endpoint for the evaluation state: the components of a project that the internal
//! analyzer could not evaluate, with the reason (`domain::dtrack::evaluation` says which
//! reasons there are), and the `notEvaluated` count in the `metrics` object of project
//! reads and listings.
//!
//! Must not contain SQL or domain rules.

use serde_json::Value;

use crate::domain::Core;
use crate::domain::dtrack::evaluation as domain;
use crate::model::dtrack::{Principal, Project};

use super::params::{Query, valid_uuids};
use super::respond::{Fail, Out, json_list};
use super::wire;

/// # `GET /api/v1/outpost/project/{uuid}/notEvaluated`
///
/// The project's not-evaluated components, in the component listing's order, paged like
/// upstream's lists (`pageNumber`/`pageSize` or `offset`/`limit`), `X-Total-Count` the total.
/// Access as for the project's component list (403 outside the caller's projects with the
/// ACL on, 404 for an unknown project).
pub async fn not_evaluated(state: &Core, who: &Principal, project: &str, q: &Query) -> Out {
    valid_uuids(&[(project, "getNotEvaluatedComponents.arg0")])?;
    let page = q.page();
    let (rows, total) = domain::not_evaluated(state, who, project, page.offset, page.limit).await?;
    let body: Vec<Value> = rows
        .iter()
        .map(|(i, r)| wire::evaluation::not_evaluated(i, *r))
        .collect();
    Ok(json_list(&body, total))
}

/// Projects as upstream renders them, each `metrics` object (where there is one) with our
/// `notEvaluated` beside upstream's counts.
pub async fn projects(state: &Core, ps: &[Project]) -> Result<Vec<Value>, Fail> {
    let ids: Vec<_> = ps
        .iter()
        .filter(|p| p.metrics.is_some())
        .map(|p| p.id)
        .collect();
    let counts = if ids.is_empty() {
        Default::default()
    } else {
        domain::not_evaluated_counts(state, &ids).await?
    };
    Ok(ps
        .iter()
        .map(|p| wire::evaluation::project(p, counts.get(&p.id).copied()))
        .collect())
}

/// One project, as [`projects`] renders it.
pub async fn project(state: &Core, p: &Project) -> Result<Value, Fail> {
    let mut v = projects(state, std::slice::from_ref(p)).await?;
    Ok(v.pop().unwrap_or_default())
}
