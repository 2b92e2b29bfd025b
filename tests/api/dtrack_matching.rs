//! The internal analyzer against what scanners write: BOMs shaped as Trivy, syft and cdxgen
//! write them (purls with `distro`, `upstream`, `epoch`, `platform` qualifiers; Trivy's
//! `aquasecurity:trivy:Src*` properties) matched against OSV records as the distributions and
//! ecosystems publish them (release suffixes, source package names, unsorted events, CVSS v4).
//! The records are invented advisories for real package names, written here in the OSV
//! schema's structure.

use std::collections::BTreeSet;
use std::path::Path;

use hyper::Method;
use serde_json::{Value, json};

use outpost::domain::dtrack::osv::import::import_path;

use crate::support::dtrack::{Dt, Key, all, b64, wait_done};

fn affected(eco: &str, name: &str, events: Value) -> Value {
    json!({"package": {"ecosystem": eco, "name": name},
           "ranges": [{"type": "ECOSYSTEM", "events": events}]})
}

fn record(id: &str, affected: Vec<Value>) -> Value {
    json!({"id": id, "modified": "2099-01-01T00:00:00Z", "summary": id, "affected": affected})
}

fn fixed(v: &str) -> Value {
    json!([{"introduced": "0"}, {"fixed": v}])
}

fn write_records(dir: &Path, records: &[Value]) {
    for r in records {
        let id = r["id"].as_str().unwrap().replace(':', "_");
        std::fs::write(dir.join(format!("{id}.json")), r.to_string()).unwrap();
    }
}

fn trivy(name: &str, version: &str, purl: &str, src: &[(&str, &str)]) -> Value {
    let mut props: Vec<Value> = vec![json!({"name": "aquasecurity:trivy:PkgType", "value": "os"})];
    for (k, v) in src {
        props.push(json!({"name": format!("aquasecurity:trivy:{k}"), "value": v}));
    }
    json!({"type": "library", "name": name, "version": version, "purl": purl,
           "properties": props, "bom-ref": purl})
}

fn lib(name: &str, version: &str, purl: &str) -> Value {
    json!({"type": "library", "name": name, "version": version, "purl": purl})
}

