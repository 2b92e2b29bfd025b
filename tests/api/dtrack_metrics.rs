//! Dependency-Track metrics as a client reads them: the portfolio's, a project's and a
//! component's current snapshot and history (change-based rows, as upstream keeps them), the
//! refreshes, and the vulnerability database's counts by year and month.

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, all, text};

fn rows(r: &crate::support::Reply) -> &Vec<Value> {
    assert_eq!(r.status, 200, "{:?}", r.raw);
    r.body.as_array().expect("a JSON array")
}

#[tokio::test]
async fn portfolio_metrics_sum_the_projects_and_keep_history_by_change() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let viewer = dt.key("Viewers", &[P::ViewPortfolio]).await;

    let r = dt.get("/api/v1/metrics/portfolio/current", &viewer).await;
    assert_eq!((r.status, r.raw.len()), (204, 0));
    assert!(rows(&dt.get("/api/v1/metrics/portfolio/30/days", &viewer).await).is_empty());

    let (p1, _, _) = dt.finding(&admin, "acme", "1.0").await;
    let r = dt
        .get(&format!("/api/v1/metrics/project/{p1}/refresh"), &admin)
        .await;
    assert_eq!((r.status, r.raw.len()), (200, 0));
    let p2 = dt
        .project(&admin, json!({"name": "quiet", "version": "1.0"}))
        .await;
    let p2 = p2["uuid"].as_str().unwrap();
    dt.component(&admin, p2, "clean-lib").await;

    let r = dt.get("/api/v1/metrics/portfolio/current", &viewer).await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let m = &r.body;
    assert_eq!(m["projects"], 2);
    assert_eq!(m["vulnerableProjects"], 1);
    assert_eq!(m["components"], 2);
    assert_eq!(m["vulnerableComponents"], 1);
    assert_eq!(m["vulnerabilities"], 1);
    assert_eq!(m["high"], 1);
    assert_eq!(m["critical"], 0);
    assert_eq!(m["inheritedRiskScore"], 5.0);
    assert_eq!(m["findingsUnaudited"], 1);
    assert_eq!(m["policyViolationsSecurityTotal"], 0);
    assert_eq!(m["policyViolationsOperationalUnaudited"], 0);
    assert!(m["firstOccurrence"].as_i64().unwrap() <= m["lastOccurrence"].as_i64().unwrap());

    let before = rows(&dt.get("/api/v1/metrics/portfolio/30/days", &viewer).await).clone();
    assert!(!before.is_empty());
    assert_eq!(before.last().unwrap()["projects"], 2);
    // A refresh that changes no counter adds no row; it moves the latest row's last occurrence.
    let r = dt.get("/api/v1/metrics/portfolio/refresh", &admin).await;
    assert_eq!((r.status, r.raw.len()), (200, 0));
    let after = rows(&dt.get("/api/v1/metrics/portfolio/30/days", &viewer).await).clone();
    assert_eq!(after.len(), before.len());
    let last = |v: &[Value]| v.last().unwrap()["lastOccurrence"].as_i64().unwrap();
    assert!(last(&after) >= last(&before));
    // Ordered oldest first.
    let stamps: Vec<i64> = after
        .iter()
        .map(|m| m["lastOccurrence"].as_i64().unwrap())
        .collect();
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "{stamps:?}");

    let since = rows(
        &dt.get("/api/v1/metrics/portfolio/since/20000101", &viewer)
            .await,
    )
    .clone();
    assert_eq!(since.len(), after.len());
    assert!(
        rows(
            &dt.get("/api/v1/metrics/portfolio/since/29991231", &viewer)
                .await
        )
        .is_empty()
    );

    for bad in ["2024-01-01", "20241301", "2024010", "today"] {
        let r = dt
            .get(&format!("/api/v1/metrics/portfolio/since/{bad}"), &viewer)
            .await;
        assert_eq!(
            (r.status, text(&r)),
            (400, "The specified date format is incorrect."),
            "{bad}"
        );
    }
    for bad in ["-1", "3651", "x", "99999999999999999999"] {
        let r = dt
            .get(&format!("/api/v1/metrics/portfolio/{bad}/days"), &viewer)
            .await;
        assert_eq!(r.status, 400, "{bad}");
        assert!(text(&r).contains("number of days"), "{bad}: {}", text(&r));
    }
    // Refreshing needs PORTFOLIO_MANAGEMENT; reading needs VIEW_PORTFOLIO.
    let r = dt.get("/api/v1/metrics/portfolio/refresh", &viewer).await;
    assert_eq!(r.status, 403);
    let none = dt.key("Nobody", &[P::ViewBadges]).await;
    let r = dt.get("/api/v1/metrics/portfolio/current", &none).await;
    assert_eq!(r.status, 403);
    let r = dt
        .req(Method::GET, "/api/v1/metrics/portfolio/current", &[], "")
        .await;
    assert_eq!(r.status, 401);
}

