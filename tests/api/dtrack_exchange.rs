//! Dependency-Track exchange: BOM export (JSON, XML, variants) and its round trip through the
//! BOM upload, VEX export, and VEX import applying analyses with the audit trail.

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, Key, all, b64, text, wait_done};

const NOBODY: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

/// A project with two components (one with awkward characters) and a finding on "lib".
async fn fixture(dt: &Dt, admin: &Key) -> (String, String, String) {
    let (project, component, vuln) = dt.finding(admin, "shop", "1.0").await;
    let r = dt
        .json(
            Method::PUT,
            &format!("/api/v1/component/project/{project}"),
            admin,
            &json!({"name": "a<b>&\"c'", "version": "2.0", "purl": "pkg:npm/odd@2.0",
                "sha256": "a".repeat(64), "license": "MIT"}),
        )
        .await;
    assert_eq!(r.status, 201);
    (project, component, vuln)
}

#[tokio::test]
async fn bom_export_writes_json_and_xml_as_asked() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let (project, component, vuln) = fixture(&dt, &admin).await;

    let r = dt
        .get(&format!("/api/v1/bom/cyclonedx/project/{project}"), &admin)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "application/vnd.cyclonedx+json");
    let doc: Value = serde_json::from_slice(&r.raw).unwrap();
    assert_eq!(
        (doc["bomFormat"].clone(), doc["specVersion"].clone()),
        (json!("CycloneDX"), json!("1.5"))
    );
    assert_eq!(doc["metadata"]["component"]["bom-ref"], json!(project));
    assert_eq!(doc["metadata"]["component"]["name"], "shop");
    let comps = doc["components"].as_array().unwrap();
    assert_eq!(comps.len(), 2);
    let lib = comps.iter().find(|c| c["name"] == "lib").unwrap();
    assert_eq!(lib["bom-ref"], json!(component));
    let odd = comps
        .iter()
        .find(|c| c["purl"] == "pkg:npm/odd@2.0")
        .unwrap();
    assert_eq!(
        odd["hashes"][0],
        json!({"alg": "SHA-256", "content": "a".repeat(64)})
    );
    assert_eq!(odd["licenses"][0]["license"]["name"], "MIT");
    assert!(
        doc.get("vulnerabilities").is_none(),
        "the inventory has no vulnerabilities"
    );

    let r = dt
        .get(
            &format!("/api/v1/bom/cyclonedx/project/{project}?variant=withVulnerabilities"),
            &admin,
        )
        .await;
    let doc: Value = serde_json::from_slice(&r.raw).unwrap();
    let vulns = doc["vulnerabilities"].as_array().unwrap();
    assert_eq!(vulns.len(), 1);
    assert_eq!(vulns[0]["bom-ref"], json!(vuln));
    assert_eq!(vulns[0]["id"], "INT-1");
    assert_eq!(vulns[0]["affects"], json!([{"ref": component}]));
    assert_eq!(vulns[0]["ratings"][0]["severity"], "high");

    let r = dt
        .get(
            &format!("/api/v1/bom/cyclonedx/project/{project}?format=xml&variant=vdr&version=1.6"),
            &admin,
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "application/vnd.cyclonedx+xml");
    let xml = text(&r);
    assert!(xml.contains("xmlns=\"http://cyclonedx.org/schema/bom/1.6\""));
    assert!(
        xml.contains("<name>a&lt;b&gt;&amp;&quot;c&apos;</name>"),
        "{xml}"
    );
    assert!(!xml.contains("a<b>"));
    assert!(xml.contains("<id>INT-1</id>"));
    let parsed = roxmltree::Document::parse(xml).expect("well-formed XML");
    assert_eq!(parsed.root_element().tag_name().name(), "bom");

    let r = dt
        .get(
            &format!("/api/v1/bom/cyclonedx/project/{project}?download=true"),
            &admin,
        )
        .await;
    assert_eq!(r.headers["content-type"], "application/octet-stream");
    assert_eq!(
        r.headers["content-disposition"],
        format!("attachment; filename=\"{project}-inventory.cdx.json\"").as_str()
    );

    for (query, msg) in [
        ("format=YAML", "Invalid BOM format specified."),
        ("variant=everything", "Invalid BOM variant specified."),
        ("version=9.9", "Invalid BOM version specified."),
    ] {
        let r = dt
            .get(
                &format!("/api/v1/bom/cyclonedx/project/{project}?{query}"),
                &admin,
            )
            .await;
        assert_eq!((r.status, text(&r)), (400, msg), "{query}");
    }
    let r = dt
        .get(&format!("/api/v1/bom/cyclonedx/project/{NOBODY}"), &admin)
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
    let nobody = dt.key("Nobody", &[P::BomUpload]).await;
    let r = dt
        .get(&format!("/api/v1/bom/cyclonedx/project/{project}"), &nobody)
        .await;
    assert_eq!(r.status, 403);
}

