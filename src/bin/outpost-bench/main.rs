//! `outpost-bench`: the project's load generator.
//!
//! Starts an Outpost server in this process (its own runtime and data directory, on a loopback
//! port, default durable settings) unless `--addr` points at a running one, prepares the data a
//! scenario needs, then drives it over keep-alive HTTP/1.1 connections for a fixed time and
//! prints requests/s and latency percentiles.
//!
//! ```text
//! cargo run --release --bin outpost-bench -- users-me --connections 64 --seconds 10
//! cargo run --release --bin outpost-bench -- send --subscribers 1000 --connections 8
//! cargo run --release --bin outpost-bench -- history --messages 1000000 --connections 4
//! ```
//!
//! Scenarios:
//! - `server-settings`: unauthenticated `GET /api/v1/server_settings`;
//! - `users-me`: authenticated `GET /api/v1/users/me`;
//! - `send`: `POST /api/v1/messages` to a channel with `--subscribers` members, one sender per
//!   connection;
//! - `history`: `GET /api/v1/messages`, the newest 100 messages of a channel holding
//!   `--messages` messages (seeded directly into the database first);
//! - `presence`: `POST /api/v1/users/me/presence`;
//! - `send-storage`, `send-direct`: the storage ceiling of `send` (its writes alone, through
//!   the server's writer) and `send` without HTTP (see `storage.rs`);
//! - `dt-badge`, `dt-analysis`: on the Dependency-Track listener, the policy-violation badge
//!   of a project and `GET /api/v1/analysis`, both with an `X-Api-Key` of a team holding every
//!   permission (one project, component, vulnerability and analysis are created first);
//! - `dt-osv-import`, `dt-findings`: a synthetic npm OSV export (`--osv-records` records)
//!   imported by `outpost dtrack import-osv` and a `--components`-component BOM uploaded to an
//!   `outpost serve` child process; the import's time and peak memory, the BOM's processing time
//!   and findings, and for `dt-findings` load on `GET /api/v1/finding/project/{uuid}` (see
//!   `dtrack_osv.rs`);
//! - `parked`, `delivery`: `--pollers` parked long-polls against an `outpost serve` child
//!   process; the server's memory, and the latency from sending a message (at `--rate` per
//!   second) to each poller receiving it (see `realtime.rs`). With `--floor`, the same against a
//!   bare hyper server that does nothing but wake and answer (see `floor.rs`): the best this
//!   machine and generator can do;
//! - `soak`: against a running server (`--addr`, `--dt-addr`, `--credentials`), a steady mix of
//!   sends (`--rate` per second), `--pollers` long-polls woken and re-polled, presence, edits,
//!   reactions, history reads, uploads and badge reads for `--seconds`, counted by kind; any
//!   failure makes the exit status 1 (see `soak.rs`; `tests/soak/run.sh` runs it and judges the
//!   server's memory).
//!
//! With `--tls-cert FILE --tls-key FILE` the in-process server serves its listeners over HTTPS
//! with that pair and the generator connects with TLS, trusting exactly that certificate (with
//! `--addr`, `--tls-cert` alone names the certificate the running server presents). The cost
//! of TLS per request is the same scenario with and without these options:
//!
//! ```text
//! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
//!   -subj /CN=localhost -keyout /tmp/key.pem -out /tmp/cert.pem
//! cargo run --release --bin outpost-bench -- users-me --connections 64 --seconds 10
//! cargo run --release --bin outpost-bench -- users-me --connections 64 --seconds 10 \
//!   --tls-cert /tmp/cert.pem --tls-key /tmp/key.pem
//! ```
//!
//! Every request goes to loopback only; the run is bounded by `--seconds`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use bytes::Bytes;
use clap::Parser;
use http_body_util::{BodyExt as _, Full};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

mod dtrack_osv;
mod floor;
mod realtime;
mod soak;
mod storage;
mod tls;

