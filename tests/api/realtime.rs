//! Event queues: register, long-polling, acknowledgement, expiry, overflow, and the events that
//! state changes produce.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Reply, TestServer, TestUser, org, poll_now, register_queue, wait_events};
use outpost::model::Role;

fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn register_returns_a_queue_and_the_requested_state() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let m = o
        .send_channel(&o.bob, "general", "hello", "hi @**Alice Ant**")
        .await;
    let (queue, b) = o.register(&o.alice, &[]).await;
    assert!(!queue.is_empty());
    assert_eq!(b["last_event_id"], -1);
    assert_eq!(b["zulip_feature_level"], 382);
    assert_eq!(b["max_message_id"], m);
    assert_eq!(b["max_message_length"], 10000);
    assert_eq!(b["max_topic_length"], 60);
    assert_eq!(b["max_channel_folder_name_length"], 60);
    assert_eq!(b["realm_empty_topic_display_name"], "general chat");
    assert_eq!(b["user_id"], o.alice.id);
    assert_eq!(b["realm_users"].as_array().unwrap().len(), 5);
    assert_eq!(b["subscriptions"][0]["name"], "general");
    // The mention, and Welcome Bot's message.
    assert_eq!(b["unread_msgs"]["count"], 2);
    assert_eq!(b["unread_msgs"]["mentions"], json!([m]));
    assert_eq!(b["unread_msgs"]["streams"][0]["topic"], "hello");
    assert_eq!(b["realm_user_groups"].as_array().unwrap().len(), 8);
    // zulip-terminal reads these legacy keys.
    assert_eq!(b["twenty_four_hour_time"], false);
    assert_eq!(b["pm_content_in_desktop_notifications"], true);
    // Only what was asked for.
    let (_, b) = o
        .register(&o.alice, &[("fetch_event_types", "[\"message\"]")])
        .await;
    assert!(b.get("realm_users").is_none());
    assert_eq!(b["max_message_id"], m);
    let (_, b) = o
        .register(
            &o.alice,
            &[
                ("event_types", "[\"message\"]"),
                ("client_capabilities", "{\"user_settings_object\":true}"),
            ],
        )
        .await;
    assert!(b.get("subscriptions").is_none());
    let r = o
        .srv
        .post(
            "/api/v1/register",
            &o.alice,
            &[("narrow", "[[\"near\",\"5\"]]")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Operator near not supported."
    );
    let r = o
        .srv
        .post(
            "/api/v1/register",
            &o.alice,
            &[("client_capabilities", "[1]")],
        )
        .await;
    r.assert_error(400, "BAD_REQUEST");
    let r = o
        .srv
        .post(
            "/api/v1/register",
            &o.guest,
            &[("all_public_streams", "true")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "User not authorized for this query"
    );
}

#[tokio::test]
async fn a_parked_poll_wakes_up_for_a_message() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let (queue, _) = o
        .register(
            &o.bob,
            &[("event_types", "[\"message\"]"), ("apply_markdown", "true")],
        )
        .await;
    let srv_addr = o.srv.addr;
    let bob = o.bob.clone();
    let q = queue.clone();
    let poll = tokio::spawn(async move {
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build_http::<http_body_util::Full<bytes::Bytes>>();
        let req = hyper::Request::get(format!(
            "http://{srv_addr}/api/v1/events?queue_id={q}&last_event_id=-1"
        ))
        .header(
            "authorization",
            crate::support::basic(&bob.email, &bob.api_key),
        )
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .unwrap();
        let res = client.request(req).await.unwrap();
        use http_body_util::BodyExt as _;
        let b = res.into_body().collect().await.unwrap().to_bytes();
        serde_json::from_slice::<Value>(&b).unwrap()
    });
    // Real time: a client's blocking poll must still be open a while later.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!poll.is_finished(), "the poll waits while nothing happens");
    let id = o
        .send_channel(&o.alice, "general", "t", "**wake** up")
        .await;
    let body = tokio::time::timeout(Duration::from_secs(5), poll)
        .await
        .unwrap()
        .unwrap();
    crate::schema::assert_matches("GET /events", &body);
    let ev = &body["events"][0];
    assert_eq!(ev["type"], "message");
    assert_eq!(ev["id"], 0);
    assert_eq!(ev["message"]["id"], id);
    assert_eq!(ev["message"]["content"], "<p><strong>wake</strong> up</p>");
    assert_eq!(ev["flags"], json!([]));
    assert_eq!(body["queue_id"], queue.as_str());
}

