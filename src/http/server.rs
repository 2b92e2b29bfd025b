//! The accept loop and the per-request pipeline shared by every listener.
//!
//! Owns connections, keep-alive, graceful shutdown, request ids and tracing spans, the
//! request-body limit and panic containment. What a request means is the business of the
//! [`Api`] the listener serves; this module never looks at paths or parameters.

use std::future::Future;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::FutureExt as _;
use http_body_util::{BodyExt as _, Limited};
use hyper::body::Incoming;
use hyper::header::{CONTENT_LENGTH, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tracing::Instrument as _;

use super::{Request, Response};

/// How long in-flight requests may take to finish after shutdown begins.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// One API served on a listener: the chat API or the dependency-tracking API.
pub trait Api: Send + Sync + 'static {
    /// Handles a request whose body has been read (within the size limit).
    fn handle(self: Arc<Self>, req: Request) -> BoxFuture<Response>;
    /// The answer to a body over the limit, in this API's error format.
    fn payload_too_large(&self, limit: usize) -> Response;
    /// The answer when a handler panicked, in this API's error format.
    fn internal_error(&self) -> Response;
}

/// Serves `api` on `listener` until `shutdown` resolves, then lets in-flight requests finish
/// (up to a timeout) and returns.
pub async fn serve<A: Api>(
    listener: TcpListener,
    api: Arc<A>,
    max_body: usize,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let next_id = Arc::new(AtomicU64::new(1));
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
                let _ = stream.set_nodelay(true);
                let api = Arc::clone(&api);
                let next_id = Arc::clone(&next_id);
                let service = service_fn(move |req| {
                    let id = next_id.fetch_add(1, Ordering::Relaxed);
                    handle_one(Arc::clone(&api), req, id, peer, max_body)
                });
                // The smallest buffers hyper allows: long-polls park thousands of connections.
                let conn = http1::Builder::new()
                    .keep_alive(true)
                    .max_buf_size(8192)
                    .serve_connection(TokioIo::new(stream), service);
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    if let Err(e) = conn.await {
                        tracing::debug!(error = %e, %peer, "connection ended with an error");
                    }
                });
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

const X_REQUEST_ID: hyper::header::HeaderName =
    hyper::header::HeaderName::from_static("x-request-id");

async fn handle_one<A: Api>(
    api: Arc<A>,
    req: hyper::Request<Incoming>,
    id: u64,
    peer: SocketAddr,
    max_body: usize,
) -> Result<Response, std::convert::Infallible> {
    let span = tracing::info_span!(
        "request",
        id,
        method = %req.method(),
        path = %req.uri().path(),
    );
    let started = Instant::now();
    async move {
        let mut res = respond(api, req, id, peer, max_body).await;
        res.headers_mut()
            .insert(X_REQUEST_ID, HeaderValue::from(id));
        tracing::debug!(
            status = res.status().as_u16(),
            micros = started.elapsed().as_micros() as u64,
            "done"
        );
        Ok(res)
    }
    .instrument(span)
    .await
}

async fn respond<A: Api>(
    api: Arc<A>,
    req: hyper::Request<Incoming>,
    id: u64,
    peer: SocketAddr,
    max_body: usize,
) -> Response {
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max_body as u64) {
        return api.payload_too_large(max_body);
    }
    let (parts, body) = req.into_parts();
    let body: Bytes = match Limited::new(body, max_body).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => {
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some()
            {
                return api.payload_too_large(max_body);
            }
            tracing::debug!(error = %e, "request body could not be read");
            // The client went away or sent a broken body; nobody will read this answer.
            return api.internal_error();
        }
    };
    let request = Request {
        parts,
        body,
        id,
        peer,
    };
    match AssertUnwindSafe(Arc::clone(&api).handle(request))
        .catch_unwind()
        .await
    {
        Ok(res) => res,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(panic = %what, "handler panicked");
            api.internal_error()
        }
    }
}
