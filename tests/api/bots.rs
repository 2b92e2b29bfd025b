//! Bot storage (`GET`, `PUT`, `DELETE /bot_storage`) as stateful `zulip_bots` bots use it:
//! strings under string keys, per bot, bounded in characters by `[limits]
//! max_bot_storage_chars`; humans are refused; every bad request is upstream's error and
//! changes nothing.

use serde_json::{Value, json};

use outpost::model::Role;

use crate::support::{Reply, TestServer, TestUser};
use crate::user_records::make_bot;

const PATH: &str = "/api/v1/bot_storage";

async fn put(srv: &TestServer, who: &TestUser, storage: &str) -> Reply {
    srv.call(hyper::Method::PUT, PATH, Some(who), &[("storage", storage)])
        .await
}

async fn get(srv: &TestServer, who: &TestUser, keys: Option<&str>) -> Reply {
    match keys {
        Some(k) => srv.get(PATH, who, &[("keys", k)]).await,
        None => srv.get(PATH, who, &[]).await,
    }
}

async fn delete(srv: &TestServer, who: &TestUser, keys: Option<&str>) -> Reply {
    match keys {
        Some(k) => srv.delete(PATH, who, &[("keys", k)]).await,
        None => srv.delete(PATH, who, &[]).await,
    }
}

/// The whole storage of `who`, asserting success.
async fn all(srv: &TestServer, who: &TestUser) -> Value {
    get(srv, who, None).await.assert_success("GET /bot_storage")["storage"].clone()
}

#[track_caller]
fn error(r: &Reply, msg: &str) {
    r.assert_error(400, "BAD_REQUEST");
    assert_eq!(r.body["msg"], msg, "{}", r.body);
}

