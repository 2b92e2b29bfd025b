//! Vulnerability, finding and analysis endpoints.
//!
//! Thin handlers over `domain::dtrack::findings`; validation texts are upstream's.
//!
//! Must not contain SQL or domain rules.

use hyper::StatusCode;
use hyper::header::HeaderValue;
use serde_json::Value;

use crate::db::dtrack_findings::FindingFilter;
use crate::domain::Core;
use crate::domain::dtrack::findings::{self as domain, AnalysisChange};
use crate::domain::dtrack::osv::matching;
use crate::error::Error;
use crate::http::{self, Request, Response};
use crate::model::dtrack::{Principal, Vulnerability};

use super::params::{
    Query, check_name, check_printable, is_uuid, json_body, printable, trimmed, valid_uuids,
};
use super::respond::{DT_VERSION, Fail, Out, Violation, json, json_list, total_count};
use super::wire;

/// # `PUT /api/v1/vulnerability`
///
/// An internal vulnerability (`source` is always `INTERNAL`); 201; 409
/// `A vulnerability with the specified vulnId already exists.`
pub async fn create_vulnerability(state: &Core, body: &[u8]) -> Out {
    let v: wire::VulnerabilityIn = json_body(body)?;
    let vuln_id = check_name(v.vuln_id.as_deref(), "vulnId")?;
    check_printable(&[
        ("source", v.source.as_deref()),
        ("title", v.title.as_deref()),
        ("description", v.description.as_deref()),
        ("recommendation", v.recommendation.as_deref()),
        ("cvssV3Vector", v.cvss_v3_vector.as_deref()),
    ])?;
    let created = domain::create_vulnerability(
        state,
        Vulnerability {
            vuln_id,
            severity: v.severity.map(|s| s.name().to_string()),
            title: trimmed(v.title),
            description: v.description,
            recommendation: v.recommendation,
            cvss_v3_vector: trimmed(v.cvss_v3_vector),
            published_ms: v.published,
            ..Vulnerability::default()
        },
    )
    .await?;
    Ok(json(StatusCode::CREATED, &wire::vulnerability(&created)))
}

/// # `GET /api/v1/vulnerability/{uuid}`
pub async fn get_vulnerability(state: &Core, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getVulnerabilityByUuid.arg0")])?;
    let v = domain::vulnerability(state, uuid).await?;
    Ok(json(StatusCode::OK, &wire::vulnerability(&v)))
}

/// # `POST|DELETE /api/v1/vulnerability/{uuid}/component/{uuid}`
///
/// Attributes (or removes) a vulnerability to a component; 200 empty.
pub async fn set_assignment(
    state: &Core,
    who: &Principal,
    vuln: &str,
    component: &str,
    assigned: bool,
) -> Out {
    let method = if assigned {
        "assignVulnerability"
    } else {
        "unassignVulnerability"
    };
    valid_uuids(&[
        (vuln, &format!("{method}.arg0")),
        (component, &format!("{method}.arg1")),
    ])?;
    domain::set_assignment(state, who, vuln, component, assigned).await?;
    Ok(http::empty(StatusCode::OK))
}

/// Upstream's vulnerability sources (`Vulnerability.Source`).
const SOURCES: &[&str] = &[
    "NVD", "NPM", "GITHUB", "VULNDB", "OSSINDEX", "RETIREJS", "INTERNAL", "OSV", "SNYK", "TRIVY",
    "UNKNOWN",
];

/// A `source` parameter: one of upstream's sources (upstream fails on others; a 400 here).
fn source_param(q: &Query) -> Result<Option<String>, Fail> {
    match q.get("source").map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) if SOURCES.contains(&s) => Ok(Some(s.to_string())),
        Some(s) => Err(Error::bad_request(format!(
            "Unknown vulnerability source {s:?}; use one of {}",
            SOURCES.join(", ")
        ))
        .into()),
    }
}

/// The SARIF media type; asked for by an `Accept` header that contains it, as upstream.
const SARIF: &str = "application/sarif+json";

