//! `PATCH /bots/{id}` as upstream's `patch_bot_backend`: name, role, owner, outgoing-webhook
//! service, configuration and default channels, for the bot's owner or an administrator;
//! upstream's errors, each changing nothing; and the `realm_bot` / `realm_user` events the
//! changes cause (a new owner gains the bot, the previous one loses it).

use serde_json::{Value, json};

use crate::support::{Org, Reply, TestUser, org, wait_events};

async fn create(o: &Org, who: &TestUser, form: &[(&str, &str)]) -> i64 {
    let r = o.srv.post("/api/v1/bots", who, form).await;
    r.assert_success("POST /bots")["user_id"].as_i64().unwrap()
}

async fn patch(o: &Org, who: &TestUser, bot: i64, form: &[(&str, &str)]) -> Reply {
    o.srv.patch(&format!("/api/v1/bots/{bot}"), who, form).await
}

#[track_caller]
fn error(r: &Reply, msg: &str) {
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.body["result"], "error", "{}", r.body);
    assert_eq!(r.body["msg"], msg, "{}", r.body);
}

/// The bot as `who`'s register shows it in `realm_bots`.
async fn realm_bot(o: &Org, who: &TestUser, bot: i64) -> Option<Value> {
    let (_, state) = o
        .register(who, &[("fetch_event_types", r#"["realm_bot"]"#)])
        .await;
    state["realm_bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["user_id"] == bot)
        .cloned()
}

fn bot_events(evs: &[Value]) -> Vec<Value> {
    evs.iter()
        .filter(|e| e["type"] == "realm_bot")
        .map(|e| {
            let mut e = e.clone();
            e.as_object_mut().unwrap().remove("id");
            e
        })
        .collect()
}

#[tokio::test]
async fn the_owner_renames_a_bot_and_changes_its_webhook_with_events_to_its_administrators() {
    let o = org().await;
    let url = Value::from("http://hooks.example.com/a").to_string();
    let bot = create(
        &o,
        &o.alice,
        &[
            ("full_name", "Hook"),
            ("short_name", "hook"),
            ("bot_type", "3"),
            ("payload_url", url.as_str()),
        ],
    )
    .await;
    create(
        &o,
        &o.bob,
        &[("full_name", "Taken"), ("short_name", "taken")],
    )
    .await;
    let (q, _) = o
        .register(&o.alice, &[("event_types", r#"["realm_bot"]"#)])
        .await;

    // A name another bot has, and a bad URL or interface: refused, nothing changed.
    error(
        &patch(&o, &o.alice, bot, &[("full_name", "taken")]).await,
        "Name is already in use.",
    );
    let bad = Value::from("ftp://hooks.example.com/").to_string();
    error(
        &patch(
            &o,
            &o.alice,
            bot,
            &[
                ("full_name", "Renamed"),
                ("service_payload_url", bad.as_str()),
            ],
        )
        .await,
        "service_payload_url is not a URL",
    );
    let new_url = Value::from("https://hooks.example.com/b").to_string();
    error(
        &patch(
            &o,
            &o.alice,
            bot,
            &[
                ("full_name", "Renamed"),
                ("service_payload_url", new_url.as_str()),
                ("service_interface", "7"),
            ],
        )
        .await,
        "Invalid interface type",
    );
    let before = realm_bot(&o, &o.alice, bot).await.unwrap();
    assert_eq!(before["full_name"], "Hook");
    assert_eq!(
        before["services"][0]["base_url"],
        "http://hooks.example.com/a"
    );

    // Others may not; the owner may.
    error(
        &patch(&o, &o.bob, bot, &[("full_name", "Mine")]).await,
        "Insufficient permission",
    );
    error(
        &patch(&o, &o.alice, 999_999, &[("full_name", "Nobody")]).await,
        "No such bot",
    );
    let r = patch(
        &o,
        &o.alice,
        bot,
        &[
            ("full_name", "Renamed"),
            ("service_payload_url", new_url.as_str()),
            ("service_interface", "2"),
        ],
    )
    .await;
    let b = r.assert_success("PATCH /bots/{bot_id}");
    assert_eq!(b["full_name"], "Renamed");
    assert_eq!(b["service_payload_url"], "https://hooks.example.com/b");
    assert_eq!(b["service_interface"], 2);
    assert_eq!(b["config_data"], Value::Null);
    assert_eq!(b["bot_owner"], "alice@example.com");
    assert_eq!(b["default_sending_stream"], Value::Null);

    let after = realm_bot(&o, &o.alice, bot).await.unwrap();
    assert_eq!(after["full_name"], "Renamed");
    assert_eq!(
        after["services"][0]["base_url"],
        "https://hooks.example.com/b"
    );
    assert_eq!(after["services"][0]["interface"], 2);
    assert_eq!(
        after["services"][0]["token"], before["services"][0]["token"],
        "the token stays"
    );
    let evs = bot_events(&wait_events(&o, &o.alice, &q, 2).await);
    assert!(
        evs.contains(&json!({"type": "realm_bot", "op": "update",
            "bot": {"user_id": bot, "full_name": "Renamed"}})),
        "{evs:?}"
    );
    assert!(
        evs.iter().any(|e| e["op"] == "update"
            && e["bot"]["services"][0]["base_url"] == "https://hooks.example.com/b"),
        "{evs:?}"
    );
    // An administrator may change another's bot too.
    let r = patch(&o, &o.admin, bot, &[("full_name", "Admin Named")]).await;
    r.assert_success("PATCH /bots/{bot_id}");
}

#[tokio::test]
async fn a_new_owner_gains_the_bot_and_the_previous_one_loses_it() {
    let o = org().await;
    let bot = create(
        &o,
        &o.alice,
        &[("full_name", "Mover"), ("short_name", "mover")],
    )
    .await;
    let other_bot = create(
        &o,
        &o.bob,
        &[("full_name", "Other"), ("short_name", "other")],
    )
    .await;
    let gone = o
        .srv
        .user("gone@example.com", "Gone", outpost::model::Role::Member)
        .await;
    let r = o
        .srv
        .delete(&format!("/api/v1/users/{}", gone.id), &o.owner, &[])
        .await;
    r.assert_success("DELETE /users/{user_id}");

    for (owner, msg) in [
        ("999999", "Failed to change owner, no such user"),
        (
            &gone.id.to_string()[..],
            "Failed to change owner, user is deactivated",
        ),
        (
            &other_bot.to_string()[..],
            "Failed to change owner, bots can't own other bots",
        ),
    ] {
        error(
            &patch(&o, &o.alice, bot, &[("bot_owner_id", owner)]).await,
            msg,
        );
    }
    assert!(realm_bot(&o, &o.alice, bot).await.is_some());

    let (qa, _) = o
        .register(&o.alice, &[("event_types", r#"["realm_bot"]"#)])
        .await;
    let (qb, _) = o
        .register(&o.bob, &[("event_types", r#"["realm_bot", "realm_user"]"#)])
        .await;
    let (qd, _) = o
        .register(&o.admin, &[("event_types", r#"["realm_bot"]"#)])
        .await;
    let bob_id = o.bob.id.to_string();
    let r = patch(&o, &o.alice, bot, &[("bot_owner_id", bob_id.as_str())]).await;
    assert_eq!(
        r.assert_success("PATCH /bots/{bot_id}")["bot_owner"],
        "bob@example.com"
    );

    let a = bot_events(&wait_events(&o, &o.alice, &qa, 1).await);
    assert_eq!(
        a,
        vec![json!({"type": "realm_bot", "op": "delete", "bot": {"user_id": bot}})]
    );
    let b_all = wait_events(&o, &o.bob, &qb, 2).await;
    let b = bot_events(&b_all);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0]["op"], "add");
    assert_eq!(b[0]["bot"]["owner_id"], o.bob.id);
    assert!(
        b_all.iter().any(|e| e["type"] == "realm_user"
            && e["person"] == json!({"user_id": bot, "bot_owner_id": o.bob.id})),
        "{b_all:?}"
    );
    let d = bot_events(&wait_events(&o, &o.admin, &qd, 1).await);
    assert_eq!(
        d,
        vec![json!({"type": "realm_bot", "op": "update",
            "bot": {"user_id": bot, "owner_id": o.bob.id}})]
    );
    // Bob administers it now, Alice no longer.
    assert!(realm_bot(&o, &o.alice, bot).await.is_none());
    assert!(realm_bot(&o, &o.bob, bot).await.is_some());
    error(
        &patch(&o, &o.alice, bot, &[("full_name", "Back")]).await,
        "Insufficient permission",
    );
    patch(&o, &o.bob, bot, &[("full_name", "Bobs")])
        .await
        .assert_success("PATCH /bots/{bot_id}");
}

#[tokio::test]
async fn default_channels_are_set_when_created_and_changed_by_name() {
    let o = org().await;
    o.channel(&o.owner, "general", &[&o.owner, &o.alice], &[])
        .await;
    o.channel(&o.owner, "news", &[&o.owner, &o.alice], &[])
        .await;
    o.channel(&o.owner, "secret", &[&o.owner], &[("invite_only", "true")])
        .await;
    let r = o
        .srv
        .post(
            "/api/v1/bots",
            &o.alice,
            &[
                ("full_name", "Sender"),
                ("short_name", "sender"),
                ("default_sending_stream", "general"),
                ("default_all_public_streams", "true"),
            ],
        )
        .await;
    let b = r.assert_success("POST /bots");
    assert_eq!(b["default_sending_stream"], "general");
    assert_eq!(b["default_events_register_stream"], Value::Null);
    assert_eq!(b["default_all_public_streams"], true);
    let bot = b["user_id"].as_i64().unwrap();

    // A channel the caller cannot see is no name at all.
    error(
        &patch(
            &o,
            &o.alice,
            bot,
            &[("default_events_register_stream", "secret")],
        )
        .await,
        "Invalid channel name 'secret'",
    );
    error(
        &patch(&o, &o.alice, bot, &[("default_sending_stream", "nowhere")]).await,
        "Invalid channel name 'nowhere'",
    );
    let (q, _) = o
        .register(&o.alice, &[("event_types", r#"["realm_bot"]"#)])
        .await;
    let r = patch(
        &o,
        &o.alice,
        bot,
        &[
            ("default_sending_stream", ""),
            ("default_events_register_stream", "news"),
        ],
    )
    .await;
    let p = r.assert_success("PATCH /bots/{bot_id}");
    assert_eq!(p["default_sending_stream"], Value::Null);
    assert_eq!(p["default_events_register_stream"], "news");
    assert_eq!(p["default_all_public_streams"], true);
    let evs = bot_events(&wait_events(&o, &o.alice, &q, 2).await);
    assert!(
        evs.contains(&json!({"type": "realm_bot", "op": "update",
        "bot": {"user_id": bot, "default_sending_stream": null}})),
        "{evs:?}"
    );
    assert!(
        evs.contains(&json!({"type": "realm_bot", "op": "update",
        "bot": {"user_id": bot, "default_events_register_stream": "news"}})),
        "{evs:?}"
    );

    let listed = o.srv.get("/api/v1/bots", &o.alice, &[]).await;
    let listed = &listed.assert_success("GET /bots")["bots"][0];
    assert_eq!(listed["default_sending_stream"], Value::Null);
    assert_eq!(listed["default_events_register_stream"], "news");
    assert_eq!(listed["default_all_public_streams"], true);
    let rb = realm_bot(&o, &o.alice, bot).await.unwrap();
    assert_eq!(rb["default_events_register_stream"], "news");
    assert_eq!(rb["default_all_public_streams"], true);
}

#[tokio::test]
async fn roles_need_an_administrator_and_owners_an_owner() {
    let o = org().await;
    let bot = create(
        &o,
        &o.alice,
        &[("full_name", "Ranked"), ("short_name", "ranked")],
    )
    .await;
    error(
        &patch(&o, &o.alice, bot, &[("role", "200")]).await,
        "Must be an organization administrator",
    );
    error(
        &patch(&o, &o.admin, bot, &[("role", "100")]).await,
        "Must be an organization owner",
    );
    error(
        &patch(&o, &o.admin, bot, &[("role", "42")]).await,
        "Invalid role",
    );
    patch(&o, &o.admin, bot, &[("role", "300")])
        .await
        .assert_success("PATCH /bots/{bot_id}");
    let r = o
        .srv
        .get(&format!("/api/v1/users/{bot}"), &o.bob, &[])
        .await;
    assert_eq!(
        r.assert_success("GET /users/{user_id}")["user"]["role"],
        300
    );
}

#[tokio::test]
async fn an_embedded_bots_configuration_is_merged() {
    let o = org().await;
    let bot = create(
        &o,
        &o.alice,
        &[
            ("full_name", "Conv"),
            ("short_name", "conv"),
            ("bot_type", "4"),
            ("service_name", "converter"),
            ("config_data", r#"{"a": "1", "b": "2"}"#),
        ],
    )
    .await;
    error(
        &patch(&o, &o.alice, bot, &[("config_data", r#"{"a": 5}"#)]).await,
        "config_data[\"a\"] is not a string",
    );
    let r = patch(
        &o,
        &o.alice,
        bot,
        &[("config_data", r#"{"b": "3", "c": "4"}"#)],
    )
    .await;
    assert_eq!(
        r.assert_success("PATCH /bots/{bot_id}")["config_data"],
        json!({"b": "3", "c": "4"})
    );
    let rb = realm_bot(&o, &o.alice, bot).await.unwrap();
    assert_eq!(
        rb["services"],
        json!([{"service_name": "converter", "config_data": {"a": "1", "b": "3", "c": "4"}}])
    );
}

#[tokio::test]
async fn a_bots_defaults_apply_to_its_sends_and_its_queues() {
    let o = org().await;
    o.channel(&o.owner, "general", &[&o.owner, &o.alice], &[])
        .await;
    o.channel(&o.owner, "news", &[&o.owner, &o.alice], &[])
        .await;
    let r = o
        .srv
        .post(
            "/api/v1/bots",
            &o.alice,
            &[
                ("full_name", "Poster"),
                ("short_name", "poster"),
                ("default_sending_stream", "general"),
                ("default_events_register_stream", "news"),
            ],
        )
        .await;
    let b = r.assert_success("POST /bots");
    let bot = TestUser {
        id: b["user_id"].as_i64().unwrap(),
        email: "poster-bot@outpost.test".into(),
        api_key: b["api_key"].as_str().unwrap().to_string(),
    };
    // Its queue without a narrow follows its default channel only.
    let (q, _) = o.register(&bot, &[("event_types", r#"["message"]"#)]).await;
    // A channel message without a channel goes to its default channel.
    for form in [
        vec![("type", "stream"), ("topic", "auto"), ("content", "one")],
        vec![
            ("type", "stream"),
            ("to", "[]"),
            ("topic", "auto"),
            ("content", "two"),
        ],
    ] {
        o.srv
            .post("/api/v1/messages", &bot, &form)
            .await
            .assert_success("POST /messages");
    }
    let sent = o
        .raw_messages(
            &o.alice,
            json!([["channel", "general"], ["topic", "auto"]]),
            5,
        )
        .await;
    let contents: Vec<&str> = sent
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["one", "two"]);
    // People still must name a channel.
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.alice,
            &[("type", "stream"), ("topic", "t"), ("content", "x")],
        )
        .await;
    error(&r, "Missing channel");

    o.send_channel(&o.alice, "news", "n", "in news").await;
    let evs = wait_events(&o, &bot, &q, 1).await;
    let messages: Vec<&str> = evs
        .iter()
        .filter(|e| e["type"] == "message")
        .map(|e| e["message"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 1, "{evs:?}");
    assert!(messages[0].contains("in news"), "{messages:?}");
}
