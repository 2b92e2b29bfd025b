//! Records clients keep on the server: muted users (register, events, messages arriving read),
//! drafts (honouring `enable_drafts_synchronization`) and saved snippets, each with upstream's
//! errors for bad input, which change nothing.

use serde_json::{Value, json};

use outpost::model::Role;

use crate::support::{Org, Reply, TestServer, TestUser, org, org_with, wait_events};

impl Org {
    async fn mute(&self, who: &TestUser, id: i64) -> Reply {
        let path = format!("/api/v1/users/me/muted_users/{id}");
        self.srv.post(&path, who, &[]).await
    }

    async fn unmute(&self, who: &TestUser, id: i64) -> Reply {
        let path = format!("/api/v1/users/me/muted_users/{id}");
        self.srv.delete(&path, who, &[]).await
    }

    /// One register key (`fetch_event_types` limited to its type).
    async fn register_key(&self, who: &TestUser, event_type: &str) -> Value {
        let types = json!([event_type]).to_string();
        let r = self
            .srv
            .post(
                "/api/v1/register",
                who,
                &[("fetch_event_types", types.as_str())],
            )
            .await;
        r.assert_success("POST /register")[event_type].clone()
    }

    /// The flags `who` has on message `id`.
    async fn flags_of(&self, who: &TestUser, id: i64) -> Vec<Value> {
        let ids = json!([id]).to_string();
        let r = self.fetch(who, &[("message_ids", ids.as_str())]).await;
        r.body["messages"][0]["flags"].as_array().unwrap().clone()
    }

    async fn unread_ids(&self, who: &TestUser) -> Vec<i64> {
        let r = self
            .fetch(
                who,
                &[
                    ("anchor", "newest"),
                    ("num_before", "100"),
                    ("narrow", r#"[{"operator":"is","operand":"unread"}]"#),
                ],
            )
            .await;
        r.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_i64().unwrap())
            .collect()
    }

    async fn drafts(&self, who: &TestUser) -> Vec<Value> {
        let r = self.srv.get("/api/v1/drafts", who, &[]).await;
        let b = r.assert_success("GET /drafts");
        assert_eq!(b["count"], b["drafts"].as_array().unwrap().len());
        b["drafts"].as_array().unwrap().clone()
    }

    async fn create_drafts(&self, who: &TestUser, drafts: Value) -> Reply {
        let d = drafts.to_string();
        self.srv
            .post("/api/v1/drafts", who, &[("drafts", d.as_str())])
            .await
    }

    async fn snippets(&self, who: &TestUser) -> Vec<Value> {
        let r = self.srv.get("/api/v1/saved_snippets", who, &[]).await;
        r.assert_success("GET /saved_snippets")["saved_snippets"]
            .as_array()
            .unwrap()
            .clone()
    }

    async fn create_snippet(&self, who: &TestUser, title: &str, content: &str) -> Reply {
        self.srv
            .post(
                "/api/v1/saved_snippets",
                who,
                &[("title", title), ("content", content)],
            )
            .await
    }
}

