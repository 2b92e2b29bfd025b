//! HTTPS listeners (`[chat]`/`[dtrack]` `tls_cert` and `tls_key`): real API calls over TLS
//! with a certificate made at test time, plain HTTP refused on a TLS port, the handshake's
//! time bound and the connection cap, reloading the files (what SIGHUP does), and bad files
//! rejected when the config is read.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};

use outpost::model::Role;

use crate::support::basic;
use crate::support::dtrack::{Dt, all};

/// A test CA and a certificate for `localhost` and 127.0.0.1 it signed, as PEM files in `dir`
/// (`cert.pem` holds the chain, leaf first).
struct Pki {
    ca: CertificateDer<'static>,
    leaf: CertificateDer<'static>,
    cert: PathBuf,
    key: PathBuf,
}

fn make_pki(dir: &Path) -> Pki {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "Outpost test CA");
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf_params =
        rcgen::CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .unwrap();
    let leaf = leaf_params.signed_by(&leaf_key, &ca).unwrap();
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    std::fs::write(&cert, format!("{}{}", leaf.pem(), ca.pem())).unwrap();
    std::fs::write(&key, leaf_key.serialize_pem()).unwrap();
    Pki {
        ca: ca.der().clone(),
        leaf: leaf.der().clone(),
        cert,
        key,
    }
}

fn connector(ca: &CertificateDer<'static>) -> TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.clone()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    TlsConnector::from(Arc::new(config))
}

/// What an HTTPS request got: status, JSON body, and the certificate and ALPN protocol the
/// server presented.
struct Answer {
    status: u16,
    headers: hyper::HeaderMap,
    body: Value,
    leaf: CertificateDer<'static>,
    alpn: Option<Vec<u8>>,
}

async fn https(
    addr: SocketAddr,
    ca: &CertificateDer<'static>,
    path: &str,
    headers: &[(&str, &str)],
) -> Answer {
    try_https(addr, ca, path, headers)
        .await
        .expect("TLS handshake")
}

/// As [`https`]; a failed TLS handshake is an `Err`.
async fn try_https(
    addr: SocketAddr,
    ca: &CertificateDer<'static>,
    path: &str,
    headers: &[(&str, &str)],
) -> Result<Answer, std::io::Error> {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let tls = connector(ca).connect(name, tcp).await?;
    let (_, session) = tls.get_ref();
    let leaf = session.peer_certificates().unwrap()[0].clone();
    let alpn = session.alpn_protocol().map(|p| p.to_vec());
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut req = Request::get(path).header("host", "localhost");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = sender
        .send_request(req.body(Full::new(Bytes::new())).unwrap())
        .await
        .unwrap();
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let raw = res.into_body().collect().await.unwrap().to_bytes();
    Ok(Answer {
        status,
        headers,
        body: serde_json::from_slice(&raw).unwrap_or(Value::Null),
        leaf,
        alpn,
    })
}

async fn start_tls(dir: &Path, adjust: impl FnOnce(&mut outpost::config::Config)) -> (Dt, Pki) {
    let pki = make_pki(dir);
    let (cert, key) = (pki.cert.clone(), pki.key.clone());
    let dt = Dt::start_with(|c| {
        c.chat.tls_cert = cert.clone();
        c.chat.tls_key = key.clone();
        c.dtrack.tls_cert = cert;
        c.dtrack.tls_key = key;
        adjust(c);
    })
    .await;
    (dt, pki)
}

/// Reads what the server sends until it closes the connection (or 10 s pass).
async fn read_until_closed(tcp: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut got)).await;
    assert!(read.is_ok(), "the server kept the connection open");
    got
}

#[tokio::test]
async fn both_apis_answer_real_calls_over_https() {
    let dir = tempfile::tempdir().unwrap();
    let (dt, pki) = start_tls(dir.path(), |_| {}).await;
    let srv = &dt.server;
    let me = srv.user("tls@example.com", "Tess", Role::Member).await;
    let auth = basic(&me.email, &me.api_key);

    let a = https(
        srv.addr,
        &pki.ca,
        "/api/v1/users/me",
        &[("authorization", &auth)],
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["email"], "tls@example.com");
    assert_eq!(a.leaf, pki.leaf);
    assert_eq!(a.alpn.as_deref(), Some(&b"http/1.1"[..]));
    let bad = https(
        srv.addr,
        &pki.ca,
        "/api/v1/users/me",
        &[("authorization", "Basic eDp5")],
    )
    .await;
    assert_eq!(bad.status, 401);

    let key = dt.key("tls team", &all()).await;
    let v = https(srv.dt_addr.unwrap(), &pki.ca, "/api/version", &[]).await;
    assert_eq!(v.status, 200);
    assert!(v.body["version"].is_string(), "{}", v.body);
    let p = https(
        srv.dt_addr.unwrap(),
        &pki.ca,
        "/api/v1/project",
        &[("x-api-key", &key.key)],
    )
    .await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert_eq!(p.body, serde_json::json!([]));
}

