//! Our own endpoint for the evaluation state: the components of a project that the internal
//! analyzer could not evaluate, with the reason (`domain::dtrack::evaluation` says which
//! reasons there are).
//!
//! Must not contain SQL or domain rules.

use serde_json::Value;

use crate::domain::Core;
use crate::domain::dtrack::evaluation as domain;
use crate::model::dtrack::Principal;

use super::params::{Query, valid_uuids};
use super::respond::{Out, json_list};
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
