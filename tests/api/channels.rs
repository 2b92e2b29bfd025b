//! Channels and subscriptions.

use serde_json::{Value, json};

use outpost::events::{ChannelCreated, Event};

use crate::support::org;

#[tokio::test]
async fn create_channel_with_defaults_and_settings() {
    let o = org().await;
    let mut events = o.srv.state.hub.subscribe();
    let id = o
        .channel(
            &o.alice,
            "design",
            &[&o.alice, &o.bob],
            &[("description", "All about **design**")],
        )
        .await;
    assert_eq!(
        *events.recv().await.unwrap(),
        Event::ChannelCreated(ChannelCreated {
            channel_id: outpost::ids::ChannelId(id)
        })
    );
    let r = o
        .srv
        .get(&format!("/api/v1/streams/{id}"), &o.bob, &[])
        .await;
    let s = &r.assert_success("GET /streams/{stream_id}")["stream"];
    assert_eq!(s["name"], "design");
    assert_eq!(s["description"], "All about **design**");
    assert_eq!(
        s["rendered_description"],
        "<p>All about <strong>design</strong></p>"
    );
    assert_eq!(s["invite_only"], false);
    assert_eq!(s["history_public_to_subscribers"], true);
    assert_eq!(s["creator_id"], o.alice.id);
    assert_eq!(s["topics_policy"], "inherit");
    assert_eq!(s["message_retention_days"], Value::Null);
    assert_eq!(s["subscriber_count"], 2);
    // The channel's first message is Notification Bot's creation notice.
    let narrow = json!([["channel", id]]).to_string();
    let first = o
        .fetch(
            &o.bob,
            &[
                ("anchor", "oldest"),
                ("num_before", "0"),
                ("num_after", "1"),
                ("narrow", narrow.as_str()),
            ],
        )
        .await;
    let notice = &first.body["messages"][0];
    assert_eq!(notice["sender_email"], "notification-bot@zulip.com");
    assert_eq!(notice["subject"], "channel events");
    assert_eq!(s["first_message_id"], notice["id"]);
    assert_eq!(s["stream_weekly_traffic"], Value::Null);
    assert_eq!(
        s["can_administer_channel_group"],
        json!({"direct_members": [o.alice.id], "direct_subgroups": []})
    );
    assert_eq!(s["can_send_message_group"], 7);
    assert_eq!(s["can_remove_subscribers_group"], 3);

    let private = o
        .channel(
            &o.alice,
            "secret",
            &[&o.alice],
            &[
                ("invite_only", "true"),
                ("can_send_message_group", "3"),
                ("topics_policy", "disable_empty_topic"),
            ],
        )
        .await;
    let r = o
        .srv
        .get(&format!("/api/v1/streams/{private}"), &o.alice, &[])
        .await;
    let s = &r.assert_success("GET /streams/{stream_id}")["stream"];
    assert_eq!(
        (
            s["invite_only"].clone(),
            s["history_public_to_subscribers"].clone()
        ),
        (json!(true), json!(false))
    );
    assert_eq!(s["stream_post_policy"], 2);
    assert_eq!(s["is_announcement_only"], true);
    assert_eq!(s["topics_policy"], "disable_empty_topic");
}

