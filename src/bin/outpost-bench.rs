//! `outpost-bench`: the project's load generator.
//!
//! Starts an Outpost server in this process (its own runtime and data directory, on a loopback
//! port) unless `--addr` points at a running one, then drives a scenario over keep-alive
//! HTTP/1.1 connections for a fixed time and prints requests/s and latency percentiles.
//!
//! ```text
//! cargo run --release --bin outpost-bench -- users-me --connections 64 --seconds 10
//! ```
//!
//! Scenarios: `server-settings` (unauthenticated `GET /api/v1/server_settings`), `users-me`
//! (authenticated `GET /api/v1/users/me`), and on the Dependency-Track listener `dt-badge`
//! (`GET /api/v1/badge/violations/project/{uuid}` with `X-Api-Key`) and `dt-analysis`
//! (`GET /api/v1/analysis?...` with `X-Api-Key`). Every request is bounded in count and time
//! and goes to loopback only.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use bytes::Bytes;
use clap::Parser;
use http_body_util::{BodyExt as _, Empty};
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use outpost::config::{Config, Synchronous};
use outpost::domain::users::{self, NewUser};
use outpost::model::Role;

#[derive(Parser, Debug)]
#[command(name = "outpost-bench", about = "Load generator for Outpost")]
struct Args {
    /// server-settings | users-me | dt-badge | dt-analysis
    scenario: String,
    /// Concurrent keep-alive connections.
    #[arg(long, default_value_t = 64)]
    connections: usize,
    /// Measured duration in seconds (after a one-second warm-up).
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Use a running server on this loopback address instead of starting one.
    #[arg(long)]
    addr: Option<SocketAddr>,
    /// Credentials for authenticated scenarios against `--addr`.
    #[arg(long)]
    email: Option<String>,
    #[arg(long)]
    api_key: Option<String>,
    /// Request path (with query) for Dependency-Track scenarios against `--addr`.
    #[arg(long)]
    path: Option<String>,
    /// Worker threads of the in-process server's runtime.
    #[arg(long, default_value_t = 2)]
    server_threads: usize,
    /// Worker threads of the load generator's runtime.
    #[arg(long, default_value_t = 1)]
    client_threads: usize,
}

struct Target {
    addr: SocketAddr,
    path: String,
    /// (name, value) of the credential header, if any.
    credential: Option<(&'static str, String)>,
}

fn main() {
    let args = Args::parse();
    if let Some(addr) = args.addr
        && !addr.ip().is_loopback()
    {
        eprintln!("outpost-bench only targets loopback addresses");
        std::process::exit(2);
    }
    let path = match args.scenario.as_str() {
        "server-settings" => "/api/v1/server_settings",
        "users-me" => "/api/v1/users/me",
        "dt-badge" | "dt-analysis" => "",
        other => {
            eprintln!(
                "unknown scenario {other:?}; use server-settings, users-me, dt-badge or dt-analysis"
            );
            std::process::exit(2);
        }
    };
    if path.is_empty() {
        run_dtrack(&args);
        return;
    }
    let needs_auth = args.scenario == "users-me";

    // The server runs on its own runtime so that the generator does not steal its workers.
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.server_threads)
        .enable_all()
        .build()
        .expect("server runtime");
    let data = tempfile_dir();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let (addr, credentials) = match args.addr {
        Some(addr) => (addr, args.email.clone().zip(args.api_key.clone())),
        None => {
            let mut cfg = Config {
                data_dir: data.join("data"),
                ..Config::default()
            };
            cfg.chat.listen = "127.0.0.1:0".parse().expect("address");
            cfg.database.synchronous = Synchronous::Full;
            cfg.log.level = "warn".into();
            server_rt.block_on(async {
                let server = outpost::app::start(cfg, async {
                    let _ = stop_rx.await;
                })
                .await
                .expect("server starts");
                let (_, key) = users::create(
                    &server.state,
                    NewUser {
                        email: "bench@example.com".into(),
                        full_name: "Bench User".into(),
                        role: Role::Member,
                        password: None,
                        can_create_users: false,
                        can_change_user_emails: false,
                    },
                )
                .await
                .expect("bench user");
                let addr = server.chat_addr;
                tokio::spawn(server.wait());
                (addr, Some(("bench@example.com".to_string(), key)))
            })
        }
    };
    let credential = if needs_auth {
        let Some((email, key)) = credentials else {
            eprintln!("users-me against --addr needs --email and --api-key");
            std::process::exit(2);
        };
        Some((
            "authorization",
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{email}:{key}"))
            ),
        ))
    } else {
        None
    };
    let target = Arc::new(Target {
        addr,
        path: path.to_string(),
        credential,
    });
    drive(&args, target);
    let _ = stop_tx.send(());
    drop(server_rt);
    let _ = std::fs::remove_dir_all(&data);
}