#[tokio::test]
async fn local_echo_and_raw_content() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let (qa, _) = o
        .register(&o.alice, &[("event_types", "[\"message\"]")])
        .await;
    let (qb, _) = o
        .register(&o.bob, &[("event_types", "[\"message\"]")])
        .await;
    o.srv
        .post(
            "/api/v1/messages",
            &o.alice,
            &[
                ("type", "stream"),
                ("to", "general"),
                ("topic", "t"),
                ("content", "*raw*"),
                ("queue_id", qa.as_str()),
                ("local_id", "1.01"),
            ],
        )
        .await
        .assert_success("POST /messages");
    let a = wait_events(&o, &o.alice, &qa, 1).await;
    assert_eq!(a[0]["local_message_id"], "1.01");
    assert_eq!(a[0]["message"]["content"], "*raw*");
    assert_eq!(a[0]["message"]["content_type"], "text/x-markdown");
    let b = wait_events(&o, &o.bob, &qb, 1).await;
    assert!(b[0].get("local_message_id").is_none());
}

#[tokio::test]
async fn acknowledgement_and_bad_queues() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let (q, _) = o
        .register(&o.bob, &[("event_types", "[\"message\"]")])
        .await;
    for i in 0..3 {
        o.send_channel(&o.alice, "general", "t", &format!("m{i}"))
            .await;
    }
    assert_eq!(wait_events(&o, &o.bob, &q, 3).await.len(), 3);
    // Reading does not consume.
    assert_eq!(o.events(&o.bob, &q, -1).await.len(), 3);
    let rest = o.events(&o.bob, &q, 1).await;
    assert_eq!(
        rest.iter()
            .map(|e| e["id"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        vec![2]
    );
    assert_eq!(
        poll_now(&o.srv, &o.bob, &q, 0)
            .await
            .assert_error(400, "BAD_REQUEST")["msg"],
        "An event newer than 0 has already been pruned!"
    );
    assert_eq!(
        poll_now(&o.srv, &o.bob, &q, 9)
            .await
            .assert_error(400, "BAD_REQUEST")["msg"],
        "Event 9 was not in this queue"
    );
    let r = o
        .srv
        .get("/api/v1/events", &o.bob, &[("queue_id", q.as_str())])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Missing 'last_event_id' argument"
    );
    // Another user's queue is unknown to you.
    let r = poll_now(&o.srv, &o.alice, &q, -1).await;
    let b = r.assert_error(400, "BAD_EVENT_QUEUE_ID");
    assert_eq!(
        (b["msg"].clone(), b["queue_id"].clone()),
        (json!(format!("Bad event queue ID: {q}")), json!(q))
    );
    // Deleting.
    o.srv
        .delete("/api/v1/events", &o.alice, &[("queue_id", q.as_str())])
        .await
        .assert_error(400, "BAD_EVENT_QUEUE_ID");
    o.srv
        .delete("/api/v1/events", &o.bob, &[("queue_id", q.as_str())])
        .await
        .assert_success("DELETE /events");
    poll_now(&o.srv, &o.bob, &q, 2)
        .await
        .assert_error(400, "BAD_EVENT_QUEUE_ID");
    o.srv
        .delete("/api/v1/events", &o.bob, &[("queue_id", q.as_str())])
        .await
        .assert_error(400, "BAD_EVENT_QUEUE_ID");
    let r = o.srv.get("/api/v1/events", &o.bob, &[]).await;
    r.assert_error(400, "REQUEST_VARIABLE_MISSING");
    // Registering through GET /events with dont_block.
    let r = o
        .srv
        .get(
            "/api/v1/events",
            &o.bob,
            &[("dont_block", "true"), ("event_types", "[\"message\"]")],
        )
        .await;
    let b = r.assert_success("GET /events");
    assert!(b["queue_id"].is_string());
}

async fn short_server(
    adjust: impl FnOnce(&mut outpost::config::Config),
) -> (TestServer, TestUser, TestUser) {
    let srv = TestServer::start_with(adjust).await;
    let a = srv.user("a@example.com", "Ann A", Role::Member).await;
    let b = srv.user("b@example.com", "Ben B", Role::Member).await;
    (srv, a, b)
}

async fn register_plain(srv: &TestServer, who: &TestUser) -> String {
    register_queue(srv, who, &[("event_types", "[\"message\"]")]).await
}

