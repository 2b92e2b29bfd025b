//! The Dependency-Track OSV scenarios, against `outpost` child processes (so each process's
//! memory is its own):
//! - `dt-osv-import`: writes a synthetic npm-like OSV export (`--osv-records` records, a few KB
//!   each, with aliases, several SEMVER ranges, `introduced`/`fixed`/`last_affected` events
//!   and version lists) to a temporary zip, imports it with `outpost dtrack import-osv`
//!   (wall time and that process's peak resident memory), starts `outpost serve`, uploads a
//!   `--components`-component CycloneDX BOM through `PUT /api/v1/bom`, polls its token until
//!   processed and reports the processing time, the findings and the server's peak memory;
//! - `dt-findings`: the same setup, then `GET /api/v1/finding/project/{uuid}` over
//!   `--connections` connections for `--seconds`; with `--floor`, against a bare server that
//!   answers every request with the body Outpost gave the first.
//!
//! The BOM names packages of the export at affected versions (a few hundred), packages of the
//! export at versions no range covers, and packages the export does not know, so matching
//! does all three kinds of work.

use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::{Method, Request};
use serde_json::{Value, json};

use super::load::Spec;
use super::{fail, realtime};

/// One package in this many of the BOM's is vulnerable at its version.
const VULNERABLE_EVERY: usize = 16;
/// One package in this many of the BOM's is in the export at an unaffected version.
const KNOWN_EVERY: usize = 2;

/// The package name of package `i` (one in five scoped, as on npm).
fn package(i: usize) -> String {
    if i.is_multiple_of(5) {
        format!("@scope{}/lib-{i}", i % 97)
    } else {
        format!("bench-pkg-{i}")
    }
}

fn purl_name(name: &str) -> String {
    name.replace('@', "%40")
}

/// Words for descriptions of realistic length.
const WORDS: &[&str] = &[
    "crafted",
    "input",
    "allows",
    "remote",
    "attackers",
    "to",
    "cause",
    "denial",
    "of",
    "service",
    "prototype",
    "pollution",
    "in",
    "the",
    "parser",
    "when",
    "handling",
    "untrusted",
    "objects",
    "regular",
    "expression",
    "backtracking",
    "path",
    "traversal",
    "via",
    "archive",
    "entries",
];

fn prose(seed: usize, words: usize) -> String {
    let mut s = String::with_capacity(words * 8);
    for w in 0..words {
        if w > 0 {
            s.push(' ');
        }
        s.push_str(WORDS[(seed.wrapping_mul(31) + w * 7 + w / 3) % WORDS.len()]);
    }
    s
}

