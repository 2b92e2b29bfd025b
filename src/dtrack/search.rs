//! Component search endpoints: `/v1/component/hash/{hash}` and `/v1/component/identity`.
//!
//! Thin handlers over `domain::dtrack::search`; components render as everywhere else
//! (`wire::component`, with their project). Must not contain SQL or domain rules.

use serde_json::Value;

use crate::domain::Core;
use crate::domain::dtrack::search::{self as domain, Identity};
use crate::model::dtrack::Principal;

use super::params::{Query, valid_uuids};
use super::respond::{Out, json_list};
use super::wire;

/// # `GET /api/v1/component/hash/{hash}`
///
/// Components with this hash (any stored algorithm), paged; `X-Total-Count`.
pub async fn by_hash(state: &Core, who: &Principal, hash: &str, q: &Query) -> Out {
    let page = q.page();
    let (cs, total) = domain::by_hash(state, who, hash, page.offset, page.limit).await?;
    let body: Vec<Value> = cs.iter().map(wire::component).collect();
    Ok(json_list(&body, total))
}

/// # `GET /api/v1/component/identity`
///
/// `group`, `name`, `version`, `purl`, `cpe`, `swidTagId` (at least one), `project`
/// (UUID); paged; `X-Total-Count`.
pub async fn by_identity(state: &Core, who: &Principal, q: &Query) -> Out {
    let get = |k: &str| q.get(k).filter(|v| !v.is_empty()).map(str::to_string);
    let project = get("project");
    if let Some(p) = &project {
        valid_uuids(&[(p.as_str(), "getComponentByIdentity.project")])?;
    }
    let id = Identity {
        group: get("group"),
        name: get("name"),
        version: get("version"),
        purl: get("purl"),
        cpe: get("cpe"),
        swid_tag_id: get("swidTagId"),
        project,
    };
    let page = q.page();
    let (cs, total) = domain::by_identity(state, who, id, page.offset, page.limit).await?;
    let body: Vec<Value> = cs.iter().map(wire::component).collect();
    Ok(json_list(&body, total))
}
