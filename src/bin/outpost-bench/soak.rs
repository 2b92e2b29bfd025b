//! The `soak` scenario: a steady mix of chat and Dependency-Track traffic against a running
//! `outpost serve` (`--addr` its chat listener, `--dt-addr` its Dependency-Track listener) for
//! `--seconds`, counting every request by kind. `tests/soak/run.sh` prepares the server (users,
//! a team key, a BOM), writes the `--credentials` file, samples the server's memory while this
//! runs and judges the drift.
//!
//! The credentials file has one entry a line:
//! `chat USER_ID EMAIL API_KEY` (the users, at least one per channel) and
//! `dtrack API_KEY PROJECT_UUID` (a key that may read the project's badge).
//!
//! The mix (per second, `--rate` being the sends): `--rate` messages from the users in turn
//! into [`CHANNELS`] channels (user `i` belongs to channel `i % CHANNELS`), `--pollers` long-polls
//! spread over the users that are woken by those messages and poll again (each queue lives one
//! to four minutes, then is deleted, or one time in five abandoned for the server to collect),
//! presence updates, edits of recent messages by their senders, reactions added and removed,
//! history reads, uploads of a few KB each linked from a message, and policy-violation badge
//! reads. Any answer other than success counts as an error; the process exits with 1 if there
//! was one.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

use super::{basic, fail};

/// Channels the messages go to.
pub const CHANNELS: usize = 4;
/// Recent messages remembered per channel (for edits and reactions).
const RECENT: usize = 200;
/// Longest wait for an ordinary answer.
const TIMEOUT: Duration = Duration::from_secs(30);
/// Longest wait for a long-poll (the server's heartbeat is 45 s plus up to 10 s).
const POLL_TIMEOUT: Duration = Duration::from_secs(120);

struct ChatUser {
    id: i64,
    auth: String,
}

struct Credentials {
    users: Vec<ChatUser>,
    dtrack: Option<(String, String)>,
}

fn read_credentials(path: &std::path::Path) -> Credentials {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| fail(&format!("credentials {}: {e}", path.display())));
    let mut c = Credentials {
        users: Vec::new(),
        dtrack: None,
    };
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            ["chat", id, email, key] => c.users.push(ChatUser {
                id: id
                    .parse()
                    .unwrap_or_else(|_| fail("a user id is not a number")),
                auth: basic(email, key),
            }),
            ["dtrack", key, project] => c.dtrack = Some((key.to_string(), project.to_string())),
            [] => {}
            _ => fail(&format!("credentials: unreadable line {line:?}")),
        }
    }
    if c.users.len() < CHANNELS {
        fail(&format!("soak needs at least {CHANNELS} chat users"));
    }
    c
}

/// Requests and failures by kind, and the first failures' details.
#[derive(Default)]
struct Stats {
    kinds: Mutex<BTreeMap<&'static str, (u64, u64)>>,
    first_errors: Mutex<Vec<String>>,
}

impl Stats {
    fn record(&self, kind: &'static str, outcome: &Result<Value, String>) {
        if let Ok(mut k) = self.kinds.lock() {
            let e = k.entry(kind).or_default();
            match outcome {
                Ok(_) => e.0 += 1,
                Err(_) => e.1 += 1,
            }
        }
        if let Err(msg) = outcome
            && let Ok(mut first) = self.first_errors.lock()
            && first.len() < 20
        {
            eprintln!("soak: {kind} failed: {msg}");
            first.push(format!("{kind}: {msg}"));
        }
    }

    fn totals(&self) -> (u64, u64) {
        self.kinds.lock().map_or((0, 0), |k| {
            k.values().fold((0, 0), |(a, b), (o, e)| (a + o, b + e))
        })
    }
}

/// One keep-alive HTTP/1.1 connection, opened again after a failure.
struct Client {
    addr: SocketAddr,
    conn: Option<hyper::client::conn::http1::SendRequest<Full<Bytes>>>,
}

impl Client {
    fn new(addr: SocketAddr) -> Self {
        Client { addr, conn: None }
    }