#[tokio::test]
async fn create_channel_errors_change_nothing() {
    let o = org().await;
    o.channel(&o.alice, "design", &[&o.alice], &[]).await;
    let r = o
        .srv
        .post(
            "/api/v1/channels/create",
            &o.bob,
            &[("name", "DESIGN"), ("subscribers", "[]")],
        )
        .await;
    assert_eq!(
        r.assert_error(409, "CHANNEL_ALREADY_EXISTS")["msg"],
        "Channel 'DESIGN' already exists"
    );
    let long = "x".repeat(61);
    for (who, form, status, code, msg) in [
        (
            &o.bob,
            vec![("name", "  "), ("subscribers", "[]")],
            400,
            "BAD_REQUEST",
            "Channel name can't be empty.",
        ),
        (
            &o.bob,
            vec![("name", long.as_str()), ("subscribers", "[]")],
            400,
            "BAD_REQUEST",
            "Channel name too long (limit: 60 characters).",
        ),
        (
            &o.guest,
            vec![("name", "g"), ("subscribers", "[]")],
            400,
            "BAD_REQUEST",
            "Not allowed for guest users",
        ),
        (
            &o.bob,
            vec![
                ("name", "w"),
                ("subscribers", "[]"),
                ("is_web_public", "true"),
            ],
            400,
            "BAD_REQUEST",
            "Web-public channels are not enabled.",
        ),
        (
            &o.bob,
            vec![
                ("name", "r"),
                ("subscribers", "[]"),
                ("message_retention_days", "30"),
            ],
            400,
            "UNAUTHORIZED_PRINCIPAL",
            "Must be an organization owner",
        ),
        (
            &o.bob,
            vec![
                ("name", "d"),
                ("subscribers", "[]"),
                ("is_default_stream", "true"),
            ],
            400,
            "UNAUTHORIZED_PRINCIPAL",
            "Must be an organization administrator",
        ),
        (
            &o.bob,
            vec![("name", "u"), ("subscribers", "[424242]")],
            400,
            "BAD_REQUEST",
            "Invalid user ID: 424242",
        ),
        (
            &o.bob,
            vec![
                ("name", "t"),
                ("subscribers", "[]"),
                ("topics_policy", "sometimes"),
            ],
            400,
            "BAD_REQUEST",
            "Invalid topics_policy",
        ),
        (
            &o.bob,
            vec![
                ("name", "g2"),
                ("subscribers", "[]"),
                ("can_send_message_group", "999"),
            ],
            400,
            "BAD_REQUEST",
            "Invalid user group ID: 999",
        ),
        (
            &o.bob,
            vec![
                ("name", "g3"),
                ("subscribers", "[]"),
                ("can_send_message_group", "8"),
            ],
            400,
            "BAD_REQUEST",
            "'can_send_message_group' setting cannot be set to 'role:internet' group.",
        ),
        (
            &o.bob,
            vec![("name", "f"), ("subscribers", "[]"), ("folder_id", "3")],
            400,
            "BAD_REQUEST",
            "Invalid channel folder ID",
        ),
        (
            &o.bob,
            vec![("subscribers", "[]")],
            400,
            "REQUEST_VARIABLE_MISSING",
            "Missing 'name' argument",
        ),
        (
            &o.bob,
            vec![("name", "s")],
            400,
            "REQUEST_VARIABLE_MISSING",
            "Missing 'subscribers' argument",
        ),
    ] {
        let r = o.srv.post("/api/v1/channels/create", who, &form).await;
        assert_eq!(r.assert_error(status, code)["msg"], msg);
    }
    assert_eq!(o.stream_names(&o.admin).await, vec!["design"]);
    // The owner may set retention.
    o.channel(
        &o.owner,
        "archive-later",
        &[],
        &[("message_retention_days", "unlimited")],
    )
    .await;
}

