//! The initial state `POST /register` returns, compared with the endpoints that report the same
//! data on their own.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::channels::org;

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
