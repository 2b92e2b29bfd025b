//! The `outpost` executable: check-config, create-user and backup against a running server,
//! and serve with graceful shutdown on SIGTERM.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use outpost::model::Role;

use crate::support::{TestServer, TestUser};

const BIN: &str = env!("CARGO_BIN_EXE_outpost");

fn write_config(dir: &Path, data_dir: &Path, extra: &str) -> std::path::PathBuf {
    let path = dir.join("outpost.toml");
    std::fs::write(
        &path,
        format!(
            "data_dir = {:?}\n[database]\nsynchronous = \"normal\"\n{extra}",
            data_dir.display().to_string()
        ),
    )
    .unwrap();
    path
}

#[test]
fn check_config_prints_effective_config_or_every_problem() {
    let out = Command::new(BIN)
        .args(["check-config", "--config", "config.example.toml"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("listen = \"127.0.0.1:9991\""), "{text}");
    assert_eq!(
        outpost::config::parse(&text).unwrap(),
        outpost::config::Config::default()
    );

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[chat]\nlisten = \"x\"\nfoo = 1\n[log]\nformat = \"xml\"\n",
    )
    .unwrap();
    let out = Command::new(BIN)
        .args(["check-config", "--config"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 2: chat.listen"), "{err}");
    assert!(err.contains("line 3: unknown key `chat.foo`"), "{err}");
    assert!(err.contains("line 5: log.format"), "{err}");
}

#[tokio::test]
async fn create_user_is_seen_by_the_running_server_at_once() {
    let srv = TestServer::start().await;
    let data_dir = srv.state.config.data_dir.clone();
    let cfg = write_config(srv.dir.path(), &data_dir, "");
    let mut child = Command::new(BIN)
        .args([
            "create-user",
            "--email",
            "boss@example.com",
            "--full-name",
            "Big Boss",
            "--role",
            "owner",
            "--password-stdin",
            "--can-create-users",
            "--json",
            "--config",
        ])
        .arg(&cfg)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"hunter2-hunter2\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["email"], "boss@example.com");
    let boss = TestUser {
        id: printed["user_id"].as_i64().unwrap(),
        email: "boss@example.com".into(),
        api_key: printed["api_key"].as_str().unwrap().into(),
    };
    let r = srv.get("/api/v1/users/me", &boss, &[]).await;
    let b = r.assert_success("GET /users/me");
    assert_eq!(b["role"], 100);
    assert_eq!(b["full_name"], "Big Boss");
    // The new owner can create users through the API right away.
    let r = srv
        .post(
            "/api/v1/users",
            &boss,
            &[
                ("email", "n@example.com"),
                ("password", "pass-word"),
                ("full_name", "New N"),
            ],
        )
        .await;
    r.assert_success("POST /users");
    // The password given on stdin works.
    let r = srv
        .call(
            hyper::Method::POST,
            "/api/v1/fetch_api_key",
            None,
            &[
                ("username", "boss@example.com"),
                ("password", "hunter2-hunter2"),
            ],
        )
        .await;
    r.assert_success("POST /fetch_api_key");

    // A duplicate is refused with a message and exit code 1.
    let out = Command::new(BIN)
        .args([
            "create-user",
            "--email",
            "BOSS@example.com",
            "--full-name",
            "Again",
            "--config",
        ])
        .arg(&cfg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Email is already in use."));
}

#[tokio::test]
async fn backup_is_a_consistent_copy_taken_while_serving() {
    let srv = TestServer::start().await;
    let me = srv.user("a@example.com", "Alice A", Role::Owner).await;
    srv.get("/api/v1/users/me", &me, &[])
        .await
        .assert_success("GET /users/me");
    let cfg = write_config(srv.dir.path(), &srv.state.config.data_dir, "");
    let dest = srv.dir.path().join("backup.sqlite3");
    let out = Command::new(BIN)
        .args(["backup", "--config"])
        .arg(&cfg)
        .arg("--to")
        .arg(&dest)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let copy = rusqlite::Connection::open(&dest).unwrap();
    let email: String = copy
        .query_row("SELECT email FROM users", [], |r| r.get(0))
        .unwrap();
    assert_eq!(email, "a@example.com");
    // An existing file is never overwritten.
    let out = Command::new(BIN)
        .args(["backup", "--config"])
        .arg(&cfg)
        .arg("--to")
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
}

#[test]
fn serve_logs_its_address_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(
        dir.path(),
        &dir.path().join("data"),
        "[chat]\nlisten = \"127.0.0.1:0\"\n",
    );
    let mut child = Command::new(BIN)
        .args(["serve", "--config"])
        .arg(&cfg)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read the log on a thread so that a server that never logs its address fails the test
    // instead of hanging it.
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("chat=").nth(1) {
                let _ = tx.send(rest.split_whitespace().next().unwrap_or("").to_string());
            }
        }
    });
    let Ok(addr) = rx.recv_timeout(Duration::from_secs(20)) else {
        let _ = child.kill();
        panic!("the server did not log its address");
    };
    assert!(is_bound_loopback_address(&addr));
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    stream
        .write_all(b"GET /api/v1/server_settings HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    std::io::Read::read_to_string(&mut stream, &mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(dir.path().join("data/outpost.sqlite3").exists());
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(code) = child.try_wait().unwrap() {
            assert!(code.success(), "exit status {code}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "server did not stop");
        // A real child process: check its exit status now and then until the deadline.
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn is_bound_loopback_address(addr: &str) -> bool {
    addr.starts_with("127.0.0.1:") && !addr.ends_with(":0")
}
