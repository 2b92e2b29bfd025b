//! Findings as Dependency-Track's clients read them: aliases, references, CWE names, CVSS v2
//! and v3 from the OSV import, EPSS scores from `import-epss`, metrics that count aliases of
//! one vulnerability once, the SARIF log (checked against SARIF 2.1.0's required structure)
//! and the Finding Packaging Format; the ACL mapping's JSON media types and an analysis
//! without a project.

use std::io::Write as _;
use std::path::Path;

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::epss::import_file;
use outpost::domain::dtrack::osv::import::import_path;

use crate::support::dtrack::{Dt, Key, all, b64, text, wait_done};

/// Two copies of one vulnerability that alias each other (GitHub's and PyPI's, the latter
/// with a CVSS v4 vector), and an unrelated one with a CVSS v2 vector only.
fn write_records(dir: &Path) {
    let ghsa = json!({
        "id": "GHSA-acme-0101-dupe", "modified": "2025-03-01T00:00:00Z",
        "published": "2025-02-01T00:00:00Z",
        "aliases": ["CVE-2099-2001", "PYSEC-2099-101"],
        "summary": "Cross-site scripting in acme-forms", "details": "  Unescaped labels.  ",
        "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N"},
                     {"type": "CVSS_V2", "score": "AV:N/AC:M/Au:N/C:N/I:P/A:N"}],
        "affected": [{"package": {"ecosystem": "PyPI", "name": "acme-forms"},
            "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "2.0"}]}]}],
        "references": [{"type": "ADVISORY", "url": "https://example.org/GHSA-acme-0101-dupe"},
                       {"type": "WEB", "url": "https://example.org/fix"}],
        "database_specific": {"severity": "MODERATE", "cwe_ids": ["CWE-79", "CWE-99999"]}
    });
    let pysec = json!({
        "id": "PYSEC-2099-101", "modified": "2025-03-01T00:00:00Z",
        "aliases": ["CVE-2099-2001", "GHSA-acme-0101-dupe"],
        "details": "Unescaped labels.",
        "severity": [{"type": "CVSS_V4",
            "score": "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:P/VC:L/VI:L/VA:N/SC:N/SI:N/SA:N"}],
        "affected": [{"package": {"ecosystem": "PyPI", "name": "acme-forms"},
            "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "2.0"}]}]}]
    });
    let old = json!({
        "id": "PYSEC-2099-102", "modified": "2025-03-01T00:00:00Z",
        "severity": [{"type": "CVSS_V2", "score": "AV:N/AC:L/Au:N/C:P/I:P/A:P"}],
        "affected": [{"package": {"ecosystem": "PyPI", "name": "acme-old"},
            "versions": ["1.0"]}]
    });
    for r in [ghsa, pysec, old] {
        let name = format!("{}.json", r["id"].as_str().unwrap());
        std::fs::write(dir.join(name), r.to_string()).unwrap();
    }
}

struct Setup {
    dt: Dt,
    admin: Key,
    project: String,
    dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("osv");
    std::fs::create_dir_all(&records).unwrap();
    write_records(&records);
    let report = import_path(&dt.server.state, &records).await.unwrap();
    assert_eq!(report.stored, 3, "{report:?}");
    let bom = json!({"bomFormat": "CycloneDX", "specVersion": "1.5", "version": 1, "components": [
        {"type": "library", "name": "acme-forms", "version": "1.5", "purl": "pkg:pypi/acme-forms@1.5"},
        {"type": "library", "name": "acme-old", "version": "1.0", "purl": "pkg:pypi/acme-old@1.0"},
        {"type": "library", "name": "acme-clean", "version": "1.0", "purl": "pkg:pypi/acme-clean@1.0"}
    ]});
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            &admin,
            &json!({"projectName": "forms", "projectVersion": "1.0", "autoCreate": true,
                    "bom": b64(&bom.to_string())}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    wait_done(&dt, &admin, r.body["token"].as_str().unwrap()).await;
    let r = dt
        .get("/api/v1/project/lookup?name=forms&version=1.0", &admin)
        .await;
    let project = r.body["uuid"].as_str().unwrap().to_string();
    Setup {
        dt,
        admin,
        project,
        dir,
    }
}

fn by_id<'a>(findings: &'a Value, id: &str) -> &'a Value {
    findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["vulnerability"]["vulnId"] == id)
        .unwrap_or_else(|| panic!("no finding {id} in {findings}"))
}

