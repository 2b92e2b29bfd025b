//! Dependency-Track policies, violations, violation analysis, and the counted badge.

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, Key, all, text};

async fn policy(
    dt: &Dt,
    k: &Key,
    name: &str,
    state: &str,
    subject: &str,
    op: &str,
    value: &str,
) -> Value {
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/policy",
            k,
            &json!({"name": name, "violationState": state}),
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
    r.body
}

async fn component(dt: &Dt, k: &Key, project: &str, body: Value) {
    let r = dt
        .json(
            Method::PUT,
            &format!("/api/v1/component/project/{project}"),
            k,
            &body,
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.raw);
}

#[tokio::test]
async fn violations_drive_the_counted_badge_and_suppression_removes_them() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let cond = policy(
        &dt,
        &admin,
        "no-bad",
        "FAIL",
        "PACKAGE_URL",
        "MATCHES",
        "pkg:npm/bad*",
    )
    .await;
    assert_eq!(cond["violationType"], "OPERATIONAL");
    assert_eq!(cond["subject"], "PACKAGE_URL");
    assert!(cond.get("policy").is_none());
    policy(
        &dt,
        &admin,
        "warn-names",
        "WARN",
        "COORDINATES",
        "MATCHES",
        r#"{"name":"warn-*","version":"*"}"#,
    )
    .await;
    policy(
        &dt,
        &admin,
        "old",
        "INFO",
        "VERSION",
        "NUMERIC_LESS_THAN",
        "1.0",
    )
    .await;
    let p = dt
        .project(&admin, json!({"name": "app", "version": "1"}))
        .await;
    let pu = p["uuid"].as_str().unwrap();
    component(
        &dt,
        &admin,
        pu,
        json!({"name": "bad", "version": "1.0", "purl": "pkg:npm/bad@1.0"}),
    )
    .await;
    for n in ["warn-a", "warn-b"] {
        component(&dt, &admin, pu, json!({"name": n, "version": "2.0"})).await;
    }
    for n in ["i1", "i2", "i3"] {
        component(&dt, &admin, pu, json!({"name": n, "version": "0.9"})).await;
    }
    component(&dt, &admin, pu, json!({"name": "fine", "version": "3.0"})).await;
    let badge = format!("/api/v1/badge/violations/project/{pu}");
    let r = dt.get(&badge, &admin).await;
    assert_eq!(
        text(&r),
        include_str!("../dtrack-badges/project-violations.rendered-fail1-warn2-info3.svg")
    );
    let r = dt
        .get(&format!("/api/v1/violation/project/{pu}"), &admin)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["x-total-count"], "6");
    let fail = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["policyCondition"]["policy"]["violationState"] == "FAIL")
        .unwrap()
        .clone();
    assert_eq!(fail["type"], "OPERATIONAL");
    assert_eq!(fail["component"]["name"], "bad");
    assert_eq!(fail["project"]["uuid"], pu);
    assert_eq!(fail["policyCondition"]["policy"]["name"], "no-bad");
    // Suppress it: it leaves the listing and, after a metrics run, the badge.
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/violation/analysis",
            &admin,
            &json!({
                "component": fail["component"]["uuid"], "policyViolation": fail["uuid"],
                "analysisState": "APPROVED", "comment": "accepted risk", "isSuppressed": true
            }),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["analysisState"], "APPROVED");
    assert_eq!(r.body["isSuppressed"], true);
    let comments: Vec<&str> = r.body["analysisComments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["comment"].as_str().unwrap())
        .collect();
    assert_eq!(comments, ["NOT_SET \u{2192} APPROVED", "accepted risk"]);
    assert!(r.body["analysisComments"][0].get("commenter").is_none());
    let r = dt
        .get(&format!("/api/v1/violation/project/{pu}"), &admin)
        .await;
    assert_eq!(r.headers["x-total-count"], "5");
    let r = dt
        .get(
            &format!("/api/v1/violation/project/{pu}?suppressed=true"),
            &admin,
        )
        .await;
    assert_eq!(r.headers["x-total-count"], "6");
    let r = dt.get(&badge, &admin).await;
    assert!(
        text(&r).contains(">1</text>"),
        "metrics are not refreshed by an analysis"
    );
    dt.get(&format!("/api/v1/metrics/project/{pu}/refresh"), &admin)
        .await;
    let r = dt.get(&badge, &admin).await;
    assert!(text(&r).contains(
        "<!-- Fail -->\n    <text x=\"62\" y=\"15\" fill=\"#000\" opacity=\"0.25\">0</text>"
    ));
    let r = dt
        .get(&format!("/api/v1/metrics/project/{pu}/current"), &admin)
        .await;
    assert_eq!(
        (
            r.body["policyViolationsFail"].clone(),
            r.body["policyViolationsWarn"].clone(),
            r.body["policyViolationsInfo"].clone(),
            r.body["components"].clone()
        ),
        (json!(0), json!(2), json!(3), json!(7))
    );
}

