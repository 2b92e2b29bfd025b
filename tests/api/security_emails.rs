//! Hidden email addresses (issue 9, item 5) and the login email of `POST /fetch_api_key`.
//!
//! With `email_address_visibility` hiding addresses, a member must not learn another user's
//! real address from events, avatars, narrows or recipient lists; the placeholder API email
//! `user{id}@{host}` names users instead, and viewers allowed to see real addresses keep using
//! them.

use std::time::Duration;

use md5::{Digest, Md5};
use serde_json::{Value, json};

use outpost::config::EmailVisibility;
use outpost::model::Role;

use crate::support::{Reply, TestServer, TestUser, narrow_reply, register_queue};

const PASSWORD: &str = "correct horse battery";

struct Org {
    srv: TestServer,
    owner: TestUser,
    admin: TestUser,
    alice: TestUser,
    bob: TestUser,
}

/// A server where only administrators see real addresses.
async fn org() -> Org {
    let srv =
        TestServer::start_with(|c| c.chat.email_address_visibility = EmailVisibility::Admins).await;
    let owner = srv
        .user_with("owner@example.com", "Olive Owner", Role::Owner, |u| {
            u.can_create_users = true;
        })
        .await;
    let admin = srv
        .user("admin@example.com", "Ada Admin", Role::Administrator)
        .await;
    let alice = srv
        .user("alice@example.com", "Alice Ant", Role::Member)
        .await;
    let bob = srv
        .user_with("bob@example.com", "Bob Bee", Role::Member, |u| {
            u.password = Some(PASSWORD.into());
        })
        .await;
    Org {
        srv,
        owner,
        admin,
        alice,
        bob,
    }
}

fn placeholder(u: &TestUser) -> String {
    format!("user{}@outpost.test", u.id)
}

fn md5_hex(s: &str) -> String {
    Md5::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `GET /events` that waits (long-polls) until the queue holds something.
async fn next_events(srv: &TestServer, who: &TestUser, queue: &str) -> Reply {
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        srv.get(
            "/api/v1/events",
            who,
            &[("queue_id", queue), ("last_event_id", "-1")],
        ),
    )
    .await
    .expect("an event arrives");
    r.assert_success("GET /events");
    r
}

async fn send_direct(srv: &TestServer, who: &TestUser, to: &str) -> Reply {
    srv.post(
        "/api/v1/messages",
        who,
        &[("type", "direct"), ("to", to), ("content", "psst")],
    )
    .await
}

/// Asserts that two error replies are the same once each names its own address.
#[track_caller]
fn same_error(a: &Reply, a_email: &str, b: &Reply, b_email: &str) {
    assert_eq!(a.status, 400, "body: {}", a.body);
    assert_eq!(a.status, b.status);
    assert_eq!(a.body["result"], "error", "body: {}", a.body);
    assert_eq!(a.body["code"], b.body["code"]);
    let strip = |r: &Reply, email: &str| r.body["msg"].as_str().unwrap().replace(email, "<x>");
    assert_eq!(strip(a, a_email), strip(b, b_email));
}

