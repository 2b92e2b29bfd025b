//! The system bots: Notification Bot's notices (new channels, subscriptions by others, moved
//! and resolved topics, new users) and Welcome Bot's welcome, as clients see them.

use serde_json::{Value, json};

use outpost::model::Role;

use crate::support::{TestUser, org};

const NOTIFICATION_BOT: &str = "notification-bot@zulip.com";
const WELCOME_BOT: &str = "welcome-bot@zulip.com";

fn flags(m: &Value) -> Vec<&str> {
    m["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect()
}

fn mention(name: &str, who: &TestUser) -> String {
    format!("@_**{name}|{}**", who.id)
}

#[tokio::test]
async fn the_system_bots_are_cross_realm_bots_and_no_members() {
    let o = org().await;
    let (_, b) = o.register(&o.alice, &[]).await;
    let bots = b["cross_realm_bots"].as_array().unwrap();
    let names: Vec<&str> = bots
        .iter()
        .map(|u| u["full_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Notification Bot", "Welcome Bot"]);
    for bot in bots {
        assert_eq!(bot["is_bot"], true);
        assert_eq!(bot["is_system_bot"], true);
        assert_eq!(bot["bot_type"], 1);
        assert_eq!(bot["bot_owner_id"], Value::Null);
        assert_eq!(bot["email"], bot["delivery_email"]);
    }
    assert_eq!(bots[0]["email"], NOTIFICATION_BOT);
    let bot_id = bots[0]["user_id"].as_i64().unwrap();
    // Not members: not listed, not addressable as users, not subscribable, no login.
    let realm_users = b["realm_users"].as_array().unwrap();
    assert!(realm_users.iter().all(|u| u["user_id"] != bot_id));
    let r = o.srv.get("/api/v1/users", &o.alice, &[]).await;
    let members = r.assert_success("GET /users")["members"]
        .as_array()
        .unwrap();
    assert!(members.iter().all(|u| u["user_id"] != bot_id));
    let r = o
        .srv
        .get(&format!("/api/v1/users/{bot_id}"), &o.alice, &[])
        .await;
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "No such user");
    let r = o
        .srv
        .get(&format!("/api/v1/users/{NOTIFICATION_BOT}"), &o.alice, &[])
        .await;
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "No such user");
    let principals = json!([bot_id]).to_string();
    let r = o
        .srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.admin,
            &[
                ("subscriptions", "[{\"name\": \"bots\"}]"),
                ("principals", principals.as_str()),
            ],
        )
        .await;
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "No such user");
    let r = o
        .srv
        .call(
            hyper::Method::POST,
            "/api/v1/fetch_api_key",
            None,
            &[
                ("username", NOTIFICATION_BOT),
                ("password", "not-its-password"),
            ],
        )
        .await;
    assert_eq!(r.status, 401);
    // But they can be written to, like upstream's, by id or address.
    let to = json!([NOTIFICATION_BOT]).to_string();
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.alice,
            &[
                ("type", "direct"),
                ("to", to.as_str()),
                ("content", "hello bot"),
            ],
        )
        .await;
    r.assert_success("POST /messages");
    let sent = o.raw_messages(&o.alice, json!([["dm", [bot_id]]]), 5).await;
    assert_eq!(sent.last().unwrap()["content"], "hello bot");
}

