//! Exchange endpoints: BOM export (`GET /bom/cyclonedx/project/{uuid}`), VEX export
//! (`GET /vex/cyclonedx/project/{uuid}`) and VEX upload (`PUT|POST /vex`).
//!
//! Thin handlers over `domain::dtrack::exchange`; documents are written by
//! `wire::cyclonedx`. Must not contain SQL or domain rules.

use base64::Engine as _;
use hyper::StatusCode;
use hyper::header::HeaderValue;
use serde_json::Value;

use crate::domain::Core;
use crate::domain::dtrack::bom::Refusal;
use crate::domain::dtrack::exchange::{self as domain, VexTarget};
use crate::error::Error;
use crate::http::{self, Request, Response};
use crate::model::dtrack::Principal;

use super::params::{Query, is_uuid, json_body, trimmed, valid_uuids};
use super::respond::{Fail, Out, Violation, json};
use super::wire;
use super::wire::cyclonedx::{self as cdx, Variant};

/// CycloneDX's JSON media type.
pub const CDX_JSON: &str = "application/vnd.cyclonedx+json";
/// CycloneDX's XML media type.
pub const CDX_XML: &str = "application/vnd.cyclonedx+xml";

fn refusal(r: Refusal) -> Fail {
    match r {
        Refusal::Error(e) => Fail::Error(e),
        Refusal::Invalid(i) => Fail::Raw(wire::bom_invalid(&i.detail, i.errors)),
    }
}

/// The spec version asked for (default 1.5); `None` when it is not one written here.
fn spec(q: &Query) -> Option<&'static str> {
    let asked = q.get("version").map(str::trim).filter(|v| !v.is_empty());
    match asked {
        None => Some("1.5"),
        Some(v) => cdx::SPEC_VERSIONS.iter().copied().find(|s| *s == v),
    }
}

fn document(bytes: Vec<u8>, media: &'static str, download: Option<String>) -> Response {
    match download {
        Some(name) => {
            let mut res = http::with_body(StatusCode::OK, "application/octet-stream", bytes);
            if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
                res.headers_mut().insert("content-disposition", v);
            }
            res
        }
        None => http::with_body(StatusCode::OK, media, bytes),
    }
}

fn stamp() -> (String, String) {
    let now = crate::time::now_millis() / 1000;
    let ts = crate::time::rfc3339_utc(now);
    (uuid::Uuid::new_v4().to_string(), ts)
}

/// # `GET /api/v1/bom/cyclonedx/project/{uuid}`
///
/// `format` JSON (default) or XML, `variant` `inventory` (default), `withVulnerabilities` or
/// `vdr`, `download` (as a file), `version` 1.5 (default) or 1.6. 400 `Invalid BOM format
/// specified.`, `Invalid BOM variant specified.`, `Invalid BOM version specified.`.
pub async fn export_bom(state: &Core, who: &Principal, uuid: &str, q: &Query) -> Out {
    valid_uuids(&[(uuid, "exportProjectAsCycloneDx.arg0")])?;
    let format = q
        .get("format")
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .unwrap_or("JSON");
    let xml = if format.eq_ignore_ascii_case("XML") {
        true
    } else if format.eq_ignore_ascii_case("JSON") {
        false
    } else {
        return Err(Error::bad_request("Invalid BOM format specified.").into());
    };
    let Some(spec) = spec(q) else {
        return Err(Error::bad_request("Invalid BOM version specified.").into());
    };
    let variant_name = q
        .get("variant")
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .unwrap_or("inventory")
        .to_ascii_lowercase();
    let variant = match variant_name.as_str() {
        "inventory" => Variant::Inventory,
        "withvulnerabilities" => Variant::WithVulnerabilities,
        "vdr" => Variant::Vdr,
        _ => return Err(Error::bad_request("Invalid BOM variant specified.").into()),
    };
    let e = domain::export(state, who, uuid, variant != Variant::Inventory).await?;
    let (serial, ts) = stamp();
    let (bytes, media, ext) = if xml {
        (
            cdx::xml_document(&e, variant, spec, &serial, &ts).into_bytes(),
            CDX_XML,
            "xml",
        )
    } else {
        let doc = cdx::json_document(&e, variant, spec, &serial, &ts);
        (
            serde_json::to_vec(&doc).map_err(|e| Error::internal(format!("serialize: {e}")))?,
            CDX_JSON,
            "json",
        )
    };
    let download = q
        .flag("download")
        .then(|| format!("{uuid}-{variant_name}.cdx.{ext}"));
    Ok(document(bytes, media, download))
}

