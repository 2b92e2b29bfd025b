//! The accept loop and the per-request pipeline shared by every listener.
//!
//! Owns connections, keep-alive, graceful shutdown, request ids and tracing spans, the
//! connection cap, the header and body timeouts, the body limits and panic containment. A
//! request is handled in two steps: the listener's [`Api`] first *admits* it from its head alone
//! (route, method, credentials), which also sets how large its body may be; only then is the
//! body read, within that limit and the body timeout, and the request handled. So nobody who
//! cannot authenticate can make the server hold a large body. What a request means is the
//! business of the [`Api`]; this module never looks at paths or parameters.

use std::borrow::Cow;
use std::future::Future;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::FutureExt as _;
use http_body_util::{BodyExt as _, Limited};
use hyper::body::{Body as _, Incoming};
use hyper::header::{CONTENT_LENGTH, HeaderValue};
use hyper::http::request::Parts;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tracing::Instrument as _;

use super::{Request, Response};

/// How long in-flight requests may take to finish after shutdown begins.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Bodies larger than this are parsed off the async workers by the APIs that parse them.
pub const LARGE_BODY: usize = 64 * 1024;

pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// What an [`Api`] decided from a request's head: its own ticket for [`Api::handle`], and the
/// largest body this request may carry.
pub struct Admission<T> {
    pub ticket: T,
    pub body_limit: usize,
    /// A large upload: it needs one of the few upload slots while its body is read and handled.
    pub upload: bool,
}

/// One API served on a listener: the chat API or the dependency-tracking API.
pub trait Api: Send + Sync + 'static {
    /// What admission hands to `handle` (the resolved endpoint, the authenticated caller).
    type Ticket: Send + 'static;

    /// Resolves and authenticates a request from its head, before any body byte is read. An
    /// `Err` is the answer (unknown route, wrong method, bad credentials) and the body is never
    /// read.
    fn admit(
        &self,
        head: &Parts,
        peer: SocketAddr,
    ) -> impl Future<Output = Result<Admission<Self::Ticket>, Response>> + Send;

    /// Handles an admitted request whose body has been read within its limit.
    fn handle(self: Arc<Self>, ticket: Self::Ticket, req: Request) -> BoxFuture<Response>;

    /// The answer to a body over the limit, in this API's error format.
    fn payload_too_large(&self, limit: usize) -> Response;
    /// The answer to a body that did not arrive in time or broke off, in this API's format.
    fn body_failed(&self, timed_out: bool) -> Response;
    /// The answer to a connection (or an upload) over the cap, in this API's format.
    fn overloaded(&self) -> Response;
    /// The answer when a handler panicked, in this API's error format. It must not log: the
    /// panic itself was reported once by the panic hook.
    fn internal_error(&self) -> Response;
    /// This listener's request counters, if it keeps any (`/metrics`).
    fn metrics(&self) -> Option<&crate::metrics::RequestMetrics> {
        None
    }
    /// The route an admitted request is for: an index into the names its metrics were made
    /// with.
    fn route_index(&self, _ticket: &Self::Ticket) -> Option<usize> {
        None
    }
    /// The request path as it may be logged: secrets in it replaced.
    fn loggable_path<'a>(&self, path: &'a str) -> Cow<'a, str> {
        Cow::Borrowed(path)
    }
}

/// Connection and request limits of a listener; `active` is shared by all listeners of a
/// process so the cap counts every connection.
#[derive(Clone)]
pub struct ServeLimits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub body_timeout: Duration,
    pub active: Arc<AtomicUsize>,
    /// Slots for uploads in progress (bodies over the ordinary limit), shared by all listeners,
    /// so large bodies held in memory at once are bounded.
    pub uploads: Arc<Semaphore>,
    /// Reverse proxies whose `X-Forwarded-For` names the client (`[limits] trusted_proxies`).
    pub trusted_proxies: Arc<[std::net::IpAddr]>,
}

