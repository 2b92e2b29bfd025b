//! The long-poll scenarios, against an `outpost serve` child process (so the server's memory
//! can be read and both sides stay within the per-process file limit):
//! - `parked`: N parked `GET /events` long-polls; reports the server's resident memory;
//! - `delivery`: N parked long-polls plus a sender; reports send-to-delivery latency.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

use super::{basic, fail};

struct ServerProcess {
    child: Child,
    addr: SocketAddr,
    dir: std::path::PathBuf,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn outpost_binary() -> std::path::PathBuf {
    let me = std::env::current_exe().unwrap_or_else(|_| fail("cannot find this executable"));
    let bin = me.with_file_name("outpost");
    if !bin.exists() {
        fail("build the outpost binary first (cargo build --release)");
    }
    bin
}

fn create_user(bin: &std::path::Path, cfg: &std::path::Path, email: &str) -> (String, i64) {
    let out = Command::new(bin)
        .args([
            "create-user",
            "--email",
            email,
            "--full-name",
            "Bench Person",
            "--json",
            "--config",
        ])
        .arg(cfg)
        .output()
        .unwrap_or_else(|e| fail(&format!("create-user: {e}")));
    if !out.status.success() {
        fail(&format!(
            "create-user: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| fail("create-user output"));
    (
        v["api_key"].as_str().unwrap_or_default().to_string(),
        v["user_id"].as_i64().unwrap_or(0),
    )
}

fn start_server(normal_sync: bool) -> (ServerProcess, (String, i64), (String, i64)) {
    let bin = outpost_binary();
    let dir = std::env::temp_dir().join(format!("outpost-bench-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| fail(&format!("temp dir: {e}")));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| fail(&format!("no free port: {e}")));
    let cfg = dir.join("outpost.toml");
    let sync = if normal_sync { "normal" } else { "full" };
    std::fs::write(
        &cfg,
        format!(
            "data_dir = {:?}\n[chat]\nlisten = \"127.0.0.1:{port}\"\n[database]\nsynchronous = \"{sync}\"\n[events]\nheartbeat_secs = 600\nheartbeat_jitter_secs = 0\n[log]\nlevel = \"warn\"\n",
            dir.join("data").display().to_string()
        ),
    )
    .unwrap_or_else(|e| fail(&format!("config: {e}")));
    let sender = create_user(&bin, &cfg, "sender@example.com");
    let watcher = create_user(&bin, &cfg, "watcher@example.com");
    let child = Command::new(&bin)
        .args(["serve", "--config"])
        .arg(&cfg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("serve: {e}")));
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("address");
    let server = ServerProcess { child, addr, dir };
    for _ in 0..200 {
        if std::net::TcpStream::connect(addr).is_ok() {
            return (server, sender, watcher);
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    drop(server);
    fail("the server did not start");
}

type Conn = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

async fn connect(addr: SocketAddr) -> Result<Conn, String> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let _ = stream.set_nodelay(true);
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    tokio::spawn(conn);
    Ok(sender)
}

async fn call(
    conn: &mut Conn,
    method: &str,
    path: &str,
    auth: &str,
    form: Option<String>,
) -> Result<Value, String> {
    let mut req = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "localhost")
        .header("authorization", auth);
    let body = match form {
        Some(f) => {
            req = req.header("content-type", "application/x-www-form-urlencoded");
            Bytes::from(f)
        }
        None => Bytes::new(),
    };
    conn.ready()
        .await
        .map_err(|e| format!("{method} {path}: {e}"))?;
    let res = conn
        .send_request(req.body(Full::new(body)).expect("request"))
        .await
        .map_err(|e| format!("{method} {path}: {e}"))?;
    let bytes = res
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .map_err(|e| format!("{method} {path}: {e}"))?;
    Ok(serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// Runs `parked` (no sends) or `delivery` (`rate` messages per second).
pub async fn run(scenario: &str, pollers: usize, seconds: u64, rate: f64, normal_sync: bool) {
    let (server, sender, watcher) = start_server(normal_sync);
    let res = drive(&server, sender, watcher, scenario, pollers, seconds, rate).await;
    // Stop the server before reporting a failure, so it never outlives the run.
    drop(server);
    if let Err(e) = res {
        fail(&e);
    }
}

async fn drive(
    server: &ServerProcess,
    (sender_key, _): (String, i64),
    (watcher_key, watcher_id): (String, i64),
    scenario: &str,
    pollers: usize,
    seconds: u64,
    rate: f64,
) -> Result<(), String> {
    let sender_auth = basic("sender@example.com", &sender_key);
    let watcher_auth = basic("watcher@example.com", &watcher_key);
    let addr = server.addr;
    let mut c = connect(addr).await?;
    let created = call(
        &mut c,
        "POST",
        "/api/v1/channels/create",
        &sender_auth,
        Some(format!("name=bench&subscribers=%5B{watcher_id}%5D")),
    )
    .await?;
    if created["result"] != "success" {
        return Err(format!("channel: {created}"));
    }
    let idle_rss = rss_kib(server.child.id());
    // Register the queues.
    let started = Instant::now();
    let mut queues = Vec::with_capacity(pollers);
    for _ in 0..pollers {
        let r = call(
            &mut c,
            "POST",
            "/api/v1/register",
            &watcher_auth,
            Some("event_types=%5B%22message%22%5D".into()),
        )
        .await?;
        match r["queue_id"].as_str() {
            Some(q) => queues.push(q.to_string()),
            None => return Err(format!("register: {r}")),
        }
    }
    eprintln!(
        "registered {pollers} queues in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    let sent: Arc<Mutex<HashMap<u64, Instant>>> = Arc::default();
    let latencies: Arc<Mutex<Vec<u32>>> = Arc::default();
    let parked = Arc::new(tokio::sync::Semaphore::new(0));
    let end = Instant::now() + Duration::from_secs(seconds + 30);
    for q in queues {
        let (auth, sent, latencies, parked) = (
            watcher_auth.clone(),
            Arc::clone(&sent),
            Arc::clone(&latencies),
            Arc::clone(&parked),
        );
        tokio::spawn(async move {
            let Ok(mut conn) = connect(addr).await else {
                parked.add_permits(1);
                return;
            };
            let mut last = -1i64;
            let mut first = true;
            while Instant::now() < end {
                let path = format!("/api/v1/events?queue_id={q}&last_event_id={last}");
                let req = Request::get(path.as_str())
                    .header("host", "localhost")
                    .header("authorization", auth.as_str());
                let fut = conn.send_request(req.body(Full::new(Bytes::new())).expect("request"));
                if first {
                    parked.add_permits(1);
                    first = false;
                }
                let Ok(res) = fut.await else { return };
                let Ok(body) = res.into_body().collect().await else {
                    return;
                };
                let now = Instant::now();
                let body = body.to_bytes();
                let text = String::from_utf8_lossy(&body);
                // Cheap scanning instead of a JSON parse, so the generator is not the bottleneck:
                // each of our events ends with `,"id":N}`, and the test messages read
                // "delivery K".
                if let Some(end) = text.find("],\"queue_id\"")
                    && let Some(pos) = text[..end].rfind(",\"id\":")
                {
                    let digits: String = text[pos + 6..end]
                        .chars()
                        .take_while(|c| c.is_ascii_digit())
                        .collect();
                    if let Ok(id) = digits.parse::<i64>() {
                        last = last.max(id);
                    }
                }
                let mut rest = &text[..];
                while let Some(i) = rest.find("delivery ") {
                    let digits: String = rest[i + 9..]
                        .chars()
                        .take_while(|c| c.is_ascii_digit())
                        .collect();
                    rest = &rest[i + 9..];
                    let Ok(k) = digits.parse::<u64>() else {
                        continue;
                    };
                    if let Some(at) = sent.lock().ok().and_then(|m| m.get(&k).copied())
                        && let Ok(mut l) = latencies.lock()
                    {
                        l.push(now.duration_since(at).as_micros().min(u32::MAX as u128) as u32);
                    }
                }
            }
        });
    }
    // Wait until every poll is on its way, then give them a moment to park.
    let _ = parked.acquire_many(pollers as u32).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let parked_rss = rss_kib(server.child.id());
    if scenario == "parked" {
        println!(
            "scenario=parked pollers={pollers} server_rss_idle={:.1}MB server_rss_parked={:.1}MB per_poll={:.1}KiB",
            idle_rss as f64 / 1024.0,
            parked_rss as f64 / 1024.0,
            (parked_rss.saturating_sub(idle_rss)) as f64 / pollers.max(1) as f64
        );
        return Ok(());
    }
    let interval = Duration::from_secs_f64(1.0 / rate.max(0.1));
    let stop = Instant::now() + Duration::from_secs(seconds);
    let mut k = 0u64;
    let mut next = Instant::now();
    while Instant::now() < stop {
        tokio::time::sleep_until(next.into()).await;
        next += interval;
        if let Ok(mut m) = sent.lock() {
            m.insert(k, Instant::now());
        }
        let r = call(
            &mut c,
            "POST",
            "/api/v1/messages",
            &sender_auth,
            Some(format!("type=stream&to=bench&topic=t&content=delivery+{k}")),
        )
        .await?;
        if r["result"] != "success" {
            return Err(format!("send: {r}"));
        }
        k += 1;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut l = latencies.lock().map(|l| l.clone()).unwrap_or_default();
    l.sort_unstable();
    let pct = |q: f64| {
        if l.is_empty() {
            0
        } else {
            l[((l.len() - 1) as f64 * q).round() as usize]
        }
    };
    println!(
        "scenario=delivery pollers={pollers} messages={k} deliveries={} expected={} p50={}us p90={}us p99={}us max={}us server_rss={:.1}MB",
        l.len(),
        k as usize * pollers,
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(1.0),
        rss_kib(server.child.id()) as f64 / 1024.0
    );
    Ok(())
}
