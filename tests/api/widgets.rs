//! Message widgets: a `/poll` or `/todo` message carries upstream's widget submessage (in
//! `GET /messages` and in the message event), and readers add votes and tasks through
//! `POST /submessage`, which reaches everyone who can see the message as a `submessage` event.

use serde_json::{Value, json};

use crate::support::{org, wait_events};

fn widget(m: &Value) -> Value {
    let s = &m["submessages"][0];
    assert_eq!(s["msg_type"], "widget", "{m}");
    assert_eq!(s["message_id"], m["id"]);
    assert_eq!(s["sender_id"], m["sender_id"]);
    serde_json::from_str(s["content"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn polls_carry_their_widget_and_collect_votes() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let (queue, _) = o
        .register(&o.bob, &[("event_types", r#"["message","submessage"]"#)])
        .await;
    let poll = o
        .send_channel(&o.alice, "general", "lunch", "/poll Lunch?\n- pizza\nsushi")
        .await;
    let r = o
        .fetch(&o.bob, &[("anchor", "newest"), ("num_before", "1")])
        .await;
    let m = &r.body["messages"][0];
    assert_eq!(
        widget(m),
        json!({"widget_type": "poll", "extra_data": {"question": "Lunch?", "options": ["pizza", "sushi"]}})
    );
    // The message event already carries the widget.
    let evs = wait_events(&o, &o.bob, &queue, 1).await;
    assert_eq!(evs[0]["type"], "message");
    assert_eq!(widget(&evs[0]["message"])["widget_type"], "poll");

    let poll_id = poll.to_string();
    let vote = json!({"type": "vote", "key": "canned,0", "vote": 1}).to_string();
    let r = o
        .srv
        .post(
            "/api/v1/submessage",
            &o.bob,
            &[
                ("message_id", poll_id.as_str()),
                ("msg_type", "widget"),
                ("content", vote.as_str()),
            ],
        )
        .await;
    // Upstream's spec gives this endpoint the plain success answer.
    assert_eq!(
        (r.status, r.body.clone()),
        (200, json!({"result": "success", "msg": ""}))
    );
    let evs = wait_events(&o, &o.bob, &queue, 2).await;
    let e = &evs[1];
    assert_eq!(e["type"], "submessage");
    assert_eq!(e["message_id"], poll);
    assert_eq!(e["sender_id"], o.bob.id);
    assert_eq!(e["msg_type"], "widget");
    assert_eq!(e["content"], vote.as_str());
    assert!(e["submessage_id"].as_i64().unwrap() > 0);
    let r = o
        .fetch(&o.alice, &[("anchor", "newest"), ("num_before", "1")])
        .await;
    let subs = r.body["messages"][0]["submessages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(subs.len(), 2);
    assert_eq!(subs[1]["content"], vote.as_str());
    assert_eq!(subs[1]["sender_id"], o.bob.id);

    // Only the author may change the question; data must fit the widget.
    for (content, msg) in [
        (
            json!({"type": "question", "question": "Dinner?"}).to_string(),
            "You can't edit a question unless you are the author.",
        ),
        (
            json!({"type": "vote", "key": "canned,0", "vote": 5}).to_string(),
            "poll data[\"vote\"] is not valid",
        ),
        ("{not json".to_string(), "Invalid json for submessage"),
    ] {
        let r = o
            .srv
            .post(
                "/api/v1/submessage",
                &o.bob,
                &[
                    ("message_id", poll_id.as_str()),
                    ("msg_type", "widget"),
                    ("content", content.as_str()),
                ],
            )
            .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    let r = o
        .fetch(&o.alice, &[("anchor", "newest"), ("num_before", "1")])
        .await;
    assert_eq!(
        r.body["messages"][0]["submessages"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test]
async fn todo_lists_and_who_may_attach_submessages() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    o.send_channel(
        &o.alice,
        "general",
        "release",
        "/todo Release\n- build: on two cores\n- test",
    )
    .await;
    let r = o
        .fetch(&o.bob, &[("anchor", "newest"), ("num_before", "1")])
        .await;
    assert_eq!(
        widget(&r.body["messages"][0]),
        json!({"widget_type": "todo", "extra_data": {"task_list_title": "Release", "tasks": [
            {"task": "build", "desc": "on two cores"}, {"task": "test", "desc": ""}]}})
    );
    // A plain message has no widget; its readers cannot start one.
    let plain = o.send_channel(&o.alice, "general", "chat", "hello").await;
    let plain_id = plain.to_string();
    let form = [
        ("message_id", plain_id.as_str()),
        ("msg_type", "widget"),
        ("content", r#"{"type":"vote","key":"x","vote":1}"#),
    ];
    let r = o.srv.post("/api/v1/submessage", &o.bob, &form).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "You cannot attach a submessage to this message."
    );
    // Someone who cannot read a message cannot touch it.
    o.channel(&o.alice, "secret", &[&o.alice], &[("invite_only", "true")])
        .await;
    let hidden = o
        .send_channel(&o.alice, "secret", "t", "/poll Secret?")
        .await;
    let hidden_id = hidden.to_string();
    let r = o
        .srv
        .post(
            "/api/v1/submessage",
            &o.bob,
            &[
                ("message_id", hidden_id.as_str()),
                ("msg_type", "widget"),
                ("content", r#"{"type":"vote","key":"x","vote":1}"#),
            ],
        )
        .await;
    r.assert_error(400, "BAD_REQUEST");
    // A plain message never shows submessages.
    let r = o
        .fetch(&o.bob, &[("anchor", "newest"), ("num_before", "1")])
        .await;
    assert_eq!(r.body["messages"][0]["id"], plain);
    assert_eq!(r.body["messages"][0]["submessages"], json!([]));
}
