//! Fetching OSV exports (and the EPSS feed) through a proxy and across redirects: the
//! scheduled fetch goes through the proxy the server's environment names (a stand-in proxy
//! here, speaking both forms a client may use: `CONNECT host:port` and absolute-form
//! `GET http://host/path`), with the proxy's credentials as `Proxy-Authorization`; a `301` to
//! another path is followed through the proxy too; a `no_proxy` host is fetched directly, also when a redirect leads to it (the
//! proxy is chosen per hop); a redirect loop and a refusing proxy are reported.
//!
//! The proxy environment is the server's (`Config::proxy`), never the test process's own.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use outpost::config::ProxyEnv;

use crate::dtrack_osv::zipped;
use crate::support::dtrack::{Dt, all};

/// What the stand-in OSV server answers for a path.
#[derive(Clone)]
enum Answer {
    Body(Vec<u8>),
    Redirect(u16, String),
}

type Paths = Arc<Mutex<HashMap<String, Answer>>>;
type Seen = Arc<Mutex<Vec<String>>>;

/// Reads a request head (up to the blank line, at most 64 KiB); `None` when the peer closed
/// first. Returns the head and whatever was read past it.
async fn read_head(sock: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(i) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = got.split_off(i + 4);
            return Some((String::from_utf8_lossy(&got).to_string(), rest));
        }
        if got.len() > 65_536 {
            return None;
        }
        match sock.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// A stand-in OSV server on 127.0.0.1: each request's path is recorded in `seen`, then
/// answered from `paths` (404 for the rest), one request per connection.
async fn osv_server(paths: Paths, seen: Seen) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let (paths, seen) = (paths.clone(), seen.clone());
            tokio::spawn(async move {
                let Some((head, _)) = read_head(&mut sock).await else {
                    return;
                };
                let path = head.split(' ').nth(1).unwrap_or("").to_string();
                seen.lock().unwrap().push(path.clone());
                let answer = paths.lock().unwrap().get(&path).cloned();
                let reply = match answer {
                    Some(Answer::Body(body)) => {
                        let mut r = format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        )
                        .into_bytes();
                        r.extend(body);
                        r
                    }
                    Some(Answer::Redirect(status, location)) => format!(
                        "HTTP/1.1 {status} Moved\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    )
                    .into_bytes(),
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

/// A stand-in forward proxy on 127.0.0.1 that records each request's first line and its
/// `Proxy-Authorization` value in `seen`, and relays `CONNECT host:port` (a tunnel after
/// `200`) and absolute-form requests (`GET http://host:port/path`, forwarded in origin form).
async fn proxy_server(seen: Seen) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let Some((head, rest)) = read_head(&mut client).await else {
                    return;
                };
                let mut lines = head.split("\r\n");
                let first = lines.next().unwrap_or("").to_string();
                let auth = lines
                    .filter_map(|l| l.split_once(':'))
                    .find(|(k, _)| k.eq_ignore_ascii_case("proxy-authorization"))
                    .map(|(_, v)| v.trim().to_string());
                seen.lock()
                    .unwrap()
                    .push(format!("{first} | {}", auth.unwrap_or_default()));
                let mut parts = first.split(' ');
                let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
                if method == "CONNECT" {
                    let Ok(mut upstream) = TcpStream::connect(target).await else {
                        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
                        return;
                    };
                    let _ = client
                        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                        .await;
                    let _ = upstream.write_all(&rest).await;
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                    return;
                }
                // Absolute form: `GET http://host:port/path HTTP/1.1`.
                let Some(after) = target.strip_prefix("http://") else {
                    let _ = client.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").await;
                    return;
                };
                let (authority, path) = after.split_at(after.find('/').unwrap_or(after.len()));
                let Ok(mut upstream) = TcpStream::connect(authority).await else {
                    let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
                    return;
                };
                let path = if path.is_empty() { "/" } else { path };
                let forwarded = head.replacen(target, path, 1);
                let _ = upstream.write_all(forwarded.as_bytes()).await;
                let _ = upstream.write_all(&rest).await;
                let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            });
        }
    });
    addr
}

fn proxy_env(vars: &[(&str, String)]) -> ProxyEnv {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    ProxyEnv::from_lookup(|name| vars.get(name).cloned())
}

