//! Restart continuity: a graceful stop saves the event queues and the next start on the same
//! data directory restores them, so clients keep their `queue_id`; after a crash (nothing
//! saved) or with an unusable saved file, clients get `BAD_EVENT_QUEUE_ID` and re-register.

use std::time::Duration;

use serde_json::Value;

use crate::support::{TestUser, org, poll_now};
use outpost::events::snapshot;
use outpost::ids::UserId;

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

/// Waits until the queue holds at least `n` events after `last`.
async fn events_after(
    srv: &crate::support::TestServer,
    who: &TestUser,
    q: &str,
    last: i64,
    n: usize,
) -> Vec<Value> {
    for _ in 0..200 {
        let r = poll_now(srv, who, q, last).await;
        let evs = r.assert_success("GET /events")["events"]
            .as_array()
            .unwrap()
            .clone();
        if evs.len() >= n {
            return evs;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("fewer than {n} events arrived after {last}");
}

#[tokio::test]
async fn a_queue_survives_a_graceful_restart_with_its_options() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    o.channel(&o.alice, "random", &[&o.alice, &o.bob], &[])
        .await;
    // Raw Markdown, only messages, only one topic of one channel: all resolved at register.
    let (queue, _) = o
        .register(
            &o.bob,
            &[
                ("event_types", "[\"message\"]"),
                ("apply_markdown", "false"),
                (
                    "narrow",
                    "[[\"channel\",\"general\"],[\"topic\",\"lunch\"]]",
                ),
            ],
        )
        .await;
    let first = o
        .send_channel(&o.alice, "general", "lunch", "**before**")
        .await;
    let evs = events_after(&o.srv, &o.bob, &queue, -1, 1).await;
    assert_eq!(evs[0]["message"]["id"], first);
    let seen = evs[0]["id"].as_i64().unwrap();

    let o = o.restart().await;

    // The same queue, acknowledged where the client left off; nothing new yet.
    let r = poll_now(&o.srv, &o.bob, &queue, seen).await;
    assert_eq!(
        r.assert_success("GET /events")["events"],
        serde_json::json!([])
    );
    // Outside the narrow: not delivered. Inside: delivered raw, numbered after the old ones.
    o.send_channel(&o.alice, "random", "lunch", "elsewhere")
        .await;
    o.send_channel(&o.alice, "general", "dinner", "other topic")
        .await;
    let after = o
        .send_channel(&o.alice, "general", "lunch", "**after**")
        .await;
    let evs = events_after(&o.srv, &o.bob, &queue, seen, 1).await;
    assert_eq!(types(&evs), ["message"], "{evs:?}");
    let m = &evs[0]["message"];
    assert_eq!(m["id"], after);
    assert_eq!(m["content"], "**after**");
    assert_eq!(m["content_type"], "text/x-markdown");
    assert!(evs[0]["id"].as_i64().unwrap() > seen);
    // Another user cannot use it, before or after a restart.
    poll_now(&o.srv, &o.alice, &queue, seen)
        .await
        .assert_error(400, "BAD_EVENT_QUEUE_ID");
}

#[tokio::test]
async fn unacknowledged_events_and_a_restart_event_are_waiting_after_the_restart() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let (queue, _) = o.register(&o.bob, &[]).await;
    let sent = o.send_channel(&o.alice, "general", "t", "while up").await;
    let before = events_after(&o.srv, &o.bob, &queue, -1, 1).await;
    let o = o.restart().await;
    let evs = events_after(&o.srv, &o.bob, &queue, -1, before.len() + 1).await;
    assert_eq!(&evs[..before.len()], &before[..]);
    assert!(
        evs.iter()
            .any(|e| e["type"] == "message" && e["message"]["id"] == sent)
    );
    let restart = evs.last().unwrap();
    assert_eq!(restart["type"], "restart", "{evs:?}");
    assert_eq!(restart["zulip_feature_level"], 382);
    assert!(restart["server_generation"].as_i64().unwrap() > 0);
    let r = poll_now(&o.srv, &o.bob, &queue, -1).await;
    crate::schema::assert_matches("GET /events", &r.body);
}

