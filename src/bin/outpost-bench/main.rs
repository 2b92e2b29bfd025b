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
//!   failure makes the exit status 1 (see `soak/`; `tests/soak/run.sh` runs it and judges the
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
use std::time::Duration;

use base64::Engine as _;
use clap::Parser;
use hyper::Method;

mod dtrack_osv;
mod floor;
mod load;
mod realtime;
mod scenarios;
mod soak;
mod storage;
mod tls;

use outpost::app::Server;
use outpost::config::{Config, Synchronous};

use load::{Spec, print_report, probe, run_load};
use scenarios::prepare;

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
    /// `soak`: the users and the Dependency-Track key to use (see `soak/`).
    #[arg(long)]
    credentials: Option<std::path::PathBuf>,
    /// `dt-osv-import`, `dt-findings`: records in the synthetic npm OSV export.
    #[arg(long, default_value_t = 30_000)]
    osv_records: usize,
    /// `dt-osv-import`, `dt-findings`: components of the uploaded BOM.
    #[arg(long, default_value_t = 5_000)]
    components: usize,
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