/// Waits (bounded) until the server lists `n` vulnerabilities; the count last seen.
async fn wait_for_vulnerabilities(dt: &Dt, n: &str) -> String {
    let k = dt.key("Admins", &all()).await;
    let mut total = String::new();
    for _ in 0..1000 {
        let r = dt.get("/api/v1/vulnerability", &k).await;
        total = r.headers["x-total-count"].to_str().unwrap().to_string();
        if total == n {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    total
}

#[tokio::test]
async fn exports_are_fetched_through_the_proxy_and_redirects_are_followed() {
    let (paths, osv_seen, proxy_seen) = (Paths::default(), Seen::default(), Seen::default());
    paths.lock().unwrap().insert(
        "/npm/all.zip".into(),
        Answer::Redirect(301, "/mirror/npm/all.zip".into()),
    );
    paths
        .lock()
        .unwrap()
        .insert("/mirror/npm/all.zip".into(), Answer::Body(zipped("npm")));
    let osv = osv_server(paths, osv_seen.clone()).await;
    let proxy = proxy_server(proxy_seen.clone()).await;
    // Only lowercase http_proxy counts for http:// URLs; the uppercase one (wrong port) and
    // the https one are not used.
    let env = proxy_env(&[
        ("http_proxy", format!("http://fetcher:s3cret@{proxy}")),
        ("HTTP_PROXY", "http://127.0.0.1:9".into()),
        ("https_proxy", "http://127.0.0.1:9".into()),
    ]);
    let dt = Dt::start_with(|c| {
        c.dtrack.osv_base_url = format!("http://{osv}");
        c.dtrack.osv_ecosystems = "npm".into();
        c.proxy = env;
    })
    .await;
    // npm's three records arrived.
    assert_eq!(wait_for_vulnerabilities(&dt, "3").await, "3");
    let k = dt.key("Readers", &all()).await;
    let r = dt
        .get(
            "/api/v1/vulnerability/source/GITHUB/vuln/GHSA-acme-0001-npm1",
            &k,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    // The server saw the first path and the redirect's.
    assert_eq!(
        *osv_seen.lock().unwrap(),
        vec![
            "/npm/all.zip".to_string(),
            "/mirror/npm/all.zip".to_string()
        ]
    );
    // Both hops went through the proxy, with its credentials (`fetcher:s3cret`).
    let seen = proxy_seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    for line in &seen {
        let to_osv = line.starts_with(&format!("CONNECT {osv} "))
            || line.starts_with(&format!("GET http://{osv}/"));
        assert!(to_osv, "{line}");
        assert!(line.ends_with("| Basic ZmV0Y2hlcjpzM2NyZXQ="), "{line}");
    }
}

#[tokio::test]
async fn no_proxy_hosts_are_fetched_directly() {
    let (paths, osv_seen, proxy_seen) = (Paths::default(), Seen::default(), Seen::default());
    paths
        .lock()
        .unwrap()
        .insert("/npm/all.zip".into(), Answer::Body(zipped("npm")));
    let osv = osv_server(paths, osv_seen.clone()).await;
    let proxy = proxy_server(proxy_seen.clone()).await;
    let env = proxy_env(&[
        ("http_proxy", format!("http://{proxy}")),
        ("NO_PROXY", format!("example.com, {}", osv)),
    ]);
    let dt = Dt::start_with(|c| {
        c.dtrack.osv_base_url = format!("http://{osv}");
        c.dtrack.osv_ecosystems = "npm".into();
        c.proxy = env;
    })
    .await;
    assert_eq!(wait_for_vulnerabilities(&dt, "3").await, "3");
    assert_eq!(*osv_seen.lock().unwrap(), vec!["/npm/all.zip".to_string()]);
    assert!(proxy_seen.lock().unwrap().is_empty());
}

/// The proxy is chosen again for each hop: the first through the proxy, the redirect's to a
/// `no_proxy` host:port directly.
#[tokio::test]
async fn each_redirect_hop_chooses_its_proxy() {
    let (mirror_paths, mirror_seen) = (Paths::default(), Seen::default());
    mirror_paths
        .lock()
        .unwrap()
        .insert("/npm/all.zip".into(), Answer::Body(zipped("npm")));
    let mirror = osv_server(mirror_paths, mirror_seen.clone()).await;
    let (paths, osv_seen, proxy_seen) = (Paths::default(), Seen::default(), Seen::default());
    paths.lock().unwrap().insert(
        "/npm/all.zip".into(),
        Answer::Redirect(308, format!("http://{mirror}/npm/all.zip")),
    );
    let osv = osv_server(paths, osv_seen.clone()).await;
    let proxy = proxy_server(proxy_seen.clone()).await;
    let env = proxy_env(&[
        ("http_proxy", format!("http://{proxy}")),
        ("no_proxy", format!("127.0.0.1:{}", mirror.port())),
    ]);
    let dt = Dt::start_with(|c| {
        c.dtrack.osv_base_url = format!("http://{osv}");
        c.dtrack.osv_ecosystems = "npm".into();
        c.proxy = env;
    })
    .await;
    assert_eq!(wait_for_vulnerabilities(&dt, "3").await, "3");
    assert_eq!(*osv_seen.lock().unwrap(), vec!["/npm/all.zip".to_string()]);
    assert_eq!(
        *mirror_seen.lock().unwrap(),
        vec!["/npm/all.zip".to_string()]
    );
    let seen = proxy_seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].starts_with(&format!("CONNECT {osv} "))
            || seen[0].starts_with(&format!("GET http://{osv}/")),
        "{seen:?}"
    );
}

#[tokio::test]
async fn redirect_loops_and_refusing_proxies_are_reported() {
    use outpost::domain::dtrack::osv::fetch::sync_ecosystem;
    let (paths, osv_seen) = (Paths::default(), Seen::default());
    paths.lock().unwrap().insert(
        "/npm/all.zip".into(),
        Answer::Redirect(302, "/again/all.zip".into()),
    );
    let osv = osv_server(paths.clone(), osv_seen.clone()).await;
    paths.lock().unwrap().insert(
        "/again/all.zip".into(),
        Answer::Redirect(307, format!("http://{osv}/npm/all.zip")),
    );
    // A proxy that refuses every request (407), named in the environment for https only.
    let refusing = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let refusing_addr = refusing.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = refusing.accept().await {
            let _ = read_head(&mut sock).await;
            let _ = sock
                .write_all(
                    b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n",
                )
                .await;
        }
    });
    let env = proxy_env(&[("https_proxy", format!("http://who:hunter2@{refusing_addr}"))]);
    let dt = Dt::start_with(|c| c.proxy = env).await;
    let base = format!("http://{osv}");
    let err = sync_ecosystem(&dt.server.state, &base, "npm")
        .await
        .unwrap_err();
    assert!(err.contains(&format!("GET {base}/npm/all.zip")), "{err}");
    assert!(err.contains("redirect 1"), "{err}");
    assert!(err.contains("loop"), "{err}");
    // Nothing was imported and no temporary file is left.
    let k = dt.key("Admins", &all()).await;
    let r = dt.get("/api/v1/vulnerability", &k).await;
    assert_eq!(r.headers["x-total-count"], "0");
    let left: Vec<_> = std::fs::read_dir(dt.server.state.config.data_dir.join("osv"))
        .unwrap()
        .collect();
    assert!(left.is_empty());
    // Through the refusing proxy (https:// URLs use it): the error names the proxy by host,
    // never with its credentials.
    let err = sync_ecosystem(&dt.server.state, "https://osv.invalid", "npm")
        .await
        .unwrap_err();
    assert!(
        err.contains(&format!(
            "via proxy http://{refusing_addr} from https_proxy"
        )),
        "{err}"
    );
    assert!(err.contains("407"), "{err}");
    assert!(!err.contains("hunter2") && !err.contains("who:"), "{err}");
}