#[tokio::test]
async fn web_cookies_are_secure_on_an_https_listener() {
    let dir = tempfile::tempdir().unwrap();
    let (dt, pki) = start_tls(dir.path(), |_| {}).await;
    let a = https(dt.server.addr, &pki.ca, "/login", &[]).await;
    assert_eq!(a.status, 200);
    let cookie = a.headers["set-cookie"].to_str().unwrap();
    assert!(cookie.starts_with("outpost_login_csrf="), "{cookie}");
    assert!(cookie.ends_with("; Secure"), "{cookie}");
}

#[tokio::test]
async fn plain_http_to_a_tls_port_is_closed_without_an_http_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (dt, pki) = start_tls(dir.path(), |_| {}).await;
    let mut tcp = TcpStream::connect(dt.server.addr).await.unwrap();
    tcp.write_all(b"GET /api/v1/server_settings HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .unwrap();
    let got = read_until_closed(&mut tcp).await;
    assert!(
        !got.starts_with(b"HTTP/"),
        "{:?}",
        String::from_utf8_lossy(&got)
    );
    // The listener keeps serving TLS clients.
    let a = https(dt.server.addr, &pki.ca, "/api/v1/server_settings", &[]).await;
    assert_eq!(a.status, 200);
    assert_eq!(a.body["result"], "success");
}

#[tokio::test]
async fn a_silent_handshake_is_timed_out_and_the_connection_cap_still_applies() {
    let dir = tempfile::tempdir().unwrap();
    let (dt, pki) = start_tls(dir.path(), |c| {
        c.limits.header_timeout = Duration::from_secs(1);
        c.limits.max_connections = 1;
    })
    .await;
    let srv = &dt.server;
    let active = || {
        srv.state
            .connections
            .load(std::sync::atomic::Ordering::Relaxed)
    };
    // A client that connects and never says hello holds the only slot...
    let mut silent = TcpStream::connect(srv.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(active(), 1);
    // ...so another connection is closed at once (not after the 1 s handshake bound),
    // without a handshake.
    let mut over = TcpStream::connect(srv.addr).await.unwrap();
    let _ = over.write_all(b"\x16\x03\x01").await;
    let refused_at = std::time::Instant::now();
    let got = read_until_closed(&mut over).await;
    assert!(got.is_empty(), "{got:?}");
    assert!(refused_at.elapsed() < Duration::from_millis(500));
    // The silent one is dropped after the header timeout and its slot is free again.
    let started = std::time::Instant::now();
    let got = read_until_closed(&mut silent).await;
    assert!(got.is_empty());
    assert!(started.elapsed() < Duration::from_secs(5));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(active(), 0);
    let a = https(srv.addr, &pki.ca, "/api/v1/server_settings", &[]).await;
    assert_eq!(a.status, 200);
}

#[tokio::test]
async fn reloading_swaps_the_certificate_and_a_bad_pair_keeps_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let (dt, first) = start_tls(dir.path(), |_| {}).await;
    let srv = &dt.server;
    let a = https(srv.addr, &first.ca, "/api/v1/server_settings", &[]).await;
    assert_eq!(a.leaf, first.leaf);

    // New files in place (as a renewal writes them), then what SIGHUP does.
    let second = make_pki(dir.path());
    assert_ne!(second.leaf, first.leaf);
    srv.tls().reload().expect("the new pair loads");
    for addr in [srv.addr, srv.dt_addr.unwrap()] {
        let path = if addr == srv.addr {
            "/api/v1/server_settings"
        } else {
            "/api/version"
        };
        let b = https(addr, &second.ca, path, &[]).await;
        assert_eq!(b.status, 200);
        assert_eq!(b.leaf, second.leaf);
    }

    // A broken key file: the reload fails and the second pair stays in use.
    std::fs::write(&second.key, "not a key\n").unwrap();
    let err = srv.tls().reload().unwrap_err();
    assert!(err.contains("key.pem"), "{err}");
    let c = https(srv.addr, &second.ca, "/api/v1/server_settings", &[]).await;
    assert_eq!(c.status, 200);
    assert_eq!(c.leaf, second.leaf);
}

