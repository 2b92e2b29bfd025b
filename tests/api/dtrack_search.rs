//! Dependency-Track component searches across the portfolio: by hash and by identity, within
//! the projects the caller may see.

use serde_json::{Value, json};

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, Key, all, text};

async fn component(dt: &Dt, k: &Key, project: &str, body: Value) {
    let r = dt
        .json(
            hyper::Method::PUT,
            &format!("/api/v1/component/project/{project}"),
            k,
            &body,
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.raw);
}

fn names(r: &crate::support::Reply) -> Vec<String> {
    assert_eq!(r.status, 200, "{:?}", r.raw);
    r.body
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}@{}",
                c["name"].as_str().unwrap(),
                c["project"]["name"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn components_are_found_by_hash_and_identity_within_visible_projects() {
    let dt = Dt::start_with(|c| c.dtrack.acl_enabled = true).await;
    let admin = dt.key("Admins", &all()).await;
    let team = dt.key("Team", &[P::ViewPortfolio]).await;
    let sha = "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08";
    let mut projects = Vec::new();
    for name in ["alpha", "beta"] {
        let p = dt
            .project(&admin, json!({"name": name, "version": "1"}))
            .await;
        let p = p["uuid"].as_str().unwrap().to_string();
        component(
            &dt,
            &admin,
            &p,
            json!({"name": "log4j-core", "group": "org.apache.logging.log4j", "version": "2.14.1",
                   "purl": "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1", "sha256": sha}),
        )
        .await;
        component(
            &dt,
            &admin,
            &p,
            json!({"name": "zlib", "version": "1.2.13", "cpe": "cpe:2.3:a:zlib:zlib:1.2.13:*:*:*:*:*:*:*"}),
        )
        .await;
        projects.push(p);
    }
    let r = dt
        .get(
            &format!("/api/v1/component/hash/{}", sha.to_lowercase()),
            &admin,
        )
        .await;
    assert_eq!(names(&r), ["log4j-core@alpha", "log4j-core@beta"]);
    assert_eq!(r.headers["x-total-count"], "2");
    let r = dt
        .get("/api/v1/component/hash/0000000000000000", &admin)
        .await;
    assert!(names(&r).is_empty());

    let r = dt
        .get(
            "/api/v1/component/identity?group=org.apache.logging.log4j&name=log4j-core",
            &admin,
        )
        .await;
    assert_eq!(names(&r), ["log4j-core@alpha", "log4j-core@beta"]);
    let r = dt
        .get(
            "/api/v1/component/identity?name=log4j-core&version=2.17.0",
            &admin,
        )
        .await;
    assert!(names(&r).is_empty(), "every coordinate given must match");
    let r = dt
        .get(
            "/api/v1/component/identity?cpe=cpe:2.3:a:zlib:zlib:1.2.13:*:*:*:*:*:*:*&pageNumber=1&pageSize=1",
            &admin,
        )
        .await;
    assert_eq!(names(&r), ["zlib@alpha"]);
    assert_eq!(r.headers["x-total-count"], "2");
    let r = dt
        .get(
            &format!(
                "/api/v1/component/identity?purl=pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1&project={}",
                projects[1]
            ),
            &admin,
        )
        .await;
    assert_eq!(names(&r), ["log4j-core@beta"]);

    // Under the ACL only the projects mapped to the caller's team are searched.
    let r = dt
        .get(&format!("/api/v1/component/hash/{sha}"), &team)
        .await;
    assert!(names(&r).is_empty());
    let r = dt
        .json(
            hyper::Method::PUT,
            "/api/v1/acl/mapping",
            &admin,
            &json!({"team": team.team_uuid, "project": projects[0]}),
        )
        .await;
    assert_eq!(r.status, 200);
    let r = dt
        .get(&format!("/api/v1/component/hash/{sha}"), &team)
        .await;
    assert_eq!(names(&r), ["log4j-core@alpha"]);
    let r = dt
        .get(
            &format!(
                "/api/v1/component/identity?name=zlib&project={}",
                projects[1]
            ),
            &team,
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (403, "Access to the specified project is forbidden")
    );

    let r = dt.get("/api/v1/component/identity", &admin).await;
    assert_eq!(r.status, 400);
    let r = dt
        .get("/api/v1/component/identity?name=x&project=nope", &admin)
        .await;
    assert_eq!(r.status, 400);
    let long = "a".repeat(2000);
    let r = dt
        .get(&format!("/api/v1/component/identity?name={long}"), &admin)
        .await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn project_vulnerabilities_list_one_entry_per_affected_component() {
    let dt = Dt::start_with(|c| c.dtrack.acl_enabled = true).await;
    let admin = dt.key("Admins", &all()).await;
    let (project, lib, vuln) = dt.finding(&admin, "acme", "1.0").await;
    let other = dt.component(&admin, &project, "other-lib").await;
    let r = dt
        .req(
            hyper::Method::POST,
            &format!("/api/v1/vulnerability/{vuln}/component/{other}"),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let path = format!("/api/v1/vulnerability/project/{project}");

    let r = dt.get(&path, &admin).await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.headers["x-total-count"], "2");
    let rows = r.body.as_array().unwrap();
    let mut seen: Vec<&str> = rows
        .iter()
        .map(|v| {
            assert_eq!(v["uuid"], vuln.as_str());
            assert_eq!(v["vulnId"], "INT-1");
            assert_eq!(v["source"], "INTERNAL");
            assert_eq!(v["severity"], "HIGH");
            assert!(v["aliases"].is_array(), "{v}");
            let cs = v["components"].as_array().unwrap();
            assert_eq!(cs.len(), 1, "{v}");
            assert_eq!(cs[0]["project"]["uuid"], project.as_str());
            cs[0]["uuid"].as_str().unwrap()
        })
        .collect();
    seen.sort();
    let mut want = vec![lib.as_str(), other.as_str()];
    want.sort();
    assert_eq!(seen, want);

    // A suppressed analysis hides that component's entry unless `suppressed=true`.
    let r = dt
        .json(
            hyper::Method::PUT,
            "/api/v1/analysis",
            &admin,
            &json!({"project": project, "component": other, "vulnerability": vuln,
                    "analysisState": "FALSE_POSITIVE", "isSuppressed": true}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let r = dt.get(&path, &admin).await;
    assert_eq!(r.headers["x-total-count"], "1");
    assert_eq!(r.body[0]["components"][0]["uuid"], lib.as_str());
    let r = dt.get(&format!("{path}?suppressed=true"), &admin).await;
    assert_eq!(r.headers["x-total-count"], "2");

    // Errors in upstream's words; the ACL decides who sees the project.
    let viewer = dt.key("Viewers", &[P::ViewPortfolio]).await;
    let r = dt.get(&path, &viewer).await;
    assert_eq!(
        (r.status, text(&r)),
        (403, "Access to the specified project is forbidden")
    );
    let r = dt
        .get(
            "/api/v1/vulnerability/project/0f8fad5b-d9cb-469f-a165-70867728950e",
            &admin,
        )
        .await;
    assert_eq!(r.status, 404, "{:?}", r.raw);
    let r = dt.get("/api/v1/vulnerability/project/nope", &admin).await;
    assert_eq!(r.status, 400, "{:?}", r.raw);
    let nobody = dt.key("Nobody", &[]).await;
    let r = dt.get(&path, &nobody).await;
    assert_eq!(r.status, 403, "{:?}", r.raw);
}