fn epss_file(dir: &Path, name: &str, date: &str, rows: &[&str], gzip: bool) -> std::path::PathBuf {
    let mut csv = format!(
        "#model_version:v2025.03.14,score_date:{date}T00:00:00+0000\ncve,epss,percentile\n"
    );
    for r in rows {
        csv.push_str(r);
        csv.push('\n');
    }
    let path = dir.join(name);
    if gzip {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(csv.as_bytes()).unwrap();
        std::fs::write(&path, e.finish().unwrap()).unwrap();
    } else {
        std::fs::write(&path, csv).unwrap();
    }
    path
}

#[tokio::test]
async fn findings_carry_aliases_references_cwes_cvss_and_epss() {
    let s = setup().await;
    let path = format!("/api/v1/finding/project/{}", s.project);
    let r = s.dt.get(&path, &s.admin).await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    // Both copies are findings of their own, as upstream lists them.
    assert_eq!(r.headers["x-total-count"], "3");
    let f = by_id(&r.body, "GHSA-acme-0101-dupe");
    let v = &f["vulnerability"];
    assert_eq!(v["source"], "GITHUB");
    assert_eq!(v["severity"], "MEDIUM");
    assert_eq!(v["severityRank"], 2);
    assert_eq!(v["cvssV3BaseScore"], 6.1);
    assert_eq!(
        v["cvssV3Vector"],
        "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N"
    );
    assert_eq!(v["cvssV2BaseScore"], 4.3);
    assert_eq!(v["cvssV2Vector"], "AV:N/AC:M/Au:N/C:N/I:P/A:N");
    let xss =
        "Improper Neutralization of Input During Web Page Generation ('Cross-site Scripting')";
    assert_eq!(v["cweId"], 79);
    assert_eq!(v["cweName"], xss);
    assert_eq!(
        v["cwes"],
        json!([{"cweId": 79, "name": xss}, {"cweId": 99999}])
    );
    assert_eq!(
        v["aliases"],
        json!([
            {"cveId": "CVE-2099-2001", "ghsaId": "GHSA-acme-0101-dupe"},
            {"ghsaId": "GHSA-acme-0101-dupe", "osvId": "PYSEC-2099-101"}
        ])
    );
    assert_eq!(
        v["references"],
        "* [https://example.org/GHSA-acme-0101-dupe](https://example.org/GHSA-acme-0101-dupe)\n* [https://example.org/fix](https://example.org/fix)\n"
    );
    assert!(v.get("epssScore").is_none());
    // CVSS v2 alone ranks the severity (v2 has no CRITICAL: 7.5 is HIGH).
    let old = &by_id(&r.body, "PYSEC-2099-102")["vulnerability"];
    assert_eq!(
        (&old["severity"], &old["cvssV2BaseScore"]),
        (&json!("HIGH"), &json!(7.5))
    );
    assert_eq!(old["aliases"], json!([]));
    assert!(old.get("cvssV4Score").is_none());
    // CVSS v4 where the record has it, and the severity it ranks.
    let py = &by_id(&r.body, "PYSEC-2099-101")["vulnerability"];
    assert_eq!(
        py["cvssV4Vector"],
        "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:P/VC:L/VI:L/VA:N/SC:N/SI:N/SA:N"
    );
    assert_eq!(
        (&py["cvssV4Score"], &py["severity"]),
        (&json!(5.3), &json!("MEDIUM")),
        "{py}"
    );

    // The vulnerability itself shows CVSS v2 and named CWEs too.
    let r =
        s.dt.get(
            "/api/v1/vulnerability/source/GITHUB/vuln/GHSA-acme-0101-dupe",
            &s.admin,
        )
        .await;
    assert_eq!(r.body["cvssV2BaseScore"], 4.3);
    assert_eq!(r.body["cwes"][0], json!({"cweId": 79, "name": xss}));
    // And by UUID, with its aliases.
    let r =
        s.dt.get(
            &format!("/api/v1/vulnerability/{}", v["uuid"].as_str().unwrap()),
            &s.admin,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["aliases"].as_array().unwrap().len(), 2, "{}", r.body);

    // EPSS: the GHSA and PYSEC copies show their CVE alias's score.
    let file = epss_file(
        s.dir.path(),
        "epss_scores-2025-03-14.csv.gz",
        "2025-03-14",
        &[
            "CVE-1999-0001,0.0046,0.7385",
            "CVE-2099-2001,0.91234,0.99876",
            "not-a-cve,0.1,0.2",
        ],
        true,
    );
    let state = &s.dt.server.state;
    let report = import_file(state, &file).await.unwrap();
    assert_eq!(
        (
            report.rows,
            report.changed,
            report.problem_count,
            report.unchanged
        ),
        (3, 2, 1, false),
        "{report:?}"
    );
    assert_eq!(report.score_date, "2025-03-14");
    let r = s.dt.get(&path, &s.admin).await;
    for id in ["GHSA-acme-0101-dupe", "PYSEC-2099-101"] {
        let v = &by_id(&r.body, id)["vulnerability"];
        assert_eq!(
            (&v["epssScore"], &v["epssPercentile"]),
            (&json!(0.91234), &json!(0.99876))
        );
    }
    assert!(
        by_id(&r.body, "PYSEC-2099-102")["vulnerability"]
            .get("epssScore")
            .is_none()
    );
    // The same file again changes nothing; an older one is refused.
    let again = import_file(state, &file).await.unwrap();
    assert!(again.unchanged, "{again:?}");
    let older = epss_file(s.dir.path(), "old.csv", "2025-03-01", &[], false);
    let err = import_file(state, &older).await.unwrap_err();
    assert!(format!("{err}").contains("older"), "{err}");
    // A newer plain file that no longer lists the CVE drops its score.
    let newer = epss_file(
        s.dir.path(),
        "new.csv",
        "2025-03-15",
        &["CVE-1999-0001,0.0050,0.7400"],
        false,
    );
    let report = import_file(state, &newer).await.unwrap();
    assert_eq!((report.changed, report.dropped), (1, 1), "{report:?}");
    let r = s.dt.get(&path, &s.admin).await;
    assert!(
        by_id(&r.body, "GHSA-acme-0101-dupe")["vulnerability"]
            .get("epssScore")
            .is_none()
    );
    // A file without EPSS's comment line is refused and changes nothing.
    let bad = s.dir.path().join("bad.csv");
    std::fs::write(&bad, "cve,epss,percentile\nCVE-2099-2001,0.5,0.5\n").unwrap();
    let err = import_file(state, &bad).await.unwrap_err();
    assert!(format!("{err}").contains("model_version"), "{err}");
}