/// How many `X-Forwarded-For` entries are looked at, from the right.
const MAX_FORWARDED_HOPS: usize = 16;

/// The client's address: the peer's, unless the peer is a trusted proxy, then the nearest
/// address in `X-Forwarded-For` (read from the right, skipping trusted proxies) that is not
/// one; a missing or malformed header leaves the peer's.
pub fn client_addr(
    headers: &hyper::HeaderMap,
    peer: SocketAddr,
    trusted: &[std::net::IpAddr],
) -> SocketAddr {
    if !trusted.contains(&peer.ip()) {
        return peer;
    }
    let entries = headers
        .get_all("x-forwarded-for")
        .iter()
        .rev()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.rsplit(','))
        .take(MAX_FORWARDED_HOPS);
    for entry in entries {
        let Ok(ip) = entry.trim().parse::<std::net::IpAddr>() else {
            return peer;
        };
        if !trusted.contains(&ip) {
            return SocketAddr::new(ip, peer.port());
        }
    }
    peer
}

/// Decrements the open-connection count when a connection ends.
struct ConnSlot(Arc<AtomicUsize>);

impl Drop for ConnSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Serves `api` on `listener` until `shutdown` resolves, then lets in-flight requests finish
/// (up to a timeout) and returns.
pub async fn serve<A: Api>(
    listener: TcpListener,
    api: Arc<A>,
    limits: ServeLimits,
    shutdown: impl Future<Output = ()>,
) {
    serve_with(listener, api, limits, None, shutdown).await
}

/// As [`serve`], over TLS: each connection first completes a TLS handshake within the
/// header timeout (a slow or silent client cannot hold a connection slot longer than a slow
/// request head could); one that fails or times out is closed. A connection over the cap is
/// closed without an answer (a plain-text 503 would mean nothing to a TLS client).
pub async fn serve_tls<A: Api>(
    listener: TcpListener,
    api: Arc<A>,
    limits: ServeLimits,
    tls: Arc<super::tls::ServerTls>,
    shutdown: impl Future<Output = ()>,
) {
    serve_with(listener, api, limits, Some(tls), shutdown).await
}

async fn serve_with<A: Api>(
    listener: TcpListener,
    api: Arc<A>,
    limits: ServeLimits,
    tls: Option<Arc<super::tls::ServerTls>>,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let next_id = Arc::new(AtomicU64::new(1));
    let mut last_refusal_log: Option<Instant> = None;
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(x) => x,
                    Err(e) => {
                        // Typically EMFILE: back off instead of spinning.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                if limits.active.fetch_add(1, Ordering::Relaxed) >= limits.max_connections {
                    limits.active.fetch_sub(1, Ordering::Relaxed);
                    if tls.is_none() {
                        refuse(&stream, &*api);
                    }
                    if last_refusal_log.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) {
                        last_refusal_log = Some(Instant::now());
                        tracing::warn!(
                            max = limits.max_connections,
                            "connection limit reached; refusing new connections"
                        );
                    }
                    continue;
                }
                let slot = ConnSlot(Arc::clone(&limits.active));
                let _ = stream.set_nodelay(true);
                let api = Arc::clone(&api);
                let next_id = Arc::clone(&next_id);
                let body_timeout = limits.body_timeout;
                let uploads = Arc::clone(&limits.uploads);
                let trusted = Arc::clone(&limits.trusted_proxies);
                let service = service_fn(move |req: hyper::Request<Incoming>| {
                    let id = next_id.fetch_add(1, Ordering::Relaxed);
                    let uploads = Arc::clone(&uploads);
                    let client = client_addr(req.headers(), peer, &trusted);
                    handle_one(Arc::clone(&api), req, id, client, body_timeout, uploads)
                });
                let header_timeout = limits.header_timeout;
                match &tls {
                    None => {
                        let conn = graceful.watch(http_conn(stream, service, header_timeout));
                        tokio::spawn(async move {
                            let _slot = slot;
                            if let Err(e) = conn.await {
                                tracing::debug!(error = %e, %peer, "connection ended with an error");
                            }
                        });
                    }
                    Some(tls) => {
                        let acceptor = tls.acceptor().clone();
                        let watcher = graceful.watcher();
                        tokio::spawn(async move {
                            let _slot = slot;
                            let stream = match tokio::time::timeout(
                                header_timeout,
                                acceptor.accept(stream),
                            )
                            .await
                            {
                                Ok(Ok(s)) => s,
                                Ok(Err(e)) => {
                                    tracing::debug!(error = %e, %peer, "TLS handshake failed");
                                    return;
                                }
                                Err(_) => {
                                    tracing::debug!(%peer, "TLS handshake timed out");
                                    return;
                                }
                            };
                            if stream.get_ref().1.alpn_protocol() == Some(super::tls::ACME_TLS_ALPN) {
                                // A TLS-ALPN-01 validation: the handshake was the answer.
                                tracing::debug!(%peer, "ACME TLS-ALPN-01 validation handshake");
                                return;
                            }
                            let conn = watcher.watch(http_conn(stream, service, header_timeout));
                            if let Err(e) = conn.await {
                                tracing::debug!(error = %e, %peer, "connection ended with an error");
                            }
                        });
                    }
                }
            }
            _ = &mut shutdown => break,
        }
    }
    drop(listener);
    if tokio::time::timeout(DRAIN_TIMEOUT, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("some connections did not finish within the drain timeout");
    }
}