async fn upload(dt: &Dt, k: &Key, name: &str, components: Value) -> String {
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

/// `name@version VULN` for each finding.
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
                "{}@{} {}",
                f["component"]["name"].as_str().unwrap(),
                f["component"]["version"].as_str().unwrap_or(""),
                f["vulnerability"]["vulnId"].as_str().unwrap()
            )
        })
        .collect();
    (set, r.body)
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn os_packages_match_their_release_and_source_package() {
    let dt = Dt::start().await;
    let k = dt.key("Admins", &all()).await;
    let dir = tempfile::tempdir().unwrap();
    write_records(
        dir.path(),
        &[
            record(
                "DEBIAN-CVE-2099-0001",
                vec![
                    affected("Debian:11", "openssl", fixed("1.1.1w-0+deb11u2")),
                    affected("Debian:12", "openssl", fixed("3.0.11-1~deb12u3")),
                ],
            ),
            record(
                "UBUNTU-CVE-2099-0002",
                vec![
                    affected("Ubuntu:22.04:LTS", "openssl", fixed("3.0.2-0ubuntu1.15")),
                    affected(
                        "Ubuntu:Pro:18.04:LTS",
                        "openssl",
                        fixed("1.1.1-1ubuntu2.1~18.04.23+esm1"),
                    ),
                    affected(
                        "Ubuntu:Pro:FIPS-updates:22.04:LTS",
                        "openssl",
                        fixed("3.0.2-0ubuntu1.15+fips1"),
                    ),
                ],
            ),
            record(
                "ALPINE-CVE-2099-0003",
                vec![
                    affected("Alpine:v3.17", "openssl", fixed("3.0.12-r0")),
                    affected("Alpine:v3.18", "openssl", fixed("3.1.4-r1")),
                ],
            ),
            record(
                "RHSA-2099:0004",
                vec![affected(
                    "Red Hat:enterprise_linux:9::appstream",
                    "openssl",
                    fixed("1:3.0.7-25.el9_3"),
                )],
            ),
            record(
                "ALSA-2099:0005",
                vec![affected(
                    "AlmaLinux:9",
                    "openssl",
                    fixed("1:3.0.7-25.el9_3"),
                )],
            ),
            record(
                "SUSE-SU-2099:0006-1",
                vec![
                    affected(
                        "SUSE:Linux Enterprise Server 15 SP5",
                        "libopenssl3",
                        fixed("3.0.8-150500.5.20.1"),
                    ),
                    affected(
                        "openSUSE:Leap 15.5",
                        "libopenssl3",
                        fixed("3.0.8-150500.5.20.1"),
                    ),
                ],
            ),
        ],
    );
    let report = import_path(&dt.server.state, dir.path()).await.unwrap();
    assert_eq!((report.stored, report.problem_count), (6, 0), "{report:?}");
    let comps = json!([
        // Trivy, Debian 12 (`/etc/debian_version` gives the point release): the source
        // package and its version from the properties.
        trivy(
            "libssl3",
            "3.0.11-1~deb12u2",
            "pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12.4",
            &[
                ("SrcName", "openssl"),
                ("SrcVersion", "3.0.11"),
                ("SrcRelease", "1~deb12u2")
            ]
        ),
        // syft, Debian 11: the source in `upstream`.
        lib(
            "libssl1.1",
            "1.1.1w-0+deb11u1",
            "pkg:deb/debian/libssl1.1@1.1.1w-0%2Bdeb11u1?arch=amd64&distro=debian-11&upstream=openssl"
        ),
        // Fixed on 11, though below Debian 12's fix: the point release keeps it on 11.
        lib(
            "libssl1.1",
            "1.1.1w-0+deb11u2",
            "pkg:deb/debian/libssl1.1@1.1.1w-0%2Bdeb11u2?arch=amd64&distro=debian-11.6&upstream=openssl"
        ),
        // By codename, fixed.
        lib(
            "libssl3",
            "3.0.11-1~deb12u3",
            "pkg:deb/debian/libssl3@3.0.11-1~deb12u3?distro=bookworm&upstream=openssl"
        ),
        // Without a distro: the release comes from `+deb11u2` (fixed there).
        lib(
            "openssl",
            "1.1.1w-0+deb11u2",
            "pkg:deb/debian/openssl@1.1.1w-0%2Bdeb11u2"
        ),
        // Without a distro or a release in the version: every release's entries, as upstream.
        lib("openssl", "3.0.9-1", "pkg:deb/debian/openssl@3.0.9-1"),
        // Ubuntu, Trivy: affected on 22.04; the FIPS lineage does not apply to it.
        trivy(
            "libssl3",
            "3.0.2-0ubuntu1.10",
            "pkg:deb/ubuntu/libssl3@3.0.2-0ubuntu1.10?arch=amd64&distro=ubuntu-22.04",
            &[
                ("SrcName", "openssl"),
                ("SrcVersion", "3.0.2"),
                ("SrcRelease", "0ubuntu1.10")
            ]
        ),
        lib(
            "libssl3",
            "3.0.2-0ubuntu1.15",
            "pkg:deb/ubuntu/libssl3@3.0.2-0ubuntu1.15?distro=jammy&upstream=openssl"
        ),
        // Ubuntu 18.04: the Pro entry's ESM fix applies to the release.
        lib(
            "openssl",
            "1.1.1-1ubuntu2.1~18.04.23",
            "pkg:deb/ubuntu/openssl@1.1.1-1ubuntu2.1~18.04.23?distro=ubuntu-18.04"
        ),
        lib(
            "openssl",
            "1.1.1-1ubuntu2.1~18.04.23+esm1",
            "pkg:deb/ubuntu/openssl@1.1.1-1ubuntu2.1~18.04.23%2Besm1?distro=ubuntu-18.04"
        ),
        // Alpine, Trivy (distro without a prefix) and syft (`upstream` = origin).
        trivy(
            "libcrypto3",
            "3.0.8-r0",
            "pkg:apk/alpine/libcrypto3@3.0.8-r0?arch=x86_64&distro=3.17.2",
            &[("SrcName", "openssl"), ("SrcVersion", "3.0.8-r0")]
        ),
        lib(
            "libcrypto3",
            "3.0.12-r0",
            "pkg:apk/alpine/libcrypto3@3.0.12-r0?arch=x86_64&distro=alpine-3.17.5&upstream=openssl"
        ),
        lib(
            "libcrypto3",
            "3.1.3-r0",
            "pkg:apk/alpine/libcrypto3@3.1.3-r0?arch=x86_64&distro=alpine-3.18.4&upstream=openssl"
        ),
        // Red Hat (syft: source RPM file name, epoch qualifier) and AlmaLinux (Trivy).
        lib(
            "openssl-libs",
            "3.0.7-24.el9",
            "pkg:rpm/redhat/openssl-libs@3.0.7-24.el9?arch=x86_64&distro=rhel-9.3&epoch=1&upstream=openssl-3.0.7-24.el9.src.rpm"
        ),
        lib(
            "openssl-libs",
            "3.0.7-25.el9_3",
            "pkg:rpm/redhat/openssl-libs@3.0.7-25.el9_3?arch=x86_64&distro=rhel-9.3&epoch=1&upstream=openssl-3.0.7-25.el9_3.src.rpm"
        ),
        trivy(
            "openssl",
            "1:3.0.7-24.el9",
            "pkg:rpm/alma/openssl@3.0.7-24.el9?arch=x86_64&distro=alma-9.3&epoch=1",
            &[
                ("SrcName", "openssl"),
                ("SrcVersion", "3.0.7"),
                ("SrcRelease", "24.el9"),
                ("SrcEpoch", "1")
            ]
        ),
        // SUSE by service pack, openSUSE Leap (the record names the binary package).
        lib(
            "libopenssl3",
            "3.0.8-150500.5.14.1",
            "pkg:rpm/suse/libopenssl3@3.0.8-150500.5.14.1?arch=x86_64&distro=sles-15.5"
        ),
        lib(
            "libopenssl3",
            "3.0.8-150400.4.1",
            "pkg:rpm/suse/libopenssl3@3.0.8-150400.4.1?arch=x86_64&distro=sles-15.4"
        ),
        lib(
            "libopenssl3",
            "3.0.8-150500.5.14.1",
            "pkg:rpm/opensuse/libopenssl3@3.0.8-150500.5.14.1?arch=x86_64&distro=opensuse-leap-15.5&upstream=openssl-3-3.0.8-150500.5.14.1.src.rpm"
        ),
    ]);
    let project = upload(&dt, &k, "image", comps).await;
    let (got, _) = findings(&dt, &k, &project).await;
    assert_eq!(
        got,
        set(&[
            "libssl3@3.0.11-1~deb12u2 DEBIAN-CVE-2099-0001",
            "libssl1.1@1.1.1w-0+deb11u1 DEBIAN-CVE-2099-0001",
            "openssl@3.0.9-1 DEBIAN-CVE-2099-0001",
            "libssl3@3.0.2-0ubuntu1.10 UBUNTU-CVE-2099-0002",
            "openssl@1.1.1-1ubuntu2.1~18.04.23 UBUNTU-CVE-2099-0002",
            "libcrypto3@3.0.8-r0 ALPINE-CVE-2099-0003",
            "libcrypto3@3.1.3-r0 ALPINE-CVE-2099-0003",
            "openssl-libs@3.0.7-24.el9 RHSA-2099:0004",
            "openssl@1:3.0.7-24.el9 ALSA-2099:0005",
            "libopenssl3@3.0.8-150500.5.14.1 SUSE-SU-2099:0006-1",
        ])
    );
    // Both libopenssl3@3.0.8-150500.5.14.1 components (SLES 15 SP5 and Leap 15.5) are found.
    let r = dt
        .get(&format!("/api/v1/finding/project/{project}"), &k)
        .await;
    let suse = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["vulnerability"]["vulnId"] == "SUSE-SU-2099:0006-1")
        .count();
    assert_eq!(suse, 2);
    // A distro qualifier naming no release we know is reported, not clean.
    let before = outpost::domain::dtrack::osv::matching::unknown_matches(&dt.server.state)
        .await
        .unwrap();
    assert!(before.is_empty(), "{before:?}");
    upload(
        &dt,
        &k,
        "odd",
        json!([lib(
            "libssl3",
            "3.0.1-1",
            "pkg:deb/debian/libssl3@3.0.1-1?distro=debian-x.y&upstream=openssl"
        )]),
    )
    .await;
    let unknown = outpost::domain::dtrack::osv::matching::unknown_matches(&dt.server.state)
        .await
        .unwrap();
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert!(unknown[0].6.contains("names no release"), "{unknown:?}");
}