use outpost::app::Server;
use outpost::config::{Config, Synchronous};
use outpost::domain::channels::{self, ChannelOptions};
use outpost::domain::users::{self, NewUser};
use outpost::ids::UserId;
use outpost::model::{Message, Role};
use outpost::zulip::ChatState;

#[derive(Parser, Debug)]
#[command(name = "outpost-bench", about = "Load generator for Outpost")]
struct Args {
    /// server-settings | users-me | send | history | ... | soak (see above)
    scenario: String,
    /// Concurrent keep-alive connections.
    #[arg(long, default_value_t = 64)]
    connections: usize,
    /// Measured duration in seconds (after a one-second warm-up).
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Channel size for `send`.
    #[arg(long, default_value_t = 10)]
    subscribers: usize,
    /// Parked long-polls for `parked` and `delivery` (default 1000) and `soak` (default 120).
    #[arg(long)]
    pollers: Option<usize>,
    /// `send-storage`: per-user flag rows written with each message (the server writes none for
    /// the `send` scenario's messages; this shows what one row per recipient would cost).
    #[arg(long, default_value_t = 0)]
    flag_rows: usize,
    /// `send-storage`: exactly this many sends per write transaction (0: as they come).
    #[arg(long, default_value_t = 0)]
    batch: usize,
    /// Channel history size for `history`.
    #[arg(long, default_value_t = 1_000_000)]
    messages: usize,
    /// Use a running server on this loopback address instead of starting one
    /// (`server-settings`, `users-me` and `soak`, which needs it).
    #[arg(long)]
    addr: Option<SocketAddr>,
    /// Credentials for `users-me` against `--addr`.
    #[arg(long)]
    email: Option<String>,
    #[arg(long)]
    api_key: Option<String>,
    /// `synchronous = "normal"` instead of the durable default.
    #[arg(long)]
    normal_sync: bool,
    /// Calibration: run the scenario against a bare hyper server (see `floor.rs`) instead of
    /// Outpost: for `parked` and `delivery` one that only wakes polls and answers; for the
    /// request scenarios one that answers every request with the body Outpost gave the first.
    #[arg(long)]
    floor: bool,
    /// Total requests per second to aim for (all connections together); unpaced if absent.
    #[arg(long)]
    rate: Option<f64>,
    /// Worker threads of the in-process server's runtime.
    #[arg(long, default_value_t = 2)]
    server_threads: usize,
    /// Worker threads of the load generator's runtime.
    #[arg(long, default_value_t = 1)]
    client_threads: usize,
    /// HTTPS: the PEM certificate the server presents (the client trusts exactly it); the
    /// in-process server serves it with `--tls-key`.
    #[arg(long)]
    tls_cert: Option<std::path::PathBuf>,
    /// HTTPS: the PEM private key of `--tls-cert`, for the in-process server.
    #[arg(long)]
    tls_key: Option<std::path::PathBuf>,
    /// `soak`: the Dependency-Track listener of the server at `--addr`.
    #[arg(long)]
    dt_addr: Option<SocketAddr>,
    /// `soak`: the users and the Dependency-Track key to use (see `soak.rs`).
    #[arg(long)]
    credentials: Option<std::path::PathBuf>,
    /// `dt-osv-import`, `dt-findings`: records in the synthetic npm OSV export.
    #[arg(long, default_value_t = 30_000)]
    osv_records: usize,
    /// `dt-osv-import`, `dt-findings`: components of the uploaded BOM.
    #[arg(long, default_value_t = 5_000)]
    components: usize,
}

