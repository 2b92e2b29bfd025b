//! `PATCH /realm`: organization settings as administrators change them, the `realm`
//! `update_dict` events that announce them, the register state and server settings that
//! report them, and the rules that read them (channel creation, message editing).

use serde_json::{Value, json};

use crate::support::{Org, Reply, TestUser, org, patched, wait_events};

const OWNERS: i64 = 2;
const ADMINISTRATORS: i64 = 3;
const MEMBERS: i64 = 6;
const EVERYONE: i64 = 7;
const INTERNET: i64 = 8;

/// The `realm` state register reports to `who`, with `realm_user` (the caller's own rights).
async fn realm_state(o: &Org, who: &TestUser) -> Value {
    let r = o
        .srv
        .post(
            "/api/v1/register",
            who,
            &[("fetch_event_types", r#"["realm", "realm_user"]"#)],
        )
        .await;
    r.assert_success("POST /register").clone()
}

async fn patch_realm(o: &Org, who: &TestUser, form: &[(&str, &str)]) -> Reply {
    o.srv.patch("/api/v1/realm", who, form).await
}

#[tokio::test]
async fn patched_settings_are_answered_stored_and_registered() {
    let o = org().await;
    let general = o.channel(&o.owner, "general", &[&o.owner], &[]).await;
    let before = realm_state(&o, &o.alice).await;
    assert_eq!(before["realm_name"], "Outpost");
    assert_eq!(before["realm_new_stream_announcements_stream_id"], -1);
    assert_eq!(before["realm_message_content_edit_limit_seconds"], 600);
    assert_eq!(before["realm_can_invite_users_group"], ADMINISTRATORS);

    let general_s = general.to_string();
    let r = patch_realm(
        &o,
        &o.owner,
        &[
            ("name", "Acme Corp"),
            ("description", "Where **Acme** talks"),
            ("default_language", "de"),
            ("waiting_period_threshold", "3"),
            ("allow_message_editing", "false"),
            ("message_content_edit_limit_seconds", r#""unlimited""#),
            ("move_messages_within_stream_limit_seconds", "3600"),
            ("new_stream_announcements_stream_id", &general_s),
            ("moderation_request_channel_id", &general_s),
            ("can_invite_users_group", &json!({"new": MEMBERS}).to_string()),
            (
                "direct_message_permission_group",
                &json!({"new": {"direct_members": [o.alice.id], "direct_subgroups": [ADMINISTRATORS]}, "old": EVERYONE}).to_string(),
            ),
        ],
    )
    .await;
    let b = patched(&r);
    // Upstream's answer names what changed; text settings as "updated".
    assert_eq!(b["name"], "updated");
    assert_eq!(b["waiting_period_threshold"], 3);
    assert_eq!(b["message_content_edit_limit_seconds"], Value::Null);
    assert_eq!(b["new_stream_announcements_stream_id"], general);
    assert_eq!(b["can_invite_users_group"], MEMBERS);
    assert!(b.get("ignored_parameters_unsupported").is_none(), "{b}");

    let s = realm_state(&o, &o.alice).await;
    assert_eq!(s["realm_name"], "Acme Corp");
    assert_eq!(s["realm_description"], "Where **Acme** talks");
    assert_eq!(s["realm_default_language"], "de");
    assert_eq!(s["realm_waiting_period_threshold"], 3);
    assert_eq!(s["realm_allow_message_editing"], false);
    assert_eq!(s["realm_message_content_edit_limit_seconds"], Value::Null);
    assert_eq!(s["realm_move_messages_within_stream_limit_seconds"], 3600);
    assert_eq!(
        s["realm_move_messages_between_streams_limit_seconds"],
        604800
    );
    assert_eq!(s["realm_new_stream_announcements_stream_id"], general);
    assert_eq!(s["realm_moderation_request_channel_id"], general);
    assert_eq!(s["realm_signup_announcements_stream_id"], -1);
    assert_eq!(s["realm_can_invite_users_group"], MEMBERS);
    assert_eq!(
        s["realm_direct_message_permission_group"],
        json!({"direct_members": [o.alice.id], "direct_subgroups": [ADMINISTRATORS]})
    );
    // The invitation right follows the setting.
    assert_eq!(s["can_invite_others_to_realm"], true);

    let r = o.srv.get("/api/v1/server_settings", &o.alice, &[]).await;
    let b = r.assert_success("GET /server_settings");
    assert_eq!(b["realm_name"], "Acme Corp");
    assert_eq!(b["realm_description"], "Where **Acme** talks");

    // -1 unsets a channel setting.
    let r = patch_realm(
        &o,
        &o.admin,
        &[("new_stream_announcements_stream_id", "-1")],
    )
    .await;
    patched(&r);
    let s = realm_state(&o, &o.alice).await;
    assert_eq!(s["realm_new_stream_announcements_stream_id"], -1);

    // A permission for a feature Outpost lacks keeps its value and is reported as ignored.
    let r = patch_realm(
        &o,
        &o.owner,
        &[(
            "can_resolve_topics_group",
            &json!({"new": MEMBERS}).to_string(),
        )],
    )
    .await;
    assert_eq!(
        patched(&r)["ignored_parameters_unsupported"],
        json!(["can_resolve_topics_group"])
    );
    let s = realm_state(&o, &o.alice).await;
    assert_eq!(s["realm_can_resolve_topics_group"], EVERYONE);
}

#[tokio::test]
async fn changes_reach_every_queue_that_asked_for_realm_events_once() {
    let o = org().await;
    let (bobs, _) = o
        .register(&o.bob, &[("event_types", r#"["realm", "message"]"#)])
        .await;
    let (guests, _) = o
        .register(&o.guest, &[("event_types", r#"["realm"]"#)])
        .await;
    let (no_realm, _) = o
        .register(&o.alice, &[("event_types", r#"["message"]"#)])
        .await;

    let r = patch_realm(
        &o,
        &o.admin,
        &[
            ("name", "Renamed"),
            (
                "can_create_public_channel_group",
                &json!({"new": ADMINISTRATORS, "old": MEMBERS}).to_string(),
            ),
        ],
    )
    .await;
    patched(&r);
    // The same values again, and a new description: only the description is news.
    let r = patch_realm(
        &o,
        &o.admin,
        &[
            ("name", "Renamed"),
            (
                "can_create_public_channel_group",
                &json!({"new": ADMINISTRATORS}).to_string(),
            ),
            ("description", "hello"),
        ],
    )
    .await;
    let b = patched(&r);
    assert!(b.get("name").is_none(), "{b}");
    assert_eq!(b["description"], "updated");

    let expected = [
        json!({"type": "realm", "op": "update_dict", "property": "default", "data": {"name": "Renamed"}}),
        json!({"type": "realm", "op": "update_dict", "property": "default", "data": {"can_create_public_channel_group": ADMINISTRATORS}}),
        json!({"type": "realm", "op": "update_dict", "property": "default", "data": {"description": "hello"}}),
    ];
    for (who, q) in [(&o.bob, &bobs), (&o.guest, &guests)] {
        let ev = wait_events(&o, who, q, 3).await;
        let got: Vec<Value> = ev
            .iter()
            .map(|e| {
                let mut e = e.clone();
                e.as_object_mut().unwrap().remove("id");
                e
            })
            .collect();
        assert_eq!(got, expected, "{}", who.email);
    }
    let ev = o.events(&o.alice, &no_realm, -1).await;
    assert!(ev.iter().all(|e| e["type"] != "realm"), "{ev:?}");

    // No parameters: nothing to change, nothing announced (upstream answers success).
    let r = patch_realm(&o, &o.admin, &[]).await;
    patched(&r);
    let ev = o.events(&o.bob, &bobs, -1).await;
    assert_eq!(ev.len(), 3, "{ev:?}");
}

#[tokio::test]
async fn only_administrators_and_owners_where_upstream_says_so() {
    let o = org().await;
    for who in [&o.alice, &o.guest] {
        let r = patch_realm(&o, who, &[("name", "Mine")]).await;
        assert_eq!(
            r.assert_error(400, "UNAUTHORIZED_PRINCIPAL")["msg"],
            "Must be an organization administrator"
        );
    }
    let members = json!({"new": MEMBERS}).to_string();
    for (name, value) in [
        ("waiting_period_threshold", "5"),
        ("can_invite_users_group", members.as_str()),
        ("create_multiuse_invite_group", members.as_str()),
        ("can_create_groups", members.as_str()),
        ("can_manage_all_groups", members.as_str()),
    ] {
        // Together with a change an administrator may make: the whole request is refused.
        let r = patch_realm(&o, &o.admin, &[("name", "Admin's"), (name, value)]).await;
        assert_eq!(
            r.assert_error(400, "UNAUTHORIZED_PRINCIPAL")["msg"],
            "Must be an organization owner",
            "{name}"
        );
    }
    let s = realm_state(&o, &o.owner).await;
    assert_eq!(s["realm_name"], "Outpost");
    assert_eq!(s["realm_waiting_period_threshold"], 0);
    assert_eq!(s["realm_can_invite_users_group"], ADMINISTRATORS);
    assert_eq!(s["realm_can_create_groups"], MEMBERS);

    // The owner may.
    let admins = json!({"new": ADMINISTRATORS}).to_string();
    let r = patch_realm(&o, &o.owner, &[("can_create_groups", &admins)]).await;
    patched(&r);
    let s = realm_state(&o, &o.owner).await;
    assert_eq!(s["realm_can_create_groups"], ADMINISTRATORS);
}

#[tokio::test]
async fn bad_values_are_refused_and_change_nothing() {
    let o = org().await;
    let (q, _) = o.register(&o.bob, &[("event_types", r#"["realm"]"#)]).await;
    let archived = o.channel(&o.owner, "old", &[&o.owner], &[]).await;
    let r = o
        .srv
        .delete(&format!("/api/v1/streams/{archived}"), &o.owner, &[])
        .await;
    r.assert_success("DELETE /streams/{stream_id}");
    let archived = archived.to_string();
    let group = |v: Value| v.to_string();
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "default_language",
            "xx".into(),
            "BAD_REQUEST",
            "Invalid language 'xx'",
        ),
        (
            "name",
            "n".repeat(41),
            "BAD_REQUEST",
            "name is too long (limit: 40 characters)",
        ),
        (
            "name",
            "  ".into(),
            "BAD_REQUEST",
            "Organization name can't be empty.",
        ),
        (
            "description",
            "a\u{0}b".into(),
            "BAD_REQUEST",
            "description must not contain null bytes",
        ),
        (
            "waiting_period_threshold",
            "-1".into(),
            "BAD_REQUEST",
            "waiting_period_threshold is too small",
        ),
        (
            "waiting_period_threshold",
            "1.5".into(),
            "BAD_REQUEST",
            "waiting_period_threshold is not an integer",
        ),
        (
            "allow_message_editing",
            "maybe".into(),
            "BAD_REQUEST",
            "allow_message_editing is not valid JSON",
        ),
        (
            "message_content_edit_limit_seconds",
            "0".into(),
            "BAD_REQUEST",
            "Bad value for 'message_content_edit_limit_seconds': 0",
        ),
        (
            "move_messages_between_streams_limit_seconds",
            r#""forever""#.into(),
            "BAD_REQUEST",
            r#"Bad value for 'move_messages_between_streams_limit_seconds': "forever""#,
        ),
        (
            "new_stream_announcements_stream_id",
            "99999".into(),
            "BAD_REQUEST",
            "Invalid channel ID",
        ),
        (
            "moderation_request_channel_id",
            "-5".into(),
            "BAD_REQUEST",
            "Invalid channel ID",
        ),
        (
            "signup_announcements_stream_id",
            archived.clone(),
            "BAD_REQUEST",
            "Invalid channel ID",
        ),
        (
            "can_create_public_channel_group",
            group(json!({"new": INTERNET})),
            "BAD_REQUEST",
            "'can_create_public_channel_group' setting cannot be set to 'role:internet' group.",
        ),
        (
            "can_create_private_channel_group",
            group(json!({"new": EVERYONE})),
            "BAD_REQUEST",
            "'can_create_private_channel_group' setting cannot be set to 'role:everyone' group.",
        ),
        (
            "can_manage_all_groups",
            group(json!({"new": {"direct_members": [], "direct_subgroups": []}})),
            "BAD_REQUEST",
            "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.",
        ),
        (
            "direct_message_initiator_group",
            group(json!({"new": 99999})),
            "BAD_REQUEST",
            "Invalid user group ID: 99999",
        ),
        (
            "direct_message_permission_group",
            group(json!({"new": {"direct_members": [99999], "direct_subgroups": []}})),
            "BAD_REQUEST",
            "Invalid user ID: 99999",
        ),
        (
            "can_invite_users_group",
            group(json!({"new": MEMBERS, "old": OWNERS})),
            "EXPECTATION_MISMATCH",
            "'old' value does not match the expected value.",
        ),
        (
            "can_invite_users_group",
            group(json!(MEMBERS)),
            "BAD_REQUEST",
            "can_invite_users_group is not a dict",
        ),
        (
            "can_invite_users_group",
            group(json!({"old": MEMBERS})),
            "BAD_REQUEST",
            "can_invite_users_group[\"new\"] is missing",
        ),
    ];
    for (name, value, code, msg) in &cases {
        // Each bad value rides with good ones, which must not be applied either.
        let mut form: Vec<(&str, &str)> = [
            ("description", "Should not stick"),
            ("waiting_period_threshold", "9"),
        ]
        .into_iter()
        .filter(|(n, _)| n != name)
        .collect();
        form.push((name, value));
        let r = patch_realm(&o, &o.owner, &form).await;
        assert_eq!(r.assert_error(400, code)["msg"], *msg, "{name}={value:?}");
    }
    let s = realm_state(&o, &o.owner).await;
    assert_eq!(s["realm_name"], "Outpost");
    assert_eq!(s["realm_description"], "");
    assert_eq!(s["realm_waiting_period_threshold"], 0);
    assert_eq!(s["realm_default_language"], "en");
    assert_eq!(s["realm_signup_announcements_stream_id"], -1);
    assert_eq!(s["realm_can_invite_users_group"], ADMINISTRATORS);
    let ev = o.events(&o.bob, &q, -1).await;
    assert!(ev.iter().all(|e| e["type"] != "realm"), "{ev:?}");
}

#[tokio::test]
async fn the_channel_creation_groups_decide_who_may_create_channels() {
    let o = org().await;
    o.channel(&o.alice, "before", &[&o.alice], &[]).await;
    let s = realm_state(&o, &o.alice).await;
    assert_eq!(s["can_create_public_streams"], true);
    assert_eq!(s["realm_create_public_stream_policy"], 1);

    let r = patch_realm(
        &o,
        &o.owner,
        &[(
            "can_create_public_channel_group",
            &json!({"new": ADMINISTRATORS}).to_string(),
        )],
    )
    .await;
    patched(&r);

    let ids = json!([o.alice.id]).to_string();
    let r = o
        .srv
        .post(
            "/api/v1/channels/create",
            &o.alice,
            &[("name", "after"), ("subscribers", &ids)],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Insufficient permission"
    );
    let r = o
        .srv
        .post(
            "/api/v1/users/me/subscriptions",
            &o.alice,
            &[("subscriptions", r#"[{"name": "after"}]"#)],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Insufficient permission"
    );
    assert!(
        !o.stream_names(&o.owner)
            .await
            .contains(&"after".to_string())
    );
    // Private channels follow their own setting, still open to members.
    o.channel(&o.alice, "secret", &[&o.alice], &[("invite_only", "true")])
        .await;
    // Administrators are in the group.
    o.channel(&o.admin, "after", &[&o.admin], &[]).await;

    let s = realm_state(&o, &o.alice).await;
    assert_eq!(s["can_create_public_streams"], false);
    assert_eq!(s["can_create_private_streams"], true);
    assert_eq!(s["can_create_streams"], true);
    assert_eq!(s["realm_can_create_public_channel_group"], ADMINISTRATORS);
    // The legacy policy forms follow the groups (2 = administrators).
    assert_eq!(s["realm_create_public_stream_policy"], 2);
    assert_eq!(s["realm_create_private_stream_policy"], 1);
}

#[tokio::test]
async fn message_editing_follows_the_organization_setting() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice], &[]).await;
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.alice,
            &[
                ("type", "stream"),
                ("to", "general"),
                ("topic", "t"),
                ("content", "first"),
            ],
        )
        .await;
    let id = r.assert_success("POST /messages")["id"].as_i64().unwrap();
    let r = patch_realm(&o, &o.admin, &[("allow_message_editing", "false")]).await;
    patched(&r);
    let path = format!("/api/v1/messages/{id}");
    let r = o.srv.patch(&path, &o.alice, &[("content", "second")]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Your organization has turned off message editing"
    );
    let r = patch_realm(&o, &o.admin, &[("allow_message_editing", "true")]).await;
    patched(&r);
    let r = o.srv.patch(&path, &o.alice, &[("content", "second")]).await;
    r.assert_success("PATCH /messages/{message_id}");
}
