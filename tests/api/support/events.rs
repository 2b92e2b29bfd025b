//! Event queues as a client uses them: register a queue, fetch what it holds without
//! waiting, and wait until deliveries (which are asynchronous) have landed.

use std::time::Duration;

use serde_json::Value;

use super::{Org, Reply, TestServer, TestUser};

impl Org {
    pub async fn register(&self, who: &TestUser, form: &[(&str, &str)]) -> (String, Value) {
        let r = self.srv.post("/api/v1/register", who, form).await;
        let b = r.assert_success("POST /register").clone();
        (b["queue_id"].as_str().unwrap().to_string(), b)
    }

    /// Non-blocking fetch of everything after `last`.
    pub async fn events(&self, who: &TestUser, queue: &str, last: i64) -> Vec<Value> {
        let r = poll_now(&self.srv, who, queue, last).await;
        r.assert_success("GET /events")["events"]
            .as_array()
            .unwrap()
            .clone()
    }
}

/// Registers a queue with `form` (on any server, without an [`Org`]); returns its id.
pub async fn register_queue(srv: &TestServer, who: &TestUser, form: &[(&str, &str)]) -> String {
    let r = srv.post("/api/v1/register", who, form).await;
    r.assert_success("POST /register")["queue_id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A non-blocking `GET /events` of everything after `last`, as the raw reply.
pub async fn poll_now(srv: &TestServer, who: &TestUser, queue: &str, last: i64) -> Reply {
    let last = last.to_string();
    srv.get(
        "/api/v1/events",
        who,
        &[
            ("queue_id", queue),
            ("last_event_id", last.as_str()),
            ("dont_block", "true"),
        ],
    )
    .await
}

/// Waits until the queue holds at least `n` events and returns them (all schema-checked).
pub async fn wait_events(o: &Org, who: &TestUser, q: &str, n: usize) -> Vec<Value> {
    for _ in 0..100 {
        let r = poll_now(&o.srv, who, q, -1).await;
        let b = r.assert_success("GET /events");
        let evs = b["events"].as_array().unwrap().clone();
        if evs.len() >= n {
            return evs;
        }
        // Delivery is asynchronous: poll until the events land (no clock involved).
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("fewer than {n} events arrived");
}