#[tokio::test]
async fn metrics_count_aliases_of_one_vulnerability_once() {
    let s = setup().await;
    let r =
        s.dt.get(
            &format!("/api/v1/metrics/project/{}/current", s.project),
            &s.admin,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    // acme-forms: GHSA and PYSEC copies count once (the first, MEDIUM); acme-old: HIGH.
    assert_eq!(r.body["vulnerabilities"], 2, "{}", r.body);
    assert_eq!(r.body["medium"], 1);
    assert_eq!(r.body["high"], 1);
    assert_eq!(r.body["vulnerableComponents"], 2);
    assert_eq!(r.body["components"], 3);
}

/// A valid SARIF 2.1.0 log (the vendored schema) as upstream's holds it: one run; each result's
/// `level` one of the schema's values, `ruleId` naming a rule, string properties, and the
/// component's package URL as its logical location.
fn check_sarif(log: &Value) {
    crate::sarif_schema::assert_valid(log);
    assert_eq!(log["version"], "2.1.0");
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert!(driver["name"].is_string());
    let rules = driver["rules"].as_array().expect("rules");
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for r in runs[0]["results"].as_array().expect("results") {
        assert!(r["message"]["text"].is_string(), "{r}");
        assert!(
            ["none", "note", "warning", "error"].contains(&r["level"].as_str().unwrap()),
            "{r}"
        );
        assert!(ids.contains(&r["ruleId"].as_str().unwrap()), "{r}");
        for (k, v) in r["properties"].as_object().unwrap() {
            assert!(v.is_string(), "property {k} is not a string");
        }
        let loc = &r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"];
        assert!(loc.as_str().unwrap().starts_with("pkg:pypi/"), "{r}");
    }
}

/// The Finding Packaging Format 1.4 as upstream documents it: `version`, `meta`, `project` and
/// `findings`, each finding upstream's `Finding` (component, vulnerability, analysis,
/// attribution) with its `matrix`; no key outside the documented ones.
fn check_fpf(doc: &Value, project: &str) {
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    let within = |v: &Value, allowed: &[&str], what: &str| {
        for k in keys(v) {
            assert!(
                allowed.contains(&k.as_str()),
                "{what} has an undocumented key {k}"
            );
        }
    };
    within(
        doc,
        &["version", "meta", "project", "findings"],
        "the document",
    );
    assert_eq!(doc["version"], "1.4");
    within(
        &doc["meta"],
        &["application", "version", "timestamp", "baseUrl"],
        "meta",
    );
    for k in ["application", "version", "timestamp"] {
        assert!(doc["meta"][k].is_string(), "meta.{k}");
    }
    within(
        &doc["project"],
        &["uuid", "name", "version", "description", "purl", "cpe"],
        "project",
    );
    assert_eq!(doc["project"]["uuid"], project);
    for f in doc["findings"].as_array().unwrap() {
        within(
            f,
            &[
                "component",
                "vulnerability",
                "analysis",
                "attribution",
                "matrix",
            ],
            "a finding",
        );
        let c = &f["component"];
        within(
            c,
            &[
                "uuid",
                "name",
                "group",
                "version",
                "scope",
                "purl",
                "cpe",
                "project",
                "latestVersion",
                // The `Finding` bean's project name and version, as its listings show them.
                "projectName",
                "projectVersion",
            ],
            "component",
        );
        let v = &f["vulnerability"];
        within(
            v,
            &[
                "uuid",
                "source",
                "vulnId",
                "title",
                "subtitle",
                "description",
                "recommendation",
                "cvssV2BaseScore",
                "cvssV2Vector",
                "cvssV3BaseScore",
                "cvssV3Vector",
                "cvssV4Score",
                "cvssV4Vector",
                "owaspLikelihoodScore",
                "owaspTechnicalImpactScore",
                "owaspBusinessImpactScore",
                "owaspRRVector",
                "severity",
                "severityRank",
                "epssScore",
                "epssPercentile",
                "cweId",
                "cweName",
                "cwes",
                "references",
                "published",
                "aliases",
            ],
            "vulnerability",
        );
        let ranks = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO", "UNASSIGNED"];
        let rank = ranks.iter().position(|r| v["severity"] == *r).unwrap();
        assert_eq!(v["severityRank"], rank, "{v}");
        within(
            &f["analysis"],
            &["state", "isSuppressed", "detail"],
            "analysis",
        );
        assert!(f["analysis"]["isSuppressed"].is_boolean());
        within(
            &f["attribution"],
            &[
                "analyzerIdentity",
                "attributedOn",
                "alternateIdentifier",
                "referenceUrl",
            ],
            "attribution",
        );
        assert_eq!(
            f["matrix"],
            format!(
                "{project}:{}:{}",
                c["uuid"].as_str().unwrap(),
                v["uuid"].as_str().unwrap()
            )
        );
    }
}

#[tokio::test]
async fn sarif_and_fpf_documents() {
    let s = setup().await;
    let path = format!("/api/v1/finding/project/{}", s.project);
    let r =
        s.dt.req(
            Method::GET,
            &path,
            &[
                ("X-Api-Key", &s.admin.key),
                ("Accept", "application/sarif+json, application/json;q=0.5"),
            ],
            "",
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.headers["content-type"], "application/sarif+json");
    assert_eq!(
        r.headers["content-disposition"],
        format!("attachment; filename=\"findings-{}.sarif\"", s.project).as_str()
    );
    let log: Value = serde_json::from_slice(&r.raw).unwrap();
    check_sarif(&log);
    assert_eq!(
        log["$schema"],
        "https://schemastore.azurewebsites.net/schemas/json/sarif-2.1.0.json"
    );
    let driver = &log["runs"][0]["tool"]["driver"];
    assert_eq!(driver["name"], "OWASP Dependency-Track");
    assert_eq!(driver["informationUri"], "https://dependencytrack.org/");
    assert_eq!(driver["rules"].as_array().unwrap().len(), 3);
    let rule = driver["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "GHSA-acme-0101-dupe")
        .unwrap();
    assert_eq!(
        rule["name"],
        "ImproperNeutralizationOfInputDuringWebPageGeneration('Cross-siteScripting')"
    );
    assert_eq!(rule["fullDescription"]["text"], "Unescaped labels.");
    let result = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "PYSEC-2099-102")
        .unwrap();
    assert_eq!(result["level"], "error");
    assert_eq!(result["properties"]["severityRank"], "1");
    assert_eq!(result["properties"]["cvssV3BaseScore"], "");
    assert_eq!(result["properties"]["name"], "acme-old");

    // FPF: unsuppressed findings only, with the analysis detail.
    let r = s.dt.get(&path, &s.admin).await;
    let f = by_id(&r.body, "PYSEC-2099-101");
    let (component, vuln) = (
        f["component"]["uuid"].as_str().unwrap().to_string(),
        f["vulnerability"]["uuid"].as_str().unwrap().to_string(),
    );
    let g = by_id(&r.body, "GHSA-acme-0101-dupe");
    let r =
        s.dt.json(
            Method::PUT,
            "/api/v1/analysis",
            &s.admin,
            &json!({"component": component, "vulnerability": vuln,
                    "analysisState": "FALSE_POSITIVE", "isSuppressed": true}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let r =
        s.dt.json(
            Method::PUT,
            "/api/v1/analysis",
            &s.admin,
            &json!({"project": s.project, "component": g["component"]["uuid"],
                    "vulnerability": g["vulnerability"]["uuid"],
                    "analysisState": "IN_TRIAGE", "analysisDetails": "Looking"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let r = s.dt.get(&format!("{path}/export"), &s.admin).await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.headers["content-type"], "application/json");
    assert_eq!(
        r.headers["content-disposition"],
        format!("inline; filename=findings-{}.fpf", s.project).as_str()
    );
    check_fpf(&r.body, &s.project);
    assert_eq!(r.body["meta"]["application"], "Dependency-Track");
    assert!(r.body["meta"]["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        r.body["project"],
        json!({"uuid": s.project, "name": "forms", "version": "1.0"})
    );
    let findings = r.body["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 2, "the suppressed finding is left out");
    let g = by_id(&r.body["findings"], "GHSA-acme-0101-dupe");
    assert_eq!(
        g["analysis"],
        json!({"state": "IN_TRIAGE", "isSuppressed": false, "detail": "Looking"})
    );
    assert_eq!(g["attribution"]["analyzerIdentity"], "INTERNAL_ANALYZER");
    assert_eq!(g["vulnerability"]["cwes"][0]["cweId"], 79);

    // Unknown projects and malformed UUIDs, in every form.
    let missing = "0f8fad5b-d9cb-469f-a165-70867728950e";
    for p in [
        format!("/api/v1/finding/project/{missing}/export"),
        format!("/api/v1/finding/project/{missing}"),
    ] {
        let r = s.dt.get(&p, &s.admin).await;
        assert_eq!(r.status, 404, "{p}");
    }
    let r =
        s.dt.get("/api/v1/finding/project/nope/export", &s.admin)
            .await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn acl_mapping_reads_every_json_media_type_upstream_reads() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let team = dt.key("Devs", &[]).await;
    let listed = |r: &crate::support::Reply| r.body.as_array().map(Vec::len);
    for (i, media) in [
        "application/json",
        "text/json",
        "application/vnd.acme.mapping+json; charset=utf-8",
        "Application/JSON",
        "application/x-json",
        "text/javascript",
    ]
    .iter()
    .enumerate()
    {
        let p = dt
            .project(&admin, json!({"name": format!("p{i}"), "version": "1"}))
            .await;
        let body = json!({"team": team.team_uuid, "project": p["uuid"]}).to_string();
        let r = dt
            .req(
                Method::PUT,
                "/api/v1/acl/mapping",
                &[("X-Api-Key", &admin.key), ("content-type", media)],
                body,
            )
            .await;
        assert_eq!((r.status, text(&r)), (200, ""), "{media}");
    }
    let list = format!("/api/v1/acl/team/{}", team.team_uuid);
    assert_eq!(listed(&dt.get(&list, &admin).await), Some(6));
    let p = dt
        .project(&admin, json!({"name": "refused", "version": "1"}))
        .await;
    let body = json!({"team": team.team_uuid, "project": p["uuid"]}).to_string();
    for media in [
        Some("text/plain"),
        Some("application/octet-stream"),
        Some("*/*"),
        Some("application/+json"),
        Some("application/jsonx"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let mut headers = vec![("X-Api-Key", admin.key.as_str())];
        if let Some(m) = media {
            headers.push(("content-type", m));
        }
        let r = dt
            .req(Method::PUT, "/api/v1/acl/mapping", &headers, body.clone())
            .await;
        assert_eq!((r.status, r.raw.len()), (415, 0), "{media:?}");
    }
    assert_eq!(listed(&dt.get(&list, &admin).await), Some(6));
}

#[tokio::test]
async fn an_analysis_without_a_project_is_the_components_own() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let (project, component, vuln) = dt.finding(&admin, "app", "1").await;
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/analysis",
            &admin,
            &json!({"component": component, "vulnerability": vuln,
                    "analysisState": "EXPLOITABLE", "comment": "seen"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["analysisState"], "EXPLOITABLE");
    // Read back through the project it belongs to, and as the finding's state.
    let r = dt
        .get(
            &format!(
                "/api/v1/analysis?project={project}&component={component}&vulnerability={vuln}"
            ),
            &admin,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["analysisComments"][1]["comment"], "seen");
    let r = dt
        .get(&format!("/api/v1/finding/project/{project}"), &admin)
        .await;
    assert_eq!(r.body[0]["analysis"]["state"], "EXPLOITABLE");
}
