//! Test harness: in-process servers on 127.0.0.1:0 with their own temporary data directory,
//! users created through the domain layer, and a small HTTP client returning parsed JSON.
//! A server stops when its `TestServer` is dropped. The shared fixtures live in the submodules:
//! [`org`] (the usual organization and its chat helpers), [`events`] (event queues) and
//! [`dtrack`] (the Dependency-Track listener, teams and keys).

use std::net::SocketAddr;
use std::sync::Arc;

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::header::HeaderMap;
use hyper::{Method, Request};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use tokio::sync::oneshot;

use outpost::app;
use outpost::config::Config;
use outpost::domain::users::{self, NewUser};
use outpost::model::Role;
use outpost::zulip::ChatState;

pub mod bouncer;
pub mod bouncer_e2ee;
pub mod dtrack;
mod events;
mod org;
pub mod smtp;

pub use events::{poll_now, register_queue, wait_events};
pub use org::{Org, narrow_reply, org, org_with};

pub struct TestServer {
    pub addr: SocketAddr,
    /// The Dependency-Track listener, when `[dtrack] enabled`.
    pub dt_addr: Option<SocketAddr>,
    /// The `/metrics` and `/health` listener, when `[metrics] enabled`.
    pub metrics_addr: Option<SocketAddr>,
    pub state: Arc<ChatState>,
    stop: Option<oneshot::Sender<()>>,
    server: Option<app::Server>,
    client: Client<HttpConnector, Full<Bytes>>,
    pub dir: tempfile::TempDir,
}

/// A stopped server's config and data directory, ready to start again.
pub struct Stopped {
    pub config: Config,
    pub dir: tempfile::TempDir,
}

impl Stopped {
    /// The data directory (database, uploads, saved event queues).
    pub fn data_dir(&self) -> &std::path::Path {
        &self.config.data_dir
    }

    /// Starts a new server on the same data directory and config (a new port).
    pub async fn start(self) -> TestServer {
        TestServer::launch(self.config, self.dir).await
    }
}

/// A user the test can authenticate as.
#[derive(Clone, Debug)]
pub struct TestUser {
    pub id: i64,
    pub email: String,
    pub api_key: String,
}

/// An HTTP answer: status, headers and the body parsed as JSON (`Null` if it is not JSON).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
    pub raw: Bytes,
}

impl Reply {
    /// Asserts a Zulip error with this status and code; returns the body.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) -> &Value {
        assert_eq!(self.status, status, "body: {}", self.body);
        assert_eq!(self.body["result"], "error", "body: {}", self.body);
        assert_eq!(self.body["code"], code, "body: {}", self.body);
        &self.body
    }

    /// Asserts a success that matches the vendored schema of `operation`; returns the body.
    #[track_caller]
    pub fn assert_success(&self, operation: &str) -> &Value {
        assert_eq!(self.status, 200, "body: {}", self.body);
        assert_eq!(self.body["result"], "success", "body: {}", self.body);
        assert_eq!(self.body["msg"], "", "body: {}", self.body);
        crate::schema::assert_matches(operation, &self.body);
        &self.body
    }
}

/// Listener limits for tests that run `serve` themselves.
pub fn test_limits() -> outpost::http::server::ServeLimits {
    outpost::http::server::ServeLimits {
        max_connections: 1000,
        header_timeout: std::time::Duration::from_secs(15),
        body_timeout: std::time::Duration::from_secs(60),
        active: Arc::new(std::sync::atomic::AtomicUsize::new(0)),
        uploads: Arc::new(tokio::sync::Semaphore::new(4)),
        trusted_proxies: Arc::from(Vec::new()),
    }
}

