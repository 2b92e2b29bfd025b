//! `PATCH /settings`: personal settings, name and password changes, and the events and
//! register state that reflect them.

use serde_json::{Value, json};

use crate::support::{org, wait_events};

fn of_type<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

#[tokio::test]
async fn settings_change_is_announced_and_registered() {
    let o = org().await;
    let (modern, _) = o
        .register(
            &o.alice,
            &[(
                "client_capabilities",
                "{\"notification_settings_null\":false,\"user_settings_object\":true}",
            )],
        )
        .await;
    let (legacy, _) = o.register(&o.alice, &[]).await;
    let (bobs, _) = o.register(&o.bob, &[]).await;

    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[
                ("twenty_four_hour_time", "true"),
                ("default_language", "de"),
                ("enable_sounds", "false"),
                ("send_read_receipts", "false"),
                ("timezone", "Europe/Berlin"),
                ("no_such_setting", "1"),
            ],
        )
        .await;
    let b = r.assert_success("PATCH /settings");
    assert_eq!(
        b["ignored_parameters_unsupported"],
        json!(["no_such_setting"])
    );

    let ev = wait_events(&o, &o.alice, &modern, 6).await;
    let updates = of_type(&ev, "user_settings");
    let props: Vec<&str> = updates
        .iter()
        .map(|e| e["property"].as_str().unwrap())
        .collect();
    assert_eq!(
        props,
        [
            "twenty_four_hour_time",
            "default_language",
            "enable_sounds",
            "send_read_receipts",
            "timezone"
        ]
    );
    assert_eq!(updates[0]["value"], true);
    assert_eq!(updates[0]["op"], "update");
    assert_eq!(updates[1]["language_name"], "Deutsch");
    assert!(of_type(&ev, "update_display_settings").is_empty());

    // Without `user_settings_object` the deprecated forms come too.
    let ev = wait_events(&o, &o.alice, &legacy, 10).await;
    assert_eq!(of_type(&ev, "user_settings").len(), 5);
    let display = of_type(&ev, "update_display_settings");
    let names: Vec<&str> = display
        .iter()
        .map(|e| e["setting_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["twenty_four_hour_time", "default_language", "timezone"]
    );
    assert_eq!(display[0]["user"], o.alice.email);
    assert_eq!(display[1]["setting"], "de");
    assert_eq!(display[1]["language_name"], "Deutsch");
    let notif = of_type(&ev, "update_global_notifications");
    assert_eq!(notif.len(), 1);
    assert_eq!(notif[0]["notification_name"], "enable_sounds");
    assert_eq!(notif[0]["setting"], false);

    // Others hear only about the new time zone, as a person update.
    let ev = wait_events(&o, &o.bob, &bobs, 1).await;
    assert!(of_type(&ev, "user_settings").is_empty());
    let people = of_type(&ev, "realm_user");
    assert_eq!(people.len(), 1);
    assert_eq!(people[0]["person"]["timezone"], "Europe/Berlin");

    // A new registration sees the stored values, in both forms.
    let (_, b) = o.register(&o.alice, &[]).await;
    assert_eq!(b["user_settings"]["twenty_four_hour_time"], true);
    assert_eq!(b["user_settings"]["default_language"], "de");
    assert_eq!(b["user_settings"]["send_read_receipts"], false);
    assert_eq!(b["user_settings"]["timezone"], "Europe/Berlin");
    assert_eq!(b["user_settings"]["color_scheme"], 1);
    assert_eq!(b["twenty_four_hour_time"], true);
    assert_eq!(b["enable_sounds"], false);

    // Setting a value it already has announces nothing.
    o.srv
        .patch("/api/v1/settings", &o.alice, &[("enable_sounds", "false")])
        .await
        .assert_success("PATCH /settings");
    // A later change is the marker that the repeated one has been passed over.
    o.srv
        .patch("/api/v1/settings", &o.alice, &[("enter_sends", "true")])
        .await
        .assert_success("PATCH /settings");
    let ev = wait_events(&o, &o.alice, &modern, 7).await;
    let updates = of_type(&ev, "user_settings");
    assert_eq!(updates.len(), 6);
    assert_eq!(updates[5]["property"], "enter_sends");
}