#[tokio::test]
async fn subscribe_creates_channels_and_reports_per_user() {
    let o = org().await;
    let subs = json!([{"name": "general"}, {"name": "random", "color": "#123456"}]).to_string();
    let r = o
        .srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[("subscriptions", subs.as_str())],
        )
        .await;
    let b = r.assert_success("POST /users/me/subscriptions");
    assert_eq!(
        b["subscribed"],
        json!({o.alice.id.to_string(): ["general", "random"]})
    );
    assert_eq!(b["already_subscribed"], json!({}));
    assert!(b.get("unauthorized").is_none());

    let principals = json!([o.bob.id, "alice@example.com"]).to_string();
    let r = o
        .srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[
                ("subscriptions", subs.as_str()),
                ("principals", principals.as_str()),
            ],
        )
        .await;
    let b = r.assert_success("POST /users/me/subscriptions");
    assert_eq!(
        b["subscribed"],
        json!({o.bob.id.to_string(): ["general", "random"]})
    );
    assert_eq!(
        b["already_subscribed"],
        json!({o.alice.id.to_string(): ["general", "random"]})
    );

    let r = o
        .srv
        .get(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[("include_subscribers", "true")],
        )
        .await;
    let b = r.assert_success("GET /users/me/subscriptions");
    let subs = b["subscriptions"].as_array().unwrap();
    assert_eq!(subs.len(), 2);
    let random = subs.iter().find(|s| s["name"] == "random").unwrap();
    assert_eq!(random["color"], "#123456");
    assert_eq!(random["subscribers"], json!([o.alice.id, o.bob.id]));
    assert_eq!(random["in_home_view"], true);
    let general = subs.iter().find(|s| s["name"] == "general").unwrap();
    assert_ne!(general["color"], random["color"]);

    let r = o
        .srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.guest,
            &[("subscriptions", "[{\"name\":\"general\"}]")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Not allowed for guest users"
    );
    let r = o
        .srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[
                ("subscriptions", "[{\"name\":\"x\"}]"),
                ("principals", "[\"nobody@example.com\"]"),
            ],
        )
        .await;
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "No such user");
    let r = o
        .srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[("subscriptions", "{}")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "subscriptions is not a list"
    );
}

#[tokio::test]
async fn private_channels_need_an_invitation() {
    let o = org().await;
    let secret = o
        .channel(&o.alice, "secret", &[&o.alice], &[("invite_only", "true")])
        .await;
    // Bob cannot see it, find it, or join it.
    assert!(!o.stream_names(&o.bob).await.contains(&"secret".to_string()));
    let r = o
        .srv
        .get(&format!("/api/v1/streams/{secret}"), &o.bob, &[])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid channel ID"
    );
    let r = o
        .srv
        .get("/api/v1/get_stream_id", &o.bob, &[("stream", "secret")])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid channel name 'secret'"
    );
    let r = o
        .srv
        .get(&format!("/api/v1/streams/{secret}/members"), &o.bob, &[])
        .await;
    r.assert_error(400, "BAD_REQUEST");
    let join = [("subscriptions", "[{\"name\":\"secret\"}]")];
    let r = o
        .srv
        .post("/api/v1/users/me/subscriptions", &o.bob, &join)
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Unable to access channel (secret)."
    );
    let r = o
        .srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.bob,
            &[join[0], ("authorization_errors_fatal", "false")],
        )
        .await;
    let b = r.assert_success("POST /users/me/subscriptions");
    assert_eq!(b["unauthorized"], json!(["secret"]));
    assert_eq!(b["subscribed"], json!({}));
    // Alice, a subscriber, may add Bob.
    let principals = json!([o.bob.id]).to_string();
    o.srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[join[0], ("principals", principals.as_str())],
        )
        .await
        .assert_success("POST /users/me/subscriptions");
    let r = o
        .srv
        .get(&format!("/api/v1/streams/{secret}/members"), &o.bob, &[])
        .await;
    assert_eq!(
        r.assert_success("GET /streams/{stream_id}/members")["subscribers"],
        json!([o.alice.id, o.bob.id])
    );
    // Administrators see it exists.
    let r = o
        .srv
        .get("/api/v1/streams", &o.admin, &[("include_all", "true")])
        .await;
    let b = r.assert_success("GET /streams");
    assert!(
        b["streams"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "secret")
    );
    let r = o
        .srv
        .get("/api/v1/streams", &o.bob, &[("include_all", "true")])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "User not authorized for this query"
    );
}

