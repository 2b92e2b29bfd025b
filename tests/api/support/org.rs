//! The usual test organization (an owner, an administrator, two members and a guest on one
//! server) and what its tests do over and over through the API: create channels, send and read
//! messages, subscribe, point realm settings at a channel.

use serde_json::{Value, json};

use outpost::model::Role;

use super::{Reply, TestServer, TestUser};

pub struct Org {
    pub srv: TestServer,
    pub owner: TestUser,
    pub admin: TestUser,
    pub alice: TestUser,
    pub bob: TestUser,
    pub guest: TestUser,
}

/// The usual test organization on a server with the default test config.
pub async fn org() -> Org {
    org_with(|_| {}).await
}

/// The usual test organization on a server with an adjusted config.
pub async fn org_with(adjust: impl FnOnce(&mut outpost::config::Config)) -> Org {
    let srv = TestServer::start_with(adjust).await;
    let owner = srv
        .user("owner@example.com", "Olive Owner", Role::Owner)
        .await;
    let admin = srv
        .user("admin@example.com", "Ada Admin", Role::Administrator)
        .await;
    let alice = srv
        .user("alice@example.com", "Alice Ant", Role::Member)
        .await;
    let bob = srv.user("bob@example.com", "Bob Bee", Role::Member).await;
    let guest = srv
        .user("guest@example.com", "Gus Guest", Role::Guest)
        .await;
    Org {
        srv,
        owner,
        admin,
        alice,
        bob,
        guest,
    }
}

impl Org {
    /// Restarts the server gracefully on the same data (the users stay valid).
    pub async fn restart(self) -> Org {
        let Org {
            srv,
            owner,
            admin,
            alice,
            bob,
            guest,
        } = self;
        let srv = srv.stop_gracefully().await.start().await;
        Org {
            srv,
            owner,
            admin,
            alice,
            bob,
            guest,
        }
    }

    /// Creates a channel through the API; returns its id.
    pub async fn channel(
        &self,
        who: &TestUser,
        name: &str,
        subscribers: &[&TestUser],
        extra: &[(&str, &str)],
    ) -> i64 {
        let ids = json!(subscribers.iter().map(|u| u.id).collect::<Vec<_>>()).to_string();
        let mut form = vec![("name", name), ("subscribers", ids.as_str())];
        form.extend_from_slice(extra);
        let r = self.srv.post("/api/v1/channels/create", who, &form).await;
        r.assert_success("POST /channels/create")["id"]
            .as_i64()
            .unwrap()
    }

    pub async fn stream_names(&self, who: &TestUser) -> Vec<String> {
        let r = self.srv.get("/api/v1/streams", who, &[]).await;
        let b = r.assert_success("GET /streams");
        b["streams"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    }

    pub async fn send_channel(&self, who: &TestUser, to: &str, topic: &str, content: &str) -> i64 {
        let r = self
            .srv
            .post(
                "/api/v1/messages",
                who,
                &[
                    ("type", "stream"),
                    ("to", to),
                    ("topic", topic),
                    ("content", content),
                ],
            )
            .await;
        r.assert_success("POST /messages")["id"].as_i64().unwrap()
    }

    pub async fn send_dm(&self, who: &TestUser, to: &[&TestUser], content: &str) -> i64 {
        let ids = json!(to.iter().map(|u| u.id).collect::<Vec<_>>()).to_string();
        let r = self
            .srv
            .post(
                "/api/v1/messages",
                who,
                &[
                    ("type", "direct"),
                    ("to", ids.as_str()),
                    ("content", content),
                ],
            )
            .await;
        r.assert_success("POST /messages")["id"].as_i64().unwrap()
    }

    pub async fn fetch(&self, who: &TestUser, query: &[(&str, &str)]) -> Reply {
        let r = self.srv.get("/api/v1/messages", who, query).await;
        r.assert_success("GET /messages");
        r
    }

    /// The ids of the messages people sent in a narrow, oldest first (the system bots' notices
    /// are left out here; `notices.rs` tests them).
    pub async fn ids(&self, who: &TestUser, narrow: Value) -> Vec<i64> {
        let n = narrow.to_string();
        let r = self
            .fetch(
                who,
                &[
                    ("anchor", "newest"),
                    ("num_before", "100"),
                    ("narrow", n.as_str()),
                ],
            )
            .await;
        r.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| {
                !m["sender_email"]
                    .as_str()
                    .unwrap()
                    .ends_with("-bot@zulip.com")
            })
            .map(|m| m["id"].as_i64().unwrap())
            .collect()
    }

    /// The newest `n` messages of a narrow as `who` sees them, oldest first, with their
    /// Markdown source as content.
    pub async fn raw_messages(&self, who: &TestUser, narrow: Value, n: usize) -> Vec<Value> {
        let narrow = narrow.to_string();
        let n = n.to_string();
        let r = self
            .fetch(
                who,
                &[
                    ("anchor", "newest"),
                    ("num_before", n.as_str()),
                    ("num_after", "0"),
                    ("narrow", narrow.as_str()),
                    ("apply_markdown", "false"),
                ],
            )
            .await;
        r.body["messages"].as_array().unwrap().clone()
    }

    pub async fn subscribe(&self, who: &TestUser, names: &[&str], extra: &[(&str, &str)]) {
        let subs = json!(names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()).to_string();
        let mut form = vec![("subscriptions", subs.as_str())];
        form.extend_from_slice(extra);
        self.srv
            .post("/api/v1/users/me/subscriptions", who, &form)
            .await
            .assert_success("POST /users/me/subscriptions");
    }

    pub async fn set_realm_channel(&self, setting: &str, channel: i64) {
        let value = channel.to_string();
        let r = self
            .srv
            .patch("/api/v1/realm", &self.admin, &[(setting, value.as_str())])
            .await;
        super::patched(&r);
    }
}

/// The newest ten messages of a narrow (on any server, without an [`Org`]), as the raw reply:
/// errors included, nothing asserted.
pub async fn narrow_reply(srv: &TestServer, who: &TestUser, narrow: Value) -> Reply {
    let n = narrow.to_string();
    srv.get(
        "/api/v1/messages",
        who,
        &[
            ("anchor", "newest"),
            ("num_before", "10"),
            ("num_after", "0"),
            ("narrow", n.as_str()),
        ],
    )
    .await
}
