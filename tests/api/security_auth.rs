//! Attacks on authentication from issue 24, each performed the way a client would: look-alike
//! addresses (KELVIN SIGN for `k`, fullwidth and Cyrillic letters) that poisoned the user cache
//! and the login limiter or made accounts posing as existing users, unlimited guessing of
//! `old_password`, and temporary upload URLs taken in spellings they were not issued in.

use hyper::Method;
use serde_json::Value;

use outpost::model::Role;

use crate::support::{Reply, TestServer, TestUser, basic, body, raw};
use crate::uploads::{download, upload_ok};

const PASSWORD: &str = "correct horse battery";
/// `kim@example.com` with U+212A KELVIN SIGN for the `k`.
const KELVIN_KIM: &str = "\u{212A}im@example.com";
/// Addresses that look like `kim@example.com` and are not it.
const LOOKALIKES: &[&str] = &[
    KELVIN_KIM,
    "ｋｉｍ@example.com",      // fullwidth
    "kіm@example.com",         // Cyrillic і
    "KIM@exаmple.com",         // Cyrillic а, and upper case
    "\u{1D424}im@example.com", // MATHEMATICAL BOLD SMALL K
];
const LOOKALIKE_MSG: &str = "Email is too similar to the address of an existing account.";

struct Org {
    srv: TestServer,
    /// An owner who may create users and change their addresses.
    owner: TestUser,
    admin: TestUser,
    kim: TestUser,
    bob: TestUser,
}

async fn org() -> Org {
    let srv = TestServer::start().await;
    let owner = srv
        .user_with("owner@example.com", "Olive Owner", Role::Owner, |u| {
            u.can_create_users = true;
            u.can_change_user_emails = true;
        })
        .await;
    let admin = srv
        .user("admin@example.com", "Ada Admin", Role::Administrator)
        .await;
    let kim = srv
        .user_with("kim@example.com", "Kim Kay", Role::Member, |u| {
            u.password = Some(PASSWORD.into());
        })
        .await;
    let bob = srv
        .user_with("bob@example.com", "Bob Bee", Role::Member, |u| {
            u.password = Some(PASSWORD.into());
        })
        .await;
    Org {
        srv,
        owner,
        admin,
        kim,
        bob,
    }
}

async fn me_with(srv: &TestServer, email: &str, key: &str) -> Reply {
    let req = raw(Method::GET, "/api/v1/users/me")
        .header("authorization", basic(email, key))
        .body(body(""))
        .unwrap();
    srv.send(req).await
}

async fn login(srv: &TestServer, email: &str, password: &str) -> Reply {
    srv.call(
        Method::POST,
        "/api/v1/fetch_api_key",
        None,
        &[("username", email), ("password", password)],
    )
    .await
}

