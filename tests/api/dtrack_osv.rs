//! OSV data and the internal analyzer: importing exports (zips, loose records, a directory;
//! corrupt, truncated, oversized and invalid input reported and skipped), matching components
//! of several ecosystems as OSV's algorithm says, re-checking when data changes, and the
//! vulnerability and finding listings. The records are the fixtures in `tests/osv/`.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::osv::import::{ImportReport, import_path};
use outpost::domain::dtrack::permissions::Permission as P;

use crate::support::dtrack::{Dt, Key, all, b64, wait_done};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/osv")
}

/// Zips the records of a fixture folder (sorted by name) into `dest`.
fn zip_folder(src: &Path, dest: &Path) {
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    let mut names: Vec<PathBuf> = std::fs::read_dir(src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    let mut w = zip::ZipWriter::new(std::fs::File::create(dest).unwrap());
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for p in names {
        w.start_file(p.file_name().unwrap().to_string_lossy(), opts)
            .unwrap();
        w.write_all(&std::fs::read(&p).unwrap()).unwrap();
    }
    w.finish().unwrap();
}

/// The first export: npm and PyPI as `all.zip` files, the rest as loose records, and three
/// broken zips (garbage, truncated, an oversized record).
fn first_export(dir: &Path) -> PathBuf {
    let root = dir.join("export");
    zip_folder(&fixtures().join("npm"), &root.join("npm/all.zip"));
    zip_folder(&fixtures().join("PyPI"), &root.join("PyPI/all.zip"));
    std::fs::create_dir_all(root.join("other")).unwrap();
    for e in std::fs::read_dir(fixtures().join("other")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, root.join("other").join(p.file_name().unwrap())).unwrap();
    }
    let broken = root.join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(
        broken.join("garbage.zip"),
        b"PK\x03\x04 this is no zip at all",
    )
    .unwrap();
    let whole = std::fs::read(root.join("npm/all.zip")).unwrap();
    std::fs::write(broken.join("truncated.zip"), &whole[..whole.len() / 2]).unwrap();
    let mut w = zip::ZipWriter::new(std::fs::File::create(broken.join("huge.zip")).unwrap());
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    w.start_file("HUGE-1.json", opts).unwrap();
    let mut big = b"{\"id\": \"HUGE-1\", \"details\": \"".to_vec();
    big.extend(std::iter::repeat_n(b'x', 5 * 1024 * 1024));
    big.extend(b"\", \"modified\": \"2025-01-01T00:00:00Z\"}");
    w.write_all(&big).unwrap();
    w.finish().unwrap();
    root
}

fn bom(components: Value) -> String {
    json!({"bomFormat": "CycloneDX", "specVersion": "1.5", "version": 1, "components": components})
        .to_string()
}

fn lib(name: &str, version: &str, purl: &str) -> Value {
    json!({"type": "library", "name": name, "version": version, "purl": purl})
}

/// Components of every supported ecosystem, on both sides of the ranges in the fixtures.
fn components() -> Value {
    json!([
        lib("parser", "1.4.1", "pkg:npm/%40acme/parser@1.4.1"),
        lib("parser", "latest", "pkg:npm/%40acme/parser@latest"),
        lib("acme-left", "2.0.0", "pkg:npm/acme-left@2.0.0"),
        lib("acme-left", "3.1.0", "pkg:npm/acme-left@3.1.0"),
        lib("Acme_Web", "4.2.20", "pkg:pypi/Acme_Web@4.2.20"),
        lib("acme-web", "5.0.1", "pkg:pypi/acme-web@5.0.1"),
        lib("acme-tls", "0.7.3", "pkg:cargo/acme-tls@0.7.3"),
        lib("acme-tls", "0.7.4", "pkg:cargo/acme-tls@0.7.4"),
        lib(
            "acme-utils",
            "1:2.30-1~bpo11+1",
            "pkg:deb/debian/acme-utils@1:2.30-1~bpo11%2B1?distro=debian-11"
        ),
        lib(
            "acme-utils",
            "1:2.30-1",
            "pkg:deb/debian/acme-utils@1:2.30-1?distro=debian-11"
        ),
        lib(
            "acme-utils",
            "2:1.0",
            "pkg:deb/debian/acme-utils@2:1.0?distro=debian-12"
        ),
        lib("acme-core", "2.16.0", "pkg:maven/org.acme/acme-core@2.16.0"),
        lib("acme-core", "2.17.1", "pkg:maven/org.acme/acme-core@2.17.1"),
        lib(
            "router",
            "v1.5.0",
            "pkg:golang/github.com/acme/router@v1.5.0"
        ),
        lib("acme-rails", "6.0.0", "pkg:gem/acme-rails@6.0.0"),
        lib("acme-rails", "6.0.3", "pkg:gem/acme-rails@6.0.3"),
        lib("no-purl", "1.0", "")
    ])
}

