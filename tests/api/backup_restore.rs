//! `outpost backup` under write load and `outpost restore`: the copy passes SQLite's integrity
//! check and holds every message acknowledged before the backup began and the uploaded files
//! it names; restore refuses a running server, a damaged file, a foreign database and a newer
//! schema without changing anything, and the restored data serves.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use serde_json::Value;

use crate::support::{Org, TestServer, TestUser, basic, org};
use crate::uploads::{download, upload_ok};
use outpost::model::Role;

const BIN: &str = env!("CARGO_BIN_EXE_outpost");

/// A config file in `dir` for the data directory `data_dir` (shared with the other backup tests).
pub(crate) fn write_config(dir: &Path, data_dir: &Path) -> PathBuf {
    let path = dir.join("outpost.toml");
    std::fs::write(
        &path,
        format!(
            "data_dir = {:?}\n[database]\nsynchronous = \"normal\"\n",
            data_dir.display().to_string()
        ),
    )
    .unwrap();
    path
}

/// Runs the executable; returns (success, stdout, stderr).
fn outpost(args: &[&std::ffi::OsStr]) -> (bool, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `outpost backup --config CFG --to TO`, which must succeed.
pub(crate) fn backup(cfg: &Path, to: &Path) {
    let (ok, _, err) = outpost(&[
        "backup".as_ref(),
        "--config".as_ref(),
        cfg.as_ref(),
        "--to".as_ref(),
        to.as_ref(),
    ]);
    assert!(ok, "{err}");
}

/// `outpost restore --config CFG --from FROM`: (success, stdout, stderr).
pub(crate) fn restore(cfg: &Path, from: &Path) -> (bool, String, String) {
    outpost(&[
        "restore".as_ref(),
        "--config".as_ref(),
        cfg.as_ref(),
        "--from".as_ref(),
        from.as_ref(),
    ])
}

/// Sends a channel message over its own connection; its id once acknowledged.
async fn send(addr: std::net::SocketAddr, who: &TestUser, content: &str) -> i64 {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<Bytes>>();
    let form: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("type", "stream"),
            ("to", "general"),
            ("topic", "load"),
            ("content", content),
        ])
        .finish();
    let req = hyper::Request::post(format!("http://{addr}/api/v1/messages"))
        .header("authorization", basic(&who.email, &who.api_key))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Full::new(Bytes::from(form)))
        .unwrap();
    let res = client.request(req).await.unwrap();
    let b = res.into_body().collect().await.unwrap().to_bytes();
    let v: Value = serde_json::from_slice(&b).unwrap();
    v["id"].as_i64().unwrap_or_else(|| panic!("not sent: {v}"))
}

fn message_ids(db: &Path) -> Vec<i64> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut st = c.prepare("SELECT id FROM messages").unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_under_write_load_restores_everything_acknowledged_before_it() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let url = upload_ok(&o.srv, &o.alice, "plan.txt", b"the plan").await;
    let linked = o
        .send_channel(&o.alice, "general", "files", &format!("[plan]({url})"))
        .await;
    let Org {
        srv, alice, bob, ..
    } = o;
    let data_dir = srv.state.config.data_dir.clone();
    let cfg = write_config(srv.dir.path(), &data_dir);

    // Two clients write without pause until the backup is done.
    let acked: Arc<Mutex<Vec<i64>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for who in [alice.clone(), bob.clone()] {
        let (acked, stop, addr) = (Arc::clone(&acked), Arc::clone(&stop), srv.addr);
        writers.push(tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                let id = send(addr, &who, &format!("{} {i}", who.email)).await;
                acked.lock().unwrap().push(id);
                i += 1;
            }
        }));
    }
    while acked.lock().unwrap().len() < 40 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let before: Vec<i64> = acked.lock().unwrap().clone();
    let copy = srv.dir.path().join("backup.sqlite3");
    let (c, d) = (cfg.clone(), copy.clone());
    tokio::task::spawn_blocking(move || backup(&c, &d))
        .await
        .unwrap();
    let during = acked.lock().unwrap().len() - before.len();
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.await.unwrap();
    }
    assert!(during > 0, "the writers kept writing while the backup ran");
    let after = send(srv.addr, &alice, "after the backup").await;

    // The copy on its own: intact, with everything acknowledged before it began.
    let check: String = rusqlite::Connection::open(&copy)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let in_copy = message_ids(&copy);
    for id in before.iter().chain([&linked]) {
        assert!(
            in_copy.contains(id),
            "message {id} acknowledged before the backup is missing"
        );
    }
    assert!(!in_copy.contains(&after));

    // Restore it over the live data (stopped), then serve it.
    let stopped = srv.stop_gracefully().await;
    let (ok, out, err) = restore(&cfg, &copy);
    assert!(ok, "{err}");
    assert!(out.contains("restored 1 uploaded files"), "{out}");
    assert!(data_dir.join("outpost.sqlite3.pre-restore").exists());
    assert!(
        !data_dir.join("outpost.sqlite3-wal").exists() || {
            std::fs::metadata(data_dir.join("outpost.sqlite3-wal"))
                .unwrap()
                .len()
                == 0
        }
    );
    let srv = stopped.start().await;
    let r = srv
        .get(&format!("/api/v1/messages/{linked}"), &bob, &[])
        .await;
    r.assert_success("GET /messages/{message_id}");
    let last = *before.last().unwrap();
    let r = srv
        .get(&format!("/api/v1/messages/{last}"), &bob, &[])
        .await;
    r.assert_success("GET /messages/{message_id}");
    let r = srv
        .get(&format!("/api/v1/messages/{after}"), &bob, &[])
        .await;
    r.assert_error(400, "BAD_REQUEST");
    let file = download(&srv, Some(&bob), &url, None).await;
    assert_eq!(file.status, 200);
    assert_eq!(&file.raw[..], b"the plan");
    let restored = srv.state.config.data_dir.join("outpost.sqlite3");
    for id in &before {
        assert!(message_ids(&restored).contains(id));
    }
}