fn message_ids(r: &Reply) -> Vec<i64> {
    r.assert_success("GET /messages")["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn realm_user_add_events_carry_the_real_email_only_to_those_who_may_see_it() {
    let o = org().await;
    let events = [("event_types", "[\"realm_user\"]")];
    let member_q = register_queue(&o.srv, &o.alice, &events).await;
    let admin_q = register_queue(&o.srv, &o.admin, &events).await;
    let r = o
        .srv
        .post(
            "/api/v1/users",
            &o.owner,
            &[
                ("email", "Secret.Newbie@example.com"),
                ("password", PASSWORD),
                ("full_name", "Nina Newbie"),
            ],
        )
        .await;
    let new_id = r.assert_success("POST /users")["user_id"].as_i64().unwrap();

    let r = next_events(&o.srv, &o.alice, &member_q).await;
    let raw = String::from_utf8_lossy(&r.raw).to_lowercase();
    assert!(!raw.contains("secret.newbie"), "member's event: {raw}");
    assert!(
        !raw.contains(&md5_hex("secret.newbie@example.com")),
        "member's event: {raw}"
    );
    let person = &r.body["events"][0]["person"];
    assert_eq!(r.body["events"][0]["op"], "add");
    assert_eq!(person["user_id"], new_id);
    assert_eq!(person["email"], format!("user{new_id}@outpost.test"));
    assert_eq!(person["delivery_email"], Value::Null);

    // An administrator may see it.
    let r = next_events(&o.srv, &o.admin, &admin_q).await;
    let person = &r.body["events"][0]["person"];
    assert_eq!(person["email"], format!("user{new_id}@outpost.test"));
    assert_eq!(person["delivery_email"], "Secret.Newbie@example.com");
}

#[tokio::test]
async fn narrows_by_a_hidden_email_answer_as_for_an_unknown_email() {
    let o = org().await;
    let r = send_direct(&o.srv, &o.bob, &json!([o.alice.id]).to_string()).await;
    let dm = r.assert_success("POST /messages")["id"].as_i64().unwrap();
    let real = "bob@example.com";
    let unknown = "nobody@example.com";
    for op in ["sender", "dm", "dm-including", "pm-with"] {
        let hidden = narrow_reply(&o.srv, &o.alice, json!([[op, real]])).await;
        let none = narrow_reply(&o.srv, &o.alice, json!([[op, unknown]])).await;
        same_error(&hidden, real, &none, unknown);
        // The same in the object form, and in a different case.
        let hidden = narrow_reply(
            &o.srv,
            &o.alice,
            json!([{"operator": op, "operand": "BOB@example.com"}]),
        )
        .await;
        same_error(&hidden, "BOB@example.com", &none, unknown);
        // The placeholder API email names Bob.
        let found = narrow_reply(&o.srv, &o.alice, json!([[op, placeholder(&o.bob)]])).await;
        assert_eq!(message_ids(&found), vec![dm], "{op}");
    }
    // An administrator may use the real address.
    let r = send_direct(&o.srv, &o.bob, &json!([o.admin.id]).to_string()).await;
    let to_admin = r.assert_success("POST /messages")["id"].as_i64().unwrap();
    for op in ["sender", "dm", "dm-including"] {
        let found = narrow_reply(&o.srv, &o.admin, json!([[op, real]])).await;
        assert_eq!(message_ids(&found), vec![to_admin], "{op}");
    }
}

#[tokio::test]
async fn event_queue_narrows_do_not_match_a_hidden_sender_email() {
    let o = org().await;
    let r = o
        .srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.bob,
            &[("subscriptions", "[{\"name\":\"general\"}]")],
        )
        .await;
    r.assert_success("POST /users/me/subscriptions");
    let by_real = register_queue(
        &o.srv,
        &o.alice,
        &[
            ("event_types", "[\"message\"]"),
            ("narrow", "[[\"sender\",\"bob@example.com\"]]"),
        ],
    )
    .await;
    let by_placeholder = register_queue(
        &o.srv,
        &o.alice,
        &[
            ("event_types", "[\"message\"]"),
            (
                "narrow",
                &json!([["sender", placeholder(&o.bob)]]).to_string(),
            ),
        ],
    )
    .await;
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.bob,
            &[
                ("type", "stream"),
                ("to", "general"),
                ("topic", "t"),
                ("content", "hello"),
            ],
        )
        .await;
    let id = r.assert_success("POST /messages")["id"].as_i64().unwrap();
    // One delivery pass fills both queues; once one has the message, the other is decided.
    let r = next_events(&o.srv, &o.alice, &by_placeholder).await;
    assert_eq!(r.body["events"][0]["message"]["id"], id);
    let r = o
        .srv
        .get(
            "/api/v1/events",
            &o.alice,
            &[
                ("queue_id", by_real.as_str()),
                ("last_event_id", "-1"),
                ("dont_block", "true"),
            ],
        )
        .await;
    let events = r.assert_success("GET /events")["events"]
        .as_array()
        .unwrap();
    assert!(events.iter().all(|e| e["type"] != "message"), "{events:?}");
}