#[tokio::test]
async fn exported_boms_import_back_as_the_same_inventory() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let (project, _, _) = fixture(&dt, &admin).await;
    let inventory = |p: String| {
        let dt = &dt;
        let admin = &admin;
        async move {
            let r = dt
                .get(&format!("/api/v1/component/project/{p}"), admin)
                .await;
            let mut v: Vec<(Value, Value, Value, Value)> = r
                .body
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c["name"].clone(),
                        c["version"].clone(),
                        c["purl"].clone(),
                        c["sha256"].clone(),
                    )
                })
                .collect();
            v.sort_by_key(|t| t.0.to_string());
            v
        }
    };
    let original = inventory(project.clone()).await;
    for (format, name) in [("json", "copy-json"), ("xml", "copy-xml")] {
        let r = dt
            .get(
                &format!("/api/v1/bom/cyclonedx/project/{project}?format={format}"),
                &admin,
            )
            .await;
        assert_eq!(r.status, 200);
        let doc = text(&r).to_string();
        let r = dt
            .json(
                Method::PUT,
                "/api/v1/bom",
                &admin,
                &json!({"projectName": name, "projectVersion": "1", "autoCreate": true, "bom": b64(&doc)}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", text(&r));
        wait_done(&dt, &admin, r.body["token"].as_str().unwrap()).await;
        let copy = dt
            .get(
                &format!("/api/v1/project/lookup?name={name}&version=1"),
                &admin,
            )
            .await;
        let copied = inventory(copy.body["uuid"].as_str().unwrap().to_string()).await;
        assert_eq!(copied, original, "{format}");
    }
}

async fn put_vex(dt: &Dt, k: &Key, body: Value) -> crate::support::Reply {
    dt.json(Method::PUT, "/api/v1/vex", k, &body).await
}

#[tokio::test]
async fn vex_export_and_import_apply_analyses_with_the_audit_trail() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let (project, component, vuln) = fixture(&dt, &admin).await;

    let r = dt
        .get(&format!("/api/v1/vex/cyclonedx/project/{project}"), &admin)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "application/vnd.cyclonedx+json");
    let mut doc: Value = serde_json::from_slice(&r.raw).unwrap();
    assert!(
        doc.get("components").is_none(),
        "a VEX lists vulnerabilities only"
    );
    assert_eq!(
        doc["vulnerabilities"][0]["affects"],
        json!([{"ref": component}])
    );

    // A tool answers the VEX: not affected, code not reachable, with details.
    doc["vulnerabilities"][0]["analysis"] = json!({"state": "not_affected",
        "justification": "code_not_reachable", "response": ["will_not_fix"], "detail": "never called"});
    let r = put_vex(
        &dt,
        &admin,
        json!({"project": project, "vex": b64(&doc.to_string())}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", text(&r));
    assert!(r.body["token"].is_string());

    let r = dt
        .get(
            &format!(
                "/api/v1/analysis?project={project}&component={component}&vulnerability={vuln}"
            ),
            &admin,
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        (
            r.body["analysisState"].clone(),
            r.body["analysisJustification"].clone(),
            r.body["analysisResponse"].clone(),
            r.body["analysisDetails"].clone(),
            r.body["isSuppressed"].clone()
        ),
        (
            json!("NOT_AFFECTED"),
            json!("CODE_NOT_REACHABLE"),
            json!("WILL_NOT_FIX"),
            json!("never called"),
            json!(true)
        )
    );
    let trail: Vec<(&str, &str)> = r.body["analysisComments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["comment"].as_str().unwrap(),
                c["commenter"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        trail,
        [
            ("Analysis: NOT_SET → NOT_AFFECTED", "CycloneDX VEX"),
            (
                "Justification: NOT_SET → CODE_NOT_REACHABLE",
                "CycloneDX VEX"
            ),
            ("Vendor Response: NOT_SET → WILL_NOT_FIX", "CycloneDX VEX"),
            ("Details: never called", "CycloneDX VEX"),
            ("Suppressed", "CycloneDX VEX"),
        ]
    );

    // The VEX export now carries the analysis; importing it again changes nothing.
    let r = dt
        .get(
            &format!("/api/v1/vex/cyclonedx/project/{project}?download=true"),
            &admin,
        )
        .await;
    assert_eq!(
        r.headers["content-disposition"],
        format!("attachment; filename=\"{project}-vex.cdx.json\"").as_str()
    );
    let again: Value = serde_json::from_slice(&r.raw).unwrap();
    assert_eq!(
        again["vulnerabilities"][0]["analysis"]["state"],
        "not_affected"
    );
    let boundary = "----outpost-vex";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"projectName\"\r\n\r\nshop\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"projectVersion\"\r\n\r\n1.0\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"vex\"; filename=\"vex.json\"\r\n\r\n{again}\r\n--{boundary}--\r\n"
    );
    let ct = format!("multipart/form-data; boundary={boundary}");
    let r = dt
        .req(
            Method::POST,
            "/api/v1/vex",
            &[("X-Api-Key", &admin.key), ("content-type", &ct)],
            body,
        )
        .await;
    assert_eq!(r.status, 200, "{}", text(&r));
    let r = dt
        .get(
            &format!(
                "/api/v1/analysis?project={project}&component={component}&vulnerability={vuln}"
            ),
            &admin,
        )
        .await;
    assert_eq!(
        r.body["analysisComments"].as_array().unwrap().len(),
        5,
        "no new trail"
    );

    // Errors change nothing.
    let r = put_vex(
        &dt,
        &admin,
        json!({"project": NOBODY, "vex": b64(&doc.to_string())}),
    )
    .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
    let r = put_vex(&dt, &admin, json!({"project": project, "vex": "%%%"})).await;
    assert_eq!((r.status, r.body[0]["path"].clone()), (400, json!("vex")));
    let r = put_vex(
        &dt,
        &admin,
        json!({"project": project, "vex": b64("not json")}),
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["title"], "The uploaded BOM is invalid");
    let mut bad = doc.clone();
    bad["vulnerabilities"][0]["analysis"]["state"] = json!("fine");
    let r = put_vex(
        &dt,
        &admin,
        json!({"project": project, "vex": b64(&bad.to_string())}),
    )
    .await;
    assert_eq!(r.status, 400);
    let r = put_vex(&dt, &admin, json!({"projectName": "shop"})).await;
    assert_eq!(r.status, 400);
    let viewer = dt
        .key("Viewers", &[P::ViewPortfolio, P::ViewVulnerability])
        .await;
    let r = put_vex(
        &dt,
        &viewer,
        json!({"project": project, "vex": b64(&doc.to_string())}),
    )
    .await;
    assert_eq!(r.status, 403, "VEX upload needs VULNERABILITY_ANALYSIS");
    let r = dt
        .get(&format!("/api/v1/vex/cyclonedx/project/{project}"), &viewer)
        .await;
    assert_eq!(r.status, 403);
    let coll = dt
        .project(
            &admin,
            json!({"name": "coll", "collectionLogic": "AGGREGATE_DIRECT_CHILDREN"}),
        )
        .await;
    let r = put_vex(
        &dt,
        &admin,
        json!({"project": coll["uuid"], "vex": b64(&doc.to_string())}),
    )
    .await;
    assert_eq!(
        (r.status, text(&r)),
        (400, "VEX cannot be uploaded to collection project.")
    );
}

#[tokio::test]
async fn vex_statements_for_the_whole_project_reach_every_affected_component() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let (project, component, vuln) = fixture(&dt, &admin).await;
    let vex = json!({
        "bomFormat": "CycloneDX", "specVersion": "1.5", "version": 1,
        "metadata": {"component": {"type": "application", "name": "shop", "bom-ref": "root"}},
        "vulnerabilities": [
            {"id": "INT-1", "source": {"name": "INTERNAL"}, "analysis": {"state": "exploitable"},
             "affects": [{"ref": "root"}]},
            {"id": "UNKNOWN-9", "source": {"name": "INTERNAL"}, "analysis": {"state": "resolved"},
             "affects": [{"ref": "root"}]},
            {"id": "INT-1", "source": {"name": "INTERNAL"}, "affects": [{"ref": "root"}]}
        ]
    });
    let r = put_vex(
        &dt,
        &admin,
        json!({"project": project, "vex": b64(&vex.to_string())}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", text(&r));
    let r = dt
        .get(
            &format!(
                "/api/v1/analysis?project={project}&component={component}&vulnerability={vuln}"
            ),
            &admin,
        )
        .await;
    assert_eq!(
        (
            r.body["analysisState"].clone(),
            r.body["isSuppressed"].clone()
        ),
        (json!("EXPLOITABLE"), json!(false))
    );
}

#[tokio::test]
async fn xml_vex_documents_are_applied_too() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let (project, component, vuln) = fixture(&dt, &admin).await;
    let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<bom xmlns="http://cyclonedx.org/schema/bom/1.5" version="1">
  <components>
    <component type="library" bom-ref="lib-ref"><name>lib</name><version>1.0</version></component>
  </components>
  <vulnerabilities>
    <vulnerability>
      <id>INT-1</id>
      <source><name>INTERNAL</name></source>
      <analysis>
        <state>false_positive</state>
        <responses><response>can_not_fix</response></responses>
        <detail>scanner confusion &amp; noise</detail>
      </analysis>
      <affects><target><ref>lib-ref</ref></target></affects>
    </vulnerability>
  </vulnerabilities>
</bom>"#;
    let r = put_vex(&dt, &admin, json!({"project": project, "vex": b64(xml)})).await;
    assert_eq!(r.status, 200, "{}", text(&r));
    let r = dt
        .get(
            &format!(
                "/api/v1/analysis?project={project}&component={component}&vulnerability={vuln}"
            ),
            &admin,
        )
        .await;
    assert_eq!(
        (
            r.body["analysisState"].clone(),
            r.body["analysisResponse"].clone(),
            r.body["analysisDetails"].clone(),
            r.body["isSuppressed"].clone()
        ),
        (
            json!("FALSE_POSITIVE"),
            json!("CAN_NOT_FIX"),
            json!("scanner confusion & noise"),
            json!(true)
        )
    );
}

#[tokio::test]
async fn exports_and_vex_uploads_respect_the_portfolio_acl() {
    let dt = Dt::start_with(|c| c.dtrack.acl_enabled = true).await;
    let admin = dt.key("Admins", &all()).await;
    let other = dt
        .key(
            "Others",
            &[
                P::ViewPortfolio,
                P::VulnerabilityAnalysis,
                P::ViewVulnerability,
            ],
        )
        .await;
    let (project, _, _) = fixture(&dt, &admin).await;
    for path in [
        format!("/api/v1/bom/cyclonedx/project/{project}"),
        format!("/api/v1/vex/cyclonedx/project/{project}"),
    ] {
        let r = dt.get(&path, &other).await;
        assert_eq!(
            (r.status, text(&r)),
            (403, "Access to the specified project is forbidden"),
            "{path}"
        );
    }
    let vex = json!({"bomFormat": "CycloneDX", "specVersion": "1.5", "version": 1});
    let r = put_vex(
        &dt,
        &other,
        json!({"project": project, "vex": b64(&vex.to_string())}),
    )
    .await;
    assert_eq!(
        (r.status, text(&r)),
        (403, "Access to the specified project is forbidden")
    );
    let r = dt
        .get(&format!("/api/v1/bom/cyclonedx/project/{project}"), &admin)
        .await;
    assert_eq!(r.status, 200, "administrators see every project");
}
