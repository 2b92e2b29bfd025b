//! Dependency-Track project endpoints beyond create/read/update/delete: the Project fields of
//! 4.13+ clients, `PATCH`, clones, children, latest, tag and classifier listings, project
//! properties, and collection projects with their aggregated metrics.

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, Key, all, text};

const NOBODY: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

fn uuid(v: &Value) -> String {
    v["uuid"].as_str().unwrap().to_string()
}

async fn patch(dt: &Dt, k: &Key, project: &str, body: Value) -> crate::support::Reply {
    dt.json(
        Method::PATCH,
        &format!("/api/v1/project/{project}"),
        k,
        &body,
    )
    .await
}

#[tokio::test]
async fn fields_of_4_13_clients_are_stored_and_returned() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let supplier = json!({"name": "Acme", "urls": ["https://acme.example"],
        "contacts": [{"name": "Sam", "email": "sam@acme.example"}]});
    let body = json!({
        "name": "shop",
        "version": "1.0",
        "authors": [{"name": "Ann", "email": "ann@example.com", "phone": "123"}, {"name": "Bo"}],
        "manufacturer": {"name": "Maker", "urls": [], "contacts": []},
        "supplier": supplier,
        "externalReferences": [{"type": "vcs", "url": "https://git.example/shop", "comment": "main"}],
        "collectionLogic": "NONE",
        "directDependencies": "[]",
        "lastBomImport": 5,
        "metrics": {"critical": 1},
        "versions": [],
        "properties": [],
    });
    let created = dt.project(&admin, body).await;
    assert_eq!(
        created["authors"][0],
        json!({"name": "Ann", "email": "ann@example.com", "phone": "123"})
    );
    assert_eq!(created["author"], "Ann, Bo");
    assert_eq!(created["supplier"], supplier);
    assert_eq!(created["manufacturer"]["name"], "Maker");
    assert_eq!(
        created["externalReferences"],
        json!([{"type": "vcs", "url": "https://git.example/shop", "comment": "main"}])
    );
    assert!(
        created.get("metrics").is_none(),
        "read-only fields are ignored"
    );
    assert!(created.get("lastBomImport").is_none());
    let u = uuid(&created);

    // A generated client reads the project and sends it back whole.
    let got = dt.get(&format!("/api/v1/project/{u}"), &admin).await;
    assert_eq!(got.status, 200);
    assert_eq!(got.body["supplier"], supplier);
    let mut again = got.body.clone();
    again["description"] = json!("the shop");
    let r = dt
        .json(Method::POST, "/api/v1/project", &admin, &again)
        .await;
    assert_eq!(r.status, 200, "{}", text(&r));
    assert_eq!(r.body["description"], "the shop");
    assert_eq!(r.body["authors"][1]["name"], "Bo");

    // Generated clients send whole objects for the parent and the access teams.
    let team = dt
        .get(&format!("/api/v1/team/{}", admin.team_uuid), &admin)
        .await;
    assert_eq!(team.status, 200);
    let child = dt
        .project(
            &admin,
            json!({"name": "shop-child", "parent": got.body, "accessTeams": [team.body]}),
        )
        .await;
    assert_eq!(child["parent"]["uuid"], json!(u));

    // The deprecated `author` still works alone.
    let p = dt
        .project(&admin, json!({"name": "old-client", "author": "Carol"}))
        .await;
    assert_eq!(
        (p["author"].clone(), p["authors"].clone()),
        (json!("Carol"), json!([{"name": "Carol"}]))
    );

    // Bad references are refused and change nothing.
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project",
            &admin,
            &json!({"name": "x", "externalReferences": [{"type": "nope", "url": "u"}]}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.body["title"],
        "The provided JSON payload could not be mapped"
    );
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project",
            &admin,
            &json!({"name": "x", "externalReferences": [{"type": "vcs"}]}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body[0]["path"], "externalReferences[0].url");
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project",
            &admin,
            &json!({"name": "x", "collectionLogic": "SOMETIMES"}),
        )
        .await;
    assert_eq!(r.status, 400);
    let r = dt.get("/api/v1/project/lookup?name=x", &admin).await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn patch_changes_only_what_is_sent() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let a = dt
        .project(
            &admin,
            json!({"name": "a", "version": "1", "description": "first", "tags": [{"name": "t1"}],
                "supplier": {"name": "S"}}),
        )
        .await;
    let b = dt
        .project(&admin, json!({"name": "a", "version": "2"}))
        .await;
    let (au, bu) = (uuid(&a), uuid(&b));

    let r = patch(
        &dt,
        &admin,
        &au,
        json!({"group": "org", "authors": [{"name": "Ann"}]}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", text(&r));
    assert_eq!(
        (
            r.body["group"].clone(),
            r.body["description"].clone(),
            r.body["tags"].clone(),
            r.body["supplier"]["name"].clone(),
            r.body["author"].clone(),
            r.body["active"].clone(),
        ),
        (
            json!("org"),
            json!("first"),
            json!([{"name": "t1"}]),
            json!("S"),
            json!("Ann"),
            json!(true)
        )
    );

    // Sending what is already there changes nothing: 304, no body.
    let r = patch(&dt, &admin, &au, json!({"group": "org", "version": "1"})).await;
    assert_eq!((r.status, r.raw.len()), (304, 0));

    let r = patch(&dt, &admin, &au, json!({"version": "2"})).await;
    assert_eq!(
        (r.status, text(&r)),
        (
            409,
            "A project with the specified name and version already exists."
        )
    );
    let r = patch(&dt, &admin, &au, json!({"parent": {"name": "x"}})).await;
    assert_eq!(
        (r.status, text(&r)),
        (400, "parent.uuid must be provided when parent is set")
    );
    let r = patch(&dt, &admin, &au, json!({"parent": {"uuid": au}})).await;
    assert_eq!(
        (r.status, text(&r)),
        (409, "A project cannot select itself as a parent")
    );
    let r = patch(&dt, &admin, &au, json!({"parent": {"uuid": NOBODY}})).await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the parent project could not be found.")
    );
    let r = patch(&dt, &admin, NOBODY, json!({"description": "d"})).await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the project could not be found.")
    );
    let r = patch(&dt, &admin, &au, json!({"name": ""})).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body[0]["path"], "name");

    // Re-parenting, the latest flag and tags.
    let r = patch(
        &dt,
        &admin,
        &bu,
        json!({"parent": {"uuid": au}, "isLatest": true, "tags": [{"name": "t2"}]}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", text(&r));
    assert_eq!(r.body["parent"]["uuid"], json!(au));
    assert_eq!(r.body["isLatest"], true);
    assert_eq!(r.body["tags"], json!([{"name": "t2"}]));
    let r = patch(&dt, &admin, &au, json!({"active": false})).await;
    assert_eq!(
        (r.status, text(&r)),
        (
            409,
            "Project cannot be set to inactive if active children are present."
        )
    );

    // PORTFOLIO_MANAGEMENT is needed; the ACL hides other teams' projects.
    let viewer = dt.key("Viewers", &[P::ViewPortfolio]).await;
    let r = patch(&dt, &viewer, &au, json!({"description": "x"})).await;
    assert_eq!(r.status, 403);
    let r = dt.get(&format!("/api/v1/project/{au}"), &admin).await;
    assert_eq!(r.body["description"], "first", "nothing changed");
}

#[tokio::test]
async fn patch_under_the_acl_is_forbidden_for_unmapped_teams() {
    let dt = Dt::start_with(|c| c.dtrack.acl_enabled = true).await;
    let admin = dt.key("Admins", &all()).await;
    let other = dt
        .key("Others", &[P::PortfolioManagement, P::ViewPortfolio])
        .await;
    let p = dt.project(&admin, json!({"name": "secret"})).await;
    let r = patch(&dt, &other, &uuid(&p), json!({"description": "x"})).await;
    assert_eq!(
        (r.status, text(&r)),
        (403, "Access to the specified project is forbidden")
    );
    let r = dt
        .get(&format!("/api/v1/project/{}/children", uuid(&p)), &other)
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (403, "Access to the specified project is forbidden")
    );
    let r = dt.get("/api/v1/project/latest/secret", &other).await;
    assert_eq!(r.status, 404, "no latest version yet");
    let r = patch(
        &dt,
        &admin,
        &uuid(&p),
        json!({"isLatest": true, "tags": [{"name": "hidden"}]}),
    )
    .await;
    assert_eq!(r.status, 200);
    let r = dt.get("/api/v1/project/latest/secret", &other).await;
    assert_eq!(
        (r.status, text(&r)),
        (403, "Access to the specified project is forbidden")
    );
    let r = dt.get("/api/v1/project/tag/hidden", &other).await;
    assert_eq!((r.status, r.body.clone()), (200, json!([])));
    assert_eq!(r.headers["x-total-count"], "0");
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project/clone",
            &other,
            &json!({"project": uuid(&p), "version": "2"}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (403, "Access to the specified project is forbidden")
    );
    let r = dt
        .get(&format!("/api/v1/project/{}/property", uuid(&p)), &other)
        .await;
    assert_eq!(r.status, 403);
}

