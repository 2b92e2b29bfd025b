//! Editing, moving and deleting messages; reactions; topics and topic visibility.

use serde_json::json;

use crate::support::org;

#[tokio::test]
async fn content_edits_keep_history() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let id = o
        .send_channel(&o.alice, "general", "t", "first draft")
        .await;
    let path = format!("/api/v1/messages/{id}");
    let r = o
        .srv
        .patch(&path, &o.alice, &[("content", "second draft")])
        .await;
    assert_eq!(
        r.assert_success("PATCH /messages/{message_id}")["detached_uploads"],
        json!([])
    );
    let r = o.srv.get(&path, &o.bob, &[]).await;
    let m = &r.assert_success("GET /messages/{message_id}")["message"];
    assert_eq!(m["content"], "<p>second draft</p>");
    assert!(m["last_edit_timestamp"].is_i64());
    assert!(m.get("last_moved_timestamp").is_none());
    assert_eq!(m["edit_history"][0]["prev_content"], "first draft");
    assert_eq!(m["edit_history"][0]["user_id"], o.alice.id);
    let r = o.srv.get(&format!("{path}/history"), &o.bob, &[]).await;
    let h = &r.assert_success("GET /messages/{message_id}/history")["message_history"];
    assert_eq!(h.as_array().unwrap().len(), 2);
    assert_eq!(h[0]["content"], "first draft");
    assert_eq!(h[1]["content"], "second draft");
    assert_eq!(h[1]["prev_content"], "first draft");
    assert!(
        h[1]["content_html_diff"]
            .as_str()
            .unwrap()
            .contains("highlight_text_inserted")
    );

    for (who, form, msg) in [
        (
            &o.bob,
            vec![("content", "hijack")],
            "You don't have permission to edit this message",
        ),
        (&o.alice, vec![], "Nothing to change"),
        (
            &o.alice,
            vec![("content", "x"), ("propagate_mode", "change_all")],
            "Invalid propagate_mode without topic edit",
        ),
        (
            &o.alice,
            vec![("content", "x"), ("stream_id", "1")],
            "Cannot change message content while changing channel",
        ),
        (
            &o.alice,
            vec![("topic", "x"), ("propagate_mode", "sideways")],
            "Invalid propagate_mode",
        ),
    ] {
        let r = o.srv.patch(&path, who, &form).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    let r = o
        .srv
        .patch(
            &path,
            &o.alice,
            &[("content", "x"), ("prev_content_sha256", "00")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "EXPECTATION_MISMATCH")["field_name"],
        "prev_content_sha256"
    );
    let dm = o.send_dm(&o.alice, &[&o.bob], "private").await;
    let r = o
        .srv
        .patch(
            &format!("/api/v1/messages/{dm}"),
            &o.alice,
            &[("topic", "x")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Direct messages cannot have topics."
    );
}

#[tokio::test]
async fn topic_moves_propagate_and_resolving_is_not_a_move() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let a = o.send_channel(&o.alice, "general", "bug", "one").await;
    let b = o.send_channel(&o.bob, "general", "bug", "two").await;
    let c = o.send_channel(&o.alice, "general", "bug", "three").await;
    o.srv
        .patch(
            &format!("/api/v1/messages/{b}"),
            &o.alice,
            &[("topic", "issue"), ("propagate_mode", "change_later")],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    assert_eq!(
        o.ids(&o.bob, json!([["stream", "general"], ["topic", "bug"]]))
            .await,
        vec![a]
    );
    assert_eq!(
        o.ids(&o.bob, json!([["stream", "general"], ["topic", "issue"]]))
            .await,
        vec![b, c]
    );
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{c}"), &o.bob, &[])
        .await;
    let m = &r.body["message"];
    assert!(m["last_moved_timestamp"].is_i64());
    assert_eq!(m["edit_history"][0]["prev_topic"], "bug");
    assert_eq!(m["edit_history"][0]["topic"], "issue");
    // Resolving the whole topic.
    o.srv
        .patch(
            &format!("/api/v1/messages/{a}"),
            &o.bob,
            &[("topic", "✔ bug"), ("propagate_mode", "change_all")],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{a}"), &o.bob, &[])
        .await;
    assert_eq!(r.body["message"]["subject"], "✔ bug");
    assert!(r.body["message"].get("last_moved_timestamp").is_none());
    assert_eq!(o.ids(&o.bob, json!([["is", "resolved"]])).await, vec![a]);
}

#[tokio::test]
async fn moving_between_channels() {
    let o = org().await;
    let src = o
        .channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let dst = o.channel(&o.alice, "archive", &[&o.alice], &[]).await;
    let locked = o
        .channel(
            &o.alice,
            "locked",
            &[&o.alice, &o.bob],
            &[("invite_only", "true")],
        )
        .await;
    let id = o.send_channel(&o.bob, "general", "t", "move me").await;
    let path = format!("/api/v1/messages/{id}");
    let dst_s = dst.to_string();
    o.srv
        .patch(&path, &o.bob, &[("stream_id", dst_s.as_str())])
        .await
        .assert_success("PATCH /messages/{message_id}");
    let r = o.srv.get(&path, &o.alice, &[]).await;
    let m = &r.body["message"];
    assert_eq!(
        (m["stream_id"].clone(), m["display_recipient"].clone()),
        (json!(dst), json!("archive"))
    );
    assert_eq!(
        (
            m["edit_history"][0]["prev_stream"].clone(),
            m["edit_history"][0]["stream"].clone()
        ),
        (json!(src), json!(dst))
    );
    let r = o.srv.patch(&path, &o.bob, &[("stream_id", "4242")]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid channel ID"
    );
    let _ = locked;
}

#[tokio::test]
async fn deleting_messages() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let mine = o.send_channel(&o.alice, "general", "t", "mine").await;
    let theirs = o.send_channel(&o.bob, "general", "t", "theirs").await;
    let r = o
        .srv
        .delete(&format!("/api/v1/messages/{theirs}"), &o.alice, &[])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "You don't have permission to delete this message"
    );
    o.srv
        .delete(&format!("/api/v1/messages/{mine}"), &o.alice, &[])
        .await
        .assert_success("DELETE /messages/{message_id}");
    o.srv
        .delete(&format!("/api/v1/messages/{theirs}"), &o.admin, &[])
        .await
        .assert_success("DELETE /messages/{message_id}");
    assert!(o.ids(&o.alice, json!([])).await.is_empty());
    let r = o
        .srv
        .delete(&format!("/api/v1/messages/{mine}"), &o.alice, &[])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid message(s)"
    );
    // Deleted messages are gone from search too.
    assert!(
        o.ids(&o.alice, json!([["search", "mine"]]))
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn reactions() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let id = o.send_channel(&o.alice, "general", "t", "react").await;
    let path = format!("/api/v1/messages/{id}/reactions");
    let r = o
        .srv
        .post(
            &path,
            &o.bob,
            &[("emoji_name", "octopus"), ("message_id", "5")],
        )
        .await;
    let b = r.assert_success("POST /messages/{message_id}/reactions");
    assert_eq!(b["ignored_parameters_unsupported"], json!(["message_id"]));
    // Voting with the code keeps the first name.
    o.srv
        .post(
            &path,
            &o.alice,
            &[
                ("emoji_name", "octopus"),
                ("emoji_code", "1f419"),
                ("reaction_type", "unicode_emoji"),
            ],
        )
        .await
        .assert_success("POST /messages/{message_id}/reactions");
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{id}"), &o.bob, &[])
        .await;
    assert_eq!(
        r.body["message"]["reactions"],
        json!([
            {"emoji_name": "octopus", "emoji_code": "1f419", "reaction_type": "unicode_emoji", "user_id": o.bob.id},
            {"emoji_name": "octopus", "emoji_code": "1f419", "reaction_type": "unicode_emoji", "user_id": o.alice.id},
        ])
    );
    let r = o
        .srv
        .post(&path, &o.bob, &[("emoji_name", "octopus")])
        .await;
    assert_eq!(
        r.assert_error(400, "REACTION_ALREADY_EXISTS")["msg"],
        "Reaction already exists."
    );
    for (form, msg) in [
        (
            vec![("emoji_name", "not_an_emoji")],
            "Emoji 'not_an_emoji' does not exist",
        ),
        (
            vec![("emoji_name", "octopus"), ("emoji_code", "zzzz")],
            "Invalid emoji code.",
        ),
        (
            vec![("emoji_name", "heart"), ("emoji_code", "1f697")],
            "Invalid emoji name.",
        ),
    ] {
        let r = o.srv.post(&path, &o.owner, &form).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    o.srv
        .post(
            "/api/v1/messages/99999/reactions",
            &o.bob,
            &[("emoji_name", "octopus")],
        )
        .await
        .assert_error(400, "BAD_REQUEST");
    // Removing.
    o.srv
        .delete(&path, &o.bob, &[("emoji_name", "octopus")])
        .await
        .assert_success("DELETE /messages/{message_id}/reactions");
    let r = o
        .srv
        .delete(&path, &o.bob, &[("emoji_code", "1f419")])
        .await;
    assert_eq!(
        r.assert_error(400, "REACTION_DOES_NOT_EXIST")["msg"],
        "Reaction doesn't exist."
    );
    let r = o.srv.delete(&path, &o.bob, &[]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "At least one of the following arguments must be present: emoji_name, emoji_code"
    );
    assert_eq!(o.ids(&o.bob, json!([["has", "reaction"]])).await, vec![id]);
}

#[tokio::test]
async fn topics_listing_and_deletion() {
    let o = org().await;
    let ch = o
        .channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    o.send_channel(&o.alice, "general", "Lunch", "a").await;
    o.send_channel(&o.alice, "general", "(no topic)", "b").await;
    let newest = o.send_channel(&o.alice, "general", "lunch", "c").await;
    let path = format!("/api/v1/users/me/{ch}/topics");
    let r = o.srv.get(&path, &o.bob, &[]).await;
    assert_eq!(
        r.assert_success("GET /users/me/{stream_id}/topics")["topics"],
        json!([
            {"name": "lunch", "max_id": newest},
            {"name": "general chat", "max_id": newest - 1},
            {"name": "channel events", "max_id": newest - 3}
        ])
    );
    let r = o
        .srv
        .get(&path, &o.bob, &[("allow_empty_topic_name", "true")])
        .await;
    assert_eq!(r.body["topics"][1]["name"], "");
    o.srv
        .get("/api/v1/users/me/4242/topics", &o.bob, &[])
        .await
        .assert_error(400, "BAD_REQUEST");

    let del = format!("/api/v1/streams/{ch}/delete_topic");
    let r = o.srv.post(&del, &o.bob, &[("topic_name", "lunch")]).await;
    assert_eq!(
        r.assert_error(400, "UNAUTHORIZED_PRINCIPAL")["msg"],
        "Must be an organization administrator"
    );
    let r = o.srv.post(&del, &o.admin, &[("topic_name", "LUNCH")]).await;
    assert_eq!(
        r.assert_success("POST /streams/{stream_id}/delete_topic")["complete"],
        true
    );
    let r = o.srv.get(&path, &o.bob, &[]).await;
    let left: Vec<&str> = r.body["topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(left, ["general chat", "channel events"]);
}

#[tokio::test]
async fn muting_and_following_topics() {
    let o = org().await;
    let ch = o
        .channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let id = o.send_channel(&o.alice, "general", "noise", "loud").await;
    let ch_s = ch.to_string();
    let mute = |form: Vec<(&'static str, String)>| {
        let srv = &o.srv;
        let bob = o.bob.clone();
        async move {
            let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            srv.patch("/api/v1/users/me/subscriptions/muted_topics", &bob, &form)
                .await
        }
    };
    mute(vec![
        ("stream_id", ch_s.clone()),
        ("topic", "noise".into()),
        ("op", "add".into()),
    ])
    .await
    .assert_success("PATCH /users/me/subscriptions/muted_topics");
    // Idempotent, and works for topics without messages, by name too.
    mute(vec![
        ("stream", "general".into()),
        ("topic", "noise".into()),
        ("op", "add".into()),
    ])
    .await
    .assert_success("PATCH /users/me/subscriptions/muted_topics");
    mute(vec![
        ("stream", "general".into()),
        ("topic", "future".into()),
        ("op", "add".into()),
    ])
    .await
    .assert_success("PATCH /users/me/subscriptions/muted_topics");
    assert_eq!(o.ids(&o.bob, json!([["is", "muted"]])).await, vec![id]);
    assert!(o.ids(&o.bob, json!([["in", "home"]])).await.is_empty());
    for (form, code, msg) in [
        (
            vec![("topic", "x".to_string()), ("op", "add".to_string())],
            "REQUEST_VARIABLE_MISSING",
            "Missing 'stream_id' argument",
        ),
        (
            vec![
                ("stream_id", ch_s.clone()),
                ("stream", "general".to_string()),
                ("topic", "x".to_string()),
                ("op", "add".to_string()),
            ],
            "BAD_REQUEST",
            "Unsupported parameter combination: stream_id, stream",
        ),
        (
            vec![
                ("stream_id", ch_s.clone()),
                ("topic", "x".to_string()),
                ("op", "flip".to_string()),
            ],
            "BAD_REQUEST",
            "Invalid op",
        ),
        (
            vec![
                ("stream", "nowhere".to_string()),
                ("topic", "x".to_string()),
                ("op", "add".to_string()),
            ],
            "BAD_REQUEST",
            "Invalid channel name 'nowhere'",
        ),
    ] {
        let r = mute(form).await;
        assert_eq!(r.assert_error(400, code)["msg"], msg);
    }
    mute(vec![
        ("stream_id", ch_s.clone()),
        ("topic", "noise".into()),
        ("op", "remove".into()),
    ])
    .await
    .assert_success("PATCH /users/me/subscriptions/muted_topics");
    assert_eq!(o.ids(&o.bob, json!([["in", "home"]])).await, vec![id]);
    // user_topics: follow.
    o.srv
        .post(
            "/api/v1/user_topics",
            &o.bob,
            &[
                ("stream_id", ch_s.as_str()),
                ("topic", "noise"),
                ("visibility_policy", "3"),
            ],
        )
        .await
        .assert_success("POST /user_topics");
    assert_eq!(o.ids(&o.bob, json!([["is", "followed"]])).await, vec![id]);
    let r = o
        .srv
        .post(
            "/api/v1/user_topics",
            &o.bob,
            &[
                ("stream_id", ch_s.as_str()),
                ("topic", "noise"),
                ("visibility_policy", "9"),
            ],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid visibility_policy"
    );
    let r = o
        .srv
        .post(
            "/api/v1/user_topics",
            &o.bob,
            &[
                ("stream_id", "4242"),
                ("topic", "noise"),
                ("visibility_policy", "0"),
            ],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid channel ID"
    );
}

#[tokio::test]
async fn an_edit_that_adds_or_removes_a_mention_changes_the_mentioned_flag() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let id = o.send_channel(&o.alice, "general", "t", "hello").await;
    let path = format!("/api/v1/messages/{id}");
    let flags = |r: &crate::support::Reply| {
        r.assert_success("GET /messages/{message_id}")["message"]["flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let before = flags(&o.srv.get(&path, &o.bob, &[]).await);
    assert!(!before.contains(&"mentioned".to_string()), "{before:?}");
    o.srv
        .patch(&path, &o.alice, &[("content", "hello @**Bob Bee**")])
        .await
        .assert_success("PATCH /messages/{message_id}");
    let after = flags(&o.srv.get(&path, &o.bob, &[]).await);
    assert!(after.contains(&"mentioned".to_string()), "{after:?}");
    let r = o
        .srv
        .get(
            "/api/v1/messages",
            &o.bob,
            &[
                ("anchor", "newest"),
                ("num_before", "10"),
                ("num_after", "0"),
                ("narrow", r#"[{"operator":"is","operand":"mentioned"}]"#),
            ],
        )
        .await;
    let ids: Vec<i64> = r.assert_success("GET /messages")["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![id]);
    o.srv
        .patch(&path, &o.alice, &[("content", "hello again")])
        .await
        .assert_success("PATCH /messages/{message_id}");
    let cleared = flags(&o.srv.get(&path, &o.bob, &[]).await);
    assert!(!cleared.contains(&"mentioned".to_string()), "{cleared:?}");
}
