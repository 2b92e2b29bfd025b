//! Dependency-Track ACL mappings and a team's project listing.

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, all, text};

const NOBODY: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

#[tokio::test]
async fn mapping_add_conflict_and_remove() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let team = dt.key("Devs", &[P::ViewPortfolio]).await;
    let p = dt
        .project(&admin, json!({"name": "acme-app", "version": "1.0"}))
        .await;
    let pu = p["uuid"].as_str().unwrap();
    let body = json!({"team": team.team_uuid, "project": pu});
    let r = dt
        .json(Method::PUT, "/api/v1/acl/mapping", &admin, &body)
        .await;
    assert_eq!((r.status, r.raw.len()), (200, 0));
    let r = dt
        .json(Method::PUT, "/api/v1/acl/mapping", &admin, &body)
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (
            409,
            "A mapping with the same team and project already exists."
        )
    );
    for bad in [
        json!({"team": NOBODY, "project": pu}),
        json!({"team": team.team_uuid, "project": NOBODY}),
    ] {
        let r = dt
            .json(Method::PUT, "/api/v1/acl/mapping", &admin, &bad)
            .await;
        assert_eq!(
            (r.status, text(&r)),
            (404, "The UUID of the team could not be found.")
        );
    }
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/acl/mapping",
            &admin,
            &json!({"team": "X", "project": pu}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.body,
        json!([{"message": "The team must be a valid 36 character UUID", "messageTemplate": "The team must be a valid 36 character UUID", "path": "team", "invalidValue": "X"}])
    );
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/acl/mapping",
            &admin,
            &json!({"team": team.team_uuid}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.headers["content-type"], "application/problem+json");
    let r = dt
        .json(Method::PUT, "/api/v1/acl/mapping", &team, &body)
        .await;
    assert_eq!(r.status, 403);
    let listing = format!("/api/v1/acl/team/{}", team.team_uuid);
    let r = dt.get(&listing, &admin).await;
    assert_eq!(r.headers["x-total-count"], "1");
    let del = format!("/api/v1/acl/mapping/team/{}/project/{pu}", team.team_uuid);
    for _ in 0..2 {
        let r = dt
            .req(Method::DELETE, &del, &[("X-Api-Key", &admin.key)], "")
            .await;
        assert_eq!((r.status, r.raw.len()), (200, 0));
    }
    let r = dt
        .req(
            Method::DELETE,
            &format!("/api/v1/acl/mapping/team/{NOBODY}/project/{pu}"),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the team or project could not be found.")
    );
    let r = dt
        .req(
            Method::DELETE,
            "/api/v1/acl/mapping/team/x/project/y",
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body[0]["path"], "deleteMapping.arg0");
    assert_eq!(r.body[1]["path"], "deleteMapping.arg1");
    let r = dt.get(&listing, &admin).await;
    assert_eq!(
        (r.headers["x-total-count"].to_str().unwrap(), r.body.clone()),
        ("0", json!([]))
    );
}

#[tokio::test]
async fn team_listing_pages_sorts_and_filters() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let team = dt.key("Devs", &[]).await;
    let mut created = Vec::new();
    for (name, version, active) in [
        ("b", "1", true),
        ("a", "1", true),
        ("a", "2", false),
        ("c", "1", true),
    ] {
        let p = dt
            .project(
                &admin,
                json!({"name": name, "version": version, "active": active}),
            )
            .await;
        let r = dt
            .json(
                Method::PUT,
                "/api/v1/acl/mapping",
                &admin,
                &json!({"team": team.team_uuid, "project": p["uuid"]}),
            )
            .await;
        assert_eq!(r.status, 200);
        created.push(p);
    }
    let base = format!("/api/v1/acl/team/{}", team.team_uuid);
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| {
                format!(
                    "{}@{}",
                    p["name"].as_str().unwrap(),
                    p["version"].as_str().unwrap()
                )
            })
            .collect()
    };
    let r = dt.get(&base, &admin).await;
    assert_eq!(r.headers["x-total-count"], "4");
    assert_eq!(names(&r.body), ["a@2", "a@1", "b@1", "c@1"]);
    // A listed project equals the create response, minus `children` (not loaded here).
    let mut b1 = created[0].clone();
    b1.as_object_mut().unwrap().remove("children");
    assert_eq!(r.body[2], b1);
    let r = dt
        .get(&format!("{base}?pageNumber=2&pageSize=3"), &admin)
        .await;
    assert_eq!(
        (r.headers["x-total-count"].to_str().unwrap(), names(&r.body)),
        ("4", vec!["c@1".to_string()])
    );
    let r = dt.get(&format!("{base}?offset=1&limit=2"), &admin).await;
    assert_eq!(names(&r.body), ["a@1", "b@1"]);
    let r = dt.get(&format!("{base}?pageSize=1"), &admin).await;
    assert_eq!(names(&r.body).len(), 4);
    let r = dt
        .get(&format!("{base}?sortName=name&sortOrder=desc"), &admin)
        .await;
    assert_eq!(names(&r.body)[0], "c@1");
    let r = dt
        .get(&format!("{base}?excludeInactive=true"), &admin)
        .await;
    assert_eq!(r.headers["x-total-count"], "3");
    let r = dt.get(&format!("{base}?onlyRoot=true"), &admin).await;
    assert_eq!(r.body[0]["children"], json!([]));
    let r = dt
        .get(&format!("{base}?sortName=foo&sortOrder=asc"), &admin)
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.headers["content-type"], "application/problem+json");
    assert_eq!(
        r.body,
        json!({"status": 400, "title": "Field not sortable", "detail": "Can not sort by Project#foo: The field does not exist"})
    );
    let r = dt.get(&format!("/api/v1/acl/team/{NOBODY}"), &admin).await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the team could not be found.")
    );
}

#[tokio::test]
async fn children_and_parents_show_as_upstream() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let parent = dt.project(&admin, json!({"name": "suite"})).await;
    assert_eq!(
        parent,
        json!({"uuid": parent["uuid"], "name": "suite", "classifier": "APPLICATION", "collectionLogic": "NONE", "children": [], "properties": [], "tags": [], "active": true, "isLatest": false})
    );
    let child = dt
        .project(&admin, json!({"name": "part", "version": "1", "parent": {"uuid": parent["uuid"]}, "tags": [{"name": "x"}]}))
        .await;
    assert_eq!(
        child["parent"],
        json!({"name": "suite", "uuid": parent["uuid"]})
    );
    assert_eq!(child["tags"], json!([{"name": "x"}]));
    let r = dt
        .get(
            &format!("/api/v1/project/{}", parent["uuid"].as_str().unwrap()),
            &admin,
        )
        .await;
    assert_eq!(r.body["children"][0]["name"], "part");
    assert!(r.body["children"][0].get("tags").is_none());
    let r = dt.get("/api/v1/project?onlyRoot=true", &admin).await;
    assert_eq!(r.headers["x-total-count"], "1");
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project",
            &admin,
            &json!({"name": "part", "version": "1"}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (409, "A project with the specified name already exists.")
    );
    let r = dt
        .get("/api/v1/project/lookup?name=part&version=1", &admin)
        .await;
    assert_eq!(r.body["uuid"], child["uuid"]);
    let r = dt
        .get("/api/v1/project/lookup?name=part&version=2", &admin)
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
}
