//! Sending and reading messages: recipients, topics, narrows, anchors, flags, read state.

use serde_json::json;

use crate::support::{TestUser, org};

#[tokio::test]
async fn send_to_a_channel_by_name_or_id() {
    let o = org().await;
    let ch = o
        .channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let first = o
        .send_channel(&o.alice, "general", "lunch", "hello **world**")
        .await;
    let id_str = ch.to_string();
    let by_id = o.send_channel(&o.bob, &id_str, "lunch", "by id").await;
    let by_list = o
        .send_channel(&o.bob, &format!("[{ch}]"), "lunch", "by list")
        .await;
    let quoted = o
        .send_channel(&o.bob, "\"general\"", "lunch", "quoted")
        .await;
    assert!(first < by_id && by_id < by_list && by_list < quoted);

    let r = o
        .srv
        .get(&format!("/api/v1/messages/{first}"), &o.bob, &[])
        .await;
    let b = r.assert_success("GET /messages/{message_id}");
    let m = &b["message"];
    assert_eq!(b["raw_content"], "hello **world**");
    assert_eq!(m["content"], "<p>hello <strong>world</strong></p>");
    assert_eq!(m["content_type"], "text/html");
    assert_eq!(m["type"], "stream");
    assert_eq!(m["stream_id"], ch);
    assert_eq!(m["display_recipient"], "general");
    assert_eq!(m["subject"], "lunch");
    assert_eq!(m["sender_id"], o.alice.id);
    assert_eq!(m["sender_email"], "alice@example.com");
    assert_eq!(m["sender_full_name"], "Alice Ant");
    assert_eq!(m["client"], "Unspecified");
    assert_eq!(m["reactions"], json!([]));
    assert_eq!(m["flags"], json!([]));
    assert!(m.get("edit_history").is_none());
    let r = o
        .srv
        .get(
            &format!("/api/v1/messages/{first}"),
            &o.bob,
            &[("apply_markdown", "false")],
        )
        .await;
    let m = &r.assert_success("GET /messages/{message_id}")["message"];
    assert_eq!(
        (m["content"].clone(), m["content_type"].clone()),
        (json!("hello **world**"), json!("text/x-markdown"))
    );
}