/// What one connection sends, over and over (`{n}` in the body is replaced by a counter).
#[derive(Clone)]
struct Spec {
    method: Method,
    path: String,
    body: Option<String>,
    /// (header name, value) of the credential, if any.
    credential: Option<(&'static str, String)>,
}

impl Spec {
    /// The request, with `{n}` in the body replaced by `n`.
    fn request(&self, n: &str) -> Request<Full<Bytes>> {
        let mut req = Request::builder()
            .method(self.method.clone())
            .uri(self.path.as_str())
            .header("host", "localhost");
        if let Some((name, value)) = &self.credential {
            req = req.header(*name, value.as_str());
        }
        let body = match &self.body {
            Some(b) => {
                req = req.header("content-type", "application/x-www-form-urlencoded");
                Bytes::from(b.replace("{n}", n))
            }
            None => Bytes::new(),
        };
        req.body(Full::new(body)).expect("request")
    }
}

fn basic(email: &str, key: &str) -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{email}:{key}"))
    )
}

fn fail(msg: &str) -> ! {
    eprintln!("outpost-bench: {msg}");
    std::process::exit(2);
}

async fn make_user(state: &ChatState, i: usize) -> (UserId, String, String) {
    let email = format!("bench{i}@example.com");
    let (id, key) = users::create(
        state,
        NewUser {
            email: email.clone(),
            full_name: format!("Bench User {i}"),
            role: Role::Member,
            password: None,
            can_create_users: false,
            can_change_user_emails: false,
        },
    )
    .await
    .unwrap_or_else(|e| fail(&format!("creating a user: {e}")));
    (id, email, key)
}

/// Creates `n` users and a channel `bench` they are all subscribed to.
async fn channel_with(state: &ChatState, n: usize) -> Vec<(UserId, String, String)> {
    let mut people = Vec::with_capacity(n);
    for i in 0..n.max(1) {
        people.push(make_user(state, i).await);
    }
    let creator = outpost::db::users::get as fn(&rusqlite::Connection, UserId) -> _;
    let first = people[0].0;
    let owner = state
        .db
        .read(move |c| creator(c, first))
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| fail("bench user vanished"));
    channels::create(
        state,
        &owner,
        "bench",
        people.iter().map(|p| p.0.0).collect(),
        ChannelOptions::default(),
    )
    .await
    .unwrap_or_else(|e| fail(&format!("creating the channel: {e}")));
    people
}

/// Stores `n` messages in channel `bench` directly, in large transactions.
async fn seed_history(state: &ChatState, sender: UserId, n: usize) {
    let channel = state
        .db
        .read(|c| outpost::db::channels::by_name(c, "bench"))
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| fail("no bench channel"))
        .id;
    let started = Instant::now();
    let mut done = 0;
    while done < n {
        let batch = (n - done).min(50_000);
        let from = done;
        state
            .db
            .write(move |tx| {
                for i in from..from + batch {
                    let text =
                        format!("history message {i} about topic {} and more words", i % 100);
                    outpost::db::messages::insert(
                        tx,
                        &Message {
                            id: outpost::ids::MessageId(0),
                            sender_id: sender,
                            channel_id: Some(channel),
                            conversation_id: None,
                            topic: format!("topic {}", i % 100),
                            rendered_content: format!("<p>{text}</p>"),
                            content: text,
                            client: "bench".into(),
                            sent_at: outpost::time::now_secs(),
                            is_me_message: false,
                            wildcard: 0,
                            last_edit_at: None,
                            last_moved_at: None,
                        },
                    )?;
                }
                Ok(())
            })
            .await
            .unwrap_or_else(|e| fail(&format!("seeding: {e}")));
        done += batch;
    }
    eprintln!(
        "seeded {n} messages in {:.1}s",
        started.elapsed().as_secs_f64()
    );
}

