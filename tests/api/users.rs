//! User endpoints: reading, creating, updating, deactivating, statuses and profile fields.

use serde_json::{Value, json};

use outpost::config::EmailVisibility;
use outpost::events::{Event, UserDeactivated, UserGroupMembers, UserReactivated};
use outpost::ids::UserId;
use outpost::model::Role;

use crate::support::{TestServer, TestUser};

struct Org {
    srv: TestServer,
    owner: TestUser,
    admin: TestUser,
    member: TestUser,
    guest: TestUser,
}

async fn org() -> Org {
    org_with(|_| {}).await
}

async fn org_with(adjust: impl FnOnce(&mut outpost::config::Config)) -> Org {
    let srv = TestServer::start_with(adjust).await;
    let owner = srv
        .user_with("owner@example.com", "Olive Owner", Role::Owner, |u| {
            u.can_create_users = true;
            u.can_change_user_emails = true;
        })
        .await;
    let admin = srv
        .user("admin@example.com", "Ada Admin", Role::Administrator)
        .await;
    let member = srv
        .user("member@example.com", "Mel Member", Role::Member)
        .await;
    let guest = srv
        .user("guest@example.com", "Gus Guest", Role::Guest)
        .await;
    Org {
        srv,
        owner,
        admin,
        member,
        guest,
    }
}

fn user_path(u: &TestUser) -> String {
    format!("/api/v1/users/{}", u.id)
}

#[tokio::test]
async fn own_user_has_every_field() {
    let o = org().await;
    let r = o
        .srv
        .get("/api/v1/users/me", &o.owner, &[("client_gravatar", "true")])
        .await;
    let b = r.assert_success("GET /users/me");
    assert_eq!(b["user_id"], o.owner.id);
    assert_eq!(b["email"], "owner@example.com");
    assert_eq!(b["delivery_email"], "owner@example.com");
    assert_eq!(b["full_name"], "Olive Owner");
    assert_eq!(b["role"], 100);
    assert_eq!(b["is_owner"], true);
    assert_eq!(b["is_admin"], true);
    assert_eq!(b["is_guest"], false);
    assert_eq!(b["is_bot"], false);
    assert_eq!(b["is_active"], true);
    // The owner's only message is Welcome Bot's.
    let welcome = o
        .srv
        .get(
            "/api/v1/messages",
            &o.owner,
            &[
                ("anchor", "newest"),
                ("num_before", "1"),
                ("num_after", "0"),
            ],
        )
        .await;
    let welcome = &welcome.assert_success("GET /messages")["messages"][0];
    assert_eq!(welcome["sender_email"], "welcome-bot@zulip.com");
    assert_eq!(b["max_message_id"], welcome["id"]);
    assert_eq!(b["avatar_version"], 1);
    // Own profile always carries a full gravatar URL and never reports ignored parameters.
    assert!(
        b["avatar_url"]
            .as_str()
            .unwrap()
            .starts_with("https://secure.gravatar.com/avatar/")
    );
    assert!(b.get("ignored_parameters_unsupported").is_none());
    let joined = b["date_joined"].as_str().unwrap();
    assert_eq!(joined.len(), "2024-01-01T00:00+00:00".len(), "{joined}");
    let guest = o.srv.get("/api/v1/users/me", &o.guest, &[]).await;
    let g = guest.assert_success("GET /users/me");
    assert_eq!(
        (g["role"].clone(), g["is_guest"].clone()),
        (json!(600), json!(true))
    );
}

#[tokio::test]
async fn list_users_includes_deactivated_and_honours_client_gravatar() {
    let o = org().await;
    o.srv.delete(&user_path(&o.member), &o.owner, &[]).await;
    let r = o.srv.get("/api/v1/users", &o.admin, &[]).await;
    let b = r.assert_success("GET /users");
    let members = b["members"].as_array().unwrap();
    assert_eq!(members.len(), 4);
    let mel = members
        .iter()
        .find(|m| m["user_id"] == o.member.id)
        .unwrap();
    assert_eq!(mel["is_active"], false);
    // client_gravatar defaults to true: gravatar users get null avatar URLs.
    assert!(members.iter().all(|m| m["avatar_url"].is_null()));
    assert!(members.iter().all(|m| m.get("profile_data").is_none()));
    let r = o
        .srv
        .get("/api/v1/users", &o.admin, &[("client_gravatar", "false")])
        .await;
    let b = r.assert_success("GET /users");
    assert!(
        b["members"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["avatar_url"].is_string())
    );
}

