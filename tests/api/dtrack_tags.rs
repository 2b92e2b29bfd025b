//! Dependency-Track tags (`/api/v1/tag*`) and policies scoped to projects and tags, as a DT
//! client drives them: tags created, listed with their counts, put on projects and policies,
//! deleted only when nothing the caller may not change carries them; a scoped policy raises
//! violations only in the projects it reaches.

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::Reply;
use crate::support::dtrack::{Dt, Key, all, text};

const NOBODY: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

fn total(r: &Reply) -> &str {
    r.headers
        .get("x-total-count")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

fn names(r: &Reply, key: &str) -> Vec<String> {
    r.body
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {:?}", r.raw))
        .iter()
        .map(|t| t[key].as_str().unwrap_or("").to_string())
        .collect()
}

async fn send(dt: &Dt, method: Method, path: &str, k: &Key, body: Value) -> Reply {
    dt.json(method, path, k, &body).await
}

fn uuid(v: &Value) -> String {
    v["uuid"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn tags_are_created_listed_put_on_projects_and_deleted_as_upstream_does() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let r = send(
        &dt,
        Method::PUT,
        "/api/v1/tag",
        &admin,
        json!(["Backend", " frontend "]),
    )
    .await;
    assert_eq!((r.status, r.raw.len()), (201, 0), "{:?}", r.raw);
    // Project tags are stored as upstream stores them: trimmed and lower-cased.
    let svc = dt
        .project(
            &admin,
            json!({"name": "svc", "version": "1", "tags": [{"name": " BACKEND"}]}),
        )
        .await;
    assert_eq!(svc["tags"], json!([{"name": "backend"}]));
    let web = dt
        .project(&admin, json!({"name": "web", "version": "1"}))
        .await;

    let r = dt.get("/api/v1/tag", &admin).await;
    assert_eq!(r.status, 200);
    assert_eq!(total(&r), "2");
    assert_eq!(
        r.body,
        json!([
            {"name": "backend", "projectCount": 1, "collectionProjectCount": 0, "policyCount": 0, "notificationRuleCount": 0},
            {"name": "frontend", "projectCount": 0, "collectionProjectCount": 0, "policyCount": 0, "notificationRuleCount": 0},
        ])
    );
    let r = dt.get("/api/v1/tag?searchText=FRONT", &admin).await;
    assert_eq!(
        (names(&r, "name"), total(&r)),
        (vec!["frontend".to_string()], "1")
    );
    let r = dt
        .get("/api/v1/tag?sortName=name&sortOrder=desc", &admin)
        .await;
    assert_eq!(names(&r, "name"), ["frontend", "backend"]);
    let r = dt.get("/api/v1/tag?pageNumber=2&pageSize=1", &admin).await;
    assert_eq!(
        (names(&r, "name"), total(&r)),
        (vec!["frontend".to_string()], "2")
    );
    let r = dt.get("/api/v1/tag?sortName=bogus", &admin).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["title"], "Field not sortable");

    // Tagging: unknown project UUIDs are skipped; the tag name in the path is case-blind.
    let path = "/api/v1/tag/FrontEnd/project";
    let r = send(&dt, Method::POST, path, &admin, json!([uuid(&web), NOBODY])).await;
    assert_eq!(r.status, 204, "{:?}", r.raw);
    let r = dt.get("/api/v1/tag/frontend/project", &admin).await;
    assert_eq!(
        r.body,
        json!([{"uuid": web["uuid"], "name": "web", "version": "1"}])
    );
    assert_eq!(total(&r), "1");
    let r = dt
        .get(&format!("/api/v1/project/{}", uuid(&web)), &admin)
        .await;
    assert_eq!(r.body["tags"], json!([{"name": "frontend"}]));
    let r = dt.get("/api/v1/project/tag/FRONTEND", &admin).await;
    assert_eq!(names(&r, "name"), ["web"]);
    let r = send(&dt, Method::DELETE, path, &admin, json!([uuid(&web)])).await;
    assert_eq!(r.status, 204);
    let r = dt.get("/api/v1/tag/frontend/project", &admin).await;
    assert_eq!((r.body.clone(), total(&r)), (json!([]), "0"));

    // Bad input: upstream's problem and validation answers, and nothing changes.
    let r = send(
        &dt,
        Method::POST,
        "/api/v1/tag/missing/project",
        &admin,
        json!([uuid(&web)]),
    )
    .await;
    assert_eq!(r.status, 404);
    assert_eq!(
        r.body,
        json!({"status": 404, "title": "Resource does not exist", "detail": "A tag with name missing does not exist"})
    );
    let r = send(&dt, Method::PUT, "/api/v1/tag", &admin, json!([])).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body[0]["message"], "size must be between 1 and 100");
    assert_eq!(r.body[0]["path"], "createTags.arg0");
    let r = send(&dt, Method::PUT, "/api/v1/tag", &admin, json!(["ok", "  "])).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body[0]["message"], "must not be blank");
    let r = send(
        &dt,
        Method::PUT,
        "/api/v1/tag",
        &admin,
        json!({"name": "x"}),
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.body["title"],
        "The provided JSON payload could not be mapped"
    );
    let r = send(&dt, Method::POST, path, &admin, json!(["not-a-uuid"])).await;
    assert_eq!(r.status, 400);
    assert_eq!(
        (
            r.body[0]["message"].clone(),
            r.body[0]["invalidValue"].clone()
        ),
        (json!("Invalid UUID"), json!("not-a-uuid"))
    );
    let r = dt.get("/api/v1/tag", &admin).await;
    assert_eq!(
        names(&r, "name"),
        ["backend", "frontend"],
        "no tag `ok` was created"
    );

    // Deleting: all or nothing, with the reason per tag.
    let r = send(
        &dt,
        Method::DELETE,
        "/api/v1/tag",
        &admin,
        json!(["backend", "nope"]),
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["title"], "Tag operation failed");
    assert_eq!(r.body["errors"], json!({"nope": "Tag does not exist"}));
    let tagger = dt
        .key("Taggers", &[P::TagManagement, P::ViewPortfolio])
        .await;
    let r = send(
        &dt,
        Method::DELETE,
        "/api/v1/tag",
        &tagger,
        json!(["backend"]),
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.body["errors"]["backend"],
        "The tag is assigned to 1 project(s), but the authenticated principal is missing the PORTFOLIO_MANAGEMENT permission."
    );
    let r = send(
        &dt,
        Method::DELETE,
        "/api/v1/tag",
        &tagger,
        json!(["frontend"]),
    )
    .await;
    assert_eq!(r.status, 204, "{:?}", r.raw);
    let r = send(
        &dt,
        Method::PUT,
        "/api/v1/tag",
        &tagger,
        json!(["frontend"]),
    )
    .await;
    assert_eq!(r.status, 201);
    let r = send(
        &dt,
        Method::DELETE,
        "/api/v1/tag",
        &admin,
        json!(["BACKEND", "frontend"]),
    )
    .await;
    assert_eq!(r.status, 204, "{:?}", r.raw);
    let r = dt.get("/api/v1/tag", &admin).await;
    assert_eq!((r.body.clone(), total(&r)), (json!([]), "0"));
    let r = dt
        .get(&format!("/api/v1/project/{}", uuid(&svc)), &admin)
        .await;
    assert_eq!(
        r.body["tags"],
        json!([]),
        "a deleted tag leaves its projects"
    );
    // Without TAG_MANAGEMENT, no tag is made.
    let viewer = dt.key("Viewers", &[P::ViewPortfolio]).await;
    let r = send(&dt, Method::PUT, "/api/v1/tag", &viewer, json!(["x"])).await;
    assert_eq!(r.status, 403);
}