/// One HTTP/1.1 connection over `io`. The smallest buffers hyper allows: long-polls park
/// thousands of connections. The header timeout also bounds how long a keep-alive connection
/// may idle.
fn http_conn<I, S>(io: I, service: S, header_timeout: Duration) -> http1::Connection<TokioIo<I>, S>
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    S: hyper::service::HttpService<Incoming, ResBody = http_body_util::Full<Bytes>>,
{
    http1::Builder::new()
        .keep_alive(true)
        .max_buf_size(8192)
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .serve_connection(TokioIo::new(io), service)
}

/// Answers a connection over the cap with the API's 503 and closes it, without waiting: the
/// answer is small enough for the socket buffer, and a refused peer must not hold a task.
fn refuse<A: Api>(stream: &TcpStream, api: &A) {
    let res = api.overloaded();
    let (parts, body) = res.into_parts();
    let body = body
        .collect()
        .now_or_never()
        .and_then(Result::ok)
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let mut out = format!(
        "HTTP/1.1 {} {}\r\nconnection: close\r\ncontent-length: {}\r\n",
        parts.status.as_u16(),
        parts.status.canonical_reason().unwrap_or(""),
        body.len()
    )
    .into_bytes();
    for (name, value) in &parts.headers {
        if name == CONTENT_LENGTH {
            continue;
        }
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&body);
    let _ = stream.try_write(&out);
}

const X_REQUEST_ID: hyper::header::HeaderName =
    hyper::header::HeaderName::from_static("x-request-id");

async fn handle_one<A: Api>(
    api: Arc<A>,
    req: hyper::Request<Incoming>,
    id: u64,
    peer: SocketAddr,
    body_timeout: Duration,
    uploads: Arc<Semaphore>,
) -> Result<Response, std::convert::Infallible> {
    let span = tracing::info_span!(
        "request",
        id,
        method = %req.method(),
        path = %api.loggable_path(req.uri().path()),
    );
    let started = Instant::now();
    async move {
        let mut route = None;
        let mut res = respond(&api, req, id, peer, body_timeout, &uploads, &mut route).await;
        res.headers_mut()
            .insert(X_REQUEST_ID, HeaderValue::from(id));
        let took = started.elapsed();
        if let Some(m) = api.metrics() {
            m.record(route, res.status().as_u16(), took);
        }
        tracing::debug!(
            status = res.status().as_u16(),
            micros = took.as_micros() as u64,
            "done"
        );
        Ok(res)
    }
    .instrument(span)
    .await
}

