//! The metrics listener: `GET /metrics` (Prometheus text format) and `GET /health`, on their
//! own address (`[metrics] listen`, loopback by default), served by the same listener loop as
//! the APIs (`http::server`) so they get its limits and graceful shutdown.
//!
//! A scrape reads the counters ([`crate::metrics`]), counts the event queues and waiting polls, and asks
//! the database for the scheduled items and Dependency-Track BOM uploads still waiting. Nothing
//! here needs credentials or reveals any: counts and route names only.
//!
//! It sits in the listeners layer, not beside the counters: the counters are updated by `db`
//! and `http`, so `metrics` must name neither, while this scrape reads the database and the
//! queues. Must not touch: the APIs' state, SQL (it calls `db::health`).

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use hyper::http::request::Parts;
use hyper::{Method, StatusCode};

use crate::http::server::{Admission, Api, BoxFuture};
use crate::http::{self, Request, Response};
use crate::metrics::{RequestMetrics, header, render_request_headers, resident_bytes, single};

/// What the metrics listener serves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Page {
    Metrics,
    Health,
}

/// What `/metrics` and `/health` read, built by `app` from the objects the server shares.
pub struct MetricsState {
    /// The database (the domain's `Core` behind its `Arc`): health check, backlog, writer.
    pub db: Arc<dyn AsRef<crate::db::Db> + Send + Sync>,
    /// The event hub: the newest published sequence number.
    pub hub: Arc<crate::events::EventHub>,
    /// The client event queues.
    pub queues: Arc<crate::events::queues::Queues>,
    /// Whether the Dependency-Track listener is on (its BOM backlog is reported).
    pub dtrack_enabled: bool,
    /// The domain, when Dependency-Track is on: the portfolio's evaluation summary.
    pub dtrack: Option<Arc<crate::domain::Core>>,
    /// The domain, when `[push] enabled`: what pushing did, and the outbox's depth.
    pub push: Option<Arc<crate::domain::Core>>,
    /// Becomes true when the server starts shutting down.
    pub stopping: tokio::sync::watch::Receiver<bool>,
    /// The hub sequence number of the newest event the delivery task has handled.
    pub delivered: tokio::sync::watch::Receiver<u64>,
    /// Open connections of all listeners.
    pub connections: Arc<std::sync::atomic::AtomicUsize>,
    /// What the mail outbox sent, failed and abandoned.
    pub mail: Arc<crate::domain::outbox::MailCounters>,
    /// When this process opened the state (seconds since the epoch).
    pub started_at: i64,
    /// Every listener's request counters, in the order they are rendered.
    pub requests: Vec<Arc<RequestMetrics>>,
}

impl MetricsState {
    fn db(&self) -> &crate::db::Db {
        (*self.db).as_ref()
    }
}

/// `/metrics` and `/health` over a [`MetricsState`].
pub struct MetricsListener {
    state: MetricsState,
}

impl MetricsListener {
    pub fn new(state: MetricsState) -> MetricsListener {
        MetricsListener { state }
    }
}

fn text(status: StatusCode, content_type: &'static str, body: String) -> Response {
    http::with_body(status, content_type, body)
}

/// Whether the server can serve: not stopping, and the database answers a read.
async fn health(state: &MetricsState) -> Response {
    if *state.stopping.borrow() {
        return text(
            StatusCode::SERVICE_UNAVAILABLE,
            "text/plain; charset=utf-8",
            "stopping\n".into(),
        );
    }
    match state.db().read(crate::db::health::check).await {
        Ok(()) => text(StatusCode::OK, "text/plain; charset=utf-8", "ok\n".into()),
        Err(e) => {
            tracing::warn!(error = %e, "health check: the database does not answer");
            text(
                StatusCode::SERVICE_UNAVAILABLE,
                "text/plain; charset=utf-8",
                "database unavailable\n".into(),
            )
        }
    }
}