#[tokio::test]
async fn idle_polls_get_a_heartbeat() {
    let (srv, a, _) = short_server(|c| {
        c.events.heartbeat = Duration::from_millis(300);
        c.events.heartbeat_jitter = Duration::ZERO;
    })
    .await;
    let q = register_plain(&srv, &a).await;
    let started = std::time::Instant::now();
    let r: Reply = srv
        .get(
            "/api/v1/events",
            &a,
            &[("queue_id", q.as_str()), ("last_event_id", "-1")],
        )
        .await;
    assert!(started.elapsed() >= Duration::from_millis(250));
    let b = r.assert_success("GET /events");
    assert_eq!(b["events"], json!([{"type": "heartbeat", "id": 0}]));
}

#[tokio::test]
async fn idle_queues_are_collected() {
    // The sweep timer never fires during the test; it runs the sweep itself at chosen times.
    let (srv, a, _) = short_server(|c| {
        c.events.queue_timeout = Duration::from_secs(1);
        c.events.gc_interval = Duration::from_secs(3600);
    })
    .await;
    let timeout = srv.state.config.events.queue_timeout;
    let q = register_plain(&srv, &a).await;
    let keep = register_plain(&srv, &a).await;
    // Later than both registrations, earlier than the poll that keeps `keep` in use.
    let mark = std::time::Instant::now();
    poll_now(&srv, &a, &keep, -1)
        .await
        .assert_success("GET /events");
    assert_eq!(srv.state.queues.sweep(mark + timeout), 1);
    poll_now(&srv, &a, &q, -1)
        .await
        .assert_error(400, "BAD_EVENT_QUEUE_ID");
    poll_now(&srv, &a, &keep, -1)
        .await
        .assert_success("GET /events");
}

