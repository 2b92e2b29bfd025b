//! The metrics endpoints (`/v1/metrics/...`): portfolio, project and component snapshots with
//! their history, refreshes, and the vulnerability database's counts.
//!
//! Parses the path's days and dates (`YYYYMMDD`), calls `domain::dtrack::metrics`, renders
//! with `wire::metrics`. A `current` without any snapshot yet is 204, as upstream's empty
//! entity. Must not contain SQL or domain rules.

use hyper::StatusCode;

use crate::domain::Core;
use crate::domain::dtrack::metrics::{self as domain, MAX_DAYS, Since};
use crate::error::Error;
use crate::http;
use crate::model::dtrack::Principal;

use super::params::valid_uuids;
use super::respond::{Fail, Out, json};
use super::wire::metrics as wire;

/// Upstream's answer to a `since` date that is not `YYYYMMDD`.
const BAD_DATE: &str = "The specified date format is incorrect.";

fn days(raw: &str) -> Result<Since, Fail> {
    match raw.parse::<i64>() {
        Ok(n) if (0..=MAX_DAYS).contains(&n) => Ok(Since::Days(n)),
        _ => Err(Error::bad_request(format!(
            "The number of days must be a whole number from 0 to {MAX_DAYS}."
        ))
        .into()),
    }
}

fn date(raw: &str) -> Result<Since, Fail> {
    crate::time::parse_short_date_millis(raw)
        .map(Since::Millis)
        .ok_or_else(|| Error::bad_request(BAD_DATE).into())
}

fn ok_empty() -> Out {
    Ok(http::empty(StatusCode::OK))
}

/// # `GET /api/v1/metrics/project/{uuid}/refresh`
///
/// Records a new snapshot (its components', its collection ancestors' and the portfolio's
/// with it); 200 empty.
pub async fn refresh_project(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "RefreshProjectMetrics.arg0")])?;
    domain::refresh(state, who, uuid).await?;
    ok_empty()
}

/// # `GET /api/v1/metrics/project/{uuid}/current`
///
/// The latest snapshot, with our own `notEvaluated` (components the analyzer could not
/// evaluate, counted now); 204 when there is none yet.
pub async fn current_project(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getProjectCurrentMetrics.arg0")])?;
    match crate::domain::dtrack::evaluation::current_metrics(state, who, uuid).await? {
        Some((m, n)) => Ok(json(
            StatusCode::OK,
            &super::wire::evaluation::metrics(&m, n),
        )),
        None => Ok(http::empty(StatusCode::NO_CONTENT)),
    }
}

/// # `GET /api/v1/metrics/project/{uuid}/days/{days}`
pub async fn project_days(state: &Core, who: &Principal, uuid: &str, n: &str) -> Out {
    valid_uuids(&[(uuid, "getProjectMetricsXDays.arg0")])?;
    let rows = domain::project_history(state, who, uuid, days(n)?).await?;
    Ok(json(StatusCode::OK, &wire::metrics_list(&rows)))
}

/// # `GET /api/v1/metrics/project/{uuid}/since/{date}`
pub async fn project_since(state: &Core, who: &Principal, uuid: &str, d: &str) -> Out {
    valid_uuids(&[(uuid, "getProjectMetricsSince.arg0")])?;
    let since = date(d)?;
    let rows = domain::project_history(state, who, uuid, since).await?;
    Ok(json(StatusCode::OK, &wire::metrics_list(&rows)))
}

/// # `GET /api/v1/metrics/component/{uuid}/current`
pub async fn current_component(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getComponentCurrentMetrics.arg0")])?;
    match domain::component_current(state, who, uuid).await? {
        Some(m) => Ok(json(StatusCode::OK, &wire::dependency_metrics(&m))),
        None => Ok(http::empty(StatusCode::NO_CONTENT)),
    }
}

/// # `GET /api/v1/metrics/component/{uuid}/days/{days}`
pub async fn component_days(state: &Core, who: &Principal, uuid: &str, n: &str) -> Out {
    valid_uuids(&[(uuid, "getComponentMetricsXDays.arg0")])?;
    let rows = domain::component_history(state, who, uuid, days(n)?).await?;
    Ok(json(StatusCode::OK, &wire::dependency_metrics_list(&rows)))
}

/// # `GET /api/v1/metrics/component/{uuid}/since/{date}`
pub async fn component_since(state: &Core, who: &Principal, uuid: &str, d: &str) -> Out {
    valid_uuids(&[(uuid, "getComponentMetricsSince.arg0")])?;
    let since = date(d)?;
    let rows = domain::component_history(state, who, uuid, since).await?;
    Ok(json(StatusCode::OK, &wire::dependency_metrics_list(&rows)))
}

/// # `GET /api/v1/metrics/component/{uuid}/refresh`
pub async fn refresh_component(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "RefreshComponentMetrics.arg0")])?;
    domain::component_refresh(state, who, uuid).await?;
    ok_empty()
}

/// # `GET /api/v1/metrics/portfolio/current`
pub async fn current_portfolio(state: &Core) -> Out {
    match domain::portfolio_current(state).await? {
        Some(p) => Ok(json(StatusCode::OK, &wire::portfolio_metrics(&p))),
        None => Ok(http::empty(StatusCode::NO_CONTENT)),
    }
}

/// # `GET /api/v1/metrics/portfolio/{days}/days`
pub async fn portfolio_days(state: &Core, n: &str) -> Out {
    let rows = domain::portfolio_history(state, days(n)?).await?;
    Ok(json(StatusCode::OK, &wire::portfolio_metrics_list(&rows)))
}

/// # `GET /api/v1/metrics/portfolio/since/{date}`
pub async fn portfolio_since(state: &Core, d: &str) -> Out {
    let rows = domain::portfolio_history(state, date(d)?).await?;
    Ok(json(StatusCode::OK, &wire::portfolio_metrics_list(&rows)))
}

/// # `GET /api/v1/metrics/portfolio/refresh`
///
/// Every project's snapshot anew, then the portfolio's; 200 empty once recorded.
pub async fn refresh_portfolio(state: &Core) -> Out {
    domain::portfolio_refresh(state).await?;
    ok_empty()
}

/// # `GET /api/v1/metrics/vulnerability`
pub async fn vulnerability(state: &Core) -> Out {
    let rows = domain::vulnerability_metrics(state).await?;
    let body = wire::vulnerability_metrics(&rows, crate::time::now_millis());
    Ok(json(StatusCode::OK, &body))
}
