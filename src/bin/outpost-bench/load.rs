//! The request load itself: what one connection sends ([`Spec`]), driving `--connections`
//! keep-alive HTTP/1.1 (or HTTPS) connections for `--seconds`, and the figures that come out
//! ([`Report`], printed on one line). Must not touch: the server's state or its data (scenarios
//! prepare that), nor parse arguments.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::{Args, fail};

/// What one connection sends, over and over (`{n}` in the body is replaced by a counter).
#[derive(Clone)]
pub struct Spec {
    pub method: Method,
    pub path: String,
    pub body: Option<String>,
    /// (header name, value) of the credential, if any.
    pub credential: Option<(&'static str, String)>,
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

/// Prints a request scenario's figures on one line.
pub fn print_report(args: &Args, report: &Report) {
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

pub struct Report {
    pub requests: u64,
    pub errors: u64,
    /// Sorted latencies in microseconds.
    pub latencies: Vec<u32>,
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
pub async fn probe(addr: SocketAddr, spec: &Spec) -> Bytes {
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

pub async fn run_load(
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

pub async fn connection_loop(
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
pub async fn http1_over(
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
