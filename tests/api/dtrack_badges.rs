//! Dependency-Track policy-violations badges, byte for byte.

use hyper::Method;
use serde_json::json;

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, all, text};

const NOMETRICS: &str = include_str!("../dtrack-badges/project-violations-nometrics.rendered.svg");
const NONE: &str = include_str!("../dtrack-badges/project-violations-none.rendered.svg");

#[test]
fn counted_variants_match_upstream_bytes() {
    use outpost::dtrack::svg::violations;
    assert_eq!(
        violations(Some((1, 2, 3))),
        include_str!("../dtrack-badges/project-violations.rendered-fail1-warn2-info3.svg")
    );
    assert_eq!(
        violations(Some((12, 0, 105))),
        include_str!("../dtrack-badges/project-violations.rendered-fail12-warn0-info105.svg")
    );
    assert_eq!(violations(Some((0, 0, 0))), NONE);
    assert_eq!(violations(None), NOMETRICS);
}

#[tokio::test]
async fn badge_moves_from_no_metrics_to_no_violations() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let badges = dt.key("Badge Readers", &[P::ViewBadges]).await;
    let p = dt
        .project(&admin, json!({"name": "acme", "version": "1.0"}))
        .await;
    let uuid = p["uuid"].as_str().unwrap();
    let by_uuid = format!("/api/v1/badge/violations/project/{uuid}");
    let r = dt.get(&by_uuid, &badges).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "image/svg+xml");
    assert_eq!(text(&r), NOMETRICS);
    let r = dt
        .get(&format!("/api/v1/metrics/project/{uuid}/refresh"), &admin)
        .await;
    assert_eq!((r.status, r.raw.len()), (200, 0));
    let r = dt.get(&by_uuid, &badges).await;
    assert_eq!(text(&r), NONE);
    let r = dt
        .req(
            Method::GET,
            &format!(
                "/api/v1/badge/violations/project/acme/1.0?apiKey={}",
                badges.key
            ),
            &[],
            "",
        )
        .await;
    assert_eq!((r.status, text(&r)), (200, NONE));
    let r = dt
        .get(&format!("/api/v1/metrics/project/{uuid}/current"), &admin)
        .await;
    assert_eq!(r.body["policyViolationsTotal"], 0);
    assert_eq!(r.body["components"], 0);
}

#[tokio::test]
async fn badge_auth_and_lookup_errors() {
    let dt = Dt::start_with(|c| c.dtrack.acl_enabled = true).await;
    let admin = dt.key("Admins", &all()).await;
    let badges = dt.key("Badge Readers", &[P::ViewBadges]).await;
    let other = dt.key("Other", &[P::ViewPortfolio]).await;
    let p = dt
        .project(&admin, json!({"name": "acme", "version": "1.0"}))
        .await;
    let uuid = p["uuid"].as_str().unwrap();
    let by_uuid = format!("/api/v1/badge/violations/project/{uuid}");
    let r = dt.req(Method::GET, &by_uuid, &[], "").await;
    assert_eq!((r.status, r.raw.len()), (401, 0));
    let r = dt.get(&by_uuid, &other).await;
    assert_eq!((r.status, r.raw.len()), (403, 0));
    let r = dt.get(&by_uuid, &badges).await;
    assert_eq!(
        (r.status, text(&r)),
        (403, "Access to the specified project is forbidden")
    );
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/acl/mapping",
            &admin,
            &json!({"team": badges.team_uuid, "project": uuid}),
        )
        .await;
    assert_eq!(r.status, 200);
    let r = dt.get(&by_uuid, &badges).await;
    assert_eq!((r.status, text(&r)), (200, NOMETRICS));
    let r = dt
        .get(
            "/api/v1/badge/violations/project/0f8fad5b-d9cb-469f-a165-70867728950e",
            &badges,
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
    let r = dt
        .get("/api/v1/badge/violations/project/acme/2.0", &badges)
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
}

#[tokio::test]
async fn unauthenticated_badges_ignore_credentials() {
    let dt = Dt::start_with(|c| c.dtrack.badges_unauthenticated = true).await;
    let admin = dt.key("Admins", &all()).await;
    dt.project(&admin, json!({"name": "open", "version": "2"}))
        .await;
    let r = dt
        .req(
            Method::GET,
            "/api/v1/badge/violations/project/open/2",
            &[("X-Api-Key", "garbage")],
            "",
        )
        .await;
    assert_eq!((r.status, text(&r)), (200, NOMETRICS));
}
