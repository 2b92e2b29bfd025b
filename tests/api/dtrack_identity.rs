//! Dependency-Track identity: conventions, bootstrap flow, keys, teams and permissions.

use hyper::Method;
use serde_json::json;

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, all, text};

#[tokio::test]
async fn version_is_public_with_upstreams_headers() {
    let dt = Dt::start().await;
    let r = dt.req(Method::GET, "/api/version", &[], "").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "application/json");
    assert_eq!(r.headers["x-powered-by"], "Dependency-Track v4.14.2");
    assert_eq!(r.headers["access-control-allow-origin"], "*");
    assert_eq!(r.body["application"], "Dependency-Track");
    assert_eq!(r.body["version"], "4.14.2");
    assert_eq!(r.body["framework"]["name"], "Alpine");
    let system = r.body["systemUuid"].as_str().unwrap().to_string();
    assert_eq!(system.len(), 36);
    let again = dt.req(Method::GET, "/api/version", &[], "").await;
    assert_eq!(again.body["systemUuid"], system.as_str());
}

#[tokio::test]
async fn system_uuid_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d1 = data.clone();
    let dt = Dt::start_with(move |c| c.data_dir = d1).await;
    let first = dt.req(Method::GET, "/api/version", &[], "").await.body["systemUuid"].clone();
    dt.server.shutdown().await;
    let dt = Dt::start_with(move |c| c.data_dir = data).await;
    let second = dt.req(Method::GET, "/api/version", &[], "").await.body["systemUuid"].clone();
    assert_eq!(first, second);
}

#[tokio::test]
async fn unknown_paths_methods_and_options() {
    let dt = Dt::start().await;
    let r = dt.req(Method::GET, "/api/v1/nothing", &[], "").await;
    assert_eq!((r.status, r.raw.len()), (404, 0));
    let r = dt.req(Method::POST, "/api/v1/analysis", &[], "").await;
    assert_eq!(r.status, 405);
    let r = dt.req(Method::OPTIONS, "/api/v1/analysis", &[], "").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["allow"], "GET,HEAD,OPTIONS,PUT");
    assert_eq!(r.headers["x-powered-by"], "Dependency-Track v4.14.2");
}

