//! License and license group endpoints (`/v1/license`, `/v1/licenseGroup`).
//!
//! Thin handlers over `domain::dtrack::licenses`: parse, call, render with `wire::licenses`.
//! Must not contain SQL or domain rules.

use hyper::StatusCode;

use crate::domain::Core;
use crate::domain::dtrack::licenses as domain;
use crate::error::Error;
use crate::http;

use super::params::{Query, check_name, json_body, valid_uuids};
use super::respond::{Fail, Out, json, json_list};
use super::wire::licenses as wire;

/// The largest `riskWeight` a group may carry (upstream's is an int; we bound it).
const MAX_RISK_WEIGHT: i64 = 1_000_000;

/// # `GET /api/v1/license`
///
/// A page of the SPDX catalogue by name (`searchText` in the id or name); `X-Total-Count`.
pub async fn get_licenses(q: &Query) -> Out {
    let page = q.page();
    let (ls, total) = domain::list(q.search(), page.offset, page.limit);
    Ok(json_list(&wire::licenses(&ls), total))
}

/// # `GET /api/v1/license/concise`
///
/// Every catalogue license, without texts.
pub async fn get_concise() -> Out {
    let ls = domain::catalogue();
    Ok(json(StatusCode::OK, &wire::licenses(&ls)))
}

/// # `GET /api/v1/license/{licenseId}`
///
/// 404 `The license could not be found.`
pub async fn get_license(license_id: &str) -> Out {
    let l = domain::license(license_id)?;
    Ok(json(StatusCode::OK, &wire::license(&l)))
}

fn group_fields(g: &wire::LicenseGroupIn) -> Result<(String, i64), Fail> {
    let name = check_name(g.name.as_deref(), "name")?.trim().to_string();
    let weight = g.risk_weight.unwrap_or(0);
    if !(0..=MAX_RISK_WEIGHT).contains(&weight) {
        return Err(Error::bad_request(format!(
            "The risk weight must be from 0 to {MAX_RISK_WEIGHT}."
        ))
        .into());
    }
    Ok((name, weight))
}

/// # `GET /api/v1/licenseGroup`
///
/// A page of the groups by name, each with its licenses; `X-Total-Count`.
pub async fn get_groups(state: &Core, q: &Query) -> Out {
    let page = q.page();
    let limit = page.limit.unwrap_or(domain::MAX_GROUPS);
    let (gs, total) = domain::groups(state, page.offset, limit).await?;
    Ok(json_list(&wire::groups(&gs), total))
}

/// # `GET /api/v1/licenseGroup/{uuid}`
///
/// 404 `The license group could not be found.`
pub async fn get_group(state: &Core, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getLicenseGroup.uuid")])?;
    let g = domain::group(state, uuid).await?;
    Ok(json(StatusCode::OK, &wire::group(&g)))
}

/// # `PUT /api/v1/licenseGroup`
///
/// `{"name","riskWeight"}`; 201; 409 `A license group with the specified name already
/// exists.`
pub async fn create_group(state: &Core, body: &[u8]) -> Out {
    let g: wire::LicenseGroupIn = json_body(body)?;
    let (name, weight) = group_fields(&g)?;
    let created = domain::create_group(state, name, weight).await?;
    Ok(json(StatusCode::CREATED, &wire::group(&created)))
}

/// # `POST /api/v1/licenseGroup`
///
/// Updates the group named by `uuid`: its name and risk weight.
pub async fn update_group(state: &Core, body: &[u8]) -> Out {
    let g: wire::LicenseGroupIn = json_body(body)?;
    let uuid = g.uuid.clone().unwrap_or_default();
    valid_uuids(&[(uuid.as_str(), "uuid")])?;
    let (name, weight) = group_fields(&g)?;
    let updated = domain::update_group(state, &uuid, name, weight).await?;
    Ok(json(StatusCode::OK, &wire::group(&updated)))
}

/// # `DELETE /api/v1/licenseGroup/{uuid}`
///
/// 204.
pub async fn delete_group(state: &Core, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "deleteLicenseGroup.uuid")])?;
    domain::delete_group(state, uuid).await?;
    Ok(http::empty(StatusCode::NO_CONTENT))
}

/// # `POST|DELETE /api/v1/licenseGroup/{uuid}/license/{licenseUuid}`
///
/// 200 with the group; 304 when the license already is (is not) a member.
pub async fn set_member(state: &Core, uuid: &str, license: &str, member: bool) -> Out {
    let (g_path, l_path) = if member {
        (
            "addLicenseToLicenseGroup.uuid",
            "addLicenseToLicenseGroup.licenseUuid",
        )
    } else {
        (
            "removeLicenseFromLicenseGroup.uuid",
            "removeLicenseFromLicenseGroup.licenseUuid",
        )
    };
    valid_uuids(&[(uuid, g_path), (license, l_path)])?;
    match domain::set_member(state, uuid, license, member).await? {
        Some(g) => Ok(json(StatusCode::OK, &wire::group(&g))),
        None => Ok(http::empty(StatusCode::NOT_MODIFIED)),
    }
}