#[tokio::test]
async fn send_errors_change_nothing() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice], &[]).await;
    o.channel(&o.alice, "secret", &[&o.alice], &[("invite_only", "true")])
        .await;
    o.channel(
        &o.alice,
        "strict",
        &[&o.alice, &o.bob],
        &[("topics_policy", "disable_empty_topic")],
    )
    .await;
    o.channel(
        &o.alice,
        "quiet",
        &[&o.alice, &o.bob],
        &[("can_send_message_group", "3")],
    )
    .await;
    let send = |who: &TestUser, form: Vec<(&'static str, &'static str)>| {
        let srv = &o.srv;
        let who = who.clone();
        async move { srv.post("/api/v1/messages", &who, &form).await }
    };
    let r = send(
        &o.bob,
        vec![
            ("type", "stream"),
            ("to", "nowhere"),
            ("topic", "t"),
            ("content", "x"),
        ],
    )
    .await;
    let b = r.assert_error(400, "STREAM_DOES_NOT_EXIST");
    assert_eq!(
        (b["msg"].clone(), b["stream"].clone()),
        (json!("Channel 'nowhere' does not exist"), json!("nowhere"))
    );
    let r = send(
        &o.bob,
        vec![
            ("type", "stream"),
            ("to", "9999"),
            ("topic", "t"),
            ("content", "x"),
        ],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "STREAM_DOES_NOT_EXIST")["stream_id"],
        9999
    );
    // A private channel the sender cannot see looks like a missing one.
    send(
        &o.bob,
        vec![
            ("type", "stream"),
            ("to", "secret"),
            ("topic", "t"),
            ("content", "x"),
        ],
    )
    .await
    .assert_error(400, "STREAM_DOES_NOT_EXIST");
    for (form, msg) in [
        (
            vec![
                ("type", "smoke"),
                ("to", "general"),
                ("topic", "t"),
                ("content", "x"),
            ],
            "Invalid type",
        ),
        (
            vec![("type", "stream"), ("to", "general"), ("content", "x")],
            "Missing topic",
        ),
        (
            vec![
                ("type", "stream"),
                ("to", "general"),
                ("topic", "t"),
                ("content", "  \n "),
            ],
            "Message must not be empty",
        ),
        (
            vec![
                ("type", "stream"),
                ("to", "[1,2]"),
                ("topic", "t"),
                ("content", "x"),
            ],
            "Expected exactly one channel",
        ),
        (
            vec![
                ("type", "stream"),
                ("to", "strict"),
                ("topic", "(no topic)"),
                ("content", "x"),
            ],
            "Sending messages to the general chat is not allowed in this channel.",
        ),
        (
            vec![
                ("type", "stream"),
                ("to", "quiet"),
                ("topic", "t"),
                ("content", "x"),
            ],
            "You do not have permission to post in this channel.",
        ),
        (
            vec![("type", "direct"), ("to", "[]"), ("content", "x")],
            "Message must have recipients",
        ),
        (
            vec![("type", "direct"), ("to", "5"), ("content", "x")],
            "Invalid data type for recipients",
        ),
        (
            vec![
                ("type", "direct"),
                ("to", "[5, \"a@b.c\"]"),
                ("content", "x"),
            ],
            "Recipient lists may contain emails or user IDs, but not both.",
        ),
        (
            vec![("type", "direct"), ("to", "[424242]"), ("content", "x")],
            "Invalid user ID 424242",
        ),
        (
            vec![
                ("type", "direct"),
                ("to", "ghost@example.com"),
                ("content", "x"),
            ],
            "Invalid email 'ghost@example.com'",
        ),
    ] {
        let r = send(&o.bob, form).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    let r = send(
        &o.bob,
        vec![
            ("type", "stream"),
            ("to", "general"),
            ("topic", "a"),
            ("subject", "b"),
            ("content", "x"),
        ],
    )
    .await;
    r.assert_error(400, "REQUEST_CONFUSING_VAR");
    let r = send(
        &o.bob,
        vec![("type", "stream"), ("to", "general"), ("topic", "a")],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "REQUEST_VARIABLE_MISSING")["var_name"],
        "content"
    );
    // Nothing was stored.
    assert!(o.ids(&o.alice, json!([])).await.is_empty());
}

#[tokio::test]
async fn topics_are_normalized_and_truncated() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice], &[]).await;
    let empty = o.send_channel(&o.alice, "general", "(no topic)", "x").await;
    let long_topic = "t".repeat(80);
    let long = o.send_channel(&o.alice, "general", &long_topic, "y").await;
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{empty}"), &o.alice, &[])
        .await;
    assert_eq!(r.body["message"]["subject"], "general chat");
    let r = o
        .srv
        .get(
            &format!("/api/v1/messages/{empty}"),
            &o.alice,
            &[("allow_empty_topic_name", "true")],
        )
        .await;
    assert_eq!(r.body["message"]["subject"], "");
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{long}"), &o.alice, &[])
        .await;
    let subject = r.body["message"]["subject"].as_str().unwrap().to_string();
    assert_eq!(subject.chars().count(), 60);
    assert!(subject.ends_with("..."));
    let big = "z".repeat(10_050);
    let id = o.send_channel(&o.alice, "general", "big", &big).await;
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{id}"), &o.alice, &[])
        .await;
    let raw = r.body["raw_content"].as_str().unwrap();
    assert_eq!(raw.chars().count(), 10_000);
    assert!(raw.ends_with("\n[message truncated]"));
}

