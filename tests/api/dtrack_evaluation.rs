//! Nothing is silently clean: every component ends an analysis with findings, clean, or not
//! evaluated with a reason, and the not-evaluated ones show in the component listing, the
//! project's current metrics (`notEvaluated`), our listing `GET
//! /api/v1/outpost/project/{uuid}/notEvaluated`, the Prometheus gauges and
//! `outpost dtrack not-evaluated`.

use std::collections::BTreeMap;
use std::process::Command;

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::osv::import::import_path;
use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, Key, all, b64, text, wait_done};
use crate::support::{body, raw};

const NOBODY: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

fn record(id: &str, eco: &str, name: &str, fixed: &str) -> Value {
    json!({"id": id, "modified": "2099-01-01T00:00:00Z", "summary": id,
           "affected": [{"package": {"ecosystem": eco, "name": name},
                         "ranges": [{"type": "ECOSYSTEM",
                                     "events": [{"introduced": "0"}, {"fixed": fixed}]}]}]})
}

/// One component of each outcome: name → (purl, cpe, version, the evaluation expected).
fn components() -> Vec<(&'static str, Value, Value)> {
    let not = |r: &str| json!({"state": "NOT_EVALUATED", "reason": r});
    vec![
        (
            "anonymous",
            json!({"type": "library", "name": "anonymous", "version": "1.0"}),
            not("NO_IDENTITY"),
        ),
        (
            "cpe-only",
            // A CPE the analyzer cannot read (one that parses is matched against NVD data:
            // `dtrack_nvd`).
            json!({"type": "library", "name": "cpe-only", "version": "2.4",
                   "cpe": "cpe:2.3:a:acme:cpe-only:2.4"}),
            not("NO_PURL"),
        ),
        (
            "zlib",
            json!({"type": "library", "name": "zlib", "version": "1.3",
                   "purl": "pkg:conan/zlib@1.3"}),
            not("UNSUPPORTED_ECOSYSTEM"),
        ),
        (
            "serde",
            json!({"type": "library", "name": "serde", "version": "1.0.0",
                   "purl": "pkg:cargo/serde@1.0.0"}),
            not("NO_DATA_FOR_ECOSYSTEM"),
        ),
        (
            "nightly",
            json!({"type": "library", "name": "nightly", "version": "latest",
                   "purl": "pkg:npm/nightly@latest"}),
            not("UNPARSABLE_VERSION"),
        ),
        (
            "libssl1.1",
            json!({"type": "library", "name": "libssl1.1", "version": "1.1.1w-0+deb11u1",
                   "purl": "pkg:deb/debian/libssl1.1@1.1.1w-0%2Bdeb11u1?distro=debian-11&upstream=openssl"}),
            not("RELEASE_NOT_COVERED"),
        ),
        (
            "unversioned",
            json!({"type": "library", "name": "unversioned", "purl": "pkg:npm/unversioned"}),
            not("NO_VERSION"),
        ),
        (
            "left-pad",
            json!({"type": "library", "name": "left-pad", "version": "1.0.0",
                   "purl": "pkg:npm/left-pad@1.0.0"}),
            json!({"state": "FINDINGS"}),
        ),
        (
            "express",
            json!({"type": "library", "name": "express", "version": "4.18.0",
                   "purl": "pkg:npm/express@4.18.0"}),
            json!({"state": "CLEAN"}),
        ),
        (
            "libssl3",
            json!({"type": "library", "name": "libssl3", "version": "3.0.11-1~deb12u3",
                   "purl": "pkg:deb/debian/libssl3@3.0.11-1~deb12u3?distro=debian-12&upstream=openssl"}),
            json!({"state": "CLEAN"}),
        ),
    ]
}

