//! Dependency-Track BOM uploads: acceptance, background import, tokens, restarts.

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, Key, all, b64, text, wait_done};

fn bom(components: Value) -> String {
    json!({"bomFormat": "CycloneDX", "specVersion": "1.5", "version": 1, "components": components})
        .to_string()
}

async fn names(dt: &Dt, k: &Key, project: &str) -> Vec<String> {
    let r = dt
        .get(&format!("/api/v1/component/project/{project}"), k)
        .await;
    r.body
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn put_with_auto_create_imports_in_the_background() {
    let dt = Dt::start().await;
    let ci = dt
        .key(
            "Automation",
            &[P::BomUpload, P::ProjectCreationUpload, P::ViewPortfolio],
        )
        .await;
    let admin = dt.key("Admins", &all()).await;
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/policy",
            &admin,
            &json!({"name": "no-gpl", "violationState": "FAIL"}),
        )
        .await;
    let policy = r.body["uuid"].as_str().unwrap().to_string();
    dt.json(
        Method::PUT,
        &format!("/api/v1/policy/{policy}/condition"),
        &admin,
        &json!({"subject": "LICENSE", "operator": "IS", "value": "GPL-3.0-only"}),
    )
    .await;
    let doc = bom(json!([
        {"type": "library", "name": "a", "version": "1", "purl": "pkg:npm/a@1", "licenses": [{"license": {"id": "MIT"}}]},
        {"type": "library", "name": "b", "version": "2", "licenses": [{"license": {"id": "GPL-3.0-only"}}],
         "components": [{"type": "library", "name": "c", "version": "3"}]}
    ]));
    let r = dt
        .json(Method::PUT, "/api/v1/bom", &ci, &json!({"projectName": "svc", "projectVersion": "1.0", "autoCreate": true, "projectTags": [{"name": "team-a"}], "bom": b64(&doc)}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let token = r.body["token"].as_str().unwrap().to_string();
    assert_eq!(token.len(), 36);
    wait_done(&dt, &ci, &token).await;
    let r = dt
        .get("/api/v1/project/lookup?name=svc&version=1.0", &ci)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["lastBomImportFormat"], "CycloneDX 1.5");
    assert!(r.body["lastBomImport"].is_i64());
    assert_eq!(r.body["tags"], json!([{"name": "team-a"}]));
    let project = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(names(&dt, &ci, &project).await, ["a", "b", "c"]);
    let r = dt
        .get(&format!("/api/v1/violation/project/{project}"), &admin)
        .await;
    assert_eq!(r.headers["x-total-count"], "1");
    assert_eq!(r.body[0]["component"]["name"], "b");
    assert_eq!(r.body[0]["type"], "LICENSE");
    let r = dt
        .get(
            &format!("/api/v1/badge/violations/project/{project}"),
            &admin,
        )
        .await;
    assert!(text(&r).contains(
        "<!-- Fail -->\n    <text x=\"62\" y=\"15\" fill=\"#000\" opacity=\"0.25\">1</text>"
    ));
}

#[tokio::test]
async fn multipart_upload_reconciles_components() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let p = dt
        .project(&admin, json!({"name": "app", "version": "1"}))
        .await;
    let pu = p["uuid"].as_str().unwrap().to_string();
    let keep = dt.component(&admin, &pu, "keep").await;
    dt.component(&admin, &pu, "drop").await;
    let doc = bom(json!([
        {"type": "library", "name": "keep", "version": "1.0"},
        {"type": "framework", "name": "new", "version": "0.1"}
    ]));
    let boundary = "----outpost-test";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"project\"\r\n\r\n{pu}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"bom\"; filename=\"bom.json\"\r\nContent-Type: application/json\r\n\r\n{doc}\r\n--{boundary}--\r\n"
    );
    let ct = format!("multipart/form-data; boundary={boundary}");
    let r = dt
        .req(
            Method::POST,
            "/api/v1/bom",
            &[("X-Api-Key", &admin.key), ("content-type", &ct)],
            body,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    wait_done(&dt, &admin, r.body["token"].as_str().unwrap()).await;
    assert_eq!(names(&dt, &admin, &pu).await, ["keep", "new"]);
    let r = dt
        .get(
            &format!("/api/v1/bom/token/{}", r.body["token"].as_str().unwrap()),
            &admin,
        )
        .await;
    assert_eq!(r.body, json!({"processing": false}));
    let r = dt.get(&format!("/api/v1/component/{keep}"), &admin).await;
    assert_eq!(r.status, 200, "the matching component keeps its identity");
    let r = dt
        .req(
            Method::POST,
            "/api/v1/bom",
            &[
                ("X-Api-Key", &admin.key),
                ("content-type", "application/json"),
            ],
            "{}",
        )
        .await;
    assert_eq!(r.status, 415);
}