/// A generic bot (no API creates bots yet: the account is marked in the database before it
/// makes any request).
pub(crate) async fn make_bot(srv: &TestServer, email: &str) -> TestUser {
    let bot = srv.user(email, "Helper Bot", Role::Member).await;
    let id = bot.id;
    srv.state
        .db
        .write(move |tx| {
            tx.execute(
                "UPDATE users SET is_bot = 1, bot_type = 1 WHERE id = ?1",
                [id],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    bot
}

#[track_caller]
fn error(r: &Reply, status: u16, msg: &str) {
    r.assert_error(status, "BAD_REQUEST");
    assert_eq!(r.body["msg"], msg, "{}", r.body);
}

fn of_type<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

#[tokio::test]
async fn muting_marks_the_muted_users_messages_read_and_new_ones_arrive_read() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob, &o.owner], &[])
        .await;
    let before_channel = o.send_channel(&o.bob, "general", "t", "before").await;
    let before_dm = o.send_dm(&o.bob, &[&o.alice], "psst").await;
    let (q, _) = o
        .register(
            &o.alice,
            &[(
                "event_types",
                r#"["muted_users","update_message_flags","message"]"#,
            )],
        )
        .await;

    o.mute(&o.alice, o.bob.id)
        .await
        .assert_success("POST /users/me/muted_users/{muted_user_id}");
    let evs = wait_events(&o, &o.alice, &q, 2).await;
    let muted = of_type(&evs, "muted_users");
    assert_eq!(muted.len(), 1);
    assert_eq!(muted[0]["muted_users"][0]["id"], o.bob.id);
    assert!(muted[0]["muted_users"][0]["timestamp"].is_i64());
    let read = of_type(&evs, "update_message_flags");
    assert_eq!(read.len(), 1);
    assert_eq!(
        (read[0]["op"].clone(), read[0]["flag"].clone()),
        (json!("add"), json!("read"))
    );
    assert_eq!(read[0]["messages"], json!([before_channel, before_dm]));
    let unread = o.unread_ids(&o.alice).await;
    assert!(!unread.contains(&before_channel) && !unread.contains(&before_dm));
    // Register says who is muted.
    let reg = o.register_key(&o.alice, "muted_users").await;
    assert_eq!(reg.as_array().unwrap().len(), 1);
    assert_eq!(reg[0]["id"], o.bob.id);

    // New messages from bob arrive read for alice, and only for her.
    let dm = o.send_dm(&o.bob, &[&o.alice], "again").await;
    let ch = o.send_channel(&o.bob, "general", "t", "and again").await;
    let evs = wait_events(&o, &o.alice, &q, 4).await;
    let msgs = of_type(&evs, "message");
    assert_eq!(msgs.len(), 2);
    for m in &msgs {
        assert!(
            m["flags"].as_array().unwrap().contains(&json!("read")),
            "{m}"
        );
    }
    assert!(o.flags_of(&o.alice, dm).await.contains(&json!("read")));
    assert!(o.flags_of(&o.alice, ch).await.contains(&json!("read")));
    assert!(!o.flags_of(&o.owner, ch).await.contains(&json!("read")));
    let unread = o.unread_ids(&o.alice).await;
    assert!(!unread.contains(&dm) && !unread.contains(&ch));

    // Unmuted, bob's messages are unread again for alice.
    o.unmute(&o.alice, o.bob.id)
        .await
        .assert_success("DELETE /users/me/muted_users/{muted_user_id}");
    let evs = wait_events(&o, &o.alice, &q, 5).await;
    assert_eq!(of_type(&evs, "muted_users")[1]["muted_users"], json!([]));
    assert_eq!(o.register_key(&o.alice, "muted_users").await, json!([]));
    let later = o.send_dm(&o.bob, &[&o.alice], "hello?").await;
    assert!(o.unread_ids(&o.alice).await.contains(&later));
}