#[tokio::test]
async fn a_bot_stores_reads_updates_and_removes_entries() {
    let srv = TestServer::start().await;
    let bot = make_bot(&srv, "counter-bot@x.test").await;

    let initial = json!({"key 1": "value 1", "key 2": "value 2", "key 3": "value 3"});
    put(&srv, &bot, &initial.to_string())
        .await
        .assert_success("PUT /bot_storage");
    let r = get(&srv, &bot, Some(r#"["key 1", "key 3"]"#)).await;
    assert_eq!(
        r.assert_success("GET /bot_storage")["storage"],
        json!({"key 1": "value 1", "key 3": "value 3"})
    );
    assert_eq!(all(&srv, &bot).await, initial);
    // An empty list of keys is all of them, as upstream.
    let r = get(&srv, &bot, Some("[]")).await;
    assert_eq!(r.assert_success("GET /bot_storage")["storage"], initial);

    // Updating one entry and adding another.
    put(&srv, &bot, r#"{"key 1": "new value", "key 4": "value 4"}"#)
        .await
        .assert_success("PUT /bot_storage");
    assert_eq!(
        all(&srv, &bot).await,
        json!({"key 1": "new value", "key 2": "value 2", "key 3": "value 3", "key 4": "value 4"})
    );

    delete(&srv, &bot, Some(r#"["key 1", "key 2"]"#))
        .await
        .assert_success("DELETE /bot_storage");
    assert_eq!(
        all(&srv, &bot).await,
        json!({"key 3": "value 3", "key 4": "value 4"})
    );
    // Without keys, everything goes.
    delete(&srv, &bot, None)
        .await
        .assert_success("DELETE /bot_storage");
    assert_eq!(all(&srv, &bot).await, json!({}));
}

#[tokio::test]
async fn each_bot_has_its_own_storage() {
    let srv = TestServer::start().await;
    let a = make_bot(&srv, "a-bot@x.test").await;
    let b = make_bot(&srv, "b-bot@x.test").await;
    put(&srv, &a, r#"{"number": "1"}"#)
        .await
        .assert_success("PUT /bot_storage");
    put(&srv, &b, r#"{"number": "7"}"#)
        .await
        .assert_success("PUT /bot_storage");
    assert_eq!(all(&srv, &a).await, json!({"number": "1"}));
    assert_eq!(all(&srv, &b).await, json!({"number": "7"}));
    delete(&srv, &b, None)
        .await
        .assert_success("DELETE /bot_storage");
    assert_eq!(all(&srv, &a).await, json!({"number": "1"}));
    error(
        &get(&srv, &b, Some(r#"["number"]"#)).await,
        "Key does not exist.",
    );
}

#[tokio::test]
async fn humans_are_refused_and_nothing_is_stored() {
    let srv = TestServer::start().await;
    let human = srv.user("human@x.test", "Human", Role::Owner).await;
    error(
        &put(&srv, &human, r#"{"k": "v"}"#).await,
        "Must be a bot user",
    );
    error(&get(&srv, &human, None).await, "Must be a bot user");
    error(&delete(&srv, &human, None).await, "Must be a bot user");
    let human_id = human.id;
    let rows: i64 = srv
        .state
        .db
        .read(move |c| {
            Ok(c.query_row(
                "SELECT count(*) FROM bot_storage WHERE bot_id = ?1",
                [human_id],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap();
    assert_eq!(rows, 0);
}

#[tokio::test]
async fn unknown_keys_fail_the_whole_request_and_remove_nothing() {
    let srv = TestServer::start().await;
    let bot = make_bot(&srv, "keys-bot@x.test").await;
    put(&srv, &bot, r#"{"key 1": "a", "key 3": "c"}"#)
        .await
        .assert_success("PUT /bot_storage");
    error(
        &get(&srv, &bot, Some(r#"["key 1", "nonexistent key"]"#)).await,
        "Key does not exist.",
    );
    error(
        &delete(&srv, &bot, Some(r#"["key 3", "nonexistent key"]"#)).await,
        "Key does not exist.",
    );
    assert_eq!(all(&srv, &bot).await, json!({"key 1": "a", "key 3": "c"}));
}

#[tokio::test]
async fn malformed_storage_and_keys_are_refused_and_change_nothing() {
    let srv = TestServer::start().await;
    let bot = make_bot(&srv, "strict-bot@x.test").await;
    put(&srv, &bot, r#"{"kept": "yes"}"#)
        .await
        .assert_success("PUT /bot_storage");

    error(
        &put(&srv, &bot, r#"{"kept": "no", "foo": [1, 2, 3]}"#).await,
        r#"storage["foo"] is not a string"#,
    );
    error(
        &put(&srv, &bot, r#"["kept", "no"]"#).await,
        "storage is not a dict",
    );
    error(&put(&srv, &bot, r#""kept""#).await, "storage is not a dict");
    error(&put(&srv, &bot, "{").await, "storage is not valid JSON");
    let r = srv
        .call(hyper::Method::PUT, PATH, Some(&bot), &[("other", "1")])
        .await;
    r.assert_error(400, "REQUEST_VARIABLE_MISSING");
    assert_eq!(r.body["msg"], "Missing 'storage' argument");

    error(
        &get(&srv, &bot, Some("This is not JSON")).await,
        "keys is not valid JSON",
    );
    error(
        &get(&srv, &bot, Some(r#""kept""#)).await,
        "keys is not a list",
    );
    error(
        &delete(&srv, &bot, Some(r#"["kept", 5]"#)).await,
        "keys[1] is not a string",
    );
    error(
        &delete(&srv, &bot, Some(r#"{"kept": 1}"#)).await,
        "keys is not a list",
    );

    assert_eq!(all(&srv, &bot).await, json!({"kept": "yes"}));
}

#[tokio::test]
async fn the_size_limit_counts_characters_per_bot_and_refuses_the_whole_request() {
    let srv = TestServer::start_with(|cfg| cfg.limits.max_bot_storage_chars = 100).await;
    let bot = make_bot(&srv, "full-bot@x.test").await;
    let other = make_bot(&srv, "other-bot@x.test").await;

    // Exactly at the limit: key and value characters together.
    let key = "capacity-filling entry";
    let filling = json!({ key: "x".repeat(100 - key.len()) });
    put(&srv, &bot, &filling.to_string())
        .await
        .assert_success("PUT /bot_storage");
    error(
        &put(&srv, &bot, r#"{"too much data": "a few bits too long"}"#).await,
        "Request exceeds storage limit by 32 characters. The limit is 100 characters.",
    );
    // A request that replaces the big entry but adds too much elsewhere fails as a whole.
    let r = put(
        &srv,
        &bot,
        &json!({ key: "small", "extra": "y".repeat(80) }).to_string(),
    )
    .await;
    error(
        &r,
        "Request exceeds storage limit by 12 characters. The limit is 100 characters.",
    );
    assert_eq!(all(&srv, &bot).await, filling);

    // Replacing an entry counts only the difference.
    let smaller = json!({ key: "é".repeat(100 - key.len()) });
    put(&srv, &bot, &smaller.to_string())
        .await
        .assert_success("PUT /bot_storage");
    assert_eq!(all(&srv, &bot).await, smaller);

    // Another bot has its own allowance.
    put(
        &srv,
        &other,
        &json!({"another big entry": "x".repeat(60)}).to_string(),
    )
    .await
    .assert_success("PUT /bot_storage");
    put(&srv, &other, r#"{"normal entry": "abcd"}"#)
        .await
        .assert_success("PUT /bot_storage");

    // Freed space can be used again.
    delete(&srv, &bot, None)
        .await
        .assert_success("DELETE /bot_storage");
    put(&srv, &bot, r#"{"too much data": "a few bits too long"}"#)
        .await
        .assert_success("PUT /bot_storage");
}

/// Runs `outpost create-user` against the server's data directory.
fn create_user_cli(srv: &TestServer, args: &[&str]) -> std::process::Output {
    let cfg = srv.dir.path().join("cli-bots.toml");
    std::fs::write(
        &cfg,
        format!(
            "data_dir = {:?}\n[database]\nsynchronous = \"normal\"\n",
            srv.state.config.data_dir.display().to_string()
        ),
    )
    .unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_outpost"))
        .arg("create-user")
        .args(args)
        .arg("--config")
        .arg(&cfg)
        .output()
        .unwrap()
}

#[tokio::test]
async fn the_command_line_creates_a_bot_that_may_use_its_storage() {
    let srv = TestServer::start().await;
    let owner = srv.user("keeper@x.test", "Keeper", Role::Member).await;
    let out = create_user_cli(
        &srv,
        &[
            "--email",
            "incrementor-bot@x.test",
            "--full-name",
            "Incrementor",
            "--bot-owner",
            "keeper@x.test",
            "--json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let bot = TestUser {
        id: printed["user_id"].as_i64().unwrap(),
        email: "incrementor-bot@x.test".into(),
        api_key: printed["api_key"].as_str().unwrap().into(),
    };
    let r = srv
        .get(&format!("/api/v1/users/{}", bot.id), &owner, &[])
        .await;
    let user = &r.assert_success("GET /users/{user_id}")["user"];
    assert_eq!(user["is_bot"], true);
    assert_eq!(user["bot_type"], 1);
    assert_eq!(user["bot_owner_id"], owner.id);
    let r = srv.get("/api/v1/users/me", &bot, &[]).await;
    assert_eq!(r.assert_success("GET /users/me")["is_bot"], true);
    put(&srv, &bot, r#"{"number": "1"}"#)
        .await
        .assert_success("PUT /bot_storage");
    assert_eq!(all(&srv, &bot).await, json!({"number": "1"}));

    // An owner that is not an active human member is refused, and no user is created.
    for bad_owner in ["nobody@x.test", "incrementor-bot@x.test"] {
        let out = create_user_cli(
            &srv,
            &[
                "--email",
                "second-bot@x.test",
                "--full-name",
                "Second",
                "--bot-owner",
                bad_owner,
            ],
        );
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("Invalid bot owner"), "{err}");
    }
    let r = srv
        .get("/api/v1/users/second-bot@x.test", &owner, &[])
        .await;
    r.assert_error(400, "BAD_REQUEST");
}