/// # `GET /api/v1/vex/cyclonedx/project/{uuid}`
///
/// The project's findings with their analyses as a CycloneDX VEX (JSON); `download`,
/// `version`; 400 `Invalid CycloneDX version specified.`
pub async fn export_vex(state: &Core, who: &Principal, uuid: &str, q: &Query) -> Out {
    valid_uuids(&[(uuid, "exportProjectAsCycloneDx.arg0")])?;
    let Some(spec) = spec(q) else {
        return Err(Error::bad_request("Invalid CycloneDX version specified.").into());
    };
    let e = domain::export(state, who, uuid, true).await?;
    let (serial, ts) = stamp();
    let doc = cdx::json_document(&e, Variant::Vex, spec, &serial, &ts);
    let bytes = serde_json::to_vec(&doc).map_err(|e| Error::internal(format!("serialize: {e}")))?;
    let download = q.flag("download").then(|| format!("{uuid}-vex.cdx.json"));
    Ok(document(bytes, CDX_JSON, download))
}

fn violation(path: &str, msg: &str, template: &str, v: Option<&str>) -> Violation {
    Violation {
        message: msg.into(),
        template: template.into(),
        path: path.into(),
        invalid: v.map(Value::from).unwrap_or(Value::Null),
    }
}

/// The answer to an applied VEX: a token that reports "not processing" (the analyses are in
/// place when it is returned).
fn applied() -> Out {
    let token = uuid::Uuid::new_v4().to_string();
    Ok(json(StatusCode::OK, &wire::bom_token(&token)))
}

/// # `PUT /api/v1/vex`
///
/// JSON `{"project"}` or `{"projectName","projectVersion"}` with a Base64 `vex`; applies its
/// analyses to the project's findings; 200 `{"token"}`.
pub async fn put_vex(state: &Core, who: &Principal, body: &[u8]) -> Out {
    let r: wire::VexSubmitIn = json_body(body)?;
    let mut bad = Vec::new();
    let target = match &r.project {
        Some(p) => {
            if !is_uuid(p) {
                bad.push(violation(
                    "project",
                    "The project must be a valid 36 character UUID",
                    "The project must be a valid 36 character UUID",
                    Some(p),
                ));
            }
            VexTarget::Uuid(p.clone())
        }
        None => {
            let name = trimmed(r.project_name.clone());
            let version = trimmed(r.project_version.clone());
            for (path, v) in [("projectName", &name), ("projectVersion", &version)] {
                if v.is_none() {
                    bad.push(violation(
                        path,
                        "must not be blank",
                        "{jakarta.validation.constraints.NotBlank.message}",
                        None,
                    ));
                }
            }
            VexTarget::Name(name.unwrap_or_default(), version)
        }
    };
    let decoded = match &r.vex {
        None => {
            bad.push(violation(
                "vex",
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
                    "vex",
                    "The VEX must be Base64 encoded",
                    "The VEX must be Base64 encoded",
                    None,
                ));
                None
            }
        },
    };
    if !bad.is_empty() {
        return Err(Fail::Validation(bad));
    }
    domain::import_vex(state, who, target, decoded.unwrap_or_default())
        .await
        .map_err(refusal)?;
    applied()
}

/// # `POST /api/v1/vex`
///
/// `multipart/form-data` with `vex` and `project` or `projectName` + `projectVersion`;
/// 200 `{"token"}`.
pub async fn post_vex(state: &Core, who: &Principal, req: &Request) -> Out {
    let Some(parts) = super::bom::upload_parts(state, req).await? else {
        return Ok(http::empty(StatusCode::BAD_REQUEST));
    };
    let field = |name: &str| {
        parts
            .iter()
            .find(|p| p.name == name)
            .and_then(|p| String::from_utf8(p.data.clone()).ok())
    };
    let Some(vex) = parts.iter().find(|p| p.name == "vex") else {
        // As upstream: an upload without a document is an empty 200.
        return Ok(http::empty(StatusCode::OK));
    };
    let target = match field("project") {
        Some(p) => VexTarget::Uuid(p.trim().to_string()),
        None => VexTarget::Name(
            trimmed(field("projectName")).unwrap_or_default(),
            trimmed(field("projectVersion")),
        ),
    };
    domain::import_vex(state, who, target, vex.data.clone())
        .await
        .map_err(refusal)?;
    applied()
}
