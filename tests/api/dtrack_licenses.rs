//! Dependency-Track licenses as clients read them: the SPDX catalogue (`/v1/license`), license
//! groups (`/v1/licenseGroup`), and LICENSE / LICENSE_GROUP policy conditions naming licenses
//! and groups by UUID, as the frontend and API clients create them; and the portfolio's and a
//! component's violation listings.

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, Key, all, text};

async fn license(dt: &Dt, k: &Key, id: &str) -> Value {
    let r = dt.get(&format!("/api/v1/license/{id}"), k).await;
    assert_eq!(r.status, 200, "{id}: {:?}", r.raw);
    r.body
}

#[tokio::test]
async fn the_catalogue_pages_and_finds_spdx_licenses() {
    let dt = Dt::start().await;
    let anyone = dt.key("Anyone", &[]).await;
    let r = dt
        .get("/api/v1/license?pageNumber=1&pageSize=10", &anyone)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.headers["x-total-count"], "740");
    let page = r.body.as_array().unwrap();
    assert_eq!(page.len(), 10);
    let names: Vec<&str> = page.iter().map(|l| l["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "ordered by name");

    let apache = license(&dt, &anyone, "Apache-2.0").await;
    assert_eq!(apache["name"], "Apache License 2.0");
    assert_eq!(apache["isOsiApproved"], true);
    assert_eq!(apache["isFsfLibre"], true);
    assert_eq!(apache["isDeprecatedLicenseId"], false);
    assert_eq!(apache["isCustomLicense"], false);
    assert_eq!(apache["uuid"].as_str().unwrap().len(), 36);
    // The UUID is stable across requests (and installations).
    assert_eq!(
        license(&dt, &anyone, "Apache-2.0").await["uuid"],
        apache["uuid"]
    );
    assert_eq!(
        license(&dt, &anyone, "GPL-2.0").await["isDeprecatedLicenseId"],
        true
    );

    let r = dt.get("/api/v1/license/No-Such-License", &anyone).await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The license could not be found.")
    );
    let r = dt.get("/api/v1/license?searchText=apache", &anyone).await;
    assert!(r.body.as_array().unwrap().iter().all(|l| {
        l["licenseId"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("apache")
            || l["name"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .contains("apache")
    }));
    let r = dt.get("/api/v1/license/concise", &anyone).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body.as_array().unwrap().len(), 740);
    let r = dt.req(Method::GET, "/api/v1/license", &[], "").await;
    assert_eq!(r.status, 401);
}

#[tokio::test]
async fn license_groups_are_managed_with_policy_management() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let viewer = dt.key("Viewers", &[P::ViewPortfolio]).await;
    let mit = license(&dt, &admin, "MIT").await;
    let mit = mit["uuid"].as_str().unwrap();

    let r = dt
        .json(
            Method::PUT,
            "/api/v1/licenseGroup",
            &admin,
            &json!({"name": "Permissive", "riskWeight": 1}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.raw);
    assert_eq!(r.body["licenses"], json!([]));
    let group = r.body["uuid"].as_str().unwrap().to_string();
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/licenseGroup",
            &admin,
            &json!({"name": "Permissive"}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (
            409,
            "A license group with the specified name already exists."
        )
    );
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/licenseGroup",
            &admin,
            &json!({"name": " "}),
        )
        .await;
    assert_eq!(r.status, 400);

    let add = format!("/api/v1/licenseGroup/{group}/license/{mit}");
    let key = [("X-Api-Key", admin.key.as_str())];
    let r = dt.req(Method::POST, &add, &key, "").await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["licenses"][0]["licenseId"], "MIT");
    let r = dt.req(Method::POST, &add, &key, "").await;
    assert_eq!(r.status, 304);
    let r = dt
        .req(
            Method::POST,
            &format!("/api/v1/licenseGroup/{group}/license/0f8fad5b-d9cb-469f-a165-70867728950e"),
            &key,
            "",
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The license could not be found.")
    );

    let r = dt
        .json(
            Method::POST,
            "/api/v1/licenseGroup",
            &admin,
            &json!({"uuid": group, "name": "Permissive licenses", "riskWeight": 2}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["name"], "Permissive licenses");
    assert_eq!(r.body["riskWeight"], 2);
    let r = dt.get("/api/v1/licenseGroup", &admin).await;
    assert_eq!(r.headers["x-total-count"], "1");
    assert_eq!(r.body[0]["licenses"][0]["licenseId"], "MIT");
    let r = dt.get("/api/v1/licenseGroup", &viewer).await;
    assert_eq!(r.status, 403);

    let r = dt.req(Method::DELETE, &add, &key, "").await;
    assert_eq!((r.status, r.body["licenses"].clone()), (200, json!([])));
    let r = dt.req(Method::DELETE, &add, &key, "").await;
    assert_eq!(r.status, 304);
    let one = format!("/api/v1/licenseGroup/{group}");
    let r = dt.req(Method::DELETE, &one, &key, "").await;
    assert_eq!(r.status, 204);
    let r = dt.get(&one, &admin).await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The license group could not be found.")
    );
}

