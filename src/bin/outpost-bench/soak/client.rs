//! The soak's measurement and wire: [`Stats`] (requests and failures by kind), the keep-alive
//! [`Client`] every task sends through with a timeout, the request builders and the per-task
//! [`Rng`]. Must not touch: what is sent when (the load tasks decide that) or the report.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

/// Requests and failures by kind, and the first failures' details.
#[derive(Default)]
pub(super) struct Stats {
    pub(super) kinds: Mutex<BTreeMap<&'static str, (u64, u64)>>,
    first_errors: Mutex<Vec<String>>,
}

impl Stats {
    pub(super) fn record(&self, kind: &'static str, outcome: &Result<Value, String>) {
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

    pub(super) fn totals(&self) -> (u64, u64) {
        self.kinds.lock().map_or((0, 0), |k| {
            k.values().fold((0, 0), |(a, b), (o, e)| (a + o, b + e))
        })
    }
}

/// One keep-alive HTTP/1.1 connection, opened again after a failure.
pub(super) struct Client {
    addr: SocketAddr,
    conn: Option<hyper::client::conn::http1::SendRequest<Full<Bytes>>>,
}

impl Client {
    pub(super) fn new(addr: SocketAddr) -> Self {
        Client { addr, conn: None }
    }

    /// Sends the request and returns the JSON answer; anything but a 2xx whose body is not a
    /// Zulip error is success (badges are SVG).
    pub(super) async fn send(
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

pub(super) fn request(
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

pub(super) fn form(method: Method, path: &str, auth: &str, body: String) -> Request<Full<Bytes>> {
    request(
        method,
        path,
        ("authorization", auth),
        Some("application/x-www-form-urlencoded"),
        body,
    )
}

pub(super) fn get(path: &str, auth: &str) -> Request<Full<Bytes>> {
    request(
        Method::GET,
        path,
        ("authorization", auth),
        None,
        Bytes::new(),
    )
}

pub(super) fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// A small deterministic generator (xorshift64*), one per task.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(super) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}