#[tokio::test]
async fn creating_channels_posts_the_creation_notice_and_the_announcement() {
    let o = org().await;
    let general = o
        .channel(&o.admin, "general", &[&o.admin, &o.alice, &o.bob], &[])
        .await;
    o.set_realm_channel("new_stream_announcements_stream_id", general)
        .await;
    o.subscribe(
        &o.alice,
        &["design"],
        &[
            ("announce", "true"),
            ("principals", &json!([o.alice.id, o.bob.id]).to_string()),
        ],
    )
    .await;
    let notice = &o
        .raw_messages(&o.bob, json!([["channel", "design"]]), 5)
        .await[0];
    assert_eq!(notice["sender_email"], NOTIFICATION_BOT);
    assert_eq!(notice["sender_full_name"], "Notification Bot");
    assert_eq!(notice["sender_realm_str"], "zulipinternal");
    assert_eq!(notice["subject"], "channel events");
    assert_eq!(
        notice["content"],
        format!(
            "**Public** channel created by {}. **Description:**\n```` quote\n*No description.*\n````",
            mention("Alice Ant", &o.alice)
        )
    );
    // Read for its creator, unread for the others.
    assert!(!flags(notice).contains(&"read"));
    let mine = &o
        .raw_messages(&o.alice, json!([["channel", "design"]]), 5)
        .await[0];
    assert!(flags(mine).contains(&"read"));
    let announced = o
        .raw_messages(
            &o.bob,
            json!([["channel", "general"], ["topic", "new channels"]]),
            5,
        )
        .await;
    assert_eq!(announced.len(), 1);
    assert_eq!(
        announced[0]["content"],
        format!(
            "{} created a new channel #**design**.",
            mention("Alice Ant", &o.alice)
        )
    );
    // Several at once are announced together; private ones say how their history is shared.
    o.subscribe(
        &o.alice,
        &["ops", "plans"],
        &[
            ("announce", "true"),
            ("invite_only", "true"),
            ("history_public_to_subscribers", "true"),
        ],
    )
    .await;
    let announced = o
        .raw_messages(
            &o.bob,
            json!([["channel", "general"], ["topic", "new channels"]]),
            5,
        )
        .await;
    assert_eq!(
        announced[1]["content"],
        format!(
            "{} created the following channels: #**ops**, #**plans**.",
            mention("Alice Ant", &o.alice)
        )
    );
    let notice = &o
        .raw_messages(&o.alice, json!([["channel", "ops"]]), 5)
        .await[0];
    assert!(
        notice["content"]
            .as_str()
            .unwrap()
            .starts_with("**Private, shared history** channel created by")
    );
    // Without `announce` there is no announcement, but still the creation notice, with the
    // description quoted.
    let id = o
        .channel(
            &o.admin,
            "vault",
            &[&o.admin],
            &[("invite_only", "true"), ("description", "Keys and locks")],
        )
        .await;
    let notice = &o.raw_messages(&o.admin, json!([["channel", id]]), 5).await[0];
    assert_eq!(
        notice["content"],
        format!(
            "**Private, protected history** channel created by {}. **Description:**\n```` quote\nKeys and locks\n````",
            mention("Ada Admin", &o.admin)
        )
    );
    let announced = o
        .raw_messages(
            &o.bob,
            json!([["channel", "general"], ["topic", "new channels"]]),
            5,
        )
        .await;
    assert_eq!(announced.len(), 2);
}

#[tokio::test]
async fn people_subscribed_by_someone_else_are_told_by_direct_message() {
    let o = org().await;
    for name in ["alpha", "beta"] {
        o.channel(&o.admin, name, &[&o.admin], &[]).await;
    }
    let principals = json!([o.alice.id, o.admin.id]).to_string();
    o.subscribe(
        &o.admin,
        &["beta", "alpha"],
        &[("principals", principals.as_str())],
    )
    .await;
    let told = o.raw_messages(&o.alice, json!([["is", "dm"]]), 1).await;
    assert_eq!(told[0]["sender_email"], NOTIFICATION_BOT);
    assert_eq!(
        told[0]["content"],
        format!(
            "{} subscribed you to the following channels:\n\n* #**alpha**\n* #**beta**",
            mention("Ada Admin", &o.admin)
        )
    );
    let principals = json!([o.bob.id]).to_string();
    o.subscribe(&o.admin, &["alpha"], &[("principals", principals.as_str())])
        .await;
    let told = o.raw_messages(&o.bob, json!([["is", "dm"]]), 1).await;
    assert_eq!(
        told[0]["content"],
        format!(
            "{} subscribed you to #**alpha**.",
            mention("Ada Admin", &o.admin)
        )
    );
    // The actor is not told about their own subscription.
    let own = o.raw_messages(&o.admin, json!([["is", "dm"]]), 5).await;
    assert!(own.iter().all(|m| m["sender_email"] != NOTIFICATION_BOT));
}