/// A document answered with a `Content-Disposition` naming its file.
fn named(media: &'static str, bytes: impl Into<bytes::Bytes>, disposition: &str) -> Response {
    let mut res = http::with_body(StatusCode::OK, media, bytes);
    if let Ok(v) = HeaderValue::from_str(disposition) {
        res.headers_mut().insert("content-disposition", v);
    }
    res
}

/// # `GET /api/v1/finding/project/{uuid}`
///
/// `suppressed` (bool) includes suppressed findings; `source` keeps one vulnerability source
/// (400 for an unknown one); `X-Total-Count`. With an `Accept` header containing
/// `application/sarif+json`, the SARIF 2.1.0 log instead, as the attachment
/// `findings-<uuid>.sarif`.
pub async fn get_findings(
    state: &Core,
    who: &Principal,
    uuid: &str,
    q: &Query,
    req: &Request,
) -> Out {
    valid_uuids(&[(uuid, "getFindingsByProject.arg0")])?;
    let source = source_param(q)?;
    let suppressed = q.flag("suppressed");
    let sarif = req
        .header("accept")
        .is_some_and(|a| a.to_ascii_lowercase().contains(SARIF));
    if sarif {
        let (bytes, _) =
            domain::findings_rendered(state, who, uuid, suppressed, source, "sarif", sarif_log)
                .await?;
        let disposition = format!("attachment; filename=\"findings-{uuid}.sarif\"");
        return Ok(named(SARIF, bytes, &disposition));
    }
    let (bytes, total) = domain::findings_rendered(
        state,
        who,
        uuid,
        suppressed,
        source,
        "json",
        wire::findings::findings_json,
    )
    .await?;
    Ok(total_count(
        http::with_body(StatusCode::OK, "application/json", bytes),
        total as i64,
    ))
}

fn sarif_log(fs: &[crate::model::dtrack::Finding]) -> Vec<u8> {
    wire::findings::sarif(fs, DT_VERSION)
}

/// # `GET /api/v1/finding/project/{uuid}/export`
///
/// The project's unsuppressed findings in the Finding Packaging Format 1.4 (DefectDojo's
/// import), `Content-Disposition: inline; filename=findings-<uuid>.fpf`.
pub async fn export_findings(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "exportFindingsByProject.arg0")])?;
    let timestamp = crate::time::rfc3339_utc(crate::time::now_secs());
    let bytes = domain::findings(state, who, uuid, false, None, move |p, fs| {
        wire::findings::fpf(p, fs, DT_VERSION, &timestamp)
    })
    .await?;
    let disposition = format!("inline; filename=findings-{uuid}.fpf");
    Ok(named("application/json", bytes, &disposition))
}

/// # `GET /api/v1/vulnerability/project/{uuid}`
///
/// The project's vulnerabilities as upstream lists them: a `Vulnerability` per affected
/// component, with that component in `components`; `suppressed` (bool) includes suppressed
/// ones; `X-Total-Count`. 404 for an unknown project, 403 outside the caller's ACL.
pub async fn get_project_vulnerabilities(
    state: &Core,
    who: &Principal,
    uuid: &str,
    q: &Query,
) -> Out {
    valid_uuids(&[(uuid, "getVulnerabilitiesByProject.arg0")])?;
    let fs = domain::project_vulnerabilities(state, who, uuid, q.flag("suppressed")).await?;
    let body: Vec<Value> = fs.iter().map(wire::component_vulnerability).collect();
    Ok(json_list(&body, fs.len() as i64))
}

/// A comma-separated list of upper-case names, each one of `allowed` (else 400).
fn names_param(q: &Query, name: &str, allowed: &[&str]) -> Result<Option<String>, Fail> {
    let Some(raw) = q.get(name).map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for v in raw.split(',').map(|v| v.trim().to_ascii_uppercase()) {
        if !allowed.contains(&v.as_str()) {
            return Err(Error::bad_request(format!(
                "Unknown {name} {v:?}; use one of {}",
                allowed.join(", ")
            ))
            .into());
        }
        out.push(v);
    }
    Ok(Some(out.join(",")))
}