#[tokio::test]
async fn a_poll_parked_at_shutdown_is_answered_and_the_client_carries_on() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let (queue, _) = o
        .register(&o.bob, &[("event_types", "[\"message\"]")])
        .await;
    let (addr, bob, q) = (o.srv.addr, o.bob.clone(), queue.clone());
    let poll = tokio::spawn(async move {
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build_http::<http_body_util::Full<bytes::Bytes>>();
        let req = hyper::Request::get(format!(
            "http://{addr}/api/v1/events?queue_id={q}&last_event_id=-1"
        ))
        .header(
            "authorization",
            crate::support::basic(&bob.email, &bob.api_key),
        )
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .unwrap();
        let res = client.request(req).await.unwrap();
        let status = res.status().as_u16();
        use http_body_util::BodyExt as _;
        let b = res.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice::<Value>(&b).unwrap())
    });
    // Parked: the queue table counts it.
    for _ in 0..250 {
        if o.srv.state.queues.parked_of_user(UserId(o.bob.id)) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(o.srv.state.queues.parked_of_user(UserId(o.bob.id)), 1);
    let o = o.restart().await;
    let (status, body) = tokio::time::timeout(Duration::from_secs(5), poll)
        .await
        .expect("answered at shutdown")
        .unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["events"], serde_json::json!([]));
    assert_eq!(body["queue_id"], queue.as_str());
    // The client polls again, on the restarted server, with the same queue.
    let id = o
        .send_channel(&o.alice, "general", "t", "hello again")
        .await;
    let evs = events_after(&o.srv, &o.bob, &queue, -1, 1).await;
    assert_eq!(evs[0]["message"]["id"], id);
}

#[tokio::test]
async fn after_a_crash_the_queue_is_gone_and_the_client_re_registers() {
    let o = org().await;
    let (queue, _) = o.register(&o.bob, &[]).await;
    let bob = o.bob.clone();
    let stopped = o.srv.stop_abruptly();
    assert!(!snapshot::path_in(stopped.data_dir()).exists());
    let srv = stopped.start().await;
    poll_now(&srv, &bob, &queue, -1)
        .await
        .assert_error(400, "BAD_EVENT_QUEUE_ID");
    // Registering again works as after any lost queue.
    let r = srv.post("/api/v1/register", &bob, &[]).await;
    r.assert_success("POST /register");
}

#[tokio::test]
async fn an_unusable_or_expired_snapshot_is_ignored() {
    for tamper in ["garbage", "version", "expired"] {
        let o = org().await;
        let (queue, _) = o.register(&o.bob, &[]).await;
        let bob = o.bob.clone();
        let stopped = o.srv.stop_gracefully().await;
        let path = snapshot::path_in(stopped.data_dir());
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).expect("saved").permissions(),
        );
        assert_eq!(mode & 0o777, 0o600, "message content stays owner-only");
        let mut saved: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        match tamper {
            "garbage" => std::fs::write(&path, b"{\"version\":1,\"queues\":[{").unwrap(),
            "version" => {
                saved["version"] = Value::from(snapshot::VERSION + 1);
                std::fs::write(&path, saved.to_string()).unwrap();
            }
            _ => {
                // Written eleven minutes ago: idle past the 10-minute timeout by now.
                let at = saved["saved_at"].as_u64().unwrap() - 660;
                saved["saved_at"] = Value::from(at);
                std::fs::write(&path, saved.to_string()).unwrap();
            }
        }
        let srv = stopped.start().await;
        assert!(!path.exists(), "{tamper}: read once, then removed");
        poll_now(&srv, &bob, &queue, -1)
            .await
            .assert_error(400, "BAD_EVENT_QUEUE_ID");
    }
}