/// The whole scrape.
pub async fn render(state: &MetricsState) -> String {
    let mut out = String::with_capacity(16 * 1024);
    let requests: Vec<&RequestMetrics> = state.requests.iter().map(|r| &**r).collect();
    render_request_headers(&mut out, &requests);
    let q = state.queues.stats();
    single(
        &mut out,
        "outpost_event_queues",
        "gauge",
        "Registered event queues.",
        q.queues,
    );
    single(
        &mut out,
        "outpost_event_queue_polls_waiting",
        "gauge",
        "GET /events requests waiting on a queue (parked long-polls).",
        q.waiting_polls,
    );
    single(
        &mut out,
        "outpost_event_queue_events",
        "gauge",
        "Events held in queues, not yet acknowledged.",
        q.events,
    );
    let pending = state.hub.current_seq();
    let delivered = *state.delivered.borrow();
    single(
        &mut out,
        "outpost_event_delivery_backlog",
        "gauge",
        "Events published but not yet delivered to the queues.",
        pending.saturating_sub(delivered),
    );
    state.db().writer_metrics().render(&mut out);
    let dtrack = state.dtrack_enabled;
    match state
        .db()
        .read(move |c| crate::db::health::backlog(c, dtrack))
        .await
    {
        Ok(b) => {
            single(
                &mut out,
                "outpost_scheduled_pending",
                "gauge",
                "Scheduled messages and reminders not yet sent.",
                b.scheduled,
            );
            if let Some(n) = b.bom_uploads {
                single(
                    &mut out,
                    "outpost_bom_queue_depth",
                    "gauge",
                    "Accepted BOM uploads waiting to be imported.",
                    n,
                );
            }
        }
        Err(e) => tracing::warn!(error = %e, "metrics: cannot read the backlog"),
    }
    if let Some(core) = &state.dtrack {
        render_evaluation(&mut out, core).await;
    }
    if let Some(core) = &state.push {
        render_push(&mut out, core).await;
    }
    render_mail(&mut out, state).await;
    single(
        &mut out,
        "outpost_connections_active",
        "gauge",
        "Open client connections (all listeners).",
        state.connections.load(Ordering::Relaxed),
    );
    if let Some(rss) = resident_bytes() {
        single(
            &mut out,
            "outpost_resident_memory_bytes",
            "gauge",
            "Resident memory of the process.",
            rss,
        );
    }
    single(
        &mut out,
        "outpost_start_time_seconds",
        "gauge",
        "When the process started, in seconds since the epoch.",
        state.started_at,
    );
    header(
        &mut out,
        "outpost_build_info",
        "gauge",
        "The running version.",
    );
    let _ = writeln!(
        out,
        "outpost_build_info{{version=\"{}\"}} 1",
        env!("CARGO_PKG_VERSION")
    );
    out
}

/// What pushing did since the start (`domain::push::Stats`) and the outbox's depth.
async fn render_push(out: &mut String, core: &crate::domain::Core) {
    let load = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
    let st = &core.push_stats;
    header(
        out,
        "outpost_push_notifications_total",
        "counter",
        "Push notifications by outcome at Zulip's push notification service.",
    );
    for (outcome, c) in [
        ("sent", &st.sent),
        ("retry_later", &st.retry_later),
        ("failed", &st.failed),
    ] {
        let _ = writeln!(
            out,
            "outpost_push_notifications_total{{outcome=\"{outcome}\"}} {}",
            load(c)
        );
    }
    header(
        out,
        "outpost_push_outbox_calls_total",
        "counter",
        "Device-token calls to the push notification service by outcome.",
    );
    for (outcome, c) in [
        ("made", &st.outbox_made),
        ("retried", &st.outbox_retried),
        ("given_up", &st.outbox_given_up),
    ] {
        let _ = writeln!(
            out,
            "outpost_push_outbox_calls_total{{outcome=\"{outcome}\"}} {}",
            load(c)
        );
    }
    match core.db.read(crate::db::push_bouncer::queued).await {
        Ok(n) => single(
            out,
            "outpost_push_outbox_depth",
            "gauge",
            "Device-token calls waiting to be made.",
            n,
        ),
        Err(e) => tracing::warn!(error = %e, "metrics: cannot read the push outbox"),
    }
}