    /// Sends the request and returns the JSON answer; anything but a 2xx whose body is not a
    /// Zulip error is success (badges are SVG).
    async fn send(
        &mut self,
        req: Request<Full<Bytes>>,
        timeout: Duration,
    ) -> Result<Value, String> {
        let what = format!("{} {}", req.method(), req.uri().path());
        let res = tokio::time::timeout(timeout, self.exchange(req)).await;
        let (status, body) = match res {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                self.conn = None;
                return Err(format!("{what}: {e}"));
            }
            Err(_) => {
                self.conn = None;
                return Err(format!("{what}: no answer within {}s", timeout.as_secs()));
            }
        };
        let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if !(200..300).contains(&status) || json["result"] == "error" {
            let text = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
            return Err(format!("{what}: {status} {text}"));
        }
        Ok(json)
    }

    async fn exchange(&mut self, req: Request<Full<Bytes>>) -> Result<(u16, Bytes), String> {
        if self.conn.is_none() {
            let stream = TcpStream::connect(self.addr)
                .await
                .map_err(|e| format!("connect: {e}"))?;
            let _ = stream.set_nodelay(true);
            let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .map_err(|e| format!("handshake: {e}"))?;
            tokio::spawn(conn);
            self.conn = Some(sender);
        }
        let conn = self.conn.as_mut().ok_or("no connection")?;
        conn.ready().await.map_err(|e| e.to_string())?;
        let res = conn.send_request(req).await.map_err(|e| e.to_string())?;
        let status = res.status().as_u16();
        let body = res
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        Ok((status, body))
    }
}

fn request(
    method: Method,
    path: &str,
    credential: (&str, &str),
    content_type: Option<&str>,
    body: impl Into<Bytes>,
) -> Request<Full<Bytes>> {
    let mut req = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "localhost")
        .header(credential.0, credential.1);
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    req.body(Full::new(body.into())).expect("request")
}

fn form(method: Method, path: &str, auth: &str, body: String) -> Request<Full<Bytes>> {
    request(
        method,
        path,
        ("authorization", auth),
        Some("application/x-www-form-urlencoded"),
        body,
    )
}

fn get(path: &str, auth: &str) -> Request<Full<Bytes>> {
    request(
        Method::GET,
        path,
        ("authorization", auth),
        None,
        Bytes::new(),
    )
}

fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// A small deterministic generator (xorshift64*), one per task.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// What every task shares.
struct Shared {
    addr: SocketAddr,
    users: Vec<ChatUser>,
    /// Channel `c` is `{prefix}-{c}`.
    prefix: String,
    stats: Stats,
    /// Per channel: recent (message id, sender index).
    recent: Mutex<Vec<VecDeque<(i64, usize)>>>,
    end: Instant,
}

impl Shared {
    fn remember(&self, channel: usize, id: i64, sender: usize) {
        if let Ok(mut r) = self.recent.lock() {
            let q = &mut r[channel];
            if q.len() == RECENT {
                q.pop_front();
            }
            q.push_back((id, sender));
        }
    }

    fn pick_recent(&self, channel: usize, rng: &mut Rng) -> Option<(i64, usize)> {
        let r = self.recent.lock().ok()?;
        let q = &r[channel];
        (!q.is_empty()).then(|| q[rng.below(q.len())])
    }

    /// A user of `channel` (users `channel`, `channel + CHANNELS`, ...).
    fn member(&self, channel: usize, rng: &mut Rng) -> usize {
        let members = (self.users.len() - channel).div_ceil(CHANNELS);
        channel + CHANNELS * rng.below(members)
    }
}

/// `rate` ticks a second until the end; falling behind delays the next tick, never bursts.
struct Pacer {
    tick: tokio::time::Interval,
    end: Instant,
}

impl Pacer {
    fn new(rate: f64, end: Instant) -> Option<Self> {
        if rate <= 0.0 {
            return None;
        }
        let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Some(Pacer { tick, end })
    }

    async fn next(&mut self) -> bool {
        self.tick.tick().await;
        Instant::now() < self.end
    }
}