#[tokio::test]
async fn get_user_by_id_and_by_email() {
    let o = org().await;
    let r = o.srv.get(&user_path(&o.member), &o.guest, &[]).await;
    let b = r.assert_success("GET /users/{user_id}");
    assert_eq!(b["user"]["full_name"], "Mel Member");
    let r = o
        .srv
        .get("/api/v1/users/MEMBER@example.com", &o.guest, &[])
        .await;
    let b = r.assert_success("GET /users/{email}");
    assert_eq!(b["user"]["user_id"], o.member.id);
    for path in [
        "/api/v1/users/999999",
        "/api/v1/users/nobody@example.com",
        "/api/v1/users/99999999999999999999999",
    ] {
        let r = o.srv.get(path, &o.guest, &[]).await;
        assert_eq!(
            r.assert_error(400, "BAD_REQUEST")["msg"],
            "No such user",
            "{path}"
        );
    }
}

#[tokio::test]
async fn restricted_emails_become_placeholders() {
    let o = org_with(|c| c.chat.email_address_visibility = EmailVisibility::Admins).await;
    let placeholder = format!("user{}@outpost.test", o.member.id);
    // A member sees the placeholder and no real email.
    let r = o.srv.get(&user_path(&o.member), &o.guest, &[]).await;
    let u = &r.assert_success("GET /users/{user_id}")["user"];
    assert_eq!(u["email"], placeholder.as_str());
    assert_eq!(u["delivery_email"], Value::Null);
    // With client_gravatar, the avatar URL is still given when the email is hidden.
    assert!(u["avatar_url"].is_string());
    // An administrator sees the real address too.
    let r = o.srv.get(&user_path(&o.member), &o.admin, &[]).await;
    let u = &r.assert_success("GET /users/{user_id}")["user"];
    assert_eq!(u["email"], placeholder.as_str());
    assert_eq!(u["delivery_email"], "member@example.com");
    assert_eq!(u["avatar_url"], Value::Null);
    // By-email lookups: the real address only works for those who may see it.
    let r = o
        .srv
        .get("/api/v1/users/member@example.com", &o.guest, &[])
        .await;
    r.assert_error(400, "BAD_REQUEST");
    let r = o
        .srv
        .get(&format!("/api/v1/users/{placeholder}"), &o.guest, &[])
        .await;
    assert_eq!(
        r.assert_success("GET /users/{email}")["user"]["user_id"],
        o.member.id
    );
    let r = o
        .srv
        .get("/api/v1/users/member@example.com", &o.admin, &[])
        .await;
    r.assert_success("GET /users/{email}");
    // Basic auth still uses the real address.
    o.srv
        .get("/api/v1/users/me", &o.member, &[])
        .await
        .assert_success("GET /users/me");
}

#[tokio::test]
async fn create_user_needs_admin_and_permission() {
    let o = org().await;
    let form = [
        ("email", "new@example.com"),
        ("password", "s3cret-pass"),
        ("full_name", "New Person"),
    ];
    let r = o.srv.post("/api/v1/users", &o.member, &form).await;
    assert_eq!(
        r.assert_error(400, "UNAUTHORIZED_PRINCIPAL")["msg"],
        "Must be an organization administrator"
    );
    let r = o.srv.post("/api/v1/users", &o.admin, &form).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "User not authorized to create users"
    );
    let r = o.srv.post("/api/v1/users", &o.owner, &form[..2]).await;
    assert_eq!(
        r.assert_error(400, "REQUEST_VARIABLE_MISSING")["var_name"],
        "full_name"
    );

    let r = o.srv.post("/api/v1/users", &o.owner, &form).await;
    let id = r.assert_success("POST /users")["user_id"].as_i64().unwrap();
    let r = o
        .srv
        .get(&format!("/api/v1/users/{id}"), &o.owner, &[])
        .await;
    let u = &r.assert_success("GET /users/{user_id}")["user"];
    assert_eq!(
        (u["full_name"].clone(), u["role"].clone()),
        (json!("New Person"), json!(400))
    );
    // The password works.
    let r = o
        .srv
        .call(
            hyper::Method::POST,
            "/api/v1/fetch_api_key",
            None,
            &[("username", "new@example.com"), ("password", "s3cret-pass")],
        )
        .await;
    assert_eq!(r.assert_success("POST /fetch_api_key")["user_id"], id);

    for (email, pw, name, msg) in [
        (
            "NEW@example.com",
            "s3cret-pass",
            "Other",
            "Email is already in use.",
        ),
        (
            "not an email",
            "s3cret-pass",
            "Other",
            "Bad name or username",
        ),
        (
            "x@example.com",
            "s3cret-pass",
            "A*B",
            "Bad name or username",
        ),
        (
            "y@example.com",
            "abc",
            "Why Not",
            "The password is too weak.",
        ),
    ] {
        let r = o
            .srv
            .post(
                "/api/v1/users",
                &o.owner,
                &[("email", email), ("password", pw), ("full_name", name)],
            )
            .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg, "{email}");
    }
    let r = o.srv.get("/api/v1/users", &o.owner, &[]).await;
    assert_eq!(r.body["members"].as_array().unwrap().len(), 5);
}

