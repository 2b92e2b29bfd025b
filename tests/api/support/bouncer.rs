//! A stand-in for Zulip's push notification service (the bouncer) on 127.0.0.1: it implements
//! the requests Outpost makes (`server/register`, `push/register`, `push/unregister`,
//! `push/unregister/all`, `push/notify`, `push/test_notification`, and the encrypted
//! `push/e2ee/register` and `push/e2ee/notify` of `support::bouncer_e2ee`) as upstream's `zilencer`
//! documents them, checks HTTP Basic auth against the servers registered with it and the
//! type of every field (FCM data strings only, the APNs payload's shape), records what it got,
//! and can be told to fail. A request that breaks the schema is answered 400 and recorded in
//! [`Bouncer::problems`]. Its task ends when it is dropped.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

use super::bouncer_e2ee::{Answer, E2ee, E2eeDevice};

/// One request the stand-in got.
#[derive(Clone, Debug)]
pub struct Received {
    /// After `/api/v1/remotes/`, e.g. `push/notify`.
    pub endpoint: String,
    pub user_agent: String,
    pub content_type: String,
    /// The server id of valid Basic credentials.
    pub server: Option<String>,
    /// Form fields (form requests).
    pub form: Vec<(String, String)>,
    /// The JSON body (JSON requests), `Null` otherwise.
    pub json: Value,
}

impl Received {
    pub fn field(&self, name: &str) -> Option<&str> {
        self.form
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct State {
    /// zulip_org_id → zulip_org_key.
    servers: HashMap<String, String>,
    /// (user_id, token_kind, token) the servers registered.
    devices: HashSet<(i64, i64, String)>,
    got: Vec<Received>,
    problems: Vec<String>,
    /// Answer the next this many requests with `fail_status`.
    failures: usize,
    fail_status: u16,
    /// What `push/notify` says of the realm.
    realm: Option<(bool, Option<i64>)>,
    /// `push/notify` answers `PUSH_NOTIFICATIONS_DISALLOWED`.
    disallow: bool,
    /// The encrypted half: its key pair and devices.
    e2ee: E2ee,
}

pub struct Bouncer {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Bouncer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn reply(status: u16, body: Value) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body.to_string())));
    *r.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
    r.headers_mut()
        .insert("content-type", "application/json".parse().unwrap());
    r
}

fn error(status: u16, code: &str, msg: &str) -> Response<Full<Bytes>> {
    reply(status, json!({"result": "error", "code": code, "msg": msg}))
}

fn answer(a: Answer) -> Response<Full<Bytes>> {
    match a {
        Answer::Ok(extra) => success(extra),
        Answer::Err(status, code, msg) => error(status, code, &msg),
    }
}

fn success(extra: Value) -> Response<Full<Bytes>> {
    let mut v = json!({"result": "success", "msg": ""});
    if let (Some(m), Value::Object(e)) = (v.as_object_mut(), extra) {
        m.extend(e);
    }
    reply(200, v)
}

pub fn is_uuid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.iter().map(|p| p.len()).collect::<Vec<_>>() == [8, 4, 4, 4, 12]
        && s.chars().all(|c| c == '-' || c.is_ascii_hexdigit())
}

/// Checks an FCM data object: every value a string.
fn check_fcm(v: &Value, problems: &mut Vec<String>) {
    match v.as_object() {
        Some(m) => {
            for (k, x) in m {
                if !x.is_string() {
                    problems.push(format!("gcm_payload.{k} is not a string: {x}"));
                }
            }
        }
        None => problems.push("gcm_payload is not an object".into()),
    }
}