#[tokio::test]
async fn refused_uploads_change_nothing() {
    let dt = Dt::start().await;
    let ci = dt
        .key("Automation", &[P::BomUpload, P::ViewPortfolio])
        .await;
    let creator = dt
        .key(
            "Creators",
            &[P::BomUpload, P::ProjectCreationUpload, P::ViewPortfolio],
        )
        .await;
    let bad = b64(
        r#"{"bomFormat":"CycloneDX","specVersion":"1.2","serialNumber":"urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79","version":1,"components":[{"type":"foo","name":"acme-library","version":"1.0.0"}]}"#,
    );
    let r = dt
        .json(Method::PUT, "/api/v1/bom", &creator, &json!({"projectName": "acme-app", "projectVersion": "1.0.0", "autoCreate": true, "bom": bad}))
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.headers["content-type"], "application/problem+json");
    assert_eq!(
        r.body,
        json!({"status": 400, "title": "The uploaded BOM is invalid", "detail": "Schema validation failed",
               "errors": ["$.components[0].type: does not have a value in the enumeration [\"application\", \"framework\", \"library\", \"container\", \"operating-system\", \"device\", \"firmware\", \"file\"]"]})
    );
    let r = dt
        .get(
            "/api/v1/project/lookup?name=acme-app&version=1.0.0",
            &creator,
        )
        .await;
    assert_eq!(r.status, 404, "the auto-created project was rolled back");
    let good = b64(&bom(json!([])));
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            &ci,
            &json!({"projectName": "new", "projectVersion": "1", "autoCreate": true, "bom": good}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (
            401,
            "The principal does not have permission to create project."
        )
    );
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            &ci,
            &json!({"projectName": "new", "projectVersion": "1", "bom": good}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            &ci,
            &json!({"projectName": "new", "bom": good}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body[0]["path"], "projectVersion");
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            &ci,
            &json!({"projectName": "new", "projectVersion": "1", "bom": "%%%"}),
        )
        .await;
    assert_eq!(r.body[0]["message"], "The BOM must be Base64 encoded");
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            &ci,
            &json!({"projectName": "new", "projectVersion": "1"}),
        )
        .await;
    assert_eq!(r.headers["content-type"], "application/problem+json");
    let r = dt.get("/api/v1/event/token/not-a-uuid", &ci).await;
    assert_eq!(r.status, 400);
    let r = dt.req(Method::PUT, "/api/v1/bom", &[], "{}").await;
    assert_eq!(r.status, 401);
    let viewer = dt.key("Viewer", &[P::ViewPortfolio]).await;
    let r = dt
        .json(Method::PUT, "/api/v1/bom", &viewer, &json!({"bom": good}))
        .await;
    assert_eq!(r.status, 403);
    let r = dt.get("/api/v1/project", &creator).await;
    assert_eq!(r.headers["x-total-count"], "0");
}

