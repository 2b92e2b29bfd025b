//! Attacks on the listeners themselves (issue 9): oversized and slow requests before and after
//! authentication, parameter floods, connection floods, file permissions of the data, secrets
//! in logged paths, bodies without their media type, aborted bodies and development mode.
//! Each test performs the attack over a socket as an attacker would and checks what they see.

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hyper::Method;
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use outpost::domain::dtrack::permissions::Permission;
use outpost::model::Role;

use crate::support::dtrack::Dt;
use crate::support::{TestServer, basic, body, raw};

/// Reads from `s` until the peer closes or `limit` passes; `None` if it did not close.
async fn read_until_closed(s: &mut TcpStream, limit: Duration) -> Option<Vec<u8>> {
    let deadline = Instant::now() + limit;
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, s.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(out),
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
        }
    }
}

/// Reads one HTTP response head and body (by `content-length`) within `limit`.
async fn read_response(s: &mut TcpStream, limit: Duration) -> Option<String> {
    let deadline = Instant::now() + limit;
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&out).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let len = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if out.len() >= end + 4 + len {
                return Some(text);
            }
        }
        let left = deadline.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, s.read(&mut buf)).await {
            Err(_) | Ok(Ok(0)) | Ok(Err(_)) => return None,
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
        }
    }
}

/// A log sink for one test: a subscriber scoped to the current thread (use a current-thread
/// runtime, so the server's request tasks log into it).
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).to_string()
    }

    fn install(&self) -> tracing::subscriber::DefaultGuard {
        let sub = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .with_writer(self.clone())
            .finish();
        tracing::subscriber::set_default(sub)
    }
}

impl std::io::Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

// Item 1: a parameter flood to an unauthenticated endpoint is refused by size, unparsed.
#[tokio::test]
async fn a_parameter_flood_to_fetch_api_key_is_refused_unparsed() {
    let srv = TestServer::start().await;
    let flood: String = (0..80_000).map(|i| format!("p{i}=&")).collect();
    assert!(flood.len() > 600_000);
    let req = raw(Method::POST, "/api/v1/fetch_api_key")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body(flood))
        .unwrap();
    srv.send(req).await.assert_error(413, "BAD_REQUEST");
}

// Item 1: more parameters than `max_params` are refused, and nothing changes.
#[tokio::test]
async fn too_many_parameters_are_refused_and_change_nothing() {
    let srv = TestServer::start().await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    let mut form = String::from("status_text=busy");
    for i in 0..1000 {
        form.push_str(&format!("&p{i}=1"));
    }
    let req = raw(Method::POST, "/api/v1/users/me/status")
        .header("authorization", basic(&me.email, &me.api_key))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body(form))
        .unwrap();
    let r = srv.send(req).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Too many parameters (at most 1000 are accepted)"
    );
    let r = srv
        .get(&format!("/api/v1/users/{}/status", me.id), &me, &[])
        .await;
    assert_eq!(r.body["status"], json!({}));
}