pub fn basic(email: &str, key: &str) -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{email}:{key}"))
    )
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::start_with(|_| {}).await
    }

    /// Starts a server after letting the test adjust its config.
    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> TestServer {
        // Server errors show up in a failing test's output.
        let _ = tracing_subscriber::fmt()
            .with_env_filter("warn")
            .with_test_writer()
            .try_init();
        let dir = tempfile::tempdir().expect("temp dir");
        let mut cfg = Config {
            data_dir: dir.path().join("data"),
            ..Config::default()
        };
        cfg.chat.listen = "127.0.0.1:0".parse().unwrap();
        cfg.dtrack.listen = "127.0.0.1:0".parse().unwrap();
        cfg.chat.external_url = "http://outpost.test".into();
        cfg.database.synchronous = outpost::config::Synchronous::Normal;
        // Tests send far more than a person would; the limits have their own tests.
        cfg.limits.user_requests_per_minute = 0;
        cfg.limits.ip_requests_per_minute = 0;
        adjust(&mut cfg);
        Self::launch(cfg, dir).await
    }

    async fn launch(cfg: Config, dir: tempfile::TempDir) -> TestServer {
        let (stop, stopped) = oneshot::channel::<()>();
        let server = app::start(cfg, async {
            let _ = stopped.await;
        })
        .await
        .expect("server starts");
        TestServer {
            addr: server.chat_addr,
            dt_addr: server.dtrack_addr,
            metrics_addr: server.metrics_addr,
            state: Arc::clone(&server.state),
            stop: Some(stop),
            server: Some(server),
            client: Client::builder(TokioExecutor::new()).build_http(),
            dir,
        }
    }

    /// Stops the server the way SIGTERM does (drained, event queues saved) and keeps its data
    /// directory and config for [`Stopped::start`].
    pub async fn stop_gracefully(mut self) -> Stopped {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.wait().await;
        }
        self.keep()
    }

    /// Stops the server without the graceful end (nothing saved), as a crash would leave it.
    pub fn stop_abruptly(mut self) -> Stopped {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        drop(self.server.take());
        self.keep()
    }

    fn keep(&mut self) -> Stopped {
        let placeholder = tempfile::tempdir().expect("temp dir");
        Stopped {
            config: self.state.config.clone(),
            dir: std::mem::replace(&mut self.dir, placeholder),
        }
    }

    /// The TLS of the listeners served over HTTPS (what SIGHUP reloads).
    pub fn tls(&self) -> &app::TlsListeners {
        &self.server.as_ref().expect("running").tls
    }

    /// Stops the server and waits until it has drained.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.wait().await;
        }
    }

    pub async fn user(&self, email: &str, name: &str, role: Role) -> TestUser {
        self.user_with(email, name, role, |_| {}).await
    }

    pub async fn user_with(
        &self,
        email: &str,
        name: &str,
        role: Role,
        adjust: impl FnOnce(&mut NewUser),
    ) -> TestUser {
        let mut new = NewUser {
            email: email.to_string(),
            full_name: name.to_string(),
            role,
            password: None,
            can_create_users: false,
            can_change_user_emails: false,
        };
        adjust(&mut new);
        let (id, api_key) = users::create(&self.state, new).await.expect("user created");
        TestUser {
            id: id.0,
            email: email.to_string(),
            api_key,
        }
    }

    /// Sends a request; `form` goes in the query for GET and in a form body otherwise.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        who: Option<&TestUser>,
        form: &[(&str, &str)],
    ) -> Reply {
        let encoded: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut builder = Request::builder().method(method.clone());
        let body = if method == Method::GET || form.is_empty() {
            let uri = if encoded.is_empty() {
                format!("http://{}{path}", self.addr)
            } else {
                format!("http://{}{path}?{encoded}", self.addr)
            };
            builder = builder.uri(uri);
            Bytes::new()
        } else {
            builder = builder
                .uri(format!("http://{}{path}", self.addr))
                .header("content-type", "application/x-www-form-urlencoded");
            Bytes::from(encoded)
        };
        if let Some(u) = who {
            builder = builder.header("authorization", basic(&u.email, &u.api_key));
        }
        self.send(builder.body(Full::new(body)).unwrap()).await
    }

    pub async fn get(&self, path: &str, who: &TestUser, query: &[(&str, &str)]) -> Reply {
        self.call(Method::GET, path, Some(who), query).await
    }

    pub async fn post(&self, path: &str, who: &TestUser, form: &[(&str, &str)]) -> Reply {
        self.call(Method::POST, path, Some(who), form).await
    }

    pub async fn patch(&self, path: &str, who: &TestUser, form: &[(&str, &str)]) -> Reply {
        self.call(Method::PATCH, path, Some(who), form).await
    }

    pub async fn delete(&self, path: &str, who: &TestUser, form: &[(&str, &str)]) -> Reply {
        self.call(Method::DELETE, path, Some(who), form).await
    }

    /// Sends a hand-built request (its URI is a path; the server address is filled in).
    pub async fn send(&self, mut req: Request<Full<Bytes>>) -> Reply {
        if req.uri().authority().is_none() {
            let uri = format!("http://{}{}", self.addr, req.uri());
            *req.uri_mut() = uri.parse().unwrap();
        }
        let res = self.client.request(req).await.expect("request sent");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let raw = res.into_body().collect().await.unwrap().to_bytes();
        let body = serde_json::from_slice(&raw).unwrap_or(Value::Null);
        Reply {
            status,
            headers,
            body,
            raw,
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A raw request builder for unusual requests (custom headers, bodies, methods).
pub fn raw(method: Method, path: &str) -> hyper::http::request::Builder {
    Request::builder().method(method).uri(path)
}

pub fn body(b: impl Into<Bytes>) -> Full<Bytes> {
    Full::new(b.into())
}

/// A successful `PATCH /realm` answer (upstream's OpenAPI document has no schema for it: its
/// body is the envelope plus what changed); returns the body.
#[track_caller]
pub fn patched(r: &Reply) -> &Value {
    assert_eq!(r.status, 200, "body: {}", r.body);
    assert_eq!(r.body["result"], "success", "body: {}", r.body);
    assert_eq!(r.body["msg"], "", "body: {}", r.body);
    &r.body
}