#[tokio::test]
async fn clone_copies_what_the_flags_ask_for() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let (project, component, vuln) = dt.finding(&admin, "app", "1.0").await;
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/analysis",
            &admin,
            &json!({"project": project, "component": component, "vulnerability": vuln,
                "analysisState": "NOT_AFFECTED", "analysisJustification": "CODE_NOT_REACHABLE",
                "comment": "checked", "isSuppressed": true}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", text(&r));
    let r = patch(
        &dt,
        &admin,
        &project,
        json!({"tags": [{"name": "prod"}], "isLatest": true, "supplier": {"name": "S"}}),
    )
    .await;
    assert_eq!(r.status, 200);
    let r = dt
        .json(
            Method::PUT,
            &format!("/api/v1/project/{project}/property"),
            &admin,
            &json!({"groupName": "g", "propertyName": "n", "propertyValue": "v", "propertyType": "STRING"}),
        )
        .await;
    assert_eq!(r.status, 201);

    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project/clone",
            &admin,
            &json!({"project": project, "version": "2.0", "includeTags": true,
                "includeProperties": true, "includeComponents": true, "includeServices": true,
                "includeAuditHistory": true, "includeACL": true, "includePolicyViolations": true,
                "makeCloneLatest": true}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", text(&r));
    let token = r.body["token"].as_str().unwrap().to_string();
    let r = dt
        .get(&format!("/api/v1/event/token/{token}"), &admin)
        .await;
    assert_eq!(r.body, json!({"processing": false}));

    let clone = dt
        .get("/api/v1/project/lookup?name=app&version=2.0", &admin)
        .await;
    assert_eq!(clone.status, 200);
    let cu = uuid(&clone.body);
    assert_eq!(clone.body["tags"], json!([{"name": "prod"}]));
    assert_eq!(clone.body["isLatest"], true);
    assert_eq!(clone.body["supplier"]["name"], "S");
    assert_eq!(clone.body["properties"][0]["propertyValue"], "v");
    let r = dt.get(&format!("/api/v1/project/{project}"), &admin).await;
    assert_eq!(
        r.body["isLatest"], false,
        "the latest flag moved to the clone"
    );
    let r = dt.get("/api/v1/project/latest/app", &admin).await;
    assert_eq!(uuid(&r.body), cu);

    let r = dt
        .get(
            &format!("/api/v1/finding/project/{cu}?suppressed=true"),
            &admin,
        )
        .await;
    assert_eq!(r.status, 200);
    let findings = r.body.as_array().unwrap();
    assert_eq!(findings.len(), 1, "{}", r.body);
    assert_eq!(findings[0]["analysis"]["state"], "NOT_AFFECTED");
    let cc = findings[0]["component"]["uuid"].as_str().unwrap();
    assert_ne!(cc, component, "the component is a copy");
    let r = dt
        .get(
            &format!("/api/v1/analysis?project={cu}&component={cc}&vulnerability={vuln}"),
            &admin,
        )
        .await;
    assert_eq!(r.status, 200);
    let trail: Vec<&str> = r.body["analysisComments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["comment"].as_str().unwrap())
        .collect();
    assert_eq!(
        trail,
        [
            "Analysis: NOT_SET → NOT_AFFECTED",
            "Justification: NOT_SET → CODE_NOT_REACHABLE",
            "Suppressed",
            "checked"
        ],
        "the audit trail came along"
    );

    // Without flags: only the project itself.
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project/clone",
            &admin,
            &json!({"project": project, "version": "3.0"}),
        )
        .await;
    assert_eq!(r.status, 200);
    let bare = dt
        .get("/api/v1/project/lookup?name=app&version=3.0", &admin)
        .await;
    assert_eq!(bare.body["tags"], json!([]));
    assert_eq!(bare.body["properties"], json!([]));
    assert_eq!(bare.body["isLatest"], false);
    let r = dt
        .get(
            &format!("/api/v1/component/project/{}", uuid(&bare.body)),
            &admin,
        )
        .await;
    assert_eq!(r.headers["x-total-count"], "0");

    // Errors.
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project/clone",
            &admin,
            &json!({"project": project, "version": "2.0"}),
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
        .json(
            Method::PUT,
            "/api/v1/project/clone",
            &admin,
            &json!({"project": NOBODY, "version": "9"}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the project could not be found.")
    );
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project/clone",
            &admin,
            &json!({"project": project}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body[0]["path"], "version");
}

#[tokio::test]
async fn children_latest_tag_and_classifier_listings() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let parent = dt.project(&admin, json!({"name": "suite"})).await;
    let pu = uuid(&parent);
    let c1 = dt
        .project(
            &admin,
            json!({"name": "svc-a", "parent": {"uuid": pu}, "classifier": "LIBRARY",
                "tags": [{"name": "blue"}]}),
        )
        .await;
    dt.project(
        &admin,
        json!({"name": "svc-b", "parent": {"uuid": pu}, "active": false, "isLatest": true}),
    )
    .await;

    let r = dt
        .get(&format!("/api/v1/project/{pu}/children"), &admin)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["x-total-count"], "2");
    let names: Vec<&str> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["svc-a", "svc-b"]);
    let r = dt
        .get(
            &format!("/api/v1/project/{pu}/children?excludeInactive=true"),
            &admin,
        )
        .await;
    assert_eq!(r.headers["x-total-count"], "1");
    let r = dt
        .get(
            &format!("/api/v1/project/{pu}/children/classifier/LIBRARY"),
            &admin,
        )
        .await;
    assert_eq!(
        (r.status, r.body[0]["uuid"].clone()),
        (200, c1["uuid"].clone())
    );
    let r = dt
        .get(&format!("/api/v1/project/{pu}/children/tag/blue"), &admin)
        .await;
    assert_eq!(r.headers["x-total-count"], "1");
    let r = dt
        .get(&format!("/api/v1/project/{NOBODY}/children"), &admin)
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the project could not be found.")
    );

    let r = dt.get("/api/v1/project/tag/blue", &admin).await;
    assert_eq!((r.status, r.body.as_array().unwrap().len()), (200, 1));
    assert_eq!(r.body[0]["name"], "svc-a");
    let r = dt
        .get("/api/v1/project/classifier/APPLICATION", &admin)
        .await;
    assert_eq!(r.headers["x-total-count"], "2");
    let r = dt
        .get(
            "/api/v1/project/classifier/APPLICATION?onlyRoot=true",
            &admin,
        )
        .await;
    assert_eq!(r.headers["x-total-count"], "1");
    let r = dt.get("/api/v1/project/classifier/SOFTWARE", &admin).await;
    assert_eq!(
        (r.status, text(&r)),
        (400, "The classifier type specified is not valid.")
    );

    let r = dt.get("/api/v1/project/latest/svc-b", &admin).await;
    assert_eq!((r.status, r.body["name"].clone()), (200, json!("svc-b")));
    let r = dt.get("/api/v1/project/latest/svc-a", &admin).await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
    let r = dt.get("/api/v1/project/latest/a%2Fb", &admin).await;
    assert_eq!(r.status, 404);
}