#[tokio::test]
async fn moves_leave_the_breadcrumbs_asked_for() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let archive = o
        .channel(&o.alice, "archive", &[&o.alice, &o.bob], &[])
        .await;
    let first = o.send_channel(&o.bob, "general", "plans", "one").await;
    o.send_channel(&o.bob, "general", "plans", "two").await;
    // The whole topic to another channel, with both notices.
    let archive_s = archive.to_string();
    o.srv
        .patch(
            &format!("/api/v1/messages/{first}"),
            &o.bob,
            &[
                ("stream_id", archive_s.as_str()),
                ("propagate_mode", "change_all"),
                ("send_notification_to_old_thread", "true"),
            ],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    let bob = mention("Bob Bee", &o.bob);
    let new = o
        .raw_messages(
            &o.alice,
            json!([["channel", "archive"], ["topic", "plans"]]),
            5,
        )
        .await;
    let last = new.last().unwrap();
    assert_eq!(last["sender_email"], NOTIFICATION_BOT);
    assert_eq!(
        last["content"],
        format!("This topic was moved here from #**general>plans** by {bob}.")
    );
    assert!(!flags(last).contains(&"read"));
    let old = o
        .raw_messages(
            &o.alice,
            json!([["channel", "general"], ["topic", "plans"]]),
            5,
        )
        .await;
    assert_eq!(old.len(), 1);
    assert_eq!(
        old[0]["content"],
        format!("This topic was moved to #**archive>plans** by {bob}.")
    );
    // The mover has read both.
    let seen = o
        .raw_messages(
            &o.bob,
            json!([["channel", "general"], ["topic", "plans"]]),
            5,
        )
        .await;
    assert!(flags(&seen[0]).contains(&"read"));

    // One message to a topic that has messages: a link to it in the new place, a count in the
    // old one.
    let a = o.send_channel(&o.bob, "general", "chat", "a").await;
    o.send_channel(&o.bob, "general", "chat", "b").await;
    o.send_channel(&o.bob, "general", "busy", "c").await;
    o.srv
        .patch(
            &format!("/api/v1/messages/{a}"),
            &o.bob,
            &[
                ("topic", "busy"),
                ("send_notification_to_old_thread", "true"),
            ],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    let new = o
        .raw_messages(
            &o.alice,
            json!([["channel", "general"], ["topic", "busy"]]),
            1,
        )
        .await;
    let general = o
        .raw_messages(&o.alice, json!([["channel", "general"]]), 1)
        .await[0]["stream_id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        new[0]["content"],
        format!(
            "[A message](http://outpost.test/#narrow/channel/{general}-general/topic/busy/near/{a}) was moved here from #**general>chat** by {bob}."
        )
    );
    let old = o
        .raw_messages(
            &o.alice,
            json!([["channel", "general"], ["topic", "chat"]]),
            1,
        )
        .await;
    assert_eq!(
        old[0]["content"],
        format!("A message was moved from this topic to #**general>busy** by {bob}.")
    );

    // No notices when neither is asked for.
    let before = o.raw_messages(&o.alice, json!([]), 1).await[0]["id"].clone();
    o.srv
        .patch(
            &format!("/api/v1/messages/{a}"),
            &o.bob,
            &[
                ("topic", "quiet"),
                ("send_notification_to_new_thread", "false"),
            ],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    assert_eq!(
        o.raw_messages(&o.alice, json!([]), 1).await[0]["id"],
        before
    );
}

#[tokio::test]
async fn resolving_a_topic_is_announced_and_a_quick_unresolve_takes_it_back() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let id = o.send_channel(&o.bob, "general", "bug", "it breaks").await;
    let resolve = |topic: &'static str| {
        let path = format!("/api/v1/messages/{id}");
        let srv = &o.srv;
        let who = &o.alice;
        async move {
            srv.patch(
                &path,
                who,
                &[("topic", topic), ("propagate_mode", "change_all")],
            )
            .await
            .assert_success("PATCH /messages/{message_id}");
        }
    };
    resolve("✔ bug").await;
    let resolved = o
        .raw_messages(
            &o.bob,
            json!([["channel", "general"], ["topic", "✔ bug"]]),
            5,
        )
        .await;
    assert_eq!(resolved.len(), 2, "no \"moved here\" notice for a resolve");
    assert_eq!(
        resolved[1]["content"],
        format!(
            "{} has marked this topic as resolved.",
            mention("Alice Ant", &o.alice)
        )
    );
    // Unresolving right away removes the notice instead of adding another.
    resolve("bug").await;
    let topic = o
        .raw_messages(&o.bob, json!([["channel", "general"], ["topic", "bug"]]), 5)
        .await;
    assert_eq!(topic.len(), 1);
    assert_eq!(topic[0]["id"], id);
}

#[tokio::test]
async fn new_people_are_welcomed_and_announced() {
    let o = org().await;
    let welcome = o.raw_messages(&o.alice, json!([["is", "dm"]]), 5).await;
    assert_eq!(welcome.len(), 1);
    assert_eq!(welcome[0]["sender_email"], WELCOME_BOT);
    assert_eq!(welcome[0]["sender_full_name"], "Welcome Bot");
    assert_eq!(
        welcome[0]["content"],
        "Hello, and welcome to Zulip!👋\n\nTo learn more, check out our [getting started guide](https://zulip.com/help/getting-started-with-zulip)!"
    );
    assert!(!flags(&welcome[0]).contains(&"read"));
    // Administrators also get the guide to moving an organization.
    let admin_welcome = o.raw_messages(&o.admin, json!([["is", "dm"]]), 5).await;
    assert!(
        admin_welcome[0]["content"].as_str().unwrap().ends_with(
            "[moving your organization to Zulip](https://zulip.com/help/moving-to-zulip)."
        )
    );
    // With a signups channel, Notification Bot announces newcomers there.
    let general = o
        .channel(&o.admin, "general", &[&o.admin, &o.alice], &[])
        .await;
    o.set_realm_channel("signup_announcements_stream_id", general)
        .await;
    let carol = o
        .srv
        .user("carol@example.com", "Carol Cat", Role::Member)
        .await;
    let signups = o
        .raw_messages(
            &o.alice,
            json!([["channel", "general"], ["topic", "signups"]]),
            5,
        )
        .await;
    assert_eq!(signups.len(), 1);
    assert_eq!(
        signups[0]["content"],
        format!("{} joined this organization.", mention("Carol Cat", &carol))
    );
}

