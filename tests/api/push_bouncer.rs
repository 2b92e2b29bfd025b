//! Mobile push through Zulip's push notification service, against the stand-in of
//! `support::bouncer`: `outpost push register` (the terms flag, owner-only credentials, key
//! rotation), legacy tokens forwarded through the outbox (register, unregister, a deactivated
//! user's devices, a call that survives a restart), the message and remove payloads upstream
//! builds (a channel mention, a one-to-one and a group direct message), tokens the service
//! deleted, the test notification with its errors, and the push flags of `server_settings` and
//! `POST /register`. What cannot be tested here: the real service, APNs and FCM.

use std::os::unix::fs::PermissionsExt as _;
use std::process::Command;

use serde_json::{Value, json};

use outpost::domain::push::credentials::{self, Credentials};
use outpost::domain::push::{self, PushOutcome};
use outpost::ids::{MessageId, UserId};
use outpost::model::Trigger;

use crate::support::bouncer::{Bouncer, Received};
use crate::support::{Org, TestUser, org_with, register_queue, wait_events};

const BIN: &str = env!("CARGO_BIN_EXE_outpost");
const FCM: &str = "fcm-token-of-alice";
const APNS: &str = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00";

/// The usual organization on a server that uses `bouncer`, registered with it.
async fn pushed_org(bouncer: &Bouncer) -> (Org, Credentials) {
    let url = bouncer.url();
    let o = org_with(|c| {
        c.push.enabled = true;
        c.push.bouncer_url = url;
    })
    .await;
    let creds = Credentials::generate();
    credentials::store(&o.srv.state.config.data_dir, &creds).unwrap();
    bouncer.know(&creds.zulip_org_id, &creds.zulip_org_key);
    (o, creds)
}

impl Org {
    async fn add_tokens(&self, who: &TestUser) {
        self.srv
            .post(
                "/api/v1/users/me/android_gcm_reg_id",
                who,
                &[("token", FCM)],
            )
            .await
            .assert_success("POST /users/me/android_gcm_reg_id");
        self.srv
            .post(
                "/api/v1/users/me/apns_device_token",
                who,
                &[("token", APNS), ("appid", "org.zulip.Zulip")],
            )
            .await
            .assert_success("POST /users/me/apns_device_token");
    }

    async fn message_push(&self, who: &TestUser, id: i64, trigger: Trigger) -> PushOutcome {
        let core = &self.srv.state.core;
        push::send_message_push(core, UserId(who.id), MessageId(id), trigger, None)
            .await
            .unwrap()
    }

    /// The message as `who` fetches it (for the sender's email and avatar).
    async fn message_as(&self, who: &TestUser, id: i64) -> Value {
        let r = self
            .srv
            .get(&format!("/api/v1/messages/{id}"), who, &[])
            .await;
        r.body["message"].clone()
    }
}

fn payloads(r: &Received) -> (&Value, &Value) {
    (&r.json["gcm_payload"], &r.json["apns_payload"])
}