/// # `GET /api/v1/finding`
///
/// The portfolio's findings (the ACL's projects only), paged, `X-Total-Count`: `showInactive`,
/// `showSuppressed`, `severity` and `analysisStatus` (comma-separated lists, 400 for unknown
/// names), `textSearchInput` (in the vulnerability id or title or the component name).
pub async fn get_all_findings(state: &Core, who: &Principal, q: &Query) -> Out {
    let severity = names_param(
        q,
        "severity",
        &["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO", "UNASSIGNED"],
    )?;
    let analysis_state = names_param(
        q,
        "analysisStatus",
        &[
            "NOT_SET",
            "EXPLOITABLE",
            "IN_TRIAGE",
            "FALSE_POSITIVE",
            "NOT_AFFECTED",
            "RESOLVED",
        ],
    )?;
    let text = q
        .get("textSearchInput")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.chars().take(255).collect());
    let page = q.page();
    let filter = FindingFilter {
        suppressed: q.flag("showSuppressed"),
        inactive: q.flag("showInactive"),
        severity,
        analysis_state,
        text,
        offset: page.offset.max(0),
        limit: page.limit,
        ..FindingFilter::default()
    };
    let (bytes, total) =
        domain::portfolio_findings(state, who, filter, wire::findings::portfolio_findings_json)
            .await?;
    Ok(total_count(
        http::with_body(StatusCode::OK, "application/json", bytes),
        total,
    ))
}

/// # `POST /api/v1/finding/project/{uuid}/analyze`
///
/// Queues a re-analysis of the project against the OSV data; 200 `{"token"}` that
/// `GET /event/token/{token}` follows.
pub async fn analyze_project(state: &Core, who: &Principal, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "analyzeProject.arg0")])?;
    let token = matching::request_analysis(state, who, uuid).await?;
    Ok(json(StatusCode::OK, &wire::bom_token(&token)))
}

/// # `GET /api/v1/vulnerability`
///
/// A page of all vulnerabilities (by vulnerability id), `searchText`/`filter` matching the id,
/// title or an alias; `X-Total-Count`.
pub async fn get_vulnerabilities(state: &Core, q: &Query) -> Out {
    let page = q.page();
    let search = q.search().map(|s| s.chars().take(255).collect());
    let (vs, total) =
        domain::vulnerabilities(state, search, page.offset.max(0), page.limit).await?;
    let body: Vec<Value> = vs.iter().map(wire::vulnerability).collect();
    Ok(json_list(&body, total))
}

/// # `GET /api/v1/vulnerability/source/{source}/vuln/{vuln}`
///
/// 404 `The vulnerability could not be found.`
pub async fn get_vulnerability_by_key(state: &Core, source: &str, vuln: &str) -> Out {
    let v = domain::vulnerability_by_key(state, source, vuln).await?;
    Ok(json(StatusCode::OK, &wire::vulnerability(&v)))
}

/// # `GET /api/v1/vulnerability/source/{source}/vuln/{vuln}/projects`
///
/// The projects affected (those the caller may see); `excludeInactive`; 404 for an unknown
/// vulnerability.
pub async fn get_vulnerability_projects(
    state: &Core,
    who: &Principal,
    source: &str,
    vuln: &str,
    q: &Query,
) -> Out {
    let ps =
        domain::vulnerability_projects(state, who, source, vuln, q.flag("excludeInactive")).await?;
    let body: Vec<Value> = ps.iter().map(wire::project).collect();
    Ok(json_list(&body, ps.len() as i64))
}