#[tokio::test]
async fn project_and_component_history_follow_their_findings() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let (project, component, vuln) = dt.finding(&admin, "acme", "1.0").await;
    dt.get(
        &format!("/api/v1/metrics/project/{project}/refresh"),
        &admin,
    )
    .await;

    let hist = rows(
        &dt.get(
            &format!("/api/v1/metrics/project/{project}/days/30"),
            &admin,
        )
        .await,
    )
    .clone();
    assert_eq!(hist.last().unwrap()["high"], 1);
    assert_eq!(hist.last().unwrap()["components"], 1);
    let n = hist.len();

    let r = dt
        .get(
            &format!("/api/v1/metrics/component/{component}/current"),
            &admin,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["high"], 1);
    assert_eq!(r.body["vulnerabilities"], 1);
    assert_eq!(r.body["inheritedRiskScore"], 5.0);
    // A component's DependencyMetrics has no component counts.
    assert!(r.body.get("components").is_none(), "{}", r.body);
    let comp_rows = rows(
        &dt.get(
            &format!("/api/v1/metrics/component/{component}/days/1"),
            &admin,
        )
        .await,
    )
    .len();

    // The finding goes away: the next snapshot differs, so each history gains a row.
    let r = dt
        .req(
            Method::DELETE,
            &format!("/api/v1/vulnerability/{vuln}/component/{component}"),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let r = dt
        .get(
            &format!("/api/v1/metrics/component/{component}/refresh"),
            &admin,
        )
        .await;
    assert_eq!((r.status, r.raw.len()), (200, 0));
    let hist = rows(
        &dt.get(
            &format!("/api/v1/metrics/project/{project}/since/20000101"),
            &admin,
        )
        .await,
    )
    .clone();
    assert_eq!(hist.len(), n + 1);
    assert_eq!(hist.last().unwrap()["high"], 0);
    assert_eq!(hist[hist.len() - 2]["high"], 1);
    let comp_hist = rows(
        &dt.get(
            &format!("/api/v1/metrics/component/{component}/since/20000101"),
            &admin,
        )
        .await,
    )
    .clone();
    assert_eq!(comp_hist.len(), comp_rows + 1);
    assert_eq!(comp_hist.last().unwrap()["vulnerabilities"], 0);

    let r = dt
        .get(
            &format!("/api/v1/metrics/project/{project}/since/2024"),
            &admin,
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (400, "The specified date format is incorrect.")
    );
    let r = dt
        .get(
            &format!("/api/v1/metrics/component/{component}/days/x"),
            &admin,
        )
        .await;
    assert_eq!(r.status, 400);
    let unknown = "0f8fad5b-d9cb-469f-a165-70867728950e";
    let r = dt
        .get(&format!("/api/v1/metrics/project/{unknown}/days/5"), &admin)
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
    let r = dt
        .get(
            &format!("/api/v1/metrics/component/{unknown}/current"),
            &admin,
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The component could not be found.")
    );
    let r = dt
        .get("/api/v1/metrics/component/not-a-uuid/current", &admin)
        .await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn project_and_component_metrics_honour_the_acl() {
    let dt = Dt::start_with(|c| c.dtrack.acl_enabled = true).await;
    let admin = dt.key("Admins", &all()).await;
    let other = dt
        .key("Other", &[P::ViewPortfolio, P::PortfolioManagement])
        .await;
    let (project, component, _) = dt.finding(&admin, "acme", "1.0").await;
    for path in [
        format!("/api/v1/metrics/project/{project}/days/5"),
        format!("/api/v1/metrics/project/{project}/since/20240101"),
        format!("/api/v1/metrics/project/{project}/refresh"),
    ] {
        let r = dt.get(&path, &other).await;
        assert_eq!(
            (r.status, text(&r)),
            (403, "Access to the specified project is forbidden"),
            "{path}"
        );
    }
    for path in [
        format!("/api/v1/metrics/component/{component}/current"),
        format!("/api/v1/metrics/component/{component}/days/5"),
        format!("/api/v1/metrics/component/{component}/since/20240101"),
        format!("/api/v1/metrics/component/{component}/refresh"),
    ] {
        let r = dt.get(&path, &other).await;
        assert_eq!(
            (r.status, text(&r)),
            (403, "Access to the specified component is forbidden"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn vulnerability_metrics_count_by_year_and_month() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let viewer = dt.key("Viewers", &[P::ViewPortfolio]).await;
    assert!(rows(&dt.get("/api/v1/metrics/vulnerability", &viewer).await).is_empty());
    dt.vulnerability(&admin, "INT-1", "HIGH").await;
    dt.vulnerability(&admin, "INT-2", "LOW").await;
    let list = rows(&dt.get("/api/v1/metrics/vulnerability", &viewer).await).clone();
    let now = time::OffsetDateTime::now_utc();
    let (year, month) = (i64::from(now.year()), i64::from(u8::from(now.month())));
    // Created just now (a test straddling a month's end may see two months).
    let years: Vec<&Value> = list.iter().filter(|m| m.get("month").is_none()).collect();
    let months: Vec<&Value> = list.iter().filter(|m| m.get("month").is_some()).collect();
    assert_eq!(years.len(), 1, "{list:?}");
    assert_eq!(years[0]["year"], year);
    assert_eq!(years[0]["count"], 2);
    assert_eq!(list[0], *years[0], "a year's row comes before its months");
    let total: i64 = months.iter().map(|m| m["count"].as_i64().unwrap()).sum();
    assert_eq!(total, 2);
    assert!(
        months
            .iter()
            .any(|m| m["month"] == month || m["month"] == month - 1)
    );
    assert!(list.iter().all(|m| m["measuredAt"].is_i64()));
    let r = dt
        .get(
            "/api/v1/metrics/vulnerability",
            &dt.key("Badges", &[P::ViewBadges]).await,
        )
        .await;
    assert_eq!(r.status, 403);
}
