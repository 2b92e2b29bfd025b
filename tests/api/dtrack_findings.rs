//! Dependency-Track analysis decisions and their audit trail, findings and components.

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, Key, all, text};

const NOBODY: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

struct Setup {
    dt: Dt,
    admin: Key,
    project: String,
    component: String,
    vuln: String,
}

async fn setup() -> Setup {
    let dt = Dt::start().await;
    let admin = dt.key("Test Users", &all()).await;
    let (project, component, vuln) = dt.finding(&admin, "acme", "1").await;
    Setup {
        dt,
        admin,
        project,
        component,
        vuln,
    }
}

fn comments(a: &Value) -> Vec<(String, String)> {
    a["analysisComments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["comment"].as_str().unwrap().to_string(),
                c["commenter"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn put_analysis_writes_upstreams_audit_trail() {
    let s = setup().await;
    let (dt, admin) = (&s.dt, &s.admin);
    let q = format!(
        "/api/v1/analysis?project={}&component={}&vulnerability={}",
        s.project, s.component, s.vuln
    );
    let r = dt.get(&q, admin).await;
    assert_eq!((r.status, text(&r)), (404, "No analysis exists."));
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/analysis",
            admin,
            &json!({
                "project": s.project, "component": s.component, "vulnerability": s.vuln,
                "analysisState": "NOT_AFFECTED", "analysisJustification": "CODE_NOT_REACHABLE",
                "analysisResponse": "WILL_NOT_FIX", "analysisDetails": "Analysis details here",
                "comment": "Analysis comment here", "isSuppressed": true
            }),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["analysisState"], "NOT_AFFECTED");
    assert_eq!(r.body["isSuppressed"], true);
    let who = "Test Users".to_string();
    assert_eq!(
        comments(&r.body),
        vec![
            (
                "Analysis: NOT_SET \u{2192} NOT_AFFECTED".to_string(),
                who.clone()
            ),
            (
                "Justification: NOT_SET \u{2192} CODE_NOT_REACHABLE".to_string(),
                who.clone()
            ),
            (
                "Vendor Response: NOT_SET \u{2192} WILL_NOT_FIX".to_string(),
                who.clone()
            ),
            ("Details: Analysis details here".to_string(), who.clone()),
            ("Suppressed".to_string(), who.clone()),
            ("Analysis comment here".to_string(), who.clone()),
        ]
    );
    assert!(r.body["analysisComments"][0]["timestamp"].is_i64());
    // Omitted enums reset to NOT_SET; details cannot be cleared.
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/analysis",
            admin,
            &json!({
                "project": s.project, "component": s.component, "vulnerability": s.vuln,
                "analysisState": "EXPLOITABLE", "analysisResponse": "UPDATE", "isSuppressed": false
            }),
        )
        .await;
    assert_eq!(r.status, 200);
    let c = comments(&r.body);
    assert_eq!(c.len(), 10);
    assert_eq!(c[6].0, "Analysis: NOT_AFFECTED \u{2192} EXPLOITABLE");
    assert_eq!(c[7].0, "Justification: CODE_NOT_REACHABLE \u{2192} NOT_SET");
    assert_eq!(c[8].0, "Vendor Response: WILL_NOT_FIX \u{2192} UPDATE");
    assert_eq!(c[9].0, "Unsuppressed");
    let r2 = dt.get(&q, admin).await;
    assert_eq!(r2.status, 200);
    assert_eq!(r2.body["analysisDetails"], "Analysis details here");
    assert_eq!(r2.body["isSuppressed"], false);
    assert_eq!(comments(&r2.body), c);
    assert!(r2.headers.get("x-total-count").is_none());
}

#[tokio::test]
async fn empty_request_on_a_new_analysis_adds_no_comment() {
    let s = setup().await;
    let r =
        s.dt.json(
            Method::PUT,
            "/api/v1/analysis",
            &s.admin,
            &json!({"project": s.project, "component": s.component, "vulnerability": s.vuln}),
        )
        .await;
    assert_eq!(
        r.body,
        json!({"analysisState": "NOT_SET", "analysisJustification": "NOT_SET", "analysisResponse": "NOT_SET", "analysisComments": [], "isSuppressed": false})
    );
}

#[tokio::test]
async fn analysis_errors_change_nothing() {
    let s = setup().await;
    let (dt, admin) = (&s.dt, &s.admin);
    let r = dt
        .get(
            &format!(
                "/api/v1/analysis?project=x&component={}&vulnerability=CVE-2018-8088",
                s.component
            ),
            admin,
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.body,
        json!([{"input": "x", "message": "Project is not a valid UUID"}, {"input": "CVE-2018-8088", "message": "Vulnerability is not a valid UUID"}])
    );
    for (p, c, v, msg) in [
        (
            NOBODY,
            s.component.as_str(),
            s.vuln.as_str(),
            "The project could not be found.",
        ),
        (
            s.project.as_str(),
            NOBODY,
            s.vuln.as_str(),
            "The component could not be found.",
        ),
        (
            s.project.as_str(),
            s.component.as_str(),
            NOBODY,
            "The vulnerability could not be found.",
        ),
    ] {
        let r = dt
            .get(
                &format!("/api/v1/analysis?project={p}&component={c}&vulnerability={v}"),
                admin,
            )
            .await;
        assert_eq!((r.status, text(&r)), (404, msg));
        let r = dt
            .json(Method::PUT, "/api/v1/analysis", admin, &json!({"project": p, "component": c, "vulnerability": v, "analysisState": "RESOLVED"}))
            .await;
        assert_eq!((r.status, text(&r)), (404, msg));
    }
    let r = dt
        .json(Method::PUT, "/api/v1/analysis", admin, &json!({"project": s.project, "component": s.component, "vulnerability": s.vuln, "analysisState": "MAYBE"}))
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.headers["content-type"], "application/problem+json");
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/analysis",
            admin,
            &json!({"project": s.project, "component": "ABC", "vulnerability": s.vuln}),
        )
        .await;
    assert_eq!(
        r.body,
        json!([{"message": "The component must be a valid 36 character UUID", "messageTemplate": "The component must be a valid 36 character UUID", "path": "component", "invalidValue": "ABC"}])
    );
    let viewer = dt.key("Viewers", &[P::ViewVulnerability]).await;
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/analysis",
            &viewer,
            &json!({"project": s.project, "component": s.component, "vulnerability": s.vuln}),
        )
        .await;
    assert_eq!((r.status, r.raw.len()), (403, 0));
    let q = format!(
        "/api/v1/analysis?component={}&vulnerability={}",
        s.component, s.vuln
    );
    let r = dt.get(&q, &viewer).await;
    assert_eq!((r.status, text(&r)), (404, "No analysis exists."));
}

#[tokio::test]
async fn findings_list_the_attributed_vulnerability() {
    let s = setup().await;
    let r =
        s.dt.get(&format!("/api/v1/finding/project/{}", s.project), &s.admin)
            .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["x-total-count"], "1");
    let f = &r.body[0];
    assert_eq!(f["component"]["uuid"], s.component.as_str());
    assert_eq!(f["component"]["project"], s.project.as_str());
    assert_eq!(f["vulnerability"]["uuid"], s.vuln.as_str());
    assert_eq!(f["vulnerability"]["source"], "INTERNAL");
    assert_eq!(f["vulnerability"]["severity"], "HIGH");
    assert_eq!(f["analysis"], json!({"isSuppressed": false}));
    assert_eq!(
        f["matrix"],
        format!("{}:{}:{}", s.project, s.component, s.vuln)
    );
    let r =
        s.dt.json(
            Method::PUT,
            "/api/v1/vulnerability",
            &s.admin,
            &json!({"vulnId": "INT-1"}),
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (
            409,
            "A vulnerability with the specified vulnId already exists."
        )
    );
}
