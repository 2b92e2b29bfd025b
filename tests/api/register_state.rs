//! The initial state `POST /register` returns, compared with the endpoints that report the same
//! data on their own.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::org;

fn keys(presences: &Value) -> BTreeSet<String> {
    presences
        .as_object()
        .expect("presences is an object")
        .keys()
        .cloned()
        .collect()
}

/// `register`'s `presences` and `GET /realm/presence` list the same users: deactivated users
/// and users who turned presence sharing off appear in neither.
#[tokio::test]
async fn register_presences_match_realm_presence() {
    let o = org().await;
    for who in [&o.owner, &o.alice, &o.bob] {
        o.srv
            .post("/api/v1/users/me/presence", who, &[("status", "active")])
            .await
            .assert_success("POST /users/me/presence");
    }
    // Bob is deactivated, Alice stops sharing her presence.
    o.srv
        .delete(&format!("/api/v1/users/{}", o.bob.id), &o.owner, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    o.srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("presence_enabled", "false")],
        )
        .await
        .assert_success("PATCH /settings");

    let r = o.srv.get("/api/v1/realm/presence", &o.owner, &[]).await;
    let realm = keys(&r.assert_success("GET /realm/presence")["presences"]);
    let (_, b) = o
        .register(&o.owner, &[("fetch_event_types", r#"["presence"]"#)])
        .await;
    let registered = keys(&b["presences"]);
    let expected: BTreeSet<String> = ["owner@example.com".to_string()].into();
    assert_eq!(realm, expected);
    assert_eq!(registered, expected);

    // The slim form (keyed by user id) lists the same users.
    let (_, b) = o
        .register(
            &o.owner,
            &[
                ("fetch_event_types", r#"["presence"]"#),
                ("slim_presence", "true"),
            ],
        )
        .await;
    let slim: BTreeSet<String> = [o.owner.id.to_string()].into();
    assert_eq!(keys(&b["presences"]), slim);
}

/// A client asking for no presence history gets none, from `POST /register`
/// (`presence_history_limit_days=0`) and from `POST /users/me/presence`
/// (`history_limit_days=0`), as upstream answers.
#[tokio::test]
async fn zero_presence_history_lists_nobody() {
    let o = org().await;
    o.srv
        .post(
            "/api/v1/users/me/presence",
            &o.alice,
            &[("status", "active")],
        )
        .await
        .assert_success("POST /users/me/presence");
    let (_, b) = o
        .register(
            &o.owner,
            &[
                ("fetch_event_types", r#"["presence"]"#),
                ("presence_history_limit_days", "0"),
            ],
        )
        .await;
    assert_eq!(keys(&b["presences"]), BTreeSet::new());
    let r = o
        .srv
        .post(
            "/api/v1/users/me/presence",
            &o.owner,
            &[("status", "active"), ("history_limit_days", "0")],
        )
        .await;
    let b = r.assert_success("POST /users/me/presence");
    assert_eq!(keys(&b["presences"]), BTreeSet::new());
    // Without the limit both list Alice (and the owner, who just reported).
    let (_, b) = o
        .register(&o.owner, &[("fetch_event_types", r#"["presence"]"#)])
        .await;
    let both: BTreeSet<String> =
        ["alice@example.com".to_string(), "owner@example.com".into()].into();
    assert_eq!(keys(&b["presences"]), both);
}

/// The realm limits and policies register reports are the ones the endpoints enforce.
#[tokio::test]
async fn register_limits_are_the_enforced_ones() {
    use outpost::domain::messages::{edit, send};
    use outpost::domain::{channel_folders, channels, presence, users};
    let o = org().await;
    let (_, b) = o
        .register(&o.alice, &[("fetch_event_types", r#"["realm"]"#)])
        .await;
    let expect = [
        ("max_message_length", send::MAX_MESSAGE_LENGTH as i64),
        ("max_topic_length", send::MAX_TOPIC_LENGTH as i64),
        ("max_stream_name_length", channels::MAX_NAME_LENGTH as i64),
        (
            "max_stream_description_length",
            channels::MAX_DESCRIPTION_LENGTH as i64,
        ),
        (
            "max_channel_folder_name_length",
            channel_folders::MAX_NAME_LENGTH as i64,
        ),
        (
            "max_channel_folder_description_length",
            channel_folders::MAX_DESCRIPTION_LENGTH as i64,
        ),
        ("password_min_length", users::MIN_PASSWORD_LENGTH as i64),
        ("password_max_length", users::MAX_PASSWORD_LENGTH as i64),
        (
            "realm_message_content_edit_limit_seconds",
            edit::CONTENT_EDIT_LIMIT_SECS,
        ),
        (
            "realm_move_messages_within_stream_limit_seconds",
            edit::TOPIC_MOVE_LIMIT_SECS,
        ),
        (
            "realm_move_messages_between_streams_limit_seconds",
            edit::CHANNEL_MOVE_LIMIT_SECS,
        ),
        (
            "server_presence_ping_interval_seconds",
            presence::PING_INTERVAL_SECS,
        ),
        (
            "server_presence_offline_threshold_seconds",
            presence::OFFLINE_THRESHOLD_SECS,
        ),
    ];
    for (key, value) in expect {
        assert_eq!(b[key], value, "{key}");
    }
}