async fn violations(dt: &Dt, k: &Key, project: &Value) -> usize {
    let r = dt
        .get(&format!("/api/v1/violation/project/{}", uuid(project)), k)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    r.body.as_array().unwrap().len()
}

async fn left_pad(dt: &Dt, k: &Key, project: &Value) {
    let r = send(
        dt,
        Method::PUT,
        &format!("/api/v1/component/project/{}", uuid(project)),
        k,
        json!({"name": "left-pad", "version": "1.0", "purl": "pkg:npm/left-pad@1.0"}),
    )
    .await;
    assert_eq!(r.status, 201, "{:?}", r.raw);
}

#[tokio::test]
async fn policies_scoped_to_projects_and_tags_raise_violations_only_where_they_reach() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let a = dt
        .project(
            &admin,
            json!({"name": "a", "version": "1", "tags": [{"name": "prod"}]}),
        )
        .await;
    let b = dt
        .project(&admin, json!({"name": "b", "version": "1"}))
        .await;
    let child = dt
        .project(
            &admin,
            json!({"name": "a-part", "version": "1", "parent": {"uuid": a["uuid"]}}),
        )
        .await;
    for p in [&a, &b, &child] {
        left_pad(&dt, &admin, p).await;
    }
    let r = send(
        &dt,
        Method::PUT,
        "/api/v1/policy",
        &admin,
        json!({"name": "no left-pad", "violationState": "FAIL"}),
    )
    .await;
    assert_eq!(r.status, 201);
    assert_eq!(
        (
            r.body["global"].clone(),
            r.body["projects"].clone(),
            r.body["tags"].clone()
        ),
        (json!(true), json!([]), json!([]))
    );
    let policy = uuid(&r.body);
    let r = send(
        &dt,
        Method::PUT,
        &format!("/api/v1/policy/{policy}/condition"),
        &admin,
        json!({"subject": "PACKAGE_URL", "operator": "MATCHES", "value": "pkg:npm/left-pad"}),
    )
    .await;
    assert_eq!(r.status, 201, "{:?}", r.raw);
    // Global: every project.
    for p in [&a, &b, &child] {
        assert_eq!(violations(&dt, &admin, p).await, 1);
    }

    // Scoped to project a: only a (children only with includeChildren).
    let scope_a = format!("/api/v1/policy/{policy}/project/{}", uuid(&a));
    let r = dt
        .req(Method::POST, &scope_a, &[("X-Api-Key", &admin.key)], "")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["global"], false);
    let scoped: Vec<&Value> = r.body["projects"].as_array().unwrap().iter().collect();
    assert_eq!(scoped.len(), 1);
    assert_eq!(
        (scoped[0]["uuid"].clone(), scoped[0]["name"].clone()),
        (a["uuid"].clone(), json!("a"))
    );
    let r = dt
        .req(Method::POST, &scope_a, &[("X-Api-Key", &admin.key)], "")
        .await;
    assert_eq!((r.status, r.raw.len()), (304, 0), "already in scope");
    assert_eq!(
        [
            violations(&dt, &admin, &a).await,
            violations(&dt, &admin, &b).await,
            violations(&dt, &admin, &child).await
        ],
        [1, 0, 0]
    );
    let r = dt
        .get(&format!("/api/v1/violation/project/{}", uuid(&a)), &admin)
        .await;
    assert_eq!(r.body[0]["policyCondition"]["policy"]["global"], false);
    let r = send(&dt, Method::POST, "/api/v1/policy", &admin, json!({"uuid": policy, "name": "no left-pad", "violationState": "FAIL", "includeChildren": true})).await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(
        r.body["projects"][0]["uuid"], a["uuid"],
        "an update keeps the scope"
    );
    assert_eq!(
        [
            violations(&dt, &admin, &a).await,
            violations(&dt, &admin, &b).await,
            violations(&dt, &admin, &child).await
        ],
        [1, 0, 1]
    );
    let scope_b = format!("/api/v1/policy/{policy}/project/{}", uuid(&b));
    let r = dt
        .req(Method::DELETE, &scope_b, &[("X-Api-Key", &admin.key)], "")
        .await;
    assert_eq!(r.status, 304, "b was not in scope");
    let r = dt
        .req(Method::DELETE, &scope_a, &[("X-Api-Key", &admin.key)], "")
        .await;
    assert_eq!((r.status, r.body["global"].clone()), (200, json!(true)));
    assert_eq!(violations(&dt, &admin, &b).await, 1, "global again");

    // Scoped to tag prod: projects carrying it, including ones tagged later.
    let r = send(
        &dt,
        Method::POST,
        "/api/v1/tag/prod/policy",
        &admin,
        json!([policy, NOBODY]),
    )
    .await;
    assert_eq!(r.status, 204, "{:?}", r.raw);
    let r = dt.get("/api/v1/tag/prod/policy", &admin).await;
    assert_eq!(r.body, json!([{"uuid": policy, "name": "no left-pad"}]));
    let r = dt
        .get(&format!("/api/v1/tag/policy/{policy}"), &admin)
        .await;
    assert_eq!(
        (r.body.clone(), total(&r)),
        (json!([{"name": "prod"}]), "1")
    );
    let r = dt.get(&format!("/api/v1/tag/{policy}"), &admin).await;
    assert_eq!(r.body, json!([{"name": "prod"}]), "the deprecated form");
    let r = dt.get(&format!("/api/v1/policy/{policy}"), &admin).await;
    assert_eq!(
        (r.body["tags"].clone(), r.body["global"].clone()),
        (json!([{"name": "prod"}]), json!(false))
    );
    let r = dt.get("/api/v1/tag", &admin).await;
    assert_eq!(r.body[0]["policyCount"], 1);
    assert_eq!(
        [
            violations(&dt, &admin, &a).await,
            violations(&dt, &admin, &b).await,
            violations(&dt, &admin, &child).await
        ],
        [1, 0, 0]
    );
    let r = send(
        &dt,
        Method::POST,
        "/api/v1/tag/prod/project",
        &admin,
        json!([uuid(&b)]),
    )
    .await;
    assert_eq!(r.status, 204);
    assert_eq!(violations(&dt, &admin, &b).await, 1, "b now carries prod");
    // The deprecated policy-side forms.
    let r = dt
        .req(
            Method::POST,
            &format!("/api/v1/policy/{policy}/tag/PROD"),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 304, "already scoped to prod");
    let r = dt
        .req(
            Method::DELETE,
            &format!("/api/v1/policy/{policy}/tag/prod"),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!((r.status, r.body["tags"].clone()), (200, json!([])));
    assert_eq!(violations(&dt, &admin, &child).await, 1, "global again");
    // Deleting a policy's only tag leaves it global, and the portfolio is evaluated again.
    let r = send(&dt, Method::PUT, "/api/v1/tag", &admin, json!(["solo"])).await;
    assert_eq!(r.status, 201);
    let r = send(
        &dt,
        Method::POST,
        "/api/v1/tag/solo/policy",
        &admin,
        json!([policy]),
    )
    .await;
    assert_eq!(r.status, 204);
    assert_eq!(
        violations(&dt, &admin, &b).await,
        0,
        "no project carries solo"
    );
    let r = send(&dt, Method::DELETE, "/api/v1/tag", &admin, json!(["solo"])).await;
    assert_eq!(r.status, 204, "{:?}", r.raw);
    assert_eq!(
        violations(&dt, &admin, &b).await,
        1,
        "global once its tag is gone"
    );

    // Not found, in upstream's words.
    let r = dt
        .req(
            Method::POST,
            &format!("/api/v1/policy/{NOBODY}/project/{}", uuid(&a)),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The policy could not be found.")
    );
    let r = dt
        .req(
            Method::POST,
            &format!("/api/v1/policy/{policy}/project/{NOBODY}"),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
    let r = dt
        .req(
            Method::POST,
            &format!("/api/v1/policy/{policy}/tag/none"),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!((r.status, text(&r)), (404, "The tag could not be found."));
    let r = dt
        .get(&format!("/api/v1/tag/policy/{NOBODY}"), &admin)
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The policy could not be found.")
    );
    let r = send(
        &dt,
        Method::POST,
        "/api/v1/tag/none/policy",
        &admin,
        json!([policy]),
    )
    .await;
    assert_eq!(
        (r.status, r.body["title"].clone()),
        (404, json!("Resource does not exist"))
    );
    // Policy scoping needs POLICY_MANAGEMENT.
    let viewer = dt.key("Viewers", &[P::ViewPortfolio]).await;
    let r = dt
        .req(Method::POST, &scope_a, &[("X-Api-Key", &viewer.key)], "")
        .await;
    assert_eq!(r.status, 403);
}

#[tokio::test]
async fn tag_listings_follow_the_portfolio_acl() {
    let dt = Dt::start_with(|c| c.dtrack.acl_enabled = true).await;
    let admin = dt.key("Admins", &all()).await;
    let team = dt
        .key(
            "Team",
            &[P::ViewPortfolio, P::PortfolioManagement, P::TagManagement],
        )
        .await;
    let theirs = dt
        .project(
            &admin,
            json!({"name": "theirs", "version": "1", "tags": [{"name": "shared"}]}),
        )
        .await;
    let mine = dt
        .project(
            &team,
            json!({"name": "mine", "version": "1", "tags": [{"name": "shared"}]}),
        )
        .await;
    let r = dt.get("/api/v1/tag", &team).await;
    assert_eq!(
        r.body[0]["projectCount"], 1,
        "only the team's project counts"
    );
    let r = dt.get("/api/v1/tag/shared/project", &team).await;
    assert_eq!(names(&r, "name"), ["mine"]);
    let r = dt.get("/api/v1/tag/shared/project", &admin).await;
    assert_eq!(names(&r, "name"), ["mine", "theirs"]);
    // Tagging skips projects the caller cannot see.
    let r = send(
        &dt,
        Method::DELETE,
        "/api/v1/tag/shared/project",
        &team,
        json!([uuid(&theirs), uuid(&mine)]),
    )
    .await;
    assert_eq!(r.status, 204);
    let r = dt.get("/api/v1/tag/shared/project", &admin).await;
    assert_eq!(names(&r, "name"), ["theirs"]);
    let r = send(&dt, Method::DELETE, "/api/v1/tag", &team, json!(["shared"])).await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.body["errors"]["shared"],
        "The tag is assigned to 1 project(s) that are not accessible by the authenticated principal."
    );
}