#[tokio::test]
async fn language_ecosystems_identity_forms_and_severity() {
    let dt = Dt::start().await;
    let k = dt.key("Admins", &all()).await;
    let dir = tempfile::tempdir().unwrap();
    let v4 = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N";
    let v3 = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H";
    let mut nuget = record(
        "GHSA-2099-nuge-t001",
        vec![affected("NuGet", "Newtonsoft.Json", fixed("13.0.1"))],
    );
    nuget["severity"] = json!([{"type": "CVSS_V3", "score": v3}, {"type": "CVSS_V4", "score": v4}]);
    nuget["database_specific"] = json!({"severity": "LOW"});
    // Published out of order: two intervals, both kept.
    let laravel = record(
        "GHSA-2099-pack-0001",
        vec![affected(
            "Packagist",
            "laravel/framework",
            json!([
                {"introduced": "9.0.0"}, {"introduced": "10.0.0"}, {"fixed": "9.52.16"}, {"fixed": "10.48.3"}
            ]),
        )],
    );
    write_records(
        dir.path(),
        &[
            nuget,
            laravel,
            record(
                "GHSA-2099-hexx-0001",
                vec![affected("Hex", "plug", fixed("1.3.5"))],
            ),
            record(
                "GHSA-2099-pubb-0001",
                vec![affected("Pub", "http", fixed("0.13.3"))],
            ),
            record(
                "GHSA-2099-swif-0001",
                vec![
                    json!({"package": {"ecosystem": "SwiftURL", "name": "github.com/vapor/vapor"},
                "ranges": [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": "4.84.2"}]}]}),
                ],
            ),
            record(
                "GHSA-2099-acti-0001",
                vec![affected(
                    "GitHub Actions",
                    "tj-actions/changed-files",
                    fixed("46.0.1"),
                )],
            ),
            record(
                "HSEC-2099-0002",
                vec![affected("Hackage", "aeson", fixed("2.0.1.0"))],
            ),
            record(
                "RSEC-2099-0001",
                vec![affected("CRAN", "commonmark", fixed("0.2"))],
            ),
            record(
                "GO-2099-0002",
                vec![
                    json!({"package": {"ecosystem": "Go", "name": "github.com/Azure/go-autorest"},
                "ranges": [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": "0.11.28"}]}]}),
                ],
            ),
            record(
                "GO-2099-0003",
                vec![json!({"package": {"ecosystem": "Go", "name": "stdlib"},
                "ranges": [{"type": "SEMVER", "events": [{"introduced": "1.21.0"}, {"fixed": "1.21.6"}]}]})],
            ),
            record(
                "GHSA-2099-gems-0001",
                vec![affected("RubyGems", "nokogiri", fixed("1.13.10"))],
            ),
            record(
                "PYSEC-2099-0001",
                vec![affected("PyPI", "Zope.Interface", fixed("5.1"))],
            ),
            record(
                "GHSA-2099-npmj-0001",
                vec![
                    json!({"package": {"ecosystem": "npm", "name": "JSONStream"},
                "ranges": [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": "1.3.2"}]}]}),
                ],
            ),
            record(
                "GHSA-2099-goog-0001",
                vec![affected(
                    "Maven:https://maven.google.com",
                    "androidx.webkit:webkit",
                    fixed("1.5.0"),
                )],
            ),
            record(
                "GHSA-2099-mavn-0001",
                vec![affected("Maven", "org.acme:tiny", fixed("1.0-0.1"))],
            ),
        ],
    );
    let report = import_path(&dt.server.state, dir.path()).await.unwrap();
    assert_eq!((report.stored, report.problem_count), (15, 0), "{report:?}");
    let comps = json!([
        lib(
            "Newtonsoft.Json",
            "12.0.3",
            "pkg:nuget/Newtonsoft.Json@12.0.3"
        ),
        lib(
            "Newtonsoft.Json",
            "13.0.1.0",
            "pkg:nuget/Newtonsoft.Json@13.0.1.0"
        ),
        // cdxgen: a purl without a version; the component's version counts.
        lib("newtonsoft.json", "12.0.1", "pkg:nuget/newtonsoft.json"),
        lib(
            "framework",
            "v9.52.15",
            "pkg:composer/laravel/framework@v9.52.15"
        ),
        lib(
            "framework",
            "9.52.16",
            "pkg:composer/laravel/framework@9.52.16"
        ),
        lib(
            "framework",
            "10.1.0",
            "pkg:composer/laravel/framework@10.1.0"
        ),
        lib("plug", "1.3.4", "pkg:hex/plug@1.3.4"),
        lib("http", "0.13.3", "pkg:pub/http@0.13.3"),
        lib("http", "0.13.2", "pkg:pub/http@0.13.2"),
        lib("vapor", "4.84.1", "pkg:swift/github.com/vapor/vapor@4.84.1"),
        lib(
            "changed-files",
            "v45",
            "pkg:github/tj-actions/changed-files@v45"
        ),
        lib(
            "changed-files",
            "v46.0.1",
            "pkg:github/tj-actions/changed-files@v46.0.1"
        ),
        lib("aeson", "1.5.6.0", "pkg:hackage/aeson@1.5.6.0"),
        lib("aeson", "2.0.1.0", "pkg:hackage/aeson@2.0.1.0"),
        lib("commonmark", "0.1-3", "pkg:cran/commonmark@0.1-3"),
        // Trivy lower-cases Go module paths.
        lib(
            "github.com/azure/go-autorest",
            "v0.11.27",
            "pkg:golang/github.com/azure/go-autorest@v0.11.27"
        ),
        lib("stdlib", "go1.21.5", "pkg:golang/stdlib@go1.21.5"),
        lib("stdlib", "1.21", "pkg:golang/stdlib@1.21"),
        lib("stdlib", "v1.21.6", "pkg:golang/stdlib@v1.21.6"),
        lib(
            "nokogiri",
            "1.13.9-x86_64-linux",
            "pkg:gem/nokogiri@1.13.9-x86_64-linux?platform=x86_64-linux"
        ),
        lib("zope-interface", "5.0", "pkg:pypi/zope-interface@5.0"),
        lib("jsonstream", "1.3.1", "pkg:npm/jsonstream@1.3.1"),
        lib("webkit", "1.4.0", "pkg:maven/androidx.webkit/webkit@1.4.0"),
        lib("tiny", "1.0", "pkg:maven/org.acme/tiny@1.0"),
    ]);
    let project = upload(&dt, &k, "svc", comps).await;
    let (got, body) = findings(&dt, &k, &project).await;
    assert_eq!(
        got,
        set(&[
            "Newtonsoft.Json@12.0.3 GHSA-2099-nuge-t001",
            "newtonsoft.json@12.0.1 GHSA-2099-nuge-t001",
            "framework@v9.52.15 GHSA-2099-pack-0001",
            "framework@10.1.0 GHSA-2099-pack-0001",
            "plug@1.3.4 GHSA-2099-hexx-0001",
            "http@0.13.2 GHSA-2099-pubb-0001",
            "vapor@4.84.1 GHSA-2099-swif-0001",
            "changed-files@v45 GHSA-2099-acti-0001",
            "aeson@1.5.6.0 HSEC-2099-0002",
            "commonmark@0.1-3 RSEC-2099-0001",
            "github.com/azure/go-autorest@v0.11.27 GO-2099-0002",
            "stdlib@go1.21.5 GO-2099-0003",
            "stdlib@1.21 GO-2099-0003",
            "nokogiri@1.13.9-x86_64-linux GHSA-2099-gems-0001",
            "zope-interface@5.0 PYSEC-2099-0001",
            "jsonstream@1.3.1 GHSA-2099-npmj-0001",
            "webkit@1.4.0 GHSA-2099-goog-0001",
            "tiny@1.0 GHSA-2099-mavn-0001",
        ])
    );
    // Severity: CVSS v4 ranks before v3 and the database's text, as upstream.
    let f = body
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["vulnerability"]["vulnId"] == "GHSA-2099-nuge-t001")
        .unwrap();
    assert_eq!(f["vulnerability"]["severity"], "HIGH");
    assert_eq!(f["vulnerability"]["cvssV3BaseScore"], 9.8);
    let vuln_id = dt
        .server
        .state
        .db
        .read(|c| {
            outpost::db::dtrack_findings::vulnerability_id_by_key(
                c,
                "GITHUB",
                "GHSA-2099-nuge-t001",
            )
        })
        .await
        .unwrap()
        .unwrap();
    let (v2, v4_stored) = dt
        .server
        .state
        .db
        .read(move |c| outpost::db::dtrack_osv::cvss(c, vuln_id))
        .await
        .unwrap();
    assert_eq!(v2, None);
    assert_eq!(v4_stored, Some((v4.to_string(), 8.7)));
}

#[tokio::test]
async fn new_distribution_data_reaches_components_by_their_source_package() {
    let dt = Dt::start().await;
    let k = dt.key("Admins", &all()).await;
    // The BOM comes first: nothing is known about its packages yet.
    let project = upload(
        &dt,
        &k,
        "early",
        json!([
            trivy(
                "libssl3",
                "3.0.11-1~deb12u2",
                "pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12",
                &[
                    ("SrcName", "openssl"),
                    ("SrcVersion", "3.0.11"),
                    ("SrcRelease", "1~deb12u2")
                ]
            ),
            lib(
                "libcrypto3",
                "3.0.8-r0",
                "pkg:apk/alpine/libcrypto3@3.0.8-r0?distro=alpine-3.17.2&upstream=openssl"
            ),
        ]),
    )
    .await;
    assert!(findings(&dt, &k, &project).await.0.is_empty());
    let dir = tempfile::tempdir().unwrap();
    write_records(
        dir.path(),
        &[
            record(
                "DEBIAN-CVE-2099-0101",
                vec![affected("Debian:12", "openssl", fixed("3.0.11-1~deb12u3"))],
            ),
            record(
                "ALPINE-CVE-2099-0102",
                vec![affected("Alpine:v3.17", "openssl", fixed("3.0.12-r0"))],
            ),
            // The binary package's name is not what OSV names: no finding from it.
            record(
                "DEBIAN-CVE-2099-0103",
                vec![affected("Debian:12", "libssl3", fixed("9.0-1"))],
            ),
        ],
    );
    let report = import_path(&dt.server.state, dir.path()).await.unwrap();
    assert_eq!(report.projects_changed, 1, "{report:?}");
    assert_eq!(
        findings(&dt, &k, &project).await.0,
        set(&[
            "libssl3@3.0.11-1~deb12u2 DEBIAN-CVE-2099-0101",
            "libcrypto3@3.0.8-r0 ALPINE-CVE-2099-0102",
        ])
    );
    // A new BOM without the source properties: the binary name is looked up instead.
    upload(
        &dt,
        &k,
        "early",
        json!([lib(
            "libssl3",
            "3.0.11-1~deb12u2",
            "pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12"
        )]),
    )
    .await;
    assert_eq!(
        findings(&dt, &k, &project).await.0,
        set(&["libssl3@3.0.11-1~deb12u2 DEBIAN-CVE-2099-0103"])
    );
}
