//! The long-poll scenarios, against an `outpost serve` child process (so the server's memory
//! can be read and both sides stay within the per-process file limit):
//! - `parked`: N parked `GET /events` long-polls; reports the server's resident memory;
//! - `delivery`: N parked long-polls plus a sender; reports send-to-delivery latency.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
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

pub(super) fn outpost_binary() -> std::path::PathBuf {
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

fn start_server(normal_sync: bool, floor: bool) -> (ServerProcess, (String, i64), (String, i64)) {
    let dir = std::env::temp_dir().join(format!("outpost-bench-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| fail(&format!("temp dir: {e}")));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| fail(&format!("no free port: {e}")));
    let cfg = dir.join("outpost.toml");
    let sync = if normal_sync { "normal" } else { "full" };
    // Every poll belongs to one watcher, so the per-user caps on queues and waiting polls are
    // raised to the scenario's largest size; the sender sends faster than a person, so the
    // rate limits are off.
    std::fs::write(
        &cfg,
        format!(
            "data_dir = {:?}\n[chat]\nlisten = \"127.0.0.1:{port}\"\n[database]\nsynchronous = \"{sync}\"\n[events]\nheartbeat_secs = 600\nheartbeat_jitter_secs = 0\n[limits]\nmax_queues_per_user = 10000\nmax_parked_polls_per_user = 10000\nuser_requests_per_minute = 0\nip_requests_per_minute = 0\n[log]\nlevel = \"warn\"\n",
            dir.join("data").display().to_string()
        ),
    )
    .unwrap_or_else(|e| fail(&format!("config: {e}")));
    let (sender, watcher, mut command) = if floor {
        // The floor server ignores credentials.
        let me = std::env::current_exe().unwrap_or_else(|_| fail("cannot find this executable"));
        let mut c = Command::new(me);
        c.args(["floor-server", "--addr", &format!("127.0.0.1:{port}")]);
        (("x".repeat(32), 1), ("x".repeat(32), 2), c)
    } else {
        let bin = outpost_binary();
        let sender = create_user(&bin, &cfg, "sender@example.com");
        let watcher = create_user(&bin, &cfg, "watcher@example.com");
        let mut c = Command::new(&bin);
        c.args(["serve", "--config"]).arg(&cfg);
        (sender, watcher, c)
    };
    let child = command
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
pub async fn run(
    scenario: &str,
    pollers: usize,
    seconds: u64,
    rate: f64,
    normal_sync: bool,
    floor: bool,
) {
    let (server, sender, watcher) = start_server(normal_sync, floor);
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
    // Send times in microseconds since `t0` (0: not sent yet), indexed by message number.
    let t0 = Instant::now();
    let capacity = (rate.max(0.1) * seconds as f64) as usize + 64;
    let sent: Arc<Vec<AtomicU64>> = Arc::new((0..capacity).map(|_| AtomicU64::new(0)).collect());
    let latencies: Arc<Mutex<Vec<u32>>> = Arc::default();
    let errors: Arc<Mutex<Vec<String>>> = Arc::default();
    let parked = Arc::new(tokio::sync::Semaphore::new(0));
    for q in queues {
        let poller = Poller {
            addr,
            auth: watcher_auth.clone(),
            queue: q,
            t0,
            sent: Arc::clone(&sent),
            latencies: Arc::clone(&latencies),
        };
        let (parked, errors) = (Arc::clone(&parked), Arc::clone(&errors));
        tokio::spawn(async move {
            if let Err(e) = poller.run(&parked).await
                && let Ok(mut errors) = errors.lock()
            {
                errors.push(e);
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
    while Instant::now() < stop && (k as usize) < sent.len() {
        tokio::time::sleep_until(next.into()).await;
        next += interval;
        if let Some(slot) = sent.get(k as usize) {
            slot.store(t0.elapsed().as_micros().max(1) as u64, Ordering::Relaxed);
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
    if let Some(e) = errors.lock().ok().and_then(|e| e.first().cloned()) {
        return Err(format!("a poller failed: {e}"));
    }
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
        "scenario=delivery pollers={pollers} messages={k} deliveries={} expected={} min={}us p50={}us p90={}us p99={}us max={}us server_rss={:.1}MB",
        l.len(),
        k as usize * pollers,
        pct(0.0),
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(1.0),
        rss_kib(server.child.id()) as f64 / 1024.0
    );
    Ok(())
}

/// One parked long-poll, spoken in plain HTTP/1.1 over its own connection. Hand-written rather
/// than hyper's client so that the generator, which shares the machine with the server, spends
/// as little CPU per delivery as it can and the figures measure the server.
struct Poller {
    addr: SocketAddr,
    auth: String,
    queue: String,
    t0: Instant,
    sent: Arc<Vec<AtomicU64>>,
    latencies: Arc<Mutex<Vec<u32>>>,
}

impl Poller {
    async fn run(self, parked: &tokio::sync::Semaphore) -> Result<(), String> {
        let connected = TcpStream::connect(self.addr).await;
        // Count this poller as on its way even if it failed, so the run never waits forever.
        let mut stream = match connected {
            Ok(s) => s,
            Err(e) => {
                parked.add_permits(1);
                return Err(format!("connect: {e}"));
            }
        };
        let _ = stream.set_nodelay(true);
        let mut buf: Vec<u8> = Vec::with_capacity(8192);
        let mut request = String::with_capacity(256);
        let mut last = -1i64;
        let mut first = true;
        loop {
            request.clear();
            use std::fmt::Write as _;
            let _ = write!(
                request,
                "GET /api/v1/events?queue_id={}&last_event_id={last} HTTP/1.1\r\nhost: localhost\r\nauthorization: {}\r\n\r\n",
                self.queue, self.auth
            );
            stream
                .write_all(request.as_bytes())
                .await
                .map_err(|e| format!("write: {e}"))?;
            if first {
                parked.add_permits(1);
                first = false;
            }
            let body = match read_response(&mut stream, &mut buf).await? {
                Some(body) => body,
                // The server closed the connection (it is stopping).
                None => return Ok(()),
            };
            let now = self.t0.elapsed().as_micros() as u64;
            let text = std::str::from_utf8(&buf[body]).map_err(|_| "a response is not UTF-8")?;
            if !text.starts_with("{\"result\":\"success\"") {
                return Err(format!("GET /events: {text}"));
            }
            // Cheap scanning instead of a JSON parse: each of our events ends with `,"id":N}`,
            // and the test messages read "delivery K".
            if let Some(end) = text.find("],\"queue_id\"")
                && let Some(pos) = text[..end].rfind(",\"id\":")
                && let Ok(id) = leading_number(&text[pos + 6..end]).parse::<i64>()
            {
                last = last.max(id);
            }
            let mut rest = text;
            while let Some(i) = rest.find("delivery ") {
                rest = &rest[i + 9..];
                let Ok(k) = leading_number(rest).parse::<usize>() else {
                    continue;
                };
                let at = self.sent.get(k).map_or(0, |s| s.load(Ordering::Relaxed));
                if at > 0
                    && let Ok(mut l) = self.latencies.lock()
                {
                    l.push(now.saturating_sub(at).min(u32::MAX as u64) as u32);
                }
            }
        }
    }
}

/// The run of ASCII digits at the start of `s`.
pub fn leading_number(s: &str) -> &str {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    &s[..n]
}

/// Reads one HTTP/1.1 response with a `content-length` into `buf`; returns the body's range,
/// or `None` if the connection closed before a response began.
async fn read_response(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
) -> Result<Option<std::ops::Range<usize>>, String> {
    buf.clear();
    let (head_end, length) = loop {
        buf.reserve(4096);
        let n = stream
            .read_buf(buf)
            .await
            .map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return if buf.is_empty() {
                Ok(None)
            } else {
                Err("the connection closed mid-response".into())
            };
        }
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head =
                std::str::from_utf8(&buf[..i]).map_err(|_| "a response head is not UTF-8")?;
            let length = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .ok_or_else(|| format!("a response without content-length: {head}"))?;
            break (i + 4, length);
        }
    };
    while buf.len() < head_end + length {
        buf.reserve(4096);
        let n = stream
            .read_buf(buf)
            .await
            .map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("the connection closed mid-response".into());
        }
    }
    Ok(Some(head_end..head_end + length))
}