#[tokio::test]
async fn overflowing_queues_are_dropped() {
    let (srv, a, b) = short_server(|c| c.events.max_queue_events = 3).await;
    let q = register_plain(&srv, &b).await;
    for i in 0..4 {
        srv.post(
            "/api/v1/messages",
            &a,
            &[
                ("type", "direct"),
                ("to", &format!("[{}]", b.id)),
                ("content", &format!("m{i}")),
            ],
        )
        .await
        .assert_success("POST /messages");
    }
    // Delivery is asynchronous: poll until the overflow lands (no clock involved).
    let mut gone = false;
    for _ in 0..50 {
        let r = poll_now(&srv, &b, &q, -1).await;
        if r.status == 400 {
            r.assert_error(400, "BAD_EVENT_QUEUE_ID");
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "the overflowing queue was dropped");
}

#[tokio::test]
async fn state_changes_produce_their_events() {
    let o = org().await;
    let ch = o
        .channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let (q, _) = o
        .register(
            &o.bob,
            &[(
                "client_capabilities",
                "{\"bulk_message_deletion\":true,\"stream_typing_notifications\":true}",
            )],
        )
        .await;
    let id = o.send_channel(&o.alice, "general", "t", "hello").await;
    o.srv
        .post(
            &format!("/api/v1/messages/{id}/reactions"),
            &o.alice,
            &[("emoji_name", "octopus")],
        )
        .await
        .assert_success("POST /messages/{message_id}/reactions");
    o.srv
        .patch(
            &format!("/api/v1/messages/{id}"),
            &o.alice,
            &[("content", "hello edited")],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    let list = json!([id]).to_string();
    o.srv
        .post(
            "/api/v1/messages/flags",
            &o.bob,
            &[
                ("messages", list.as_str()),
                ("op", "add"),
                ("flag", "starred"),
            ],
        )
        .await
        .assert_success("POST /messages/flags");
    o.srv
        .post(
            "/api/v1/messages/flags",
            &o.bob,
            &[
                ("messages", list.as_str()),
                ("op", "remove"),
                ("flag", "read"),
            ],
        )
        .await
        .assert_success("POST /messages/flags");
    let ch_s = ch.to_string();
    o.srv
        .post(
            "/api/v1/user_topics",
            &o.bob,
            &[
                ("stream_id", ch_s.as_str()),
                ("topic", "t"),
                ("visibility_policy", "1"),
            ],
        )
        .await
        .assert_success("POST /user_topics");
    o.srv
        .post(
            "/api/v1/users/me/status",
            &o.alice,
            &[("status_text", "busy")],
        )
        .await
        .assert_success("POST /users/me/status");
    o.srv
        .post(
            "/api/v1/typing",
            &o.alice,
            &[("to", &format!("[{}]", o.bob.id)), ("op", "start")],
        )
        .await
        .assert_success("POST /typing");
    o.srv
        .post(
            "/api/v1/typing",
            &o.alice,
            &[
                ("type", "stream"),
                ("stream_id", ch_s.as_str()),
                ("topic", "t"),
                ("op", "stop"),
            ],
        )
        .await
        .assert_success("POST /typing");
    o.srv
        .post(
            "/api/v1/users/me/alert_words",
            &o.bob,
            &[("alert_words", "[\"rust\"]")],
        )
        .await
        .assert_success("POST /users/me/alert_words");
    o.srv
        .delete(&format!("/api/v1/messages/{id}"), &o.alice, &[])
        .await
        .assert_success("DELETE /messages/{message_id}");
    o.srv
        .post(
            "/api/v1/users/me/presence",
            &o.alice,
            &[("status", "active")],
        )
        .await
        .assert_success("POST /users/me/presence");
    o.srv
        .delete(&format!("/api/v1/users/{}", o.guest.id), &o.owner, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    let evs = wait_events(&o, &o.bob, &q, 14).await;
    assert_eq!(
        types(&evs),
        vec![
            "message",
            "reaction",
            "update_message",
            "update_message_flags",
            "update_message_flags",
            "user_topic",
            "user_status",
            "typing",
            "typing",
            "alert_words",
            "delete_message",
            "presence",
            "realm_user",
            // The deactivated guest leaves `role:everyone`'s members.
            "user_group",
        ]
    );
    assert_eq!(evs[1]["emoji_name"], "octopus");
    assert_eq!(evs[2]["orig_content"], "hello");
    assert_eq!(evs[2]["content"], "hello edited");
    assert_eq!(evs[4]["message_details"][id.to_string()]["topic"], "t");
    assert_eq!(evs[5]["visibility_policy"], 1);
    assert_eq!(evs[6]["status_text"], "busy");
    assert_eq!(evs[7]["recipients"].as_array().unwrap().len(), 2);
    assert_eq!(evs[8]["message_type"], "stream");
    assert_eq!(evs[10]["message_ids"], json!([id]));
    assert_eq!(evs[11]["presence"]["website"]["status"], "active");
    assert_eq!(
        evs[12]["person"],
        json!({"user_id": o.guest.id, "is_active": false})
    );
}

#[tokio::test]
async fn guests_do_not_hear_about_public_channels_they_are_not_in() {
    let o = org().await;
    let (qg, _) = o
        .register(
            &o.guest,
            &[("event_types", "[\"stream\",\"subscription\"]")],
        )
        .await;
    let (qb, _) = o
        .register(&o.bob, &[("event_types", "[\"stream\",\"subscription\"]")])
        .await;
    o.channel(&o.alice, "open", &[&o.alice], &[]).await;
    // Bob (a member) hears about it; by then the guest's queue has been offered the same.
    wait_events(&o, &o.bob, &qb, 2).await;
    let got = o.events(&o.guest, &qg, -1).await;
    assert!(got.is_empty(), "{got:?}");
}

#[tokio::test]
async fn subscription_and_channel_events() {
    let o = org().await;
    let (qa, _) = o
        .register(
            &o.alice,
            &[("event_types", "[\"subscription\",\"stream\"]")],
        )
        .await;
    let (qb, _) = o
        .register(&o.bob, &[("event_types", "[\"subscription\",\"stream\"]")])
        .await;
    let ch = o.channel(&o.alice, "general", &[&o.alice], &[]).await;
    let principals = json!([o.bob.id]).to_string();
    o.srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[
                ("subscriptions", "[{\"name\":\"general\"}]"),
                ("principals", principals.as_str()),
            ],
        )
        .await
        .assert_success("POST /users/me/subscriptions");
    o.srv
        .patch(
            &format!("/api/v1/streams/{ch}"),
            &o.alice,
            &[("description", "new words")],
        )
        .await
        .assert_success("PATCH /streams/{stream_id}");
    let a = wait_events(&o, &o.alice, &qa, 4).await;
    assert_eq!(
        types(&a),
        vec!["stream", "subscription", "subscription", "stream"]
    );
    assert_eq!(a[1]["op"], "add");
    assert_eq!(a[2]["op"], "peer_add");
    assert_eq!(a[2]["user_ids"], json!([o.bob.id]));
    assert_eq!(a[3]["property"], "description");
    assert_eq!(a[3]["rendered_description"], "<p>new words</p>");
    // Bob hears that Alice joined the public channel, then that he did.
    let b = wait_events(&o, &o.bob, &qb, 4).await;
    assert_eq!(
        types(&b),
        vec!["stream", "subscription", "subscription", "stream"]
    );
    assert_eq!(
        (b[1]["op"].clone(), b[1]["user_ids"].clone()),
        (json!("peer_add"), json!([o.alice.id]))
    );
    assert_eq!(b[2]["subscriptions"][0]["name"], "general");
}

#[tokio::test]
async fn narrows_and_public_streams_filter_message_events() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice], &[]).await;
    o.channel(&o.alice, "random", &[&o.alice, &o.bob], &[])
        .await;
    let (all, _) = o
        .register(
            &o.bob,
            &[
                ("event_types", "[\"message\"]"),
                ("all_public_streams", "true"),
            ],
        )
        .await;
    let (narrowed, _) = o
        .register(
            &o.bob,
            &[
                ("event_types", "[\"message\"]"),
                ("narrow", "[[\"stream\",\"random\"]]"),
            ],
        )
        .await;
    let (plain, _) = o
        .register(&o.bob, &[("event_types", "[\"message\"]")])
        .await;
    let g = o.send_channel(&o.alice, "general", "t", "in general").await;
    let r = o.send_channel(&o.alice, "random", "t", "in random").await;
    let ids = |evs: Vec<Value>| {
        evs.iter()
            .map(|e| e["message"]["id"].as_i64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(wait_events(&o, &o.bob, &all, 2).await), vec![g, r]);
    let evs = wait_events(&o, &o.bob, &all, 2).await;
    assert_eq!(evs[0]["flags"], json!(["read", "historical"]));
    assert_eq!(ids(wait_events(&o, &o.bob, &narrowed, 1).await), vec![r]);
    assert_eq!(ids(wait_events(&o, &o.bob, &plain, 1).await), vec![r]);
}