#[tokio::test]
async fn missing_bad_and_underpowered_credentials() {
    let dt = Dt::start().await;
    let weak = dt.key("Weak", &[P::ViewPortfolio]).await;
    for headers in [
        vec![],
        vec![("X-Api-Key", "odt_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB")],
        vec![("X-Api-Key", "5ce9b8a5-5f18-4c1f-9eda-1611b83e8915")],
        vec![("Authorization", "Bearer not.a.jwt")],
    ] {
        let r = dt.req(Method::GET, "/api/v1/team", &headers, "").await;
        assert_eq!((r.status, r.raw.len()), (401, 0), "{headers:?}");
        assert!(r.headers.get("www-authenticate").is_none());
    }
    // Query keys are only for badges.
    let r = dt
        .req(
            Method::GET,
            &format!("/api/v1/project?apiKey={}", weak.key),
            &[],
            "",
        )
        .await;
    assert_eq!(r.status, 401);
    let r = dt.get("/api/v1/team", &weak).await;
    assert_eq!((r.status, r.raw.len()), (403, 0));
    // Bodies of another media type than the endpoint consumes.
    let admin = dt.key("Admins", &crate::support::dtrack::all()).await;
    let r = dt
        .req(
            Method::PUT,
            "/api/v1/team",
            &[("X-Api-Key", &admin.key), ("content-type", "text/plain")],
            r#"{"name":"x"}"#,
        )
        .await;
    assert_eq!((r.status, r.raw.len()), (415, 0));
    let r = dt
        .req(
            Method::POST,
            "/api/v1/user/login",
            &[("content-type", "application/json")],
            r#"{"username":"admin"}"#,
        )
        .await;
    assert_eq!(r.status, 415);
    // The header name is case-insensitive.
    let r = dt
        .req(
            Method::GET,
            "/api/v1/project",
            &[("x-API-key", &weak.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn first_run_flow_as_the_go_client_does_it() {
    let dt = Dt::start().await;
    let form = [("content-type", "application/x-www-form-urlencoded")];
    let r = dt
        .req(
            Method::POST,
            "/api/v1/user/login",
            &form,
            "username=admin&password=admin",
        )
        .await;
    assert_eq!((r.status, text(&r)), (401, "FORCE_PASSWORD_CHANGE"));
    let r = dt
        .req(
            Method::POST,
            "/api/v1/user/login",
            &form,
            "username=admin&password=nope",
        )
        .await;
    assert_eq!((r.status, text(&r)), (401, "INVALID_CREDENTIALS"));
    let r = dt
        .req(
            Method::POST,
            "/api/v1/user/forceChangePassword",
            &form,
            "username=admin&password=admin&newPassword=s3cret&confirmPassword=other",
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (406, "The passwords do not match. Password not changed.")
    );
    let r = dt
        .req(
            Method::POST,
            "/api/v1/user/forceChangePassword",
            &form,
            "username=admin&password=admin&newPassword=admin&confirmPassword=admin",
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (
            406,
            "Existing password is the same as new password. Password not changed."
        )
    );
    let r = dt
        .req(
            Method::POST,
            "/api/v1/user/forceChangePassword",
            &form,
            "username=admin&password=admin&newPassword=s3cret&confirmPassword=s3cret",
        )
        .await;
    assert_eq!((r.status, r.raw.len()), (200, 0));
    let r = dt
        .req(
            Method::POST,
            "/api/v1/user/login",
            &form,
            "username=admin&password=s3cret",
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "text/plain");
    let jwt = text(&r).to_string();
    assert_eq!(jwt.split('.').count(), 3);
    let bearer = format!("Bearer {jwt}");
    let auth = [
        ("Authorization", bearer.as_str()),
        ("content-type", "application/json"),
    ];
    // The four default teams exist, without keys.
    let r = dt.req(Method::GET, "/api/v1/team", &auth, "").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["x-total-count"], "4");
    let names: Vec<&str> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Administrators",
            "Automation",
            "Badge Viewers",
            "Portfolio Managers"
        ]
    );
    assert!(
        r.body
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["apiKeys"] == json!([]))
    );
    // Create a team, grant a permission twice, create a key.
    let r = dt
        .req(Method::PUT, "/api/v1/team", &auth, r#"{"name":"CI"}"#)
        .await;
    assert_eq!(r.status, 201);
    assert_eq!(r.body["name"], "CI");
    assert_eq!(r.body["apiKeys"], json!([]));
    let team = r.body["uuid"].as_str().unwrap().to_string();
    let grant = format!("/api/v1/permission/BOM_UPLOAD/team/{team}");
    let r = dt.req(Method::POST, &grant, &auth, "").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body["permissions"],
        json!([{"name": "BOM_UPLOAD", "description": "Allows the ability to upload CycloneDX Software Bill of Materials (SBOM)"}])
    );
    let r = dt.req(Method::POST, &grant, &auth, "").await;
    assert_eq!((r.status, r.raw.len()), (304, 0));
    let r = dt
        .req(
            Method::POST,
            &format!("/api/v1/permission/NOPE/team/{team}"),
            &auth,
            "",
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The permission could not be found.")
    );
    let r = dt
        .req(
            Method::POST,
            "/api/v1/permission/BOM_UPLOAD/team/0f8fad5b-d9cb-469f-a165-70867728950e",
            &auth,
            "",
        )
        .await;
    assert_eq!((r.status, text(&r)), (404, "The team could not be found."));
    let r = dt
        .req(Method::PUT, &format!("/api/v1/team/{team}/key"), &auth, "")
        .await;
    assert_eq!(r.status, 201);
    let key = r.body["key"].as_str().unwrap().to_string();
    let public_id = r.body["publicId"].as_str().unwrap().to_string();
    assert!(key.starts_with(&format!("odt_{public_id}_")) && key.len() == 45);
    assert_eq!(
        r.body["maskedKey"],
        format!("odt_{public_id}{}", "*".repeat(32))
    );
    assert_eq!(r.body["legacy"], false);
    // The key works and knows its team; the JWT is not a key.
    let r = dt
        .req(Method::GET, "/api/v1/team/self", &[("X-Api-Key", &key)], "")
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["uuid"], team.as_str());
    assert_eq!(r.body["permissions"][0]["name"], "BOM_UPLOAD");
    let r = dt.req(Method::GET, "/api/v1/team/self", &auth, "").await;
    assert_eq!((r.status, text(&r)), (400, "Invalid API key supplied."));
    // Listing shows the key masked, never in full.
    let r = dt
        .req(Method::GET, &format!("/api/v1/team/{team}"), &auth, "")
        .await;
    assert_eq!(r.body["apiKeys"][0]["publicId"], public_id.as_str());
    assert!(r.body["apiKeys"][0].get("key").is_none());
    // Deleting the key revokes it at once (despite the cache).
    let r = dt
        .req(
            Method::DELETE,
            &format!("/api/v1/team/key/{public_id}"),
            &auth,
            "",
        )
        .await;
    assert_eq!(r.status, 204);
    let r = dt
        .req(Method::GET, "/api/v1/team/self", &[("X-Api-Key", &key)], "")
        .await;
    assert_eq!(r.status, 401);
    let r = dt
        .req(
            Method::DELETE,
            &format!("/api/v1/team/key/{public_id}"),
            &auth,
            "",
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The API key could not be found.")
    );
}