fn main() {
    let args = Args::parse();
    if args.scenario == "floor-server" {
        // Started by `--floor` runs; not a scenario of its own.
        let addr = args
            .addr
            .filter(|a| a.ip().is_loopback())
            .unwrap_or_else(|| fail("floor-server needs a loopback --addr"));
        floor::serve(addr);
    }
    if args.scenario == "parked" || args.scenario == "delivery" {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(args.client_threads)
            .enable_all()
            .build()
            .expect("client runtime");
        rt.block_on(realtime::run(
            &args.scenario,
            args.pollers.unwrap_or(1000),
            args.seconds,
            args.rate.unwrap_or(20.0),
            args.normal_sync,
            args.floor,
        ));
        return;
    }
    if args.scenario == "soak" {
        soak::run(&args);
        return;
    }
    if args.scenario == "dt-osv-import" || args.scenario == "dt-findings" {
        dtrack_osv::run(&args);
        return;
    }
    if let Some(addr) = args.addr
        && !addr.ip().is_loopback()
    {
        fail("only loopback addresses are allowed");
    }
    if args.tls_cert.is_some() && args.addr.is_none() && args.tls_key.is_none() {
        fail("--tls-cert needs --tls-key (or --addr of a running HTTPS server)");
    }
    if args.tls_key.is_some() && args.tls_cert.is_none() {
        fail("--tls-key needs --tls-cert");
    }
    if args.tls_cert.is_some() && args.floor {
        fail("--floor is plain HTTP only");
    }
    let connector = args
        .tls_cert
        .as_deref()
        .map(|c| tls::connector(c).unwrap_or_else(|e| fail(&e)));
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.server_threads)
        .enable_all()
        .build()
        .expect("server runtime");
    let data = std::env::temp_dir().join(format!("outpost-bench-{}", std::process::id()));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();

    let (addr, specs) = match args.addr {
        Some(addr) => {
            let spec = match args.scenario.as_str() {
                "server-settings" => Spec {
                    method: Method::GET,
                    path: "/api/v1/server_settings".into(),
                    body: None,
                    credential: None,
                },
                "users-me" => {
                    let (Some(e), Some(k)) = (&args.email, &args.api_key) else {
                        fail("users-me against --addr needs --email and --api-key");
                    };
                    Spec {
                        method: Method::GET,
                        path: "/api/v1/users/me".into(),
                        body: None,
                        credential: Some(("authorization", basic(e, k))),
                    }
                }
                _ => fail("with --addr only server-settings and users-me are available"),
            };
            (addr, vec![spec; args.connections])
        }
        None => {
            let mut cfg = Config {
                data_dir: data.join("data"),
                ..Config::default()
            };
            cfg.chat.listen = "127.0.0.1:0".parse().expect("address");
            cfg.database.synchronous = if args.normal_sync {
                Synchronous::Normal
            } else {
                Synchronous::Full
            };
            cfg.log.level = "warn".into();
            // A load generator is one client sending as fast as it can.
            cfg.limits.user_requests_per_minute = 0;
            cfg.limits.ip_requests_per_minute = 0;
            let dtrack = args.scenario.starts_with("dt-");
            if dtrack {
                cfg.dtrack.enabled = true;
                cfg.dtrack.listen = "127.0.0.1:0".parse().expect("address");
            }
            if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
                cfg.chat.tls_cert = cert.clone();
                cfg.chat.tls_key = key.clone();
                cfg.dtrack.tls_cert = cert.clone();
                cfg.dtrack.tls_key = key.clone();
            }
            server_rt.block_on(async {
                let server: Server = outpost::app::start(cfg, async {
                    let _ = stop_rx.await;
                })
                .await
                .unwrap_or_else(|e| fail(&format!("server start: {e}")));
                let state = Arc::clone(&server.state);
                if args.scenario == "send-storage" && args.batch > 0 {
                    storage::run_batched(
                        Arc::clone(&state),
                        args.subscribers,
                        args.flag_rows,
                        args.batch,
                        args.seconds,
                    )
                    .await;
                    let _ = std::fs::remove_dir_all(&data);
                    std::process::exit(0);
                }
                if args.scenario == "send-storage" || args.scenario == "send-direct" {
                    storage::run(
                        Arc::clone(&state),
                        &args.scenario,
                        args.connections,
                        args.subscribers,
                        args.flag_rows,
                        args.seconds,
                    )
                    .await;
                    let _ = std::fs::remove_dir_all(&data);
                    std::process::exit(0);
                }
                let specs = prepare(&args, &state).await;
                let addr = if dtrack {
                    server.dtrack_addr.expect("dtrack listener")
                } else {
                    server.chat_addr
                };
                tokio::spawn(server.wait());
                (addr, specs)
            })
        }
    };

    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.client_threads)
        .enable_all()
        .build()
        .expect("client runtime");
    let addr = if args.floor {
        // Calibration: the same requests against a bare server on the same runtime that answers
        // each with the body Outpost gave the first one (same size), doing nothing else.
        let Some(first) = specs.first() else {
            fail("no requests to calibrate with");
        };
        let answer = client_rt.block_on(probe(addr, first));
        eprintln!("floor: answering every request with {} bytes", answer.len());
        server_rt.block_on(floor::serve_static(answer))
    } else {
        addr
    };
    let report = client_rt.block_on(run_load(
        addr,
        specs,
        Duration::from_secs(args.seconds),
        args.rate,
        connector,
    ));
    print_report(&args, &report);
    let _ = stop_tx.send(());
    drop(server_rt);
    let _ = std::fs::remove_dir_all(&data);
}