/// Checks an APNs payload: `{alert?: {title, subtitle, body}, sound?, badge: int, custom: {zulip: {...}}}`.
fn check_apns(v: &Value, problems: &mut Vec<String>) {
    let Some(m) = v.as_object() else {
        problems.push("apns_payload is not an object".into());
        return;
    };
    for k in m.keys() {
        if !["alert", "sound", "badge", "custom"].contains(&k.as_str()) {
            problems.push(format!("apns_payload has an unknown key {k}"));
        }
    }
    if !m.get("badge").is_some_and(Value::is_i64) {
        problems.push("apns_payload.badge is not an integer".into());
    }
    if let Some(a) = m.get("alert") {
        for f in ["title", "subtitle", "body"] {
            if !a.get(f).is_some_and(Value::is_string) {
                problems.push(format!("apns_payload.alert.{f} is not a string"));
            }
        }
    }
    if m.get("sound").is_some_and(|s| !s.is_string()) {
        problems.push("apns_payload.sound is not a string".into());
    }
    if !m
        .get("custom")
        .and_then(|c| c.get("zulip"))
        .is_some_and(Value::is_object)
    {
        problems.push("apns_payload.custom.zulip is not an object".into());
    }
}

fn strings(v: &Value, name: &str, problems: &mut Vec<String>) -> Vec<String> {
    match v.get(name).and_then(Value::as_array) {
        Some(a) if a.iter().all(Value::is_string) => {
            a.iter().map(|x| x.as_str().unwrap().to_string()).collect()
        }
        _ => {
            problems.push(format!("{name} is not a list of strings"));
            Vec::new()
        }
    }
}