// Item 4: a request head dribbled a line at a time is cut off at the header timeout.
#[tokio::test]
async fn a_slowly_sent_request_head_is_cut_off() {
    let srv = TestServer::start_with(|c| c.limits.header_timeout = Duration::from_secs(1)).await;
    let mut s = TcpStream::connect(srv.addr).await.unwrap();
    s.write_all(b"GET /api/v1/server_settings HTTP/1.1\r\nhost: x\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let mut closed = false;
    while started.elapsed() < Duration::from_secs(6) {
        // Real time: a slow client trickles its header lines in.
        tokio::time::sleep(Duration::from_millis(250)).await;
        if s.write_all(b"x-slow: 1\r\n").await.is_err() {
            closed = true;
            break;
        }
        let mut buf = [0u8; 64];
        if let Ok(Ok(0) | Err(_)) =
            tokio::time::timeout(Duration::from_millis(1), s.read(&mut buf)).await
        {
            closed = true;
            break;
        }
    }
    assert!(closed, "the server kept a dribbling head open for 6 s");
    assert!(started.elapsed() < Duration::from_secs(4));
}

// Item 4: an idle keep-alive connection is closed, not held for minutes.
#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    let srv = TestServer::start_with(|c| c.limits.header_timeout = Duration::from_secs(1)).await;
    let mut s = TcpStream::connect(srv.addr).await.unwrap();
    s.write_all(b"GET /api/v1/server_settings HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    let head = read_response(&mut s, Duration::from_secs(5)).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    // Now idle: the server closes the connection soon after the timeout.
    let rest = read_until_closed(&mut s, Duration::from_secs(4)).await;
    assert_eq!(rest, Some(Vec::new()), "the idle connection stayed open");
}

// Item 4: a body that stops arriving gets 408 in Zulip's format after the body timeout.
#[tokio::test]
async fn a_stalled_body_times_out_with_408() {
    let srv = TestServer::start_with(|c| c.limits.body_timeout = Duration::from_secs(1)).await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    let mut s = TcpStream::connect(srv.addr).await.unwrap();
    let head = format!(
        "POST /api/v1/users/me/status HTTP/1.1\r\nhost: x\r\nauthorization: {}\r\n\
         content-type: application/x-www-form-urlencoded\r\ncontent-length: 1000\r\n\r\n\
         status_te",
        basic(&me.email, &me.api_key)
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let answer = read_response(&mut s, Duration::from_secs(4))
        .await
        .expect("an answer within the body timeout");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#""code":"BAD_REQUEST""#), "{answer}");
    assert!(answer.contains("did not arrive in time"), "{answer}");
}

// Item 4: without credentials, a request with a huge declared body is answered at once; its
// body is never read or buffered.
#[tokio::test]
async fn unauthenticated_requests_are_answered_before_their_body() {
    let dt = Dt::start().await;
    for (addr, path, status) in [
        (dt.server.addr, "/api/v1/messages", "401"),
        (dt.server.dt_addr.unwrap(), "/api/v1/bom", "401"),
    ] {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "PUT {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
             content-length: 24000000\r\n\r\n{{\"bom\":\""
        );
        let head = head.replace("PUT /api/v1/messages", "POST /api/v1/messages");
        s.write_all(head.as_bytes()).await.unwrap();
        let answer = read_response(&mut s, Duration::from_secs(3))
            .await
            .unwrap_or_else(|| panic!("{path}: no answer before the body"));
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{path}: {answer}"
        );
    }
}

// Item 4: ordinary requests carry small bodies; uploads (BOMs) keep the large limit.
#[tokio::test]
async fn ordinary_bodies_are_small_and_bom_uploads_large() {
    let dt = Dt::start().await;
    let me = dt
        .server
        .user("a@example.com", "Alice A", Role::Member)
        .await;
    let big = format!("status_text={}", "x".repeat(2 * 1024 * 1024));
    let req = raw(Method::POST, "/api/v1/users/me/status")
        .header("authorization", basic(&me.email, &me.api_key))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body(big))
        .unwrap();
    dt.server.send(req).await.assert_error(413, "BAD_REQUEST");

    let key = dt.key("CI", &[Permission::PortfolioManagement]).await;
    let huge_name = "x".repeat(2 * 1024 * 1024);
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/project",
            &key,
            &json!({"name": huge_name}),
        )
        .await;
    assert_eq!(r.status, 413);
    let uploader = dt.key("Up", &[Permission::BomUpload]).await;
    let bom = format!(
        "{{\"projectName\":\"p\",\"projectVersion\":\"1\",\"bom\":\"{}\"}}",
        "A".repeat(2 * 1024 * 1024)
    );
    let r = dt
        .req(
            Method::PUT,
            "/api/v1/bom",
            &[
                ("X-Api-Key", &uploader.key),
                ("content-type", "application/json"),
            ],
            bom,
        )
        .await;
    assert_ne!(r.status, 413, "a 2 MiB BOM is within the upload limit");
}

