//! Bot accounts made by users over the API (`POST /bots`, `GET /bots`): the four bot types,
//! the `<short name>-bot@<realm host>` address, the owner, who may create which type (the
//! realm's `can_create_bots_group` / `can_create_write_only_bots_group`), and upstream's
//! errors for bad names, addresses, payload URLs, interface and bot types, each changing
//! nothing.

use serde_json::{Value, json};

use crate::support::{Org, Reply, TestUser, basic, org, patched, raw, wait_events};

/// Upstream's system group ids as Outpost numbers them.
const ADMINISTRATORS: i64 = 3;

async fn add_bot(o: &Org, who: &TestUser, form: &[(&str, &str)]) -> Reply {
    o.srv.post("/api/v1/bots", who, form).await
}

/// `who`'s bots as `GET /bots` lists them.
async fn bots_of(o: &Org, who: &TestUser) -> Vec<Value> {
    let r = o.srv.get("/api/v1/bots", who, &[]).await;
    r.assert_success("GET /bots")["bots"]
        .as_array()
        .unwrap()
        .clone()
}

/// All users' emails as `GET /users` shows them (bots included).
async fn all_emails(o: &Org) -> Vec<String> {
    let r = o.srv.get("/api/v1/users", &o.owner, &[]).await;
    let mut v: Vec<String> = r.assert_success("GET /users")["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["email"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[track_caller]
fn error(r: &Reply, msg: &str) {
    r.assert_error(400, "BAD_REQUEST");
    assert_eq!(r.body["msg"], msg, "{}", r.body);
}

#[tokio::test]
async fn a_member_creates_a_generic_bot_that_logs_in_and_is_listed_for_its_owner() {
    let o = org().await;
    let (q, _) = o
        .register(&o.bob, &[("event_types", r#"["realm_user"]"#)])
        .await;
    let r = add_bot(
        &o,
        &o.alice,
        &[("full_name", "Counter Bot"), ("short_name", "counter")],
    )
    .await;
    let b = r.assert_success("POST /bots").clone();
    let bot_id = b["user_id"].as_i64().unwrap();
    let api_key = b["api_key"].as_str().unwrap().to_string();
    assert!(!api_key.is_empty());
    assert_eq!(b["default_sending_stream"], Value::Null);
    assert_eq!(b["default_events_register_stream"], Value::Null);
    assert_eq!(b["default_all_public_streams"], false);
    assert!(b["avatar_url"].as_str().unwrap().starts_with("https://"));

    // The bot authenticates with its address and key, and is a generic bot owned by alice.
    let email = "counter-bot@outpost.test";
    let req = raw(hyper::Method::GET, "/api/v1/users/me")
        .header("authorization", basic(email, &api_key))
        .body(crate::support::body(""))
        .unwrap();
    let me = o.srv.send(req).await;
    let me = me.assert_success("GET /users/me");
    assert_eq!(me["user_id"], bot_id);
    assert_eq!(me["email"], email);
    assert_eq!(me["is_bot"], true);
    assert_eq!(me["full_name"], "Counter Bot");

    let r = o
        .srv
        .get(&format!("/api/v1/users/{bot_id}"), &o.bob, &[])
        .await;
    let user = &r.assert_success("GET /users/{user_id}")["user"];
    assert_eq!(user["bot_type"], 1);
    assert_eq!(user["bot_owner_id"], o.alice.id);

    // Everyone hears of the new bot, with its type and owner.
    let evs = wait_events(&o, &o.bob, &q, 1).await;
    let add = evs
        .iter()
        .find(|e| e["type"] == "realm_user" && e["op"] == "add")
        .unwrap_or_else(|| panic!("no realm_user add in {evs:?}"));
    assert_eq!(add["person"]["user_id"], bot_id);
    assert_eq!(add["person"]["is_bot"], true);
    assert_eq!(add["person"]["bot_type"], 1);
    assert_eq!(add["person"]["bot_owner_id"], o.alice.id);

    // GET /bots: the owner's active bots only.
    let listed = bots_of(&o, &o.alice).await;
    assert_eq!(
        listed,
        vec![json!({
            "username": email,
            "full_name": "Counter Bot",
            "api_key": api_key,
            "avatar_url": b["avatar_url"],
            "default_sending_stream": null,
            "default_events_register_stream": null,
            "default_all_public_streams": false,
        })]
    );
    assert!(bots_of(&o, &o.bob).await.is_empty());
    assert!(bots_of(&o, &o.admin).await.is_empty());
}

#[tokio::test]
async fn every_bot_type_can_be_created_with_its_service_settings() {
    let o = org().await;
    let cases: [(&str, &[(&str, &str)]); 4] = [
        ("generic", &[("bot_type", "1")]),
        (
            "incoming",
            &[
                ("bot_type", "2"),
                ("service_name", "github"),
                ("config_data", r#"{"branches": "main"}"#),
            ],
        ),
        (
            "outgoing",
            &[
                ("bot_type", "3"),
                ("payload_url", r#""https://hooks.example.com/zulip""#),
                ("interface_type", "2"),
            ],
        ),
        (
            "embedded",
            &[
                ("bot_type", "4"),
                ("service_name", "converter"),
                ("config_data", "{}"),
            ],
        ),
    ];
    for (i, (short, extra)) in cases.iter().enumerate() {
        let name = format!("Type {} Bot", i + 1);
        let mut form = vec![("full_name", name.as_str()), ("short_name", *short)];
        form.extend_from_slice(extra);
        let r = add_bot(&o, &o.alice, &form).await;
        let id = r.assert_success("POST /bots")["user_id"].as_i64().unwrap();
        let r = o
            .srv
            .get(&format!("/api/v1/users/{id}"), &o.alice, &[])
            .await;
        let user = &r.assert_success("GET /users/{user_id}")["user"];
        assert_eq!(user["bot_type"], i as i64 + 1, "{short}");
        assert_eq!(user["email"], format!("{short}-bot@outpost.test"));
    }
    let listed: Vec<Value> = bots_of(&o, &o.alice)
        .await
        .iter()
        .map(|b| b["username"].clone())
        .collect();
    assert_eq!(
        listed,
        vec![
            json!("generic-bot@outpost.test"),
            json!("incoming-bot@outpost.test"),
            json!("outgoing-bot@outpost.test"),
            json!("embedded-bot@outpost.test"),
        ]
    );
}

#[tokio::test]
async fn bad_bot_requests_get_upstreams_errors_and_change_nothing() {
    let o = org().await;
    add_bot(
        &o,
        &o.alice,
        &[("full_name", "Taken Bot"), ("short_name", "taken")],
    )
    .await
    .assert_success("POST /bots");
    let before = all_emails(&o).await;
    let long_service = "s".repeat(101);
    let long_url = format!(r#""https://example.com/{}""#, "a".repeat(2100));
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (
            vec![("full_name", "A Bot"), ("short_name", "  ")],
            "Bad name or username",
        ),
        (
            vec![("full_name", "A Bot"), ("short_name", "a b")],
            "Bad name or username",
        ),
        (
            vec![("full_name", " "), ("short_name", "fresh")],
            "Name too short!",
        ),
        (
            vec![("full_name", "Fresh Bot"), ("short_name", "taken")],
            "Username already in use",
        ),
        (
            vec![("full_name", "taken bot"), ("short_name", "fresh")],
            "Name is already in use.",
        ),
        (
            vec![
                ("full_name", "Fresh Bot"),
                ("short_name", "fresh"),
                ("bot_type", "5"),
            ],
            "Invalid bot type",
        ),
        (
            vec![
                ("full_name", "Fresh Bot"),
                ("short_name", "fresh"),
                ("bot_type", "0"),
            ],
            "Invalid bot type",
        ),
        (
            vec![
                ("full_name", "Fresh Bot"),
                ("short_name", "fresh"),
                ("bot_type", "3"),
                ("interface_type", "3"),
            ],
            "Invalid interface type",
        ),
        (
            vec![
                ("full_name", "Fresh Bot"),
                ("short_name", "fresh"),
                ("bot_type", "3"),
                ("payload_url", r#""ftp://example.com/hook""#),
            ],
            "payload_url is not a URL",
        ),
        (
            vec![
                ("full_name", "Fresh Bot"),
                ("short_name", "fresh"),
                ("bot_type", "3"),
                ("payload_url", r#""not a url""#),
            ],
            "payload_url is not a URL",
        ),
        (
            vec![
                ("full_name", "Fresh Bot"),
                ("short_name", "fresh"),
                ("bot_type", "3"),
                ("payload_url", r#""https://""#),
            ],
            "payload_url is not a URL",
        ),
        (
            vec![
                ("full_name", "Fresh Bot"),
                ("short_name", "fresh"),
                ("bot_type", "3"),
                ("payload_url", long_url.as_str()),
            ],
            "payload_url is not a URL",
        ),
        (
            vec![
                ("full_name", "Fresh Bot"),
                ("short_name", "fresh"),
                ("bot_type", "4"),
                ("service_name", "no-such-bot"),
            ],
            "Invalid embedded bot name.",
        ),
        (
            vec![
                ("full_name", "Fresh Bot"),
                ("short_name", "fresh"),
                ("bot_type", "4"),
                ("service_name", "converter"),
                ("config_data", r#"{"k": 1}"#),
            ],
            "config_data[\"k\"] is not a string",
        ),
        (
            vec![
                ("full_name", "Fresh Bot"),
                ("short_name", "fresh"),
                ("bot_type", "3"),
                ("service_name", long_service.as_str()),
            ],
            "service_name is too long (limit: 100 characters)",
        ),
    ];
    for (form, msg) in &cases {
        let r = add_bot(&o, &o.alice, form).await;
        error(&r, msg);
    }
    let r = add_bot(&o, &o.alice, &[("short_name", "fresh")]).await;
    assert_eq!(
        r.assert_error(400, "REQUEST_VARIABLE_MISSING")["var_name"],
        "full_name"
    );
    // Guests may not create or list bots.
    let r = add_bot(
        &o,
        &o.guest,
        &[("full_name", "Guest Bot"), ("short_name", "guest")],
    )
    .await;
    error(&r, "Not allowed for guest users");
    let r = o.srv.get("/api/v1/bots", &o.guest, &[]).await;
    error(&r, "Not allowed for guest users");

    assert_eq!(all_emails(&o).await, before);
    assert_eq!(bots_of(&o, &o.alice).await.len(), 1);
}

#[tokio::test]
async fn the_realm_settings_decide_who_creates_which_bots() {
    let o = org().await;
    // By default members may create every type.
    add_bot(
        &o,
        &o.bob,
        &[("full_name", "Bob's Bot"), ("short_name", "bobs")],
    )
    .await
    .assert_success("POST /bots");

    // Administrators only for bots that read; incoming webhooks stay open to members.
    let admins = json!({"new": ADMINISTRATORS}).to_string();
    let r = o
        .srv
        .patch(
            "/api/v1/realm",
            &o.admin,
            &[("can_create_bots_group", admins.as_str())],
        )
        .await;
    patched(&r);
    let before = all_emails(&o).await;
    for t in ["1", "3"] {
        let r = add_bot(
            &o,
            &o.alice,
            &[
                ("full_name", "Alice Bot"),
                ("short_name", "alices"),
                ("bot_type", t),
            ],
        )
        .await;
        error(&r, "Insufficient permission");
    }
    assert_eq!(all_emails(&o).await, before);
    add_bot(
        &o,
        &o.alice,
        &[
            ("full_name", "Alice Hook"),
            ("short_name", "hook"),
            ("bot_type", "2"),
        ],
    )
    .await
    .assert_success("POST /bots");
    add_bot(
        &o,
        &o.admin,
        &[("full_name", "Admin Bot"), ("short_name", "adm")],
    )
    .await
    .assert_success("POST /bots");

    // With write-only bots limited too, a member creates none.
    let r = o
        .srv
        .patch(
            "/api/v1/realm",
            &o.admin,
            &[("can_create_write_only_bots_group", admins.as_str())],
        )
        .await;
    patched(&r);
    let r = add_bot(
        &o,
        &o.alice,
        &[
            ("full_name", "Alice Hook 2"),
            ("short_name", "hook2"),
            ("bot_type", "2"),
        ],
    )
    .await;
    error(&r, "Insufficient permission");
}

#[tokio::test]
async fn owners_and_administrators_see_bots_with_their_services_in_register_and_events() {
    let o = org().await;
    let form = [("event_types", r#"["realm_bot"]"#)];
    let (qa, _) = o.register(&o.alice, &form).await;
    let (qadmin, _) = o.register(&o.admin, &form).await;
    let (qbob, _) = o.register(&o.bob, &form).await;

    let r = add_bot(
        &o,
        &o.alice,
        &[
            ("full_name", "Hook Bot"),
            ("short_name", "hook"),
            ("bot_type", "3"),
            ("payload_url", r#""https://hooks.example.com/zulip""#),
            ("interface_type", "2"),
        ],
    )
    .await;
    let b = r.assert_success("POST /bots").clone();
    let hook_id = b["user_id"].as_i64().unwrap();
    let r = add_bot(
        &o,
        &o.bob,
        &[
            ("full_name", "Units Bot"),
            ("short_name", "units"),
            ("bot_type", "4"),
            ("service_name", "converter"),
            ("config_data", r#"{"unit": "metric"}"#),
        ],
    )
    .await;
    let units_id = r.assert_success("POST /bots")["user_id"].as_i64().unwrap();

    // The owner's and the administrators' queues get `realm_bot` `add`; others only theirs.
    let evs = wait_events(&o, &o.alice, &qa, 1).await;
    assert_eq!(evs.len(), 1, "{evs:?}");
    let bot = &evs[0]["bot"];
    assert_eq!(evs[0]["type"], "realm_bot");
    assert_eq!(evs[0]["op"], "add");
    assert_eq!(bot["user_id"], hook_id);
    assert_eq!(bot["email"], "hook-bot@outpost.test");
    assert_eq!(bot["full_name"], "Hook Bot");
    assert_eq!(bot["bot_type"], 3);
    assert_eq!(bot["is_active"], true);
    assert_eq!(bot["api_key"], b["api_key"]);
    assert_eq!(bot["owner_id"], o.alice.id);
    let services = bot["services"].as_array().unwrap();
    assert_eq!(services.len(), 1);
    assert_eq!(services[0]["base_url"], "https://hooks.example.com/zulip");
    assert_eq!(services[0]["interface"], 2);
    let token = services[0]["token"].as_str().unwrap().to_string();
    assert!(token.len() >= 32, "{token}");
    let evs = wait_events(&o, &o.admin, &qadmin, 2).await;
    let ids: Vec<&Value> = evs.iter().map(|e| &e["bot"]["user_id"]).collect();
    assert_eq!(ids, vec![&json!(hook_id), &json!(units_id)]);
    let evs = wait_events(&o, &o.bob, &qbob, 1).await;
    assert_eq!(evs.len(), 1, "{evs:?}");
    assert_eq!(evs[0]["bot"]["user_id"], units_id);
    assert_eq!(
        evs[0]["bot"]["services"],
        json!([{"service_name": "converter", "config_data": {"unit": "metric"}}])
    );

    // register's `realm_bots`: the same records, the token unchanged.
    let (_, s) = o.register(&o.alice, &form).await;
    let bots = s["realm_bots"].as_array().unwrap();
    assert_eq!(bots.len(), 1);
    assert_eq!(bots[0]["user_id"], hook_id);
    assert_eq!(bots[0]["services"][0]["token"], token.as_str());
    let (_, s) = o.register(&o.admin, &form).await;
    let all: Vec<&Value> = s["realm_bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["user_id"])
        .collect();
    assert_eq!(all, vec![&json!(hook_id), &json!(units_id)]);
    let (_, s) = o.register(&o.guest, &form).await;
    assert_eq!(s["realm_bots"], json!([]));
}

/// Creates a generic bot for `who`; returns its id and API key.
async fn make(o: &Org, who: &TestUser, name: &str, short: &str) -> (i64, String) {
    let r = add_bot(o, who, &[("full_name", name), ("short_name", short)]).await;
    let b = r.assert_success("POST /bots");
    (
        b["user_id"].as_i64().unwrap(),
        b["api_key"].as_str().unwrap().to_string(),
    )
}

/// `GET /users/me` as the bot with this email and key.
async fn as_bot(o: &Org, email: &str, key: &str) -> Reply {
    let req = raw(hyper::Method::GET, "/api/v1/users/me")
        .header("authorization", basic(email, key))
        .body(crate::support::body(""))
        .unwrap();
    o.srv.send(req).await
}

#[tokio::test]
async fn owners_and_administrators_regenerate_keys_and_deactivate_bots() {
    let o = org().await;
    let (id, old_key) = make(&o, &o.alice, "Key Bot", "key").await;
    let form = [("event_types", r#"["realm_bot", "realm_user"]"#)];
    let (qa, _) = o.register(&o.alice, &form).await;
    let (qb, _) = o.register(&o.bob, &form).await;
    let email = "key-bot@outpost.test";

    // Someone else's bot: refused, nothing changes.
    let regen = format!("/api/v1/bots/{id}/api_key/regenerate");
    error(
        &o.srv.post(&regen, &o.bob, &[]).await,
        "Insufficient permission",
    );
    error(
        &o.srv
            .delete(&format!("/api/v1/bots/{id}"), &o.bob, &[])
            .await,
        "Insufficient permission",
    );
    // Not a bot, or no such user.
    for target in [o.bob.id, 9999] {
        error(
            &o.srv
                .post(
                    &format!("/api/v1/bots/{target}/api_key/regenerate"),
                    &o.admin,
                    &[],
                )
                .await,
            "No such bot",
        );
        error(
            &o.srv
                .delete(&format!("/api/v1/bots/{target}"), &o.admin, &[])
                .await,
            "No such bot",
        );
    }
    as_bot(&o, email, &old_key)
        .await
        .assert_success("GET /users/me");

    // The owner regenerates: the old key stops working, the new one works.
    let r = o.srv.post(&regen, &o.alice, &[]).await;
    let new_key = r.assert_success("POST /bots/{bot_id}/api_key/regenerate")["api_key"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(new_key, old_key);
    as_bot(&o, email, &old_key)
        .await
        .assert_error(401, "UNAUTHORIZED");
    as_bot(&o, email, &new_key)
        .await
        .assert_success("GET /users/me");
    let evs = wait_events(&o, &o.alice, &qa, 1).await;
    assert_eq!(
        evs[0],
        json!({"type": "realm_bot", "op": "update", "id": evs[0]["id"],
               "bot": {"user_id": id, "api_key": new_key}})
    );
    // An administrator may too.
    o.srv
        .post(&regen, &o.admin, &[])
        .await
        .assert_success("POST /bots/{bot_id}/api_key/regenerate");

    // An administrator deactivates it: gone from GET /bots, its key refused, everyone told.
    o.srv
        .delete(&format!("/api/v1/bots/{id}"), &o.admin, &[])
        .await
        .assert_success("DELETE /bots/{bot_id}");
    assert!(bots_of(&o, &o.alice).await.is_empty());
    let r = o.srv.get(&format!("/api/v1/users/{id}"), &o.bob, &[]).await;
    assert_eq!(
        r.assert_success("GET /users/{user_id}")["user"]["is_active"],
        false
    );
    let evs = wait_events(&o, &o.alice, &qa, 4).await;
    assert!(
        evs.iter().any(|e| e["type"] == "realm_bot"
            && e["op"] == "update"
            && e["bot"] == json!({"user_id": id, "is_active": false})),
        "{evs:?}"
    );
    let evs = wait_events(&o, &o.bob, &qb, 1).await;
    assert!(evs.iter().all(|e| e["type"] == "realm_user"), "{evs:?}");
    assert!(
        evs.iter()
            .any(|e| e["person"] == json!({"user_id": id, "is_active": false})),
        "{evs:?}"
    );
    // Once deactivated it is no bot to act on.
    error(
        &o.srv
            .delete(&format!("/api/v1/bots/{id}"), &o.alice, &[])
            .await,
        "No such bot",
    );
    // register's realm_bots keeps it, deactivated, for its owner.
    let (_, s) = o
        .register(&o.alice, &[("event_types", r#"["realm_bot"]"#)])
        .await;
    assert_eq!(s["realm_bots"][0]["user_id"], id);
    assert_eq!(s["realm_bots"][0]["is_active"], false);
}
