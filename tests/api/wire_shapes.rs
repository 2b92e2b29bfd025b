//! The exact key sets and value types of the chat API's main shapes as a client receives them:
//! the user (`/users/me`, `/users`, `realm_user` events), the message (fetched and in `message`
//! events), the subscription, and the frequent events. Each shape is reduced to its skeleton
//! (every value replaced by its JSON type, keys kept) and compared with a pinned skeleton, so a
//! key gained or lost, or a type or null-versus-absent change, fails here. (The exact text of
//! the typed event structs is pinned against the JSON trees they replaced by the wire modules'
//! unit tests.)

use serde_json::{Map, Value, json};

use crate::support::{Org, org, wait_events};

/// `v` with every scalar replaced by its type name; objects keep their keys, arrays their
/// elements.
fn skeleton(v: &Value) -> Value {
    match v {
        Value::Null => json!("null"),
        Value::Bool(_) => json!("bool"),
        Value::Number(n) if n.is_f64() => json!("float"),
        Value::Number(_) => json!("int"),
        Value::String(_) => json!("string"),
        Value::Array(a) => Value::Array(a.iter().map(skeleton).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), skeleton(v))).collect())
        }
    }
}

/// A pinned skeleton, as the JSON text the failure message prints.
fn shape(text: &str) -> Value {
    serde_json::from_str(text).expect("a pinned skeleton is JSON")
}

#[track_caller]
fn pinned(what: &str, actual: &Value, expected: Value) {
    let got = skeleton(actual);
    assert_eq!(
        got,
        expected,
        "{what}: skeleton differs; got:\n{}",
        serde_json::to_string(&got).unwrap()
    );
}

/// Every event of `events` keyed by `type` and `op` (and `message_type` for typing), the first
/// of each kind, ids removed (the queue numbers them).
fn by_kind(events: &[Value]) -> Map<String, Value> {
    let mut out = Map::new();
    for e in events {
        let mut key = e["type"].as_str().unwrap().to_string();
        for extra in ["op", "message_type", "flag", "property"] {
            if let Some(s) = e[extra].as_str() {
                key.push(':');
                key.push_str(s);
            }
        }
        if let Some(t) = e["message"]["type"].as_str() {
            key.push(':');
            key.push_str(t);
        }
        if e.get("propagate_mode").is_some() {
            key.push_str(":move");
        }
        let mut e = e.clone();
        e.as_object_mut().unwrap().remove("id");
        out.entry(key).or_insert(e);
    }
    out
}

async fn people_and_channel() -> (Org, i64) {
    let o = org().await;
    let ch = o.channel(&o.alice, "wire", &[&o.alice, &o.bob], &[]).await;
    (o, ch)
}