#[tokio::test]
async fn muting_refuses_self_bots_strangers_and_repeats_and_changes_nothing() {
    let o = org().await;
    error(&o.mute(&o.alice, o.alice.id).await, 400, "Cannot mute self");
    error(&o.mute(&o.alice, 999_999).await, 400, "No such user");
    // Notification Bot (a system bot) and an ordinary bot are not users one mutes.
    error(&o.mute(&o.alice, 1).await, 400, "No such user");
    let bot = make_bot(&o.srv, "helper-bot@example.com").await;
    error(&o.mute(&o.alice, bot.id).await, 400, "No such user");
    error(
        &o.unmute(&o.alice, o.bob.id).await,
        400,
        "User is not muted",
    );
    error(&o.unmute(&o.alice, 999_999).await, 400, "No such user");
    o.mute(&o.alice, o.bob.id)
        .await
        .assert_success("POST /users/me/muted_users/{muted_user_id}");
    error(&o.mute(&o.alice, o.bob.id).await, 400, "User already muted");
    let reg = o.register_key(&o.alice, "muted_users").await;
    assert_eq!(reg.as_array().unwrap().len(), 1);
    assert_eq!(reg[0]["id"], o.bob.id);
    // Someone else's mutes are their own.
    assert_eq!(o.register_key(&o.bob, "muted_users").await, json!([]));
    // Deactivated users can still be muted.
    o.srv
        .delete(&format!("/api/v1/users/{}", o.guest.id), &o.admin, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    o.mute(&o.alice, o.guest.id)
        .await
        .assert_success("POST /users/me/muted_users/{muted_user_id}");
}

#[tokio::test]
async fn drafts_are_created_listed_edited_and_deleted_with_events() {
    let o = org().await;
    let general = o
        .channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let (q, _) = o
        .register(&o.alice, &[("event_types", r#"["drafts"]"#)])
        .await;
    let r = o
        .create_drafts(
            &o.alice,
            json!([
                {"type": "stream", "to": [general], "topic": "plans", "content": "Let us", "timestamp": 1_700_000_000},
                {"type": "private", "to": [o.bob.id, o.alice.id], "topic": "", "content": "hi bob"},
                {"type": "", "to": [], "topic": "", "content": "unaddressed"},
            ]),
        )
        .await;
    let ids = r.assert_success("POST /drafts")["ids"].clone();
    let ids: Vec<i64> = ids
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), 3);
    let evs = wait_events(&o, &o.alice, &q, 1).await;
    assert_eq!(
        (evs[0]["type"].clone(), evs[0]["op"].clone()),
        (json!("drafts"), json!("add"))
    );
    let added = evs[0]["drafts"].as_array().unwrap();
    assert_eq!(added[0]["id"], ids[0]);
    assert_eq!(added[0]["to"], json!([general]));
    assert_eq!(added[0]["timestamp"], 1_700_000_000);
    // A direct draft lists the other participants.
    assert_eq!(added[1]["type"], "private");
    assert_eq!(added[1]["to"], json!([o.bob.id]));

    // Listed most recently edited first; the one with the old timestamp last.
    let listed = o.drafts(&o.alice).await;
    assert_eq!(listed.len(), 3);
    assert_eq!(listed[2]["id"], ids[0]);
    assert_eq!(listed[2]["topic"], "plans");
    assert!(o.drafts(&o.bob).await.is_empty());
    assert_eq!(
        o.register_key(&o.alice, "drafts")
            .await
            .as_array()
            .unwrap()
            .len(),
        3
    );

    let new = json!({"type": "private", "to": [o.bob.id], "topic": "", "content": "edited", "timestamp": 1_800_000_000}).to_string();
    o.srv
        .patch(
            &format!("/api/v1/drafts/{}", ids[0]),
            &o.alice,
            &[("draft", new.as_str())],
        )
        .await
        .assert_success("PATCH /drafts/{draft_id}");
    o.srv
        .delete(&format!("/api/v1/drafts/{}", ids[2]), &o.alice, &[])
        .await
        .assert_success("DELETE /drafts/{draft_id}");
    let evs = wait_events(&o, &o.alice, &q, 3).await;
    assert_eq!(evs[1]["op"], "update");
    assert_eq!(evs[1]["draft"]["content"], "edited");
    assert_eq!(evs[1]["draft"]["type"], "private");
    assert_eq!(
        evs[2],
        json!({"type": "drafts", "op": "remove", "draft_id": ids[2], "id": evs[2]["id"]})
    );
    let listed = o.drafts(&o.alice).await;
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["id"], ids[0]);
    assert_eq!(listed[0]["content"], "edited");
}

#[tokio::test]
async fn bad_drafts_get_upstreams_errors_and_change_nothing() {
    let o = org().await;
    let general = o.channel(&o.alice, "general", &[&o.alice], &[]).await;
    let secret = o
        .channel(&o.bob, "secret", &[&o.bob], &[("invite_only", "true")])
        .await;
    let r = o
        .create_drafts(
            &o.alice,
            json!([{"type": "stream", "to": [general], "topic": "t", "content": "kept"}]),
        )
        .await;
    let kept = r.assert_success("POST /drafts")["ids"][0].as_i64().unwrap();
    o.srv
        .delete(&format!("/api/v1/users/{}", o.guest.id), &o.admin, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    let gone = format!("'{}' is no longer using Zulip.", o.guest.email);
    let cases: &[(Value, &str)] = &[
        (
            json!([{"type": "stream", "to": [general, secret], "topic": "t", "content": "x"}]),
            "Must specify exactly 1 channel ID for channel messages",
        ),
        (
            json!([{"type": "stream", "to": [secret], "topic": "t", "content": "x"}]),
            "Invalid channel ID",
        ),
        (
            json!([{"type": "private", "to": [999_999], "topic": "", "content": "x"}]),
            "Invalid user ID 999999",
        ),
        (
            json!([{"type": "private", "to": [o.bob.id, o.guest.id], "topic": "", "content": "x"}]),
            gone.as_str(),
        ),
        (
            json!([{"type": "stream", "to": [general], "topic": "t", "content": "  "}]),
            "Message must not be empty",
        ),
        (
            json!([{"type": "stream", "to": [general], "topic": "a\u{0}b", "content": "x"}]),
            "Topic must not contain null bytes",
        ),
        (
            json!([{"type": "stream", "to": [general], "topic": "t", "content": "x", "timestamp": -1}]),
            "Timestamp must not be negative.",
        ),
    ];
    for (drafts, msg) in cases {
        // The bad draft comes after a good one: neither is kept.
        let mut all = vec![json!({"type": "", "to": [], "topic": "", "content": "good"})];
        all.extend(drafts.as_array().unwrap().iter().cloned());
        error(
            &o.create_drafts(&o.alice, Value::Array(all)).await,
            400,
            msg,
        );
    }
    for bad in [
        json!([{"type": "huddle", "to": [], "topic": "", "content": "x"}]),
        json!([{"to": [], "topic": "", "content": "x"}]),
        json!([{"type": "", "to": "3", "topic": "", "content": "x"}]),
        json!([{"type": "", "to": [], "topic": "", "content": "x", "id": 4}]),
        json!({"type": ""}),
    ] {
        o.create_drafts(&o.alice, bad)
            .await
            .assert_error(400, "BAD_REQUEST");
    }
    // Unknown and foreign ids.
    let d = json!({"type": "", "to": [], "topic": "", "content": "x"}).to_string();
    for (who, id) in [(&o.alice, 999_999), (&o.bob, kept)] {
        let path = format!("/api/v1/drafts/{id}");
        error(
            &o.srv.patch(&path, who, &[("draft", d.as_str())]).await,
            404,
            "Draft does not exist",
        );
        error(
            &o.srv.delete(&path, who, &[]).await,
            404,
            "Draft does not exist",
        );
    }
    // An edit into something invalid keeps the old draft.
    let bad = json!({"type": "stream", "to": [secret], "topic": "t", "content": "x"}).to_string();
    let path = format!("/api/v1/drafts/{kept}");
    error(
        &o.srv
            .patch(&path, &o.alice, &[("draft", bad.as_str())])
            .await,
        400,
        "Invalid channel ID",
    );
    let listed = o.drafts(&o.alice).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["content"], "kept");
    assert_eq!(listed[0]["to"], json!([general]));
}

#[tokio::test]
async fn drafts_follow_the_synchronization_setting_and_the_limit() {
    let o = org_with(|c| c.limits.max_drafts_per_user = 2).await;
    let one = json!([{"type": "", "to": [], "topic": "", "content": "a"}]);
    o.create_drafts(&o.alice, one.clone())
        .await
        .assert_success("POST /drafts");
    let two = json!([
        {"type": "", "to": [], "topic": "", "content": "b"},
        {"type": "", "to": [], "topic": "", "content": "c"},
    ]);
    error(
        &o.create_drafts(&o.alice, two).await,
        400,
        "Too many drafts (limit: 2)",
    );
    assert_eq!(o.drafts(&o.alice).await.len(), 1);
    o.create_drafts(&o.alice, one.clone())
        .await
        .assert_success("POST /drafts");

    // Turning synchronization off forgets the drafts and refuses new ones.
    o.srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("enable_drafts_synchronization", "false")],
        )
        .await
        .assert_success("PATCH /settings");
    assert_eq!(o.register_key(&o.alice, "drafts").await, json!([]));
    let off = "User has disabled synchronizing drafts.";
    error(&o.create_drafts(&o.alice, one.clone()).await, 400, off);
    error(&o.srv.get("/api/v1/drafts", &o.alice, &[]).await, 400, off);
    o.srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("enable_drafts_synchronization", "true")],
        )
        .await
        .assert_success("PATCH /settings");
    assert!(o.drafts(&o.alice).await.is_empty());
}