#[tokio::test]
async fn direct_messages_by_ids_and_emails() {
    let o = org().await;
    let id = o.send_dm(&o.alice, &[&o.bob], "psst").await;
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.bob,
            &[
                ("type", "private"),
                ("to", "alice@example.com, owner@example.com"),
                ("content", "group"),
            ],
        )
        .await;
    let group = r.assert_success("POST /messages")["id"].as_i64().unwrap();
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{id}"), &o.bob, &[])
        .await;
    let m = &r.assert_success("GET /messages/{message_id}")["message"];
    assert_eq!(m["type"], "private");
    assert_eq!(m["subject"], "");
    let names: Vec<&str> = m["display_recipient"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["full_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["Alice Ant", "Bob Bee"]);
    // Bob sees the conversation under Alice's personal recipient, Alice under Bob's.
    let r2 = o
        .srv
        .get(&format!("/api/v1/messages/{id}"), &o.alice, &[])
        .await;
    assert_ne!(m["recipient_id"], r2.body["message"]["recipient_id"]);
    // Outsiders cannot read it.
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{id}"), &o.admin, &[])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid message(s)"
    );
    // Narrows.
    assert_eq!(
        o.ids(&o.alice, json!([["dm", "bob@example.com"]])).await,
        vec![id]
    );
    assert_eq!(
        o.ids(
            &o.alice,
            json!([{"operator": "dm", "operand": [o.bob.id, o.owner.id]}])
        )
        .await,
        vec![group]
    );
    assert_eq!(
        o.ids(&o.alice, json!([["is", "dm"]])).await,
        vec![id, group]
    );
    assert_eq!(
        o.ids(&o.alice, json!([["dm-including", o.owner.id]])).await,
        vec![group]
    );
    assert_eq!(
        o.ids(&o.admin, json!([["is", "private"]])).await,
        Vec::<i64>::new()
    );
}

#[tokio::test]
async fn narrows_anchors_and_found_flags() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    o.channel(&o.alice, "random", &[&o.alice, &o.bob], &[])
        .await;
    let mut ids = Vec::new();
    for i in 0..6 {
        let topic = if i % 2 == 0 { "even" } else { "odd" };
        ids.push(
            o.send_channel(&o.alice, "general", topic, &format!("message number {i}"))
                .await,
        );
    }
    let other = o.send_channel(&o.bob, "random", "even", "elsewhere").await;
    assert_eq!(o.ids(&o.bob, json!([["stream", "general"]])).await, ids);
    assert_eq!(
        o.ids(&o.bob, json!([["stream", "general"], ["topic", "EVEN"]]))
            .await,
        vec![ids[0], ids[2], ids[4]]
    );
    assert_eq!(o.ids(&o.bob, json!([{"operator": "channel", "operand": "general"}, {"operator": "topic", "operand": "even", "negated": true}])).await, vec![ids[1], ids[3], ids[5]]);
    assert_eq!(
        o.ids(&o.bob, json!([["sender", "bob@example.com"]])).await,
        vec![other]
    );
    assert_eq!(o.ids(&o.bob, json!([["id", ids[2]]])).await, vec![ids[2]]);
    assert_eq!(
        o.ids(&o.bob, json!([["search", "number 3"]])).await,
        vec![ids[3]]
    );

    // Anchor in the middle.
    let anchor = ids[2].to_string();
    let r = o
        .fetch(
            &o.bob,
            &[
                ("anchor", anchor.as_str()),
                ("num_before", "1"),
                ("num_after", "2"),
                ("narrow", "[[\"stream\",\"general\"]]"),
            ],
        )
        .await;
    let got: Vec<i64> = r.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(got, vec![ids[1], ids[2], ids[3], ids[4]]);
    assert_eq!(
        (
            r.body["found_anchor"].clone(),
            r.body["found_oldest"].clone(),
            r.body["found_newest"].clone()
        ),
        (json!(true), json!(false), json!(false))
    );
    assert_eq!(r.body["anchor"], ids[2]);
    assert_eq!(r.body["history_limited"], false);
    // Newest and oldest.
    let r = o
        .fetch(
            &o.bob,
            &[
                ("anchor", "newest"),
                ("num_before", "2"),
                ("num_after", "0"),
            ],
        )
        .await;
    assert_eq!(r.body["anchor"], json!(10_000_000_000_000_000i64));
    assert_eq!(r.body["found_newest"], true);
    assert_eq!(r.body["messages"].as_array().unwrap().len(), 2);
    let r = o
        .fetch(
            &o.bob,
            &[
                ("anchor", "oldest"),
                ("num_before", "0"),
                ("num_after", "100"),
            ],
        )
        .await;
    assert_eq!(
        (
            r.body["found_oldest"].clone(),
            r.body["found_newest"].clone()
        ),
        (json!(true), json!(true))
    );
    // Seven sent here, two creation notices and Bob's welcome message.
    assert_eq!(r.body["messages"].as_array().unwrap().len(), 10);
    // Search highlighting.
    let r = o
        .fetch(
            &o.bob,
            &[
                ("anchor", "newest"),
                ("num_before", "5"),
                ("narrow", "[[\"search\",\"elsewhere\"]]"),
            ],
        )
        .await;
    assert_eq!(
        r.body["messages"][0]["match_content"],
        "<p><span class=\"highlight\">elsewhere</span></p>"
    );
    assert_eq!(r.body["messages"][0]["match_subject"], "even");
    // message_ids.
    let list = json!([ids[0], other, 999999]).to_string();
    let r = o.fetch(&o.bob, &[("message_ids", list.as_str())]).await;
    assert_eq!(r.body["messages"].as_array().unwrap().len(), 2);
    assert!(r.body.get("anchor").is_none());
}