async fn emails(o: &Org) -> Vec<String> {
    let r = o.srv.get("/api/v1/users", &o.owner, &[]).await;
    let mut out: Vec<String> = r.assert_success("GET /users")["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            u.get("delivery_email")
                .filter(|e| !e.is_null())
                .unwrap_or(&u["email"])
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn a_kelvin_sign_lookup_does_not_lock_the_real_user_out() {
    let o = org().await;
    // The attacker knows neither key nor password: one request each with the look-alike name.
    let r = me_with(&o.srv, KELVIN_KIM, &"x".repeat(32)).await;
    assert_eq!(
        r.assert_error(401, "UNAUTHORIZED")["msg"],
        "Invalid API key"
    );
    let r = login(&o.srv, KELVIN_KIM, "junk").await;
    assert_eq!(r.status, 401, "{}", r.body);
    // Kim's own key and password still work at once.
    let r = me_with(&o.srv, &o.kim.email, &o.kim.api_key).await;
    assert_eq!(r.assert_success("GET /users/me")["user_id"], o.kim.id);
    let r = login(&o.srv, "kim@example.com", PASSWORD).await;
    assert_eq!(
        r.assert_success("POST /fetch_api_key")["api_key"],
        o.kim.api_key.as_str()
    );
    // ASCII case still does not matter; the look-alike does not log in as Kim.
    let r = me_with(&o.srv, "KIM@Example.com", &o.kim.api_key).await;
    r.assert_success("GET /users/me");
    let r = me_with(&o.srv, KELVIN_KIM, &o.kim.api_key).await;
    assert_eq!(
        r.assert_error(401, "UNAUTHORIZED")["msg"],
        "Invalid API key"
    );
    let r = login(&o.srv, KELVIN_KIM, PASSWORD).await;
    assert_eq!(r.status, 401, "{}", r.body);
    // And the real user keeps working after that too.
    me_with(&o.srv, &o.kim.email, &o.kim.api_key)
        .await
        .assert_success("GET /users/me");
}

#[tokio::test]
async fn failed_logins_under_a_lookalike_name_do_not_count_against_the_user() {
    let o = org().await;
    for _ in 0..6 {
        let r = login(&o.srv, KELVIN_KIM, "wrong horse").await;
        assert!(r.status == 401 || r.status == 429, "{}", r.body);
    }
    let r = login(&o.srv, "kim@example.com", PASSWORD).await;
    r.assert_success("POST /fetch_api_key");
}

#[tokio::test]
async fn lookalike_addresses_are_refused_for_new_accounts_and_email_changes() {
    let o = org().await;
    let before = emails(&o).await;
    for email in LOOKALIKES {
        let r = o
            .srv
            .post(
                "/api/v1/users",
                &o.owner,
                &[
                    ("email", email),
                    ("password", "s3cret-pass"),
                    ("full_name", "Not Kim"),
                ],
            )
            .await;
        assert_eq!(
            r.assert_error(400, "BAD_REQUEST")["msg"],
            LOOKALIKE_MSG,
            "{email}"
        );
        let r = o
            .srv
            .patch(
                &format!("/api/v1/users/{}", o.bob.id),
                &o.owner,
                &[("new_email", email)],
            )
            .await;
        assert_eq!(
            r.assert_error(400, "BAD_REQUEST")["msg"],
            LOOKALIKE_MSG,
            "{email}"
        );
    }
    assert_eq!(emails(&o).await, before);
    // Bob still logs in as himself; a user may still change the ASCII case of their own address.
    login(&o.srv, "bob@example.com", PASSWORD)
        .await
        .assert_success("POST /fetch_api_key");
    o.srv
        .patch(
            &format!("/api/v1/users/{}", o.kim.id),
            &o.owner,
            &[("new_email", "Kim@example.com")],
        )
        .await
        .assert_success("PATCH /users/{user_id}");
}

/// The `/join/<key>/` path of a new reusable link.
async fn reusable_link(o: &Org) -> String {
    let r = o
        .srv
        .post(
            "/api/v1/invites/multiuse",
            &o.admin,
            &[("invite_as", "400")],
        )
        .await;
    let link = r.assert_success("POST /invites/multiuse")["invite_link"]
        .as_str()
        .unwrap()
        .to_string();
    link.strip_prefix("http://outpost.test")
        .unwrap()
        .to_string()
}

fn html(r: &Reply) -> String {
    String::from_utf8_lossy(&r.raw).into_owned()
}

async fn signup(o: &Org, path: &str, email: &str) -> Reply {
    let page = o.srv.call(Method::GET, path, None, &[]).await;
    let page = html(&page);
    let marker = "name=\"csrf_token\" value=\"";
    let start = page.find(marker).expect("a csrf token") + marker.len();
    let token = page[start..].split('"').next().unwrap().to_string();
    o.srv
        .call(
            Method::POST,
            path,
            None,
            &[
                ("csrf_token", &token),
                ("email", email),
                ("full_name", "Not Kim"),
                ("password", "secret words"),
            ],
        )
        .await
}

#[tokio::test]
async fn reusable_links_refuse_lookalikes_of_existing_accounts() {
    let o = org().await;
    let path = reusable_link(&o).await;
    let before = emails(&o).await;
    for email in LOOKALIKES {
        let r = signup(&o, &path, email).await;
        assert_eq!(r.status, 400, "{email}: {}", html(&r));
        assert!(
            html(&r).contains("looks too much like the address of an existing account"),
            "{email}: {}",
            html(&r)
        );
        assert!(r.headers.get("set-cookie").is_none());
    }
    assert_eq!(emails(&o).await, before);
    // Email invitations to a look-alike are refused too.
    let r = o
        .srv
        .post(
            "/api/v1/invites",
            &o.admin,
            &[("invitee_emails", KELVIN_KIM), ("stream_ids", "[]")],
        )
        .await;
    let b = r.assert_error(400, "INVITATION_FAILED");
    assert_eq!(b["msg"], "We weren't able to invite anyone.");
    assert_eq!(
        b["errors"][0][1],
        "Too similar to the address of an existing account."
    );
    let r = o.srv.get("/api/v1/invites", &o.admin, &[]).await;
    let open: Vec<Value> = r.assert_success("GET /invites")["invites"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| !i["email"].is_null())
        .cloned()
        .collect();
    assert!(open.is_empty(), "{open:?}");
    // A genuinely new address still signs up.
    let r = signup(&o, &path, "kimberly@example.com").await;
    assert_eq!(r.status, 303, "{}", html(&r));
}

#[tokio::test]
async fn wrong_old_passwords_are_limited_like_logins() {
    let o = org().await;
    let change = |old: &'static str| {
        let srv = &o.srv;
        let kim = &o.kim;
        async move {
            srv.patch(
                "/api/v1/settings",
                kim,
                &[("old_password", old), ("new_password", "brand new horse")],
            )
            .await
        }
    };
    for _ in 0..5 {
        let r = change("guess").await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "Wrong password!");
    }
    // Now even the right old password waits, and so do logins: one limit for both.
    let r = change(PASSWORD).await;
    let b = r.assert_error(429, "RATE_LIMIT_HIT");
    assert_eq!(b["msg"], "API usage exceeded rate limit");
    assert!(r.headers.contains_key("retry-after"));
    login(&o.srv, "kim@example.com", PASSWORD)
        .await
        .assert_error(429, "RATE_LIMIT_HIT");
    // Nothing changed: the key still works, and other users are not limited.
    me_with(&o.srv, &o.kim.email, &o.kim.api_key)
        .await
        .assert_success("GET /users/me");
    login(&o.srv, "bob@example.com", PASSWORD)
        .await
        .assert_success("POST /fetch_api_key");
}