#[tokio::test]
async fn the_user_records_keep_their_keys_and_types() {
    let (o, _) = people_and_channel().await;
    let me = o.srv.get("/api/v1/users/me", &o.alice, &[]).await;
    let me = me.assert_success("GET /users/me");
    pinned(
        "GET /users/me",
        me,
        shape(
            r#"{"avatar_url":"string","avatar_version":"int","date_joined":"string","delivery_email":"string","email":"string","full_name":"string","is_active":"bool","is_admin":"bool","is_bot":"bool","is_guest":"bool","is_owner":"bool","max_message_id":"int","msg":"string","profile_data":{},"result":"string","role":"int","timezone":"string","user_id":"int"}"#,
        ),
    );
    let bot = o
        .srv
        .post(
            "/api/v1/bots",
            &o.alice,
            &[("full_name", "Wire Bot"), ("short_name", "wire")],
        )
        .await;
    bot.assert_success("POST /bots");
    let all = o.srv.get("/api/v1/users", &o.bob, &[]).await;
    let all = all.assert_success("GET /users");
    let members = all["members"].as_array().unwrap();
    let find = |email_start: &str| {
        members
            .iter()
            .find(|m| {
                m["delivery_email"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with(email_start)
                    || m["full_name"] == email_start
            })
            .cloned()
            .unwrap()
    };
    pinned(
        "GET /users (person)",
        &find("alice@"),
        shape(
            r#"{"avatar_url":"null","avatar_version":"int","date_joined":"string","delivery_email":"string","email":"string","full_name":"string","is_active":"bool","is_admin":"bool","is_bot":"bool","is_guest":"bool","is_owner":"bool","role":"int","timezone":"string","user_id":"int"}"#,
        ),
    );
    pinned(
        "GET /users (bot)",
        &find("Wire Bot"),
        shape(
            r#"{"avatar_url":"null","avatar_version":"int","bot_owner_id":"int","bot_type":"int","date_joined":"string","delivery_email":"string","email":"string","full_name":"string","is_active":"bool","is_admin":"bool","is_bot":"bool","is_guest":"bool","is_owner":"bool","role":"int","timezone":"string","user_id":"int"}"#,
        ),
    );
    let with_fields = o
        .srv
        .get(
            &format!("/api/v1/users/{}", o.bob.id),
            &o.alice,
            &[("include_custom_profile_fields", "true")],
        )
        .await;
    pinned(
        "GET /users/{user_id}",
        with_fields.assert_success("GET /users/{user_id}"),
        shape(
            r#"{"msg":"string","result":"string","user":{"avatar_url":"null","avatar_version":"int","date_joined":"string","delivery_email":"string","email":"string","full_name":"string","is_active":"bool","is_admin":"bool","is_bot":"bool","is_guest":"bool","is_owner":"bool","profile_data":{},"role":"int","timezone":"string","user_id":"int"}}"#,
        ),
    );
    let gravatar = o
        .srv
        .get("/api/v1/users", &o.bob, &[("client_gravatar", "false")])
        .await;
    let gravatar = gravatar.assert_success("GET /users");
    let alice = gravatar["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["user_id"] == o.alice.id)
        .unwrap();
    pinned(
        "GET /users (no client_gravatar)",
        alice,
        shape(
            r#"{"avatar_url":"string","avatar_version":"int","date_joined":"string","delivery_email":"string","email":"string","full_name":"string","is_active":"bool","is_admin":"bool","is_bot":"bool","is_guest":"bool","is_owner":"bool","role":"int","timezone":"string","user_id":"int"}"#,
        ),
    );
}

#[tokio::test]
async fn fetched_messages_and_subscriptions_keep_their_keys_and_types() {
    let (o, ch) = people_and_channel().await;
    let id = o
        .send_channel(&o.alice, "wire", "shape", "hello **there**")
        .await;
    o.srv
        .post(
            &format!("/api/v1/messages/{id}/reactions"),
            &o.bob,
            &[("emoji_name", "octopus")],
        )
        .await
        .assert_success("POST /messages/{message_id}/reactions");
    o.srv
        .patch(
            &format!("/api/v1/messages/{id}"),
            &o.alice,
            &[("content", "edited"), ("topic", "moved")],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    o.send_dm(&o.bob, &[&o.alice], "psst").await;
    o.send_dm(&o.bob, &[&o.alice, &o.owner], "group").await;
    let r = o
        .fetch(
            &o.alice,
            &[
                ("anchor", "newest"),
                ("num_before", "10"),
                ("num_after", "0"),
            ],
        )
        .await;
    let msgs = r.body["messages"].as_array().unwrap();
    let find = |pick: &dyn Fn(&Value) -> bool| msgs.iter().find(|m| pick(m)).unwrap();
    let recipients = |m: &Value| m["display_recipient"].as_array().map_or(0, Vec::len);
    pinned(
        "GET /messages (channel)",
        find(&|m| m["id"] == id),
        shape(
            r#"{"avatar_url":"null","client":"string","content":"string","content_type":"string","display_recipient":"string","edit_history":[{"prev_topic":"string","timestamp":"int","topic":"string","user_id":"int"},{"prev_content":"string","prev_rendered_content":"string","timestamp":"int","user_id":"int"}],"flags":[],"id":"int","is_me_message":"bool","last_edit_timestamp":"int","last_moved_timestamp":"int","reactions":[{"emoji_code":"string","emoji_name":"string","reaction_type":"string","user_id":"int"}],"recipient_id":"int","sender_email":"string","sender_full_name":"string","sender_id":"int","sender_realm_str":"string","stream_id":"int","subject":"string","submessages":[],"timestamp":"int","topic_links":[],"type":"string"}"#,
        ),
    );
    pinned(
        "GET /messages (direct)",
        find(&|m| recipients(m) == 2),
        shape(
            r#"{"avatar_url":"null","client":"string","content":"string","content_type":"string","display_recipient":[{"email":"string","full_name":"string","id":"int","is_mirror_dummy":"bool"},{"email":"string","full_name":"string","id":"int","is_mirror_dummy":"bool"}],"flags":[],"id":"int","is_me_message":"bool","reactions":[],"recipient_id":"int","sender_email":"string","sender_full_name":"string","sender_id":"int","sender_realm_str":"string","subject":"string","submessages":[],"timestamp":"int","topic_links":[],"type":"string"}"#,
        ),
    );
    pinned(
        "GET /messages (group)",
        find(&|m| recipients(m) == 3),
        shape(
            r#"{"avatar_url":"null","client":"string","content":"string","content_type":"string","display_recipient":[{"email":"string","full_name":"string","id":"int","is_mirror_dummy":"bool"},{"email":"string","full_name":"string","id":"int","is_mirror_dummy":"bool"},{"email":"string","full_name":"string","id":"int","is_mirror_dummy":"bool"}],"flags":[],"id":"int","is_me_message":"bool","reactions":[],"recipient_id":"int","sender_email":"string","sender_full_name":"string","sender_id":"int","sender_realm_str":"string","subject":"string","submessages":[],"timestamp":"int","topic_links":[],"type":"string"}"#,
        ),
    );
    let raw = o
        .fetch(
            &o.alice,
            &[
                ("anchor", "newest"),
                ("num_before", "1"),
                ("num_after", "0"),
                ("apply_markdown", "false"),
                ("client_gravatar", "false"),
                ("narrow", &json!([["channel", ch]]).to_string()),
            ],
        )
        .await;
    pinned(
        "GET /messages (raw, no client_gravatar)",
        &raw.body["messages"][0],
        shape(
            r#"{"avatar_url":"string","client":"string","content":"string","content_type":"string","display_recipient":"string","flags":["string"],"id":"int","is_me_message":"bool","reactions":[],"recipient_id":"int","sender_email":"string","sender_full_name":"string","sender_id":"int","sender_realm_str":"string","stream_id":"int","subject":"string","submessages":[],"timestamp":"int","topic_links":[],"type":"string"}"#,
        ),
    );
    let subs = o
        .srv
        .get(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[("include_subscribers", "true")],
        )
        .await;
    let subs = subs.assert_success("GET /users/me/subscriptions");
    pinned(
        "GET /users/me/subscriptions",
        &subs["subscriptions"][0],
        shape(
            r#"{"audible_notifications":"null","can_add_subscribers_group":"int","can_administer_channel_group":{"direct_members":["int"],"direct_subgroups":[]},"can_create_topic_group":"int","can_delete_any_message_group":"int","can_delete_own_message_group":"int","can_move_messages_out_of_channel_group":"int","can_move_messages_within_channel_group":"int","can_remove_subscribers_group":"int","can_resolve_topics_group":"int","can_send_message_group":"int","can_subscribe_group":"int","color":"string","creator_id":"int","date_created":"int","description":"string","desktop_notifications":"null","email_notifications":"null","first_message_id":"int","folder_id":"null","history_public_to_subscribers":"bool","in_home_view":"bool","invite_only":"bool","is_announcement_only":"bool","is_archived":"bool","is_muted":"bool","is_recently_active":"bool","is_web_public":"bool","message_retention_days":"null","name":"string","pin_to_top":"bool","push_notifications":"null","rendered_description":"string","stream_id":"int","stream_post_policy":"int","stream_weekly_traffic":"null","subscriber_count":"int","subscribers":["int","int"],"topics_policy":"string","wildcard_mentions_notify":"null"}"#,
        ),
    );
    let plain = o
        .srv
        .get("/api/v1/users/me/subscriptions", &o.alice, &[])
        .await;
    pinned(
        "GET /users/me/subscriptions (no subscribers)",
        &plain.assert_success("GET /users/me/subscriptions")["subscriptions"][0],
        shape(
            r#"{"audible_notifications":"null","can_add_subscribers_group":"int","can_administer_channel_group":{"direct_members":["int"],"direct_subgroups":[]},"can_create_topic_group":"int","can_delete_any_message_group":"int","can_delete_own_message_group":"int","can_move_messages_out_of_channel_group":"int","can_move_messages_within_channel_group":"int","can_remove_subscribers_group":"int","can_resolve_topics_group":"int","can_send_message_group":"int","can_subscribe_group":"int","color":"string","creator_id":"int","date_created":"int","description":"string","desktop_notifications":"null","email_notifications":"null","first_message_id":"int","folder_id":"null","history_public_to_subscribers":"bool","in_home_view":"bool","invite_only":"bool","is_announcement_only":"bool","is_archived":"bool","is_muted":"bool","is_recently_active":"bool","is_web_public":"bool","message_retention_days":"null","name":"string","pin_to_top":"bool","push_notifications":"null","rendered_description":"string","stream_id":"int","stream_post_policy":"int","stream_weekly_traffic":"null","subscriber_count":"int","topics_policy":"string","wildcard_mentions_notify":"null"}"#,
        ),
    );
}

#[tokio::test]
async fn the_frequent_events_keep_their_keys_and_types() {
    let (o, ch) = people_and_channel().await;
    let ch_s = ch.to_string();
    let (q, _) = o
        .register(
            &o.alice,
            &[
                (
                    "client_capabilities",
                    "{\"bulk_message_deletion\":true,\"stream_typing_notifications\":true}",
                ),
                ("client_gravatar", "false"),
            ],
        )
        .await;
    let (q2, _) = o
        .register(
            &o.bob,
            &[
                ("apply_markdown", "false"),
                ("client_gravatar", "true"),
                ("slim_presence", "true"),
            ],
        )
        .await;
    let id = o.send_channel(&o.bob, "wire", "shape", "hello").await;
    o.send_dm(&o.bob, &[&o.alice], "psst").await;
    o.srv
        .post(
            &format!("/api/v1/messages/{id}/reactions"),
            &o.bob,
            &[("emoji_name", "octopus")],
        )
        .await
        .assert_success("POST /messages/{message_id}/reactions");
    o.srv
        .delete(
            &format!("/api/v1/messages/{id}/reactions"),
            &o.bob,
            &[("emoji_name", "octopus")],
        )
        .await
        .assert_success("DELETE /messages/{message_id}/reactions");
    o.srv
        .patch(
            &format!("/api/v1/messages/{id}"),
            &o.bob,
            &[("content", "edited")],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    o.srv
        .patch(
            &format!("/api/v1/messages/{id}"),
            &o.bob,
            &[("topic", "moved"), ("propagate_mode", "change_all")],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    let list = json!([id]).to_string();
    for (op, flag) in [("add", "starred"), ("remove", "read")] {
        o.srv
            .post(
                "/api/v1/messages/flags",
                &o.alice,
                &[("messages", list.as_str()), ("op", op), ("flag", flag)],
            )
            .await
            .assert_success("POST /messages/flags");
    }
    o.srv
        .post(
            "/api/v1/typing",
            &o.bob,
            &[("to", &format!("[{}]", o.alice.id)), ("op", "start")],
        )
        .await
        .assert_success("POST /typing");
    o.srv
        .post(
            "/api/v1/typing",
            &o.bob,
            &[
                ("type", "stream"),
                ("stream_id", ch_s.as_str()),
                ("topic", "moved"),
                ("op", "stop"),
            ],
        )
        .await
        .assert_success("POST /typing");
    o.srv
        .post(
            "/api/v1/users/me/presence",
            &o.owner,
            &[("status", "active")],
        )
        .await
        .assert_success("POST /users/me/presence");
    let sub_data = json!([{"stream_id": ch, "property": "color", "value": "#abcdef"}]).to_string();
    o.srv
        .post(
            "/api/v1/users/me/subscriptions/properties",
            &o.alice,
            &[("subscription_data", sub_data.as_str())],
        )
        .await
        .assert_success("POST /users/me/subscriptions/properties");
    o.subscribe(&o.owner, &["wire"], &[]).await;
    o.srv
        .delete(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[("subscriptions", "[\"wire\"]")],
        )
        .await
        .assert_success("DELETE /users/me/subscriptions");
    o.subscribe(&o.alice, &["wire"], &[]).await;
    o.srv
        .user(
            "carol@example.com",
            "Carol Crab",
            outpost::model::Role::Member,
        )
        .await;
    o.srv
        .patch(
            &format!("/api/v1/users/{}", o.bob.id),
            &o.owner,
            &[("full_name", "Bob Bumble")],
        )
        .await
        .assert_success("PATCH /users/{user_id}");
    o.srv
        .delete(&format!("/api/v1/messages/{id}"), &o.owner, &[])
        .await
        .assert_success("DELETE /messages/{message_id}");
    let got = by_kind(&wait_events(&o, &o.alice, &q, 20).await);
    pinned(
        "alice's events",
        &Value::Object(got),
        shape(
            r#"{"delete_message:stream":{"message_ids":["int"],"message_type":"string","stream_id":"int","topic":"string","type":"string"},"message:private":{"flags":[],"message":{"avatar_url":"string","client":"string","content":"string","content_type":"string","display_recipient":[{"email":"string","full_name":"string","id":"int","is_mirror_dummy":"bool"},{"email":"string","full_name":"string","id":"int","is_mirror_dummy":"bool"}],"id":"int","is_me_message":"bool","reactions":[],"recipient_id":"int","sender_email":"string","sender_full_name":"string","sender_id":"int","sender_realm_str":"string","subject":"string","submessages":[],"timestamp":"int","topic_links":[],"type":"string"},"type":"string"},"message:stream":{"flags":[],"message":{"avatar_url":"string","client":"string","content":"string","content_type":"string","display_recipient":"string","id":"int","is_me_message":"bool","reactions":[],"recipient_id":"int","sender_email":"string","sender_full_name":"string","sender_id":"int","sender_realm_str":"string","stream_id":"int","subject":"string","submessages":[],"timestamp":"int","topic_links":[],"type":"string"},"type":"string"},"presence":{"email":"string","presence":{"website":{"client":"string","pushable":"bool","status":"string","timestamp":"int"}},"server_timestamp":"float","type":"string","user_id":"int"},"reaction:add":{"emoji_code":"string","emoji_name":"string","message_id":"int","op":"string","reaction_type":"string","type":"string","user":{"email":"string","full_name":"string","user_id":"int"},"user_id":"int"},"reaction:remove":{"emoji_code":"string","emoji_name":"string","message_id":"int","op":"string","reaction_type":"string","type":"string","user":{"email":"string","full_name":"string","user_id":"int"},"user_id":"int"},"realm_user:add":{"op":"string","person":{"avatar_url":"string","avatar_version":"int","date_joined":"string","delivery_email":"string","email":"string","full_name":"string","is_active":"bool","is_admin":"bool","is_bot":"bool","is_guest":"bool","is_owner":"bool","role":"int","timezone":"string","user_id":"int"},"type":"string"},"realm_user:update":{"op":"string","person":{"full_name":"string","user_id":"int"},"type":"string"},"subscription:add":{"op":"string","subscriptions":[{"audible_notifications":"null","can_add_subscribers_group":"int","can_administer_channel_group":{"direct_members":["int"],"direct_subgroups":[]},"can_create_topic_group":"int","can_delete_any_message_group":"int","can_delete_own_message_group":"int","can_move_messages_out_of_channel_group":"int","can_move_messages_within_channel_group":"int","can_remove_subscribers_group":"int","can_resolve_topics_group":"int","can_send_message_group":"int","can_subscribe_group":"int","color":"string","creator_id":"int","date_created":"int","description":"string","desktop_notifications":"null","email_notifications":"null","first_message_id":"int","folder_id":"null","history_public_to_subscribers":"bool","in_home_view":"bool","invite_only":"bool","is_announcement_only":"bool","is_archived":"bool","is_muted":"bool","is_recently_active":"bool","is_web_public":"bool","message_retention_days":"null","name":"string","pin_to_top":"bool","push_notifications":"null","rendered_description":"string","stream_id":"int","stream_post_policy":"int","stream_weekly_traffic":"null","subscriber_count":"int","subscribers":["int","int","int"],"topics_policy":"string","wildcard_mentions_notify":"null"}],"type":"string"},"subscription:peer_add":{"op":"string","stream_ids":["int"],"type":"string","user_ids":["int"]},"subscription:remove":{"op":"string","subscriptions":[{"name":"string","stream_id":"int"}],"type":"string"},"subscription:update:color":{"op":"string","property":"string","stream_id":"int","type":"string","value":"string"},"typing:start:direct":{"message_type":"string","op":"string","recipients":[{"email":"string","user_id":"int"},{"email":"string","user_id":"int"}],"sender":{"email":"string","user_id":"int"},"type":"string"},"typing:stop:stream":{"message_type":"string","op":"string","sender":{"email":"string","user_id":"int"},"stream_id":"int","topic":"string","type":"string"},"update_message":{"content":"string","edit_timestamp":"int","flags":[],"is_me_message":"bool","message_id":"int","message_ids":["int"],"orig_content":"string","orig_rendered_content":"string","rendered_content":"string","rendering_only":"bool","stream_id":"int","stream_name":"string","type":"string","user_id":"int"},"update_message:move":{"edit_timestamp":"int","flags":[],"message_id":"int","message_ids":["int"],"orig_subject":"string","propagate_mode":"string","rendering_only":"bool","stream_id":"int","stream_name":"string","subject":"string","topic_links":[],"type":"string","user_id":"int"},"update_message_flags:add:starred":{"all":"bool","flag":"string","messages":["int"],"op":"string","operation":"string","type":"string"},"update_message_flags:remove:read":{"all":"bool","flag":"string","message_details":{"7":{"stream_id":"int","topic":"string","type":"string"}},"messages":["int"],"op":"string","operation":"string","type":"string"},"user_group:add_members":{"group_id":"int","op":"string","type":"string","user_ids":["int"]}}"#,
        ),
    );
    let got = by_kind(&wait_events(&o, &o.bob, &q2, 8).await);
    pinned(
        "bob's events (raw, gravatar, slim)",
        &Value::Object(got),
        shape(
            r#"{"delete_message:stream":{"message_id":"int","message_type":"string","stream_id":"int","topic":"string","type":"string"},"message:private":{"flags":[],"message":{"avatar_url":"null","client":"string","content":"string","content_type":"string","display_recipient":[{"email":"string","full_name":"string","id":"int","is_mirror_dummy":"bool"},{"email":"string","full_name":"string","id":"int","is_mirror_dummy":"bool"}],"id":"int","is_me_message":"bool","reactions":[],"recipient_id":"int","sender_email":"string","sender_full_name":"string","sender_id":"int","sender_realm_str":"string","subject":"string","submessages":[],"timestamp":"int","topic_links":[],"type":"string"},"type":"string"},"message:stream":{"flags":[],"message":{"avatar_url":"null","client":"string","content":"string","content_type":"string","display_recipient":"string","id":"int","is_me_message":"bool","reactions":[],"recipient_id":"int","sender_email":"string","sender_full_name":"string","sender_id":"int","sender_realm_str":"string","stream_id":"int","subject":"string","submessages":[],"timestamp":"int","topic_links":[],"type":"string"},"type":"string"},"presence":{"presence":{"website":{"client":"string","pushable":"bool","status":"string","timestamp":"int"}},"server_timestamp":"float","type":"string","user_id":"int"},"reaction:add":{"emoji_code":"string","emoji_name":"string","message_id":"int","op":"string","reaction_type":"string","type":"string","user":{"email":"string","full_name":"string","user_id":"int"},"user_id":"int"},"reaction:remove":{"emoji_code":"string","emoji_name":"string","message_id":"int","op":"string","reaction_type":"string","type":"string","user":{"email":"string","full_name":"string","user_id":"int"},"user_id":"int"},"realm_user:add":{"op":"string","person":{"avatar_url":"string","avatar_version":"int","date_joined":"string","delivery_email":"string","email":"string","full_name":"string","is_active":"bool","is_admin":"bool","is_bot":"bool","is_guest":"bool","is_owner":"bool","role":"int","timezone":"string","user_id":"int"},"type":"string"},"realm_user:update":{"op":"string","person":{"full_name":"string","user_id":"int"},"type":"string"},"subscription:peer_add":{"op":"string","stream_ids":["int"],"type":"string","user_ids":["int"]},"subscription:peer_remove":{"op":"string","stream_ids":["int"],"type":"string","user_ids":["int"]},"typing:start:direct":{"message_type":"string","op":"string","recipients":[{"email":"string","user_id":"int"},{"email":"string","user_id":"int"}],"sender":{"email":"string","user_id":"int"},"type":"string"},"update_message":{"content":"string","edit_timestamp":"int","flags":[],"is_me_message":"bool","message_id":"int","message_ids":["int"],"orig_content":"string","orig_rendered_content":"string","rendered_content":"string","rendering_only":"bool","stream_id":"int","stream_name":"string","type":"string","user_id":"int"},"update_message:move":{"edit_timestamp":"int","flags":[],"message_id":"int","message_ids":["int"],"orig_subject":"string","propagate_mode":"string","rendering_only":"bool","stream_id":"int","stream_name":"string","subject":"string","topic_links":[],"type":"string","user_id":"int"},"user_group:add_members":{"group_id":"int","op":"string","type":"string","user_ids":["int"]},"user_topic":{"last_updated":"int","stream_id":"int","topic_name":"string","type":"string","visibility_policy":"int"}}"#,
        ),
    );
}

/// The channel object's skeleton (a public channel with a message, made by one user with two
/// subscribers), with `extra` keys added.
fn channel_shape(extra: &[(&str, Value)]) -> Value {
    let mut v = shape(
        r#"{"can_add_subscribers_group":"int","can_administer_channel_group":{"direct_members":["int"],"direct_subgroups":[]},"can_create_topic_group":"int","can_delete_any_message_group":"int","can_delete_own_message_group":"int","can_move_messages_out_of_channel_group":"int","can_move_messages_within_channel_group":"int","can_remove_subscribers_group":"int","can_resolve_topics_group":"int","can_send_message_group":"int","can_subscribe_group":"int","creator_id":"int","date_created":"int","description":"string","first_message_id":"int","folder_id":"null","history_public_to_subscribers":"bool","invite_only":"bool","is_announcement_only":"bool","is_archived":"bool","is_recently_active":"bool","is_web_public":"bool","message_retention_days":"null","name":"string","rendered_description":"string","stream_id":"int","stream_post_policy":"int","stream_weekly_traffic":"null","subscriber_count":"int","topics_policy":"string"}"#,
    );
    for (k, t) in extra {
        v[*k] = t.clone();
    }
    v
}

/// The subscription object's skeleton: the channel's plus the personal settings (`null` while
/// they follow the user's defaults).
fn subscription_shape(extra: &[(&str, Value)]) -> Value {
    let mut personal = vec![
        ("audible_notifications", json!("null")),
        ("color", json!("string")),
        ("desktop_notifications", json!("null")),
        ("email_notifications", json!("null")),
        ("in_home_view", json!("bool")),
        ("is_muted", json!("bool")),
        ("pin_to_top", json!("bool")),
        ("push_notifications", json!("null")),
        ("wildcard_mentions_notify", json!("null")),
    ];
    personal.extend(extra.iter().map(|(k, v)| (*k, v.clone())));
    channel_shape(&personal)
}

#[tokio::test]
async fn channels_subscriptions_presence_and_statuses_keep_their_keys_and_types() {
    let (o, ch) = people_and_channel().await;
    o.send_channel(&o.alice, "wire", "shape", "hello").await;
    let other = o.channel(&o.bob, "other", &[&o.bob, &o.owner], &[]).await;
    o.send_channel(&o.bob, "other", "shape", "hello").await;
    o.channel(&o.alice, "left", &[&o.alice, &o.bob], &[]).await;
    o.send_channel(&o.alice, "left", "shape", "hello").await;
    o.srv
        .delete(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[("subscriptions", "[\"left\"]")],
        )
        .await
        .assert_success("DELETE /users/me/subscriptions");
    let streams = o
        .srv
        .get("/api/v1/streams", &o.alice, &[("include_default", "true")])
        .await;
    let streams = streams.assert_success("GET /streams");
    let wire = streams["streams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stream_id"] == ch)
        .unwrap();
    pinned(
        "GET /streams?include_default=true",
        wire,
        channel_shape(&[("is_default", json!("bool"))]),
    );
    let one = o
        .srv
        .get(&format!("/api/v1/streams/{other}"), &o.alice, &[])
        .await;
    pinned(
        "GET /streams/{stream_id}",
        &one.assert_success("GET /streams/{stream_id}")["stream"],
        channel_shape(&[]),
    );

    o.srv
        .post(
            "/api/v1/users/me/status",
            &o.bob,
            &[("status_text", "out"), ("emoji_name", "octopus")],
        )
        .await
        .assert_success("POST /users/me/status");
    let status = o
        .srv
        .get(&format!("/api/v1/users/{}/status", o.bob.id), &o.alice, &[])
        .await;
    let status_shape = shape(
        r#"{"emoji_code":"string","emoji_name":"string","reaction_type":"string","status_text":"string"}"#,
    );
    pinned(
        "GET /users/{user_id}/status",
        &status.assert_success("GET /users/{user_id}/status")["status"],
        status_shape.clone(),
    );

    let presence = o
        .srv
        .post("/api/v1/users/me/presence", &o.bob, &[("status", "active")])
        .await;
    let presence = presence.assert_success("POST /users/me/presence");
    let legacy_shape = shape(
        r#"{"aggregated":{"client":"string","status":"string","timestamp":"int"},"website":{"client":"string","pushable":"bool","status":"string","timestamp":"int"}}"#,
    );
    let only = |v: &Value| {
        let obj = v.as_object().unwrap();
        assert_eq!(obj.len(), 1, "one user reported presence: {v}");
        obj.iter()
            .next()
            .map(|(k, v)| (k.clone(), v.clone()))
            .unwrap()
    };
    let (key, entry) = only(&presence["presences"]);
    assert!(
        key.contains('@'),
        "legacy presence is keyed by email: {key}"
    );
    pinned("POST /users/me/presence", &entry, legacy_shape.clone());
    let realm = o.srv.get("/api/v1/realm/presence", &o.alice, &[]).await;
    let (_, entry) = only(&realm.assert_success("GET /realm/presence")["presences"]);
    pinned("GET /realm/presence", &entry, legacy_shape);
    let mine = o
        .srv
        .get(
            &format!("/api/v1/users/{}/presence", o.bob.id),
            &o.alice,
            &[],
        )
        .await;
    pinned(
        "GET /users/{user_id_or_email}/presence",
        &mine.assert_success("GET /users/{user_id_or_email}/presence")["presence"],
        shape(
            r#"{"aggregated":{"status":"string","timestamp":"int"},"website":{"status":"string","timestamp":"int"}}"#,
        ),
    );

    let (_, state) = o
        .register(
            &o.alice,
            &[
                (
                    "fetch_event_types",
                    r#"["subscription","stream","presence","user_status"]"#,
                ),
                ("include_subscribers", "true"),
                ("slim_presence", "true"),
            ],
        )
        .await;
    let subscribers = json!(["int", "int"]);
    pinned(
        "register subscriptions",
        &state["subscriptions"][0],
        subscription_shape(&[("subscribers", subscribers.clone())]),
    );
    pinned(
        "register unsubscribed",
        &state["unsubscribed"][0],
        subscription_shape(&[("subscribers", json!(["int"]))]),
    );
    pinned(
        "register never_subscribed",
        &state["never_subscribed"][0],
        channel_shape(&[("subscribers", subscribers)]),
    );
    let listed = state["streams"].as_array().unwrap();
    assert!(!listed.is_empty());
    for s in listed {
        pinned("register streams", s, channel_shape(&[]));
    }
    let (key, entry) = only(&state["presences"]);
    assert_eq!(
        key,
        o.bob.id.to_string(),
        "slim presence is keyed by user id"
    );
    pinned(
        "register presences (slim)",
        &entry,
        shape(r#"{"active_timestamp":"int","idle_timestamp":"int"}"#),
    );
    let (key, entry) = only(&state["user_status"]);
    assert_eq!(key, o.bob.id.to_string());
    pinned("register user_status", &entry, status_shape);
}

#[tokio::test]
async fn the_other_typed_events_keep_their_keys_and_types() {
    let (o, ch) = people_and_channel().await;
    let other = o.channel(&o.alice, "wire2", &[&o.alice, &o.bob], &[]).await;
    let (q, _) = o.register(&o.alice, &[]).await;
    let id = o.send_channel(&o.bob, "wire", "shape", "hello").await;
    let dm = o.send_dm(&o.bob, &[&o.alice], "psst").await;
    o.srv
        .patch(
            &format!("/api/v1/messages/{id}"),
            &o.owner,
            &[
                ("stream_id", other.to_string().as_str()),
                ("propagate_mode", "change_one"),
                ("send_notification_to_old_thread", "false"),
                ("send_notification_to_new_thread", "false"),
            ],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    let list = json!([dm]).to_string();
    o.srv
        .post(
            "/api/v1/messages/flags",
            &o.alice,
            &[
                ("messages", list.as_str()),
                ("op", "remove"),
                ("flag", "read"),
            ],
        )
        .await
        .assert_success("POST /messages/flags");
    o.srv
        .post(
            "/api/v1/users/me/status",
            &o.bob,
            &[("status_text", "away"), ("emoji_name", "car")],
        )
        .await
        .assert_success("POST /users/me/status");
    o.srv
        .patch(
            &format!("/api/v1/users/{}", o.bob.id),
            &o.owner,
            &[("role", "200")],
        )
        .await
        .assert_success("PATCH /users/{user_id}");
    let sub_data =
        json!([{"stream_id": ch, "property": "desktop_notifications", "value": true}]).to_string();
    o.srv
        .post(
            "/api/v1/users/me/subscriptions/properties",
            &o.alice,
            &[("subscription_data", sub_data.as_str())],
        )
        .await
        .assert_success("POST /users/me/subscriptions/properties");
    o.srv
        .post(
            "/api/v1/user_topics",
            &o.alice,
            &[
                ("stream_id", ch.to_string().as_str()),
                ("topic", "quiet"),
                ("visibility_policy", "1"),
            ],
        )
        .await
        .assert_success("POST /user_topics");
    // The last change's event comes last: delivery keeps commit order.
    let mut events = Vec::new();
    for _ in 0..100 {
        events = wait_events(&o, &o.alice, &q, 1).await;
        if events.iter().any(|e| e["type"] == "user_topic") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // The messages and the role's group changes are pinned above.
    let mut got = by_kind(&events);
    got.retain(|k, _| !k.starts_with("message:") && !k.starts_with("user_group:"));
    pinned(
        "alice's events (the other typed shapes)",
        &Value::Object(got),
        shape(
            r#"{"realm_user:update":{"op":"string","person":{"role":"int","user_id":"int"},"type":"string"},"subscription:update:desktop_notifications":{"op":"string","property":"string","stream_id":"int","type":"string","value":"bool"},"update_message:move":{"edit_timestamp":"int","flags":[],"message_id":"int","message_ids":["int"],"new_stream_id":"int","orig_subject":"string","propagate_mode":"string","rendering_only":"bool","stream_id":"int","stream_name":"string","type":"string","user_id":"int"},"update_message_flags:remove:read":{"all":"bool","flag":"string","message_details":{"9":{"type":"string","user_ids":["int","int"]}},"messages":["int"],"op":"string","operation":"string","type":"string"},"user_status":{"away":"bool","emoji_code":"string","emoji_name":"string","reaction_type":"string","status_text":"string","type":"string","user_id":"int"},"user_topic":{"last_updated":"int","stream_id":"int","topic_name":"string","type":"string","visibility_policy":"int"}}"#,
        ),
    );
}