async fn upload(dt: &Dt, k: &Key, name: &str, components: Value) -> String {
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/bom",
            k,
            &json!({"projectName": name, "projectVersion": "1.0", "autoCreate": true, "bom": b64(&bom(components))}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    wait_done(dt, k, r.body["token"].as_str().unwrap()).await;
    let r = dt
        .get(
            &format!("/api/v1/project/lookup?name={name}&version=1.0"),
            k,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    r.body["uuid"].as_str().unwrap().to_string()
}

/// The project's findings as `name@version VULN-ID` lines.
async fn finding_set(dt: &Dt, k: &Key, project: &str) -> BTreeSet<String> {
    let r = dt
        .get(&format!("/api/v1/finding/project/{project}"), k)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    r.body
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert!(f["component"].get("projectName").is_none(), "{f}");
            assert_eq!(f["component"]["project"], project);
            format!(
                "{}@{} {}",
                f["component"]["name"].as_str().unwrap(),
                f["component"]["version"].as_str().unwrap(),
                f["vulnerability"]["vulnId"].as_str().unwrap()
            )
        })
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

async fn import(dt: &Dt, path: &Path) -> ImportReport {
    import_path(&dt.server.state, path).await.unwrap()
}

#[tokio::test]
async fn import_reports_bad_input_and_keeps_the_rest() {
    let dt = Dt::start().await;
    let dir = tempfile::tempdir().unwrap();
    let root = first_export(dir.path());
    let report = import(&dt, &root).await;
    assert_eq!(report.files, 11, "{report:?}");
    // npm: 3, PyPI: 2 of 4 (one without `modified`, one truncated), loose: 6.
    assert_eq!(report.records, 11, "{report:?}");
    assert_eq!(report.stored, 11);
    assert_eq!(report.withdrawn, 1);
    // The two refused PyPI records and the three broken zips.
    assert_eq!(report.refused, 5, "{report:?}");
    let text = report.problems.join("\n");
    for expected in [
        "garbage.zip: not a readable zip",
        "truncated.zip: not a readable zip",
        "HUGE-1.json: larger than 4194304 bytes",
        "PYSEC-2099-13.json: PYSEC-2099-13: `modified` is missing",
        "PYSEC-2099-14.json: not an OSV record",
        "HSEC-2099-0001: ecosystem \"Android\" is not supported",
    ] {
        assert!(text.contains(expected), "{expected} missing from:\n{text}");
    }
    // Importing the same export again changes nothing.
    let again = import(&dt, &root).await;
    assert_eq!((again.stored, again.unchanged), (0, 11), "{again:?}");
    // A path that does not exist is refused.
    let err = import_path(&dt.server.state, &dir.path().join("missing"))
        .await
        .unwrap_err();
    assert!(err.msg.contains("does not exist"), "{err:?}");
}

#[tokio::test]
async fn bom_components_are_matched_per_ecosystem_and_rechecked_when_data_changes() {
    let dt = Dt::start().await;
    let k = dt.key("Admins", &all()).await;
    let dir = tempfile::tempdir().unwrap();
    import(&dt, &first_export(dir.path())).await;
    let project = upload(&dt, &k, "shop", components()).await;
    assert_eq!(
        finding_set(&dt, &k, &project).await,
        set(&[
            "acme-core@2.16.0 GHSA-acme-0005-mavn",
            "acme-left@3.1.0 GHSA-acme-0003-left",
            "acme-rails@6.0.0 GHSA-acme-0006-gems",
            "acme-tls@0.7.3 RUSTSEC-2099-0001",
            "acme-utils@1:2.30-1~bpo11+1 DEBIAN-CVE-2099-3003",
            "acme-web@5.0.1 PYSEC-2099-11",
            "parser@1.4.1 GHSA-acme-0001-npm1",
            "router@v1.5.0 GO-2099-0001",
        ])
    );
    let r = dt
        .get(&format!("/api/v1/finding/project/{project}"), &k)
        .await;
    let npm = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["vulnerability"]["vulnId"] == "GHSA-acme-0001-npm1")
        .unwrap();
    assert_eq!(npm["attribution"]["analyzerIdentity"], "INTERNAL_ANALYZER");
    assert_eq!(npm["vulnerability"]["source"], "GITHUB");
    // The CVSS v3 score (9.1) ranks before the database's own `HIGH`, as upstream.
    assert_eq!(npm["vulnerability"]["severity"], "CRITICAL");
    assert_eq!(npm["vulnerability"]["cweId"], 1321);
    assert_eq!(
        npm["vulnerability"]["cweName"],
        "Improperly Controlled Modification of Object Prototype Attributes ('Prototype Pollution')"
    );
    let pysec = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["vulnerability"]["vulnId"] == "PYSEC-2099-11")
        .unwrap();
    assert_eq!(pysec["vulnerability"]["source"], "OSV");
    assert_eq!(pysec["vulnerability"]["severity"], "CRITICAL");
    assert_eq!(pysec["vulnerability"]["cvssV3BaseScore"], 9.8);
    // A version the comparator cannot parse is reported, neither a finding nor clean.
    let unknown = outpost::domain::dtrack::osv::matching::unknown_matches(&dt.server.state)
        .await
        .unwrap();
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    let (project_name, _, comp, version, _, vuln, reason) = &unknown[0];
    assert_eq!(
        (
            project_name.as_str(),
            comp.as_str(),
            version.as_deref(),
            vuln.as_str()
        ),
        ("shop", "parser", Some("latest"), "GHSA-acme-0001-npm1")
    );
    assert!(
        reason.contains("\"latest\" is not a SemVer version"),
        "{reason}"
    );
    // The source filter.
    let r = dt
        .get(
            &format!("/api/v1/finding/project/{project}?source=GITHUB"),
            &k,
        )
        .await;
    assert_eq!(r.headers["x-total-count"], "4");
    let r = dt
        .get(
            &format!("/api/v1/finding/project/{project}?source=BOGUS"),
            &k,
        )
        .await;
    assert_eq!(r.status, 400);
    // Metrics were recorded with the findings.
    let r = dt
        .get(&format!("/api/v1/metrics/project/{project}/current"), &k)
        .await;
    assert_eq!(r.body["vulnerabilities"], 8, "{:?}", r.body);
    assert_eq!(r.body["critical"], 3);

    // New data: one range corrected, one new record, one withdrawn. Only the named packages
    // are re-checked, and the project's findings and metrics follow in the same import.
    let update = dir.path().join("update");
    zip_folder(&fixtures().join("update"), &update.join("all.zip"));
    let report = import(&dt, &update).await;
    assert_eq!(
        (report.stored, report.projects_changed),
        (3, 1),
        "{report:?}"
    );
    assert_eq!(
        finding_set(&dt, &k, &project).await,
        set(&[
            "acme-core@2.16.0 GHSA-acme-0005-mavn",
            "acme-left@3.1.0 GHSA-acme-0003-left",
            "acme-rails@6.0.0 GHSA-acme-0006-gems",
            "acme-tls@0.7.3 RUSTSEC-2099-0001",
            "acme-tls@0.7.3 RUSTSEC-2099-0002",
            "acme-tls@0.7.4 RUSTSEC-2099-0002",
            "acme-utils@1:2.30-1~bpo11+1 DEBIAN-CVE-2099-3003",
            "acme-web@5.0.1 PYSEC-2099-11",
        ])
    );
    let r = dt
        .get(&format!("/api/v1/metrics/project/{project}/current"), &k)
        .await;
    assert_eq!(r.body["vulnerabilities"], 8, "{:?}", r.body);
    assert_eq!(r.body["vulnerableComponents"], 7);
}