/// Runs the scenario and exits with 1 if any request failed.
pub fn run(args: &super::Args) {
    let Some(addr) = args.addr.filter(|a| a.ip().is_loopback()) else {
        fail("soak needs --addr, the loopback chat address of a running outpost serve");
    };
    let Some(path) = &args.credentials else {
        fail("soak needs --credentials FILE (see tests/soak/run.sh)");
    };
    let creds = read_credentials(path);
    let dt = match (&creds.dtrack, args.dt_addr) {
        (None, _) => None,
        (Some((key, project)), Some(a)) if a.ip().is_loopback() => {
            Some((a, key.clone(), project.clone()))
        }
        (Some(_), _) => fail("the credentials name a Dependency-Track key: give --dt-addr"),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.client_threads)
        .enable_all()
        .build()
        .expect("client runtime");
    let pollers = args.pollers.unwrap_or(120);
    let rate = args.rate.unwrap_or(50.0);
    let errors = rt.block_on(drive(addr, dt, creds.users, pollers, rate, args.seconds));
    drop(rt);
    std::process::exit(if errors == 0 { 0 } else { 1 });
}

async fn drive(
    addr: SocketAddr,
    dt: Option<(SocketAddr, String, String)>,
    users: Vec<ChatUser>,
    pollers: usize,
    rate: f64,
    seconds: u64,
) -> u64 {
    // The channels, each created by its first member with all its members.
    let prefix = format!("soak-{}", std::process::id());
    let mut setup = Client::new(addr);
    for c in 0..CHANNELS {
        let members: Vec<String> = (c..users.len())
            .step_by(CHANNELS)
            .map(|i| users[i].id.to_string())
            .collect();
        let body = format!(
            "name={prefix}-{c}&subscribers={}",
            enc(&format!("[{}]", members.join(",")))
        );
        let req = form(
            Method::POST,
            "/api/v1/channels/create",
            &users[c].auth,
            body,
        );
        if let Err(e) = setup.send(req, TIMEOUT).await {
            fail(&format!("creating channel {c}: {e}"));
        }
    }
    let started = Instant::now();
    let shared = Arc::new(Shared {
        addr,
        users,
        prefix,
        stats: Stats::default(),
        recent: Mutex::new(vec![VecDeque::new(); CHANNELS]),
        end: started + Duration::from_secs(seconds),
    });
    eprintln!(
        "soak: {} users, {CHANNELS} channels, {pollers} long-polls, {rate} sends/s for {seconds}s",
        shared.users.len()
    );
    let mut tasks = Vec::new();
    for p in 0..pollers {
        tasks.push(tokio::spawn(poller(Arc::clone(&shared), p)));
    }
    const SENDERS: usize = 8;
    for s in 0..SENDERS {
        tasks.push(tokio::spawn(sender(Arc::clone(&shared), s, SENDERS, rate)));
    }
    tasks.push(tokio::spawn(presence(Arc::clone(&shared), 10.0)));
    tasks.push(tokio::spawn(editor(Arc::clone(&shared), 2.0)));
    tasks.push(tokio::spawn(reactor(Arc::clone(&shared), 4.0)));
    tasks.push(tokio::spawn(history(Arc::clone(&shared), 2.0)));
    tasks.push(tokio::spawn(uploader(Arc::clone(&shared), 1.0)));
    if let Some((dt_addr, key, project)) = dt {
        tasks.push(tokio::spawn(badges(
            Arc::clone(&shared),
            dt_addr,
            key,
            project,
            5.0,
        )));
    }
    let progress = tokio::spawn({
        let shared = Arc::clone(&shared);
        async move {
            loop {
                tokio::time::sleep(Duration::from_secs(60)).await;
                let (ok, errors) = shared.stats.totals();
                eprintln!(
                    "soak: {:.0}s requests={} errors={errors}",
                    started.elapsed().as_secs_f64(),
                    ok + errors
                );
            }
        }
    });
    for t in tasks {
        let _ = t.await;
    }
    progress.abort();
    let kinds = shared
        .stats
        .kinds
        .lock()
        .map(|k| k.clone())
        .unwrap_or_default();
    for (kind, (ok, errors)) in &kinds {
        println!("soak kind={kind} ok={ok} errors={errors}");
    }
    let (ok, errors) = shared.stats.totals();
    println!(
        "soak seconds={seconds} requests={} errors={errors} req/s={:.1}",
        ok + errors,
        (ok + errors) as f64 / started.elapsed().as_secs_f64()
    );
    errors
}

