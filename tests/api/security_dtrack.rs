//! Issue 9 (security), Dependency-Track: each test performs an attack over HTTP the way a
//! client would and checks what the client sees afterwards.

use hyper::Method;
use serde_json::json;

use outpost::domain::dtrack::permissions::Permission as P;
use outpost::model::Role;

use crate::support::dtrack::{Dt, Key, all, b64, text, wait_done};

/// An XML BOM whose components nest `depth` levels deep, one component per level.
fn nested_xml(depth: usize) -> String {
    let mut s = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?><bom xmlns="http://cyclonedx.org/schema/bom/1.5" version="1"><components>"#,
    );
    for i in 0..depth {
        s.push_str(&format!(
            r#"<component type="library"><name>c{i}</name><components>"#
        ));
    }
    for _ in 0..depth {
        s.push_str("</components></component>");
    }
    s.push_str("</components></bom>");
    s
}

/// Both listeners still answer: the process survived.
async fn still_alive(dt: &Dt) {
    let r = dt.req(Method::GET, "/api/version", &[], "").await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let me = dt
        .server
        .user("alive@example.com", "Alive", Role::Member)
        .await;
    dt.server
        .get("/api/v1/users/me", &me, &[])
        .await
        .assert_success("GET /users/me");
}

async fn component_count(dt: &Dt, k: &Key, project: &str) -> usize {
    let r = dt
        .get(
            &format!("/api/v1/component/project/{project}?pageSize=5000&pageNumber=1"),
            k,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    r.body.as_array().unwrap().len()
}

#[tokio::test]
async fn deeply_nested_boms_do_not_abort_the_process() {
    let dt = Dt::start().await;
    let up = dt.key("Uploader", &all()).await;
    let p = dt
        .project(&up, json!({"name": "deep", "version": "1"}))
        .await;
    let pu = p["uuid"].as_str().unwrap().to_string();
    let doc = nested_xml(2500);

    // PUT with Base64: accepted (every component is valid) and imported by the worker.
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            &up,
            &json!({"project": pu, "bom": b64(&doc)}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    wait_done(&dt, &up, r.body["token"].as_str().unwrap()).await;
    assert_eq!(component_count(&dt, &up, &pu).await, 2500);

    // POST multipart, with one invalid component at the bottom: a clear schema failure.
    let bad = doc.replacen(
        r#"<component type="library"><name>c2499</name>"#,
        r#"<component type="library">"#,
        1,
    );
    let boundary = "----outpost-deep";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"project\"\r\n\r\n{pu}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"bom\"; filename=\"bom.xml\"\r\nContent-Type: application/xml\r\n\r\n{bad}\r\n--{boundary}--\r\n"
    );
    let ct = format!("multipart/form-data; boundary={boundary}");
    let r = dt
        .req(
            Method::POST,
            "/api/v1/bom",
            &[("X-Api-Key", &up.key), ("content-type", &ct)],
            body,
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.raw);
    assert_eq!(r.body["detail"], "Schema validation failed");
    assert_eq!(r.body["errors"].as_array().unwrap().len(), 1);

    // A JSON BOM nested as deep as the JSON parser allows, and one far deeper.
    for levels in [60, 5000] {
        let head = r#"{"bomFormat":"CycloneDX","specVersion":"1.5","version":1,"components":["#;
        let mut inner = String::new();
        for i in 0..levels {
            inner.push_str(&format!(
                r#"{{"type":"library","name":"c{i}","components":["#
            ));
        }
        inner.push_str(r#"{"type":"library","name":"leaf"}"#);
        for _ in 0..levels {
            inner.push_str("]}");
        }
        let doc = format!("{head}{inner}]}}");
        let r = dt
            .json(
                Method::PUT,
                "/api/v1/bom",
                &up,
                &json!({"project": pu, "bom": b64(&doc)}),
            )
            .await;
        if levels > 100 {
            assert_eq!(r.status, 400, "{:?}", r.raw);
            assert_eq!(r.body["title"], "The uploaded BOM is invalid");
        } else {
            assert_eq!(r.status, 200, "{:?}", r.raw);
            wait_done(&dt, &up, r.body["token"].as_str().unwrap()).await;
            assert_eq!(component_count(&dt, &up, &pu).await, levels + 1);
        }
    }
    still_alive(&dt).await;
}

fn analysis_url(project: Option<&str>, component: &str, vuln: &str) -> String {
    match project {
        Some(p) => {
            format!("/api/v1/analysis?project={p}&component={component}&vulnerability={vuln}")
        }
        None => format!("/api/v1/analysis?component={component}&vulnerability={vuln}"),
    }
}

#[tokio::test]
async fn analyses_respect_the_project_acl() {
    let dt = Dt::start_with(|c| c.dtrack.acl_enabled = true).await;
    let admin = dt.key("Admins", &all()).await;
    let team = dt
        .key(
            "Devs",
            &[
                P::ViewPortfolio,
                P::PortfolioManagement,
                P::ViewVulnerability,
                P::VulnerabilityAnalysis,
            ],
        )
        .await;
    // P1 is created by the team's key, so mapped to it; P2 is not.
    let p1 = dt
        .project(&team, json!({"name": "p1", "version": "1"}))
        .await;
    let p1 = p1["uuid"].as_str().unwrap().to_string();
    let p2 = dt
        .project(&admin, json!({"name": "p2", "version": "1"}))
        .await;
    let p2 = p2["uuid"].as_str().unwrap().to_string();
    let c1 = dt.component(&team, &p1, "c1").await;
    let c2 = dt.component(&admin, &p2, "c2").await;
    let v = dt.vulnerability(&admin, "INT-1", "HIGH").await;
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/analysis",
            &admin,
            &json!({"project": p2, "component": c2, "vulnerability": v,
                    "analysisState": "EXPLOITABLE", "comment": "private note"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let before = dt.get(&analysis_url(Some(&p2), &c2, &v), &admin).await;
    assert_eq!(before.status, 200);

    // Reading P2's audit trail: by component alone, naming P2, or naming P1.
    let forbidden = (403, "Access to the specified project is forbidden");
    let r = dt.get(&analysis_url(None, &c2, &v), &team).await;
    assert_eq!((r.status, text(&r)), forbidden);
    let r = dt.get(&analysis_url(Some(&p2), &c2, &v), &team).await;
    assert_eq!((r.status, text(&r)), forbidden);
    let r = dt.get(&analysis_url(Some(&p1), &c2, &v), &team).await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The component could not be found.")
    );

    // Suppressing P2's finding while naming P1, or naming P2.
    for (project, status) in [(&p1, 404), (&p2, 403)] {
        let r = dt
            .json(
                Method::PUT,
                "/api/v1/analysis",
                &team,
                &json!({"project": project, "component": c2, "vulnerability": v,
                        "analysisState": "FALSE_POSITIVE", "isSuppressed": true}),
            )
            .await;
        assert_eq!(r.status, status, "{:?}", r.raw);
    }
    let after = dt.get(&analysis_url(Some(&p2), &c2, &v), &admin).await;
    assert_eq!(after.body, before.body, "nothing changed");

    // The team's own project still works.
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/analysis",
            &team,
            &json!({"project": p1, "component": c1, "vulnerability": v,
                    "analysisState": "NOT_AFFECTED", "isSuppressed": true}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let r = dt.get(&analysis_url(Some(&p1), &c1, &v), &team).await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["analysisState"], "NOT_AFFECTED");
    assert_eq!(r.body["isSuppressed"], true);
    let r = dt.get(&analysis_url(None, &c1, &v), &team).await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
}

const FORM: [(&str, &str); 1] = [("content-type", "application/x-www-form-urlencoded")];

async fn post_form(dt: &Dt, path: &str, body: &str) -> crate::support::Reply {
    dt.req(Method::POST, path, &FORM, body.to_string()).await
}

/// The bootstrap admin with its forced change done: password `s3cret`.
async fn admin_with_password(dt: &Dt) {
    let r = post_form(
        dt,
        "/api/v1/user/forceChangePassword",
        "username=admin&password=admin&newPassword=s3cret&confirmPassword=s3cret",
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
}

/// Issue 24 §6, Dependency-Track's side: usernames match exactly, so wrong passwords sent
/// under other spellings of a name (here its case; on the old code they all counted
/// against `admin`) do not lock its account.
#[tokio::test]
async fn failures_under_other_spellings_do_not_lock_an_account() {
    let dt = Dt::start().await;
    admin_with_password(&dt).await;
    for name in ["ADMIN", "Admin", "aDmIn"] {
        for i in 0..6 {
            let r = post_form(
                &dt,
                "/api/v1/user/login",
                &format!("username={name}&password=guess{i}"),
            )
            .await;
            assert!(matches!(r.status, 401 | 429), "{name}: {:?}", r.raw);
        }
    }
    let r = post_form(&dt, "/api/v1/user/login", "username=admin&password=s3cret").await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
}

#[tokio::test]
async fn login_guessing_is_limited() {
    let dt = Dt::start().await;
    admin_with_password(&dt).await;
    // 30 wrong passwords in a burst, through both endpoints that check one.
    let mut statuses = Vec::new();
    for i in 0..30 {
        let r = if i % 2 == 0 {
            post_form(
                &dt,
                "/api/v1/user/login",
                &format!("username=admin&password=guess{i}"),
            )
            .await
        } else {
            post_form(
                &dt,
                "/api/v1/user/forceChangePassword",
                &format!("username=admin&password=guess{i}&newPassword=x1&confirmPassword=x1"),
            )
            .await
        };
        statuses.push(r.status);
    }
    assert_eq!(statuses[..5], [401; 5]);
    assert!(statuses[5..].iter().all(|s| *s == 429), "{statuses:?}");
    // The right password is refused too while the name is blocked.
    let r = post_form(&dt, "/api/v1/user/login", "username=admin&password=s3cret").await;
    assert_eq!(r.status, 429, "{:?}", r.raw);
    let wait: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(wait > 60, "{wait}");
    assert_eq!(r.headers["content-type"], "text/plain");
    assert!(text(&r).contains("Too many failed login attempts"));
    let r = post_form(
        &dt,
        "/api/v1/user/forceChangePassword",
        "username=admin&password=s3cret&newPassword=n3w&confirmPassword=n3w",
    )
    .await;
    assert_eq!(r.status, 429, "{:?}", r.raw);
    // Other names are not affected.
    let r = post_form(&dt, "/api/v1/user/login", "username=bob&password=x").await;
    assert_eq!((r.status, text(&r)), (401, "INVALID_CREDENTIALS"));
}

#[tokio::test]
async fn a_password_change_revokes_earlier_tokens() {
    let dt = Dt::start().await;
    admin_with_password(&dt).await;
    let login = |pw: &'static str| {
        let dt = &dt;
        async move {
            let r = post_form(
                dt,
                "/api/v1/user/login",
                &format!("username=admin&password={pw}"),
            )
            .await;
            assert_eq!(r.status, 200, "{:?}", r.raw);
            format!("Bearer {}", text(&r))
        }
    };
    let teams = |bearer: String| {
        let dt = &dt;
        async move {
            dt.req(
                Method::GET,
                "/api/v1/team",
                &[("Authorization", &bearer)],
                "",
            )
            .await
            .status
        }
    };
    let old = login("s3cret").await;
    let other = login("s3cret").await;
    assert_eq!(teams(old.clone()).await, 200);
    // Changed within the same second as the tokens were issued.
    let r = post_form(
        &dt,
        "/api/v1/user/forceChangePassword",
        "username=admin&password=s3cret&newPassword=n3w&confirmPassword=n3w",
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(teams(old.clone()).await, 401);
    assert_eq!(teams(other).await, 401);
    let new = login("n3w").await;
    assert_eq!(teams(new.clone()).await, 200);
    // Changing back to the earlier password does not revive the earliest token.
    let r = post_form(
        &dt,
        "/api/v1/user/forceChangePassword",
        "username=admin&password=n3w&newPassword=s3cret&confirmPassword=s3cret",
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(teams(old).await, 401);
    assert_eq!(teams(new).await, 401);
    assert_eq!(teams(login("s3cret").await).await, 200);
}

/// No answer may pair a wildcard origin with credentials.
fn assert_no_credentialed_wildcard(r: &crate::support::Reply) {
    let origin = r.headers.get("access-control-allow-origin");
    let creds = r.headers.get("access-control-allow-credentials");
    assert!(
        !(origin.is_some_and(|o| o == "*") && creds.is_some_and(|c| c == "true")),
        "{:?}",
        r.headers
    );
}

#[tokio::test]
async fn cors_never_allows_credentials_with_a_wildcard_origin() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let site = [("Origin", "https://evil.example")];
    let r = dt.req(Method::GET, "/api/version", &site, "").await;
    assert_eq!(r.status, 200);
    assert_no_credentialed_wildcard(&r);
    let r = dt
        .req(
            Method::GET,
            "/api/v1/team",
            &[
                ("Origin", "https://evil.example"),
                ("X-Api-Key", &admin.key),
            ],
            "",
        )
        .await;
    assert_eq!(r.status, 200);
    assert_no_credentialed_wildcard(&r);
    let r = dt.req(Method::GET, "/api/v1/team", &site, "").await;
    assert_eq!(r.status, 401);
    assert_no_credentialed_wildcard(&r);
    let r = dt
        .req(
            Method::OPTIONS,
            "/api/v1/team",
            &[
                ("Origin", "https://evil.example"),
                ("Access-Control-Request-Method", "GET"),
                ("Access-Control-Request-Headers", "x-api-key"),
            ],
            "",
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.headers["access-control-allow-origin"], "*");
    assert_no_credentialed_wildcard(&r);
}