#[tokio::test]
async fn bad_fetches() {
    let o = org().await;
    for (query, code, msg) in [
        (
            vec![("num_before", "1")],
            "BAD_REQUEST",
            "Missing 'anchor' argument.",
        ),
        (vec![("anchor", "soon")], "BAD_REQUEST", "Invalid anchor"),
        (
            vec![
                ("anchor", "newest"),
                ("num_before", "4000"),
                ("num_after", "1001"),
            ],
            "BAD_REQUEST",
            "Too many messages requested (maximum 5000).",
        ),
        (
            vec![
                ("anchor", "5"),
                ("num_before", "1"),
                ("num_after", "1"),
                ("include_anchor", "false"),
            ],
            "BAD_REQUEST",
            "The anchor can only be excluded at an end of the range",
        ),
        (
            vec![("anchor", "newest"), ("narrow", "[[\"color\",\"red\"]]")],
            "BAD_NARROW",
            "Invalid narrow operator: unknown operator color",
        ),
        (
            vec![
                ("anchor", "newest"),
                ("narrow", "[[\"stream\",\"nowhere\"]]"),
            ],
            "BAD_NARROW",
            "Invalid narrow operator: unknown channel nowhere",
        ),
        (
            vec![("anchor", "newest"), ("narrow", "[[\"is\",\"weird\"]]")],
            "BAD_NARROW",
            "Invalid narrow operator: unknown 'is' operand weird",
        ),
        (
            vec![("anchor", "newest"), ("narrow", "not json")],
            "BAD_REQUEST",
            "narrow is not valid JSON",
        ),
        (
            vec![("anchor", "newest"), ("message_ids", "[1]")],
            "BAD_REQUEST",
            "Unsupported parameter combination: anchor, message_ids",
        ),
    ] {
        let r = o.srv.get("/api/v1/messages", &o.bob, &query).await;
        assert_eq!(r.assert_error(400, code)["msg"], msg);
    }
    let r = o.srv.get("/api/v1/messages/12345", &o.bob, &[]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid message(s)"
    );
}

