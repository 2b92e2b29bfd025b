//! `server_settings`, password and development logins.

use hyper::Method;
use serde_json::json;

use outpost::model::Role;

use crate::support::{TestServer, body, raw};

#[tokio::test]
async fn server_settings_needs_no_login_and_matches_the_schema() {
    let srv = TestServer::start_with(|c| c.chat.realm_name = "Harbor".into()).await;
    let r = srv
        .call(Method::GET, "/api/v1/server_settings", None, &[])
        .await;
    let b = r.assert_success("GET /server_settings");
    assert_eq!(b["zulip_feature_level"], 382);
    assert!(b["zulip_version"].is_string());
    assert_eq!(b["realm_name"], "Harbor");
    assert_eq!(b["realm_url"], "http://outpost.test");
    assert_eq!(b["realm_uri"], "http://outpost.test");
    assert_eq!(b["authentication_methods"]["password"], true);
    assert_eq!(b["authentication_methods"]["dev"], false);
    assert_eq!(b["is_incompatible"], false);
    assert_eq!(b["require_email_format_usernames"], true);
    let req = raw(Method::GET, "/api/v1/server_settings")
        .header("user-agent", "ZulipInvalid/1.0")
        .body(body(""))
        .unwrap();
    assert_eq!(srv.send(req).await.body["is_incompatible"], true);
}

async fn login(srv: &TestServer, username: &str, password: &str) -> crate::support::Reply {
    srv.call(
        Method::POST,
        "/api/v1/fetch_api_key",
        None,
        &[("username", username), ("password", password)],
    )
    .await
}

#[tokio::test]
async fn fetch_api_key_with_password() {
    let srv = TestServer::start().await;
    let me = srv
        .user_with("a@example.com", "Alice A", Role::Member, |u| {
            u.password = Some("correct horse".into())
        })
        .await;
    let r = login(&srv, "A@example.com", "correct horse").await;
    let b = r.assert_success("POST /fetch_api_key");
    assert_eq!(b["api_key"], me.api_key.as_str());
    assert_eq!(b["email"], "a@example.com");
    assert_eq!(b["user_id"], me.id);

    let r = login(&srv, "a@example.com", "wrong horse").await;
    r.assert_error(401, "AUTHENTICATION_FAILED");
    assert_eq!(r.body["msg"], "Your username or password is incorrect");
    assert!(r.headers.get("www-authenticate").is_none());
    login(&srv, "nobody@example.com", "whatever1")
        .await
        .assert_error(401, "AUTHENTICATION_FAILED");
    login(&srv, "not-an-email", "whatever1")
        .await
        .assert_error(400, "BAD_REQUEST");
    let r = srv
        .call(
            Method::POST,
            "/api/v1/fetch_api_key",
            None,
            &[("username", "a@example.com")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "REQUEST_VARIABLE_MISSING")["var_name"],
        "password"
    );
}

#[tokio::test]
async fn users_without_password_cannot_log_in_with_one() {
    let srv = TestServer::start().await;
    srv.user("a@example.com", "Alice A", Role::Member).await;
    login(&srv, "a@example.com", "anything")
        .await
        .assert_error(401, "AUTHENTICATION_FAILED");
}

#[tokio::test]
async fn repeated_login_failures_are_rate_limited() {
    let srv = TestServer::start().await;
    srv.user_with("a@example.com", "Alice A", Role::Member, |u| {
        u.password = Some("correct horse".into())
    })
    .await;
    for _ in 0..5 {
        login(&srv, "a@example.com", "bad")
            .await
            .assert_error(401, "AUTHENTICATION_FAILED");
    }
    let r = login(&srv, "a@example.com", "correct horse").await;
    r.assert_error(429, "RATE_LIMIT_HIT");
    assert!(r.body["retry-after"].as_f64().unwrap() > 0.0);
    assert!(r.headers.contains_key("retry-after"));
}

#[tokio::test]
async fn deactivated_user_login_says_so() {
    let srv = TestServer::start().await;
    let owner = srv.user("o@example.com", "Olive Owner", Role::Owner).await;
    let me = srv
        .user_with("a@example.com", "Alice A", Role::Member, |u| {
            u.password = Some("correct horse".into())
        })
        .await;
    srv.delete(&format!("/api/v1/users/{}", me.id), &owner, &[])
        .await;
    let r = login(&srv, "a@example.com", "correct horse").await;
    assert_eq!(
        r.assert_error(401, "USER_DEACTIVATED")["msg"],
        "Account is deactivated"
    );
}

#[tokio::test]
async fn dev_fetch_api_key_only_in_development() {
    let prod = TestServer::start().await;
    prod.user("a@example.com", "Alice A", Role::Member).await;
    let r = prod
        .call(
            Method::POST,
            "/api/v1/dev_fetch_api_key",
            None,
            &[("username", "a@example.com")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Endpoint not available in production."
    );

    let dev = TestServer::start_with(|c| c.chat.development = true).await;
    let me = dev.user("a@example.com", "Alice A", Role::Member).await;
    let r = dev
        .call(
            Method::POST,
            "/api/v1/dev_fetch_api_key",
            None,
            &[("username", "a@example.com")],
        )
        .await;
    let b = r.assert_success("POST /dev_fetch_api_key");
    assert_eq!(b["api_key"], me.api_key.as_str());
    assert_eq!(b["user_id"], me.id);
    let r = dev
        .call(
            Method::POST,
            "/api/v1/dev_fetch_api_key",
            None,
            &[("username", "x@example.com")],
        )
        .await;
    r.assert_error(401, "AUTHENTICATION_FAILED");
    let r = dev
        .call(Method::GET, "/api/v1/server_settings", None, &[])
        .await;
    assert_eq!(r.body["authentication_methods"]["dev"], json!(true));
}
