//! Helpers for the Dependency-Track tests: a server with the Dependency-Track listener on
//! 127.0.0.1:0, teams with keys created through the domain layer, and raw requests.

use base64::Engine as _;
use bytes::Bytes;
use hyper::Method;
use serde_json::Value;

use outpost::config::Config;
use outpost::domain::dtrack::identity;
use outpost::domain::dtrack::permissions::{PermSet, Permission};

use crate::support::{Reply, TestServer, body, raw};

pub struct Dt {
    pub server: TestServer,
}

/// A team and its full API key.
pub struct Key {
    pub team_uuid: String,
    pub key: String,
}

impl Dt {
    pub async fn start() -> Dt {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> Dt {
        let server = TestServer::start_with(|c| {
            c.dtrack.enabled = true;
            adjust(c);
        })
        .await;
        assert!(server.dt_addr.is_some());
        Dt { server }
    }

    /// A team holding `perms`, with one API key.
    pub async fn key(&self, name: &str, perms: &[Permission]) -> Key {
        let set: PermSet = perms.iter().copied().collect();
        let team = identity::create_team(&self.server.state, name, set, true)
            .await
            .unwrap();
        Key {
            team_uuid: team.uuid.clone(),
            key: team.api_keys[0].key.clone().unwrap(),
        }
    }

    /// Sends a request to the Dependency-Track listener.
    pub async fn req(
        &self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        payload: impl Into<Bytes>,
    ) -> Reply {
        let uri = format!("http://{}{path}", self.server.dt_addr.unwrap());
        let mut b = raw(method, &uri);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        self.server.send(b.body(body(payload)).unwrap()).await
    }

    pub async fn get(&self, path: &str, key: &Key) -> Reply {
        self.req(Method::GET, path, &[("X-Api-Key", &key.key)], "")
            .await
    }

    /// Sends JSON with a key.
    pub async fn json(&self, method: Method, path: &str, key: &Key, v: &Value) -> Reply {
        self.req(
            method,
            path,
            &[
                ("X-Api-Key", &key.key),
                ("content-type", "application/json"),
            ],
            v.to_string(),
        )
        .await
    }

    /// Creates a project through the API; returns its JSON.
    pub async fn project(&self, key: &Key, v: Value) -> Value {
        let r = self.json(Method::PUT, "/api/v1/project", key, &v).await;
        assert_eq!(r.status, 201, "{:?}", r.raw);
        r.body
    }

    /// Creates a component in a project; returns its uuid.
    pub async fn component(&self, key: &Key, project: &str, name: &str) -> String {
        let r = self
            .json(
                Method::PUT,
                &format!("/api/v1/component/project/{project}"),
                key,
                &serde_json::json!({"name": name, "version": "1.0"}),
            )
            .await;
        assert_eq!(r.status, 201, "{:?}", r.raw);
        r.body["uuid"].as_str().unwrap().to_string()
    }

    /// Creates an internal vulnerability; returns its uuid.
    pub async fn vulnerability(&self, key: &Key, vuln_id: &str, severity: &str) -> String {
        let r = self
            .json(
                Method::PUT,
                "/api/v1/vulnerability",
                key,
                &serde_json::json!({"vulnId": vuln_id, "severity": severity}),
            )
            .await;
        assert_eq!(r.status, 201, "{:?}", r.raw);
        r.body["uuid"].as_str().unwrap().to_string()
    }

    /// A project (`name`, version `version`) holding component "lib" affected by the
    /// internal vulnerability INT-1 (HIGH): returns (project, component, vulnerability) uuids.
    pub async fn finding(&self, key: &Key, name: &str, version: &str) -> (String, String, String) {
        let p = self
            .project(key, serde_json::json!({"name": name, "version": version}))
            .await;
        let project = p["uuid"].as_str().unwrap().to_string();
        let component = self.component(key, &project, "lib").await;
        let vuln = self.vulnerability(key, "INT-1", "HIGH").await;
        let r = self
            .req(
                Method::POST,
                &format!("/api/v1/vulnerability/{vuln}/component/{component}"),
                &[("X-Api-Key", &key.key)],
                "",
            )
            .await;
        assert_eq!(r.status, 200, "{:?}", r.raw);
        (project, component, vuln)
    }
}

pub fn text(r: &Reply) -> &str {
    std::str::from_utf8(&r.raw).unwrap()
}

/// Every permission: what an administrator's key holds.
pub fn all() -> Vec<Permission> {
    Permission::ALL.to_vec()
}

/// Standard base64, as Dependency-Track's clients encode BOMs in JSON bodies.
pub fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

/// Waits until the BOM upload behind `token` has been processed, asking as a client does.
pub async fn wait_done(dt: &Dt, k: &Key, token: &str) {
    for _ in 0..2000 {
        let r = dt.get(&format!("/api/v1/event/token/{token}"), k).await;
        assert_eq!(r.status, 200, "{:?}", r.raw);
        if r.body == serde_json::json!({"processing": false}) {
            return;
        }
        // Processing is asynchronous: poll the token as a client does.
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the upload was not processed");
}