#[tokio::test]
async fn findings_by_hand_survive_and_new_components_are_matched() {
    let dt = Dt::start().await;
    let k = dt.key("Admins", &all()).await;
    let dir = tempfile::tempdir().unwrap();
    import(&dt, &first_export(dir.path())).await;
    let project = upload(
        &dt,
        &k,
        "api",
        json!([lib("acme-tls", "0.6.0", "pkg:cargo/acme-tls@0.6.0")]),
    )
    .await;
    assert_eq!(
        finding_set(&dt, &k, &project).await,
        set(&["acme-tls@0.6.0 RUSTSEC-2099-0001"])
    );
    // A component created through the API is matched at once.
    let r = dt
        .json(
            Method::PUT,
            &format!("/api/v1/component/project/{project}"),
            &k,
            &json!({"name": "acme-left", "version": "1.0.1", "purl": "pkg:npm/acme-left@1.0.1"}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.raw);
    let left = r.body["uuid"].as_str().unwrap().to_string();
    assert!(
        finding_set(&dt, &k, &project)
            .await
            .contains("acme-left@1.0.1 GHSA-acme-0003-left")
    );
    // Changing its version out of the range removes the finding.
    let r = dt
        .json(
            Method::POST,
            "/api/v1/component",
            &k,
            &json!({"uuid": left, "name": "acme-left", "version": "1.0.2", "purl": "pkg:npm/acme-left@1.0.2"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(
        finding_set(&dt, &k, &project).await,
        set(&["acme-tls@0.6.0 RUSTSEC-2099-0001"])
    );
    // An attribution made by hand is not removed by the analyzer.
    let vuln = dt.vulnerability(&k, "INT-9", "LOW").await;
    let r = dt
        .req(
            Method::POST,
            &format!("/api/v1/vulnerability/{vuln}/component/{left}"),
            &[("X-Api-Key", &k.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 200);
    let r = dt
        .req(
            Method::POST,
            &format!("/api/v1/finding/project/{project}/analyze"),
            &[("X-Api-Key", &k.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    wait_done(&dt, &k, r.body["token"].as_str().unwrap()).await;
    let r = dt
        .get(&format!("/api/v1/finding/project/{project}"), &k)
        .await;
    let by_hand = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["vulnerability"]["vulnId"] == "INT-9")
        .unwrap();
    assert_eq!(by_hand["attribution"]["analyzerIdentity"], "NONE");
    // Analyzing an unknown project is a 404.
    let r = dt
        .req(
            Method::POST,
            "/api/v1/finding/project/0f8fad5b-d9cb-469f-a165-70867728950e/analyze",
            &[("X-Api-Key", &k.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn vulnerability_and_portfolio_finding_listings() {
    let dt = Dt::start().await;
    let k = dt.key("Admins", &all()).await;
    let viewer = dt.key("Viewers", &[P::ViewPortfolio]).await;
    let dir = tempfile::tempdir().unwrap();
    import(&dt, &first_export(dir.path())).await;
    let project = upload(&dt, &k, "shop", components()).await;
    upload(
        &dt,
        &k,
        "cli",
        json!([lib("acme-web", "4.2.1", "pkg:pypi/acme-web@4.2.1")]),
    )
    .await;

    // All vulnerabilities, paged, searchable by id, title or alias.
    let r = dt
        .get("/api/v1/vulnerability?pageSize=3&pageNumber=1", &viewer)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.headers["x-total-count"], "11");
    assert_eq!(r.body.as_array().unwrap().len(), 3);
    let r = dt
        .get("/api/v1/vulnerability?searchText=cve-2099-2002", &viewer)
        .await;
    assert_eq!(r.headers["x-total-count"], "1");
    assert_eq!(r.body[0]["vulnId"], "PYSEC-2099-11");
    let r = dt
        .get(
            "/api/v1/vulnerability/source/GITHUB/vuln/GHSA-acme-0001-npm1",
            &viewer,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.body["title"], "Prototype pollution in @acme/parser");
    assert_eq!(r.body["severity"], "CRITICAL");
    assert_eq!(
        r.body["aliases"],
        json!([{"ghsaId": "GHSA-acme-0001-npm1", "cveId": "CVE-2099-1001"}])
    );
    assert_eq!(
        r.body["cwes"],
        json!([{"cweId": 1321, "name": "Improperly Controlled Modification of Object Prototype Attributes ('Prototype Pollution')"}])
    );
    assert_eq!(
        r.body["references"],
        "* [https://example.org/advisories/GHSA-acme-0001-npm1](https://example.org/advisories/GHSA-acme-0001-npm1)\n"
    );
    assert_eq!(r.body["published"], 1_735_812_000_000_i64);
    let r = dt
        .get(
            "/api/v1/vulnerability/source/OSV/vuln/GHSA-acme-0001-npm1",
            &viewer,
        )
        .await;
    assert_eq!(r.status, 404);
    // The projects a vulnerability affects.
    let r = dt
        .get(
            "/api/v1/vulnerability/source/OSV/vuln/PYSEC-2099-11/projects",
            &viewer,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let names: BTreeSet<&str> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, BTreeSet::from(["cli", "shop"]));

    // Portfolio findings: both projects, paged, filtered.
    let r = dt.get("/api/v1/finding", &viewer).await;
    assert_eq!(r.status, 403);
    let r = dt.get("/api/v1/finding", &k).await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    assert_eq!(r.headers["x-total-count"], "9");
    // Upstream's portfolio query names each component's project; its project-scoped one
    // gives only the project's uuid.
    let c = &r.body[0]["component"];
    assert!(
        c["projectName"] == "cli" || c["projectName"] == "shop",
        "{c}"
    );
    assert!(c["projectVersion"].is_string(), "{c}");
    assert!(c["project"].is_string(), "{c}");
    let r = dt.get("/api/v1/finding?severity=CRITICAL", &k).await;
    // GHSA-acme-0001-npm1 is CRITICAL by its CVSS score (upstream ranks it before the text).
    assert_eq!(r.headers["x-total-count"], "4");
    let r = dt
        .get(
            "/api/v1/finding?textSearchInput=acme-web&pageSize=1&pageNumber=2",
            &k,
        )
        .await;
    assert_eq!(r.headers["x-total-count"], "2");
    assert_eq!(r.body.as_array().unwrap().len(), 1);
    let r = dt.get("/api/v1/finding?severity=SEVERE", &k).await;
    assert_eq!(r.status, 400);
    // Suppressed findings leave the portfolio listing unless asked for.
    let f = dt
        .get(&format!("/api/v1/finding/project/{project}"), &k)
        .await;
    let first = &f.body[0];
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/analysis",
            &k,
            &json!({"project": project, "component": first["component"]["uuid"], "vulnerability": first["vulnerability"]["uuid"], "analysisState": "FALSE_POSITIVE", "isSuppressed": true}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let r = dt.get("/api/v1/finding", &k).await;
    assert_eq!(r.headers["x-total-count"], "8");
    let r = dt.get("/api/v1/finding?showSuppressed=true", &k).await;
    assert_eq!(r.headers["x-total-count"], "9");
    let r = dt
        .get(
            "/api/v1/finding?showSuppressed=true&analysisStatus=FALSE_POSITIVE",
            &k,
        )
        .await;
    assert_eq!(r.headers["x-total-count"], "1");
}

/// What the test server serves: path → (sent in chunks, body).
type Files = std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, (bool, Vec<u8>)>>>;

/// A one-purpose HTTP server on 127.0.0.1 serving OSV exports from `files` (with a
/// Content-Length or in chunks), 404 for anything else. It ends with the test.
async fn export_server(files: Files) -> std::net::SocketAddr {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let files = files.clone();
            tokio::spawn(async move {
                let mut got = Vec::new();
                let mut buf = [0u8; 4096];
                while !got.windows(4).any(|w| w == b"\r\n\r\n") && got.len() < 65_536 {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&got).to_string();
                let path = head.split(' ').nth(1).unwrap_or("").to_string();
                let file = files.lock().unwrap().get(&path).cloned();
                let reply = match file {
                    Some((false, body)) => {
                        let mut r = format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        )
                        .into_bytes();
                        r.extend(body);
                        r
                    }
                    Some((true, body)) => {
                        let mut r = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                            .to_vec();
                        for chunk in body.chunks(100) {
                            r.extend(format!("{:x}\r\n", chunk.len()).into_bytes());
                            r.extend(chunk);
                            r.extend(b"\r\n");
                        }
                        r.extend(b"0\r\n\r\n");
                        r
                    }
                    None => {
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .to_vec()
                    }
                };
                let _ = sock.write_all(&reply).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    addr
}

/// The zipped records of a fixture folder.
pub(crate) fn zipped(folder: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.zip");
    zip_folder(&fixtures().join(folder), &path);
    std::fs::read(path).unwrap()
}

#[tokio::test]
async fn exports_are_fetched_on_a_schedule_from_the_configured_url() {
    let files = Files::default();
    files
        .lock()
        .unwrap()
        .insert("/npm/all.zip".into(), (false, zipped("npm")));
    files
        .lock()
        .unwrap()
        .insert("/PyPI/all.zip".into(), (true, zipped("PyPI")));
    let addr = export_server(files).await;
    let dt = Dt::start_with(|c| {
        c.dtrack.osv_base_url = format!("http://{addr}");
        // Maven is not served (404): logged, and the others go on.
        c.dtrack.osv_ecosystems = "npm,Maven,PyPI".into();
    })
    .await;
    let k = dt.key("Admins", &all()).await;
    let mut total = String::new();
    for _ in 0..1000 {
        let r = dt.get("/api/v1/vulnerability", &k).await;
        total = r.headers["x-total-count"].to_str().unwrap().to_string();
        // npm's three records and PyPI's two valid ones.
        if total == "5" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(total, "5");
    let r = dt
        .get("/api/v1/vulnerability/source/OSV/vuln/PYSEC-2099-11", &k)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    // The downloads were temporary: only the markers of the ecosystems imported whole stay.
    let osv_dir = dt.server.state.config.data_dir.join("osv");
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(&osv_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        names.sort();
        names
    };
    for _ in 0..500 {
        if listing() == ["PyPI.synced", "npm.synced"] {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(listing(), vec!["PyPI.synced", "npm.synced"]);
}

#[tokio::test]
async fn later_fetches_take_only_the_records_modified_since() {
    use outpost::domain::dtrack::osv::fetch::sync_ecosystem;
    let files = Files::default();
    files
        .lock()
        .unwrap()
        .insert("/npm/all.zip".into(), (false, zipped("npm")));
    let base = format!("http://{}", export_server(files.clone()).await);
    let dt = Dt::start().await;
    let k = dt.key("Admins", &all()).await;
    let state = &dt.server.state;
    sync_ecosystem(state, &base, "npm").await.unwrap();
    let r = dt.get("/api/v1/vulnerability", &k).await;
    assert_eq!(r.headers["x-total-count"], "3");
    // The whole export is gone; the list names one changed record, newest first.
    {
        let mut f = files.lock().unwrap();
        f.remove("/npm/all.zip");
        f.insert(
            "/npm/modified_id.csv".into(),
            (
                false,
                b"2025-10-01T00:00:00Z,GHSA-acme-0001-npm1\n2025-03-01T00:00:00Z,GHSA-acme-0003-left\n2025-02-01T00:00:00Z,GHSA-acme-0002-wdrn\n".to_vec(),
            ),
        );
        f.insert(
            "/npm/GHSA-acme-0001-npm1.json".into(),
            (
                true,
                std::fs::read(fixtures().join("update/GHSA-acme-0001-npm1.json")).unwrap(),
            ),
        );
    }
    sync_ecosystem(state, &base, "npm").await.unwrap();
    let r = dt
        .get(
            "/api/v1/vulnerability/source/GITHUB/vuln/GHSA-acme-0001-npm1",
            &k,
        )
        .await;
    assert_eq!(
        r.body["title"],
        "Prototype pollution in @acme/parser (corrected range)"
    );
    // Without the list, the whole export is needed; its absence is an error, and nothing
    // is left behind.
    files.lock().unwrap().remove("/npm/modified_id.csv");
    let err = sync_ecosystem(state, &base, "npm").await.unwrap_err();
    assert!(err.contains("404"), "{err}");
    let left: Vec<_> = std::fs::read_dir(state.config.data_dir.join("osv"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(left, vec!["npm.synced"]);
}