#[tokio::test]
async fn role_changes_follow_the_owner_rules() {
    let o = org().await;
    let set_role = |who: &TestUser, target: &TestUser, role: &str| {
        let path = user_path(target);
        let who = who.clone();
        let role = role.to_string();
        let srv = &o.srv;
        async move { srv.patch(&path, &who, &[("role", role.as_str())]).await }
    };
    // Members may not change roles at all.
    set_role(&o.member, &o.guest, "400")
        .await
        .assert_error(400, "UNAUTHORIZED_PRINCIPAL");
    // Administrators change non-owner roles.
    set_role(&o.admin, &o.member, "300")
        .await
        .assert_success("PATCH /users/{user_id}");
    let r = o.srv.get(&user_path(&o.member), &o.admin, &[]).await;
    assert_eq!(r.body["user"]["role"], 300);
    // ... but cannot grant or remove ownership.
    let r = set_role(&o.admin, &o.member, "100").await;
    assert_eq!(
        r.assert_error(400, "UNAUTHORIZED_PRINCIPAL")["msg"],
        "Must be an organization owner"
    );
    set_role(&o.admin, &o.owner, "200")
        .await
        .assert_error(400, "UNAUTHORIZED_PRINCIPAL");
    // The only owner keeps the role.
    let r = set_role(&o.owner, &o.owner, "200").await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "The owner permission cannot be removed from the only organization owner."
    );
    // A guest cannot become an administrator directly.
    let r = set_role(&o.owner, &o.guest, "200").await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Guests cannot be organization administrators"
    );
    set_role(&o.owner, &o.member, "7")
        .await
        .assert_error(400, "BAD_REQUEST");
    // Owners make owners; then the first may step down.
    set_role(&o.owner, &o.admin, "100")
        .await
        .assert_success("PATCH /users/{user_id}");
    set_role(&o.owner, &o.owner, "400")
        .await
        .assert_success("PATCH /users/{user_id}");
    let r = o.srv.get(&user_path(&o.owner), &o.admin, &[]).await;
    assert_eq!(r.body["user"]["is_owner"], false);
}