#[tokio::test]
async fn history_rules_for_private_and_public_channels() {
    let o = org().await;
    o.channel(&o.alice, "open", &[&o.alice], &[]).await;
    o.channel(&o.alice, "vault", &[&o.alice], &[("invite_only", "true")])
        .await;
    let open_old = o.send_channel(&o.alice, "open", "t", "before bob").await;
    let vault_old = o.send_channel(&o.alice, "vault", "t", "before bob").await;
    // Bob can read public history without subscribing; it shows as historical.
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{open_old}"), &o.bob, &[])
        .await;
    assert_eq!(r.body["message"]["flags"], json!(["read", "historical"]));
    o.srv
        .get(&format!("/api/v1/messages/{vault_old}"), &o.bob, &[])
        .await
        .assert_error(400, "BAD_REQUEST");
    // Joining a protected-history channel does not reveal older messages.
    let principals = json!([o.bob.id]).to_string();
    o.srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[
                ("subscriptions", "[{\"name\":\"vault\"}]"),
                ("principals", principals.as_str()),
            ],
        )
        .await
        .assert_success("POST /users/me/subscriptions");
    let vault_new = o.send_channel(&o.alice, "vault", "t", "after bob").await;
    assert_eq!(
        o.ids(&o.bob, json!([["stream", "vault"]])).await,
        vec![vault_new]
    );
    assert_eq!(
        o.ids(&o.alice, json!([["stream", "vault"]])).await,
        vec![vault_old, vault_new]
    );
    // Guests only see channels they are subscribed to.
    assert!(o.ids(&o.guest, json!([])).await.is_empty());
}