#[tokio::test]
async fn reports_reach_the_moderators_with_the_message_quoted() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let id = o
        .send_channel(&o.bob, "general", "lunch", "```\nbuy my stuff\n```")
        .await;
    let path = format!("/api/v1/messages/{id}/report");
    // Not before the organization has a moderation channel.
    let r = o
        .srv
        .post(&path, &o.alice, &[("report_type", "spam")])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Message reporting is not enabled in this organization."
    );
    let mods = o
        .channel(
            &o.admin,
            "moderation",
            &[&o.admin],
            &[("invite_only", "true")],
        )
        .await;
    o.set_realm_channel("moderation_request_channel_id", mods)
        .await;
    for (form, msg) in [
        (
            vec![("report_type", "other")],
            "An explanation is required.",
        ),
        (vec![("report_type", "rude")], "Invalid report_type"),
    ] {
        let r = o.srv.post(&path, &o.alice, &form).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    let long = "x".repeat(1001);
    let r = o
        .srv
        .post(
            &path,
            &o.alice,
            &[("report_type", "other"), ("description", long.as_str())],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "description is too long (limit: 1000 characters)"
    );
    // A message the reporter cannot read cannot be reported.
    o.channel(&o.admin, "secret", &[&o.admin], &[("invite_only", "true")])
        .await;
    let hidden = o.send_channel(&o.admin, "secret", "t", "psst").await;
    let r = o
        .srv
        .post(
            &format!("/api/v1/messages/{hidden}/report"),
            &o.alice,
            &[("report_type", "spam")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid message(s)"
    );
    assert_eq!(
        o.raw_messages(&o.admin, json!([["channel", mods]]), 5)
            .await
            .len(),
        1
    );

    o.srv
        .post(
            &path,
            &o.alice,
            &[("report_type", "norms"), ("description", "Selling again")],
        )
        .await
        .assert_success("POST /messages/{message_id}/report");
    let reports = o
        .raw_messages(
            &o.admin,
            json!([["channel", mods], ["topic", "Bob Bee moderation"]]),
            5,
        )
        .await;
    assert_eq!(reports.len(), 1);
    let sent_at = o
        .raw_messages(&o.bob, json!([["channel", "general"]]), 5)
        .await;
    let sent_at = sent_at.iter().find(|m| m["id"] == id).unwrap()["timestamp"]
        .as_i64()
        .unwrap();
    assert_eq!(reports[0]["sender_email"], NOTIFICATION_BOT);
    assert_eq!(
        reports[0]["content"],
        format!(
            "{} reported a message sent by {} at <time:{}>.\n```quote\n**Violates community norms**. Selling again\n```\n\n```` spoiler Original message at #**general>lunch@{id}**\n```\nbuy my stuff\n```\n````",
            mention("Alice Ant", &o.alice),
            mention("Bob Bee", &o.bob),
            outpost::time::iso_seconds(sent_at)
        )
    );

    // A direct message: linked, and the header names the recipient when the sender reports
    // their own.
    let dm = o.send_dm(&o.alice, &[&o.bob], "my own words").await;
    o.srv
        .post(
            &format!("/api/v1/messages/{dm}/report"),
            &o.alice,
            &[("report_type", "spam")],
        )
        .await
        .assert_success("POST /messages/{message_id}/report");
    let report = &o
        .raw_messages(
            &o.admin,
            json!([["channel", mods], ["topic", "Alice Ant moderation"]]),
            1,
        )
        .await[0];
    let text = report["content"].as_str().unwrap();
    assert!(
        text.starts_with(&format!(
            "{a} reported a message sent by {a} to {b} at <time:",
            a = mention("Alice Ant", &o.alice),
            b = mention("Bob Bee", &o.bob)
        )),
        "{text}"
    );
    assert!(text.contains(&format!(
        "``` spoiler [Original message](http://outpost.test/#narrow/dm/{}/near/{dm})\nmy own words\n```",
        o.bob.id
    )));
}
