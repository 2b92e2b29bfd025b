//! Every Dependency-Track endpoint: 401 (empty) without or with bad credentials, 403 (empty)
//! without its permission, and 400 `Invalid UUID` for upper-case UUIDs in its path.

use hyper::Method;
use serde_json::Value;

use crate::support::dtrack::{Dt, all};

const U: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";
const UPPER: &str = "0F8FAD5B-D9CB-469F-A165-70867728950E";

/// (method, path with `{u}` for a UUID, JSON body, needs a permission beyond authentication)
fn endpoints() -> Vec<(Method, &'static str, &'static str, bool)> {
    use Method as M;
    vec![
        (M::GET, "/api/v1/team", "", true),
        (M::PUT, "/api/v1/team", r#"{"name":"t"}"#, true),
        (
            M::POST,
            "/api/v1/team",
            r#"{"uuid":"{u}","name":"t"}"#,
            true,
        ),
        (M::DELETE, "/api/v1/team", r#"{"uuid":"{u}"}"#, true),
        (M::GET, "/api/v1/team/{u}", "", true),
        (M::GET, "/api/v1/team/self", "", false),
        (M::PUT, "/api/v1/team/{u}/key", "", true),
        (M::DELETE, "/api/v1/team/key/abcdefgh", "", true),
        (M::GET, "/api/v1/permission", "", true),
        (M::POST, "/api/v1/permission/BOM_UPLOAD/team/{u}", "", true),
        (
            M::DELETE,
            "/api/v1/permission/BOM_UPLOAD/team/{u}",
            "",
            true,
        ),
        (M::GET, "/api/v1/project", "", true),
        (M::PUT, "/api/v1/project", r#"{"name":"p"}"#, true),
        (
            M::POST,
            "/api/v1/project",
            r#"{"uuid":"{u}","name":"p"}"#,
            true,
        ),
        (M::GET, "/api/v1/project/lookup?name=p&version=1", "", true),
        (M::GET, "/api/v1/project/{u}", "", true),
        (M::DELETE, "/api/v1/project/{u}", "", true),
        (M::PATCH, "/api/v1/project/{u}", "{}", true),
        (
            M::PUT,
            "/api/v1/project/clone",
            r#"{"project":"{u}","version":"2"}"#,
            true,
        ),
        (M::GET, "/api/v1/project/{u}/children", "", true),
        (
            M::GET,
            "/api/v1/project/{u}/children/classifier/APPLICATION",
            "",
            true,
        ),
        (M::GET, "/api/v1/project/{u}/children/tag/t", "", true),
        (M::GET, "/api/v1/project/latest/p", "", true),
        (M::GET, "/api/v1/project/tag/t", "", true),
        (M::GET, "/api/v1/project/classifier/APPLICATION", "", true),
        (M::GET, "/api/v1/project/{u}/property", "", true),
        (
            M::PUT,
            "/api/v1/project/{u}/property",
            r#"{"groupName":"g","propertyName":"n","propertyType":"STRING"}"#,
            true,
        ),
        (
            M::POST,
            "/api/v1/project/{u}/property",
            r#"{"groupName":"g","propertyName":"n","propertyValue":"v"}"#,
            true,
        ),
        (
            M::DELETE,
            "/api/v1/project/{u}/property",
            r#"{"groupName":"g","propertyName":"n"}"#,
            true,
        ),
        (M::GET, "/api/v1/component/project/{u}", "", true),
        (M::GET, "/api/v1/outpost/project/{u}/notEvaluated", "", true),
        (
            M::PUT,
            "/api/v1/component/project/{u}",
            r#"{"name":"c"}"#,
            true,
        ),
        (
            M::POST,
            "/api/v1/component",
            r#"{"uuid":"{u}","name":"c"}"#,
            true,
        ),
        (M::GET, "/api/v1/component/{u}", "", true),
        (M::DELETE, "/api/v1/component/{u}", "", true),
        (M::PUT, "/api/v1/vulnerability", r#"{"vulnId":"X-1"}"#, true),
        (M::GET, "/api/v1/vulnerability/{u}", "", true),
        (M::POST, "/api/v1/vulnerability/{u}/component/{u}", "", true),
        (
            M::DELETE,
            "/api/v1/vulnerability/{u}/component/{u}",
            "",
            true,
        ),
        (M::GET, "/api/v1/finding/project/{u}", "", true),
        (
            M::PUT,
            "/api/v1/acl/mapping",
            r#"{"team":"{u}","project":"{u}"}"#,
            true,
        ),
        (
            M::DELETE,
            "/api/v1/acl/mapping/team/{u}/project/{u}",
            "",
            true,
        ),
        (M::GET, "/api/v1/acl/team/{u}", "", true),
        (
            M::GET,
            "/api/v1/analysis?component={u}&vulnerability={u}",
            "",
            true,
        ),
        (
            M::PUT,
            "/api/v1/analysis",
            r#"{"project":"{u}","component":"{u}","vulnerability":"{u}"}"#,
            true,
        ),
        (M::GET, "/api/v1/badge/violations/project/{u}", "", true),
        (M::GET, "/api/v1/badge/violations/project/p/1", "", true),
        (M::GET, "/api/v1/metrics/project/{u}/refresh", "", true),
        (M::GET, "/api/v1/metrics/project/{u}/current", "", true),
        (M::GET, "/api/v1/policy", "", true),
        (M::PUT, "/api/v1/policy", r#"{"name":"p"}"#, true),
        (
            M::POST,
            "/api/v1/policy",
            r#"{"uuid":"{u}","name":"p"}"#,
            true,
        ),
        (M::GET, "/api/v1/policy/{u}", "", true),
        (M::DELETE, "/api/v1/policy/{u}", "", true),
        (
            M::PUT,
            "/api/v1/policy/{u}/condition",
            r#"{"subject":"CPE","operator":"MATCHES","value":"x"}"#,
            true,
        ),
        (
            M::POST,
            "/api/v1/policy/condition",
            r#"{"uuid":"{u}","subject":"CPE","operator":"MATCHES","value":"x"}"#,
            true,
        ),
        (M::DELETE, "/api/v1/policy/condition/{u}", "", true),
        (M::GET, "/api/v1/violation/project/{u}", "", true),
        (
            M::PUT,
            "/api/v1/violation/analysis",
            r#"{"component":"{u}","policyViolation":"{u}"}"#,
            true,
        ),
        (
            M::PUT,
            "/api/v1/bom",
            r#"{"project":"{u}","bom":"e30="}"#,
            true,
        ),
        (M::GET, "/api/v1/event/token/{u}", "", false),
        (M::GET, "/api/v1/bom/token/{u}", "", true),
        (M::GET, "/api/v1/bom/cyclonedx/project/{u}", "", true),
        (M::GET, "/api/v1/vex/cyclonedx/project/{u}", "", true),
        (
            M::PUT,
            "/api/v1/vex",
            r#"{"project":"{u}","vex":"e30="}"#,
            true,
        ),
        (M::POST, "/api/v1/vex", "", true),
    ]
}

fn headers<'a>(key: Option<&'a str>, body: &str) -> Vec<(&'a str, &'a str)> {
    let mut h = Vec::new();
    if let Some(k) = key {
        h.push(("X-Api-Key", k));
    }
    if !body.is_empty() {
        h.push(("content-type", "application/json"));
    }
    h
}

#[tokio::test]
async fn unauthenticated_and_unauthorized_answers_are_empty() {
    let dt = Dt::start().await;
    let nothing = dt.key("Nothing", &[]).await;
    let admin = dt.key("Admins", &all()).await;
    let before = dt.get("/api/v1/team", &admin).await.body;
    for (method, path, body, needs_permission) in endpoints() {
        let path = path.replace("{u}", U);
        let body = body.replace("{u}", U);
        for key in [None, Some("odt_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB")] {
            let r = dt
                .req(method.clone(), &path, &headers(key, &body), body.clone())
                .await;
            assert_eq!(
                (r.status, r.raw.len()),
                (401, 0),
                "{method} {path} with {key:?}"
            );
            assert_eq!(r.headers["x-powered-by"], "Dependency-Track v4.14.2");
        }
        if needs_permission {
            let r = dt
                .req(
                    method.clone(),
                    &path,
                    &headers(Some(&nothing.key), &body),
                    body.clone(),
                )
                .await;
            assert_eq!((r.status, r.raw.len()), (403, 0), "{method} {path}");
        }
    }
    assert_eq!(
        dt.get("/api/v1/team", &admin).await.body,
        before,
        "nothing changed"
    );
}

#[tokio::test]
async fn upper_case_uuids_in_paths_are_refused() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    for (method, path, body, _) in endpoints() {
        if !path.contains("{u}") || path.contains('?') || !path.split('/').any(|s| s == "{u}") {
            continue;
        }
        let path = path.replace("{u}", UPPER);
        let body = body.replace("{u}", U);
        let r = dt
            .req(
                method.clone(),
                &path,
                &headers(Some(&admin.key), &body),
                body.clone(),
            )
            .await;
        assert_eq!(r.status, 400, "{method} {path}: {:?}", r.raw);
        let first = &r.body[0];
        assert_eq!(first["message"], "Invalid UUID", "{method} {path}");
        assert_eq!(first["invalidValue"], Value::from(UPPER), "{method} {path}");
    }
}
