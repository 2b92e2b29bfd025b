//! Dependency-Track projects, components and vulnerabilities beyond the contract operations.

use hyper::Method;
use serde_json::json;

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, all, text};

const NOBODY: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

#[tokio::test]
async fn projects_update_delete_and_validation() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let a = dt
        .project(
            &admin,
            json!({"name": "a", "version": "1", "isLatest": true}),
        )
        .await;
    let b = dt
        .project(
            &admin,
            json!({"name": "a", "version": "2", "isLatest": true}),
        )
        .await;
    let r = dt
        .get(
            &format!("/api/v1/project/{}", a["uuid"].as_str().unwrap()),
            &admin,
        )
        .await;
    assert_eq!(
        r.body["isLatest"], false,
        "a newer latest version clears the flag"
    );
    let r = dt
        .json(
            Method::POST,
            "/api/v1/project",
            &admin,
            &json!({"uuid": b["uuid"], "name": "a", "version": "1"}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (
            409,
            "A project with the specified name and version already exists."
        )
    );
    let r = dt
        .json(Method::POST, "/api/v1/project", &admin, &json!({"uuid": b["uuid"], "name": "a", "version": "3", "description": "d", "active": false}))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        (
            r.body["version"].clone(),
            r.body["active"].clone(),
            r.body["description"].clone()
        ),
        (json!("3"), json!(false), json!("d"))
    );
    let r = dt
        .json(
            Method::POST,
            "/api/v1/project",
            &admin,
            &json!({"uuid": NOBODY, "name": "x"}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the project could not be found.")
    );
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project",
            &admin,
            &json!({"name": "c", "classifier": "TOASTER"}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.headers["content-type"], "application/problem+json");
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project",
            &admin,
            &json!({"version": "1"}),
        )
        .await;
    assert_eq!(r.body[0]["path"], "name");
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project",
            &admin,
            &json!({"name": "c", "parent": {"uuid": NOBODY}}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the parent project could not be found.")
    );
    let r = dt.get("/api/v1/project?excludeInactive=true", &admin).await;
    assert_eq!(r.headers["x-total-count"], "1");
    let del = format!("/api/v1/project/{}", a["uuid"].as_str().unwrap());
    let r = dt
        .req(Method::DELETE, &del, &[("X-Api-Key", &admin.key)], "")
        .await;
    assert_eq!((r.status, r.raw.len()), (204, 0));
    let r = dt
        .req(Method::DELETE, &del, &[("X-Api-Key", &admin.key)], "")
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the project could not be found.")
    );
    let r = dt.get("/api/v1/project", &admin).await;
    assert_eq!(r.headers["x-total-count"], "1");
}

#[tokio::test]
async fn acl_filters_projects_for_keys_without_access_management() {
    let dt = Dt::start_with(|c| c.dtrack.acl_enabled = true).await;
    let admin = dt.key("Admins", &all()).await;
    let dev = dt
        .key("Devs", &[P::ViewPortfolio, P::PortfolioManagement])
        .await;
    let other = dt.key("Others", &[P::ViewPortfolio]).await;
    let mine = dt
        .project(&dev, json!({"name": "mine", "version": "1"}))
        .await;
    dt.project(&admin, json!({"name": "theirs", "version": "1"}))
        .await;
    let r = dt.get("/api/v1/project", &dev).await;
    assert_eq!(
        r.headers["x-total-count"], "1",
        "the creating key's team is mapped"
    );
    assert_eq!(r.body[0]["uuid"], mine["uuid"]);
    let r = dt.get("/api/v1/project", &admin).await;
    assert_eq!(r.headers["x-total-count"], "2");
    let r = dt
        .get(
            &format!("/api/v1/project/{}", mine["uuid"].as_str().unwrap()),
            &other,
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (403, "Access to the specified project is forbidden")
    );
    let r = dt
        .get("/api/v1/project/lookup?name=mine&version=1", &other)
        .await;
    assert_eq!(r.status, 403);
}