impl Bouncer {
    pub async fn start() -> Bouncer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        let s = Arc::clone(&state);
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let s = Arc::clone(&s);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req: Request<_>| {
                        let s = Arc::clone(&s);
                        async move { Ok::<_, Infallible>(handle(&s, req).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Bouncer { addr, state, task }
    }

    /// The base URL (`[push] bouncer_url`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Knows a server registered earlier.
    pub fn know(&self, org_id: &str, org_key: &str) {
        let mut s = self.state.lock().unwrap();
        s.servers.insert(org_id.into(), org_key.into());
    }

    /// Forgets a device (as the bouncer does when APNs/FCM reject it).
    pub fn forget_device(&self, user_id: i64, token_kind: i64, token: &str) {
        let mut s = self.state.lock().unwrap();
        s.devices.remove(&(user_id, token_kind, token.to_string()));
    }

    pub fn devices(&self) -> HashSet<(i64, i64, String)> {
        self.state.lock().unwrap().devices.clone()
    }

    /// Answers the next `n` requests with `status`.
    pub fn fail(&self, n: usize, status: u16) {
        let mut s = self.state.lock().unwrap();
        s.failures = n;
        s.fail_status = status;
    }

    pub fn set_realm(&self, realm: Option<(bool, Option<i64>)>) {
        self.state.lock().unwrap().realm = realm;
    }

    pub fn disallow(&self, yes: bool) {
        self.state.lock().unwrap().disallow = yes;
    }

    /// The bouncer's public key (`bouncer_public_key`).
    pub fn public_key(&self) -> String {
        self.state.lock().unwrap().e2ee.public_key()
    }

    /// A registration (`{token_kind, token, timestamp, ios_app_id?}`) sealed to this bouncer.
    pub fn seal_registration(&self, plain: &Value) -> String {
        self.state.lock().unwrap().e2ee.seal_registration(plain)
    }

    /// The encrypted registrations it took, by device id.
    pub fn e2ee_devices(&self) -> HashMap<i64, E2eeDevice> {
        self.state.lock().unwrap().e2ee.devices.clone()
    }

    /// Forgets an encrypted device (as when APNs/FCM reject its token).
    pub fn forget_e2ee_device(&self, id: i64) {
        self.state.lock().unwrap().e2ee.devices.remove(&id);
    }

    pub fn got(&self) -> Vec<Received> {
        self.state.lock().unwrap().got.clone()
    }

    /// The requests to `endpoint` so far.
    pub fn got_at(&self, endpoint: &str) -> Vec<Received> {
        self.got()
            .into_iter()
            .filter(|r| r.endpoint == endpoint)
            .collect()
    }

    pub fn problems(&self) -> Vec<String> {
        self.state.lock().unwrap().problems.clone()
    }

    /// Waits (at most 20 s) until `n` requests to `endpoint` have been answered.
    pub async fn wait_for(&self, endpoint: &str, n: usize) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let got = self.got_at(endpoint);
            if got.len() >= n {
                return got;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{n} requests to {endpoint} expected, got {}: {:?}",
                got.len(),
                self.got()
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

async fn handle(s: &Mutex<State>, req: Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
    let header = |n: &str| {
        req.headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    };
    let (user_agent, content_type, auth) = (
        header("user-agent"),
        header("content-type"),
        header("authorization"),
    );
    let path = req.uri().path().to_string();
    let method = req.method().clone();
    let body = req.into_body().collect().await.unwrap().to_bytes();
    let Some(endpoint) = path.strip_prefix("/api/v1/remotes/").map(str::to_string) else {
        return error(404, "BAD_REQUEST", "not a bouncer path");
    };
    let form: Vec<(String, String)> =
        if content_type.starts_with("application/x-www-form-urlencoded") {
            form_urlencoded::parse(&body).into_owned().collect()
        } else {
            Vec::new()
        };
    let json_body: Value = if content_type.starts_with("application/json") {
        serde_json::from_slice(&body).unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    let mut st = s.lock().unwrap();
    // Basic auth: zulip_org_id / zulip_org_key of a registered server.
    let server = auth
        .strip_prefix("Basic ")
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|p| {
            p.split_once(':')
                .map(|(a, b)| (a.to_string(), b.to_string()))
        })
        .filter(|(id, key)| st.servers.get(id) == Some(key))
        .map(|(id, _)| id);
    st.got.push(Received {
        endpoint: endpoint.clone(),
        user_agent: user_agent.clone(),
        content_type: content_type.clone(),
        server: server.clone(),
        form: form.clone(),
        json: json_body.clone(),
    });
    if st.failures > 0 {
        st.failures -= 1;
        let status = st.fail_status;
        return error(status, "INTERNAL_SERVER_ERROR", "failing as told");
    }
    if method != hyper::Method::POST {
        st.problems.push(format!("{method} {endpoint}"));
        return error(405, "BAD_REQUEST", "POST only");
    }
    if !user_agent.starts_with("ZulipServer/") {
        st.problems.push(format!("User-Agent {user_agent:?}"));
    }
    let f = |name: &str| form.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let mut problems = Vec::new();
    let answer = match endpoint.as_str() {
        "server/register" => {
            if !auth.is_empty() {
                problems.push("server/register carries credentials".into());
            }
            let (id, key) = (
                f("zulip_org_id").unwrap_or_default(),
                f("zulip_org_key").unwrap_or_default(),
            );
            if !is_uuid(&id) || key.len() != 64 {
                return error(400, "BAD_REQUEST", "Invalid zulip_org_id or zulip_org_key");
            }
            let host = f("hostname").unwrap_or_default();
            if host.is_empty() || host.contains('/') {
                problems.push(format!("hostname {host:?}"));
            }
            if !f("contact_email").unwrap_or_default().contains('@') {
                problems.push("contact_email".into());
            }
            let created = match st.servers.get(&id) {
                Some(k) if *k != key => {
                    return error(
                        403,
                        "INVALID_ZULIP_SERVER",
                        "Zulip server auth failure: key does not match role uuid",
                    );
                }
                Some(_) => false,
                None => true,
            };
            let new_key = f("new_org_key");
            st.servers.insert(id, new_key.unwrap_or(key));
            success(json!({"created": created}))
        }
        _ if server.is_none() => error(
            401,
            "INVALID_ZULIP_SERVER",
            "Zulip server auth failure: this server is not registered",
        ),
        "push/register" | "push/unregister" => {
            let user_id = f("user_id").and_then(|u| u.parse::<i64>().ok());
            let kind = f("token_kind").and_then(|k| k.parse::<i64>().ok());
            let token = f("token").unwrap_or_default();
            for k in ["server_uuid", "realm_uuid"] {
                if !f(k).is_some_and(|v| is_uuid(&v)) {
                    problems.push(format!("{endpoint}: {k} is not a UUID"));
                }
            }
            match (user_id, kind) {
                (Some(u), Some(k @ (1 | 2))) if !token.is_empty() => {
                    if endpoint == "push/register" {
                        if k == 1 && f("ios_app_id").is_none_or(|a| a.is_empty()) {
                            return error(400, "BAD_REQUEST", "Missing ios_app_id");
                        }
                        if k == 2 && f("ios_app_id").is_some() {
                            problems.push("ios_app_id for an FCM token".into());
                        }
                        st.devices.insert((u, k, token));
                        success(json!({}))
                    } else if st.devices.remove(&(u, k, token)) {
                        success(json!({}))
                    } else {
                        error(400, "BAD_REQUEST", "Token does not exist")
                    }
                }
                _ => return error(400, "BAD_REQUEST", "Invalid user_id, token_kind or token"),
            }
        }
        "push/unregister/all" => match f("user_id").and_then(|u| u.parse::<i64>().ok()) {
            Some(u) => {
                st.devices.retain(|d| d.0 != u);
                success(json!({}))
            }
            None => error(400, "BAD_REQUEST", "Invalid user_id"),
        },
        "push/notify" => {
            let v = &json_body;
            if !content_type.starts_with("application/json") {
                problems.push("push/notify is not JSON".into());
            }
            let user = v.get("user_id").and_then(Value::as_i64);
            if user.is_none() {
                problems.push("user_id is not an integer".into());
            }
            if !v
                .get("realm_uuid")
                .and_then(Value::as_str)
                .is_some_and(is_uuid)
            {
                problems.push("realm_uuid is not a UUID".into());
            }
            check_fcm(&v["gcm_payload"], &mut problems);
            check_apns(&v["apns_payload"], &mut problems);
            match v
                .get("gcm_options")
                .and_then(|o| o.get("priority"))
                .and_then(Value::as_str)
            {
                Some("high" | "normal") => {}
                _ => problems.push("gcm_options.priority".into()),
            }
            let android = strings(v, "android_devices", &mut problems);
            let apple = strings(v, "apple_devices", &mut problems);
            if st.disallow {
                return error(
                    400,
                    "PUSH_NOTIFICATIONS_DISALLOWED",
                    "Your plan doesn't allow sending push notifications.",
                );
            }
            let u = user.unwrap_or_default();
            let gone = |kind: i64, list: &[String]| -> Vec<String> {
                list.iter()
                    .filter(|t| !st.devices.contains(&(u, kind, (*t).clone())))
                    .cloned()
                    .collect()
            };
            let (dead_android, dead_apple) = (gone(2, &android), gone(1, &apple));
            let realm = st.realm.map(
                |(can_push, end)| json!({"can_push": can_push, "expected_end_timestamp": end}),
            );
            success(json!({
                "total_android_devices": android.len() - dead_android.len(),
                "total_apple_devices": apple.len() - dead_apple.len(),
                "deleted_devices": {"android_devices": dead_android, "apple_devices": dead_apple},
                "realm": realm,
            }))
        }
        "push/test_notification" => {
            let v = &json_body;
            let user = v.get("user_id").and_then(Value::as_i64).unwrap_or_default();
            let kind = v
                .get("token_kind")
                .and_then(Value::as_i64)
                .unwrap_or_default();
            let token = v.get("token").and_then(Value::as_str).unwrap_or_default();
            if !v.get("base_payload").is_some_and(Value::is_object) {
                problems.push("base_payload is not an object".into());
            }
            if !v
                .get("realm_uuid")
                .and_then(Value::as_str)
                .is_some_and(is_uuid)
            {
                problems.push("realm_uuid is not a UUID".into());
            }
            if st.devices.contains(&(user, kind, token.to_string())) {
                success(json!({}))
            } else {
                error(
                    400,
                    "INVALID_REMOTE_PUSH_DEVICE_TOKEN",
                    "Device not recognized by the push bouncer",
                )
            }
        }
        "push/e2ee/register" => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs() as i64;
            answer(st.e2ee.register(&f, now))
        }
        "push/e2ee/notify" => {
            if !content_type.starts_with("application/json") {
                problems.push("push/e2ee/notify is not JSON".into());
            }
            answer(st.e2ee.notify(&json_body, &mut problems))
        }
        other => error(404, "BAD_REQUEST", &format!("unknown endpoint {other}")),
    };
    if !problems.is_empty() {
        st.problems
            .extend(problems.iter().map(|p| format!("{endpoint}: {p}")));
        return error(400, "BAD_REQUEST", &problems.join("; "));
    }
    answer
}