/// Prints a request scenario's figures on one line.
fn print_report(args: &Args, report: &Report) {
    println!(
        "scenario={} tls={} connections={} seconds={} requests={} errors={} req/s={:.0} p50={}us p90={}us p99={}us max={}us",
        args.scenario,
        args.tls_cert.is_some(),
        args.connections,
        args.seconds,
        report.requests,
        report.errors,
        report.requests as f64 / args.seconds as f64,
        report.percentile(0.50),
        report.percentile(0.90),
        report.percentile(0.99),
        report.percentile(1.0),
    );
}

async fn prepare(args: &Args, state: &ChatState) -> Vec<Spec> {
    match args.scenario.as_str() {
        "server-settings" => vec![
            Spec {
                method: Method::GET,
                path: "/api/v1/server_settings".into(),
                body: None,
                credential: None,
            };
            args.connections
        ],
        "users-me" => {
            let (_, email, key) = make_user(state, 0).await;
            vec![
                Spec {
                    method: Method::GET,
                    path: "/api/v1/users/me".into(),
                    body: None,
                    credential: Some(("authorization", basic(&email, &key))),
                };
                args.connections
            ]
        }
        "send" => {
            let people = channel_with(state, args.subscribers.max(args.connections)).await;
            (0..args.connections)
                .map(|i| {
                    let (_, email, key) = &people[i % people.len()];
                    Spec {
                        method: Method::POST,
                        path: "/api/v1/messages".into(),
                        body: Some(format!(
                            "type=stream&to=bench&topic=load+{i}&content=benchmark+message+{{n}}"
                        )),
                        credential: Some(("authorization", basic(email, key))),
                    }
                })
                .collect()
        }
        "presence" => {
            let (_, email, key) = make_user(state, 0).await;
            vec![
                Spec {
                    method: Method::POST,
                    path: "/api/v1/users/me/presence".into(),
                    body: Some("status=active".into()),
                    credential: Some(("authorization", basic(&email, &key))),
                };
                args.connections
            ]
        }
        "history" => {
            let people = channel_with(state, 2).await;
            seed_history(state, people[0].0, args.messages).await;
            let (_, email, key) = &people[1];
            let narrow = "%5B%5B%22channel%22%2C%22bench%22%5D%5D";
            vec![
                Spec {
                    method: Method::GET,
                    path: format!(
                        "/api/v1/messages?anchor=newest&num_before=100&num_after=0&narrow={narrow}"
                    ),
                    body: None,
                    credential: Some(("authorization", basic(email, key))),
                };
                args.connections
            ]
        }
        "dt-badge" | "dt-analysis" => dtrack_specs(args, state).await,
        other => fail(&format!(
            "unknown scenario {other:?}; use server-settings, users-me, send, history, presence, parked, delivery, dt-badge, dt-analysis, dt-osv-import or dt-findings"
        )),
    }
}