/// # `GET /api/v1/analysis?project=&component=&vulnerability=`
///
/// 400 `[{"input","message"}]` for malformed UUIDs, plain-text 400 for a missing `component`
/// or `vulnerability` (upstream crashes); 404 for an unknown project, component
/// (also one outside the named project), vulnerability, or `No analysis exists.`; 403 when
/// the ACL denies the component's project.
pub async fn get_analysis(state: &Core, who: &Principal, q: &Query) -> Out {
    // Upstream crashes on a missing parameter; a clear 400 instead.
    let (component, vuln) = match (q.get("component"), q.get("vulnerability")) {
        (Some(c), Some(v)) => (c, v),
        (None, Some(_)) => {
            return Err(Error::bad_request("The component parameter is required.").into());
        }
        (Some(_), None) => {
            return Err(Error::bad_request("The vulnerability parameter is required.").into());
        }
        (None, None) => {
            return Err(Error::bad_request(
                "The component and vulnerability parameters are required.",
            )
            .into());
        }
    };
    let project = q.get("project");
    let mut bad = Vec::new();
    if let Some(p) = project
        && !is_uuid(p)
    {
        bad.push((p.to_string(), "Project is not a valid UUID"));
    }
    if !is_uuid(component) {
        bad.push((component.to_string(), "Component is not a valid UUID"));
    }
    if !is_uuid(vuln) {
        bad.push((vuln.to_string(), "Vulnerability is not a valid UUID"));
    }
    if !bad.is_empty() {
        return Err(Fail::Checks(bad));
    }
    let a = domain::analysis(state, who, project, component, vuln).await?;
    Ok(json(StatusCode::OK, &wire::analysis(&a)))
}

fn pattern(field: &str, value: &Option<String>, ok: bool, msg: &str, out: &mut Vec<Violation>) {
    if let Some(v) = value
        && !ok
    {
        out.push(Violation {
            message: msg.into(),
            template: msg.into(),
            path: field.into(),
            invalid: Value::from(v.as_str()),
        });
    }
}

/// # `PUT /api/v1/analysis`
///
/// Creates or updates an analysis; absent enums reset to `NOT_SET`; appends the audit trail
/// (`Analysis: OLD → NEW`, …) and the comment. 200 Analysis; without a `project` the
/// component's own project is used (upstream crashes). 404 for a component outside
/// the named project, 403 when the ACL denies the component's project.
pub async fn update_analysis(state: &Core, who: &Principal, body: &[u8]) -> Out {
    let r: wire::AnalysisIn = json_body(body)?;
    let comment = trimmed(r.comment);
    let details = trimmed(r.analysis_details);
    let mut bad = Vec::new();
    let uuid_ok = |v: &Option<String>| v.as_deref().is_none_or(is_uuid);
    pattern(
        "project",
        &r.project,
        uuid_ok(&r.project),
        "The project must be a valid 36 character UUID",
        &mut bad,
    );
    for (field, v) in [
        ("component", &r.component),
        ("vulnerability", &r.vulnerability),
    ] {
        if v.is_none() {
            bad.push(Violation {
                message: "must not be null".into(),
                template: "{jakarta.validation.constraints.NotNull.message}".into(),
                path: field.into(),
                invalid: Value::Null,
            });
        }
        pattern(
            field,
            v,
            uuid_ok(v),
            &format!("The {field} must be a valid 36 character UUID"),
            &mut bad,
        );
    }
    let printable_ok = |v: &Option<String>| v.as_deref().is_none_or(printable);
    pattern(
        "analysisDetails",
        &details,
        printable_ok(&details),
        "The comment may only contain printable characters",
        &mut bad,
    );
    pattern(
        "comment",
        &comment,
        printable_ok(&comment),
        "The comment may only contain printable characters",
        &mut bad,
    );
    if !bad.is_empty() {
        return Err(Fail::Validation(bad));
    }
    // Without a project, the component's own project (upstream crashes).
    let change = AnalysisChange {
        project: r.project,
        component: r.component.unwrap_or_default(),
        vulnerability: r.vulnerability.unwrap_or_default(),
        state: r.analysis_state.map(wire::enum_name),
        justification: r.analysis_justification.map(wire::enum_name),
        response: r.analysis_response.map(wire::enum_name),
        details,
        comment,
        suppressed: r.is_suppressed,
    };
    let a = domain::update_analysis(state, who, change).await?;
    Ok(json(StatusCode::OK, &wire::analysis(&a)))
}