#[tokio::test]
async fn presence_endpoints() {
    let o = org().await;
    let r = o
        .srv
        .post("/api/v1/users/me/presence", &o.alice, &[("status", "idle")])
        .await;
    let b = r.assert_success("POST /users/me/presence");
    assert_eq!(
        b["presences"]["alice@example.com"]["website"]["status"],
        "idle"
    );
    assert!(b["server_timestamp"].is_f64());
    let r = o
        .srv
        .post(
            "/api/v1/users/me/presence",
            &o.bob,
            &[("status", "active"), ("slim_presence", "true")],
        )
        .await;
    let b = r.assert_success("POST /users/me/presence");
    assert!(b["presences"][o.alice.id.to_string()]["idle_timestamp"].is_i64());
    let r = o
        .srv
        .post(
            "/api/v1/users/me/presence",
            &o.bob,
            &[("status", "active"), ("ping_only", "true")],
        )
        .await;
    assert!(
        r.assert_success("POST /users/me/presence")
            .get("presences")
            .is_none()
    );
    let r = o
        .srv
        .post("/api/v1/users/me/presence", &o.bob, &[("status", "asleep")])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid status: asleep"
    );
    let r = o.srv.get("/api/v1/realm/presence", &o.alice, &[]).await;
    let b = r.assert_success("GET /realm/presence");
    assert_eq!(
        b["presences"]["bob@example.com"]["aggregated"]["status"],
        "active"
    );
    let r = o
        .srv
        .get(
            &format!("/api/v1/users/{}/presence", o.bob.id),
            &o.alice,
            &[],
        )
        .await;
    let b = r.assert_success("GET /users/{user_id_or_email}/presence");
    assert_eq!(b["presence"]["website"]["status"], "active");
    let r = o
        .srv
        .get("/api/v1/users/guest@example.com/presence", &o.alice, &[])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "No presence data for guest@example.com"
    );
}