/// The message pushes of message `id` (at least `n`, waited for): a message sent to a user
/// with devices is also pushed by the notification pass, so tests pick by message.
async fn pushes_of(bouncer: &Bouncer, id: i64, n: usize) -> Vec<Received> {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let got: Vec<Received> = bouncer
            .got_at("push/notify")
            .into_iter()
            .filter(|r| {
                r.json["gcm_payload"]["event"] == "message"
                    && r.json["gcm_payload"]["zulip_message_id"] == json!(id.to_string())
            })
            .collect();
        if got.len() >= n {
            return got;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{n} pushes of {id} expected: {:?}",
            bouncer.got()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn tokens_are_forwarded_through_the_outbox() {
    let bouncer = Bouncer::start().await;
    let (o, creds) = pushed_org(&bouncer).await;
    o.add_tokens(&o.alice).await;
    let got = bouncer.wait_for("push/register", 2).await;
    let fcm = got.iter().find(|r| r.field("token") == Some(FCM)).unwrap();
    let apns = got.iter().find(|r| r.field("token") == Some(APNS)).unwrap();
    for r in [fcm, apns] {
        assert_eq!(r.server.as_deref(), Some(creds.zulip_org_id.as_str()));
        assert!(r.user_agent.starts_with("ZulipServer/"), "{}", r.user_agent);
        assert!(
            r.content_type
                .starts_with("application/x-www-form-urlencoded")
        );
        assert_eq!(r.field("server_uuid"), Some(creds.zulip_org_id.as_str()));
        assert_eq!(r.field("realm_uuid"), Some(creds.realm_uuid.as_str()));
        assert_eq!(r.field("user_id"), Some(o.alice.id.to_string().as_str()));
    }
    assert_eq!(fcm.field("token_kind"), Some("2"));
    assert_eq!(fcm.field("ios_app_id"), None);
    assert_eq!(apns.field("token_kind"), Some("1"));
    assert_eq!(apns.field("ios_app_id"), Some("org.zulip.Zulip"));

    o.srv
        .delete(
            "/api/v1/users/me/android_gcm_reg_id",
            &o.alice,
            &[("token", FCM)],
        )
        .await
        .assert_success("DELETE /users/me/android_gcm_reg_id");
    let un = bouncer.wait_for("push/unregister", 1).await;
    assert_eq!(un[0].field("token"), Some(FCM));
    assert_eq!(un[0].field("token_kind"), Some("2"));

    o.srv
        .delete(&format!("/api/v1/users/{}", o.alice.id), &o.admin, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    let all = bouncer.wait_for("push/unregister/all", 1).await;
    assert_eq!(
        all[0].field("user_id"),
        Some(o.alice.id.to_string().as_str())
    );
    assert_eq!(all[0].field("token"), None);
    assert!(bouncer.devices().is_empty());
    assert_eq!(bouncer.problems(), Vec::<String>::new());
}

#[tokio::test]
async fn a_queued_call_survives_a_restart() {
    let bouncer = Bouncer::start().await;
    let (o, _) = pushed_org(&bouncer).await;
    bouncer.fail(usize::MAX, 503);
    o.srv
        .post(
            "/api/v1/users/me/android_gcm_reg_id",
            &o.bob,
            &[("token", FCM)],
        )
        .await
        .assert_success("POST /users/me/android_gcm_reg_id");
    bouncer.wait_for("push/register", 1).await;
    let o = o.restart().await;
    bouncer.fail(0, 503);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !bouncer.devices().contains(&(o.bob.id, 2, FCM.to_string())) {
        assert!(std::time::Instant::now() < deadline, "{:?}", bouncer.got());
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // Made once it succeeded, and not again.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let ok: Vec<_> = bouncer.got_at("push/register");
    assert!(ok.len() >= 2);
    assert_eq!(bouncer.problems(), Vec::<String>::new());
}

#[tokio::test]
async fn a_channel_mention_pushes_upstreams_payloads() {
    let bouncer = Bouncer::start().await;
    let (o, creds) = pushed_org(&bouncer).await;
    o.add_tokens(&o.alice).await;
    bouncer.wait_for("push/register", 2).await;
    let channel = o.channel(&o.bob, "dev", &[&o.alice, &o.bob], &[]).await;
    let id = o
        .send_channel(&o.bob, "dev", "build", "hi @**Alice Ant** <b>&</b>")
        .await;
    assert_eq!(
        o.message_push(&o.alice, id, Trigger::Mentioned).await,
        PushOutcome::Sent
    );
    let sent = pushes_of(&bouncer, id, 1).await;
    let r = &sent[0];
    assert_eq!(r.server.as_deref(), Some(creds.zulip_org_id.as_str()));
    assert_eq!(r.json["user_id"], json!(o.alice.id));
    assert_eq!(r.json["realm_uuid"], json!(creds.realm_uuid));
    assert_eq!(r.json["android_devices"], json!([FCM]));
    assert_eq!(r.json["apple_devices"], json!([APNS]));
    assert_eq!(r.json["gcm_options"], json!({"priority": "high"}));
    let m = o.message_as(&o.alice, id).await;
    let (gcm, apns) = payloads(r);
    let s = |v: i64| v.to_string();
    let expected_gcm = json!({
        "server": "outpost.test",
        "realm_id": "1",
        "realm_uri": "http://outpost.test",
        "realm_url": "http://outpost.test",
        "realm_name": o.srv.state.config.chat.realm_name,
        "user_id": s(o.alice.id),
        "sender_id": s(o.bob.id),
        "sender_email": m["sender_email"],
        "sender_full_name": "Bob Bee",
        "sender_avatar_url": m["avatar_url"],
        "time": s(m["timestamp"].as_i64().unwrap()),
        "recipient_type": "stream",
        "stream": "dev",
        "stream_id": s(channel),
        "topic": "build",
        "event": "message",
        "zulip_message_id": s(id),
        "content": "hi @Alice Ant <b>&</b>",
        "content_truncated": "False",
    });
    assert_eq!(gcm, &expected_gcm);
    assert_eq!(apns["alert"]["title"], "#dev > build");
    assert_eq!(apns["alert"]["subtitle"], "Bob Bee mentioned you:");
    assert_eq!(apns["alert"]["body"], "hi @Alice Ant <b>&</b>");
    assert_eq!(
        (&apns["sound"], &apns["badge"]),
        (&json!("default"), &json!(0))
    );
    let zulip = &apns["custom"]["zulip"];
    assert_eq!(zulip["message_ids"], json!([id]));
    assert_eq!(zulip["stream_id"], json!(channel));
    assert_eq!(zulip["sender_id"], json!(o.bob.id));
    assert_eq!(zulip["recipient_type"], "stream");
    assert!(zulip.get("content").is_none());
    assert_eq!(bouncer.problems(), Vec::<String>::new());

    // A group mention names the group.
    let members = json!([o.alice.id, o.bob.id]).to_string();
    let form = [
        ("name", "builders"),
        ("description", "They build"),
        ("members", members.as_str()),
    ];
    let r = o
        .srv
        .post("/api/v1/user_groups/create", &o.owner, &form)
        .await;
    let group = r.assert_success("POST /user_groups/create")["group_id"]
        .as_i64()
        .unwrap();
    let core = &o.srv.state.core;
    let out = push::send_message_push(
        core,
        UserId(o.alice.id),
        MessageId(id),
        Trigger::Mentioned,
        Some(outpost::ids::GroupId(group)),
    )
    .await
    .unwrap();
    assert_eq!(out, PushOutcome::Sent);
    let sent = pushes_of(&bouncer, id, 2).await;
    let named = sent
        .iter()
        .find(|r| {
            r.json["gcm_payload"]
                .get("mentioned_user_group_id")
                .is_some()
        })
        .expect("the push naming the group");
    let (gcm, apns) = payloads(named);
    assert_eq!(gcm["mentioned_user_group_id"], json!(group.to_string()));
    assert_eq!(gcm["mentioned_user_group_name"], "builders");
    assert_eq!(
        apns["custom"]["zulip"]["mentioned_user_group_id"],
        json!(group)
    );
    assert_eq!(apns["alert"]["subtitle"], "Bob Bee mentioned @builders:");

    // A user without devices gets nothing.
    assert_eq!(
        o.message_push(&o.bob, id, Trigger::StreamPushNotify).await,
        PushOutcome::NothingToSend
    );
}

#[tokio::test]
async fn direct_messages_push_upstreams_titles() {
    let bouncer = Bouncer::start().await;
    let (o, _) = pushed_org(&bouncer).await;
    o.add_tokens(&o.alice).await;
    bouncer.wait_for("push/register", 2).await;
    let long = "x".repeat(250);
    let dm = o.send_dm(&o.bob, &[&o.alice], &long).await;
    assert_eq!(
        o.message_push(&o.alice, dm, Trigger::DirectMessage).await,
        PushOutcome::Sent
    );
    let group = o.send_dm(&o.bob, &[&o.alice, &o.owner], "lunch?").await;
    assert_eq!(
        o.message_push(&o.alice, group, Trigger::DirectMessage)
            .await,
        PushOutcome::Sent
    );
    let one = pushes_of(&bouncer, dm, 1).await;
    let (gcm, apns) = payloads(&one[0]);
    assert_eq!(gcm["recipient_type"], "private");
    assert!(gcm.get("pm_users").is_none() && gcm.get("stream").is_none());
    assert_eq!(gcm["content"], json!(format!("{}…", "x".repeat(200))));
    assert_eq!(gcm["content_truncated"], "True");
    assert_eq!(apns["alert"]["title"], "Bob Bee");
    assert_eq!(apns["alert"]["subtitle"], "");

    let several = pushes_of(&bouncer, group, 1).await;
    let (gcm, apns) = payloads(&several[0]);
    let mut ids = [o.alice.id, o.bob.id, o.owner.id];
    ids.sort_unstable();
    let pm_users = ids.map(|i| i.to_string()).join(",");
    assert_eq!(gcm["pm_users"], json!(pm_users));
    assert_eq!(gcm["content"], "lunch?");
    assert_eq!(apns["alert"]["title"], "Alice Ant, Bob Bee, Olive Owner");
    assert_eq!(apns["alert"]["subtitle"], "Bob Bee:");
    assert_eq!(apns["custom"]["zulip"]["pm_users"], json!(pm_users));
    assert_eq!(bouncer.problems(), Vec::<String>::new());
}

#[tokio::test]
async fn removes_deleted_devices_and_the_realm_state() {
    let bouncer = Bouncer::start().await;
    let (o, _) = pushed_org(&bouncer).await;
    o.add_tokens(&o.alice).await;
    bouncer.wait_for("push/register", 2).await;
    let core = &o.srv.state.core;
    let ids = [MessageId(30), MessageId(10), MessageId(20)];
    let out = push::send_remove_push(core, UserId(o.alice.id), &ids)
        .await
        .unwrap();
    assert_eq!(out, PushOutcome::Sent);
    let sent = bouncer.wait_for("push/notify", 1).await;
    let (gcm, apns) = payloads(&sent[0]);
    assert_eq!(gcm["event"], "remove");
    assert_eq!(gcm["zulip_message_ids"], "10,20,30");
    assert_eq!(gcm["zulip_message_id"], "10");
    assert_eq!(gcm["user_id"], json!(o.alice.id.to_string()));
    assert!(gcm.get("sender_id").is_none());
    assert_eq!(sent[0].json["gcm_options"], json!({"priority": "normal"}));
    assert_eq!(apns["badge"], 0);
    assert!(apns.get("alert").is_none());
    assert_eq!(apns["custom"]["zulip"]["zulip_message_ids"], "10,20,30");
    assert_eq!(apns["custom"]["zulip"]["event"], "remove");

    let queue = register_queue(&o.srv, &o.bob, &[("event_types", r#"["realm"]"#)]).await;
    // The service forgot the FCM token and says when pushes end.
    bouncer.forget_device(o.alice.id, 2, FCM);
    bouncer.set_realm(Some((true, Some(1_900_000_000))));
    let out = push::send_remove_push(core, UserId(o.alice.id), &ids)
        .await
        .unwrap();
    assert_eq!(out, PushOutcome::Sent);
    let (tokens, _) = push::devices_of(core, UserId(o.alice.id)).await.unwrap();
    assert_eq!(
        tokens.iter().map(|t| t.token.as_str()).collect::<Vec<_>>(),
        [APNS]
    );
    let state = o.srv.post("/api/v1/register", &o.alice, &[]).await;
    assert_eq!(state.body["realm_push_notifications_enabled"], true);
    assert_eq!(
        state.body["realm_push_notifications_enabled_end_timestamp"],
        1_900_000_000
    );
    // A plan without push: the realm is told so.
    bouncer.disallow(true);
    let out = push::send_remove_push(core, UserId(o.alice.id), &ids)
        .await
        .unwrap();
    assert!(
        matches!(
            out,
            PushOutcome::Failed {
                permanent: true,
                ..
            }
        ),
        "{out:?}"
    );
    let state = o.srv.post("/api/v1/register", &o.alice, &[]).await;
    assert_eq!(state.body["realm_push_notifications_enabled"], false);
    assert_eq!(
        state.body["realm_push_notifications_enabled_end_timestamp"],
        Value::Null
    );
    // Clients were told each change.
    let events = wait_events(&o, &o.bob, &queue, 3).await;
    let data: Vec<&Value> = events.iter().map(|e| &e["data"]).collect();
    assert_eq!(
        data,
        [
            &json!({"push_notifications_enabled_end_timestamp": 1_900_000_000}),
            &json!({"push_notifications_enabled": false}),
            &json!({"push_notifications_enabled_end_timestamp": null}),
        ]
    );
    // A failing service: try again later.
    bouncer.disallow(false);
    bouncer.fail(1, 502);
    let out = push::send_remove_push(core, UserId(o.alice.id), &ids)
        .await
        .unwrap();
    assert!(matches!(out, PushOutcome::RetryLater(_)), "{out:?}");
    assert_eq!(bouncer.problems(), Vec::<String>::new());
}

#[tokio::test]
async fn the_test_notification_reaches_each_device() {
    let bouncer = Bouncer::start().await;
    let (o, creds) = pushed_org(&bouncer).await;
    let path = "/api/v1/mobile_push/test_notification";
    o.add_tokens(&o.alice).await;
    bouncer.wait_for("push/register", 2).await;
    o.srv
        .post(path, &o.alice, &[])
        .await
        .assert_success("POST /mobile_push/test_notification");
    let got = bouncer.wait_for("push/test_notification", 2).await;
    let fcm = got.iter().find(|r| r.json["token"] == FCM).unwrap();
    assert_eq!(fcm.json["token_kind"], 2);
    assert_eq!(fcm.json["user_id"], json!(o.alice.id));
    assert_eq!(fcm.json["realm_uuid"], json!(creds.realm_uuid));
    assert_eq!(fcm.json["base_payload"]["realm_url"], "http://outpost.test");
    assert_eq!(fcm.json["base_payload"]["user_id"], json!(o.alice.id));

    o.srv
        .post(path, &o.alice, &[("token", APNS)])
        .await
        .assert_success("POST /mobile_push/test_notification");
    let r = o.srv.post(path, &o.alice, &[("token", "unknown")]).await;
    r.assert_error(400, "INVALID_PUSH_DEVICE_TOKEN");
    assert_eq!(r.body["msg"], "Device not recognized");
    bouncer.forget_device(o.alice.id, 1, APNS);
    let r = o.srv.post(path, &o.alice, &[("token", APNS)]).await;
    r.assert_error(400, "INVALID_REMOTE_PUSH_DEVICE_TOKEN");
    assert_eq!(r.body["msg"], "Device not recognized by the push bouncer");
    bouncer.fail(1, 503);
    let r = o.srv.post(path, &o.alice, &[("token", FCM)]).await;
    assert_eq!(r.status, 502, "{}", r.body);
    assert_eq!(
        r.body["msg"],
        "Network error while connecting to Zulip push notification service."
    );
    // No devices: nothing to send, as upstream.
    o.srv
        .post(path, &o.bob, &[])
        .await
        .assert_success("POST /mobile_push/test_notification");
    assert_eq!(bouncer.problems(), Vec::<String>::new());
}

#[tokio::test]
async fn push_flags_say_the_truth() {
    let bouncer = Bouncer::start().await;
    let url = bouncer.url();
    // Enabled but never registered: not configured.
    let o = org_with(|c| {
        c.push.enabled = true;
        c.push.bouncer_url = url;
    })
    .await;
    assert_eq!(flags(&o).await, (json!(false), json!(false), Value::Null));
    o.srv
        .post(
            "/api/v1/users/me/android_gcm_reg_id",
            &o.alice,
            &[("token", FCM)],
        )
        .await
        .assert_success("POST /users/me/android_gcm_reg_id");
    let creds = Credentials::generate();
    credentials::store(&o.srv.state.config.data_dir, &creds).unwrap();
    assert_eq!(flags(&o).await, (json!(true), json!(true), Value::Null));
    // The token added before the registration was not forwarded.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(bouncer.got_at("push/register").is_empty());
}

async fn flags(o: &Org) -> (Value, Value, Value) {
    let settings = o.srv.get("/api/v1/server_settings", &o.alice, &[]).await;
    let state = o.srv.post("/api/v1/register", &o.alice, &[]).await;
    (
        settings.body["push_notifications_enabled"].clone(),
        state.body["realm_push_notifications_enabled"].clone(),
        state.body["realm_push_notifications_enabled_end_timestamp"].clone(),
    )
}

fn write_config(dir: &std::path::Path, bouncer: &str) -> std::path::PathBuf {
    let path = dir.join("outpost.toml");
    let data = dir.join("data");
    std::fs::write(
        &path,
        format!(
            "data_dir = {:?}\n[chat]\nexternal_url = \"https://chat.example.com:8443\"\n\
             [push]\nenabled = true\nbouncer_url = \"{bouncer}/\"\n",
            data.display().to_string()
        ),
    )
    .unwrap();
    path
}

async fn run(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || {
        let mut cmd = Command::new(BIN);
        cmd.args(&args);
        for v in [
            "http_proxy",
            "https_proxy",
            "all_proxy",
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
        ] {
            cmd.env_remove(v);
        }
        cmd.output().unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_register_registers_the_server() {
    let bouncer = Bouncer::start().await;
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), &bouncer.url());
    let data = tmp.path().join("data");
    let args = |extra: &[&str]| {
        let mut a: Vec<String> = ["push", "register", "--config"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.push(config.display().to_string());
        a.extend(["--contact-email", "admin@example.com"].map(String::from));
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    // Without agreeing to the terms nothing is sent or stored.
    let out = run(args(&[])).await;
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("https://zulip.com/policies/terms"),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--agree-to-terms-of-service"));
    assert!(bouncer.got().is_empty());
    assert!(!credentials::path(&data).exists());

    let out = run(args(&["--agree-to-terms-of-service"])).await;
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Registered chat.example.com:8443"),
        "{stdout}"
    );
    let file = credentials::path(&data);
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&file), mode(file.parent().unwrap())), (0o600, 0o700));
    let creds = credentials::load(&data).unwrap().unwrap();
    assert!(!stdout.contains(&creds.zulip_org_key));
    let reg = &bouncer.got_at("server/register")[0];
    assert_eq!(reg.server, None);
    assert!(reg.user_agent.starts_with("ZulipServer/"));
    assert_eq!(reg.field("zulip_org_id"), Some(creds.zulip_org_id.as_str()));
    assert_eq!(
        reg.field("zulip_org_key"),
        Some(creds.zulip_org_key.as_str())
    );
    assert_eq!(reg.field("hostname"), Some("chat.example.com:8443"));
    assert_eq!(reg.field("contact_email"), Some("admin@example.com"));

    // Again: the same credentials, a renewal.
    let out = run(args(&["--agree-to-terms-of-service"])).await;
    assert!(String::from_utf8_lossy(&out.stdout).contains("Renewed"));
    assert_eq!(credentials::load(&data).unwrap().unwrap(), creds);

    // A new key, stored once the service took it.
    let out = run(args(&["--agree-to-terms-of-service", "--rotate-key"])).await;
    assert!(out.status.success());
    let rotated = credentials::load(&data).unwrap().unwrap();
    assert_eq!(rotated.zulip_org_id, creds.zulip_org_id);
    assert_ne!(rotated.zulip_org_key, creds.zulip_org_key);
    let reg = bouncer.got_at("server/register");
    assert_eq!(
        reg[2].field("new_org_key"),
        Some(rotated.zulip_org_key.as_str())
    );
    assert_eq!(
        reg[2].field("zulip_org_key"),
        Some(creds.zulip_org_key.as_str())
    );

    // A service that fails: an error, the stored key unchanged.
    bouncer.fail(1, 503);
    let out = run(args(&["--agree-to-terms-of-service", "--rotate-key"])).await;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("try again later"));
    assert_eq!(credentials::load(&data).unwrap().unwrap(), rotated);
    assert_eq!(bouncer.problems(), Vec::<String>::new());
}