#[tokio::test]
async fn epss_scores_are_fetched_daily_through_the_proxy() {
    use std::io::Write as _;
    let csv = "#model_version:v2025.03.14,score_date:2025-03-14T00:00:00+0000\n\
               cve,epss,percentile\nCVE-2099-5555,0.91234,0.99876\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(csv.as_bytes()).unwrap();
    let (paths, osv_seen, proxy_seen) = (Paths::default(), Seen::default(), Seen::default());
    paths.lock().unwrap().insert(
        "/epss_scores-current.csv.gz".into(),
        Answer::Redirect(302, "/2025-03-14/epss_scores.csv.gz".into()),
    );
    paths.lock().unwrap().insert(
        "/2025-03-14/epss_scores.csv.gz".into(),
        Answer::Body(gz.finish().unwrap()),
    );
    let feed = osv_server(paths, osv_seen.clone()).await;
    let proxy = proxy_server(proxy_seen.clone()).await;
    let env = proxy_env(&[("http_proxy", format!("http://{proxy}"))]);
    let dt = Dt::start_with(|c| {
        c.dtrack.epss_url = format!("http://{feed}/epss_scores-current.csv.gz");
        c.proxy = env;
    })
    .await;
    // A finding of CVE-2099-5555 shows the fetched score.
    let k = dt.key("Admins", &all()).await;
    let p = dt
        .project(&k, serde_json::json!({"name": "scored", "version": "1"}))
        .await;
    let project = p["uuid"].as_str().unwrap().to_string();
    let component = dt.component(&k, &project, "lib").await;
    let vuln = dt.vulnerability(&k, "CVE-2099-5555", "HIGH").await;
    let r = dt
        .req(
            hyper::Method::POST,
            &format!("/api/v1/vulnerability/{vuln}/component/{component}"),
            &[("X-Api-Key", &k.key)],
            "",
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.raw);
    let mut shown = serde_json::Value::Null;
    for _ in 0..1000 {
        let r = dt
            .get(&format!("/api/v1/finding/project/{project}"), &k)
            .await;
        shown = r.body[0]["vulnerability"]["epssScore"].clone();
        if !shown.is_null() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(shown, serde_json::json!(0.91234));
    assert_eq!(
        *osv_seen.lock().unwrap(),
        vec![
            "/epss_scores-current.csv.gz".to_string(),
            "/2025-03-14/epss_scores.csv.gz".to_string()
        ]
    );
    assert_eq!(proxy_seen.lock().unwrap().len(), 2);
    // The download was temporary.
    let dir = dt.server.state.config.data_dir.join("epss");
    let mut left = Vec::new();
    for _ in 0..500 {
        left = std::fs::read_dir(&dir).unwrap().collect::<Vec<_>>();
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(left.is_empty(), "{left:?}");
}
