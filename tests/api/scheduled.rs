//! Scheduled messages and reminders as clients use them: scheduling, listing, editing and
//! deleting, the `scheduled_messages` and `reminders` events and register keys, the timer that
//! sends an item at its time, the delivery pass with an explicit `now` (sent once, failed items
//! shown as failed), and bad input that changes nothing.

use std::time::Duration;

use serde_json::{Value, json};

use outpost::domain::scheduled::deliver_due;
use outpost::time::now_secs;

use crate::support::{Org, Reply, TestUser, org, org_with, wait_events};

/// Request parameters that differ from a good request.
type Form = Vec<(&'static str, String)>;

async fn schedule(o: &Org, who: &TestUser, form: &[(&str, &str)]) -> Reply {
    o.srv.post("/api/v1/scheduled_messages", who, form).await
}

/// Schedules a channel message; returns its id.
async fn schedule_channel(o: &Org, who: &TestUser, channel: i64, at: i64, content: &str) -> i64 {
    let (ch, at) = (channel.to_string(), at.to_string());
    let r = schedule(
        o,
        who,
        &[
            ("type", "stream"),
            ("to", &ch),
            ("topic", "plans"),
            ("content", content),
            ("scheduled_delivery_timestamp", &at),
        ],
    )
    .await;
    r.assert_success("POST /scheduled_messages")["scheduled_message_id"]
        .as_i64()
        .unwrap()
}

async fn listed(o: &Org, who: &TestUser) -> Vec<Value> {
    let r = o.srv.get("/api/v1/scheduled_messages", who, &[]).await;
    r.assert_success("GET /scheduled_messages")["scheduled_messages"]
        .as_array()
        .unwrap()
        .clone()
}

async fn reminders(o: &Org, who: &TestUser) -> Vec<Value> {
    let r = o.srv.get("/api/v1/reminders", who, &[]).await;
    r.assert_success("GET /reminders")["reminders"]
        .as_array()
        .unwrap()
        .clone()
}

/// The newest messages of a narrow, as `who` reads them (Markdown source).
async fn newest(o: &Org, who: &TestUser, narrow: Value, n: usize) -> Vec<Value> {
    o.raw_messages(who, narrow, n).await
}

fn of_type<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

#[tokio::test]
async fn the_timer_sends_a_scheduled_message_within_a_second_of_its_time() {
    let o = org().await;
    let ch = o
        .channel(&o.owner, "timed", &[&o.owner, &o.alice], &[])
        .await;
    let (q, _) = o
        .register(&o.alice, &[("event_types", r#"["message"]"#)])
        .await;
    let at = now_secs() + 2;
    let id = schedule_channel(&o, &o.owner, ch, at, "right on time").await;
    // Until its time it is only listed, not sent.
    let list = listed(&o, &o.owner).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["scheduled_message_id"], id);
    // A client polls its queue; the message must arrive within a second of its time.
    let deadline = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(at as u64 + 1);
    let message = loop {
        let evs = o.events(&o.alice, &q, -1).await;
        if let Some(m) = evs.iter().find(|e| e["type"] == "message") {
            break m["message"].clone();
        }
        assert!(
            std::time::SystemTime::now() < deadline,
            "the scheduled message did not arrive within a second of its time"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(message["content"], "right on time");
    assert_eq!(message["sender_id"], o.owner.id);
    assert_eq!(message["subject"], "plans");
    let sent_at = message["timestamp"].as_i64().unwrap();
    assert!(
        (at..=at + 1).contains(&sent_at),
        "sent at {sent_at}, due {at}"
    );
    // Sent messages leave the list.
    assert!(listed(&o, &o.owner).await.is_empty());
}

#[tokio::test]
async fn scheduling_lists_edits_deletes_and_announces_each_step() {
    let o = org().await;
    let ch = o
        .channel(&o.owner, "later", &[&o.owner, &o.alice], &[])
        .await;
    let (q, state) = o
        .register(
            &o.owner,
            &[("event_types", r#"["scheduled_messages", "reminders"]"#)],
        )
        .await;
    assert_eq!(state["scheduled_messages"], json!([]));
    assert_eq!(state["reminders"], json!([]));
    let at = now_secs() + 3600;
    let id = schedule_channel(&o, &o.owner, ch, at, "**soon**").await;
    let ids = json!([o.alice.id]).to_string();
    let at2 = (at + 60).to_string();
    let r = schedule(
        &o,
        &o.owner,
        &[
            ("type", "direct"),
            ("to", &ids),
            ("content", "psst"),
            ("scheduled_delivery_timestamp", &at2),
        ],
    )
    .await;
    let dm = r.assert_success("POST /scheduled_messages")["scheduled_message_id"]
        .as_i64()
        .unwrap();
    assert_ne!(id, dm);
    let list = listed(&o, &o.owner).await;
    assert_eq!(
        list,
        vec![
            json!({
                "scheduled_message_id": id, "type": "stream", "to": ch, "topic": "plans",
                "content": "**soon**", "rendered_content": "<p><strong>soon</strong></p>",
                "scheduled_delivery_timestamp": at, "failed": false,
            }),
            json!({
                "scheduled_message_id": dm, "type": "private", "to": [o.alice.id],
                "content": "psst", "rendered_content": "<p>psst</p>",
                "scheduled_delivery_timestamp": at + 60, "failed": false,
            }),
        ]
    );
    // Nobody else sees them.
    assert!(listed(&o, &o.alice).await.is_empty());
    // Edit content and time.
    let at3 = (at + 120).to_string();
    let r = o
        .srv
        .patch(
            &format!("/api/v1/scheduled_messages/{id}"),
            &o.owner,
            &[
                ("content", "edited"),
                ("scheduled_delivery_timestamp", &at3),
            ],
        )
        .await;
    r.assert_success("PATCH /scheduled_messages/{scheduled_message_id}");
    let list = listed(&o, &o.owner).await;
    assert_eq!(list[0]["scheduled_message_id"], dm, "reordered by time");
    assert_eq!(list[1]["content"], "edited");
    assert_eq!(list[1]["scheduled_delivery_timestamp"], at + 120);
    // Someone else cannot touch it.
    let r = o
        .srv
        .delete(&format!("/api/v1/scheduled_messages/{id}"), &o.alice, &[])
        .await;
    assert_eq!(
        r.assert_error(404, "BAD_REQUEST")["msg"],
        "Scheduled message does not exist"
    );
    let r = o
        .srv
        .delete(&format!("/api/v1/scheduled_messages/{id}"), &o.owner, &[])
        .await;
    r.assert_success("DELETE /scheduled_messages/{scheduled_message_id}");
    assert_eq!(listed(&o, &o.owner).await.len(), 1);
    let evs = wait_events(&o, &o.owner, &q, 4).await;
    let ops: Vec<(&str, &str)> = of_type(&evs, "scheduled_messages")
        .iter()
        .map(|e| (e["op"].as_str().unwrap(), e["type"].as_str().unwrap()))
        .collect();
    assert_eq!(
        ops,
        vec![
            ("add", "scheduled_messages"),
            ("add", "scheduled_messages"),
            ("update", "scheduled_messages"),
            ("remove", "scheduled_messages"),
        ]
    );
    assert_eq!(evs[0]["scheduled_messages"][0]["scheduled_message_id"], id);
    assert_eq!(evs[2]["scheduled_message"]["content"], "edited");
    assert_eq!(evs[3]["scheduled_message_id"], id);
    // Register returns what is still scheduled.
    let (_, state) = o
        .register(&o.owner, &[("event_types", r#"["scheduled_messages"]"#)])
        .await;
    assert_eq!(
        state["scheduled_messages"][0]["scheduled_message_id"], dm,
        "{state}"
    );
}

#[tokio::test]
async fn the_delivery_pass_sends_due_items_once_as_their_sender() {
    let o = org().await;
    let ch = o
        .channel(&o.owner, "pass", &[&o.owner, &o.alice], &[])
        .await;
    let at = now_secs() + 3600;
    let id = schedule_channel(&o, &o.owner, ch, at, "from the future").await;
    let ids = json!([o.alice.id]).to_string();
    let at_s = at.to_string();
    schedule(
        &o,
        &o.owner,
        &[
            ("type", "private"),
            ("to", &ids),
            ("content", "a direct one"),
            ("scheduled_delivery_timestamp", &at_s),
            ("read_by_sender", "true"),
        ],
    )
    .await
    .assert_success("POST /scheduled_messages");
    let (q, _) = o
        .register(&o.owner, &[("event_types", r#"["scheduled_messages"]"#)])
        .await;
    // A second early: nothing is due.
    let (sent, next) = deliver_due(&o.srv.state, at - 1).await.unwrap();
    assert_eq!((sent, next), (0, Some(at)));
    let (sent, next) = deliver_due(&o.srv.state, at).await.unwrap();
    assert_eq!((sent, next), (2, None));
    // Again (as after a crash and restart): nothing is sent twice.
    let (sent, _) = deliver_due(&o.srv.state, at + 10).await.unwrap();
    assert_eq!(sent, 0);
    let channel_msgs = newest(&o, &o.alice, json!([["channel", "pass"]]), 10).await;
    let texts: Vec<&Value> = channel_msgs
        .iter()
        .filter(|m| m["sender_id"] == o.owner.id)
        .map(|m| &m["content"])
        .collect();
    assert_eq!(texts, vec!["from the future"]);
    let dms = newest(&o, &o.alice, json!([["dm", [o.owner.id]]]), 10).await;
    assert_eq!(dms.len(), 1);
    assert_eq!(dms[0]["content"], "a direct one");
    assert!(listed(&o, &o.owner).await.is_empty());
    let evs = wait_events(&o, &o.owner, &q, 2).await;
    let removed: Vec<&Value> = evs
        .iter()
        .filter(|e| e["op"] == "remove")
        .map(|e| &e["scheduled_message_id"])
        .collect();
    assert_eq!(removed.len(), 2);
    assert!(removed.contains(&&json!(id)));
}

#[tokio::test]
async fn an_undeliverable_message_is_marked_failed_and_can_be_rescheduled() {
    let o = org().await;
    let ch = o.channel(&o.owner, "doomed", &[&o.owner], &[]).await;
    let at = now_secs() + 3600;
    let id = schedule_channel(&o, &o.owner, ch, at, "never sent").await;
    let ids = json!([o.bob.id]).to_string();
    let at_s = at.to_string();
    let r = schedule(
        &o,
        &o.alice,
        &[
            ("type", "direct"),
            ("to", &ids),
            ("content", "from a leaver"),
            ("scheduled_delivery_timestamp", &at_s),
        ],
    )
    .await;
    r.assert_success("POST /scheduled_messages");
    let (q, _) = o
        .register(&o.owner, &[("event_types", r#"["scheduled_messages"]"#)])
        .await;
    o.srv
        .delete(&format!("/api/v1/streams/{ch}"), &o.owner, &[])
        .await
        .assert_success("DELETE /streams/{stream_id}");
    o.srv
        .delete(&format!("/api/v1/users/{}", o.alice.id), &o.owner, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    let (sent, next) = deliver_due(&o.srv.state, at).await.unwrap();
    assert_eq!((sent, next), (0, None));
    let list = listed(&o, &o.owner).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["scheduled_message_id"], id);
    assert_eq!(list[0]["failed"], true);
    let evs = wait_events(&o, &o.owner, &q, 1).await;
    assert_eq!(evs[0]["op"], "update");
    assert_eq!(evs[0]["scheduled_message"]["failed"], true);
    // Nothing reached Bob from the deactivated sender.
    let dms = newest(&o, &o.bob, json!([["dm", [o.alice.id]]]), 5).await;
    assert!(dms.is_empty(), "{dms:?}");
    // A failed message needs a new time to be edited; then it is pending again.
    let r = o
        .srv
        .patch(
            &format!("/api/v1/scheduled_messages/{id}"),
            &o.owner,
            &[("content", "retry")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Scheduled delivery time must be in the future."
    );
}

#[tokio::test]
async fn bad_scheduled_messages_are_refused_and_change_nothing() {
    let o = org_with(|c| c.limits.max_scheduled_messages_per_user = 1).await;
    let ch = o.channel(&o.owner, "rules", &[&o.owner], &[]).await;
    let private = o
        .channel(&o.admin, "secret", &[&o.admin], &[("invite_only", "true")])
        .await;
    let now = now_secs();
    let future = (now + 3600).to_string();
    let ch_s = ch.to_string();
    let cases: Vec<(Form, &str, &str)> = vec![
        (
            vec![("scheduled_delivery_timestamp", (now - 10).to_string())],
            "BAD_REQUEST",
            "Scheduled delivery time must be in the future.",
        ),
        (
            vec![("scheduled_delivery_timestamp", "99999999999999".into())],
            "BAD_REQUEST",
            "Invalid scheduled_delivery_timestamp",
        ),
        (
            vec![("to", "999999".into())],
            "STREAM_DOES_NOT_EXIST",
            "Channel with ID '999999' does not exist",
        ),
        (
            vec![("to", private.to_string())],
            "STREAM_DOES_NOT_EXIST",
            "",
        ),
        (
            vec![("to", format!("[{ch}]"))],
            "BAD_REQUEST",
            "Invalid data type for channel ID",
        ),
        (
            vec![("type", "direct".into()), ("to", "[999999]".into())],
            "BAD_REQUEST",
            "Invalid user ID 999999",
        ),
        (
            vec![("type", "direct".into()), ("to", o.bob.id.to_string())],
            "BAD_REQUEST",
            "Invalid data type for recipients",
        ),
        (
            vec![("content", " ".into())],
            "BAD_REQUEST",
            "Message must not be empty",
        ),
    ];
    for (changes, code, msg) in cases {
        let mut form: Vec<(&str, String)> = vec![
            ("type", "stream".into()),
            ("to", ch_s.clone()),
            ("topic", "t".into()),
            ("content", "hello".into()),
            ("scheduled_delivery_timestamp", future.clone()),
        ];
        for (k, v) in changes {
            form.retain(|(n, _)| *n != k);
            form.push((k, v));
        }
        let borrowed: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = schedule(&o, &o.owner, &borrowed).await;
        let b = r.assert_error(400, code);
        if !msg.is_empty() {
            assert_eq!(b["msg"], msg, "{form:?}");
        }
        if code == "STREAM_DOES_NOT_EXIST" {
            assert!(b["stream_id"].is_i64(), "{b}");
        }
    }
    assert!(listed(&o, &o.owner).await.is_empty());
    // The per-user limit.
    let id = schedule_channel(&o, &o.owner, ch, now + 3600, "one").await;
    let r = schedule(
        &o,
        &o.owner,
        &[
            ("type", "stream"),
            ("to", &ch_s),
            ("topic", "t"),
            ("content", "two"),
            ("scheduled_delivery_timestamp", &future),
        ],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "You may have at most 1 scheduled messages."
    );
    // Bad edits leave the message as it was.
    let path = format!("/api/v1/scheduled_messages/{id}");
    let past = (now - 5).to_string();
    for (form, msg) in [
        (vec![], "Nothing to change"),
        (
            vec![("scheduled_delivery_timestamp", past.as_str())],
            "Scheduled delivery time must be in the future.",
        ),
        (
            vec![("type", "direct")],
            "Recipient required when updating type of scheduled message.",
        ),
        (
            vec![("type", "stream"), ("to", "999999")],
            "Topic required when updating scheduled message type to stream.",
        ),
    ] {
        let r = o.srv.patch(&path, &o.owner, &form).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    let r = o
        .srv
        .patch(&path, &o.owner, &[("to", "999999"), ("content", "x")])
        .await;
    assert_eq!(
        r.assert_error(400, "STREAM_DOES_NOT_EXIST")["stream_id"],
        999999
    );
    let r = o
        .srv
        .patch(
            "/api/v1/scheduled_messages/999999",
            &o.owner,
            &[("content", "x")],
        )
        .await;
    assert_eq!(
        r.assert_error(404, "BAD_REQUEST")["msg"],
        "Scheduled message does not exist"
    );
    let list = listed(&o, &o.owner).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["content"], "one");
    assert_eq!(list[0]["to"], ch);
}

#[tokio::test]
async fn a_reminder_is_sent_by_notification_bot_with_the_link_and_the_note() {
    let o = org().await;
    let ch = o
        .channel(&o.owner, "design", &[&o.owner, &o.alice], &[])
        .await;
    let msg = o
        .send_channel(&o.alice, "design", "logo", "Pick a colour")
        .await;
    let (q, state) = o
        .register(&o.owner, &[("event_types", r#"["reminders", "realm"]"#)])
        .await;
    assert_eq!(state["max_reminder_note_length"], 1000);
    let at = now_secs() + 3600;
    let (msg_s, at_s) = (msg.to_string(), at.to_string());
    let r = o
        .srv
        .post(
            "/api/v1/reminders",
            &o.owner,
            &[
                ("message_id", &msg_s),
                ("scheduled_delivery_timestamp", &at_s),
                ("note", "decide today"),
            ],
        )
        .await;
    let id = r.assert_success("POST /reminders")["reminder_id"]
        .as_i64()
        .unwrap();
    let list = reminders(&o, &o.owner).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["reminder_id"], id);
    assert_eq!(list[0]["reminder_target_message_id"], msg);
    assert_eq!(list[0]["to"], json!([o.owner.id]));
    assert_eq!(list[0]["failed"], false);
    let expected = format!(
        "You requested a reminder for the following message. Note:\n > decide today\n\n\
         @_**Alice Ant|{alice}** [said](http://outpost.test/#narrow/channel/{ch}-design/topic/logo/near/{msg}) \
         in #**design>logo@{msg}**:\n```quote\nPick a colour\n```",
        alice = o.alice.id,
    );
    assert_eq!(list[0]["content"], expected.as_str());
    assert!(reminders(&o, &o.alice).await.is_empty());
    let (sent, _) = deliver_due(&o.srv.state, at).await.unwrap();
    assert_eq!(sent, 1);
    assert!(reminders(&o, &o.owner).await.is_empty());
    let dm = o
        .raw_messages(&o.owner, json!([["is", "dm"]]), 1)
        .await
        .remove(0);
    assert_eq!(dm["sender_email"], "notification-bot@zulip.com");
    assert_eq!(dm["content"], expected.as_str());
    assert_eq!(dm["flags"], json!([]), "the reminder arrives unread");
    let evs = wait_events(&o, &o.owner, &q, 2).await;
    let r_evs = of_type(&evs, "reminders");
    assert_eq!(r_evs[0]["op"], "add");
    assert_eq!(r_evs[0]["reminders"][0]["reminder_id"], id);
    assert_eq!(r_evs[1]["op"], "remove");
    assert_eq!(r_evs[1]["reminder_id"], id);
}

#[tokio::test]
async fn reminders_are_deleted_and_bad_ones_refused() {
    let o = org_with(|c| {
        c.limits.max_reminder_note_length = 10;
        c.limits.max_reminders_per_user = 1;
    })
    .await;
    o.channel(&o.admin, "secret", &[&o.admin], &[("invite_only", "true")])
        .await;
    let hidden = o.send_channel(&o.admin, "secret", "t", "hidden").await;
    let mine = o.send_dm(&o.owner, &[&o.alice], "mine").await;
    let future = (now_secs() + 3600).to_string();
    let past = (now_secs() - 1).to_string();
    let (mine_s, hidden_s) = (mine.to_string(), hidden.to_string());
    for (form, msg) in [
        (
            vec![
                ("message_id", hidden_s.as_str()),
                ("scheduled_delivery_timestamp", &future),
            ],
            "Invalid message(s)",
        ),
        (
            vec![
                ("message_id", "999999"),
                ("scheduled_delivery_timestamp", &future),
            ],
            "Invalid message(s)",
        ),
        (
            vec![
                ("message_id", mine_s.as_str()),
                ("scheduled_delivery_timestamp", &past),
            ],
            "Scheduled delivery time must be in the future.",
        ),
        (
            vec![
                ("message_id", mine_s.as_str()),
                ("scheduled_delivery_timestamp", &future),
                ("note", "eleven char"),
            ],
            "Maximum reminder note length: 10 characters",
        ),
    ] {
        let r = o.srv.post("/api/v1/reminders", &o.owner, &form).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg, "{form:?}");
    }
    assert!(reminders(&o, &o.owner).await.is_empty());
    let form = [
        ("message_id", mine_s.as_str()),
        ("scheduled_delivery_timestamp", future.as_str()),
    ];
    let r = o.srv.post("/api/v1/reminders", &o.owner, &form).await;
    let id = r.assert_success("POST /reminders")["reminder_id"]
        .as_i64()
        .unwrap();
    assert!(
        reminders(&o, &o.owner).await[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("You requested a reminder for the following direct message.\n\n")
    );
    let r = o.srv.post("/api/v1/reminders", &o.owner, &form).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "You may have at most 1 reminders."
    );
    // A reminder is no scheduled message, and only its owner may delete it.
    let r = o
        .srv
        .delete(&format!("/api/v1/scheduled_messages/{id}"), &o.owner, &[])
        .await;
    r.assert_error(404, "BAD_REQUEST");
    let r = o
        .srv
        .delete(&format!("/api/v1/reminders/{id}"), &o.alice, &[])
        .await;
    assert_eq!(
        r.assert_error(404, "BAD_REQUEST")["msg"],
        "Reminder does not exist"
    );
    let r = o
        .srv
        .delete(&format!("/api/v1/reminders/{id}"), &o.owner, &[])
        .await;
    r.assert_success("DELETE /reminders/{reminder_id}");
    assert!(reminders(&o, &o.owner).await.is_empty());
}

#[tokio::test]
async fn overdue_items_go_out_as_soon_as_the_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = data.clone();
    let o = org_with(move |c| c.data_dir = d).await;
    let ch = o
        .channel(&o.owner, "overdue", &[&o.owner, &o.alice], &[])
        .await;
    let mut cfg = o.srv.state.config.clone();
    let (owner, alice) = (o.owner.clone(), o.alice.clone());
    o.srv.shutdown().await;
    // While the server is down, an item whose time has passed is stored (as if it had come due
    // during the outage): the domain function takes `now` as a parameter.
    cfg.chat.listen = "127.0.0.1:0".parse().unwrap();
    {
        let state = outpost::app::open(cfg).unwrap();
        let id = outpost::ids::UserId(owner.id);
        let user = state
            .db
            .read(move |c| outpost::db::users::get(c, id))
            .await
            .unwrap()
            .unwrap();
        let due = now_secs() - 60;
        outpost::domain::scheduled::create(
            &state,
            &user,
            outpost::domain::scheduled::NewScheduled {
                to: outpost::domain::scheduled::Destination::Channel(ch),
                topic: Some("late".into()),
                content: "sent after the outage".into(),
                deliver_at: due,
                read_by_sender: None,
                client: "test".into(),
            },
            due - 60,
        )
        .await
        .unwrap();
    }
    let o = org_restarted(data, owner, alice).await;
    // The start-up pass sends it without waiting for anything else.
    for _ in 0..100 {
        let msgs = newest(
            &o,
            &o.alice,
            json!([["channel", "overdue"], ["topic", "late"]]),
            5,
        )
        .await;
        if let Some(m) = msgs.first() {
            assert_eq!(m["content"], "sent after the outage");
            assert_eq!(msgs.len(), 1);
            assert!(listed(&o, &o.owner).await.is_empty());
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the overdue message was not sent at start-up");
}

/// A server on an existing data directory, with the two users the test needs.
async fn org_restarted(data: std::path::PathBuf, owner: TestUser, alice: TestUser) -> Org {
    let srv = crate::support::TestServer::start_with(move |c| c.data_dir = data).await;
    Org {
        srv,
        admin: owner.clone(),
        bob: alice.clone(),
        guest: alice.clone(),
        owner,
        alice,
    }
}

#[tokio::test]
async fn items_whose_sender_lost_access_or_left_fail_including_reminders() {
    let o = org().await;
    let private = o
        .channel(
            &o.admin,
            "inner",
            &[&o.admin, &o.bob],
            &[("invite_only", "true")],
        )
        .await;
    let at = now_secs() + 3600;
    let id = schedule_channel(&o, &o.bob, private, at, "inside news").await;
    let note_msg = o.send_dm(&o.alice, &[&o.bob], "call me").await;
    let (msg_s, at_s) = (note_msg.to_string(), at.to_string());
    let r = o
        .srv
        .post(
            "/api/v1/reminders",
            &o.alice,
            &[
                ("message_id", &msg_s),
                ("scheduled_delivery_timestamp", &at_s),
            ],
        )
        .await;
    let reminder = r.assert_success("POST /reminders")["reminder_id"]
        .as_i64()
        .unwrap();
    // Bob leaves the private channel (no longer allowed to post); Alice is deactivated.
    let r = o
        .srv
        .delete(
            "/api/v1/users/me/subscriptions",
            &o.bob,
            &[("subscriptions", r#"["inner"]"#)],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    o.srv
        .delete(&format!("/api/v1/users/{}", o.alice.id), &o.owner, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    let (sent, next) = deliver_due(&o.srv.state, at).await.unwrap();
    assert_eq!((sent, next), (0, None));
    let list = listed(&o, &o.bob).await;
    assert_eq!(list[0]["scheduled_message_id"], id);
    assert_eq!(list[0]["failed"], true);
    let msgs = newest(&o, &o.admin, json!([["channel", "inner"]]), 10).await;
    assert!(
        msgs.iter().all(|m| m["content"] != "inside news"),
        "{msgs:?}"
    );
    // Alice's reminder failed too, and stays listed in what she would see.
    let items = o
        .srv
        .state
        .db
        .read(move |c| {
            outpost::db::scheduled::open_for(
                c,
                outpost::ids::UserId(o.alice.id),
                outpost::model::ScheduledKind::Reminder,
            )
        })
        .await
        .unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].id.0, reminder);
    assert_eq!(items[0].state, outpost::model::ScheduledState::Failed);
}