/// Record `j` of the export: packages are shared by about two records each.
fn record(j: usize, packages: usize) -> Value {
    let pkg = package(j % packages);
    let line = j / packages; // 0 or 1 (or more): which release line this advisory hits
    // Ranges: every record covers 1.0.0 up to 1.5.0 (so the BOM's 1.2.x versions are affected),
    // plus a later line closed by `fixed` or `last_affected`.
    let mut events = vec![
        json!({"introduced": "0"}),
        json!({"fixed": format!("1.5.{line}")}),
        json!({"introduced": format!("2.{line}.0")}),
    ];
    if j.is_multiple_of(3) {
        events.push(json!({"last_affected": format!("2.{line}.9")}));
    } else {
        events.push(json!({"fixed": format!("2.{line}.10")}));
    }
    let mut versions: Vec<String> = (0..5).map(|p| format!("1.{p}.0")).collect();
    versions.extend((0..10).map(|p| format!("2.{line}.{p}")));
    let mut affected = vec![json!({
        "package": {"ecosystem": "npm", "name": pkg, "purl": format!("pkg:npm/{}", purl_name(&pkg))},
        "ranges": [{"type": "SEMVER", "events": events}],
        "versions": versions,
        "database_specific": {"source": format!("https://github.com/advisories/GHSA-{j}")}
    })];
    if j % 10 == 7 {
        // Some advisories name a second package (a fork or a renamed one).
        let other = format!("bench-fork-{j}");
        affected.push(json!({
            "package": {"ecosystem": "npm", "name": other, "purl": format!("pkg:npm/{other}")},
            "ranges": [{"type": "SEMVER", "events": [{"introduced": "0.1.0"}, {"fixed": "0.9.3"}]}]
        }));
    }
    let id = format!("GHSA-{:04x}-{:04x}-b{j:06}", j % 65536, (j * 7919) % 65536);
    let severity = ["LOW", "MODERATE", "HIGH", "CRITICAL"][j % 4];
    json!({
        "schema_version": "1.6.0",
        "id": id,
        "modified": "2025-06-01T00:00:00Z",
        "published": "2024-03-01T12:00:00Z",
        "aliases": [format!("CVE-2024-{}", 10000 + j)],
        "summary": format!("{} in {pkg}", prose(j, 6)),
        "details": prose(j, 150 + j % 200),
        "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N"}],
        "affected": affected,
        "references": [
            {"type": "ADVISORY", "url": format!("https://nvd.nist.gov/vuln/detail/CVE-2024-{}", 10000 + j)},
            {"type": "WEB", "url": format!("https://github.com/example/{}/issues/{j}", j % packages)},
            {"type": "FIX", "url": format!("https://github.com/example/{}/commit/{:040x}", j % packages, j)},
            {"type": "PACKAGE", "url": format!("https://www.npmjs.com/package/{pkg}")},
            {"type": "ADVISORY", "url": format!("https://github.com/advisories/{id}")}
        ],
        "database_specific": {
            "severity": severity,
            "cwe_ids": [format!("CWE-{}", 20 + j % 900)],
            "github_reviewed": true,
            "github_reviewed_at": "2024-03-02T00:00:00Z",
            "nvd_published_at": null
        }
    })
}

/// Writes the export zip; returns (uncompressed bytes, packages).
fn write_export(path: &Path, records: usize) -> (u64, usize) {
    let packages = (records / 2).max(1);
    let file = std::fs::File::create(path).unwrap_or_else(|e| fail(&format!("export: {e}")));
    let mut w = zip::ZipWriter::new(std::io::BufWriter::new(file));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let mut total = 0u64;
    for j in 0..records {
        let r = record(j, packages);
        let bytes = serde_json::to_vec_pretty(&r).expect("record");
        total += bytes.len() as u64;
        w.start_file(format!("{}.json", r["id"].as_str().unwrap_or("x")), opts)
            .and_then(|_| w.write_all(&bytes).map_err(Into::into))
            .unwrap_or_else(|e| fail(&format!("export: {e}")));
    }
    w.finish().unwrap_or_else(|e| fail(&format!("export: {e}")));
    (total, packages)
}

/// The BOM: `components` npm libraries; every [`VULNERABLE_EVERY`]th at an affected version of
/// a package of the export, every [`KNOWN_EVERY`]th at an unaffected one, the rest unknown.
fn bom(components: usize, packages: usize) -> (String, usize) {
    let mut list = Vec::with_capacity(components);
    let mut vulnerable = 0;
    for i in 0..components {
        let (name, version) = if i.is_multiple_of(VULNERABLE_EVERY) {
            vulnerable += 1;
            (package((i * 7) % packages), format!("1.2.{}", i % 9))
        } else if i.is_multiple_of(KNOWN_EVERY) {
            (package((i * 7) % packages), "3.0.1".to_string())
        } else {
            (format!("unlisted-{i}"), format!("4.{}.0", i % 20))
        };
        list.push(json!({
            "type": "library",
            "bom-ref": format!("ref-{i}"),
            "name": name,
            "version": version,
            "purl": format!("pkg:npm/{}@{version}", purl_name(&name)),
            "licenses": [{"license": {"id": "MIT"}}]
        }));
    }
    let bom = json!({
        "bomFormat": "CycloneDX",
        "specVersion": "1.5",
        "version": 1,
        "metadata": {"component": {"type": "application", "name": "bench-app", "version": "1.0"}},
        "components": list
    });
    (bom.to_string(), vulnerable)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| fail(&format!("no free port: {e}")))
}

/// Waits for a child and returns (exit success, peak resident KiB) from the kernel's record.
fn wait_with_peak(child: &Child) -> (bool, u64) {
    let mut status = 0;
    // SAFETY: rusage is plain old data, filled in by wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; the pointers are valid for the call.
    let r = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    if r < 0 {
        fail("wait4 failed");
    }
    (
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        usage.ru_maxrss as u64,
    )
}