#[tokio::test]
async fn saved_snippets_are_kept_with_events_and_checked() {
    let o = org_with(|c| c.limits.max_saved_snippets_per_user = 2).await;
    let (q, _) = o
        .register(&o.alice, &[("event_types", r#"["saved_snippets"]"#)])
        .await;
    let r = o
        .create_snippet(&o.alice, "  Welcome ", "Welcome to the team!")
        .await;
    let id = r.assert_success("POST /saved_snippets")["saved_snippet_id"]
        .as_i64()
        .unwrap();
    let listed = o.snippets(&o.alice).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0]["id"].as_i64(), listed[0]["title"].clone()),
        (Some(id), json!("Welcome"))
    );
    assert!(listed[0]["date_created"].is_i64());
    assert!(o.snippets(&o.bob).await.is_empty());
    assert_eq!(
        o.register_key(&o.alice, "saved_snippets").await,
        json!(listed)
    );

    let path = format!("/api/v1/saved_snippets/{id}");
    o.srv
        .patch(&path, &o.alice, &[("content", "Hello!")])
        .await
        .assert_success("PATCH /saved_snippets/{saved_snippet_id}");
    // Bad input: nothing changes.
    let long_title = "t".repeat(61);
    let long_content = "c".repeat(10_001);
    error(
        &o.create_snippet(&o.alice, "  ", "x").await,
        400,
        "Title cannot be empty.",
    );
    error(
        &o.create_snippet(&o.alice, "x", "").await,
        400,
        "Content cannot be empty.",
    );
    error(
        &o.create_snippet(&o.alice, &long_title, "x").await,
        400,
        "title is too long (limit: 60 characters)",
    );
    error(
        &o.create_snippet(&o.alice, "x", &long_content).await,
        400,
        "content is too long (limit: 10000 characters)",
    );
    error(
        &o.srv.patch(&path, &o.alice, &[("title", " ")]).await,
        400,
        "Title cannot be empty.",
    );
    for (who, p) in [
        (&o.bob, path.clone()),
        (&o.alice, "/api/v1/saved_snippets/999999".to_string()),
    ] {
        let missing = "Saved snippet does not exist.";
        error(&o.srv.patch(&p, who, &[("title", "x")]).await, 404, missing);
        error(&o.srv.delete(&p, who, &[]).await, 404, missing);
    }
    o.create_snippet(&o.alice, "Two", "2")
        .await
        .assert_success("POST /saved_snippets");
    error(
        &o.create_snippet(&o.alice, "Three", "3").await,
        400,
        "Too many saved snippets (limit: 2)",
    );
    let listed = o.snippets(&o.alice).await;
    assert_eq!(listed.len(), 2);
    assert_eq!(
        (listed[0]["title"].clone(), listed[0]["content"].clone()),
        (json!("Welcome"), json!("Hello!"))
    );

    o.srv
        .delete(&path, &o.alice, &[])
        .await
        .assert_success("DELETE /saved_snippets/{saved_snippet_id}");
    let evs = wait_events(&o, &o.alice, &q, 4).await;
    let ops: Vec<&str> = evs.iter().map(|e| e["op"].as_str().unwrap()).collect();
    assert_eq!(ops, ["add", "update", "add", "remove"]);
    assert_eq!(evs[1]["saved_snippet"]["content"], "Hello!");
    assert_eq!(evs[3]["saved_snippet_id"], id);
    assert_eq!(o.snippets(&o.alice).await.len(), 1);
}

#[tokio::test]
async fn muting_someone_prolific_marks_all_their_messages_read_in_batches() {
    let o = org().await;
    // More than one write's worth (500) of unread direct messages from bob.
    let mut sent = Vec::new();
    for i in 0..501 {
        sent.push(o.send_dm(&o.bob, &[&o.alice], &format!("m{i}")).await);
    }
    let (q, _) = o
        .register(&o.alice, &[("event_types", r#"["update_message_flags"]"#)])
        .await;
    o.mute(&o.alice, o.bob.id)
        .await
        .assert_success("POST /users/me/muted_users/{muted_user_id}");
    let evs = wait_events(&o, &o.alice, &q, 2).await;
    let marked: Vec<i64> = evs
        .iter()
        .flat_map(|e| e["messages"].as_array().unwrap().iter())
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!((evs.len(), marked), (2, sent));
    // Only the Welcome Bot's message is left unread.
    assert_eq!(o.unread_ids(&o.alice).await.len(), 1);
}
