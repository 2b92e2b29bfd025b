//! Prometheus metrics: lock-free counters and histograms (plain atomics, updated on the hot
//! paths by `http::server` and `db`), and their rendering in the Prometheus text format.
//!
//! Labels are bounded by construction: requests are counted per route *name* from an API's
//! route table (never a raw path) and per status class, in an array allocated once per
//! listener. The `/metrics` and `/health` listener that reads them is `listeners::metrics`.
//! Must not touch: the APIs, the database or the queues (it names no other area, since `db` and
//! `http` update its counters).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds (seconds) of the latency buckets: 1 ms to 10 s, then `+Inf`.
pub const LATENCY_BUCKETS: [f64; 13] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// A latency histogram with [`LATENCY_BUCKETS`].
#[derive(Default)]
pub struct Histogram {
    /// Non-cumulative counts per bucket; the last one is `+Inf`.
    buckets: [AtomicU64; LATENCY_BUCKETS.len() + 1],
    sum_micros: AtomicU64,
    count: AtomicU64,
}

impl Histogram {
    pub fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        let i = LATENCY_BUCKETS
            .iter()
            .position(|b| secs <= *b)
            .unwrap_or(LATENCY_BUCKETS.len());
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        self.sum_micros.fetch_add(
            u64::try_from(d.as_micros()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// Writes the `_bucket`, `_sum` and `_count` lines; `labels` is `""` or `k="v",...`.
    pub fn render(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut cumulative = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            cumulative += b.load(Ordering::Relaxed);
            let le = LATENCY_BUCKETS
                .get(i)
                .map_or_else(|| "+Inf".to_string(), |v| v.to_string());
            let _ = writeln!(
                out,
                "{name}_bucket{{{labels}{sep}le=\"{le}\"}} {cumulative}"
            );
        }
        let sum = self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
        let braces = |l: &str| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{{{l}}}")
            }
        };
        let _ = writeln!(out, "{name}_sum{} {sum}", braces(labels));
        let _ = writeln!(out, "{name}_count{} {cumulative}", braces(labels));
    }
}

/// Requests of one route: counts per status class (1xx..5xx) and latency.
#[derive(Default)]
struct RouteStats {
    by_class: [AtomicU64; 5],
    latency: Histogram,
}

/// The label for requests an API did not admit (unknown path or method, failed credentials,
/// rate limits): their status tells them apart.
pub const UNROUTED: &str = "unrouted";

/// Request counts and latencies of one listener, per route of its API's route table.
pub struct RequestMetrics {
    api: &'static str,
    names: &'static [&'static str],
    /// One more than `names`: the last is [`UNROUTED`].
    routes: Box<[RouteStats]>,
}

impl RequestMetrics {
    /// For the API labelled `api` whose routes are `names` (indexes as its route table gives
    /// them).
    pub fn new(api: &'static str, names: &'static [&'static str]) -> RequestMetrics {
        RequestMetrics {
            api,
            names,
            routes: (0..=names.len()).map(|_| RouteStats::default()).collect(),
        }
    }

    /// Counts one answered request: `route` is an index into the names (`None`, or one out of
    /// range: not admitted).
    pub fn record(&self, route: Option<usize>, status: u16, took: Duration) {
        let i = route
            .filter(|r| *r < self.names.len())
            .unwrap_or(self.names.len());
        let stats = &self.routes[i];
        let class = usize::from(status / 100).clamp(1, 5) - 1;
        stats.by_class[class].fetch_add(1, Ordering::Relaxed);
        stats.latency.observe(took);
    }

    fn name(&self, i: usize) -> &'static str {
        self.names.get(i).copied().unwrap_or(UNROUTED)
    }

    /// Writes this listener's lines of the request families (the `# TYPE` lines are written
    /// once by the caller, [`render_request_headers`]).
    pub fn render_counts(&self, out: &mut String) {
        for (i, s) in self.routes.iter().enumerate() {
            for (c, n) in s.by_class.iter().enumerate() {
                let n = n.load(Ordering::Relaxed);
                if n > 0 {
                    let _ = writeln!(
                        out,
                        "outpost_http_requests_total{{api=\"{}\",route=\"{}\",status=\"{}xx\"}} {n}",
                        self.api,
                        self.name(i),
                        c + 1
                    );
                }
            }
        }
    }

    /// Writes this listener's latency histograms (routes that were called).
    pub fn render_latency(&self, out: &mut String) {
        for (i, s) in self.routes.iter().enumerate() {
            if s.latency.count() > 0 {
                let labels = format!("api=\"{}\",route=\"{}\"", self.api, self.name(i));
                s.latency
                    .render(out, "outpost_http_request_duration_seconds", &labels);
            }
        }
    }
}