async fn property(
    dt: &Dt,
    k: &Key,
    method: Method,
    project: &str,
    body: Value,
) -> crate::support::Reply {
    dt.json(
        method,
        &format!("/api/v1/project/{project}/property"),
        k,
        &body,
    )
    .await
}

#[tokio::test]
async fn properties_are_typed_unique_and_hide_secrets() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let p = uuid(&dt.project(&admin, json!({"name": "props"})).await);

    let r = property(
        &dt,
        &admin,
        Method::PUT,
        &p,
        json!({"groupName": " build ", "propertyName": "ci", "propertyValue": "jenkins",
            "propertyType": "STRING", "description": "where it builds"}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", text(&r));
    assert_eq!(
        r.body,
        json!({"groupName": "build", "propertyName": "ci", "propertyValue": "jenkins",
            "propertyType": "STRING", "description": "where it builds"})
    );
    let r = property(
        &dt,
        &admin,
        Method::PUT,
        &p,
        json!({"groupName": "build", "propertyName": "ci", "propertyValue": "x", "propertyType": "STRING"}),
    )
    .await;
    assert_eq!(
        (r.status, text(&r)),
        (
            409,
            "A property with the specified project/group/name combination already exists."
        )
    );
    let r = property(
        &dt,
        &admin,
        Method::PUT,
        &p,
        json!({"groupName": "n", "propertyName": "count", "propertyValue": "many", "propertyType": "INTEGER"}),
    )
    .await;
    assert_eq!(
        (r.status, text(&r)),
        (
            400,
            "The property expected an integer and an integer was not sent."
        )
    );
    let r = property(
        &dt,
        &admin,
        Method::PUT,
        &p,
        json!({"groupName": "n", "propertyName": "id", "propertyValue": "nope", "propertyType": "UUID"}),
    )
    .await;
    assert_eq!(
        (r.status, text(&r)),
        (
            400,
            "The property expected a UUID but a valid UUID was not sent."
        )
    );
    let r = property(
        &dt,
        &admin,
        Method::PUT,
        &p,
        json!({"groupName": "n", "propertyName": "flag", "propertyValue": "TRUE", "propertyType": "BOOLEAN"}),
    )
    .await;
    assert_eq!(
        (r.status, r.body["propertyValue"].clone()),
        (201, json!("true"))
    );
    let r = property(
        &dt,
        &admin,
        Method::PUT,
        &p,
        json!({"groupName": "n", "propertyName": "x"}),
    )
    .await;
    assert_eq!(
        (r.status, r.body[0]["path"].clone()),
        (400, json!("propertyType"))
    );
    let r = property(
        &dt,
        &admin,
        Method::PUT,
        &p,
        json!({"groupName": "", "propertyName": "x", "propertyType": "STRING"}),
    )
    .await;
    assert_eq!(
        (r.status, r.body[0]["path"].clone()),
        (400, json!("groupName"))
    );

    // Secrets: sealed at rest, shown as the placeholder, the placeholder sent back is a no-op.
    let r = property(
        &dt,
        &admin,
        Method::PUT,
        &p,
        json!({"groupName": "creds", "propertyName": "token", "propertyValue": "s3cr3t",
            "propertyType": "ENCRYPTEDSTRING"}),
    )
    .await;
    assert_eq!(r.status, 201);
    assert_eq!(
        r.body["propertyValue"],
        "HiddenDecryptedPropertyPlaceholder"
    );
    let r = property(
        &dt,
        &admin,
        Method::POST,
        &p,
        json!({"groupName": "creds", "propertyName": "token",
            "propertyValue": "HiddenDecryptedPropertyPlaceholder"}),
    )
    .await;
    assert_eq!(r.status, 304);
    let r = property(
        &dt,
        &admin,
        Method::POST,
        &p,
        json!({"groupName": "creds", "propertyName": "token", "propertyValue": "n3w"}),
    )
    .await;
    assert_eq!(
        (r.status, r.body["propertyValue"].clone()),
        (200, json!("HiddenDecryptedPropertyPlaceholder"))
    );
    let list = dt
        .get(&format!("/api/v1/project/{p}/property"), &admin)
        .await;
    assert_eq!(list.status, 200);
    assert!(!text(&list).contains("n3w") && !text(&list).contains("s3cr3t"));
    let names: Vec<&str> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["propertyName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ci", "token", "flag"]);
    let project = dt.get(&format!("/api/v1/project/{p}"), &admin).await;
    assert_eq!(project.body["properties"].as_array().unwrap().len(), 3);
    assert!(!text(&project).contains("n3w"));
    // At rest the secret is sealed under the installation key.
    let pid = p.clone();
    let stored = dt
        .server
        .state
        .db
        .read(move |c| {
            let id = outpost::db::dtrack_portfolio::project_id_by_uuid(c, &pid)?.unwrap();
            outpost::db::dtrack_projects::property(c, id, "creds", "token")
        })
        .await
        .unwrap()
        .unwrap();
    let sealed = stored.value.unwrap();
    assert!(sealed.starts_with("sealed:v2:") && !sealed.contains("n3w"));
    let key = dt.server.state.dtrack.secret_key();
    assert_eq!(
        outpost::domain::dtrack::sealed::open(key, &sealed).as_deref(),
        Some("n3w")
    );

    let r = property(
        &dt,
        &admin,
        Method::POST,
        &p,
        json!({"groupName": "creds", "propertyName": "missing", "propertyValue": "v"}),
    )
    .await;
    assert_eq!(
        (r.status, text(&r)),
        (
            404,
            "A property with the specified project/group/name combination could not be found."
        )
    );
    let r = property(
        &dt,
        &admin,
        Method::DELETE,
        &p,
        json!({"groupName": "build", "propertyName": "ci"}),
    )
    .await;
    assert_eq!(r.status, 204);
    let r = property(
        &dt,
        &admin,
        Method::DELETE,
        &p,
        json!({"groupName": "build", "propertyName": "ci"}),
    )
    .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project property could not be found.")
    );
    let r = dt
        .get(&format!("/api/v1/project/{NOBODY}/property"), &admin)
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
    let viewer = dt.key("Viewers", &[P::ViewPortfolio]).await;
    let r = dt
        .get(&format!("/api/v1/project/{p}/property"), &viewer)
        .await;
    assert_eq!(r.status, 403, "properties need PORTFOLIO_MANAGEMENT");
}

