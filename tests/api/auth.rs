//! HTTP Basic authentication: every failure answer, key regeneration, deactivated users.

use hyper::Method;
use serde_json::json;

use outpost::model::Role;

use crate::support::{TestServer, TestUser, body, raw};

async fn get_me(srv: &TestServer, authorization: Option<&str>) -> crate::support::Reply {
    let mut req = raw(Method::GET, "/api/v1/users/me");
    if let Some(a) = authorization {
        req = req.header("authorization", a);
    }
    srv.send(req.body(body("")).unwrap()).await
}

#[tokio::test]
async fn missing_credentials_get_401_with_challenge() {
    let srv = TestServer::start().await;
    let r = get_me(&srv, None).await;
    r.assert_error(401, "UNAUTHORIZED");
    assert_eq!(
        r.body["msg"],
        "Not logged in: API authentication or user session required"
    );
    assert_eq!(r.headers["www-authenticate"], "Basic realm=\"zulip\"");
}

#[tokio::test]
async fn every_bad_header_gets_upstreams_answer() {
    let srv = TestServer::start().await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    let cases: Vec<(String, u16, &str, &str)> = vec![
        (
            "Bearer abc".into(),
            400,
            "BAD_REQUEST",
            "This endpoint requires HTTP basic authentication.",
        ),
        (
            "Basic".into(),
            401,
            "UNAUTHORIZED",
            "Invalid authorization header for basic auth",
        ),
        (
            "Basic %%%".into(),
            401,
            "UNAUTHORIZED",
            "Invalid authorization header for basic auth",
        ),
        (
            crate::support::basic("a@example.com", "short"),
            401,
            "UNAUTHORIZED",
            "Malformed API key",
        ),
        (
            crate::support::basic("a@example.com", &"X".repeat(32)),
            401,
            "UNAUTHORIZED",
            "Invalid API key",
        ),
        (
            crate::support::basic("nobody@example.com", &me.api_key),
            401,
            "UNAUTHORIZED",
            "Invalid API key",
        ),
    ];
    for (header, status, code, msg) in cases {
        let r = get_me(&srv, Some(&header)).await;
        r.assert_error(status, code);
        assert_eq!(r.body["msg"], msg, "{header}");
        if status == 401 {
            assert_eq!(r.headers["www-authenticate"], "Basic realm=\"zulip\"");
        }
    }
}

#[tokio::test]
async fn email_is_case_insensitive_and_trimmed() {
    let srv = TestServer::start().await;
    let me = srv.user("Alice@Example.com", "Alice A", Role::Member).await;
    let header = crate::support::basic(" alice@example.COM ", &me.api_key);
    let r = get_me(&srv, Some(&header)).await;
    assert_eq!(r.assert_success("GET /users/me")["user_id"], me.id);
}

#[tokio::test]
async fn regenerated_key_replaces_the_old_one_at_once() {
    let srv = TestServer::start().await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    srv.get("/api/v1/users/me", &me, &[])
        .await
        .assert_success("GET /users/me");
    let r = srv
        .post("/api/v1/users/me/api_key/regenerate", &me, &[])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let new_key = r.body["api_key"].as_str().unwrap().to_string();
    assert_eq!(new_key.len(), 32);
    assert_ne!(new_key, me.api_key);
    let old = srv.get("/api/v1/users/me", &me, &[]).await;
    assert_eq!(
        old.assert_error(401, "UNAUTHORIZED")["msg"],
        "Invalid API key"
    );
    let renewed = TestUser {
        api_key: new_key,
        ..me
    };
    srv.get("/api/v1/users/me", &renewed, &[])
        .await
        .assert_success("GET /users/me");
}

#[tokio::test]
async fn deactivated_users_are_refused_and_reactivated_ones_let_in() {
    let srv = TestServer::start().await;
    let owner = srv.user("o@example.com", "Olive Owner", Role::Owner).await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    srv.get("/api/v1/users/me", &me, &[])
        .await
        .assert_success("GET /users/me");
    srv.delete(&format!("/api/v1/users/{}", me.id), &owner, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    let r = srv.get("/api/v1/users/me", &me, &[]).await;
    assert_eq!(
        r.assert_error(401, "UNAUTHORIZED")["msg"],
        "Account is deactivated"
    );
    srv.post(&format!("/api/v1/users/{}/reactivate", me.id), &owner, &[])
        .await
        .assert_success("POST /users/{user_id}/reactivate");
    let r = srv.get("/api/v1/users/me", &me, &[]).await;
    assert_eq!(r.assert_success("GET /users/me")["is_active"], json!(true));
}