/// Runs the load against `target` and prints the report line.
fn drive(args: &Args, target: Arc<Target>) {
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.client_threads)
        .enable_all()
        .build()
        .expect("client runtime");
    let report = client_rt.block_on(run_load(
        Arc::clone(&target),
        args.connections,
        Duration::from_secs(args.seconds),
    ));
    println!(
        "scenario={} connections={} seconds={} requests={} errors={} req/s={:.0} p50={}us p90={}us p99={}us max={}us",
        args.scenario,
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

/// The Dependency-Track scenarios: an in-process server with one project, one component with
/// one vulnerability and an analysis, metrics refreshed, and a key of a team holding every
/// permission (or `--addr` with `--api-key` and `--path`).
fn run_dtrack(args: &Args) {
    use outpost::domain::dtrack::model::{Component, ProjectFields, Vulnerability};
    use outpost::domain::dtrack::{findings, identity, metrics, permissions::PermSet, portfolio};
    if let Some(addr) = args.addr {
        let (Some(key), Some(path)) = (args.api_key.clone(), args.path.clone()) else {
            eprintln!(
                "{} against --addr needs --api-key and --path",
                args.scenario
            );
            std::process::exit(2);
        };
        drive(
            args,
            Arc::new(Target {
                addr,
                path,
                credential: Some(("x-api-key", key)),
            }),
        );
        return;
    }
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.server_threads)
        .enable_all()
        .build()
        .expect("server runtime");
    let data = tempfile_dir();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let mut cfg = Config {
        data_dir: data.join("data"),
        ..Config::default()
    };
    cfg.chat.listen = "127.0.0.1:0".parse().expect("address");
    cfg.deptrack.enabled = true;
    cfg.deptrack.listen = "127.0.0.1:0".parse().expect("address");
    cfg.database.synchronous = Synchronous::Full;
    cfg.log.level = "warn".into();
    let (addr, key, path) = server_rt.block_on(async {
        let server = outpost::app::start(cfg, async {
            let _ = stop_rx.await;
        })
        .await
        .expect("server starts");
        let state = Arc::clone(&server.state);
        let team = identity::create_team(&state, "Bench", PermSet::all(), true)
            .await
            .expect("team");
        let key = team.api_keys[0].key.clone().expect("key");
        let who = identity::authenticate_key(&state, &key)
            .await
            .expect("key works");
        let project = portfolio::create_project(
            &state,
            &who,
            ProjectFields {
                name: "bench".into(),
                version: Some("1.0".into()),
                active: true,
                ..ProjectFields::default()
            },
        )
        .await
        .expect("project");
        let component = portfolio::create_component(
            &state,
            &who,
            &project.uuid,
            Component {
                name: "lib".into(),
                ..Component::default()
            },
        )
        .await
        .expect("component");
        let vuln = findings::create_vulnerability(
            &state,
            Vulnerability {
                vuln_id: "INT-BENCH-1".into(),
                severity: Some("HIGH".into()),
                ..Vulnerability::default()
            },
        )
        .await
        .expect("vulnerability");
        findings::set_assignment(&state, &who, &vuln.uuid, &component.uuid, true)
            .await
            .expect("assignment");
        findings::update_analysis(
            &state,
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
        .expect("analysis");
        metrics::refresh(&state, &who, &project.uuid)
            .await
            .expect("metrics");
        let path = if args.scenario == "dt-badge" {
            format!("/api/v1/badge/violations/project/{}", project.uuid)
        } else {
            format!(
                "/api/v1/analysis?project={}&component={}&vulnerability={}",
                project.uuid, component.uuid, vuln.uuid
            )
        };
        let addr = server.deptrack_addr.expect("deptrack listener");
        tokio::spawn(server.wait());
        (addr, key, path)
    });
    drive(
        args,
        Arc::new(Target {
            addr,
            path,
            credential: Some(("x-api-key", key)),
        }),
    );
    let _ = stop_tx.send(());
    drop(server_rt);
    let _ = std::fs::remove_dir_all(&data);
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("outpost-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
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

async fn run_load(target: Arc<Target>, connections: usize, measure: Duration) -> Report {
    let warmup_end = Instant::now() + Duration::from_secs(1);
    let end = warmup_end + measure;
    let mut tasks = Vec::with_capacity(connections);
    for _ in 0..connections {
        let target = Arc::clone(&target);
        tasks.push(tokio::spawn(connection_loop(target, warmup_end, end)));
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
    target: Arc<Target>,
    warmup_end: Instant,
    end: Instant,
) -> (Vec<u32>, u64) {
    let mut latencies = Vec::new();
    let mut errors = 0u64;
    'reconnect: while Instant::now() < end {
        let Ok(stream) = TcpStream::connect(target.addr).await else {
            errors += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let Ok((mut sender, conn)) =
            hyper::client::conn::http1::handshake::<_, Empty<Bytes>>(TokioIo::new(stream)).await
        else {
            errors += 1;
            continue;
        };
        tokio::spawn(conn);
        while Instant::now() < end {
            let mut req = Request::get(target.path.as_str()).header("host", "localhost");
            if let Some((name, value)) = &target.credential {
                req = req.header(*name, value.as_str());
            }
            let req = req.body(Empty::new()).expect("request");
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