#[tokio::test]
async fn unsubscribe_self_and_others() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let r = o
        .srv
        .delete(
            "/api/v1/users/me/subscriptions",
            &o.bob,
            &[("subscriptions", "[\"general\"]")],
        )
        .await;
    let b = r.assert_success("DELETE /users/me/subscriptions");
    assert_eq!(
        (b["removed"].clone(), b["not_removed"].clone()),
        (json!(["general"]), json!([]))
    );
    let r = o
        .srv
        .delete(
            "/api/v1/users/me/subscriptions",
            &o.bob,
            &[("subscriptions", "[\"general\"]")],
        )
        .await;
    assert_eq!(
        r.assert_success("DELETE /users/me/subscriptions")["not_removed"],
        json!(["general"])
    );
    let r = o
        .srv
        .delete(
            "/api/v1/users/me/subscriptions",
            &o.bob,
            &[("subscriptions", "[\"nowhere\"]")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Channel(s) (nowhere) do not exist"
    );
    // Removing someone else takes the remove-subscribers permission (administrators by default).
    let alice_only = json!([o.alice.id]).to_string();
    let r = o
        .srv
        .delete(
            "/api/v1/users/me/subscriptions",
            &o.bob,
            &[
                ("subscriptions", "[\"general\"]"),
                ("principals", alice_only.as_str()),
            ],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Insufficient permission"
    );
    o.srv
        .delete(
            "/api/v1/users/me/subscriptions",
            &o.admin,
            &[
                ("subscriptions", "[\"general\"]"),
                ("principals", alice_only.as_str()),
            ],
        )
        .await
        .assert_success("DELETE /users/me/subscriptions");
    let r = o
        .srv
        .get("/api/v1/users/me/subscriptions", &o.alice, &[])
        .await;
    assert_eq!(
        r.assert_success("GET /users/me/subscriptions")["subscriptions"],
        json!([])
    );
}

#[tokio::test]
async fn stream_lookups() {
    let o = org().await;
    let id = o.channel(&o.alice, "general", &[&o.alice], &[]).await;
    let r = o
        .srv
        .get("/api/v1/get_stream_id", &o.bob, &[("stream", "GENERAL")])
        .await;
    assert_eq!(r.assert_success("GET /get_stream_id")["stream_id"], id);
    let r = o.srv.get("/api/v1/streams/4242", &o.bob, &[]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid channel ID"
    );
    let r = o
        .srv
        .get("/api/v1/streams", &o.bob, &[("include_default", "true")])
        .await;
    let b = r.assert_success("GET /streams");
    assert_eq!(b["streams"][0]["is_default"], false);
    // Guests only see what they are subscribed to.
    assert!(o.stream_names(&o.guest).await.is_empty());
}

#[tokio::test]
async fn update_stream_settings() {
    let o = org().await;
    let id = o
        .channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let path = format!("/api/v1/streams/{id}");
    let r = o.srv.patch(&path, &o.bob, &[("description", "nope")]).await;
    assert_eq!(
        r.assert_error(400, "CANNOT_ADMINISTER_CHANNEL")["msg"],
        "You do not have permission to administer this channel."
    );
    o.srv
        .patch(
            &path,
            &o.alice,
            &[("new_name", "town square"), ("description", "Chat *here*")],
        )
        .await
        .assert_success("PATCH /streams/{stream_id}");
    let r = o.srv.get(&path, &o.bob, &[]).await;
    let s = &r.assert_success("GET /streams/{stream_id}")["stream"];
    assert_eq!(
        (s["name"].clone(), s["rendered_description"].clone()),
        (json!("town square"), json!("<p>Chat <em>here</em></p>"))
    );
    // Group settings take {"new", "old"}; a stale "old" is refused.
    let stale = json!({"new": 6, "old": 1}).to_string();
    let r = o
        .srv
        .patch(
            &path,
            &o.alice,
            &[("can_send_message_group", stale.as_str())],
        )
        .await;
    r.assert_error(400, "EXPECTATION_MISMATCH");
    let good = json!({"new": 3, "old": 7}).to_string();
    o.srv
        .patch(
            &path,
            &o.alice,
            &[("can_send_message_group", good.as_str())],
        )
        .await
        .assert_success("PATCH /streams/{stream_id}");
    let r = o.srv.get(&path, &o.bob, &[]).await;
    assert_eq!(r.body["stream"]["can_send_message_group"], 3);
    // Privacy: public channels always have public history.
    let r = o
        .srv
        .patch(
            &path,
            &o.alice,
            &[("history_public_to_subscribers", "false")],
        )
        .await;
    r.assert_error(400, "BAD_REQUEST");
    o.srv
        .patch(
            &path,
            &o.admin,
            &[
                ("is_private", "true"),
                ("history_public_to_subscribers", "false"),
            ],
        )
        .await
        .assert_success("PATCH /streams/{stream_id}");
    let r = o.srv.get(&path, &o.bob, &[]).await;
    assert_eq!(r.body["stream"]["invite_only"], true);
    let r = o.srv.patch(&path, &o.alice, &[("new_name", " ")]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Channel name can't be empty."
    );
}

