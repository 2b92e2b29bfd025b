//! Issue 24 §1 (security), Dependency-Track documents: XML whose shape would make the parser's
//! work grow with the square of its size is refused before parsing, and a VEX aimed at a
//! project the caller may not see is refused before its document is parsed.

use hyper::Method;
use serde_json::json;

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, all, b64, text};

/// A CycloneDX 1.5 XML BOM with one component carrying `attrs` extra attributes.
fn many_attributes(attrs: usize) -> String {
    let extra: String = (0..attrs).map(|i| format!(" x{i}=\"v\"")).collect();
    format!(
        r#"<?xml version="1.0"?><bom xmlns="http://cyclonedx.org/schema/bom/1.5" version="1"><components><component type="library"{extra}><name>lib</name><version>1.0</version></component></components></bom>"#
    )
}

/// The same BOM with `n` namespace declarations spread over nested elements.
fn many_namespaces(n: usize) -> String {
    let open: String = (0..n)
        .map(|i| format!("<group xmlns:p{i}=\"urn:x:{i}\">"))
        .collect();
    let close = "</group>".repeat(n);
    format!(
        r#"<?xml version="1.0"?><bom xmlns="http://cyclonedx.org/schema/bom/1.5" version="1"><components><component type="library"><name>lib</name>{open}{close}</component></components></bom>"#
    )
}

#[tokio::test]
async fn quadratic_xml_boms_and_vex_are_refused_and_change_nothing() {
    let dt = Dt::start().await;
    let up = dt.key("Uploader", &all()).await;
    let p = dt
        .project(&up, json!({"name": "xml", "version": "1"}))
        .await;
    let pu = p["uuid"].as_str().unwrap().to_string();

    // Within the bounds: accepted (a CycloneDX component has a handful of attributes).
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            &up,
            &json!({"project": pu, "bom": b64(&many_attributes(40))}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);

    for (doc, why) in [
        (many_attributes(5_000), "more than 64 attributes"),
        (many_namespaces(200), "more than 64 namespaces"),
    ] {
        for path in ["/api/v1/bom", "/api/v1/vex"] {
            let field = if path.ends_with("bom") { "bom" } else { "vex" };
            let r = dt
                .json(
                    Method::PUT,
                    path,
                    &up,
                    &json!({"project": pu, field: b64(&doc)}),
                )
                .await;
            assert_eq!(r.status, 400, "{path}: {:?}", r.raw);
            assert_eq!(r.body["title"], "The uploaded BOM is invalid", "{path}");
            let detail = r.body["detail"].as_str().unwrap_or_default();
            assert!(detail.contains(why), "{path}: {detail}");
        }
    }
    // Nothing was created by the refusals: only the one accepted upload's project exists.
    let r = dt
        .get("/api/v1/project?pageSize=100&pageNumber=1", &up)
        .await;
    assert_eq!(r.body.as_array().unwrap().len(), 1, "{:?}", r.raw);
}

#[tokio::test]
async fn a_vex_for_a_hidden_project_is_refused_before_its_document_is_read() {
    let dt = Dt::start_with(|c| c.dtrack.acl_enabled = true).await;
    let admin = dt.key("Admins", &all()).await;
    let team = dt
        .key(
            "Devs",
            &[
                P::ViewPortfolio,
                P::ViewVulnerability,
                P::VulnerabilityAnalysis,
            ],
        )
        .await;
    let hidden = dt
        .project(&admin, json!({"name": "hidden", "version": "1"}))
        .await;
    let hidden = hidden["uuid"].as_str().unwrap().to_string();
    // The document is over the bounds and not even well-formed, but the caller learns only
    // that the project is not theirs: the parser never ran for them.
    let bad = format!("{}<unclosed", many_attributes(5_000));
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/vex",
            &team,
            &json!({"project": hidden, "vex": b64(&bad)}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (403, "Access to the specified project is forbidden"),
        "{:?}",
        r.raw
    );
    // The same for a multipart VEX and for a project that does not exist.
    let boundary = "----outpost-vex";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"projectName\"\r\n\r\nnobody\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"vex\"; filename=\"vex.xml\"\r\n\r\n{bad}\r\n--{boundary}--\r\n"
    );
    let ct = format!("multipart/form-data; boundary={boundary}");
    let r = dt
        .req(
            Method::POST,
            "/api/v1/vex",
            &[("X-Api-Key", &team.key), ("content-type", &ct)],
            body,
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found."),
        "{:?}",
        r.raw
    );
}