async fn condition_policy(dt: &Dt, k: &Key, name: &str, subject: &str, op: &str, value: &str) {
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/policy",
            k,
            &json!({"name": name, "violationState": "FAIL"}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.raw);
    let uuid = r.body["uuid"].as_str().unwrap().to_string();
    let r = dt
        .json(
            Method::PUT,
            &format!("/api/v1/policy/{uuid}/condition"),
            k,
            &json!({"subject": subject, "operator": op, "value": value}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.raw);
}

/// The components of a project that violate some policy, by name.
async fn violating(dt: &Dt, k: &Key, project: &str) -> Vec<String> {
    let r = dt
        .get(&format!("/api/v1/violation/project/{project}"), k)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let mut names: Vec<String> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            format!(
                "{}:{}",
                v["component"]["name"].as_str().unwrap(),
                v["policyCondition"]["policy"]["name"].as_str().unwrap()
            )
        })
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn license_and_license_group_conditions_compare_license_identities() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let gpl = license(&dt, &admin, "GPL-3.0-only").await;
    let gpl = gpl["uuid"].as_str().unwrap().to_string();
    let mit = license(&dt, &admin, "MIT").await;
    let mit = mit["uuid"].as_str().unwrap().to_string();
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/licenseGroup",
            &admin,
            &json!({"name": "Copyleft"}),
        )
        .await;
    let group = r.body["uuid"].as_str().unwrap().to_string();
    let r = dt
        .req(
            Method::POST,
            &format!("/api/v1/licenseGroup/{group}/license/{gpl}"),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 200);

    condition_policy(&dt, &admin, "no-gpl", "LICENSE", "IS", &gpl).await;
    condition_policy(&dt, &admin, "only-mit", "LICENSE", "IS_NOT", &mit).await;
    condition_policy(&dt, &admin, "no-copyleft", "LICENSE_GROUP", "IS", &group).await;
    condition_policy(&dt, &admin, "known", "LICENSE", "IS", "unresolved").await;

    let p = dt
        .project(&admin, json!({"name": "licensed", "version": "1"}))
        .await;
    let p = p["uuid"].as_str().unwrap();
    for (name, lic) in [
        ("gpl-by-id", Some("GPL-3.0-only")),
        ("gpl-by-case", Some("gpl-3.0-only")),
        ("gpl-by-name", Some("GNU General Public License v3.0 only")),
        ("mit", Some("MIT")),
        ("odd", Some("Our Own Terms")),
        ("none", None),
    ] {
        let mut body = json!({"name": name, "version": "1.0"});
        if let Some(l) = lic {
            body["license"] = json!(l);
        }
        let r = dt
            .json(
                Method::PUT,
                &format!("/api/v1/component/project/{p}"),
                &admin,
                &body,
            )
            .await;
        assert_eq!(r.status, 201, "{:?}", r.raw);
    }
    let got = violating(&dt, &admin, p).await;
    let want: Vec<String> = [
        "gpl-by-case:no-copyleft",
        "gpl-by-case:no-gpl",
        "gpl-by-case:only-mit",
        "gpl-by-id:no-copyleft",
        "gpl-by-id:no-gpl",
        "gpl-by-id:only-mit",
        "gpl-by-name:no-copyleft",
        "gpl-by-name:no-gpl",
        "gpl-by-name:only-mit",
        "none:known",
        "none:only-mit",
        "odd:known",
        "odd:only-mit",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(got, want);
    // License violations are counted as such in the metrics.
    let r = dt
        .get(&format!("/api/v1/metrics/project/{p}/current"), &admin)
        .await;
    assert_eq!(r.body["policyViolationsLicenseTotal"], 13);
    assert_eq!(r.body["policyViolationsFail"], 13);
}

#[tokio::test]
async fn portfolio_and_component_violation_listings() {
    let dt = Dt::start_with(|c| c.dtrack.acl_enabled = true).await;
    let admin = dt.key("Admins", &all()).await;
    let reader = dt.key("Readers", &[P::ViewPolicyViolation]).await;
    condition_policy(&dt, &admin, "no-odd", "LICENSE", "IS", "unresolved").await;
    let mut projects = Vec::new();
    let mut comps = Vec::new();
    for name in ["one", "two"] {
        let p = dt
            .project(&admin, json!({"name": name, "version": "1"}))
            .await;
        let p = p["uuid"].as_str().unwrap().to_string();
        comps.push(dt.component(&admin, &p, &format!("{name}-lib")).await);
        projects.push(p);
    }
    let r = dt.get("/api/v1/violation", &admin).await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.headers["x-total-count"], "2");
    let r = dt
        .get("/api/v1/violation?pageNumber=2&pageSize=1", &admin)
        .await;
    assert_eq!(r.body.as_array().unwrap().len(), 1);
    assert_eq!(r.headers["x-total-count"], "2");
    // Under the ACL a team sees the violations of its projects only.
    let r = dt.get("/api/v1/violation", &reader).await;
    assert_eq!(r.headers["x-total-count"], "0");
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/acl/mapping",
            &admin,
            &json!({"team": reader.team_uuid, "project": projects[1]}),
        )
        .await;
    assert_eq!(r.status, 200);
    let r = dt.get("/api/v1/violation", &reader).await;
    assert_eq!(r.headers["x-total-count"], "1");
    assert_eq!(r.body[0]["component"]["name"], "two-lib");

    let r = dt
        .get(
            &format!("/api/v1/violation/component/{}", comps[1]),
            &reader,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.headers["x-total-count"], "1");
    assert_eq!(r.body[0]["policyCondition"]["subject"], "LICENSE");
    let r = dt
        .get(
            &format!("/api/v1/violation/component/{}", comps[0]),
            &reader,
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (403, "Access to the specified component is forbidden")
    );
    let r = dt
        .get(
            "/api/v1/violation/component/0f8fad5b-d9cb-469f-a165-70867728950e",
            &admin,
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The component could not be found.")
    );
    let viewer = dt.key("Viewers", &[P::ViewPortfolio]).await;
    let r = dt.get("/api/v1/violation", &viewer).await;
    assert_eq!(r.status, 403);
}