struct Report {
    requests: u64,
    errors: u64,
    /// Sorted latencies in microseconds.
    latencies: Vec<u32>,
}

impl Report {
    fn percentile(&self, q: f64) -> u32 {
        if self.latencies.is_empty() {
            return 0;
        }
        let i = ((self.latencies.len() - 1) as f64 * q).round() as usize;
        self.latencies[i]
    }
}

/// Sends one request as `spec` describes and returns the answer's body.
async fn probe(addr: SocketAddr, spec: &Spec) -> Bytes {
    let stream = TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| fail(&format!("probe: {e}")));
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(TokioIo::new(stream))
            .await
            .unwrap_or_else(|e| fail(&format!("probe: {e}")));
    tokio::spawn(conn);
    let res = sender
        .send_request(spec.request("probe"))
        .await
        .unwrap_or_else(|e| fail(&format!("probe: {e}")));
    if !res.status().is_success() {
        fail(&format!("probe answered {}", res.status()));
    }
    res.into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_else(|e| fail(&format!("probe: {e}")))
}

async fn run_load(
    addr: SocketAddr,
    specs: Vec<Spec>,
    measure: Duration,
    rate: Option<f64>,
    tls: Option<tokio_rustls::TlsConnector>,
) -> Report {
    let warmup_end = Instant::now() + Duration::from_secs(1);
    let end = warmup_end + measure;
    let counter = Arc::new(AtomicU64::new(0));
    // With a target rate, each connection sends on its own fixed schedule.
    let interval = rate.map(|r| Duration::from_secs_f64(specs.len() as f64 / r));
    let mut tasks = Vec::with_capacity(specs.len());
    for spec in specs {
        let counter = Arc::clone(&counter);
        tasks.push(tokio::spawn(connection_loop(
            addr,
            spec,
            counter,
            warmup_end,
            end,
            interval,
            tls.clone(),
        )));
    }
    let mut report = Report {
        requests: 0,
        errors: 0,
        latencies: Vec::new(),
    };
    for t in tasks {
        let (lat, errors) = t.await.unwrap_or_default();
        report.requests += lat.len() as u64;
        report.errors += errors;
        report.latencies.extend(lat);
    }
    report.latencies.sort_unstable();
    report
}

async fn connection_loop(
    addr: SocketAddr,
    spec: Spec,
    counter: Arc<AtomicU64>,
    warmup_end: Instant,
    end: Instant,
    interval: Option<Duration>,
    tls: Option<tokio_rustls::TlsConnector>,
) -> (Vec<u32>, u64) {
    let mut latencies = Vec::new();
    let mut errors = 0u64;
    let mut next_send = Instant::now();
    'reconnect: while Instant::now() < end {
        let Ok(stream) = TcpStream::connect(addr).await else {
            errors += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let Some(mut sender) = http1_over(stream, tls.as_ref()).await else {
            errors += 1;
            continue;
        };
        while Instant::now() < end {
            let n = counter.fetch_add(1, Ordering::Relaxed);
            let req = spec.request(&n.to_string());
            if let Some(every) = interval {
                // Timer wake-ups are coarse (about a millisecond), so latency is taken from the
                // moment the request actually leaves; falling behind the schedule shows up as a
                // lower achieved rate.
                tokio::time::sleep_until(next_send.into()).await;
                next_send += every;
            }
            let started = Instant::now();
            let ok = match sender.send_request(req).await {
                Ok(res) => {
                    let ok = res.status().is_success();
                    ok && res.into_body().collect().await.is_ok()
                }
                Err(_) => false,
            };
            let elapsed = started.elapsed();
            if started >= warmup_end {
                if ok {
                    latencies.push(elapsed.as_micros().min(u32::MAX as u128) as u32);
                } else {
                    errors += 1;
                }
            }
            if !ok {
                continue 'reconnect;
            }
        }
    }
    (latencies, errors)
}