#[tokio::test]
async fn removing_a_condition_clears_its_violations() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let cond = policy(&dt, &admin, "internal", "WARN", "IS_INTERNAL", "IS", "true").await;
    let p = dt.project(&admin, json!({"name": "app"})).await;
    let pu = p["uuid"].as_str().unwrap();
    component(&dt, &admin, pu, json!({"name": "mine", "isInternal": true})).await;
    let r = dt
        .get(&format!("/api/v1/violation/project/{pu}"), &admin)
        .await;
    assert_eq!(r.headers["x-total-count"], "1");
    let r = dt
        .req(
            Method::DELETE,
            &format!(
                "/api/v1/policy/condition/{}",
                cond["uuid"].as_str().unwrap()
            ),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 204);
    let r = dt
        .get(&format!("/api/v1/violation/project/{pu}"), &admin)
        .await;
    assert_eq!(
        (r.headers["x-total-count"].to_str().unwrap(), r.body.clone()),
        ("0", json!([]))
    );
}

#[tokio::test]
async fn policy_errors() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let viewer = dt.key("Viewers", &[P::ViewPolicyViolation]).await;
    let r = dt
        .json(Method::PUT, "/api/v1/policy", &admin, &json!({"name": "p"}))
        .await;
    assert_eq!(r.status, 201);
    assert_eq!(
        (r.body["operator"].clone(), r.body["violationState"].clone()),
        (json!("ANY"), json!("INFO"))
    );
    assert_eq!(r.body["policyConditions"], json!([]));
    let uuid = r.body["uuid"].as_str().unwrap().to_string();
    let r = dt
        .json(Method::PUT, "/api/v1/policy", &admin, &json!({"name": "p"}))
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (409, "A policy with the specified name already exists.")
    );
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/policy",
            &admin,
            &json!({"name": "q", "violationState": "BAD"}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.headers["content-type"], "application/problem+json");
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/policy",
            &viewer,
            &json!({"name": "q"}),
        )
        .await;
    assert_eq!((r.status, r.raw.len()), (403, 0));
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/policy/0f8fad5b-d9cb-469f-a165-70867728950e/condition",
            &admin,
            &json!({"subject": "CPE", "operator": "MATCHES", "value": "x"}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the policy could not be found.")
    );
    let r = dt
        .json(
            Method::PUT,
            &format!("/api/v1/policy/{uuid}/condition"),
            &admin,
            &json!({"subject": "CPE", "operator": "MATCHES", "value": " "}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body[0]["path"], "value");
    let r = dt.get(&format!("/api/v1/policy/{uuid}"), &admin).await;
    assert_eq!(r.body["policyConditions"], json!([]));
    let r = dt
        .req(
            Method::DELETE,
            "/api/v1/policy/0f8fad5b-d9cb-469f-a165-70867728950e",
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The UUID of the policy could not be found.")
    );
    let r = dt
        .json(Method::PUT, "/api/v1/violation/analysis", &admin, &json!({"component": "0f8fad5b-d9cb-469f-a165-70867728950e", "policyViolation": "0f8fad5b-d9cb-469f-a165-70867728950e"}))
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The component could not be found.")
    );
}

#[tokio::test]
async fn latest_only_policies_skip_older_versions() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/policy",
            &admin,
            &json!({"name": "latest", "violationState": "WARN", "onlyLatestProjectVersion": true}),
        )
        .await;
    assert_eq!(r.body["onlyLatestProjectVersion"], true);
    let uuid = r.body["uuid"].as_str().unwrap().to_string();
    dt.json(
        Method::PUT,
        &format!("/api/v1/policy/{uuid}/condition"),
        &admin,
        &json!({"subject": "VERSION", "operator": "NUMERIC_GREATER_THAN", "value": "0"}),
    )
    .await;
    let old = dt
        .project(&admin, json!({"name": "app", "version": "1"}))
        .await;
    let new = dt
        .project(
            &admin,
            json!({"name": "app", "version": "2", "isLatest": true}),
        )
        .await;
    for p in [&old, &new] {
        component(
            &dt,
            &admin,
            p["uuid"].as_str().unwrap(),
            json!({"name": "c", "version": "1.0"}),
        )
        .await;
    }
    let count =
        |r: &crate::support::Reply| r.headers["x-total-count"].to_str().unwrap().to_string();
    let r = dt
        .get(
            &format!(
                "/api/v1/violation/project/{}",
                old["uuid"].as_str().unwrap()
            ),
            &admin,
        )
        .await;
    assert_eq!(count(&r), "0");
    let r = dt
        .get(
            &format!(
                "/api/v1/violation/project/{}",
                new["uuid"].as_str().unwrap()
            ),
            &admin,
        )
        .await;
    assert_eq!(count(&r), "1");
}