async fn upload(dt: &Dt, k: &Key, name: &str, comps: Vec<Value>) -> String {
    let bom = json!({"bomFormat": "CycloneDX", "specVersion": "1.5", "version": 1,
                     "components": comps});
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            k,
            &json!({"projectName": name, "projectVersion": "1", "autoCreate": true,
                    "bom": b64(&bom.to_string())}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    wait_done(dt, k, r.body["token"].as_str().unwrap()).await;
    let r = dt
        .get(&format!("/api/v1/project/lookup?name={name}&version=1"), k)
        .await;
    r.body["uuid"].as_str().unwrap().to_string()
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn every_component_ends_with_findings_clean_or_a_reason() {
    let dt = Dt::start_with(|c| {
        c.dtrack.acl_enabled = true;
        c.metrics.enabled = true;
        c.metrics.listen = "127.0.0.1:0".parse().unwrap();
    })
    .await;
    let k = dt.key("Admins", &all()).await;
    let dir = tempfile::tempdir().unwrap();
    for r in [
        record("GHSA-2099-aaaa-bbbb", "npm", "left-pad", "1.3.0"),
        record(
            "DEBIAN-CVE-2099-0001",
            "Debian:12",
            "openssl",
            "3.0.11-1~deb12u2",
        ),
    ] {
        let id = r["id"].as_str().unwrap().to_string();
        std::fs::write(dir.path().join(format!("{id}.json")), r.to_string()).unwrap();
    }
    let report = import_path(&dt.server.state, dir.path()).await.unwrap();
    assert_eq!((report.stored, report.problem_count), (2, 0), "{report:?}");
    let cases = components();
    let project = upload(
        &dt,
        &k,
        "mixed",
        cases.iter().map(|c| c.1.clone()).collect(),
    )
    .await;

    // The component listing: every item says how its analysis ended.
    let r = dt
        .get(&format!("/api/v1/component/project/{project}"), &k)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.headers["x-total-count"], "10");
    let got: BTreeMap<String, Value> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["evaluation"].clone(),
            )
        })
        .collect();
    let want: BTreeMap<String, Value> = cases
        .iter()
        .map(|(n, _, e)| (n.to_string(), e.clone()))
        .collect();
    assert_eq!(got, want);
    // Upstream's fields are as they were.
    let lp = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "left-pad")
        .unwrap();
    assert_eq!(lp["purl"], "pkg:npm/left-pad@1.0.0");
    // Paged, the evaluation follows the item.
    let r = dt
        .get(
            &format!("/api/v1/component/project/{project}?pageNumber=1&pageSize=2"),
            &k,
        )
        .await;
    assert_eq!(names(&r.body), ["anonymous", "cpe-only"]);
    assert_eq!(r.body[0]["evaluation"]["reason"], "NO_IDENTITY");

    // The project's current metrics: our own field beside upstream's.
    let r = dt
        .get(&format!("/api/v1/metrics/project/{project}/current"), &k)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["components"], 10);
    assert_eq!(r.body["vulnerableComponents"], 1);
    assert_eq!(r.body["notEvaluated"], 7);

    // Our listing: the not-evaluated ones, in the component listing's order, paged.
    let listing = format!("/api/v1/outpost/project/{project}/notEvaluated");
    let r = dt.get(&listing, &k).await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.headers["x-total-count"], "7");
    assert_eq!(
        names(&r.body),
        [
            "anonymous",
            "cpe-only",
            "libssl1.1",
            "nightly",
            "serde",
            "unversioned",
            "zlib"
        ]
    );
    assert_eq!(
        r.body[1],
        json!({"uuid": r.body[1]["uuid"], "name": "cpe-only", "version": "2.4",
               "cpe": "cpe:2.3:a:acme:cpe-only:2.4",
               "evaluation": {"state": "NOT_EVALUATED", "reason": "NO_PURL"}})
    );
    let r = dt
        .get(&format!("{listing}?pageNumber=2&pageSize=3"), &k)
        .await;
    assert_eq!(r.headers["x-total-count"], "7");
    assert_eq!(names(&r.body), ["nightly", "serde", "unversioned"]);
    let r = dt.get(&format!("{listing}?offset=6&limit=5"), &k).await;
    assert_eq!(names(&r.body), ["zlib"]);
    assert_eq!(r.body[0]["evaluation"]["reason"], "UNSUPPORTED_ECOSYSTEM");
    let r = dt
        .get(&format!("{listing}?pageNumber=9&pageSize=3"), &k)
        .await;
    assert_eq!((r.status, r.body.clone()), (200, json!([])));

    // Access as for the component list: 403 outside the caller's projects, 404 unknown,
    // 400 for a malformed UUID, 403 without VIEW_PORTFOLIO.
    let outsider = dt.key("Outsiders", &[P::ViewPortfolio]).await;
    for path in [
        listing.clone(),
        format!("/api/v1/component/project/{project}"),
    ] {
        let r = dt.get(&path, &outsider).await;
        assert_eq!(
            (r.status, text(&r)),
            (403, "Access to the specified project is forbidden"),
            "{path}"
        );
    }
    let r = dt
        .get(
            &format!("/api/v1/outpost/project/{NOBODY}/notEvaluated"),
            &k,
        )
        .await;
    assert_eq!(
        (r.status, text(&r)),
        (404, "The project could not be found.")
    );
    let r = dt
        .get("/api/v1/outpost/project/not-a-uuid/notEvaluated", &k)
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body[0]["message"], "Invalid UUID");
    let badge_only = dt.key("Badges", &[P::ViewBadges]).await;
    let r = dt.get(&listing, &badge_only).await;
    assert_eq!((r.status, r.raw.len()), (403, 0));
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/acl/mapping",
            &k,
            &json!({"team": outsider.team_uuid, "project": project}),
        )
        .await;
    assert_eq!(r.status, 200);
    let r = dt.get(&listing, &outsider).await;
    assert_eq!(
        (r.status, r.headers["x-total-count"].to_str().unwrap()),
        (200, "7")
    );

    // Prometheus: the portfolio's components by state and the not-evaluated ones by reason.
    let addr = dt.server.metrics_addr.expect("metrics enabled");
    let page = dt
        .server
        .send(
            raw(Method::GET, &format!("http://{addr}/metrics"))
                .body(body(""))
                .unwrap(),
        )
        .await;
    let page = String::from_utf8(page.raw.to_vec()).unwrap();
    for (series, n) in [
        ("outpost_dtrack_components{state=\"FINDINGS\"}", 1),
        ("outpost_dtrack_components{state=\"CLEAN\"}", 2),
        ("outpost_dtrack_components{state=\"NOT_EVALUATED\"}", 7),
        (
            "outpost_dtrack_components_not_evaluated{reason=\"NO_IDENTITY\"}",
            1,
        ),
        (
            "outpost_dtrack_components_not_evaluated{reason=\"NO_PURL\"}",
            1,
        ),
        (
            "outpost_dtrack_components_not_evaluated{reason=\"UNSUPPORTED_ECOSYSTEM\"}",
            1,
        ),
        (
            "outpost_dtrack_components_not_evaluated{reason=\"NO_DATA_FOR_ECOSYSTEM\"}",
            1,
        ),
        (
            "outpost_dtrack_components_not_evaluated{reason=\"NO_VERSION\"}",
            1,
        ),
        (
            "outpost_dtrack_components_not_evaluated{reason=\"UNPARSABLE_VERSION\"}",
            1,
        ),
        (
            "outpost_dtrack_components_not_evaluated{reason=\"RELEASE_NOT_COVERED\"}",
            1,
        ),
    ] {
        assert!(
            page.contains(&format!("\n{series} {n}\n")),
            "{series} {n} in\n{page}"
        );
    }
    assert!(page.contains("# TYPE outpost_dtrack_components_not_evaluated gauge"));

    // The command line lists the same components with the same reasons.
    let cfg = dir.path().join("outpost.toml");
    std::fs::write(
        &cfg,
        format!(
            "data_dir = {:?}\n",
            dt.server.state.config.data_dir.display().to_string()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_outpost"))
        .args(["dtrack", "not-evaluated", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    let reasons: Vec<&str> = printed
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap())
        .collect();
    assert_eq!(
        reasons,
        [
            "NO_IDENTITY",
            "NO_PURL",
            "RELEASE_NOT_COVERED",
            "UNPARSABLE_VERSION",
            "NO_DATA_FOR_ECOSYSTEM",
            "NO_VERSION",
            "UNSUPPORTED_ECOSYSTEM"
        ],
        "{printed}"
    );
    assert!(
        printed.starts_with("mixed 1\tanonymous 1.0\t\tNO_IDENTITY\n"),
        "{printed}"
    );
}

#[tokio::test]
async fn without_osv_data_a_project_is_mostly_not_evaluated() {
    let dt = Dt::start().await;
    let k = dt.key("Admins", &all()).await;
    let project = upload(
        &dt,
        &k,
        "bare",
        vec![
            json!({"type": "library", "name": "express", "version": "4.18.0",
                   "purl": "pkg:npm/express@4.18.0"}),
            json!({"type": "library", "name": "django", "version": "4.2",
                   "purl": "pkg:pypi/django@4.2"}),
        ],
    )
    .await;
    let r = dt
        .get(&format!("/api/v1/metrics/project/{project}/current"), &k)
        .await;
    assert_eq!(
        (r.body["components"].clone(), r.body["notEvaluated"].clone()),
        (json!(2), json!(2))
    );
    assert_eq!(r.body["vulnerabilities"], 0);
    // Project reads and listings carry the same count in their `metrics` object.
    let listed = |body: &Value| -> Vec<Value> {
        body.as_array()
            .unwrap()
            .iter()
            .filter(|p| p["uuid"] == project.as_str())
            .map(|p| p["metrics"]["notEvaluated"].clone())
            .collect()
    };
    let r = dt.get("/api/v1/project", &k).await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(listed(&r.body), [json!(2)]);
    assert_eq!(r.body[0]["metrics"]["components"], 2);
    let r = dt.get(&format!("/api/v1/project/{project}"), &k).await;
    assert_eq!(r.body["metrics"]["notEvaluated"], 2, "{:?}", r.raw);
    let r = dt
        .get(
            &format!("/api/v1/outpost/project/{project}/notEvaluated"),
            &k,
        )
        .await;
    assert_eq!(r.headers["x-total-count"], "2");
    for item in r.body.as_array().unwrap() {
        assert_eq!(item["evaluation"]["reason"], "NO_DATA_FOR_ECOSYSTEM");
    }
    // Data for one ecosystem arrives: its component becomes clean at once.
    let dir = tempfile::tempdir().unwrap();
    let r = record("GHSA-2099-cccc-dddd", "npm", "left-pad", "1.3.0");
    std::fs::write(dir.path().join("r.json"), r.to_string()).unwrap();
    import_path(&dt.server.state, dir.path()).await.unwrap();
    let r = dt
        .get(
            &format!("/api/v1/outpost/project/{project}/notEvaluated"),
            &k,
        )
        .await;
    assert_eq!(names(&r.body), ["django"]);
    let r = dt
        .get(&format!("/api/v1/metrics/project/{project}/current"), &k)
        .await;
    assert_eq!(r.body["notEvaluated"], 1);
    let r = dt.get("/api/v1/project", &k).await;
    assert_eq!(listed(&r.body), [json!(1)]);
    let r = dt
        .get("/api/v1/project/lookup?name=bare&version=1", &k)
        .await;
    assert_eq!(r.body["metrics"]["notEvaluated"], 1, "{:?}", r.raw);
}
