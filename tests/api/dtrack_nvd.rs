//! NVD data imported offline and CPE matching: the CVE JSON 2.0 fixture in `tests/fixtures/nvd/`
//! (our own records in NVD's documented structure) imported as `outpost dtrack import-nvd`
//! does, components that carry only a CPE matched as Dependency-Track matches them (version
//! ranges, the AND node's application CPEs, negated configurations and `vulnerable: false`
//! skipped), the findings and vulnerability reads clients see, and the incremental import
//! (the same file again changes nothing; an older copy never replaces a newer one).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::nvd::import_path;

use crate::support::dtrack::{Dt, Key, all, b64, wait_done};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nvd/nvdcve-2.0-2099.json")
}

fn cpe_only(name: &str, cpe: &str) -> Value {
    json!({"type": "library", "name": name, "cpe": cpe})
}

async fn upload(dt: &Dt, k: &Key, name: &str, components: Vec<Value>) -> String {
    let bom = json!({"bomFormat": "CycloneDX", "specVersion": "1.5", "version": 1,
                     "components": components});
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

/// `component VULN` for each finding, and the listing.
async fn findings(dt: &Dt, k: &Key, project: &str) -> (BTreeSet<String>, Value) {
    let r = dt
        .get(&format!("/api/v1/finding/project/{project}"), k)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let set = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{} {}",
                f["component"]["name"].as_str().unwrap(),
                f["vulnerability"]["vulnId"].as_str().unwrap()
            )
        })
        .collect();
    (set, r.body)
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

async fn not_evaluated(dt: &Dt, k: &Key, project: &str) -> Value {
    let r = dt
        .get(&format!("/api/v1/metrics/project/{project}/current"), k)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    r.body["notEvaluated"].clone()
}

fn finding<'a>(list: &'a Value, component: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|f| f["component"]["name"] == component)
        .unwrap_or_else(|| panic!("no finding for {component}"))
}

/// One CVE item in the feed's shape, for the incremental steps.
fn openssl_item(last_modified: &str, end_excluding: &str, description: &str) -> Value {
    json!({"cve": {
        "id": "CVE-2099-1001", "published": "2099-01-10T10:00:00.000",
        "lastModified": last_modified,
        "descriptions": [{"lang": "en", "value": description}],
        "references": [],
        "configurations": [{"nodes": [{"operator": "OR", "negate": false, "cpeMatch": [
            {"vulnerable": true, "criteria": "cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*",
             "versionStartIncluding": "3.0.0", "versionEndExcluding": end_excluding,
             "matchCriteriaId": "0A8A7A6C-0000-4000-8000-000000001001"}]}]}]}})
}