#[tokio::test]
async fn direct_messages_reach_placeholders_and_refuse_hidden_emails() {
    let o = org().await;
    let real = "bob@example.com";
    let unknown = "nobody@example.com";
    let hidden = send_direct(&o.srv, &o.alice, &json!([real]).to_string()).await;
    let none = send_direct(&o.srv, &o.alice, &json!([unknown]).to_string()).await;
    same_error(&hidden, real, &none, unknown);
    // The comma-separated form too.
    let hidden = send_direct(&o.srv, &o.alice, real).await;
    let none = send_direct(&o.srv, &o.alice, unknown).await;
    same_error(&hidden, real, &none, unknown);

    // The address GET /users gives for Bob reaches him.
    let r = o.srv.get("/api/v1/users", &o.alice, &[]).await;
    let members = r.assert_success("GET /users")["members"]
        .as_array()
        .unwrap();
    let listed = members
        .iter()
        .find(|m| m["user_id"] == o.bob.id)
        .expect("Bob is listed")["email"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(listed, placeholder(&o.bob));
    let r = send_direct(&o.srv, &o.alice, &json!([listed]).to_string()).await;
    let id = r.assert_success("POST /messages")["id"].as_i64().unwrap();
    let got = narrow_reply(
        &o.srv,
        &o.bob,
        json!([["is", "dm"], ["sender", o.alice.id]]),
    )
    .await;
    assert_eq!(message_ids(&got), vec![id]);

    // An administrator may address Bob by his real address.
    let r = send_direct(&o.srv, &o.admin, &json!([real]).to_string()).await;
    let id = r.assert_success("POST /messages")["id"].as_i64().unwrap();
    let got = narrow_reply(&o.srv, &o.bob, json!([["dm", placeholder(&o.admin)]])).await;
    assert_eq!(message_ids(&got), vec![id]);
}

#[tokio::test]
async fn avatar_urls_do_not_hash_hidden_emails() {
    let o = org().await;
    let hash = md5_hex("bob@example.com");
    let path = format!("/api/v1/users/{}", o.bob.id);
    let r = o
        .srv
        .get(&path, &o.alice, &[("client_gravatar", "false")])
        .await;
    let url = r.assert_success("GET /users/{user_id}")["user"]["avatar_url"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        url.starts_with("https://secure.gravatar.com/avatar/"),
        "{url}"
    );
    assert!(!url.contains(&hash), "{url}");
    // Nowhere else either: the user list, the register state, Bob's messages.
    let r = send_direct(&o.srv, &o.bob, &json!([o.alice.id]).to_string()).await;
    r.assert_success("POST /messages");
    let replies = [
        o.srv.get("/api/v1/users", &o.alice, &[]).await,
        o.srv.post("/api/v1/register", &o.alice, &[]).await,
        narrow_reply(&o.srv, &o.alice, json!([])).await,
    ];
    for r in &replies {
        assert_eq!(r.status, 200, "{}", r.body);
        let raw = String::from_utf8_lossy(&r.raw);
        assert!(!raw.contains(&hash), "{raw}");
        assert!(!raw.contains("bob@example.com"), "{raw}");
    }
}

#[tokio::test]
async fn fetch_api_key_returns_the_login_email_that_works_for_basic_auth() {
    let o = org().await;
    let r = o
        .srv
        .call(
            hyper::Method::POST,
            "/api/v1/fetch_api_key",
            None,
            &[("username", "bob@example.com"), ("password", PASSWORD)],
        )
        .await;
    let b = r.assert_success("POST /fetch_api_key");
    assert_eq!(b["email"], "bob@example.com");
    assert_eq!(b["user_id"], o.bob.id);
    let me = TestUser {
        id: o.bob.id,
        email: b["email"].as_str().unwrap().to_string(),
        api_key: b["api_key"].as_str().unwrap().to_string(),
    };
    let r = o.srv.get("/api/v1/users/me", &me, &[]).await;
    assert_eq!(r.assert_success("GET /users/me")["user_id"], o.bob.id);
    // Basic auth compares the login email case-insensitively.
    let upper = TestUser {
        email: "BOB@Example.COM".into(),
        ..me.clone()
    };
    let r = o.srv.get("/api/v1/users/me", &upper, &[]).await;
    r.assert_success("GET /users/me");
    // The placeholder is no login.
    let as_placeholder = TestUser {
        email: placeholder(&o.bob),
        ..me
    };
    let r = o.srv.get("/api/v1/users/me", &as_placeholder, &[]).await;
    r.assert_error(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn principals_and_deactivated_recipients_do_not_confirm_hidden_emails() {
    let o = org().await;
    let subscribe = |principal: &str| {
        let principals = json!([principal]).to_string();
        let srv = &o.srv;
        let alice = &o.alice;
        async move {
            srv.post(
                "/api/v1/users/me/subscriptions",
                alice,
                &[
                    ("subscriptions", "[{\"name\":\"general\"}]"),
                    ("principals", principals.as_str()),
                ],
            )
            .await
        }
    };
    let hidden = subscribe("bob@example.com").await;
    let none = subscribe("nobody@example.com").await;
    same_error(&hidden, "bob@example.com", &none, "nobody@example.com");

    // Addressed by id, a deactivated user is named by the address the sender may see.
    let r = o
        .srv
        .delete(&format!("/api/v1/users/{}", o.bob.id), &o.admin, &[])
        .await;
    r.assert_success("DELETE /users/{user_id}");
    let r = send_direct(&o.srv, &o.alice, &json!([o.bob.id]).to_string()).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        format!("'{}' is no longer using Zulip.", placeholder(&o.bob))
    );
}