#[tokio::test]
async fn collection_projects_aggregate_their_childrens_metrics() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let coll = dt
        .project(
            &admin,
            json!({"name": "all", "collectionLogic": "AGGREGATE_DIRECT_CHILDREN_WITH_TAG",
                "collectionTag": {"name": "prod"}}),
        )
        .await;
    assert_eq!(
        coll["collectionLogic"],
        "AGGREGATE_DIRECT_CHILDREN_WITH_TAG"
    );
    assert_eq!(coll["collectionTag"], json!({"name": "prod"}));
    let cu = uuid(&coll);
    let r = dt
        .json(
            Method::PUT,
            &format!("/api/v1/component/project/{cu}"),
            &admin,
            &json!({"name": "c"}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (400, "Collection project cannot contain components.")
    );

    let (a, _, vuln) = dt.finding(&admin, "a", "1").await;
    let b = uuid(&dt.project(&admin, json!({"name": "b"})).await);
    let comp = dt.component(&admin, &b, "lib").await;
    let r = dt
        .req(
            Method::POST,
            &format!("/api/v1/vulnerability/{vuln}/component/{comp}"),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 200);
    for (child, tags) in [(&a, json!([{"name": "prod"}])), (&b, json!([]))] {
        let r = patch(
            &dt,
            &admin,
            child,
            json!({"parent": {"uuid": cu}, "tags": tags}),
        )
        .await;
        assert_eq!(r.status, 200, "{}", text(&r));
        let r = dt
            .get(&format!("/api/v1/metrics/project/{child}/refresh"), &admin)
            .await;
        assert_eq!(r.status, 200);
    }
    let r = dt
        .get(&format!("/api/v1/metrics/project/{cu}/current"), &admin)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        (r.body["high"].clone(), r.body["components"].clone()),
        (json!(1), json!(1)),
        "only the tagged child counts: {}",
        r.body
    );

    // Every direct child once the logic changes; a child's refresh updates the collection.
    let r = patch(
        &dt,
        &admin,
        &cu,
        json!({"collectionLogic": "AGGREGATE_DIRECT_CHILDREN"}),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(
        r.body.get("collectionTag").is_none(),
        "the tag only serves the tag logic"
    );
    dt.get(&format!("/api/v1/metrics/project/{b}/refresh"), &admin)
        .await;
    let r = dt
        .get(&format!("/api/v1/metrics/project/{cu}/current"), &admin)
        .await;
    assert_eq!(
        (r.body["high"].clone(), r.body["vulnerabilities"].clone()),
        (json!(2), json!(2))
    );

    // Only the children flagged latest, under the latest-version logic.
    let r = patch(
        &dt,
        &admin,
        &cu,
        json!({"collectionLogic": "AGGREGATE_LATEST_VERSION_CHILDREN"}),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        patch(&dt, &admin, &b, json!({"isLatest": true}))
            .await
            .status,
        200
    );
    dt.get(&format!("/api/v1/metrics/project/{cu}/refresh"), &admin)
        .await;
    let r = dt
        .get(&format!("/api/v1/metrics/project/{cu}/current"), &admin)
        .await;
    assert_eq!(r.body["high"], 1);

    // A project with components cannot become a collection.
    let r = patch(
        &dt,
        &admin,
        &a,
        json!({"collectionLogic": "AGGREGATE_DIRECT_CHILDREN"}),
    )
    .await;
    assert_eq!(
        (r.status, text(&r)),
        (
            409,
            "Project cannot be made a collection project while it has components or services!"
        )
    );
}