#[tokio::test]
async fn unread_state_flags_and_marking_read() {
    let o = org().await;
    let ch = o
        .channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    // Both have read what the system bots sent them so far (welcome, creation notice).
    for who in [&o.alice, &o.bob] {
        o.srv
            .post("/api/v1/mark_all_as_read", who, &[])
            .await
            .assert_success("POST /mark_all_as_read");
    }
    let a = o.send_channel(&o.alice, "general", "one", "first").await;
    let b = o.send_channel(&o.alice, "general", "two", "second").await;
    let c = o.send_dm(&o.alice, &[&o.bob], "dm").await;
    assert_eq!(
        o.ids(&o.bob, json!([["is", "unread"]])).await,
        vec![a, b, c]
    );
    // The python client's messages are unread for their sender; website ones read.
    assert_eq!(
        o.ids(&o.alice, json!([["is", "unread"]])).await,
        vec![a, b, c]
    );
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.alice,
            &[
                ("type", "stream"),
                ("to", "general"),
                ("topic", "one"),
                ("content", "web"),
                ("client", "website"),
            ],
        )
        .await;
    let web = r.body["id"].as_i64().unwrap();
    assert!(
        !o.ids(&o.alice, json!([["is", "unread"]]))
            .await
            .contains(&web)
    );
    // first_unread anchor.
    let r = o
        .fetch(
            &o.bob,
            &[
                ("anchor", "first_unread"),
                ("num_before", "0"),
                ("num_after", "1"),
            ],
        )
        .await;
    assert_eq!(r.body["anchor"], a);

    let list = json!([a]).to_string();
    let r = o
        .srv
        .post(
            "/api/v1/messages/flags",
            &o.bob,
            &[("messages", list.as_str()), ("op", "add"), ("flag", "read")],
        )
        .await;
    let body = r.assert_success("POST /messages/flags");
    assert_eq!(
        (
            body["messages"].clone(),
            body["ignored_because_not_subscribed_channels"].clone()
        ),
        (json!([a]), json!([]))
    );
    assert_eq!(
        o.ids(&o.bob, json!([["is", "unread"]])).await,
        vec![b, c, web]
    );
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
    assert_eq!(o.ids(&o.bob, json!([["is", "starred"]])).await, vec![a]);
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{a}"), &o.bob, &[])
        .await;
    assert_eq!(r.body["message"]["flags"], json!(["read", "starred"]));
    for (form, msg) in [
        (
            vec![
                ("messages", list.as_str()),
                ("op", "add"),
                ("flag", "mentioned"),
            ],
            "Flag not editable: 'mentioned'",
        ),
        (
            vec![
                ("messages", list.as_str()),
                ("op", "add"),
                ("flag", "shiny"),
            ],
            "Invalid flag: 'shiny'",
        ),
        (
            vec![
                ("messages", list.as_str()),
                ("op", "toggle"),
                ("flag", "read"),
            ],
            "Invalid message flag operation: 'toggle'",
        ),
        (
            vec![("messages", "[424242]"), ("op", "add"), ("flag", "read")],
            "Invalid message(s)",
        ),
    ] {
        let r = o.srv.post("/api/v1/messages/flags", &o.bob, &form).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    // Topic, channel and everything.
    let stream_id = ch.to_string();
    let r = o
        .srv
        .post(
            "/api/v1/mark_topic_as_read",
            &o.bob,
            &[("stream_id", stream_id.as_str()), ("topic_name", "nope")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "No such topic 'nope'"
    );
    o.srv
        .post(
            "/api/v1/mark_topic_as_read",
            &o.bob,
            &[("stream_id", stream_id.as_str()), ("topic_name", "two")],
        )
        .await
        .assert_success("POST /mark_topic_as_read");
    assert_eq!(o.ids(&o.bob, json!([["is", "unread"]])).await, vec![c, web]);
    o.srv
        .post(
            "/api/v1/mark_stream_as_read",
            &o.bob,
            &[("stream_id", stream_id.as_str())],
        )
        .await
        .assert_success("POST /mark_stream_as_read");
    assert_eq!(o.ids(&o.bob, json!([["is", "unread"]])).await, vec![c]);
    let r = o.srv.post("/api/v1/mark_all_as_read", &o.bob, &[]).await;
    assert_eq!(r.assert_success("POST /mark_all_as_read")["complete"], true);
    assert!(o.ids(&o.bob, json!([["is", "unread"]])).await.is_empty());
    // Marking one unread again works below the read floor.
    let list = json!([b]).to_string();
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
    assert_eq!(o.ids(&o.bob, json!([["is", "unread"]])).await, vec![b]);
    let r = o.srv.get("/api/v1/users/me", &o.bob, &[]).await;
    assert_eq!(r.body["max_message_id"], web);
    // New messages after marking all read are unread.
    let d = o.send_channel(&o.alice, "general", "one", "later").await;
    assert_eq!(o.ids(&o.bob, json!([["is", "unread"]])).await, vec![b, d]);
}

#[tokio::test]
async fn starting_a_topic_follows_it() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.alice,
            &[
                ("type", "stream"),
                ("to", "general"),
                ("topic", "news"),
                ("content", "hi"),
            ],
        )
        .await;
    // Starting a topic follows it.
    assert_eq!(
        r.assert_success("POST /messages")["automatic_new_visibility_policy"],
        3
    );
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.alice,
            &[
                ("type", "stream"),
                ("to", "general"),
                ("topic", "news"),
                ("content", "again"),
            ],
        )
        .await;
    assert!(
        r.assert_success("POST /messages")
            .get("automatic_new_visibility_policy")
            .is_none()
    );
    assert_eq!(o.ids(&o.alice, json!([["is", "followed"]])).await.len(), 2);
    assert!(o.ids(&o.bob, json!([["is", "followed"]])).await.is_empty());
}

#[tokio::test]
async fn mentions_and_wildcards_set_flags() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let direct = o
        .send_channel(&o.alice, "general", "t", "hi @**Bob Bee**")
        .await;
    let silent = o
        .send_channel(&o.alice, "general", "t", "hi @_**Bob Bee**")
        .await;
    let outsider = o
        .send_channel(&o.alice, "general", "t", "hi @**Ada Admin**")
        .await;
    let everyone = o
        .send_channel(&o.alice, "general", "t", "hi @**all**")
        .await;
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{direct}"), &o.bob, &[])
        .await;
    let m = &r.assert_success("GET /messages/{message_id}")["message"];
    assert_eq!(m["flags"], json!(["mentioned"]));
    assert!(
        m["content"]
            .as_str()
            .unwrap()
            .contains(&format!("data-user-id=\"{}\"", o.bob.id))
    );
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{silent}"), &o.bob, &[])
        .await;
    assert_eq!(r.body["message"]["flags"], json!([]));
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{everyone}"), &o.bob, &[])
        .await;
    assert_eq!(
        r.body["message"]["flags"],
        json!(["stream_wildcard_mentioned", "wildcard_mentioned"])
    );
    // Mentioning someone who does not receive the message sets nothing for them.
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{outsider}"), &o.admin, &[])
        .await;
    assert_eq!(r.body["message"]["flags"], json!(["read", "historical"]));
    assert_eq!(
        o.ids(&o.bob, json!([["is", "mentioned"]])).await,
        vec![direct, everyone]
    );
    // @**topic** notifies those who took part in the topic.
    o.send_channel(&o.bob, "general", "party", "i am here")
        .await;
    let topic = o
        .send_channel(&o.alice, "general", "party", "ping @**topic**")
        .await;
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{topic}"), &o.bob, &[])
        .await;
    assert_eq!(
        r.body["message"]["flags"],
        json!(["topic_wildcard_mentioned", "wildcard_mentioned"])
    );
}