#[tokio::test]
async fn bad_settings_are_refused_and_change_nothing() {
    let o = org().await;
    for (name, value, msg) in [
        ("color_scheme", "9", "Invalid color_scheme"),
        ("enter_sends", "yes", "enter_sends is not a boolean"),
        (
            "web_font_size_px",
            "big",
            "web_font_size_px is not an integer",
        ),
        ("emojiset", "comic", "Invalid emojiset"),
        ("default_language", "xx", "Invalid default_language"),
        (
            "timezone",
            "Mars/Olympus Mons",
            "Not a recognized time zone",
        ),
    ] {
        let r = o
            .srv
            .patch(
                "/api/v1/settings",
                &o.alice,
                &[("twenty_four_hour_time", "true"), (name, value)],
            )
            .await;
        assert_eq!(
            r.assert_error(400, "BAD_REQUEST")["msg"],
            msg,
            "{name}={value}"
        );
    }
    let r = o
        .srv
        .patch("/api/v1/settings", &o.alice, &[("email", "new@")])
        .await;
    // A valid address starts a confirmation (tests/api/mail.rs); an invalid one is refused.
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid address."
    );
    // The deprecated alias paths reach the same endpoint.
    o.srv
        .patch(
            "/api/v1/settings/display",
            &o.alice,
            &[("color_scheme", "2")],
        )
        .await
        .assert_success("PATCH /settings");
    let (_, b) = o.register(&o.alice, &[]).await;
    assert_eq!(b["user_settings"]["color_scheme"], 2);
    assert_eq!(b["user_settings"]["twenty_four_hour_time"], false);
    assert_eq!(b["user_settings"]["timezone"], "");
    assert_eq!(b["email"], o.alice.email);
}

#[tokio::test]
async fn name_and_password_changes() {
    let o = org().await;
    o.srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("full_name", "Alice Aardvark")],
        )
        .await
        .assert_success("PATCH /settings");
    let r = o.srv.get("/api/v1/users/me", &o.alice, &[]).await;
    assert_eq!(
        r.assert_success("GET /users/me")["full_name"],
        "Alice Aardvark"
    );
    let r = o
        .srv
        .patch("/api/v1/settings", &o.alice, &[("full_name", "A")])
        .await;
    r.assert_error(400, "BAD_REQUEST");

    // `presence_enabled` lives on the user row; it reads back like any other setting.
    o.srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("presence_enabled", "false")],
        )
        .await
        .assert_success("PATCH /settings");
    let (_, b) = o.register(&o.alice, &[]).await;
    assert_eq!(b["user_settings"]["presence_enabled"], false);
    assert_eq!(b["presence_enabled"], false);
    let r = o
        .srv
        .patch("/api/v1/settings", &o.alice, &[("presence_enabled", "no")])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "presence_enabled is not a boolean"
    );

    // The test users have no password yet: any old password is wrong.
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("old_password", "x"), ("new_password", "correct horse")],
        )
        .await;
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "Wrong password!");
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("new_password", "correct horse")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Please fill out all fields."
    );
}

#[tokio::test]
async fn password_change_takes_effect_for_login() {
    let o = org().await;
    let carol = o
        .srv
        .user_with(
            "carol@example.com",
            "Carol Crane",
            outpost::model::Role::Member,
            |n| n.password = Some("first password".into()),
        )
        .await;
    let login = |pw: &'static str| {
        let srv = &o.srv;
        async move {
            srv.call(
                hyper::Method::POST,
                "/api/v1/fetch_api_key",
                None,
                &[("username", "carol@example.com"), ("password", pw)],
            )
            .await
        }
    };
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &carol,
            &[
                ("old_password", "first password"),
                ("new_password", "second password"),
            ],
        )
        .await;
    r.assert_success("PATCH /settings");
    login("second password")
        .await
        .assert_success("POST /fetch_api_key");
    login("first password")
        .await
        .assert_error(401, "AUTHENTICATION_FAILED");
}

#[tokio::test]
async fn typing_respects_the_senders_settings() {
    let o = org().await;
    let to = format!("[{}]", o.bob.id);
    let typing = [("op", "start"), ("to", to.as_str())];
    o.srv
        .post("/api/v1/typing", &o.alice, &typing)
        .await
        .assert_success("POST /typing");
    o.srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("send_private_typing_notifications", "false")],
        )
        .await
        .assert_success("PATCH /settings");
    let r = o.srv.post("/api/v1/typing", &o.alice, &typing).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "User has disabled typing notifications for direct messages"
    );
}