/// The mail outbox: what waits, and what was sent, failed and abandoned since start.
async fn render_mail(out: &mut String, state: &MetricsState) {
    match state.db().read(crate::db::mail_outbox::count).await {
        Ok(n) => single(
            out,
            "outpost_mail_outbox_waiting",
            "gauge",
            "Mails in the outbox, not yet accepted by the mail server.",
            n,
        ),
        Err(e) => tracing::warn!(error = %e, "metrics: cannot read the mail outbox"),
    }
    let m = &state.mail;
    for (name, help, value) in [
        (
            "outpost_mail_sent_total",
            "Mails the mail server accepted.",
            &m.sent,
        ),
        (
            "outpost_mail_failed_attempts_total",
            "Attempts to send a mail that failed (retried later or abandoned).",
            &m.failed_attempts,
        ),
        (
            "outpost_mail_abandoned_total",
            "Mails given up after their last failed attempt.",
            &m.abandoned,
        ),
    ] {
        single(out, name, "counter", help, value.load(Ordering::Relaxed));
    }
}

/// The portfolio's components by evaluation state and the not-evaluated ones by reason (every
/// reason written, so the series are fixed). The summary is cached per write generation and
/// computed at most every few seconds (`domain::dtrack::evaluation::portfolio_summary`).
async fn render_evaluation(out: &mut String, core: &crate::domain::Core) {
    use crate::domain::dtrack::evaluation::{Reason, portfolio_summary};
    let s = match portfolio_summary(core).await {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "metrics: cannot read the evaluation summary");
            return;
        }
    };
    let name = "outpost_dtrack_components";
    header(
        out,
        name,
        "gauge",
        "Dependency-Track components of the portfolio by how their analysis ended.",
    );
    let not_evaluated: i64 = s.not_evaluated.iter().sum();
    for (state, n) in [
        ("FINDINGS", s.findings),
        ("CLEAN", s.clean),
        ("NOT_EVALUATED", not_evaluated),
    ] {
        let _ = writeln!(out, "{name}{{state=\"{state}\"}} {n}");
    }
    let name = "outpost_dtrack_components_not_evaluated";
    header(
        out,
        name,
        "gauge",
        "Dependency-Track components the internal analyzer could not evaluate, by reason.",
    );
    for r in Reason::ALL {
        let _ = writeln!(out, "{name}{{reason=\"{}\"}} {}", r.name(), s.of(r));
    }
}

impl Api for MetricsListener {
    type Ticket = Page;

    async fn admit(&self, head: &Parts, _peer: SocketAddr) -> Result<Admission<Page>, Response> {
        let page = match head.uri.path() {
            "/metrics" => Page::Metrics,
            "/health" | "/healthz" => Page::Health,
            _ => {
                return Err(text(
                    StatusCode::NOT_FOUND,
                    "text/plain; charset=utf-8",
                    "not found: this listener serves /metrics and /health\n".into(),
                ));
            }
        };
        if head.method != Method::GET && head.method != Method::HEAD {
            let mut res = text(
                StatusCode::METHOD_NOT_ALLOWED,
                "text/plain; charset=utf-8",
                "method not allowed\n".into(),
            );
            res.headers_mut().insert(
                hyper::header::ALLOW,
                hyper::header::HeaderValue::from_static("GET, HEAD"),
            );
            return Err(res);
        }
        Ok(Admission {
            ticket: page,
            body_limit: 0,
            upload: false,
        })
    }

    fn handle(self: Arc<Self>, page: Page, _req: Request) -> BoxFuture<Response> {
        Box::pin(async move {
            match page {
                Page::Health => health(&self.state).await,
                Page::Metrics => text(
                    StatusCode::OK,
                    "text/plain; version=0.0.4; charset=utf-8",
                    render(&self.state).await,
                ),
            }
        })
    }

    fn payload_too_large(&self, _limit: usize) -> Response {
        text(
            StatusCode::PAYLOAD_TOO_LARGE,
            "text/plain; charset=utf-8",
            "no body expected\n".into(),
        )
    }

    fn body_failed(&self, _timed_out: bool) -> Response {
        text(
            StatusCode::BAD_REQUEST,
            "text/plain; charset=utf-8",
            "bad request body\n".into(),
        )
    }

    fn overloaded(&self) -> Response {
        text(
            StatusCode::SERVICE_UNAVAILABLE,
            "text/plain; charset=utf-8",
            "busy\n".into(),
        )
    }

    fn internal_error(&self) -> Response {
        text(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain; charset=utf-8",
            "internal error\n".into(),
        )
    }
}
