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

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hyper::Method;

use super::{basic, fail};

mod client;
mod tasks;

use client::{Client, Rng, Stats, enc, form};
use tasks::{badges, editor, history, poller, presence, reactor, sender, uploader};

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
