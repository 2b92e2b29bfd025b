//! What the mobile app calls for read state: `POST /messages/flags/narrow` (mark a narrow read
//! or unread from an anchor, batch by batch) and `GET /messages/{id}/read_receipts`.

use serde_json::{Value, json};

use crate::support::{Org, TestUser, org};

/// `POST /messages/flags/narrow` with the given window; returns the success body.
async fn flags_narrow(o: &Org, who: &TestUser, form: &[(&str, &str)]) -> Value {
    let r = o.srv.post("/api/v1/messages/flags/narrow", who, form).await;
    r.assert_success("POST /messages/flags/narrow").clone()
}

/// The ids among `ids` that `who` sees as unread.
async fn unread(o: &Org, who: &TestUser, ids: &[i64]) -> Vec<i64> {
    let list = json!(ids).to_string();
    let r = o
        .srv
        .get("/api/v1/messages", who, &[("message_ids", list.as_str())])
        .await;
    r.assert_success("GET /messages")["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| !m["flags"].as_array().unwrap().contains(&json!("read")))
        .map(|m| m["id"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn a_narrow_is_marked_read_and_unread_from_an_anchor() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    o.channel(&o.alice, "random", &[&o.alice, &o.bob], &[])
        .await;
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(
            o.send_channel(&o.alice, "general", "t", &format!("m{i}"))
                .await,
        );
    }
    let other = o.send_channel(&o.alice, "random", "t", "elsewhere").await;
    // The topic leaves out Notification Bot's creation notice in "channel events".
    let narrow = json!([
        {"operator": "channel", "operand": "general"},
        {"operator": "topic", "operand": "t"}
    ])
    .to_string();
    let b = flags_narrow(
        &o,
        &o.bob,
        &[
            ("anchor", "oldest"),
            ("num_before", "0"),
            ("num_after", "1000"),
            ("narrow", narrow.as_str()),
            ("op", "add"),
            ("flag", "read"),
        ],
    )
    .await;
    assert_eq!(b["processed_count"], 5);
    assert_eq!(b["updated_count"], 5);
    assert_eq!(b["first_processed_id"], ids[0]);
    assert_eq!(b["last_processed_id"], ids[4]);
    assert_eq!(b["found_oldest"], true);
    assert_eq!(b["found_newest"], true);
    assert!(b.get("ignored_because_not_subscribed_channels").is_none());
    assert!(unread(&o, &o.bob, &ids).await.is_empty());
    // The other channel is untouched.
    assert_eq!(unread(&o, &o.bob, &[other]).await, vec![other]);

    // Again: nothing left to change.
    let b = flags_narrow(
        &o,
        &o.bob,
        &[
            ("anchor", "newest"),
            ("num_before", "1000"),
            ("num_after", "0"),
            ("narrow", narrow.as_str()),
            ("op", "add"),
            ("flag", "read"),
        ],
    )
    .await;
    assert_eq!(
        (b["processed_count"].clone(), b["updated_count"].clone()),
        (json!(5), json!(0))
    );

    // "Mark as unread from here": the third message onwards, two per batch.
    let anchor = ids[2].to_string();
    let b = flags_narrow(
        &o,
        &o.bob,
        &[
            ("anchor", anchor.as_str()),
            ("num_before", "0"),
            ("num_after", "1"),
            ("narrow", narrow.as_str()),
            ("op", "remove"),
            ("flag", "read"),
        ],
    )
    .await;
    assert_eq!(b["processed_count"], 2);
    assert_eq!(b["updated_count"], 2);
    assert_eq!(b["last_processed_id"], ids[3]);
    assert_eq!(b["found_newest"], false);
    assert_eq!(b["ignored_because_not_subscribed_channels"], json!([]));
    // The client continues after the last processed id, without the anchor.
    let next = ids[3].to_string();
    let b = flags_narrow(
        &o,
        &o.bob,
        &[
            ("anchor", next.as_str()),
            ("include_anchor", "false"),
            ("num_before", "0"),
            ("num_after", "2"),
            ("narrow", narrow.as_str()),
            ("op", "remove"),
            ("flag", "read"),
        ],
    )
    .await;
    assert_eq!(b["processed_count"], 1);
    assert_eq!(b["found_newest"], true);
    assert_eq!(unread(&o, &o.bob, &ids).await, ids[2..].to_vec());
}

#[tokio::test]
async fn flags_narrow_refuses_bad_input_and_changes_nothing() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let id = o.send_channel(&o.alice, "general", "t", "hello").await;
    let base = [
        ("anchor", "oldest"),
        ("num_before", "0"),
        ("num_after", "10"),
        ("narrow", "[]"),
    ];
    for (extra, msg) in [
        (
            vec![("op", "toggle"), ("flag", "read")],
            "Invalid message flag operation: 'toggle'",
        ),
        (
            vec![("op", "add"), ("flag", "mentioned")],
            "Flag not editable: 'mentioned'",
        ),
    ] {
        let mut form = base.to_vec();
        form.extend(extra);
        let r = o
            .srv
            .post("/api/v1/messages/flags/narrow", &o.bob, &form)
            .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    let r = o
        .srv
        .post(
            "/api/v1/messages/flags/narrow",
            &o.bob,
            &[
                ("anchor", "oldest"),
                ("num_before", "0"),
                ("narrow", "[]"),
                ("op", "add"),
                ("flag", "read"),
            ],
        )
        .await;
    r.assert_error(400, "REQUEST_VARIABLE_MISSING");
    assert_eq!(unread(&o, &o.bob, &[id]).await, vec![id]);
}

#[tokio::test]
async fn read_receipts_list_readers_who_share_them() {
    let o = org().await;
    let carol = o
        .srv
        .user(
            "carol@example.com",
            "Carol Cat",
            outpost::model::Role::Member,
        )
        .await;
    let dave = o
        .srv
        .user("dave@example.com", "Dave Dog", outpost::model::Role::Member)
        .await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob, &carol, &dave], &[])
        .await;
    let id = o.send_channel(&o.alice, "general", "t", "read me").await;
    let path = format!("/api/v1/messages/{id}/read_receipts");
    let receipts = |who: &TestUser| {
        let path = path.clone();
        let who = who.clone();
        let srv = &o.srv;
        async move {
            let r = srv.get(&path, &who, &[]).await;
            r.assert_success("GET /messages/{message_id}/read_receipts")["user_ids"].clone()
        }
    };
    // Nobody has read it; the sender never counts.
    assert_eq!(receipts(&o.alice).await, json!([]));
    let list = json!([id]).to_string();
    for who in [&o.bob, &carol] {
        o.srv
            .post(
                "/api/v1/messages/flags",
                who,
                &[("messages", list.as_str()), ("op", "add"), ("flag", "read")],
            )
            .await
            .assert_success("POST /messages/flags");
    }
    // Carol keeps her reading to herself.
    o.srv
        .patch(
            "/api/v1/settings",
            &carol,
            &[("send_read_receipts", "false")],
        )
        .await
        .assert_success("PATCH /settings");
    // Dave reads everything at once (a read floor, not a per-message flag).
    o.srv.post("/api/v1/mark_all_as_read", &dave, &[]).await;
    assert_eq!(receipts(&o.alice).await, json!([o.bob.id, dave.id]));
    assert_eq!(receipts(&dave).await, json!([o.bob.id, dave.id]));
    // Marked unread again: gone from the list.
    o.srv
        .post(
            "/api/v1/messages/flags",
            &dave,
            &[
                ("messages", list.as_str()),
                ("op", "remove"),
                ("flag", "read"),
            ],
        )
        .await
        .assert_success("POST /messages/flags");
    assert_eq!(receipts(&o.bob).await, json!([o.bob.id]));
    // Someone who cannot read the message learns nothing.
    o.channel(&o.alice, "secret", &[&o.alice], &[("invite_only", "true")])
        .await;
    let hidden = o.send_channel(&o.alice, "secret", "t", "hush").await;
    let r = o
        .srv
        .get(
            &format!("/api/v1/messages/{hidden}/read_receipts"),
            &o.bob,
            &[],
        )
        .await;
    r.assert_error(400, "BAD_REQUEST");
}