#[tokio::test]
async fn update_name_and_email() {
    let o = org().await;
    let r = o
        .srv
        .patch(
            &user_path(&o.member),
            &o.admin,
            &[("full_name", "  Melody M  ")],
        )
        .await;
    r.assert_success("PATCH /users/{user_id}");
    let r = o.srv.get(&user_path(&o.member), &o.admin, &[]).await;
    assert_eq!(r.body["user"]["full_name"], "Melody M");
    for (name, msg) in [
        ("x", "Name too short!"),
        ("a@b", "Invalid characters in name!"),
    ] {
        let r = o
            .srv
            .patch(&user_path(&o.member), &o.admin, &[("full_name", name)])
            .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    let long = "n".repeat(101);
    let r = o
        .srv
        .patch(
            &user_path(&o.member),
            &o.admin,
            &[("full_name", long.as_str())],
        )
        .await;
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "Name too long!");
    // Email changes need an owner with can_change_user_emails.
    let r = o
        .srv
        .patch(
            &user_path(&o.member),
            &o.admin,
            &[("new_email", "mel@example.com")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "User not authorized to change user emails"
    );
    let r = o
        .srv
        .patch(
            &user_path(&o.member),
            &o.owner,
            &[("new_email", "admin@example.com")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Email is already in use."
    );
    let r = o
        .srv
        .patch(
            &user_path(&o.member),
            &o.owner,
            &[("new_email", "mel@example.com")],
        )
        .await;
    r.assert_success("PATCH /users/{user_id}");
    let moved = TestUser {
        email: "mel@example.com".into(),
        ..o.member.clone()
    };
    let r = o.srv.get("/api/v1/users/me", &moved, &[]).await;
    assert_eq!(
        r.assert_success("GET /users/me")["delivery_email"],
        "mel@example.com"
    );
    // The old address no longer authenticates.
    o.srv
        .get("/api/v1/users/me", &o.member, &[])
        .await
        .assert_error(401, "UNAUTHORIZED");
    // By email in the path.
    let r = o
        .srv
        .patch(
            "/api/v1/users/mel@example.com",
            &o.admin,
            &[("full_name", "Mel Again")],
        )
        .await;
    r.assert_success("PATCH /users/{email}");
    let r = o
        .srv
        .patch(
            "/api/v1/users/ghost@example.com",
            &o.admin,
            &[("full_name", "Ghost")],
        )
        .await;
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "No such user");
}

#[tokio::test]
async fn failed_update_changes_nothing() {
    let o = org().await;
    // A valid name with an invalid role: neither applies.
    let r = o
        .srv
        .patch(
            &user_path(&o.guest),
            &o.owner,
            &[("full_name", "Renamed Guest"), ("role", "200")],
        )
        .await;
    r.assert_error(400, "BAD_REQUEST");
    let r = o.srv.get(&user_path(&o.guest), &o.owner, &[]).await;
    assert_eq!(r.body["user"]["full_name"], "Gus Guest");
    assert_eq!(r.body["user"]["role"], 600);
}

#[tokio::test]
async fn deactivation_rules_and_events() {
    let o = org().await;
    let mut events = o.srv.state.hub.subscribe();
    o.srv
        .delete(&user_path(&o.guest), &o.member, &[])
        .await
        .assert_error(400, "UNAUTHORIZED_PRINCIPAL");
    let r = o.srv.delete(&user_path(&o.owner), &o.admin, &[]).await;
    assert_eq!(
        r.assert_error(400, "UNAUTHORIZED_PRINCIPAL")["msg"],
        "Must be an organization owner"
    );
    let r = o.srv.delete(&user_path(&o.owner), &o.owner, &[]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Cannot deactivate the only organization owner"
    );
    let r = o.srv.delete("/api/v1/users/424242", &o.admin, &[]).await;
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "No such user");
    // No event was published for any refused request.
    assert!(events.try_recv().is_err());

    o.srv
        .delete(&user_path(&o.guest), &o.admin, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    let ev = events.recv().await.unwrap();
    assert_eq!(
        *ev,
        Event::UserDeactivated(UserDeactivated {
            user_id: UserId(o.guest.id)
        })
    );
    // The system group of their role loses them.
    let ev = events.recv().await.unwrap();
    assert_eq!(
        *ev,
        Event::UserGroupMembers(UserGroupMembers {
            group_id: outpost::ids::GroupId(7),
            user_ids: vec![UserId(o.guest.id)],
            add: false
        })
    );
    // Deactivating again: the user is gone from the active set.
    let r = o.srv.delete(&user_path(&o.guest), &o.admin, &[]).await;
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "No such user");

    let path = format!("/api/v1/users/{}/reactivate", o.guest.id);
    o.srv
        .post(&path, &o.member, &[])
        .await
        .assert_error(400, "UNAUTHORIZED_PRINCIPAL");
    o.srv
        .post(&path, &o.admin, &[])
        .await
        .assert_success("POST /users/{user_id}/reactivate");
    let ev = events.recv().await.unwrap();
    assert_eq!(
        *ev,
        Event::UserReactivated(UserReactivated {
            user_id: UserId(o.guest.id)
        })
    );
    let ev = events.recv().await.unwrap();
    assert_eq!(
        *ev,
        Event::UserGroupMembers(UserGroupMembers {
            group_id: outpost::ids::GroupId(7),
            user_ids: vec![UserId(o.guest.id)],
            add: true
        })
    );
    let r = o.srv.post(&path, &o.admin, &[]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "User is already active."
    );
}

