//! Attacks on the chat API from issue 9 (security), each performed the way a client would:
//! stored XSS through search highlighting, unbounded event queues and parked polls per user,
//! huge flag updates, backslash links, Basic-auth lookups of unknown emails, and narrows that
//! tell a hidden private channel from a missing one.

use std::time::Duration;

use hyper::Method;
use serde_json::{Value, json};

use outpost::ids::UserId;
use outpost::model::Role;

use crate::support::{Org, TestServer, TestUser, narrow_reply, org_with, poll_now};

async fn events_register(srv: &TestServer, who: &TestUser) -> String {
    let r = srv
        .get(
            "/api/v1/events",
            who,
            &[
                ("dont_block", "true"),
                ("queue_lifespan_secs", "604800"),
                ("event_types", "[\"message\"]"),
            ],
        )
        .await;
    r.assert_success("GET /events")["queue_id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn registering_queues_without_end_evicts_the_users_oldest() {
    let srv = TestServer::start_with(|c| c.limits.max_queues_per_user = 3).await;
    let mallory = srv
        .user("mallory@example.com", "Mallory", Role::Member)
        .await;
    let alice = srv.user("alice@example.com", "Alice", Role::Member).await;
    let alices = events_register(&srv, &alice).await;
    let mut ids = Vec::new();
    for _ in 0..8 {
        ids.push(events_register(&srv, &mallory).await);
    }
    // The table holds the cap for the attacker, plus the other user's queue.
    assert_eq!(srv.state.queues.count_of_user(UserId(mallory.id)), 3);
    assert_eq!(srv.state.queues.len(), 4);
    // The oldest queues are gone as if collected; the newest still work.
    let r = poll_now(&srv, &mallory, &ids[0], -1).await;
    let b = r.assert_error(400, "BAD_EVENT_QUEUE_ID");
    assert_eq!(b["queue_id"], ids[0].as_str());
    poll_now(&srv, &mallory, &ids[4], -1)
        .await
        .assert_error(400, "BAD_EVENT_QUEUE_ID");
    for id in &ids[5..] {
        poll_now(&srv, &mallory, id, -1)
            .await
            .assert_success("GET /events");
    }
    // Another user's queue is untouched.
    poll_now(&srv, &alice, &alices, -1)
        .await
        .assert_success("GET /events");
}

#[tokio::test]
async fn parked_polls_are_capped_per_user() {
    let srv = TestServer::start_with(|c| {
        c.limits.max_parked_polls_per_user = 2;
        c.events.heartbeat = Duration::from_secs(600);
        c.events.heartbeat_jitter = Duration::ZERO;
    })
    .await;
    let mallory = srv
        .user("mallory@example.com", "Mallory", Role::Member)
        .await;
    let queues = [
        events_register(&srv, &mallory).await,
        events_register(&srv, &mallory).await,
        events_register(&srv, &mallory).await,
    ];
    let srv = std::sync::Arc::new(srv);
    let mut parked = Vec::new();
    for q in &queues[..2] {
        let (srv, who, q) = (srv.clone(), mallory.clone(), q.clone());
        parked.push(tokio::spawn(async move {
            srv.get(
                "/api/v1/events",
                &who,
                &[("queue_id", q.as_str()), ("last_event_id", "-1")],
            )
            .await
        }));
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while srv.state.queues.parked_of_user(UserId(mallory.id)) < 2 {
        assert!(tokio::time::Instant::now() < deadline, "polls never parked");
        // The queue table says when both polls are parked; check again shortly.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // A third waiting poll is refused at once with a clear error; non-blocking polls still work.
    let form = [("queue_id", queues[2].as_str()), ("last_event_id", "-1")];
    let third = srv.get("/api/v1/events", &mallory, &form);
    let r = tokio::time::timeout(Duration::from_secs(10), third)
        .await
        .expect("the poll over the cap is answered at once, not parked");
    let b = r.assert_error(429, "RATE_LIMIT_HIT");
    assert!(b["msg"].as_str().unwrap().contains("limit 2"), "{b}");
    poll_now(&srv, &mallory, &queues[2], -1)
        .await
        .assert_success("GET /events");
    // The parked polls were really waiting: deleting their queues answers them.
    for q in &queues[..2] {
        srv.delete("/api/v1/events", &mallory, &[("queue_id", q.as_str())])
            .await
            .assert_success("DELETE /events");
    }
    for p in parked {
        p.await.unwrap().assert_error(400, "BAD_EVENT_QUEUE_ID");
    }
    assert_eq!(srv.state.queues.parked_of_user(UserId(mallory.id)), 0);
}

async fn star(o: &Org, list: Value) -> crate::support::Reply {
    let list = list.to_string();
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
}

#[tokio::test]
async fn huge_flag_lists_are_refused_and_duplicates_count_once() {
    let o = org_with(|c| c.limits.max_flag_message_ids = 3).await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let mut ids = Vec::new();
    for i in 0..4 {
        ids.push(
            o.send_channel(&o.alice, "general", "t", &format!("m{i}"))
                .await,
        );
    }
    // Over the cap: refused, nothing starred.
    let r = star(&o, json!(ids)).await;
    let b = r.assert_error(400, "BAD_REQUEST");
    assert_eq!(
        b["msg"],
        "Too many messages: at most 3 message IDs per request"
    );
    assert!(o.ids(&o.bob, json!([["is", "starred"]])).await.is_empty());
    // A flood of one id (the attack's shape at small scale) is one id.
    let flood: Vec<i64> = std::iter::repeat_n(ids[0], 100_000).collect();
    let r = star(&o, json!(flood)).await;
    assert_eq!(
        r.assert_success("POST /messages/flags")["messages"],
        json!([ids[0]])
    );
    // Duplicates count once in the answer, and an unknown id among valid ones changes nothing.
    let r = star(&o, json!([ids[1], ids[1], ids[2], ids[1]])).await;
    assert_eq!(
        r.assert_success("POST /messages/flags")["messages"],
        json!([ids[1], ids[2]])
    );
    let r = star(&o, json!([ids[3], 999_999])).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid message(s)"
    );
    assert_eq!(
        o.ids(&o.bob, json!([["is", "starred"]])).await,
        vec![ids[0], ids[1], ids[2]]
    );
}

async fn search(o: &Org, who: &TestUser, q: &str) -> Vec<Value> {
    let narrow = json!([["search", q]]).to_string();
    let r = o
        .fetch(
            who,
            &[
                ("anchor", "newest"),
                ("num_before", "50"),
                ("narrow", narrow.as_str()),
            ],
        )
        .await;
    r.body["messages"].as_array().unwrap().clone()
}

#[tokio::test]
async fn search_highlighting_escapes_topics_and_keeps_entities_whole() {
    let o = org_with(|_| {}).await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let evil = "deploy <img src=x onerror=alert(1)>";
    o.send_channel(&o.alice, "general", evil, "release notes")
        .await;
    let found = search(&o, &o.bob, "deploy").await;
    assert_eq!(found.len(), 1);
    let subject = found[0]["match_subject"].as_str().unwrap();
    assert!(!subject.contains("<img"), "{subject}");
    assert_eq!(
        subject,
        "<span class=\"highlight\">deploy</span> &lt;img src=x onerror=alert(1)&gt;"
    );
    // The topic itself is still the raw text.
    assert_eq!(found[0]["subject"], evil);

    // Content: a search for an entity's name must not cut into the entity.
    o.send_channel(&o.alice, "general", "t", "R&D amp 1 < 2 lt")
        .await;
    for word in ["amp", "lt"] {
        let found = search(&o, &o.bob, word).await;
        assert_eq!(found.len(), 1, "{word}");
        let content = found[0]["match_content"].as_str().unwrap();
        assert_eq!(
            content,
            format!(
                "<p>R&amp;D {} 1 &lt; 2 {}</p>",
                if word == "amp" {
                    "<span class=\"highlight\">amp</span>"
                } else {
                    "amp"
                },
                if word == "lt" {
                    "<span class=\"highlight\">lt</span>"
                } else {
                    "lt"
                },
            ),
            "{word}"
        );
    }
}

#[tokio::test]
async fn backslash_links_stay_on_this_server() {
    let o = org_with(|_| {}).await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let id = o
        .send_channel(
            &o.alice,
            "general",
            "t",
            "[a](/\\evil.com) [b](/\\\\evil.com/x)",
        )
        .await;
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{id}"), &o.bob, &[])
        .await;
    let content = r.assert_success("GET /messages/{message_id}")["message"]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!content.contains("href=\"/\\"), "{content}");
    assert_eq!(
        content,
        "<p><a href=\"/%5Cevil.com\">a</a> <a href=\"/%5Cevil.com/x\">b</a></p>"
    );
}

#[tokio::test]
async fn a_hidden_private_channel_narrows_like_a_missing_one() {
    let o = org_with(|_| {}).await;
    let secret = o
        .channel(&o.alice, "secret", &[&o.alice], &[("invite_only", "true")])
        .await;
    o.send_channel(&o.alice, "secret", "plans", "hush").await;
    let unknown = |operand: Value| {
        let desc = format!(
            "unknown channel {}",
            operand.as_str().map_or(operand.to_string(), str::to_string)
        );
        json!({
            "result": "error",
            "msg": format!("Invalid narrow operator: {desc}"),
            "code": "BAD_NARROW",
            "desc": desc,
        })
    };
    // By name and by id, hidden and missing answer alike (the operand aside).
    let cases = [
        (json!("secret"), json!("no-such-channel")),
        (json!(secret), json!(secret + 1000)),
        (
            json!(secret.to_string()),
            json!((secret + 1000).to_string()),
        ),
    ];
    for (hidden, missing) in cases {
        for op in ["channel", "stream"] {
            let h = narrow_reply(&o.srv, &o.bob, json!([[op, hidden.clone()]])).await;
            let m = narrow_reply(&o.srv, &o.bob, json!([[op, missing.clone()]])).await;
            assert_eq!(h.status, 400, "{}", h.body);
            assert_eq!(m.status, 400, "{}", m.body);
            assert_eq!(h.body, unknown(hidden.clone()));
            assert_eq!(m.body, unknown(missing.clone()));
        }
    }
    // Members and admins who may know the channel still narrow to it.
    let r = narrow_reply(&o.srv, &o.alice, json!([["channel", "secret"]])).await;
    assert_eq!(
        r.assert_success("GET /messages")["messages"]
            .as_array()
            .unwrap()
            .len(),
        2,
        "the creation notice and the message sent there"
    );
    let r = narrow_reply(&o.srv, &o.admin, json!([["channel", "secret"]])).await;
    r.assert_success("GET /messages");
    // A former subscriber keeps their own history there.
    let shared = o
        .channel(
            &o.alice,
            "shared",
            &[&o.alice, &o.bob],
            &[("invite_only", "true")],
        )
        .await;
    let id = o
        .send_channel(&o.alice, "shared", "t", "you saw this")
        .await;
    o.srv
        .delete(
            "/api/v1/users/me/subscriptions",
            &o.bob,
            &[("subscriptions", "[\"shared\"]")],
        )
        .await
        .assert_success("DELETE /users/me/subscriptions");
    let r = narrow_reply(&o.srv, &o.bob, json!([["channel", shared], ["topic", "t"]])).await;
    let ids: Vec<i64> = r.assert_success("GET /messages")["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![id]);
}

#[tokio::test]
async fn unknown_emails_are_answered_from_the_cache_like_known_ones() {
    use outpost::domain::credentials::Cached;
    let srv = TestServer::start().await;
    let known = srv
        .user("known@example.com", "Known One", Role::Member)
        .await;
    let wrong_key = "A".repeat(32);
    let probe = |email: &str| TestUser {
        id: 0,
        email: email.to_string(),
        api_key: wrong_key.clone(),
    };
    // A known email with a wrong key and an unknown email answer alike...
    for who in [probe(&known.email), probe("ghost@example.com")] {
        let r = srv.get("/api/v1/users/me", &who, &[]).await;
        assert_eq!(r.status, 401);
        assert_eq!(r.body["msg"], "Invalid API key");
    }
    // ...and after one lookup both are served from the cache, not the database.
    assert!(matches!(
        srv.state.users.get("known@example.com"),
        Some(Cached::User(_))
    ));
    assert!(matches!(
        srv.state.users.get("ghost@example.com"),
        Some(Cached::NoSuchUser)
    ));
    // The remembered absence ends when the account is created.
    let ghost = srv.user("ghost@example.com", "Ghost", Role::Member).await;
    srv.get("/api/v1/users/me", &ghost, &[])
        .await
        .assert_success("GET /users/me");
    srv.get("/api/v1/users/me", &known, &[])
        .await
        .assert_success("GET /users/me");
}

#[tokio::test]
async fn password_login_for_an_unknown_user_fails_like_a_wrong_password() {
    let srv = TestServer::start().await;
    srv.user_with("pw@example.com", "Pat Word", Role::Member, |n| {
        n.password = Some("correct horse".into())
    })
    .await;
    let mut answers = Vec::new();
    for (user, pw) in [
        ("pw@example.com", "wrong horse"),
        ("nobody@example.com", "x"),
    ] {
        let r = srv
            .call(
                Method::POST,
                "/api/v1/fetch_api_key",
                None,
                &[("username", user), ("password", pw)],
            )
            .await;
        answers.push((r.status, r.body));
    }
    assert_eq!(answers[0].0, 401);
    assert_eq!(answers[0], answers[1]);
}