#[tokio::test]
async fn keys_of_deleted_teams_and_revoked_permissions_stop_working() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let k = dt.key("Short-lived", &[P::ViewPortfolio]).await;
    assert_eq!(dt.get("/api/v1/project", &k).await.status, 200);
    let r = dt
        .req(
            Method::DELETE,
            &format!("/api/v1/permission/VIEW_PORTFOLIO/team/{}", k.team_uuid),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(dt.get("/api/v1/project", &k).await.status, 403);
    let r = dt
        .json(
            Method::DELETE,
            "/api/v1/team",
            &admin,
            &json!({"uuid": k.team_uuid}),
        )
        .await;
    assert_eq!(r.status, 204);
    assert_eq!(dt.get("/api/v1/project", &k).await.status, 401);
    let r = dt
        .json(
            Method::DELETE,
            "/api/v1/team",
            &admin,
            &json!({"uuid": k.team_uuid}),
        )
        .await;
    assert_eq!((r.status, text(&r)), (404, "The team could not be found."));
}

#[tokio::test]
async fn team_validation_and_mapping_errors() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let r = dt
        .json(Method::PUT, "/api/v1/team", &admin, &json!({"name": "  "}))
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.body,
        json!([{"message": "must not be blank", "messageTemplate": "{jakarta.validation.constraints.NotBlank.message}", "path": "name", "invalidValue": "  "}])
    );
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/team",
            &admin,
            &json!({"name": "x", "bogus": 1}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.headers["content-type"], "application/problem+json");
    assert_eq!(
        r.body["title"],
        "The provided JSON payload could not be mapped"
    );
    let r = dt
        .get("/api/v1/team/0F8FAD5B-D9CB-469F-A165-70867728950E", &admin)
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.body,
        json!([{"message": "Invalid UUID", "messageTemplate": "Invalid UUID", "path": "getTeam.arg0", "invalidValue": "0F8FAD5B-D9CB-469F-A165-70867728950E"}])
    );
    let r = dt.get("/api/v1/permission", &admin).await;
    assert_eq!(r.body.as_array().unwrap().len(), 14);
    assert_eq!(
        r.body[13],
        json!({"name": "VIEW_BADGES", "description": "Provides the ability to view badges"})
    );
    // Nothing was created by the refused requests.
    let r = dt.get("/api/v1/team", &admin).await;
    assert_eq!(r.headers["x-total-count"], "5");
}

#[tokio::test]
async fn key_use_is_recorded_as_last_used_except_on_badges() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let badges = dt.key("Badges", &[P::ViewBadges]).await;
    let p = dt
        .project(&admin, json!({"name": "app", "version": "1"}))
        .await;
    let r = dt
        .get(
            &format!(
                "/api/v1/badge/violations/project/{}",
                p["uuid"].as_str().unwrap()
            ),
            &badges,
        )
        .await;
    assert_eq!(r.status, 200);
    outpost::domain::dtrack::identity::flush_key_usage(&dt.server.state)
        .await
        .unwrap();
    let r = dt
        .get(&format!("/api/v1/team/{}", admin.team_uuid), &admin)
        .await;
    assert!(r.body["apiKeys"][0]["lastUsed"].is_i64(), "{}", r.body);
    let r = dt
        .get(&format!("/api/v1/team/{}", badges.team_uuid), &admin)
        .await;
    assert!(r.body["apiKeys"][0].get("lastUsed").is_none(), "{}", r.body);
}