fn feed(dir: &Path, name: &str, items: Vec<Value>) -> PathBuf {
    let path = dir.join(name);
    let doc = json!({"format": "NVD_CVE", "version": "2.0", "vulnerabilities": items});
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

#[tokio::test]
async fn cpe_only_components_are_matched_against_imported_nvd_data() {
    let dt = Dt::start().await;
    let k = dt.key("Admins", &all()).await;
    let components = vec![
        cpe_only(
            "openssl-in",
            "cpe:2.3:a:openssl:openssl:3.0.1:*:*:*:*:*:*:*",
        ),
        cpe_only(
            "openssl-out",
            "cpe:2.3:a:openssl:openssl:3.0.7:*:*:*:*:*:*:*",
        ),
        cpe_only("fork", "cpe:2.3:a:openssl_fork:openssl:3.0.1:*:*:*:*:*:*:*"),
        cpe_only("widget", "cpe:2.3:a:acme:widget:1.5:*:*:*:*:*:*:*"),
        cpe_only("widget-os", "cpe:2.3:o:acme:widget_os:1.0:*:*:*:*:*:*:*"),
        cpe_only("libfoo", "cpe:2.3:a:libfoo:libfoo:1.0:*:*:*:*:*:*:*"),
        cpe_only("zlib", "cpe:/a:zlib:zlib:1.2.11"),
        cpe_only("broken", "cpe:2.3:a:broken"),
        json!({"type": "library", "name": "anonymous", "version": "1.0"}),
    ];
    let project = upload(&dt, &k, "appliance", components).await;
    // No NVD data yet: nothing is evaluated, and the CPE components say why.
    assert_eq!(not_evaluated(&dt, &k, &project).await, 9);
    let r = dt
        .get(
            &format!("/api/v1/outpost/project/{project}/notEvaluated"),
            &k,
        )
        .await;
    let reasons: BTreeSet<String> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["name"].as_str().unwrap(),
                c["evaluation"]["reason"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        reasons.contains("zlib NO_DATA_FOR_ECOSYSTEM"),
        "{reasons:?}"
    );
    assert!(reasons.contains("broken NO_PURL"), "{reasons:?}");
    assert!(reasons.contains("anonymous NO_IDENTITY"), "{reasons:?}");

    let report = import_path(&dt.server.state, &fixture()).await.unwrap();
    assert_eq!(
        (
            report.files,
            report.records,
            report.imported,
            report.refused,
            report.problem_count
        ),
        (1, 5, 5, 0, 0),
        "{report:?}"
    );
    assert_eq!(report.projects_changed, 1);

    // The import re-matched the project's components.
    let (got, list) = findings(&dt, &k, &project).await;
    assert_eq!(
        got,
        set(&[
            "openssl-in CVE-2099-1001",
            "widget CVE-2099-1002",
            "libfoo CVE-2099-1004",
            "zlib CVE-2099-1005",
        ])
    );
    let f = finding(&list, "openssl-in");
    let v = &f["vulnerability"];
    assert_eq!(
        (&v["source"], &v["severity"]),
        (&json!("NVD"), &json!("HIGH"))
    );
    assert_eq!(v["cvssV3BaseScore"], 7.5);
    assert_eq!(
        v["cvssV3Vector"],
        "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N"
    );
    assert_eq!(v["cweId"], 125);
    assert_eq!(f["attribution"]["analyzerIdentity"], "INTERNAL_ANALYZER");
    // v4 ranks the severity before v3.1 (Primary before Secondary) and v2.
    let z = &finding(&list, "zlib")["vulnerability"];
    assert_eq!(
        (
            &z["severity"],
            &z["cvssV4Score"],
            &z["cvssV3BaseScore"],
            &z["cvssV2BaseScore"]
        ),
        (&json!("MEDIUM"), &json!(5.3), &json!(9.8), &json!(10.0)),
        "{z}"
    );
    assert_eq!(
        z["cvssV4Vector"],
        "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:P/VC:L/VI:L/VA:N/SC:N/SI:N/SA:N"
    );
    assert_eq!(z["cvssV2Vector"], "AV:N/AC:L/Au:N/C:C/I:C/A:C");
    // The vulnerability reads as upstream's NVD records do.
    let r = dt
        .get("/api/v1/vulnerability/source/NVD/vuln/CVE-2099-1001", &k)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(
        r.body["description"],
        "An invented out-of-bounds read in OpenSSL 3.0.0 through 3.0.6."
    );
    assert_eq!(
        r.body["references"],
        "* [https://git.example.org/openssl/commit/1001](https://git.example.org/openssl/commit/1001)\n\
         * [https://www.example.org/advisories/2099-1001.txt](https://www.example.org/advisories/2099-1001.txt)\n"
    );
    assert_eq!(
        r.body["published"],
        outpost::time::parse_rfc3339_millis("2099-01-10T10:00:00Z").unwrap()
    );
    // Only the components the analyzer could not use are left not evaluated.
    assert_eq!(not_evaluated(&dt, &k, &project).await, 2);
    let r = dt
        .get(&format!("/api/v1/component/project/{project}"), &k)
        .await;
    let states: BTreeSet<String> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["name"].as_str().unwrap(),
                c["evaluation"]["state"].as_str().unwrap()
            )
        })
        .collect();
    for want in [
        "openssl-out CLEAN",
        "fork CLEAN",
        "widget-os CLEAN",
        "zlib FINDINGS",
    ] {
        assert!(states.contains(want), "{want}: {states:?}");
    }

    // A BOM uploaded after the import is matched on arrival, purl or not.
    let later = upload(
        &dt,
        &k,
        "later",
        vec![
            json!({"type": "library", "name": "openssl", "version": "3.0.2",
                    "purl": "pkg:generic/openssl@3.0.2",
                    "cpe": "cpe:2.3:a:openssl:openssl:3.0.2:*:*:*:*:*:*:*"}),
        ],
    )
    .await;
    assert_eq!(
        findings(&dt, &k, &later).await.0,
        set(&["openssl CVE-2099-1001"])
    );

    // The same data again, gzip-compressed: nothing changes.
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("nvdcve-2.0-2099.json.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, &std::fs::read(fixture()).unwrap()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let again = import_path(&dt.server.state, &gz).await.unwrap();
    assert_eq!(
        (
            again.records,
            again.imported,
            again.unchanged,
            again.projects_changed
        ),
        (5, 0, 5, 0),
        "{again:?}"
    );
    assert_eq!(findings(&dt, &k, &project).await.0, got);

    // An older copy (as a yearly file read after the modified feed) changes nothing.
    let older = feed(
        dir.path(),
        "older.json",
        vec![openssl_item(
            "2099-01-15T00:00:00.000",
            "3.0.8",
            "Older text.",
        )],
    );
    let r = import_path(&dt.server.state, &older).await.unwrap();
    assert_eq!((r.imported, r.older, r.unchanged), (0, 1, 0), "{r:?}");
    assert_eq!(findings(&dt, &k, &project).await.0, got);
    let r = dt
        .get("/api/v1/vulnerability/source/NVD/vuln/CVE-2099-1001", &k)
        .await;
    assert_ne!(r.body["description"], "Older text.");

    // A newer copy replaces it, and the components it now names are matched again.
    let newer = feed(
        dir.path(),
        "nvdcve-2.0-modified.json",
        vec![openssl_item(
            "2099-03-01T00:00:00.000",
            "3.0.8",
            "Newer text.",
        )],
    );
    let r = import_path(&dt.server.state, &newer).await.unwrap();
    assert_eq!((r.imported, r.projects_changed), (1, 1), "{r:?}");
    let (now, _) = findings(&dt, &k, &project).await;
    assert!(now.contains("openssl-out CVE-2099-1001"), "{now:?}");
    assert!(!now.contains("fork CVE-2099-1001"), "{now:?}");
    let r = dt
        .get("/api/v1/vulnerability/source/NVD/vuln/CVE-2099-1001", &k)
        .await;
    assert_eq!(r.body["description"], "Newer text.");
}