/// An HTTP/1.1 connection over `stream`, with TLS first when `tls` is given; its driver is
/// spawned.
async fn http1_over(
    stream: TcpStream,
    tls: Option<&tokio_rustls::TlsConnector>,
) -> Option<hyper::client::conn::http1::SendRequest<Full<Bytes>>> {
    match tls {
        None => {
            let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .ok()?;
            tokio::spawn(conn);
            Some(sender)
        }
        Some(tls) => {
            let name = tokio_rustls::rustls::pki_types::ServerName::try_from("localhost")
                .expect("a valid name");
            let stream = tls.connect(name, stream).await.ok()?;
            let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .ok()?;
            tokio::spawn(conn);
            Some(sender)
        }
    }
}

/// Dependency-Track data for `dt-badge` and `dt-analysis`: one project with a vulnerable
/// component and an analysis, refreshed metrics, and a key of an all-permission team.
async fn dtrack_specs(args: &Args, state: &ChatState) -> Vec<Spec> {
    use outpost::domain::dtrack::{findings, identity, metrics, permissions::PermSet, portfolio};
    use outpost::model::dtrack::{Component, ProjectFields, Vulnerability};
    let team = identity::create_team(state, "Bench", PermSet::all(), true)
        .await
        .unwrap_or_else(|e| fail(&format!("team: {e}")));
    let key = team.api_keys[0]
        .key
        .clone()
        .unwrap_or_else(|| fail("no key"));
    let who = identity::authenticate_key(state, &key)
        .await
        .unwrap_or_else(|e| fail(&format!("key: {e}")));
    let project = portfolio::create_project(
        state,
        &who,
        ProjectFields {
            name: "bench".into(),
            version: Some("1.0".into()),
            active: true,
            ..ProjectFields::default()
        },
    )
    .await
    .unwrap_or_else(|e| fail(&format!("project: {e}")));
    let component = portfolio::create_component(
        state,
        &who,
        &project.uuid,
        Component {
            name: "lib".into(),
            ..Component::default()
        },
    )
    .await
    .unwrap_or_else(|e| fail(&format!("component: {e}")));
    let vuln = findings::create_vulnerability(
        state,
        Vulnerability {
            vuln_id: "INT-BENCH-1".into(),
            severity: Some("HIGH".into()),
            ..Vulnerability::default()
        },
    )
    .await
    .unwrap_or_else(|e| fail(&format!("vulnerability: {e}")));
    findings::set_assignment(state, &who, &vuln.uuid, &component.uuid, true)
        .await
        .unwrap_or_else(|e| fail(&format!("assignment: {e}")));
    findings::update_analysis(
        state,
        &who,
        findings::AnalysisChange {
            project: Some(project.uuid.clone()),
            component: component.uuid.clone(),
            vulnerability: vuln.uuid.clone(),
            state: Some("NOT_AFFECTED".into()),
            comment: Some("benchmark".into()),
            ..findings::AnalysisChange::default()
        },
    )
    .await
    .unwrap_or_else(|e| fail(&format!("analysis: {e}")));
    metrics::refresh(state, &who, &project.uuid)
        .await
        .unwrap_or_else(|e| fail(&format!("metrics: {e}")));
    let path = if args.scenario == "dt-badge" {
        format!("/api/v1/badge/violations/project/{}", project.uuid)
    } else {
        format!(
            "/api/v1/analysis?project={}&component={}&vulnerability={}",
            project.uuid, component.uuid, vuln.uuid
        )
    };
    vec![
        Spec {
            method: Method::GET,
            path,
            body: None,
            credential: Some(("x-api-key", key)),
        };
        args.connections
    ]
}
