//! Calibration for the long-poll scenarios: a bare hyper server that speaks just enough of the
//! chat API for `delivery` and `parked` (create a channel, register, send, poll) and does
//! nothing else: no authentication, storage, permissions or per-queue state. Every poll waits
//! on one shared `Notify` and answers the newest message as a ~1 KB event, the size of a real
//! message event.
//!
//! `outpost-bench delivery --floor` runs the same generator against it (as a child process, like
//! `outpost serve`), which shows what this machine and this generator can do at best; the gap
//! between that and the real server is the server's own cost.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::sync::Notify;

/// Serves every request on a new loopback port with `body` (as JSON) after reading the
/// request's body, until the runtime stops; returns the port's address. The calibration for
/// request scenarios: the same bytes on the wire as Outpost's answer, and no work at all.
pub async fn serve_static(body: Bytes) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| super::fail(&format!("floor server: {e}")));
    let addr = listener
        .local_addr()
        .unwrap_or_else(|e| super::fail(&format!("floor server: {e}")));
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let body = body.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req: Request<hyper::body::Incoming>| {
                    let body = body.clone();
                    async move {
                        let _ = req.into_body().collect().await;
                        let mut res = Response::new(Full::new(body));
                        res.headers_mut().insert(
                            hyper::header::CONTENT_TYPE,
                            hyper::header::HeaderValue::from_static("application/json"),
                        );
                        Ok::<_, Infallible>(res)
                    }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    addr
}

struct Floor {
    notify: Notify,
    /// The newest message: (event id, its number in the generator's sequence).
    newest: Mutex<(i64, u64)>,
    next_id: AtomicI64,
    padding: String,
}

/// Serves until the process is killed.
pub fn serve(addr: SocketAddr) -> ! {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let floor = Arc::new(Floor {
            notify: Notify::new(),
            newest: Mutex::new((-1, 0)),
            next_id: AtomicI64::new(0),
            padding: "x".repeat(800),
        });
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .unwrap_or_else(|e| super::fail(&format!("floor server: {e}")));
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let floor = Arc::clone(&floor);
            tokio::spawn(async move {
                let service = service_fn(move |req| answer(Arc::clone(&floor), req));
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

async fn answer(
    floor: Arc<Floor>,
    req: Request<hyper::body::Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or_default().to_string();
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let text = if path.ends_with("/events") {
        let last: i64 = query
            .split("last_event_id=")
            .nth(1)
            .and_then(|v| v.split('&').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(-1);
        loop {
            let notified = floor.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let (id, k) = *floor.newest.lock().unwrap_or_else(|p| p.into_inner());
            if id > last {
                break format!(
                    "{{\"result\":\"success\",\"msg\":\"\",\"events\":[{{\"type\":\"message\",\"flags\":[],\"message\":{{\"content\":\"delivery {k}\",\"padding\":\"{}\"}},\"id\":{id}}}],\"queue_id\":\"floor:0\"}}",
                    floor.padding
                );
            }
            notified.await;
        }
    } else if path.ends_with("/messages") {
        let form = String::from_utf8_lossy(&body);
        let k = form
            .split("delivery+")
            .nth(1)
            .and_then(|rest| super::realtime::leading_number(rest).parse().ok())
            .unwrap_or(0);
        let id = floor.next_id.fetch_add(1, Ordering::SeqCst);
        *floor.newest.lock().unwrap_or_else(|p| p.into_inner()) = (id, k);
        floor.notify.notify_waiters();
        format!("{{\"result\":\"success\",\"msg\":\"\",\"id\":{id}}}")
    } else if path.ends_with("/register") {
        "{\"result\":\"success\",\"msg\":\"\",\"queue_id\":\"floor:0\",\"last_event_id\":-1}".into()
    } else {
        "{\"result\":\"success\",\"msg\":\"\"}".into()
    };
    Ok(Response::new(Full::new(Bytes::from(text))))
}