/// Messages from users `s`, `s + senders`, ... in turn, each into its channel.
async fn sender(shared: Arc<Shared>, s: usize, senders: usize, rate: f64) {
    let Some(mut pace) = Pacer::new(rate / senders as f64, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut k = s;
    while pace.next().await {
        let u = k % shared.users.len();
        let c = u % CHANNELS;
        let body = format!(
            "type=stream&to={}-{c}&topic={}&content={}",
            shared.prefix,
            enc(&format!("topic {}", (k / senders) % 12)),
            enc(&format!(
                "soak message {k} from user {u}: **steady** traffic with `code`, a \
                 [link](https://example.com/{k}) and enough words to be of typical length"
            ))
        );
        let r = client
            .send(
                form(
                    Method::POST,
                    "/api/v1/messages",
                    &shared.users[u].auth,
                    body,
                ),
                TIMEOUT,
            )
            .await;
        if let Ok(v) = &r
            && let Some(id) = v["id"].as_i64()
        {
            shared.remember(c, id, u);
        }
        shared.stats.record("send", &r);
        k += senders;
    }
}

/// Presence updates from the users in turn (mostly active, sometimes idle).
async fn presence(shared: Arc<Shared>, rate: f64) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut k = 0usize;
    while pace.next().await {
        let u = k % shared.users.len();
        let status = if (k / shared.users.len()) % 5 == 4 {
            "idle"
        } else {
            "active"
        };
        let body = format!("status={status}&new_user_input=true&ping_only=false");
        let r = client
            .send(
                form(
                    Method::POST,
                    "/api/v1/users/me/presence",
                    &shared.users[u].auth,
                    body,
                ),
                TIMEOUT,
            )
            .await;
        shared.stats.record("presence", &r);
        k += 1;
    }
}

/// Edits of recent messages by their senders.
async fn editor(shared: Arc<Shared>, rate: f64) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut rng = Rng::new(11);
    let mut k = 0usize;
    while pace.next().await {
        let Some((id, sender)) = shared.pick_recent(rng.below(CHANNELS), &mut rng) else {
            continue;
        };
        k += 1;
        let body = format!(
            "content={}",
            enc(&format!("edited soak message (edit {k}) with *new* words"))
        );
        let r = client
            .send(
                form(
                    Method::PATCH,
                    &format!("/api/v1/messages/{id}"),
                    &shared.users[sender].auth,
                    body,
                ),
                TIMEOUT,
            )
            .await;
        shared.stats.record("edit", &r);
    }
}

/// A reaction added to a recent message by a member of its channel, removed at the next tick.
async fn reactor(shared: Arc<Shared>, rate: f64) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut rng = Rng::new(13);
    let mut pending: Option<(i64, usize)> = None;
    while pace.next().await {
        if let Some((id, user)) = pending.take() {
            let r = client
                .send(
                    request(
                        Method::DELETE,
                        &format!("/api/v1/messages/{id}/reactions?emoji_name=thumbs_up"),
                        ("authorization", &shared.users[user].auth),
                        None,
                        Bytes::new(),
                    ),
                    TIMEOUT,
                )
                .await;
            shared.stats.record("reaction-remove", &r);
            continue;
        }
        let c = rng.below(CHANNELS);
        let Some((id, _)) = shared.pick_recent(c, &mut rng) else {
            continue;
        };
        let user = shared.member(c, &mut rng);
        let r = client
            .send(
                form(
                    Method::POST,
                    &format!("/api/v1/messages/{id}/reactions"),
                    &shared.users[user].auth,
                    "emoji_name=thumbs_up".into(),
                ),
                TIMEOUT,
            )
            .await;
        if r.is_ok() {
            pending = Some((id, user));
        }
        shared.stats.record("reaction-add", &r);
    }
}

/// The newest 50 messages of a channel, read by one of its members.
async fn history(shared: Arc<Shared>, rate: f64) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut rng = Rng::new(17);
    while pace.next().await {
        let c = rng.below(CHANNELS);
        let user = shared.member(c, &mut rng);
        let narrow = enc(&format!(
            "[{{\"operator\":\"channel\",\"operand\":\"{}-{c}\"}}]",
            shared.prefix
        ));
        let path =
            format!("/api/v1/messages?anchor=newest&num_before=50&num_after=0&narrow={narrow}");
        let r = client
            .send(get(&path, &shared.users[user].auth), TIMEOUT)
            .await;
        shared.stats.record("history", &r);
    }
}