#[tokio::test]
async fn archive_hides_the_channel() {
    let o = org().await;
    let id = o.channel(&o.alice, "old", &[&o.alice], &[]).await;
    let path = format!("/api/v1/streams/{id}");
    o.srv
        .delete(&path, &o.bob, &[])
        .await
        .assert_error(400, "CANNOT_ADMINISTER_CHANNEL");
    o.srv
        .delete(&path, &o.alice, &[])
        .await
        .assert_success("DELETE /streams/{stream_id}");
    assert!(o.stream_names(&o.alice).await.is_empty());
    let r = o
        .srv
        .get(
            "/api/v1/streams",
            &o.alice,
            &[("exclude_archived", "false")],
        )
        .await;
    assert_eq!(
        r.assert_success("GET /streams")["streams"][0]["is_archived"],
        true
    );
    let r = o
        .srv
        .get("/api/v1/users/me/subscriptions", &o.alice, &[])
        .await;
    assert_eq!(r.body["subscriptions"], json!([]));
    let r = o.srv.delete(&path, &o.alice, &[]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Channel is already deactivated"
    );
}

#[tokio::test]
async fn subscription_properties() {
    let o = org().await;
    let id = o.channel(&o.alice, "general", &[&o.alice], &[]).await;
    let data = json!([
        {"stream_id": id, "property": "color", "value": "#ABCDEF"},
        {"stream_id": id, "property": "pin_to_top", "value": true},
        {"stream_id": id, "property": "in_home_view", "value": false},
        {"stream_id": id, "property": "desktop_notifications", "value": true},
    ])
    .to_string();
    let r = o
        .srv
        .post(
            "/api/v1/users/me/subscriptions/properties",
            &o.alice,
            &[("subscription_data", data.as_str())],
        )
        .await;
    r.assert_success("POST /users/me/subscriptions/properties");
    let r = o
        .srv
        .get("/api/v1/users/me/subscriptions", &o.alice, &[])
        .await;
    let s = &r.assert_success("GET /users/me/subscriptions")["subscriptions"][0];
    assert_eq!(s["color"], "#abcdef");
    assert_eq!(s["pin_to_top"], true);
    assert_eq!(
        (s["is_muted"].clone(), s["in_home_view"].clone()),
        (json!(true), json!(false))
    );
    assert_eq!(s["desktop_notifications"], true);
    assert_eq!(s["audible_notifications"], Value::Null);
    for (data, msg) in [
        (
            json!([{"stream_id": id, "property": "volume", "value": 3}]),
            "Unknown subscription property: volume".to_string(),
        ),
        (
            json!([{"stream_id": id, "property": "color", "value": "red"}]),
            "color is not a valid hex color code".to_string(),
        ),
        (
            json!([{"stream_id": 999, "property": "pin_to_top", "value": true}]),
            "Not subscribed to channel ID 999".to_string(),
        ),
        (
            json!([{"stream_id": id, "property": "pin_to_top", "value": "yes"}]),
            "pin_to_top is not a boolean".to_string(),
        ),
    ] {
        let r = o
            .srv
            .post(
                "/api/v1/users/me/subscriptions/properties",
                &o.alice,
                &[("subscription_data", data.to_string().as_str())],
            )
            .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg.as_str());
    }
    let r = o
        .srv
        .post("/api/v1/users/me/subscriptions/properties", &o.bob, &[])
        .await;
    r.assert_error(400, "REQUEST_VARIABLE_MISSING");
}