#[tokio::test]
async fn typing_and_alert_word_errors() {
    let o = org().await;
    for (form, msg) in [
        (vec![("op", "start")], "Missing 'to' argument"),
        (vec![("op", "start"), ("to", "[]")], "Empty 'to' list"),
        (
            vec![("op", "start"), ("to", "[424242]")],
            "Invalid user ID 424242",
        ),
        (
            vec![("op", "start"), ("type", "stream"), ("topic", "t")],
            "Missing 'stream_id' argument",
        ),
        (
            vec![("op", "start"), ("type", "stream"), ("stream_id", "1")],
            "Missing topic",
        ),
    ] {
        let r = o.srv.post("/api/v1/typing", &o.alice, &form).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    o.srv
        .post("/api/v1/typing", &o.alice, &[("to", "[1]")])
        .await
        .assert_error(400, "REQUEST_VARIABLE_MISSING");
    let r = o
        .srv
        .post(
            "/api/v1/users/me/alert_words",
            &o.alice,
            &[("alert_words", "[\"Rust\", \"tokio\"]")],
        )
        .await;
    assert_eq!(
        r.assert_success("POST /users/me/alert_words")["alert_words"],
        json!(["Rust", "tokio"])
    );
    let r = o
        .srv
        .delete(
            "/api/v1/users/me/alert_words",
            &o.alice,
            &[("alert_words", "[\"rust\"]")],
        )
        .await;
    assert_eq!(
        r.assert_success("DELETE /users/me/alert_words")["alert_words"],
        json!(["tokio"])
    );
    let r = o
        .srv
        .get("/api/v1/users/me/alert_words", &o.alice, &[])
        .await;
    assert_eq!(
        r.assert_success("GET /users/me/alert_words")["alert_words"],
        json!(["tokio"])
    );
    o.srv
        .post(
            "/api/v1/users/me/alert_words",
            &o.alice,
            &[("alert_words", "[\" \"]")],
        )
        .await
        .assert_error(400, "BAD_REQUEST");
}

#[tokio::test]
async fn partial_subscribers_shorten_only_big_channels() {
    let o = org().await;
    let mut crowd = Vec::new();
    for i in 0..250 {
        let email = format!("crowd{i}@example.com");
        crowd.push(
            o.srv
                .user(&email, &format!("Crowd {i}"), Role::Member)
                .await,
        );
    }
    let mut members: Vec<&TestUser> = crowd.iter().collect();
    members.extend([&o.alice, &o.bob]);
    o.channel(&o.alice, "big", &members, &[]).await;
    o.channel(&o.alice, "small", &[&o.alice, &o.bob, &crowd[0]], &[])
        .await;
    // Bob was active just now; nobody in the crowd ever was.
    o.srv
        .post("/api/v1/users/me/presence", &o.bob, &[("status", "active")])
        .await
        .assert_success("POST /users/me/presence");
    let find = |b: &Value, name: &str| -> Value {
        b["subscriptions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    let (_, b) = o
        .register(
            &o.alice,
            &[
                ("include_subscribers", "partial"),
                ("fetch_event_types", "[\"subscription\"]"),
            ],
        )
        .await;
    let big = find(&b, "big");
    assert!(big.get("subscribers").is_none());
    assert_eq!(big["partial_subscribers"], json!([o.bob.id]));
    let small = find(&b, "small");
    assert_eq!(small["subscribers"].as_array().unwrap().len(), 3);
    assert!(small.get("partial_subscribers").is_none());
    let (_, b) = o
        .register(
            &o.alice,
            &[
                ("include_subscribers", "true"),
                ("fetch_event_types", "[\"subscription\"]"),
            ],
        )
        .await;
    let big = find(&b, "big");
    assert_eq!(big["subscribers"].as_array().unwrap().len(), 252);
    assert!(big.get("partial_subscribers").is_none());
}

#[tokio::test]
async fn presence_history_limit_days_bounds_the_initial_presences() {
    let o = org().await;
    let now = outpost::time::now_secs();
    // Bob was last seen 20 days ago, Alice just now.
    o.srv
        .state
        .presence
        .report(outpost::ids::UserId(o.bob.id), true, now - 20 * 86_400);
    o.srv
        .state
        .presence
        .report(outpost::ids::UserId(o.alice.id), true, now);
    let ids = |b: &Value| -> Vec<String> {
        let mut v: Vec<String> = b["presences"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        v.sort();
        v
    };
    let fetch = [
        ("fetch_event_types", "[\"presence\"]"),
        ("slim_presence", "true"),
    ];
    let (_, b) = o.register(&o.owner, &fetch).await;
    assert_eq!(ids(&b), [o.alice.id.to_string()]);
    let mut longer = fetch.to_vec();
    longer.push(("presence_history_limit_days", "30"));
    let (_, b) = o.register(&o.owner, &longer).await;
    let mut want = vec![o.alice.id.to_string(), o.bob.id.to_string()];
    want.sort();
    assert_eq!(ids(&b), want);
}

#[tokio::test]
async fn archiving_is_an_update_only_for_clients_that_know_archived_channels() {
    let o = org().await;
    let id = o.channel(&o.alice, "old", &[&o.alice, &o.bob], &[]).await;
    let aware_caps = [(
        "client_capabilities",
        "{\"notification_settings_null\":false,\"archived_channels\":true}",
    )];
    let (aware, _) = o.register(&o.alice, &aware_caps).await;
    let (plain, _) = o.register(&o.alice, &[]).await;
    o.srv
        .delete(&format!("/api/v1/streams/{id}"), &o.owner, &[])
        .await
        .assert_success("DELETE /streams/{stream_id}");

    let ev = wait_events(&o, &o.alice, &aware, 1).await;
    let stream: Vec<&Value> = ev.iter().filter(|e| e["type"] == "stream").collect();
    assert_eq!(stream.len(), 1);
    assert_eq!(stream[0]["op"], "update");
    assert_eq!(stream[0]["property"], "is_archived");
    assert_eq!(stream[0]["value"], true);
    assert_eq!(stream[0]["stream_id"], id);
    let ev = wait_events(&o, &o.alice, &plain, 1).await;
    let stream: Vec<&Value> = ev.iter().filter(|e| e["type"] == "stream").collect();
    assert_eq!(stream.len(), 1);
    assert_eq!(stream[0]["op"], "delete");
    assert_eq!(stream[0]["stream_ids"], json!([id]));

    // The initial channel list keeps archived channels only for aware clients.
    let names = |b: &Value| -> Vec<String> {
        b["streams"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    };
    let mut fetch = aware_caps.to_vec();
    fetch.push(("fetch_event_types", "[\"stream\"]"));
    let (_, b) = o.register(&o.alice, &fetch).await;
    assert_eq!(names(&b), ["old"]);
    assert_eq!(b["streams"][0]["is_archived"], true);
    let (_, b) = o
        .register(&o.alice, &[("fetch_event_types", "[\"stream\"]")])
        .await;
    assert!(names(&b).is_empty());
}

#[tokio::test]
async fn queue_lifespan_secs_keeps_an_idle_queue_longer() {
    // The sweep timer never fires during the test; it runs the sweep itself at chosen times.
    let (srv, a, _) = short_server(|c| {
        c.events.queue_timeout = Duration::from_secs(1);
        c.events.gc_interval = Duration::from_secs(3600);
    })
    .await;
    let plain = register_plain(&srv, &a).await;
    let r = srv
        .post(
            "/api/v1/register",
            &a,
            &[
                ("event_types", "[\"message\"]"),
                ("queue_lifespan_secs", "30"),
            ],
        )
        .await;
    let long = r.assert_success("POST /register")["queue_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Later than both registrations: the sweep sees both idle for 1.6 s, then for 31 s.
    let mark = std::time::Instant::now();
    assert_eq!(
        srv.state.queues.sweep(mark + Duration::from_millis(1600)),
        1
    );
    poll_now(&srv, &a, &plain, -1)
        .await
        .assert_error(400, "BAD_EVENT_QUEUE_ID");
    poll_now(&srv, &a, &long, -1)
        .await
        .assert_success("GET /events");
    let later = std::time::Instant::now() + Duration::from_secs(31);
    assert_eq!(srv.state.queues.sweep(later), 1);
    poll_now(&srv, &a, &long, -1)
        .await
        .assert_error(400, "BAD_EVENT_QUEUE_ID");
}

#[tokio::test]
async fn parked_polls_answer_when_the_server_stops() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    // The default heartbeat (45 s or more) would outlast the test: only the stop can answer.
    let (srv, a, _) = short_server(|_| {}).await;
    let q = register_plain(&srv, &a).await;
    let (addr, auth) = (srv.addr, crate::support::basic(&a.email, &a.api_key));
    let poll = tokio::spawn(async move {
        let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let req = format!(
            "GET /api/v1/events?queue_id={q}&last_event_id=-1 HTTP/1.1\r\nhost: localhost\r\nauthorization: {auth}\r\nconnection: close\r\n\r\n"
        );
        s.write_all(req.as_bytes()).await.expect("write");
        let mut out = Vec::new();
        s.read_to_end(&mut out).await.expect("read");
        String::from_utf8(out).expect("UTF-8")
    });
    // The queue table says when the poll is parked; no guessing how long that takes.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while srv.state.queues.parked_of_user(outpost::ids::UserId(a.id)) < 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "the poll never parked"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(
        !poll.is_finished(),
        "the poll must be parked before the stop"
    );
    srv.shutdown().await;
    let text = tokio::time::timeout(Duration::from_secs(5), poll)
        .await
        .expect("the parked poll answers promptly")
        .expect("poll task");
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let body: Value =
        serde_json::from_str(text.split("\r\n\r\n").nth(1).expect("body")).expect("JSON body");
    assert_eq!(body["result"], "success");
    assert_eq!(body["events"], json!([]));
}

#[tokio::test]
async fn register_reports_statuses_stars_direct_unreads_and_system_groups() {
    let o = org().await;
    o.srv
        .post(
            "/api/v1/users/me/status",
            &o.bob,
            &[("status_text", "on a train"), ("emoji_name", "train")],
        )
        .await
        .assert_success("POST /users/me/status");
    let dm = o.send_dm(&o.bob, &[&o.alice], "just us").await;
    let group_dm = o.send_dm(&o.bob, &[&o.alice, &o.owner], "all three").await;
    o.srv
        .post(
            "/api/v1/messages/flags",
            &o.alice,
            &[
                ("messages", &format!("[{dm}]")),
                ("op", "add"),
                ("flag", "starred"),
            ],
        )
        .await
        .assert_success("POST /messages/flags");
    let (_, b) = o.register(&o.alice, &[]).await;
    let statuses = b["user_status"].as_object().expect("user_status");
    assert_eq!(statuses[&o.bob.id.to_string()]["status_text"], "on a train");
    assert_eq!(statuses[&o.bob.id.to_string()]["emoji_name"], "train");
    assert!(!statuses.contains_key(&o.alice.id.to_string()));
    assert_eq!(b["starred_messages"], json!([dm]));
    let unread = &b["unread_msgs"];
    // The two messages, and Welcome Bot's.
    assert_eq!(unread["count"], 3);
    let pms = unread["pms"].as_array().unwrap();
    let from_bob = pms.iter().find(|p| p["other_user_id"] == o.bob.id).unwrap();
    assert_eq!(from_bob["unread_message_ids"], json!([dm]));
    let mut trio = [o.owner.id, o.alice.id, o.bob.id];
    trio.sort_unstable();
    let trio = trio.map(|i| i.to_string()).join(",");
    assert_eq!(unread["huddles"][0]["user_ids_string"], trio);
    assert_eq!(
        unread["huddles"][0]["unread_message_ids"],
        json!([group_dm])
    );
    // Newest conversation first, each listing the other participants.
    let recent = b["recent_private_conversations"].as_array().expect("list");
    assert_eq!(recent.len(), 3);
    assert_eq!(recent[0]["max_message_id"], group_dm);
    assert_eq!(recent[1]["max_message_id"], dm);
    assert_eq!(recent[1]["user_ids"], json!([o.bob.id]));
    // The oldest is Welcome Bot's conversation with Alice.
    let welcome_bot = b["cross_realm_bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["full_name"] == "Welcome Bot")
        .unwrap()["user_id"]
        .clone();
    assert_eq!(recent[2]["user_ids"], json!([welcome_bot]));
    let groups = b["realm_user_groups"].as_array().expect("groups");
    let admins = groups
        .iter()
        .find(|g| g["name"] == "role:administrators")
        .expect("administrators group");
    assert_eq!(admins["members"], json!([o.admin.id]));
    assert_eq!(admins["is_system_group"], true);
}

/// Recipients of one channel message share its event text where they can: each must still see
/// their own flags (the sender "read", a mentioned user "mentioned", the others none), with
/// the same message.
#[tokio::test]
async fn each_recipient_of_a_channel_message_gets_their_own_flags() {
    let o = crate::support::org().await;
    o.channel(
        &o.alice,
        "flags",
        &[&o.alice, &o.bob, &o.admin, &o.owner],
        &[],
    )
    .await;
    let form = [("event_types", "[\"message\"]")];
    let mut queues = Vec::new();
    for who in [&o.alice, &o.bob, &o.admin, &o.owner] {
        // Two queues each, so that one user's queues also share a text.
        for _ in 0..2 {
            queues.push((who, o.register(who, &form).await.0));
        }
    }
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.alice,
            &[
                ("type", "stream"),
                ("to", "flags"),
                ("topic", "t"),
                ("content", "hello @**Bob Bee**"),
                ("read_by_sender", "true"),
            ],
        )
        .await;
    let id = r.assert_success("POST /messages")["id"].clone();
    let mut seen = Vec::new();
    for (who, q) in &queues {
        let evs = crate::support::wait_events(&o, who, q, 1).await;
        assert_eq!(evs.len(), 1, "{evs:?}");
        assert_eq!(evs[0]["message"]["id"], id);
        seen.push((who.email.clone(), evs[0]["flags"].clone()));
    }
    let flags_of = |email: &str| -> Vec<Value> {
        seen.iter()
            .filter(|(e, _)| e == email)
            .map(|(_, f)| f.clone())
            .collect()
    };
    assert_eq!(flags_of(&o.alice.email), vec![json!(["read"]); 2]);
    assert_eq!(flags_of(&o.bob.email), vec![json!(["mentioned"]); 2]);
    assert_eq!(flags_of(&o.admin.email), vec![json!([]); 2]);
    assert_eq!(flags_of(&o.owner.email), vec![json!([]); 2]);
}