#[tokio::test]
async fn an_accepted_upload_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = data.clone();
    let dt = Dt::start_with(move |c| c.data_dir = d).await;
    let admin = dt.key("Admins", &all()).await;
    let p = dt
        .project(&admin, json!({"name": "app", "version": "1"}))
        .await;
    let pu = p["uuid"].as_str().unwrap().to_string();
    let mut cfg = dt.server.state.config.clone();
    dt.server.shutdown().await;
    // Accept an upload with no server (and so no worker) running.
    cfg.dtrack.listen = "127.0.0.1:0".parse().unwrap();
    let token = {
        let state = outpost::app::open(cfg.clone()).unwrap();
        let who = outpost::domain::dtrack::identity::authenticate_key(&state, &admin.key)
            .await
            .unwrap();
        let doc = bom(json!([{"type": "library", "name": "late", "version": "1"}]));
        outpost::domain::dtrack::bom::accept(
            &state,
            &who,
            outpost::domain::dtrack::bom::Target::Uuid(pu.clone()),
            Vec::new(),
            doc.into_bytes(),
        )
        .await
        .map_err(|_| "refused")
        .unwrap()
    };
    let dt = Dt::start_with(move |c| c.data_dir = data).await;
    wait_done(&dt, &admin, &token).await;
    assert_eq!(names(&dt, &admin, &pu).await, ["late"]);
}

#[tokio::test]
async fn xml_boms_are_imported_too() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let doc = r#"<?xml version="1.0" encoding="UTF-8"?>
<bom xmlns="http://cyclonedx.org/schema/bom/1.4" version="1">
  <components>
    <component type="library"><name>xml-lib</name><version>1.0</version></component>
  </components>
</bom>"#;
    let r = dt
        .json(Method::PUT, "/api/v1/bom", &admin, &json!({"projectName": "x", "projectVersion": "1", "autoCreate": true, "bom": b64(doc)}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    wait_done(&dt, &admin, r.body["token"].as_str().unwrap()).await;
    let r = dt
        .get("/api/v1/project/lookup?name=x&version=1", &admin)
        .await;
    assert_eq!(r.body["lastBomImportFormat"], "CycloneDX 1.4");
    assert_eq!(
        names(&dt, &admin, r.body["uuid"].as_str().unwrap()).await,
        ["xml-lib"]
    );
    let r = dt
        .json(Method::PUT, "/api/v1/bom", &admin, &json!({"projectName": "x", "projectVersion": "1", "bom": b64("<bom xmlns=\"urn:x\"/>")}))
        .await;
    assert_eq!(
        r.body,
        json!({"status": 400, "title": "The uploaded BOM is invalid", "detail": "Unable to determine schema version from XML namespaces [urn:x]"})
    );
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            &admin,
            &json!({"projectName": "x", "projectVersion": "1", "bom": b64("{nope")}),
        )
        .await;
    assert_eq!(r.body["detail"], "BOM is neither valid JSON nor XML");
}

#[tokio::test]
async fn oversized_boms_are_refused() {
    let dt = Dt::start_with(|c| c.limits.max_upload_bytes = 64 * 1024).await;
    let admin = dt.key("Admins", &all()).await;
    let big = "a".repeat(70 * 1024);
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            &admin,
            &json!({"projectName": "x", "projectVersion": "1", "bom": big}),
        )
        .await;
    assert_eq!((r.status, r.raw.len()), (413, 0));
    assert_eq!(r.headers["x-powered-by"], "Dependency-Track v4.14.2");

    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let huge = "a".repeat(20_000_001);
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            &admin,
            &json!({"projectName": "acme-app", "projectVersion": "1.0.0", "bom": huge}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.headers["content-type"], "application/problem+json");
    assert_eq!(
        r.body,
        json!({"status": 400, "title": "The provided JSON payload could not be mapped",
               "detail": "The BOM is too large to be transmitted safely via Base64 encoded JSON value. Please use the \"POST /api/v1/bom\" endpoint with Content-Type \"multipart/form-data\" instead. Original cause: String value length (20000001) exceeds the maximum allowed (20000000, from `StreamReadConstraints.getMaxStringLength()`) (through reference chain: org.dependencytrack.resources.v1.vo.BomSubmitRequest[\"bom\"])"})
    );
}