#[tokio::test]
async fn wildcards_in_large_channels_need_permission() {
    let o = org().await;
    let mut crowd = Vec::new();
    for i in 0..16 {
        crowd.push(
            o.srv
                .user(
                    &format!("crowd{i}@example.com"),
                    &format!("Crowd Member {i}"),
                    outpost::model::Role::Member,
                )
                .await,
        );
    }
    let mut members: Vec<&TestUser> = crowd.iter().collect();
    members.push(&o.alice);
    members.push(&o.admin);
    o.channel(&o.alice, "big", &members, &[]).await;
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.alice,
            &[
                ("type", "stream"),
                ("to", "big"),
                ("topic", "t"),
                ("content", "@**everyone** look"),
            ],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "STREAM_WILDCARD_MENTION_NOT_ALLOWED")["msg"],
        "You do not have permission to use channel wildcard mentions in this channel."
    );
    o.send_channel(&o.admin, "big", "t", "@**everyone** look")
        .await;
    for u in crowd.iter().take(16) {
        o.send_channel(u, "big", "busy", "me too").await;
    }
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.alice,
            &[
                ("type", "stream"),
                ("to", "big"),
                ("topic", "busy"),
                ("content", "@**topic** hi"),
            ],
        )
        .await;
    r.assert_error(400, "TOPIC_WILDCARD_MENTION_NOT_ALLOWED");
}

#[tokio::test]
async fn render_previews_what_a_send_would_show_and_sends_nothing() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let before = o
        .srv
        .get(
            "/api/v1/messages",
            &o.alice,
            &[
                ("anchor", "newest"),
                ("num_before", "5"),
                ("num_after", "0"),
            ],
        )
        .await;
    let before = before.assert_success("GET /messages")["messages"].clone();

    let r = o
        .srv
        .post(
            "/api/v1/messages/render",
            &o.alice,
            &[(
                "content",
                "hello **world** @**Bob Bee** #**general** <script>x</script>",
            )],
        )
        .await;
    let html = r.assert_success("POST /messages/render")["rendered"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        html.starts_with("<p>hello <strong>world</strong> "),
        "{html}"
    );
    assert!(html.contains("class=\"user-mention\""), "{html}");
    assert!(
        html.contains(&format!("data-user-id=\"{}\"", o.bob.id)),
        "{html}"
    );
    assert!(html.contains("class=\"stream\""), "{html}");
    assert!(
        html.contains("&lt;script&gt;") && !html.contains("<script>"),
        "{html}"
    );

    // The same content sent renders the same.
    let id = o
        .send_channel(
            &o.alice,
            "general",
            "t",
            "hello **world** @**Bob Bee** #**general** <script>x</script>",
        )
        .await;
    let sent = o
        .srv
        .get(&format!("/api/v1/messages/{id}"), &o.alice, &[])
        .await;
    assert_eq!(
        sent.assert_success("GET /messages/{message_id}")["message"]["content"],
        html
    );

    for (content, msg) in [
        ("", "Message must not be empty"),
        ("  \n ", "Message must not be empty"),
    ] {
        let r = o
            .srv
            .post("/api/v1/messages/render", &o.alice, &[("content", content)])
            .await;
        assert_eq!((r.status, r.body["msg"].as_str()), (400, Some(msg)));
    }
    let r = o.srv.post("/api/v1/messages/render", &o.alice, &[]).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["msg"], "Missing 'content' argument");

    // Previews sent nothing: only the one real send is new.
    let after = o
        .srv
        .get(
            "/api/v1/messages",
            &o.alice,
            &[
                ("anchor", "newest"),
                ("num_before", "5"),
                ("num_after", "0"),
            ],
        )
        .await;
    let after = after.assert_success("GET /messages")["messages"].clone();
    assert_eq!(
        after.as_array().unwrap().len(),
        before.as_array().unwrap().len() + 1
    );
}