// Item 4: connections over the cap get a clear 503; a freed slot is usable again.
#[tokio::test]
async fn connections_over_the_cap_are_refused_with_503() {
    let srv = TestServer::start_with(|c| c.limits.max_connections = 3).await;
    let request = b"GET /api/v1/server_settings HTTP/1.1\r\nhost: x\r\n\r\n";
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut s = TcpStream::connect(srv.addr).await.unwrap();
        s.write_all(request).await.unwrap();
        let head = read_response(&mut s, Duration::from_secs(5)).await.unwrap();
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        held.push(s);
    }
    let mut extra = TcpStream::connect(srv.addr).await.unwrap();
    let refused = read_until_closed(&mut extra, Duration::from_secs(5))
        .await
        .expect("the refused connection is closed");
    let refused = String::from_utf8_lossy(&refused);
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(refused.contains("too many connections"), "{refused}");
    drop(held.pop());
    // The freed slot is taken back as soon as the server sees the close.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut s = TcpStream::connect(srv.addr).await.unwrap();
        let _ = s.write_all(request).await;
        let head = read_response(&mut s, Duration::from_secs(2))
            .await
            .unwrap_or_default();
        if head.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(Instant::now() < deadline, "the freed slot was never reused");
        // The freed connection slot is released asynchronously: retry shortly.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// Item 9: the data directory, the database and its WAL, and backups are owner-only.