/// Admits, reads the body and handles one request; sets `route` once it is admitted.
async fn respond<A: Api>(
    api: &Arc<A>,
    req: hyper::Request<Incoming>,
    id: u64,
    peer: SocketAddr,
    body_timeout: Duration,
    uploads: &Arc<Semaphore>,
    route: &mut Option<usize>,
) -> Response {
    let (parts, body) = req.into_parts();
    let admitted = match AssertUnwindSafe(api.admit(&parts, peer))
        .catch_unwind()
        .await
    {
        Ok(Ok(a)) => a,
        Ok(Err(answer)) => return answer,
        // The panic hook has reported it; the answer is the API's internal error.
        Err(_) => return api.internal_error(),
    };
    *route = api.route_index(&admitted.ticket);
    let limit = admitted.body_limit;
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return api.payload_too_large(limit);
    }
    // Held until the answer is ready, so the upload's buffers are gone before the slot frees.
    let _upload_slot = if admitted.upload {
        match Arc::clone(uploads).try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => {
                tracing::debug!("all upload slots are taken");
                return api.overloaded();
            }
        }
    } else {
        None
    };
    let body: Bytes = if body.is_end_stream() {
        // No body (a GET, a long-poll): no timer, no buffer.
        Bytes::new()
    } else {
        match tokio::time::timeout(body_timeout, Limited::new(body, limit).collect()).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(e)) => {
                if e.downcast_ref::<http_body_util::LengthLimitError>()
                    .is_some()
                {
                    return api.payload_too_large(limit);
                }
                // The client went away or sent a broken body: nothing of ours failed.
                tracing::debug!(error = %e, "request body broke off");
                return api.body_failed(false);
            }
            Err(_) => {
                tracing::debug!(secs = body_timeout.as_secs(), "request body timed out");
                return api.body_failed(true);
            }
        }
    };
    let request = Request {
        parts,
        body,
        id,
        peer,
    };
    match AssertUnwindSafe(Arc::clone(api).handle(admitted.ticket, request))
        .catch_unwind()
        .await
    {
        Ok(res) => res,
        Err(_) => api.internal_error(),
    }
}

/// Reports every panic once, through the log, with its location; installed by `serve`. The
/// request or job that panicked is contained by its own `catch_unwind` and logs nothing more.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        tracing::error!(panic = %what, at = %at, "a task panicked; it was contained");
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_clients_count_only_behind_trusted_proxies() {
        let proxy: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let other: SocketAddr = "192.0.2.1:4000".parse().unwrap();
        let trusted: Vec<std::net::IpAddr> =
            vec!["127.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap()];
        let with = |v: &[&str]| {
            let mut h = hyper::HeaderMap::new();
            for x in v {
                h.append("x-forwarded-for", x.parse().unwrap());
            }
            h
        };
        let ip = |a: SocketAddr| a.ip().to_string();
        let h = with(&["203.0.113.5, 198.51.100.1"]);
        assert_eq!(ip(client_addr(&h, proxy, &trusted)), "198.51.100.1");
        assert_eq!(client_addr(&h, other, &trusted), other);
        // Proxies in a chain are skipped; the nearest untrusted address wins.
        let h = with(&["203.0.113.5", "198.51.100.1, 10.0.0.2"]);
        assert_eq!(ip(client_addr(&h, proxy, &trusted)), "198.51.100.1");
        // Missing, malformed or only trusted: the peer.
        assert_eq!(client_addr(&with(&[]), proxy, &trusted), proxy);
        assert_eq!(client_addr(&with(&["bogus"]), proxy, &trusted), proxy);
        assert_eq!(client_addr(&with(&["10.0.0.2"]), proxy, &trusted), proxy);
    }
}