/// Writes a metric family's `# HELP` and `# TYPE` lines.
pub fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// Writes one unlabelled sample with its header.
pub fn single(out: &mut String, name: &str, kind: &str, help: &str, value: impl std::fmt::Display) {
    header(out, name, kind, help);
    let _ = writeln!(out, "{name} {value}");
}

/// What the storage engine's writer did: batches, jobs, how long jobs waited for their commit.
#[derive(Default)]
pub struct WriterMetrics {
    /// Jobs handed to the writer and not yet taken into a batch.
    pub queued: AtomicU64,
    pub batches: AtomicU64,
    pub jobs: AtomicU64,
    pub failed_commits: AtomicU64,
    /// From a job's submission until its commit finished (what a request waits for).
    pub wait: Histogram,
    /// How long each batch took to run and commit.
    pub commit: Histogram,
}

impl WriterMetrics {
    pub fn render(&self, out: &mut String) {
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        single(
            out,
            "outpost_db_write_queue_depth",
            "gauge",
            "Write jobs waiting for the writer thread.",
            load(&self.queued),
        );
        single(
            out,
            "outpost_db_write_batches_total",
            "counter",
            "Write batches committed (group commit) or failed.",
            load(&self.batches),
        );
        single(
            out,
            "outpost_db_write_jobs_total",
            "counter",
            "Write jobs run in batches.",
            load(&self.jobs),
        );
        single(
            out,
            "outpost_db_failed_commits_total",
            "counter",
            "Batches whose commit failed (every job of the batch failed).",
            load(&self.failed_commits),
        );
        header(
            out,
            "outpost_db_write_wait_seconds",
            "histogram",
            "Time from submitting a write job until its batch committed.",
        );
        self.wait.render(out, "outpost_db_write_wait_seconds", "");
        header(
            out,
            "outpost_db_batch_seconds",
            "histogram",
            "Time to run and commit one write batch.",
        );
        self.commit.render(out, "outpost_db_batch_seconds", "");
    }
}

/// Writes the `# HELP`/`# TYPE` lines of the request families, once for all listeners.
pub fn render_request_headers(out: &mut String, listeners: &[&RequestMetrics]) {
    header(
        out,
        "outpost_http_requests_total",
        "counter",
        "HTTP requests answered, by API, route (from the route table) and status class.",
    );
    for l in listeners {
        l.render_counts(out);
    }
    header(
        out,
        "outpost_http_request_duration_seconds",
        "histogram",
        "Time from a request's arrival to its answer (long-polls included), by API and route.",
    );
    for l in listeners {
        l.render_latency(out);
    }
}

/// The resident memory of this process in bytes (Linux `/proc/self/statm`).
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf reads a constant of the system; no memory is passed.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_cumulative() {
        let h = Histogram::default();
        h.observe(Duration::from_micros(500));
        h.observe(Duration::from_millis(30));
        h.observe(Duration::from_secs(60));
        let mut out = String::new();
        h.render(&mut out, "x", "a=\"b\"");
        assert!(out.contains("x_bucket{a=\"b\",le=\"0.001\"} 1\n"), "{out}");
        assert!(out.contains("x_bucket{a=\"b\",le=\"0.05\"} 2\n"), "{out}");
        assert!(out.contains("x_bucket{a=\"b\",le=\"10\"} 2\n"), "{out}");
        assert!(out.contains("x_bucket{a=\"b\",le=\"+Inf\"} 3\n"), "{out}");
        assert!(out.contains("x_count{a=\"b\"} 3\n"), "{out}");
        assert!(out.contains("x_sum{a=\"b\"} 60.0305\n"), "{out}");
    }

    #[test]
    fn requests_are_counted_per_route_name_and_class() {
        static NAMES: [&str; 2] = ["GetEvents", "SendMessage"];
        let m = RequestMetrics::new("chat", &NAMES);
        m.record(Some(1), 200, Duration::from_millis(2));
        m.record(Some(1), 400, Duration::from_millis(2));
        m.record(Some(1), 200, Duration::from_millis(2));
        m.record(None, 404, Duration::from_millis(1));
        m.record(Some(99), 401, Duration::from_millis(1));
        let mut out = String::new();
        render_request_headers(&mut out, &[&m]);
        assert!(out.contains(
            "outpost_http_requests_total{api=\"chat\",route=\"SendMessage\",status=\"2xx\"} 2\n"
        ));
        assert!(out.contains(
            "outpost_http_requests_total{api=\"chat\",route=\"SendMessage\",status=\"4xx\"} 1\n"
        ));
        assert!(out.contains(
            "outpost_http_requests_total{api=\"chat\",route=\"unrouted\",status=\"4xx\"} 2\n"
        ));
        assert!(!out.contains("route=\"GetEvents\""));
        assert!(out.contains(
            "outpost_http_request_duration_seconds_count{api=\"chat\",route=\"SendMessage\"} 3\n"
        ));
    }
}
