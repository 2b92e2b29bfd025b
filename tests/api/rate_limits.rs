//! Request rate limits as upstream applies them: per user (and per Dependency-Track
//! principal), per address for unauthenticated requests, with `X-RateLimit-*` headers and each
//! API's own 429; long-polls, badges, exempt bots and exempt addresses are not counted.

use hyper::Method;

use outpost::domain::dtrack::permissions::Permission;
use outpost::model::Role;

use crate::support::dtrack::Dt;
use crate::support::{Reply, TestServer};

fn header(r: &Reply, name: &str) -> String {
    r.headers
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_user_over_the_limit_gets_429_with_headers_and_others_carry_on() {
    let srv = TestServer::start_with(|c| c.limits.user_requests_per_minute = 3).await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    let other = srv.user("b@example.com", "Bob B", Role::Member).await;
    for left in ["2", "1", "0"] {
        let r = srv.get("/api/v1/users/me", &me, &[]).await;
        r.assert_success("GET /users/me");
        assert_eq!(header(&r, "x-ratelimit-limit"), "3");
        assert_eq!(header(&r, "x-ratelimit-remaining"), left);
        let reset: u64 = header(&r, "x-ratelimit-reset").parse().unwrap();
        assert!(reset >= outpost::time::now_secs() as u64);
    }
    let r = srv.get("/api/v1/users/me", &me, &[]).await;
    let b = r.assert_error(429, "RATE_LIMIT_HIT");
    assert_eq!(b["msg"], "API usage exceeded rate limit");
    let wait = b["retry-after"].as_f64().unwrap();
    assert!(wait > 0.0 && wait <= 20.0, "{wait}");
    assert!(header(&r, "retry-after").parse::<u64>().unwrap() >= 1);
    assert_eq!(header(&r, "x-ratelimit-remaining"), "0");
    // A refused request changes nothing: the status update is not applied.
    let r = srv
        .post("/api/v1/users/me/status", &me, &[("status_text", "busy")])
        .await;
    r.assert_error(429, "RATE_LIMIT_HIT");
    let r = srv
        .get(&format!("/api/v1/users/{}/status", me.id), &other, &[])
        .await;
    assert_eq!(r.body["status"], serde_json::json!({}));
    // Long-polls are not counted: a client waiting for events always gets back in.
    let r = srv
        .get("/api/v1/events", &me, &[("dont_block", "true")])
        .await;
    r.assert_success("GET /events");
}

#[tokio::test]
async fn unauthenticated_requests_are_limited_per_address_and_exemptions_apply() {
    let srv = TestServer::start_with(|c| c.limits.ip_requests_per_minute = 2).await;
    for _ in 0..2 {
        let r = srv
            .call(Method::GET, "/api/v1/server_settings", None, &[])
            .await;
        assert_eq!(r.status, 200);
    }
    let r = srv
        .call(Method::GET, "/api/v1/server_settings", None, &[])
        .await;
    r.assert_error(429, "RATE_LIMIT_HIT");

    let srv = TestServer::start_with(|c| {
        c.limits.ip_requests_per_minute = 1;
        c.limits.user_requests_per_minute = 1;
        c.limits.rate_limit_exempt_addresses = vec!["127.0.0.1".parse().unwrap()];
    })
    .await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    for _ in 0..3 {
        srv.get("/api/v1/users/me", &me, &[])
            .await
            .assert_success("GET /users/me");
        let r = srv
            .call(Method::GET, "/api/v1/server_settings", None, &[])
            .await;
        assert_eq!(r.status, 200);
        assert!(r.headers.get("x-ratelimit-limit").is_none());
    }
}

#[tokio::test]
async fn exempt_bots_are_not_limited() {
    let srv = TestServer::start_with(|c| {
        c.limits.user_requests_per_minute = 1;
        c.limits.rate_limit_exempt_bots = true;
    })
    .await;
    let human = srv.user("h@example.com", "Hana H", Role::Member).await;
    let bot = srv
        .user("bot@example.com", "Helper Bot", Role::Member)
        .await;
    // No API creates bots yet: mark the account as a generic bot in the database.
    let id = bot.id;
    srv.state
        .db
        .write(move |tx| {
            tx.execute(
                "UPDATE users SET is_bot = 1, bot_type = 1 WHERE id = ?1",
                [id],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    for _ in 0..3 {
        let r = srv.get("/api/v1/users/me", &bot, &[]).await;
        r.assert_success("GET /users/me");
        assert!(r.headers.get("x-ratelimit-limit").is_none());
    }
    srv.get("/api/v1/users/me", &human, &[])
        .await
        .assert_success("GET /users/me");
    srv.get("/api/v1/users/me", &human, &[])
        .await
        .assert_error(429, "RATE_LIMIT_HIT");
}

#[tokio::test]
async fn dependency_track_principals_get_plain_429_and_badges_are_not_counted() {
    let dt = Dt::start_with(|c| c.limits.user_requests_per_minute = 2).await;
    let key = dt
        .key("CI", &[Permission::ViewPortfolio, Permission::ViewBadges])
        .await;
    for _ in 0..2 {
        let r = dt.get("/api/v1/project", &key).await;
        assert_eq!(r.status, 200);
        assert_eq!(header(&r, "x-ratelimit-limit"), "2");
    }
    let r = dt.get("/api/v1/project", &key).await;
    assert_eq!(r.status, 429);
    assert!(header(&r, "retry-after").parse::<u64>().unwrap() >= 1);
    assert_eq!(
        std::str::from_utf8(&r.raw).unwrap(),
        "Too many requests; try again later"
    );
    let other = dt.key("Other", &[Permission::ViewPortfolio]).await;
    assert_eq!(dt.get("/api/v1/project", &other).await.status, 200);
    // Badges: not rate limited (an unknown project is a 404, not a 429).
    for _ in 0..4 {
        let r = dt
            .get(
                "/api/v1/badge/violations/project/00000000-0000-0000-0000-000000000000",
                &key,
            )
            .await;
        assert_ne!(r.status, 429);
    }
}

/// `GET /server_settings` without credentials, as forwarded by a proxy for `client`.
async fn forwarded(srv: &TestServer, client: &str) -> u16 {
    let req = crate::support::raw(Method::GET, "/api/v1/server_settings")
        .header("x-forwarded-for", client)
        .body(crate::support::body(""))
        .unwrap();
    srv.send(req).await.status
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_limit() {
    let srv = TestServer::start_with(|c| {
        c.limits.ip_requests_per_minute = 1;
        c.limits.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    })
    .await;
    // The proxy appends the address it saw; what the client claimed before it is not used.
    assert_eq!(forwarded(&srv, "198.51.100.7").await, 200);
    assert_eq!(forwarded(&srv, "203.0.113.9").await, 200);
    assert_eq!(forwarded(&srv, "10.9.9.9, 198.51.100.7").await, 429);
    assert_eq!(forwarded(&srv, "203.0.113.10").await, 200);

    // Without the proxy listed, the header is ignored: one address, one limit.
    let srv = TestServer::start_with(|c| c.limits.ip_requests_per_minute = 1).await;
    assert_eq!(forwarded(&srv, "198.51.100.7").await, 200);
    assert_eq!(forwarded(&srv, "203.0.113.9").await, 429);
}