#[tokio::test]
async fn statuses() {
    let o = org().await;
    let status_path = format!("/api/v1/users/{}/status", o.member.id);
    let r = o.srv.get(&status_path, &o.guest, &[]).await;
    assert_eq!(
        r.assert_success("GET /users/{user_id}/status")["status"],
        json!({})
    );
    let r = o.srv.get("/api/v1/users/9999/status", &o.guest, &[]).await;
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "No such user");

    let r = o
        .srv
        .post(
            "/api/v1/users/me/status",
            &o.member,
            &[
                ("status_text", "  In a meeting "),
                ("emoji_name", "car"),
                ("away", "true"),
            ],
        )
        .await;
    r.assert_success("POST /users/me/status");
    let r = o.srv.get(&status_path, &o.guest, &[]).await;
    assert_eq!(
        r.assert_success("GET /users/{user_id}/status")["status"],
        json!({"away": true, "status_text": "In a meeting", "emoji_name": "car",
               "emoji_code": "1f697", "reaction_type": "unicode_emoji"})
    );
    // Clearing text and emoji, coming back.
    o.srv
        .post(
            "/api/v1/users/me/status",
            &o.member,
            &[("status_text", ""), ("emoji_name", ""), ("away", "false")],
        )
        .await
        .assert_success("POST /users/me/status");
    let r = o.srv.get(&status_path, &o.guest, &[]).await;
    assert_eq!(r.body["status"], json!({}));

    for (form, msg) in [
        (vec![], "Client did not pass any new values."),
        (
            vec![("emoji_code", "1f697")],
            "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
        ),
        (
            vec![("emoji_name", "no_such_emoji")],
            "Emoji 'no_such_emoji' does not exist",
        ),
        (
            vec![("emoji_name", "car"), ("emoji_code", "1f419")],
            "Invalid emoji name.",
        ),
        (
            vec![("emoji_name", "car"), ("emoji_code", "zzz")],
            "Invalid emoji code.",
        ),
    ] {
        let r = o
            .srv
            .post("/api/v1/users/me/status", &o.member, &form)
            .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    let long = "s".repeat(61);
    let r = o
        .srv
        .post(
            "/api/v1/users/me/status",
            &o.member,
            &[("status_text", long.as_str())],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "status_text is too long (limit: 60 characters)"
    );
}