/// Files of 1 to 8 KB uploaded by the users in turn, each linked from a message.
async fn uploader(shared: Arc<Shared>, rate: f64) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut rng = Rng::new(19);
    let mut k = 0usize;
    while pace.next().await {
        let u = k % shared.users.len();
        let c = u % CHANNELS;
        let size = 1024 + rng.below(7 * 1024);
        let line = format!("soak upload {k} line of text\n");
        let data: String = line.repeat(size / line.len() + 1)[..size].to_string();
        let boundary = format!("soakboundary{k}");
        let body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"soak-{k}.txt\"\r\nContent-Type: text/plain\r\n\r\n{data}\r\n--{boundary}--\r\n"
        );
        let r = client
            .send(
                request(
                    Method::POST,
                    "/api/v1/user_uploads",
                    ("authorization", &shared.users[u].auth),
                    Some(&format!("multipart/form-data; boundary={boundary}")),
                    body,
                ),
                TIMEOUT,
            )
            .await;
        let url = r
            .as_ref()
            .ok()
            .and_then(|v| v["url"].as_str().map(str::to_string));
        shared.stats.record("upload", &r);
        k += 1;
        let Some(url) = url else { continue };
        let body = format!(
            "type=stream&to={}-{c}&topic=files&content={}",
            shared.prefix,
            enc(&format!("[soak-{k}.txt]({url})"))
        );
        let r = client
            .send(
                form(
                    Method::POST,
                    "/api/v1/messages",
                    &shared.users[u].auth,
                    body,
                ),
                TIMEOUT,
            )
            .await;
        shared.stats.record("send-upload-link", &r);
    }
}

/// The project's policy-violation badge on the Dependency-Track listener.
async fn badges(shared: Arc<Shared>, addr: SocketAddr, key: String, project: String, rate: f64) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(addr);
    let path = format!("/api/v1/badge/violations/project/{project}");
    while pace.next().await {
        let r = client
            .send(
                request(Method::GET, &path, ("x-api-key", &key), None, Bytes::new()),
                TIMEOUT,
            )
            .await;
        shared.stats.record("dt-badge", &r);
    }
}

/// One client's event queue: registered, long-polled until it has lived one to four minutes,
/// then deleted (or, one time in five, abandoned for the server's collector) and registered
/// again.
async fn poller(shared: Arc<Shared>, p: usize) {
    let user = &shared.users[p % shared.users.len()];
    let mut client = Client::new(shared.addr);
    let mut rng = Rng::new(1000 + p as u64);
    let end = shared.end;
    // Spread the registrations over the first seconds.
    tokio::time::sleep(Duration::from_millis((p as u64 * 20) % 5000)).await;
    while Instant::now() < end {
        let reg = client
            .send(
                form(
                    Method::POST,
                    "/api/v1/register",
                    &user.auth,
                    format!(
                        "event_types={}",
                        enc(r#"["message","reaction","update_message"]"#)
                    ),
                ),
                TIMEOUT,
            )
            .await;
        let queue = reg.as_ref().ok().and_then(|v| {
            Some((
                v["queue_id"].as_str()?.to_string(),
                v["last_event_id"].as_i64()?,
            ))
        });
        shared.stats.record("register", &reg);
        let Some((queue, mut last)) = queue else {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        };
        let expires = Instant::now() + Duration::from_secs(60 + rng.below(180) as u64);
        while Instant::now() < expires {
            let path = format!("/api/v1/events?queue_id={queue}&last_event_id={last}");
            let r = tokio::select! {
                r = client.send(get(&path, &user.auth), POLL_TIMEOUT) => r,
                _ = tokio::time::sleep_until(end.into()) => return,
            };
            if let Ok(v) = &r
                && let Some(events) = v["events"].as_array()
            {
                for e in events {
                    last = last.max(e["id"].as_i64().unwrap_or(last));
                }
            }
            let failed = r.is_err();
            shared.stats.record("poll", &r);
            if failed {
                break;
            }
        }
        if Instant::now() >= end {
            return;
        }
        if rng.below(5) != 0 {
            let r = client
                .send(
                    request(
                        Method::DELETE,
                        &format!("/api/v1/events?queue_id={queue}"),
                        ("authorization", &user.auth),
                        None,
                        Bytes::new(),
                    ),
                    TIMEOUT,
                )
                .await;
            shared.stats.record("queue-delete", &r);
        }
    }
}
