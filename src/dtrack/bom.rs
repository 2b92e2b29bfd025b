//! BOM upload endpoints and upload-token status.
//!
//! Thin handlers over `domain::dtrack::bom`: the document is validated and stored before the
//! token is returned; the import runs in the background.
//!
//! Must not contain SQL or domain rules.

use base64::Engine as _;
use hyper::StatusCode;
use serde_json::Value;

use crate::domain::Core;
use crate::domain::dtrack::bom::{self as domain, Refusal, Target};
use crate::http::{self, Request, multipart};
use crate::model::dtrack::Principal;

use super::params::{is_uuid, json_body, printable, trimmed, valid_uuids};
use super::respond::{Fail, Out, Violation, json};
use super::wire;

/// Upstream's limit on a Base64 string in a JSON body (Jackson's `maxStringLength`).
const MAX_JSON_STRING: usize = 20_000_000;

fn refusal(r: Refusal) -> Fail {
    match r {
        Refusal::Error(e) => Fail::Error(e),
        Refusal::Invalid(i) => Fail::Raw(wire::bom_invalid(&i.detail, i.errors)),
    }
}

fn token(t: String) -> Out {
    Ok(json(StatusCode::OK, &wire::bom_token(&t)))
}

fn tags(list: impl IntoIterator<Item = String>) -> Vec<String> {
    list.into_iter()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

fn violation(path: &str, msg: &str, template: &str, v: Option<&str>) -> Violation {
    Violation {
        message: msg.into(),
        template: template.into(),
        path: path.into(),
        invalid: v.map(Value::from).unwrap_or(Value::Null),
    }
}

/// # `PUT /api/v1/bom`
///
/// JSON `BomSubmitRequest` with a Base64 `bom`: by `project`, or by `projectName` and
/// `projectVersion` (with `autoCreate`, a parent and `isLatest`). 200 `{"token"}`.
pub async fn put_bom(state: &Core, who: &Principal, body: &[u8]) -> Out {
    let r: wire::BomSubmitIn = json_body(body)?;
    let mut bad = Vec::new();
    let bom = r.bom.clone();
    if let Some(b) = &bom
        && b.len() > MAX_JSON_STRING
    {
        return Err(Fail::Problem {
            title: "The provided JSON payload could not be mapped",
            detail: format!(
                "The BOM is too large to be transmitted safely via Base64 encoded JSON value. Please use the \"POST /api/v1/bom\" endpoint with Content-Type \"multipart/form-data\" instead. Original cause: String value length ({}) exceeds the maximum allowed ({MAX_JSON_STRING}, from `StreamReadConstraints.getMaxStringLength()`) (through reference chain: org.dependencytrack.resources.v1.vo.BomSubmitRequest[\"bom\"])",
                b.len()
            ),
        });
    }
    let name = trimmed(r.project_name.clone());
    let version = trimmed(r.project_version.clone());
    if let Some(p) = &r.project {
        if !is_uuid(p) {
            bad.push(violation(
                "project",
                "The project must be a valid 36 character UUID",
                "The project must be a valid 36 character UUID",
                Some(p),
            ));
        }
    } else {
        for (path, v, what) in [
            ("projectName", &name, "project name"),
            ("projectVersion", &version, "project version"),
        ] {
            match v {
                None => bad.push(violation(
                    path,
                    "must not be blank",
                    "{jakarta.validation.constraints.NotBlank.message}",
                    None,
                )),
                Some(s) if !printable(s) => {
                    let msg = format!("The {what} may only contain printable characters");
                    bad.push(violation(path, &msg, &msg, Some(s)));
                }
                Some(_) => {}
            }
        }
    }
    let decoded = match &bom {
        None => {
            bad.push(violation(
                "bom",
                "must not be null",
                "{jakarta.validation.constraints.NotNull.message}",
                None,
            ));
            None
        }
        Some(b) => match base64::engine::general_purpose::STANDARD.decode(b) {
            Ok(d) => Some(d),
            Err(_) => {
                bad.push(violation(
                    "bom",
                    "The BOM must be Base64 encoded",
                    "The BOM must be Base64 encoded",
                    Some(b),
                ));
                None
            }
        },
    };
    if let Some(u) = &r.parent_uuid
        && !is_uuid(u)
    {
        bad.push(violation(
            "parentUUID",
            "The parent UUID must be a valid 36 character UUID",
            "The parent UUID must be a valid 36 character UUID",
            Some(u),
        ));
    }
    if !bad.is_empty() {
        return Err(Fail::Validation(bad));
    }
    let target = match r.project {
        Some(p) => Target::Uuid(p),
        None => Target::Name {
            name: name.unwrap_or_default(),
            version,
            auto_create: r.auto_create,
            parent_uuid: r.parent_uuid,
            parent_name: trimmed(r.parent_name).map(|n| (n, trimmed(r.parent_version))),
            is_latest: r.is_latest,
        },
    };
    let tag_names = tags(
        r.project_tags
            .unwrap_or_default()
            .into_iter()
            .map(|t| t.name),
    );
    let t = domain::accept(state, who, target, tag_names, decoded.unwrap_or_default())
        .await
        .map_err(refusal)?;
    token(t)
}

/// The parts of a `multipart/form-data` upload (a BOM or a VEX), split on the document thread;
/// `None` when the body is not well-formed multipart (upstream answers an empty 400).
pub(super) async fn upload_parts(
    state: &Core,
    req: &Request,
) -> Result<Option<Vec<multipart::Part>>, Fail> {
    let Some(boundary) = req.header("content-type").and_then(multipart::boundary) else {
        return Ok(None);
    };
    let body = req.body.clone();
    Ok(state
        .db
        .documents(move || multipart::parse(&body, &boundary))
        .await?)
}

/// # `POST /api/v1/bom`
///
/// `multipart/form-data` with `bom` (the document) and `project` or `projectName` +
/// `projectVersion`, `autoCreate`, `parentUUID` or `parentName` + `parentVersion`, `isLatest`,
/// `projectTags` (comma-separated). 200 `{"token"}`.
pub async fn post_bom(state: &Core, who: &Principal, req: &Request) -> Out {
    let Some(parts) = upload_parts(state, req).await? else {
        return Ok(http::empty(StatusCode::BAD_REQUEST));
    };
    let field = |name: &str| {
        parts
            .iter()
            .find(|p| p.name == name)
            .and_then(|p| String::from_utf8(p.data.clone()).ok())
    };
    let flag = |name: &str| field(name).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let Some(bom) = parts.iter().find(|p| p.name == "bom") else {
        // Upstream answers an upload without a document with an empty 200.
        return Ok(http::empty(StatusCode::OK));
    };
    let target = match field("project") {
        Some(p) => Target::Uuid(p),
        None => Target::Name {
            name: trimmed(field("projectName")).unwrap_or_default(),
            version: trimmed(field("projectVersion")),
            auto_create: flag("autoCreate"),
            parent_uuid: field("parentUUID"),
            parent_name: trimmed(field("parentName")).map(|n| (n, trimmed(field("parentVersion")))),
            is_latest: flag("isLatest"),
        },
    };
    let tag_names = tags(
        field("projectTags")
            .unwrap_or_default()
            .split(',')
            .map(str::to_string)
            .collect::<Vec<_>>(),
    );
    let t = domain::accept(state, who, target, tag_names, bom.data.clone())
        .await
        .map_err(refusal)?;
    token(t)
}

/// # `GET /api/v1/event/token/{uuid}` (and the deprecated `GET /api/v1/bom/token/{uuid}`)
///
/// `{"processing": bool}`: true while the upload waits or is being imported.
pub async fn token_status(state: &Core, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "isTokenBeingProcessed.arg0")])?;
    let processing = domain::is_processing(state, uuid).await?;
    Ok(json(StatusCode::OK, &wire::token_processing(processing)))
}