#[tokio::test]
async fn custom_profile_fields_and_profile_data() {
    let o = org().await;
    let create = |who: &TestUser, form: Vec<(&'static str, &'static str)>| {
        let srv = &o.srv;
        let who = who.clone();
        async move { srv.post("/api/v1/realm/profile_fields", &who, &form).await }
    };
    create(&o.member, vec![("name", "Phone"), ("field_type", "1")])
        .await
        .assert_error(400, "UNAUTHORIZED_PRINCIPAL");
    let phone = create(
        &o.admin,
        vec![("name", "Phone"), ("hint", "Work"), ("field_type", "1")],
    )
    .await;
    let phone = phone.body["id"].as_i64().expect("field id");
    let bio = create(&o.admin, vec![("name", "Biography"), ("field_type", "2")]).await;
    let bio = bio.body["id"].as_i64().unwrap();
    let food = create(
        &o.admin,
        vec![
            ("name", "Food"),
            ("field_type", "3"),
            (
                "field_data",
                r#"{"0":{"text":"Pizza","order":"1"},"1":{"text":"Soup","order":"2"}}"#,
            ),
        ],
    )
    .await;
    let food = food.body["id"].as_i64().unwrap();
    for (form, msg) in [
        (
            vec![("name", "phone"), ("field_type", "1")],
            "A field with that label already exists.",
        ),
        (
            vec![("name", ""), ("field_type", "1")],
            "Label cannot be blank.",
        ),
        (
            vec![("name", "X"), ("field_type", "99")],
            "Invalid field type.",
        ),
        (
            vec![("name", "Y"), ("field_type", "3"), ("field_data", "{}")],
            "Field must have at least one choice.",
        ),
    ] {
        let r = create(&o.admin, form).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }

    let r = o
        .srv
        .get("/api/v1/realm/profile_fields", &o.guest, &[])
        .await;
    let fields = r.assert_success("GET /realm/profile_fields")["custom_fields"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(fields.len(), 3);
    assert_eq!(fields[0]["name"], "Phone");
    assert_eq!(fields[0]["hint"], "Work");
    assert_eq!(fields[0]["type"], 1);
    assert_eq!(fields[2]["type"], 3);

    let data = json!([
        {"id": phone, "value": "+1 555 0100"},
        {"id": bio, "value": "Likes **bold** <b>text</b>"},
        {"id": food, "value": "1"},
    ])
    .to_string();
    o.srv
        .patch(
            &user_path(&o.member),
            &o.admin,
            &[("profile_data", data.as_str())],
        )
        .await
        .assert_success("PATCH /users/{user_id}");
    let r = o
        .srv
        .get(
            &user_path(&o.member),
            &o.guest,
            &[("include_custom_profile_fields", "true")],
        )
        .await;
    let pd = &r.assert_success("GET /users/{user_id}")["user"]["profile_data"];
    assert_eq!(pd[phone.to_string()], json!({"value": "+1 555 0100"}));
    assert_eq!(
        pd[bio.to_string()],
        json!({"value": "Likes **bold** <b>text</b>",
               "rendered_value": "<p>Likes <strong>bold</strong> &lt;b&gt;text&lt;/b&gt;</p>"})
    );
    assert_eq!(pd[food.to_string()], json!({"value": "1"}));
    let r = o
        .srv
        .get(
            "/api/v1/users",
            &o.guest,
            &[("include_custom_profile_fields", "true")],
        )
        .await;
    let b = r.assert_success("GET /users");
    let mel = b["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["user_id"] == o.member.id)
        .unwrap();
    assert_eq!(
        mel["profile_data"][phone.to_string()]["value"],
        "+1 555 0100"
    );

    // Bad values change nothing, not even the valid ones in the same request.
    for (value, msg) in [
        (
            json!([{"id": phone, "value": "x"}, {"id": food, "value": "7"}]),
            "'7' is not a valid choice for 'Food'.",
        ),
        (
            json!([{"id": 4242, "value": "x"}]),
            "Field id 4242 not found.",
        ),
        (json!({"id": phone}), "profile_data is not a list"),
    ] {
        let r = o
            .srv
            .patch(
                &user_path(&o.member),
                &o.admin,
                &[("profile_data", value.to_string().as_str())],
            )
            .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
    let r = o
        .srv
        .get(
            &user_path(&o.member),
            &o.guest,
            &[("include_custom_profile_fields", "true")],
        )
        .await;
    assert_eq!(
        r.body["user"]["profile_data"][phone.to_string()]["value"],
        "+1 555 0100"
    );
    // An empty value clears the field.
    let clear = json!([{"id": phone, "value": ""}]).to_string();
    o.srv
        .patch(
            &user_path(&o.member),
            &o.admin,
            &[("profile_data", clear.as_str())],
        )
        .await
        .assert_success("PATCH /users/{user_id}");
    let r = o
        .srv
        .get(
            &user_path(&o.member),
            &o.guest,
            &[("include_custom_profile_fields", "true")],
        )
        .await;
    assert!(
        r.body["user"]["profile_data"]
            .get(phone.to_string())
            .is_none()
    );
}

#[tokio::test]
async fn own_record_follows_every_change_it_shows() {
    let o = org().await;
    let me = |who: &TestUser| {
        let srv = &o.srv;
        let who = who.clone();
        async move {
            srv.get("/api/v1/users/me", &who, &[])
                .await
                .assert_success("GET /users/me")
                .clone()
        }
    };
    let first = me(&o.member).await;
    // Asked again with nothing changed: the same answer.
    assert_eq!(me(&o.member).await, first);
    // A new name.
    o.srv
        .patch(
            "/api/v1/settings",
            &o.member,
            &[("full_name", "Mel Renamed")],
        )
        .await
        .assert_success("PATCH /settings");
    assert_eq!(me(&o.member).await["full_name"], "Mel Renamed");
    // A message received.
    let to = json!([o.member.id]).to_string();
    let sent = o
        .srv
        .post(
            "/api/v1/messages",
            &o.owner,
            &[("type", "direct"), ("to", to.as_str()), ("content", "hi")],
        )
        .await;
    let id = sent.assert_success("POST /messages")["id"].clone();
    assert_eq!(me(&o.member).await["max_message_id"], id);
    // A profile value.
    let field = o
        .srv
        .post(
            "/api/v1/realm/profile_fields",
            &o.admin,
            &[("name", "Phone"), ("field_type", "1")],
        )
        .await;
    let field = field.body["id"].as_i64().unwrap();
    let data = json!([{"id": field, "value": "555"}]).to_string();
    // Seen once without it, so the answer kept must change.
    assert!(
        me(&o.member).await["profile_data"]
            .get(field.to_string())
            .is_none()
    );
    o.srv
        .patch(
            &user_path(&o.member),
            &o.admin,
            &[("profile_data", data.as_str())],
        )
        .await
        .assert_success("PATCH /users/{user_id}");
    assert_eq!(
        me(&o.member).await["profile_data"][field.to_string()]["value"],
        "555"
    );
    // A new role.
    o.srv
        .patch(&user_path(&o.member), &o.owner, &[("role", "300")])
        .await
        .assert_success("PATCH /users/{user_id}");
    assert_eq!(me(&o.member).await["role"], 300);
    // And another user's answer is theirs.
    assert_eq!(me(&o.admin).await["full_name"], "Ada Admin");
}

#[tokio::test]
async fn members_edit_and_clear_their_own_profile_fields() {
    let o = org().await;
    let field = |name: &'static str, editable: &'static str| {
        let srv = &o.srv;
        let admin = &o.admin;
        async move {
            let r = srv
                .post(
                    "/api/v1/realm/profile_fields",
                    admin,
                    &[
                        ("name", name),
                        ("field_type", "1"),
                        ("editable_by_user", editable),
                    ],
                )
                .await;
            r.body["id"].as_i64().unwrap()
        }
    };
    let phone = field("Phone", "true").await;
    let badge = field("Badge number", "false").await;
    let me = |who: &TestUser| {
        let srv = &o.srv;
        let who = who.clone();
        async move {
            let r = srv.get("/api/v1/users/me", &who, &[]).await;
            r.assert_success("GET /users/me")["profile_data"].clone()
        }
    };

    let data = json!([{"id": phone, "value": "555-0100"}]).to_string();
    o.srv
        .patch(
            "/api/v1/users/me/profile_data",
            &o.member,
            &[("data", data.as_str())],
        )
        .await
        .assert_success("PATCH /users/me/profile_data");
    assert_eq!(me(&o.member).await[phone.to_string()]["value"], "555-0100");

    // A field only administrators may change refuses the whole request.
    let data = json!([{"id": phone, "value": "555-0199"}, {"id": badge, "value": "7"}]).to_string();
    let r = o
        .srv
        .patch(
            "/api/v1/users/me/profile_data",
            &o.member,
            &[("data", data.as_str())],
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.body["msg"],
        "You are not allowed to change this field. Contact an administrator to update it."
    );
    let now = me(&o.member).await;
    assert_eq!(now[phone.to_string()]["value"], "555-0100");
    assert!(now.get(badge.to_string()).is_none());
    // An administrator may change their own.
    let data = json!([{"id": badge, "value": "7"}]).to_string();
    o.srv
        .patch(
            "/api/v1/users/me/profile_data",
            &o.admin,
            &[("data", data.as_str())],
        )
        .await
        .assert_success("PATCH /users/me/profile_data");
    assert_eq!(me(&o.admin).await[badge.to_string()]["value"], "7");

    for (data, msg) in [
        (
            json!([{"id": 999_999, "value": "x"}]).to_string(),
            "Field id 999999 not found.",
        ),
        ("{}".to_string(), "data is not a list"),
        ("[1]".to_string(), "data[0] is not a dict"),
        (
            json!([{"id": phone}]).to_string(),
            "data[0][\"value\"] key is missing from data[0]",
        ),
    ] {
        let r = o
            .srv
            .patch(
                "/api/v1/users/me/profile_data",
                &o.member,
                &[("data", data.as_str())],
            )
            .await;
        assert_eq!(
            (r.status, r.body["msg"].as_str()),
            (400, Some(msg)),
            "{data}"
        );
    }
    let r = o
        .srv
        .patch("/api/v1/users/me/profile_data", &o.member, &[])
        .await;
    assert_eq!(r.body["msg"], "Missing 'data' argument");

    // DELETE clears the listed fields.
    let r = o
        .srv
        .delete(
            "/api/v1/users/me/profile_data",
            &o.member,
            &[("data", "[\"x\"]")],
        )
        .await;
    assert_eq!(r.body["msg"], "data[0] is not an integer");
    let ids = json!([phone]).to_string();
    o.srv
        .delete(
            "/api/v1/users/me/profile_data",
            &o.member,
            &[("data", ids.as_str())],
        )
        .await
        .assert_success("DELETE /users/me/profile_data");
    assert!(me(&o.member).await.get(phone.to_string()).is_none());
}