/// What a sent message's event carries: the stored message with its sender, channel or
/// conversation, every recipient with their stored flags, and its widget, so delivery renders
/// it without reading it back.
#[tokio::test]
async fn a_sent_message_event_carries_the_stored_message_and_its_recipients() {
    use outpost::events::{Event, MessageSent};
    use outpost::ids::UserId;
    use outpost::model::flags;

    let o = org().await;
    let ch = o
        .channel(&o.alice, "carried", &[&o.alice, &o.bob], &[])
        .await;
    let mut events = o.srv.state.hub.subscribe();
    let next_sent = async |events: &mut tokio::sync::broadcast::Receiver<_>| loop {
        let e: std::sync::Arc<Event> = events.recv().await.unwrap();
        if let Event::MessageSent(MessageSent { message, .. }) = &*e {
            return std::sync::Arc::clone(message);
        }
    };
    let content = "@**Bob Bee** /poll? no:\n/poll Lunch?\n- pizza";
    let id = o.send_channel(&o.alice, "carried", "t", content).await;
    let sent = next_sent(&mut events).await;
    assert_eq!(sent.message.id.0, id);
    assert_eq!(sent.message.content, content);
    assert!(sent.message.rendered_content.contains("user-mention"));
    assert_eq!(sent.message.topic, "t");
    assert_eq!(sent.sender.id, UserId(o.alice.id));
    let channel = sent.channel.as_ref().unwrap();
    assert_eq!((channel.id.0, channel.name.as_str()), (ch, "carried"));
    assert!(!channel.invite_only);
    assert!(sent.dm_members.is_empty());
    let bits = |u: &crate::support::TestUser| {
        sent.recipients
            .iter()
            .find(|(r, _)| r.0 == u.id)
            .map(|(_, b)| *b)
    };
    assert_eq!(
        bits(&o.bob).map(|b| b & flags::MENTIONED),
        Some(flags::MENTIONED)
    );
    assert!(bits(&o.alice).is_some());
    // Not subscribed: not a recipient.
    assert_eq!(bits(&o.owner), None);
    assert_eq!(sent.recipients.len(), 2);
    // Not a widget message: its first line is not the command.
    assert!(sent.submessages.is_empty());

    let poll = o
        .send_channel(&o.alice, "carried", "t", "/poll Lunch?\n- pizza")
        .await;
    let sent = next_sent(&mut events).await;
    assert_eq!(sent.message.id.0, poll);
    assert_eq!(sent.submessages.len(), 1);
    assert_eq!(sent.submessages[0].msg_type, "widget");

    let dm = o.send_dm(&o.bob, &[&o.alice], "psst").await;
    let sent = next_sent(&mut events).await;
    assert_eq!(sent.message.id.0, dm);
    assert!(sent.channel.is_none());
    let mut members: Vec<i64> = sent.dm_members.iter().map(|u| u.id.0).collect();
    members.sort_unstable();
    let mut want = vec![o.alice.id, o.bob.id];
    want.sort_unstable();
    assert_eq!(members, want);
    let mut recipients: Vec<i64> = sent.recipients.iter().map(|(u, _)| u.0).collect();
    recipients.sort_unstable();
    assert_eq!(recipients, want);
}