/// A value in the `sealed:v1:` form earlier versions wrote (16-byte nonce, HMAC-SHA256
/// keystream, 16-byte HMAC tag), restated here to test the upgrade.
fn seal_v1(key: &[u8], plain: &str) -> String {
    use base64::Engine as _;
    use hmac::{KeyInit as _, Mac as _};
    let mac = |parts: &[&[u8]]| -> [u8; 32] {
        let mut m = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).unwrap();
        for p in parts {
            m.update(p);
        }
        m.finalize().into_bytes().into()
    };
    let nonce = [5u8; 16];
    let mut data = plain.as_bytes().to_vec();
    for (i, chunk) in data.chunks_mut(32).enumerate() {
        let block = mac(&[b"stream", &nonce, &(i as u64).to_be_bytes()]);
        chunk.iter_mut().zip(block).for_each(|(b, k)| *b ^= k);
    }
    let tag = mac(&[b"tag", &nonce, &data]);
    let mut out = nonce.to_vec();
    out.extend_from_slice(&data);
    out.extend_from_slice(&tag[..16]);
    format!(
        "sealed:v1:{}",
        base64::engine::general_purpose::STANDARD.encode(out)
    )
}

/// Issue 24 §12: secrets sealed by earlier versions' home-made scheme are rewritten with the
/// standard AEAD at the next start, and still open to the same text.
#[tokio::test]
async fn legacy_sealed_property_values_are_rewritten_at_start() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let p = dt
        .project(&admin, json!({"name": "old", "version": "1"}))
        .await;
    let p = p["uuid"].as_str().unwrap().to_string();
    for name in ["a", "b"] {
        let r = property(
            &dt,
            &admin,
            Method::PUT,
            &p,
            json!({"groupName": "creds", "propertyName": name, "propertyValue": "x",
                "propertyType": "ENCRYPTEDSTRING"}),
        )
        .await;
        assert_eq!(r.status, 201, "{:?}", r.raw);
    }
    // As an earlier version left them: one readable v1 value, one sealed under another key.
    let key = dt.server.state.dtrack.secret_key().to_vec();
    let (readable, foreign) = (seal_v1(&key, "hunter2"), seal_v1(&[1u8; 32], "lost"));
    let (pid, r2, f2) = (p.clone(), readable.clone(), foreign.clone());
    dt.server
        .state
        .db
        .write(move |tx| {
            let id = outpost::db::dtrack_portfolio::project_id_by_uuid(tx, &pid)?.unwrap();
            outpost::db::dtrack_projects::set_property_value(tx, id, "creds", "a", Some(&r2))?;
            outpost::db::dtrack_projects::set_property_value(tx, id, "creds", "b", Some(&f2))
        })
        .await
        .unwrap();

    let srv = dt.server.stop_gracefully().await.start().await;
    let stored = |name: &'static str| {
        let pid = p.clone();
        srv.state.db.read(move |c| {
            let id = outpost::db::dtrack_portfolio::project_id_by_uuid(c, &pid)?.unwrap();
            outpost::db::dtrack_projects::property(c, id, "creds", name)
        })
    };
    let a = stored("a").await.unwrap().unwrap().value.unwrap();
    assert!(a.starts_with("sealed:v2:"), "{a}");
    assert_eq!(
        outpost::domain::dtrack::sealed::open(&key, &a).as_deref(),
        Some("hunter2")
    );
    // What cannot be opened is kept as it was rather than destroyed.
    let b = stored("b").await.unwrap().unwrap().value.unwrap();
    assert_eq!(b, foreign);
    assert_ne!(a, readable);
}