#[tokio::test]
async fn unreadable_input_is_reported_not_stored() {
    let dt = Dt::start().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.json"), b"{\"vulnerabilities\": [1, ").unwrap();
    feed(
        dir.path(),
        "b.json",
        vec![
            json!({"cve": {"id": "not a cve", "lastModified": "2099-01-01T00:00:00"}}),
            openssl_item("2099-01-01T00:00:00.000", "3.0.7", "x"),
        ],
    );
    // Other files in the directory are not read.
    std::fs::write(dir.path().join("notes.txt"), b"hello").unwrap();
    let r = import_path(&dt.server.state, dir.path()).await.unwrap();
    assert_eq!((r.files, r.imported), (2, 1), "{r:?}");
    // The truncated file and the bad item, each refused with a reason.
    assert_eq!(r.refused, 3, "{r:?}");
    assert!(
        import_path(&dt.server.state, &dir.path().join("missing"))
            .await
            .is_err()
    );
}

#[test]
fn the_command_line_imports_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cfg = dir.path().join("outpost.toml");
    std::fs::write(
        &cfg,
        format!(
            "data_dir = {:?}\n[database]\nsynchronous = \"normal\"\n",
            data.display().to_string()
        ),
    )
    .unwrap();
    let run = |json: bool| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_outpost"));
        c.args(["dtrack", "import-nvd", "--config"]).arg(&cfg);
        if json {
            c.arg("--json");
        }
        let out = c.arg("--from").arg(fixture()).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let report: Value = serde_json::from_str(&run(true)).unwrap();
    assert_eq!(
        (&report["files"], &report["imported"], &report["refused"]),
        (&json!(1), &json!(5), &json!(0)),
        "{report}"
    );
    // Again, as text: nothing changes.
    let text = run(false);
    assert!(text.contains("imported: 0\nunchanged: 5\n"), "{text}");
    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_outpost"))
        .args(["dtrack", "import-nvd", "--config"])
        .arg(&cfg)
        .arg("--from")
        .arg(dir.path().join("nowhere"))
        .output()
        .unwrap();
    assert!(!missing.status.success());
}