#[tokio::test]
async fn data_files_are_readable_by_their_owner_only() {
    let srv = TestServer::start().await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    srv.post(
        "/api/v1/users/me/status",
        &me,
        &[("status_text", "writing")],
    )
    .await
    .assert_success("POST /users/me/status");
    let data = srv.dir.path().join("data");
    let mode = |p: &std::path::Path| {
        std::fs::metadata(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(&data), 0o700);
    for name in [
        "outpost.sqlite3",
        "outpost.sqlite3-wal",
        "outpost.sqlite3-shm",
    ] {
        assert_eq!(mode(&data.join(name)), 0o600, "{name}");
    }
    let backup = srv.dir.path().join("backup.sqlite3");
    srv.state.db.backup_to(backup.clone()).await.unwrap();
    assert_eq!(mode(&backup), 0o600);
}

// Item 11: an API key in a request path never reaches the log, even at debug level.
#[tokio::test(flavor = "current_thread")]
async fn api_keys_in_paths_are_not_logged() {
    let logs = Captured::default();
    let _guard = logs.install();
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &[Permission::AccessManagement]).await;
    let victim = dt.key("Victim", &[Permission::ViewPortfolio]).await;
    let r = dt
        .req(
            Method::DELETE,
            &format!("/api/v1/team/key/{}", victim.key),
            &[("X-Api-Key", &admin.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 204, "{:?}", r.raw);
    let text = logs.text();
    assert!(text.contains("/api/v1/team/key/***"), "{text}");
    assert!(!text.contains(&victim.key), "the key was logged");
    let secret = victim.key.rsplit('_').next().unwrap();
    assert!(!text.contains(secret), "the key's secret was logged");
}

// Item 12: a Dependency-Track body without its declared media type is refused, not parsed.
#[tokio::test]
async fn dependency_track_bodies_need_their_media_type() {
    let dt = Dt::start().await;
    let key = dt
        .key(
            "CI",
            &[Permission::PortfolioManagement, Permission::ViewPortfolio],
        )
        .await;
    let r = dt
        .req(
            Method::PUT,
            "/api/v1/project",
            &[("X-Api-Key", &key.key)],
            json!({"name": "sneaky"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 415);
    let r = dt.get("/api/v1/project", &key).await;
    assert_eq!(r.body, json!([]));
}

// Item 16: a client that aborts mid-body is a debug line, not an error.
#[tokio::test(flavor = "current_thread")]
async fn a_client_aborting_mid_body_is_not_logged_as_an_error() {
    let logs = Captured::default();
    let _guard = logs.install();
    let srv = TestServer::start().await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    let mut s = TcpStream::connect(srv.addr).await.unwrap();
    let head = format!(
        "POST /api/v1/users/me/status HTTP/1.1\r\nhost: x\r\nauthorization: {}\r\n\
         content-type: application/x-www-form-urlencoded\r\ncontent-length: 1000\r\n\r\nstatus",
        basic(&me.email, &me.api_key)
    );
    s.write_all(head.as_bytes()).await.unwrap();
    // Real time: the server must be reading the body when the client goes away.
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(s);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !logs.text().contains("request body broke off") {
        assert!(Instant::now() < deadline, "{}", logs.text());
        // The log line comes from the server task: look again shortly.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let text = logs.text();
    assert!(!text.contains("ERROR"), "{text}");
    assert_eq!(text.matches("request body broke off").count(), 1, "{text}");
}

// Item 18: development mode is refused on a non-loopback address (nothing is bound or
// created), and announced with a warning on loopback.
#[tokio::test(flavor = "current_thread")]
async fn development_mode_is_refused_off_loopback_and_announced_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = outpost::config::Config {
        data_dir: dir.path().join("data"),
        ..Default::default()
    };
    cfg.chat.development = true;
    cfg.chat.listen = "0.0.0.0:0".parse().unwrap();
    let err = match outpost::app::start(cfg, std::future::pending()).await {
        Err(e) => e,
        Ok(_) => panic!("development mode started on 0.0.0.0"),
    };
    assert!(err.msg.contains("allow_remote_development"), "{}", err.msg);
    assert!(!dir.path().join("data").exists());

    let logs = Captured::default();
    let _guard = logs.install();
    let srv = TestServer::start_with(|c| c.chat.development = true).await;
    assert!(
        logs.text().contains("development mode is on"),
        "{}",
        logs.text()
    );
    drop(srv);
    let _ = std::io::stderr().flush();
}

// Item 4: large uploads held in memory at once are bounded: over the slots, a clear 503.
#[tokio::test]
async fn uploads_over_the_slots_are_refused_with_503() {
    let dt = Dt::start_with(|c| c.limits.max_concurrent_uploads = 1).await;
    let uploader = dt.key("Up", &[Permission::BomUpload]).await;
    let addr = dt.server.dt_addr.unwrap();
    let head = format!(
        "PUT /api/v1/bom HTTP/1.1\r\nhost: x\r\nx-api-key: {}\r\n\
         content-type: application/json\r\ncontent-length: 5000000\r\n\r\n{{\"bom\":\"",
        uploader.key
    );
    // The first upload holds the only slot while its body trickles in.
    let mut first = TcpStream::connect(addr).await.unwrap();
    first.write_all(head.as_bytes()).await.unwrap();
    first.write_all(&[b'A'; 64 * 1024]).await.unwrap();
    // Real time: the first upload must hold the slot before the second one asks.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut second = TcpStream::connect(addr).await.unwrap();
    second.write_all(head.as_bytes()).await.unwrap();
    let answer = read_response(&mut second, Duration::from_secs(3))
        .await
        .expect("the second upload is answered at once");
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after: 5"),
        "{answer}"
    );
    // Once the first upload is gone, the slot serves the next one.
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let r = dt
            .req(
                Method::PUT,
                "/api/v1/bom",
                &[
                    ("X-Api-Key", &uploader.key),
                    ("content-type", "application/json"),
                ],
                r#"{"projectName":"p","projectVersion":"1","autoCreate":true,"bom":"e30="}"#,
            )
            .await;
        if r.status != 503 {
            break;
        }
        assert!(Instant::now() < deadline, "the upload slot was never freed");
        // The upload slot is freed asynchronously: retry shortly.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