#[test]
fn bad_tls_files_are_reported_with_the_other_config_problems() {
    let dir = tempfile::tempdir().unwrap();
    let good = make_pki(dir.path());
    let other_dir = tempfile::tempdir().unwrap();
    let other = make_pki(other_dir.path());
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "hello\n").unwrap();
    let missing = dir.path().join("missing.pem");
    let q = |p: &Path| serde_json::to_string(&p.display().to_string()).unwrap();

    // A pair that loads: accepted, and external_url defaults to https://.
    let cfg = outpost::config::parse(&format!(
        "[chat]\ntls_cert = {}\ntls_key = {}\n",
        q(&good.cert),
        q(&good.key)
    ))
    .unwrap();
    assert!(cfg.chat.tls().is_some());
    assert_eq!(cfg.chat.external_url, "https://127.0.0.1:9991");

    let err = outpost::config::parse(&format!(
        "[chat]\ntls_cert = {}\nrealm_name = \"\"\n[dtrack]\ntls_cert = {}\ntls_key = {}\n",
        q(&good.cert),
        q(&good.cert),
        q(&other.key),
    ))
    .unwrap_err();
    let problems = err.problems.join("\n");
    assert_eq!(err.problems.len(), 3, "{problems}");
    assert!(problems.contains("chat.realm_name"), "{problems}");
    assert!(
        problems.contains("chat.tls_cert and chat.tls_key must be given together"),
        "{problems}"
    );
    assert!(
        problems.contains("dtrack.tls_cert/tls_key") && problems.contains("does not fit"),
        "{problems}"
    );

    for (cert, key, expect) in [
        (&missing, &good.key, "missing.pem"),
        (&garbage, &good.key, "no PEM certificate"),
        (&good.cert, &garbage, "no usable PEM private key"),
    ] {
        let err = outpost::config::parse(&format!(
            "[chat]\ntls_cert = {}\ntls_key = {}\n",
            q(cert),
            q(key)
        ))
        .unwrap_err();
        assert_eq!(err.problems.len(), 1, "{err}");
        assert!(err.problems[0].contains(expect), "{err}");
    }
}

/// `outpost serve` with TLS: SIGHUP reads the files again (new connections get the new
/// certificate) and does not stop the server; SIGTERM still does.
#[tokio::test]
async fn the_executable_reloads_its_certificate_on_sighup() {
    use std::io::BufRead as _;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let first = make_pki(dir.path());
    let cfg = dir.path().join("outpost.toml");
    let q = |p: &Path| serde_json::to_string(&p.display().to_string()).unwrap();
    std::fs::write(
        &cfg,
        format!(
            "data_dir = {}\n[database]\nsynchronous = \"normal\"\n[chat]\nlisten = \"127.0.0.1:0\"\ntls_cert = {}\ntls_key = {}\n",
            q(&dir.path().join("data")),
            q(&first.cert),
            q(&first.key)
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_outpost"))
        .args(["serve", "--config"])
        .arg(&cfg)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if let Some(rest) = line.split("chat=").nth(1) {
                let _ = tx.send(rest.split_whitespace().next().unwrap_or("").to_string());
            }
        }
    });
    let addr = tokio::task::spawn_blocking(move || rx.recv_timeout(Duration::from_secs(20)))
        .await
        .unwrap();
    let Ok(addr) = addr else {
        let _ = child.kill();
        panic!("the server did not log its address");
    };
    let addr: SocketAddr = addr.parse().unwrap();
    let pid = child.id().to_string();
    let signal = |sig: &str| {
        let status = Command::new("kill")
            .args([sig, pid.as_str()])
            .status()
            .unwrap();
        assert!(status.success());
    };
    let a = https(addr, &first.ca, "/api/v1/server_settings", &[]).await;
    assert_eq!((a.status, &a.leaf), (200, &first.leaf));

    let second = make_pki(dir.path());
    signal("-HUP");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        // Until the signal is handled the old certificate is served, which the new CA does
        // not sign: that handshake fails.
        if let Ok(b) = try_https(addr, &second.ca, "/api/v1/server_settings", &[]).await {
            assert_eq!((b.status, &b.leaf), (200, &second.leaf));
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no reload after SIGHUP"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "SIGHUP stopped the server"
    );

    signal("-TERM");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(code) = child.try_wait().unwrap() {
            assert!(code.success(), "exit status {code}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "server did not stop");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
