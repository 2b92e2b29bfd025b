//! Calls to Zulip's push notification service (the bouncer): `POST <bouncer_url>/api/v1/remotes/
//! <endpoint>` through `ureq` (TLS verified, the environment's proxy for the URL), with HTTP Basic
//! auth of the server's `zulip_org_id`/`zulip_org_key` (none for `server/register`),
//! `User-Agent: ZulipServer/<version>`, 15 s for the whole exchange and a bounded answer; and
//! the error mapping upstream's `send_to_push_bouncer` makes: network errors, timeouts and 5xx
//! are "retry later", a 4xx carries the service's `{code, msg}`.
//!
//! Blocking work runs on a blocking thread. Errors never carry the org key. Must not touch the
//! database or HTTP server types.

use std::time::Duration;

use base64::Engine as _;

use crate::config::ProxyEnv;

use super::credentials::Credentials;

/// How long one call may take, as upstream's `PushBouncerSession`.
pub const TIMEOUT: Duration = Duration::from_secs(15);
/// The largest answer read.
const MAX_ANSWER: u64 = 1024 * 1024;

/// What a call sends.
#[derive(Clone, Debug)]
pub enum Body {
    /// `application/x-www-form-urlencoded`, as upstream's `send_to_push_bouncer` posts dicts.
    Form(Vec<(String, String)>),
    /// `application/json`, as upstream's `send_json_to_push_bouncer`.
    Json(Vec<u8>),
}

/// Why a call failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    /// A network error, a timeout, a 5xx or 429: the call may succeed later.
    RetryLater(String),
    /// A 4xx answer with the service's error code (`INVALID_ZULIP_SERVER`,
    /// `PUSH_NOTIFICATIONS_DISALLOWED`, `INVALID_REMOTE_PUSH_DEVICE_TOKEN`, ...) and message.
    Refused { code: String, msg: String },
    /// Anything else (a 4xx without a JSON error, an unexpected status): not worth repeating.
    Failed(String),
}

impl CallError {
    /// A sentence for the log.
    pub fn describe(&self) -> String {
        match self {
            CallError::RetryLater(m) | CallError::Failed(m) => m.clone(),
            CallError::Refused { code, msg } => format!("{code}: {msg}"),
        }
    }
}

/// Where and as whom to call.
#[derive(Clone, Debug)]
pub struct Service {
    /// `[push] bouncer_url`, no trailing slash.
    pub base_url: String,
    /// `None` for the unauthenticated `server/register`.
    pub credentials: Option<Credentials>,
    pub proxies: ProxyEnv,
    /// The whole exchange's bound ([`TIMEOUT`]).
    pub timeout: Duration,
}

impl Service {
    /// The URL of `endpoint` (e.g. `push/notify`).
    pub fn url(&self, endpoint: &str) -> String {
        format!("{}/api/v1/remotes/{endpoint}", self.base_url)
    }

    /// `POST`s `body` to `endpoint`; the answer's body on a 200.
    pub async fn post(&self, endpoint: &str, body: Body) -> Result<Vec<u8>, CallError> {
        let me = self.clone();
        let endpoint = endpoint.to_string();
        tokio::task::spawn_blocking(move || me.post_blocking(&endpoint, body))
            .await
            .map_err(|_| CallError::Failed("the call panicked".into()))?
    }

    fn post_blocking(&self, endpoint: &str, body: Body) -> Result<Vec<u8>, CallError> {
        let url = self.url(endpoint);
        let target = crate::domain::dtrack::http_get::Target::parse(&url)
            .map_err(|e| CallError::Failed(format!("push.bouncer_url: {e}")))?;
        let proxy = match self.proxies.select(target.https, &target.host, target.port) {
            Some(p) => Some(ureq::Proxy::new(&p.url).map_err(|_| {
                CallError::Failed(format!(
                    "{} in {} is not a usable proxy URL",
                    p.shown(),
                    p.variable
                ))
            })?),
            None => None,
        };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .proxy(proxy)
            .max_redirects(0)
            .http_status_as_error(false)
            .user_agent(format!("ZulipServer/{}", crate::domain::ZULIP_VERSION))
            .timeout_global(Some(self.timeout))
            .build()
            .into();
        let mut req = agent.post(&url);
        if let Some(c) = &self.credentials {
            let pair = format!("{}:{}", c.zulip_org_id, c.zulip_org_key);
            let basic = base64::engine::general_purpose::STANDARD.encode(pair);
            req = req.header("Authorization", format!("Basic {basic}"));
        }
        let sent = match body {
            Body::Form(fields) => {
                req.send_form(fields.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            }
            Body::Json(bytes) => req.content_type("application/json").send(&bytes[..]),
        };
        let mut answer = sent.map_err(|e| {
            CallError::RetryLater(format!(
                "network error while connecting to the push notification service ({url}): {e}"
            ))
        })?;
        let status = answer.status().as_u16();
        let bytes = answer
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_vec()
            .map_err(|e| CallError::RetryLater(format!("{url}: reading the answer: {e}")))?;
        match status {
            200 => Ok(bytes),
            429 | 500..=599 => Err(CallError::RetryLater(format!(
                "the push notification service answered {status} to {endpoint}"
            ))),
            400..=499 => match serde_json::from_slice::<ErrorAnswer>(&bytes) {
                Ok(e) => Err(CallError::Refused {
                    code: e.code.unwrap_or_else(|| "BAD_REQUEST".into()),
                    msg: e.msg,
                }),
                Err(_) => Err(CallError::Failed(format!(
                    "the push notification service answered {status} to {endpoint}"
                ))),
            },
            _ => Err(CallError::Failed(format!(
                "the push notification service answered {status} to {endpoint}"
            ))),
        }
    }
}

#[derive(serde::Deserialize)]
struct ErrorAnswer {
    msg: String,
    code: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(base_url: String, timeout: Duration) -> Service {
        Service {
            base_url,
            credentials: None,
            proxies: ProxyEnv::default(),
            timeout,
        }
    }

    #[tokio::test]
    async fn a_silent_or_absent_service_is_retried_later() {
        // Accepts and never answers.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let s = service(format!("http://{addr}"), Duration::from_millis(300));
        let started = std::time::Instant::now();
        let got = s.post("push/notify", Body::Json(b"{}".to_vec())).await;
        assert!(matches!(got, Err(CallError::RetryLater(_))), "{got:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
        drop(listener);
        let got = s.post("push/notify", Body::Json(b"{}".to_vec())).await;
        assert!(matches!(got, Err(CallError::RetryLater(_))), "{got:?}");
        assert_eq!(
            s.url("push/notify"),
            format!("http://{addr}/api/v1/remotes/push/notify")
        );
    }
}