#[tokio::test]
async fn restore_refuses_a_running_server_and_bad_backups_without_changing_anything() {
    let srv = TestServer::start().await;
    let me = srv.user("a@example.com", "Alice A", Role::Owner).await;
    let data_dir = srv.state.config.data_dir.clone();
    let cfg = write_config(srv.dir.path(), &data_dir);
    let good = srv.dir.path().join("good.sqlite3");
    backup(&cfg, &good);

    let (ok, _, err) = restore(&cfg, &good);
    assert!(!ok);
    assert!(err.contains("server is running"), "{err}");

    let stopped = srv.stop_gracefully().await;
    let bad = stopped.dir.path().join("bad.sqlite3");
    std::fs::write(&bad, vec![7u8; 8192]).unwrap();
    let (ok, _, err) = restore(&cfg, &bad);
    assert!(!ok && err.contains("not a database"), "{err}");

    let foreign = stopped.dir.path().join("foreign.sqlite3");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE t (x); PRAGMA user_version = 3;")
        .unwrap();
    let (ok, _, err) = restore(&cfg, &foreign);
    assert!(!ok && err.contains("not an Outpost database"), "{err}");

    let newer = stopped.dir.path().join("newer.sqlite3");
    std::fs::copy(&good, &newer).unwrap();
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch("PRAGMA user_version = 999;")
        .unwrap();
    let (ok, _, err) = restore(&cfg, &newer);
    assert!(!ok && err.contains("schema version 999"), "{err}");

    let (ok, _, err) = restore(&cfg, &stopped.dir.path().join("missing.sqlite3"));
    assert!(!ok && err.contains("no backup file"), "{err}");

    // Nothing was touched: the server starts on its own data, nothing set aside.
    assert!(!data_dir.join("outpost.sqlite3.pre-restore").exists());
    assert!(!data_dir.join("outpost.sqlite3.restoring").exists());
    let srv = stopped.start().await;
    srv.get("/api/v1/users/me", &me, &[])
        .await
        .assert_success("GET /users/me");

    // Into an empty data directory (a new machine): the backup is all there is.
    let fresh = tempfile::tempdir().unwrap();
    let fresh_data = fresh.path().join("data");
    let fresh_cfg = write_config(fresh.path(), &fresh_data);
    let (ok, out, err) = restore(&fresh_cfg, &good);
    assert!(ok, "{err}");
    assert!(out.contains("schema version"), "{out}");
    let email: String = rusqlite::Connection::open(fresh_data.join("outpost.sqlite3"))
        .unwrap()
        .query_row(
            "SELECT email FROM users WHERE email = 'a@example.com'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(email, "a@example.com");
}

#[tokio::test]
async fn a_second_server_on_the_same_data_directory_is_refused() {
    let srv = TestServer::start().await;
    let config = srv.state.config.clone();
    let err = match outpost::app::start(config.clone(), std::future::pending()).await {
        Ok(_) => panic!("two servers on one data directory"),
        Err(e) => e.msg.to_string(),
    };
    assert!(err.contains("server is running"), "{err}");
    // Once the first has stopped, the directory is free again.
    let stopped = srv.stop_gracefully().await;
    let again = stopped.start().await;
    assert_eq!(again.state.config.data_dir, config.data_dir);
}