#[tokio::test]
async fn temporary_upload_tokens_are_taken_only_as_issued() {
    let o = org().await;
    let url = upload_ok(&o.srv, &o.kim, "report.pdf", b"%PDF-1.4 tiny").await;
    let r = o.srv.get(&format!("/api/v1{url}"), &o.kim, &[]).await;
    let temp = r.assert_success("GET /user_uploads/{realm_id_str}/{filename}")["url"]
        .as_str()
        .unwrap()
        .to_string();
    let token = temp.split('/').nth(3).unwrap().to_string();
    let mut parts = token.splitn(3, '-');
    let (id, expires, mac) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    for respelled in [
        format!("0{id}-{expires}-{mac}"),
        format!("00{id}-{expires}-{mac}"),
        format!("+{id}-{expires}-{mac}"),
        format!("{id}-0{expires}-{mac}"),
        format!("{id}-+{expires}-{mac}"),
        format!("{id}-{expires}-{}", mac.to_uppercase()),
    ] {
        let r = download(
            &o.srv,
            None,
            &format!("/user_uploads/temporary/{respelled}/report.pdf"),
            None,
        )
        .await;
        assert_eq!(
            r.assert_error(404, "BAD_REQUEST")["msg"],
            "File not found.",
            "{respelled}"
        );
    }
    let r = download(&o.srv, None, &temp, None).await;
    assert_eq!(r.status, 200);
    assert_eq!(&r.raw[..], b"%PDF-1.4 tiny");
}