fn peak_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// The `outpost serve` child; stopped (and its directory removed) when dropped.
struct Setup {
    server: Child,
    addr: SocketAddr,
    dir: PathBuf,
    key: String,
    project: String,
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn call(
    addr: SocketAddr,
    method: Method,
    path: &str,
    key: &str,
    body: Option<String>,
) -> (u16, Value) {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| fail(&format!("connect: {e}")));
    let (mut sender, conn) = hyper::client::conn::http1::handshake::<_, Full<Bytes>>(
        hyper_util::rt::TokioIo::new(stream),
    )
    .await
    .unwrap_or_else(|e| fail(&format!("handshake: {e}")));
    tokio::spawn(conn);
    let mut req = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "localhost")
        .header("x-api-key", key);
    if body.is_some() {
        req = req.header("content-type", "application/json");
    }
    let req = req
        .body(Full::new(Bytes::from(body.unwrap_or_default())))
        .expect("request");
    let res = sender
        .send_request(req)
        .await
        .unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let status = res.status().as_u16();
    let bytes = res
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// Generates the data, imports it, starts the server and uploads the BOM, printing figures.
async fn setup(records: usize, components: usize) -> Setup {
    let bin = realtime::outpost_binary();
    let dir = std::env::temp_dir().join(format!("outpost-bench-osv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| fail(&format!("temp dir: {e}")));
    let zip = dir.join("npm-all.zip");
    let started = Instant::now();
    let (raw, packages) = write_export(&zip, records);
    let zipped = std::fs::metadata(&zip).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "export: {records} records over {packages} packages, {:.1} MB of JSON ({:.1} MB zipped), written in {:.1}s",
        raw as f64 / 1e6,
        zipped as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    let port = free_port();
    let cfg = dir.join("outpost.toml");
    std::fs::write(
        &cfg,
        format!(
            "data_dir = {:?}\n[chat]\nlisten = \"127.0.0.1:{}\"\n[dtrack]\nenabled = true\nlisten = \"127.0.0.1:{port}\"\n[limits]\nuser_requests_per_minute = 0\nip_requests_per_minute = 0\n[log]\nlevel = \"warn\"\n",
            dir.join("data").display().to_string(),
            free_port()
        ),
    )
    .unwrap_or_else(|e| fail(&format!("config: {e}")));
    let team = Command::new(&bin)
        .args([
            "dtrack",
            "create-team",
            "--name",
            "Bench",
            "--api-key",
            "--json",
        ])
        .args([
            "--permission",
            "BOM_UPLOAD",
            "--permission",
            "VIEW_PORTFOLIO",
            "--permission",
            "VIEW_VULNERABILITY",
            "--permission",
            "PORTFOLIO_MANAGEMENT",
            "--permission",
            "PROJECT_CREATION_UPLOAD",
            "--config",
        ])
        .arg(&cfg)
        .output()
        .unwrap_or_else(|e| fail(&format!("create-team: {e}")));
    if !team.status.success() {
        fail(&format!(
            "create-team: {}",
            String::from_utf8_lossy(&team.stderr)
        ));
    }
    let team: Value =
        serde_json::from_slice(&team.stdout).unwrap_or_else(|_| fail("create-team output"));
    let key = team["api_key"]
        .as_str()
        .unwrap_or_else(|| fail("create-team printed no key"))
        .to_string();

    // The import, as its own process.
    let started = Instant::now();
    let mut import = Command::new(&bin)
        .args(["dtrack", "import-osv", "--json", "--config"])
        .arg(&cfg)
        .arg("--from")
        .arg(&zip)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("import-osv: {e}")));
    let mut out = import.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let (ok, peak) = wait_with_peak(&import);
    // Already reaped by wait4; this only settles `Child`'s bookkeeping.
    let _ = import.wait();
    let took = started.elapsed();
    let report = reader.join().unwrap_or_default();
    if !ok {
        fail(&format!("import-osv failed: {report}"));
    }
    let report: Value = serde_json::from_str(&report).unwrap_or(Value::Null);
    println!(
        "osv-import records={} stored={} problems={} seconds={:.2} records/s={:.0} import_peak_rss={:.1}MB",
        report["records"],
        report["stored"],
        report["problem_count"],
        took.as_secs_f64(),
        report["stored"].as_f64().unwrap_or(0.0) / took.as_secs_f64(),
        peak as f64 / 1024.0
    );

    let server = Command::new(&bin)
        .args(["serve", "--config"])
        .arg(&cfg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("serve: {e}")));
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("address");
    let mut s = Setup {
        server,
        addr,
        dir,
        key,
        project: String::new(),
    };
    let mut up = false;
    for _ in 0..400 {
        if std::net::TcpStream::connect(addr).is_ok() {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    if !up {
        fail("the server did not start");
    }

    let (bom, vulnerable) = bom(components, packages);
    let body = json!({
        "projectName": "bench-app",
        "projectVersion": "1.0",
        "autoCreate": true,
        "bom": base64::engine::general_purpose::STANDARD.encode(&bom),
    })
    .to_string();
    let started = Instant::now();
    let (status, answer) = call(addr, Method::PUT, "/api/v1/bom", &s.key, Some(body)).await;
    if status != 200 {
        fail(&format!("PUT /api/v1/bom answered {status}: {answer}"));
    }
    let token = answer["token"].as_str().unwrap_or_default().to_string();
    loop {
        let (status, v) = call(
            addr,
            Method::GET,
            &format!("/api/v1/event/token/{token}"),
            &s.key,
            None,
        )
        .await;
        if status != 200 {
            fail(&format!("token answered {status}: {v}"));
        }
        if v["processing"] == json!(false) {
            break;
        }
        if started.elapsed() > Duration::from_secs(1800) {
            fail("the BOM was not processed within 30 minutes");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let took = started.elapsed();
    let (status, v) = call(
        addr,
        Method::GET,
        "/api/v1/project/lookup?name=bench-app&version=1.0",
        &s.key,
        None,
    )
    .await;
    if status != 200 {
        fail(&format!("project lookup answered {status}: {v}"));
    }
    s.project = v["uuid"].as_str().unwrap_or_default().to_string();
    let (status, findings) = call(
        addr,
        Method::GET,
        &format!("/api/v1/finding/project/{}", s.project),
        &s.key,
        None,
    )
    .await;
    if status != 200 {
        fail(&format!("findings answered {status}: {findings}"));
    }
    let count = findings.as_array().map_or(0, Vec::len);
    println!(
        "bom components={components} vulnerable_components={vulnerable} bytes={} processing_seconds={:.2} findings={count} server_peak_rss={:.1}MB",
        bom.len(),
        took.as_secs_f64(),
        peak_kib(s.server.id()) as f64 / 1024.0
    );
    s
}

/// Runs `dt-osv-import` or `dt-findings`.
pub fn run(args: &super::Args) {
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.client_threads)
        .enable_all()
        .build()
        .expect("client runtime");
    let s = client_rt.block_on(setup(args.osv_records, args.components));
    if args.scenario == "dt-osv-import" {
        return;
    }
    let spec = Spec {
        method: Method::GET,
        path: format!("/api/v1/finding/project/{}", s.project),
        body: None,
        credential: Some(("x-api-key", s.key.clone())),
    };
    // The floor runs in its own runtime, sized like the server's default.
    let floor_rt;
    let addr = if args.floor {
        let answer = client_rt.block_on(super::load::probe(s.addr, &spec));
        eprintln!("floor: answering every request with {} bytes", answer.len());
        floor_rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(args.server_threads)
            .enable_all()
            .build()
            .expect("floor runtime");
        floor_rt.block_on(super::floor::serve_static(answer))
    } else {
        s.addr
    };
    let report = client_rt.block_on(super::load::run_load(
        addr,
        vec![spec; args.connections],
        Duration::from_secs(args.seconds),
        args.rate,
        None,
    ));
    super::load::print_report(args, &report);
    if !args.floor {
        println!(
            "server_peak_rss={:.1}MB",
            peak_kib(s.server.id()) as f64 / 1024.0
        );
    }
    drop(s);
}