#[tokio::test]
async fn components_and_vulnerabilities() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let p = dt.project(&admin, json!({"name": "app"})).await;
    let pu = p["uuid"].as_str().unwrap();
    let r = dt
        .json(Method::PUT, &format!("/api/v1/component/project/{pu}"), &admin, &json!({"name": "lib", "version": "1.0", "group": "g", "purl": "pkg:maven/g/lib@1.0", "sha256": "zz"}))
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body[0]["path"], "sha256");
    let r = dt
        .json(
            Method::PUT,
            &format!("/api/v1/component/project/{pu}"),
            &admin,
            &json!({"name": "lib", "version": "1.0", "group": "g", "purl": "pkg:maven/g/lib@1.0"}),
        )
        .await;
    assert_eq!(r.status, 201);
    assert_eq!(r.body["project"], json!({"name": "app", "uuid": pu}));
    assert_eq!(r.body["isInternal"], false);
    let cu = r.body["uuid"].as_str().unwrap().to_string();
    let r = dt
        .json(
            Method::POST,
            "/api/v1/component",
            &admin,
            &json!({"uuid": cu, "name": "lib", "version": "1.1"}),
        )
        .await;
    assert_eq!((r.status, r.body["version"].clone()), (200, json!("1.1")));
    let r = dt
        .json(
            Method::PUT,
            &format!("/api/v1/component/project/{NOBODY}"),
            &admin,
            &json!({"name": "x"}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
    let v = dt.vulnerability(&admin, "INT-7", "LOW").await;
    let r = dt.get(&format!("/api/v1/vulnerability/{v}"), &admin).await;
    assert_eq!(
        (
            r.body["vulnId"].clone(),
            r.body["source"].clone(),
            r.body["severity"].clone()
        ),
        (json!("INT-7"), json!("INTERNAL"), json!("LOW"))
    );
    let assign = format!("/api/v1/vulnerability/{v}/component/{cu}");
    let r = dt
        .req(Method::POST, &assign, &[("X-Api-Key", &admin.key)], "")
        .await;
    assert_eq!(r.status, 200);
    let r = dt
        .get(&format!("/api/v1/finding/project/{pu}"), &admin)
        .await;
    assert_eq!(r.headers["x-total-count"], "1");
    let r = dt
        .req(Method::DELETE, &assign, &[("X-Api-Key", &admin.key)], "")
        .await;
    assert_eq!(r.status, 200);
    let r = dt
        .get(&format!("/api/v1/finding/project/{pu}"), &admin)
        .await;
    assert_eq!(r.headers["x-total-count"], "0");
    let r = dt
        .req(
            Method::POST,
            &format!("/api/v1/vulnerability/{NOBODY}/component/{cu}"),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The vulnerability could not be found.")
    );
    let r = dt
        .req(
            Method::DELETE,
            &format!("/api/v1/component/{cu}"),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 204);
    let r = dt.get(&format!("/api/v1/component/{cu}"), &admin).await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The component could not be found.")
    );
    let r = dt
        .get(&format!("/api/v1/component/project/{pu}"), &admin)
        .await;
    assert_eq!(
        (r.headers["x-total-count"].to_str().unwrap(), r.body.clone()),
        ("0", json!([]))
    );
}

#[tokio::test]
async fn listings_attach_metrics_and_versions_as_upstream() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let team = dt.key("Devs", &[]).await;
    let one = dt
        .project(
            &admin,
            json!({"name": "svc", "version": "1", "tags": [{"name": "backend"}]}),
        )
        .await;
    let two = dt
        .project(
            &admin,
            json!({"name": "svc", "version": "2", "active": false}),
        )
        .await;
    dt.project(&admin, json!({"name": "other", "version": "1"}))
        .await;
    let u1 = one["uuid"].as_str().unwrap();
    dt.get(&format!("/api/v1/metrics/project/{u1}/refresh"), &admin)
        .await;
    let r = dt
        .get("/api/v1/project/lookup?name=svc&version=1", &admin)
        .await;
    assert_eq!(r.body["metrics"]["components"], 0);
    assert_eq!(
        r.body["versions"],
        json!([{"uuid": u1, "version": "1", "active": true}, {"uuid": two["uuid"], "version": "2", "active": false}])
    );
    assert!(r.body.get("children").is_none());
    let r = dt.get(&format!("/api/v1/project/{u1}"), &admin).await;
    assert_eq!(r.body["versions"].as_array().unwrap().len(), 2);
    let r = dt.get("/api/v1/project", &admin).await;
    let listed: Vec<(&str, bool)> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p.get("metrics").is_some()))
        .collect();
    assert_eq!(listed, [("other", false), ("svc", false), ("svc", true)]);
    let r = dt.get("/api/v1/project?name=svc", &admin).await;
    let versions: Vec<&str> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["version"].as_str().unwrap())
        .collect();
    assert_eq!(versions, ["2", "1"]);
    assert!(r.body[1].get("metrics").is_none());
    let r = dt.get("/api/v1/project?searchText=SV", &admin).await;
    assert_eq!(r.headers["x-total-count"], "2");
    let r = dt.get("/api/v1/project?searchText=backend", &admin).await;
    assert_eq!(
        (
            r.headers["x-total-count"].to_str().unwrap(),
            r.body[0]["uuid"].clone()
        ),
        ("1", json!(u1))
    );
    dt.json(
        Method::PUT,
        "/api/v1/acl/mapping",
        &admin,
        &json!({"team": team.team_uuid, "project": u1}),
    )
    .await;
    let r = dt
        .get(
            &format!(
                "/api/v1/project?notAssignedToTeamWithUuid={}",
                team.team_uuid
            ),
            &admin,
        )
        .await;
    assert_eq!(r.headers["x-total-count"], "2");
    let r = dt
        .get(
            &format!("/api/v1/project?notAssignedToTeamWithUuid={NOBODY}"),
            &admin,
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the team could not be found.")
    );
}
