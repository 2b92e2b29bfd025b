//! The browser client's serving and sessions (issue 17 §1, `src/web/`): its files under
//! `/static/<build>/`, the page shell at `/`, the login form, logout, development login, and
//! `/json/` (the chat route table with the session cookie and the `X-CSRFToken` header).

use std::io::Read as _;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Method, Request};
use serde_json::Value;

use outpost::model::Role;

use crate::support::{Reply, TestServer, TestUser, basic, body, raw};

const PASSWORD: &str = "correct horse battery";

async fn server() -> TestServer {
    TestServer::start().await
}

async fn person(srv: &TestServer, email: &str, name: &str, role: Role) -> TestUser {
    srv.user_with(email, name, role, |n| n.password = Some(PASSWORD.into()))
        .await
}

fn html(r: &Reply) -> String {
    String::from_utf8_lossy(&r.raw).into_owned()
}

/// Every `Set-Cookie` of an answer.
fn set_cookies(r: &Reply) -> Vec<String> {
    r.headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect()
}

/// The `Set-Cookie` line of cookie `name`, if the answer sets it.
fn set_cookie(r: &Reply, name: &str) -> Option<String> {
    set_cookies(r)
        .into_iter()
        .find(|c| c.starts_with(&format!("{name}=")))
}

/// `name=value` of a `Set-Cookie` line.
fn pair(set_cookie: &str) -> String {
    set_cookie.split(';').next().unwrap().to_string()
}

fn hidden(page: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = page.find(&marker).expect("hidden field") + marker.len();
    page[start..].split('"').next().unwrap().to_string()
}

async fn get_with(srv: &TestServer, path: &str, cookie: Option<&str>) -> Reply {
    let mut b = raw(Method::GET, path);
    if let Some(c) = cookie {
        b = b.header("cookie", c);
    }
    srv.send(b.body(body("")).unwrap()).await
}

async fn post_form(
    srv: &TestServer,
    path: &str,
    cookie: Option<&str>,
    headers: &[(&str, &str)],
    form: &[(&str, &str)],
) -> Reply {
    post_method(srv, Method::POST, path, cookie, headers, form).await
}

async fn post_method(
    srv: &TestServer,
    method: Method,
    path: &str,
    cookie: Option<&str>,
    headers: &[(&str, &str)],
    form: &[(&str, &str)],
) -> Reply {
    let encoded = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let mut b = raw(method, path).header("content-type", "application/x-www-form-urlencoded");
    if let Some(c) = cookie {
        b = b.header("cookie", c);
    }
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    srv.send(b.body(body(encoded)).unwrap()).await
}

/// The login form: its login CSRF cookie (`name=value`) and the token in the form.
async fn login_form(srv: &TestServer) -> (String, String) {
    let r = get_with(srv, "/login", None).await;
    assert_eq!(r.status, 200);
    let cookie = pair(&set_cookie(&r, "outpost_login_csrf").expect("login CSRF cookie"));
    (cookie, hidden(&html(&r), "csrf_token"))
}

async fn login_as(srv: &TestServer, email: &str, password: &str) -> Reply {
    let (cookie, token) = login_form(srv).await;
    post_form(
        srv,
        "/login",
        Some(&cookie),
        &[],
        &[
            ("csrf_token", &token),
            ("username", email),
            ("password", password),
        ],
    )
    .await
}

/// A logged-in browser: its session cookie (`outpost_session=...`) and CSRF token.
struct Browser {
    cookie: String,
    csrf: String,
}

async fn browser(srv: &TestServer, who: &TestUser) -> Browser {
    browser_with(srv, who, PASSWORD).await
}

async fn browser_with(srv: &TestServer, who: &TestUser, password: &str) -> Browser {
    let r = login_as(srv, &who.email, password).await;
    assert_eq!(r.status, 303, "{}", html(&r));
    let cookie = pair(&set_cookie(&r, "outpost_session").expect("session cookie"));
    let home = get_with(srv, "/", Some(&cookie)).await;
    assert_eq!(home.status, 200);
    let page = html(&home);
    let marker = "<meta name=\"csrf-token\" content=\"";
    let start = page.find(marker).expect("CSRF meta tag") + marker.len();
    let csrf = page[start..].split('"').next().unwrap().to_string();
    Browser { cookie, csrf }
}

fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data)
        .read_to_end(&mut out)
        .expect("valid gzip");
    out
}

#[tokio::test]
async fn client_files_are_served_under_the_build_path_cached_forever_and_gzipped() {
    let srv = server().await;
    let me = person(&srv, "ann@example.com", "Ann", Role::Member).await;
    let b = browser(&srv, &me).await;
    let home = html(&get_with(&srv, "/", Some(&b.cookie)).await);
    let build = outpost::web::assets::Assets::load().build().to_string();
    assert_eq!(build.len(), 16);
    let prefix = format!("/static/{build}");
    // The page loads the modules joined into one script (`web::bundle`).
    assert!(
        home.contains(&format!(
            "<script type=\"module\" src=\"{prefix}/app.js\"></script>"
        )),
        "{home}"
    );
    assert!(!home.contains("{{"), "a placeholder is left: {home}");
    let bundle = get_with(&srv, &format!("{prefix}/app.js"), None).await;
    assert_eq!(bundle.status, 200);
    assert_eq!(
        bundle.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let script = String::from_utf8_lossy(&bundle.raw);
    for module in ["api.js", "store.js", "message_list.js", "main.js"] {
        assert!(script.contains(&format!("// ---- {module}\n")), "{module}");
    }
    assert!(
        !script.contains("\nimport ") && !script.contains("\nexport "),
        "module syntax left in the bundle"
    );

    let plain = get_with(&srv, &format!("{prefix}/api.js"), None).await;
    assert_eq!(plain.status, 200);
    assert_eq!(
        plain.headers["content-type"],
        "text/javascript; charset=utf-8"
    );
    assert_eq!(
        plain.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert!(plain.headers.get("content-encoding").is_none());
    let source = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/web/client/api.js"
    ))
    .expect("the client's source");
    assert_eq!(plain.raw.as_ref(), source.as_slice());

    let zipped = srv
        .send(
            raw(Method::GET, &format!("{prefix}/api.js"))
                .header("accept-encoding", "gzip, deflate, br")
                .body(body(""))
                .unwrap(),
        )
        .await;
    assert_eq!(zipped.status, 200);
    assert_eq!(zipped.headers["content-encoding"], "gzip");
    assert_eq!(zipped.headers["vary"], "Accept-Encoding");
    assert!(zipped.raw.len() < source.len());
    assert_eq!(gunzip(&zipped.raw), source);

    let css = get_with(&srv, &format!("{prefix}/pages.css"), None).await;
    assert_eq!(css.headers["content-type"], "text/css; charset=utf-8");
    // HEAD answers the headers alone.
    let head = srv
        .send(
            raw(Method::HEAD, &format!("{prefix}/api.js"))
                .body(body(""))
                .unwrap(),
        )
        .await;
    assert_eq!(head.status, 200);
    assert!(head.raw.is_empty());
    // Another build, an unknown file, a path outside the client: 404.
    for path in [
        "/static/0000000000000000/api.js".to_string(),
        format!("{prefix}/nosuch.js"),
        format!("{prefix}/../Cargo.toml"),
        format!("{prefix}/"),
    ] {
        let r = get_with(&srv, &path, None).await;
        assert_eq!(r.status, 404, "{path}");
    }
    // Writing is not a thing files do.
    let r = post_form(&srv, &format!("{prefix}/api.js"), None, &[], &[]).await;
    assert_eq!(r.status, 405);
}

#[tokio::test]
async fn the_shell_needs_a_session_and_pages_carry_the_security_headers() {
    let srv = server().await;
    let r = get_with(&srv, "/", None).await;
    assert_eq!(r.status, 302);
    assert_eq!(r.headers["location"], "/login");
    let r = get_with(&srv, "/", Some("outpost_session=00ff")).await;
    assert_eq!(r.status, 302);

    let login = get_with(&srv, "/login", None).await;
    let page = html(&login);
    for needle in [
        "<label for=\"username\">Email</label>",
        "name=\"username\"",
        "<label for=\"password\">Password</label>",
        "name=\"password\"",
        ">Log in</button>",
    ] {
        assert!(page.contains(needle), "{needle} in {page}");
    }
    assert!(!page.contains("Development login"));
    // One script, from the client's files (it keeps a deep link's `#...`), none inline.
    let prefix = outpost::web::assets::Assets::load().prefix();
    assert_eq!(page.matches("<script").count(), 1, "{page}");
    assert!(
        page.contains(&format!(
            "<script type=\"module\" src=\"{prefix}/login.js\"></script>"
        )),
        "{page}"
    );
    assert!(!page.contains("style="), "{page}");
    let me = person(&srv, "ann@example.com", "Ann", Role::Member).await;
    let b = browser(&srv, &me).await;
    let home = get_with(&srv, "/", Some(&b.cookie)).await;
    for r in [&login, &home] {
        let csp = r.headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("default-src 'self'"), "{csp}");
        assert!(csp.contains("script-src 'self'"), "{csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert_eq!(r.headers["x-content-type-options"], "nosniff");
        assert_eq!(r.headers["referrer-policy"], "no-referrer");
        assert_eq!(r.headers["cache-control"], "no-store");
    }
    assert!(html(&home).contains(&format!("content=\"{}\"", b.csrf)));
    // Logged in, the login page sends the browser on.
    let r = get_with(&srv, "/login?next=/%23narrow", Some(&b.cookie)).await;
    assert_eq!(r.status, 302);
}

#[tokio::test]
async fn login_sets_a_strict_session_cookie_and_wrong_passwords_set_nothing() {
    let srv = server().await;
    let me = person(&srv, "ann@example.com", "Ann", Role::Member).await;
    let r = login_as(&srv, "ann@example.com", PASSWORD).await;
    assert_eq!(r.status, 303, "{}", html(&r));
    assert_eq!(r.headers["location"], "/");
    let cookie = set_cookie(&r, "outpost_session").unwrap();
    let value = pair(&cookie);
    assert_eq!(value.len(), "outpost_session=".len() + 64, "{cookie}");
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(cookie.contains(flag), "{flag} in {cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain HTTP: {cookie}");
    let sessions = outpost::domain::sessions::count_for(&srv.state, outpost::ids::UserId(me.id))
        .await
        .unwrap();
    assert_eq!(sessions, 1);

    // Wrong password, unknown user: the form again with the reason, no session.
    for (email, password) in [
        ("ann@example.com", "wrong password"),
        ("nobody@example.com", PASSWORD),
    ] {
        let r = login_as(&srv, email, password).await;
        assert_eq!(r.status, 200);
        assert!(set_cookie(&r, "outpost_session").is_none());
        let page = html(&r);
        assert!(page.contains("role=\"alert\""), "{page}");
        assert!(page.contains("incorrect"), "{page}");
    }
    // A form without the double-submit cookie is refused even with the right password.
    let (_, token) = login_form(&srv).await;
    let r = post_form(
        &srv,
        "/login",
        None,
        &[],
        &[
            ("csrf_token", &token),
            ("username", "ann@example.com"),
            ("password", PASSWORD),
        ],
    )
    .await;
    assert_eq!(r.status, 403);
    assert!(set_cookie(&r, "outpost_session").is_none());
    let sessions = outpost::domain::sessions::count_for(&srv.state, outpost::ids::UserId(me.id))
        .await
        .unwrap();
    assert_eq!(sessions, 1);

    // `next` goes to same-origin paths only.
    let (cookie, token) = login_form(&srv).await;
    for (next, to) in [
        ("/#narrow/channel/1-general", "/#narrow/channel/1-general"),
        ("//evil.example/", "/"),
        ("https://evil.example/", "/"),
    ] {
        let r = post_form(
            &srv,
            "/login",
            Some(&cookie),
            &[],
            &[
                ("csrf_token", &token),
                ("username", "ann@example.com"),
                ("password", PASSWORD),
                ("next", next),
            ],
        )
        .await;
        assert_eq!(r.status, 303);
        assert_eq!(r.headers["location"], to, "{next}");
    }
}

#[tokio::test]
async fn bots_and_deactivated_users_cannot_log_in_and_failures_are_rate_limited() {
    let srv = server().await;
    let owner = person(&srv, "owner@example.com", "Owner", Role::Owner).await;
    let gone = person(&srv, "gone@example.com", "Gone", Role::Member).await;
    srv.delete(&format!("/api/v1/users/{}", gone.id), &owner, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    let r = login_as(&srv, "gone@example.com", PASSWORD).await;
    assert!(set_cookie(&r, "outpost_session").is_none());
    assert!(html(&r).contains("deactivated"), "{}", html(&r));
    let bot = srv
        .post(
            "/api/v1/bots",
            &owner,
            &[
                ("full_name", "Helper"),
                ("short_name", "helper"),
                ("bot_type", "1"),
            ],
        )
        .await;
    let bot_id = bot.assert_success("POST /bots")["user_id"]
        .as_i64()
        .unwrap();
    let bot_user = srv
        .get(&format!("/api/v1/users/{bot_id}"), &owner, &[])
        .await;
    let bot_email = bot_user.body["user"]["email"].as_str().unwrap().to_string();
    assert!(bot_user.body["user"]["is_bot"].as_bool().unwrap());
    // Even a bot that somehow has a password cannot log in.
    let hash = outpost::password::hash(PASSWORD).unwrap();
    srv.state
        .db
        .write(move |tx| {
            outpost::db::users::set_password_hash(tx, outpost::ids::UserId(bot_id), &hash)
        })
        .await
        .unwrap();
    let r = login_as(&srv, &bot_email, PASSWORD).await;
    assert!(set_cookie(&r, "outpost_session").is_none());

    // Five failures for one name lock it, as for fetch_api_key, even with the right password.
    for _ in 0..5 {
        login_as(&srv, "owner@example.com", "not it").await;
    }
    let r = login_as(&srv, "owner@example.com", PASSWORD).await;
    assert_eq!(r.status, 429);
    assert!(set_cookie(&r, "outpost_session").is_none());
}

#[tokio::test]
async fn json_takes_the_session_cookie_only_and_checks_csrf_on_writes() {
    let srv = server().await;
    let me = person(&srv, "ann@example.com", "Ann", Role::Member).await;
    let b = browser(&srv, &me).await;
    let r = get_with(&srv, "/json/users/me", Some(&b.cookie)).await;
    r.assert_success("GET /users/me");
    assert_eq!(r.body["email"], "ann@example.com");
    // No session; Basic credentials (valid on /api/v1) are not a session.
    let r = get_with(&srv, "/json/users/me", None).await;
    let e = r.assert_error(401, "UNAUTHORIZED");
    assert_eq!(
        e["msg"],
        "Not logged in: API authentication or user session required"
    );
    assert_eq!(r.headers["www-authenticate"], "Session realm=\"zulip\"");
    let r = srv
        .send(
            raw(Method::GET, "/json/users/me")
                .header("authorization", basic(&me.email, &me.api_key))
                .body(body(""))
                .unwrap(),
        )
        .await;
    r.assert_error(401, "UNAUTHORIZED");
    // And /api/v1 does not take the cookie.
    let r = get_with(&srv, "/api/v1/users/me", Some(&b.cookie)).await;
    r.assert_error(401, "UNAUTHORIZED");

    // Writes need X-CSRFToken: missing or wrong, 403 and nothing changes.
    let status = |text: &'static str| [("status_text", text)];
    let missing = post_form(
        &srv,
        "/json/users/me/status",
        Some(&b.cookie),
        &[],
        &status("forged"),
    )
    .await;
    let e = missing.assert_error(403, "CSRF_FAILED");
    assert_eq!(e["msg"], "CSRF error: CSRF token missing.");
    let wrong = post_form(
        &srv,
        "/json/users/me/status",
        Some(&b.cookie),
        &[("x-csrftoken", "0".repeat(64).as_str())],
        &status("forged"),
    )
    .await;
    let e = wrong.assert_error(403, "CSRF_FAILED");
    assert_eq!(e["msg"], "CSRF error: CSRF token incorrect.");
    let patch = post_method(
        &srv,
        Method::PATCH,
        "/json/settings",
        Some(&b.cookie),
        &[],
        &[("full_name", "Forged Name")],
    )
    .await;
    patch.assert_error(403, "CSRF_FAILED");
    let mine = srv.get("/api/v1/users/me", &me, &[]).await;
    assert_eq!(mine.body["full_name"], "Ann");
    let st = srv
        .get(&format!("/api/v1/users/{}/status", me.id), &me, &[])
        .await;
    assert_ne!(st.body["status"]["status_text"], "forged");

    // With the token it works.
    let ok = post_form(
        &srv,
        "/json/users/me/status",
        Some(&b.cookie),
        &[("x-csrftoken", &b.csrf)],
        &status("lunch"),
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    let st = srv
        .get(&format!("/api/v1/users/{}/status", me.id), &me, &[])
        .await;
    assert_eq!(st.body["status"]["status_text"], "lunch");
    // Unknown paths under /json answer like /api/v1.
    let r = get_with(&srv, "/json/no/such/thing", Some(&b.cookie)).await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn logout_ends_the_session() {
    let srv = server().await;
    let me = person(&srv, "ann@example.com", "Ann", Role::Member).await;
    let b = browser(&srv, &me).await;
    // Without the CSRF token, logout is refused and the session lives on.
    let r = post_form(&srv, "/logout", Some(&b.cookie), &[], &[]).await;
    assert_eq!(r.status, 403);
    get_with(&srv, "/json/users/me", Some(&b.cookie))
        .await
        .assert_success("GET /users/me");
    let r = post_form(
        &srv,
        "/logout",
        Some(&b.cookie),
        &[],
        &[("csrf_token", &b.csrf)],
    )
    .await;
    assert_eq!(r.status, 303);
    assert_eq!(r.headers["location"], "/login");
    let expired = set_cookie(&r, "outpost_session").unwrap();
    assert!(expired.contains("Max-Age=0"), "{expired}");
    get_with(&srv, "/json/users/me", Some(&b.cookie))
        .await
        .assert_error(401, "UNAUTHORIZED");
    assert_eq!(get_with(&srv, "/", Some(&b.cookie)).await.status, 302);
    // The header form works too.
    let b = browser(&srv, &me).await;
    let r = post_form(
        &srv,
        "/logout",
        Some(&b.cookie),
        &[("x-csrftoken", &b.csrf)],
        &[],
    )
    .await;
    assert_eq!(r.status, 303);
    get_with(&srv, "/json/users/me", Some(&b.cookie))
        .await
        .assert_error(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn sessions_expire_are_swept_and_record_use_at_most_once_a_minute() {
    let srv = server().await;
    let me = person(&srv, "ann@example.com", "Ann", Role::Member).await;
    let b = browser(&srv, &me).await;
    let last_used = |srv: &TestServer| {
        let state = srv.state.clone();
        async move {
            state
                .db
                .read(|c| {
                    Ok(
                        c.query_row("SELECT last_used_at FROM web_sessions", [], |r| {
                            r.get::<_, i64>(0)
                        })?,
                    )
                })
                .await
                .unwrap()
        }
    };
    let set = |sql: &'static str| {
        let state = srv.state.clone();
        async move {
            state
                .db
                .write(move |tx| Ok(tx.execute(sql, [])?))
                .await
                .unwrap()
        }
    };
    // A use 30 seconds after the last record writes nothing; one after two minutes does.
    set("UPDATE web_sessions SET last_used_at = last_used_at - 30").await;
    let before = last_used(&srv).await;
    get_with(&srv, "/json/users/me", Some(&b.cookie))
        .await
        .assert_success("GET /users/me");
    assert_eq!(last_used(&srv).await, before);
    set("UPDATE web_sessions SET last_used_at = last_used_at - 120").await;
    let stale = last_used(&srv).await;
    get_with(&srv, "/json/users/me", Some(&b.cookie))
        .await
        .assert_success("GET /users/me");
    assert!(last_used(&srv).await >= stale + 120);

    // Past its expiry the session is no session, and the sweep removes it.
    set("UPDATE web_sessions SET expires_at = 1000").await;
    get_with(&srv, "/json/users/me", Some(&b.cookie))
        .await
        .assert_error(401, "UNAUTHORIZED");
    assert_eq!(get_with(&srv, "/", Some(&b.cookie)).await.status, 302);
    let swept = outpost::domain::sessions::sweep(&srv.state, outpost::time::now_secs())
        .await
        .unwrap();
    assert_eq!(swept, 1);
}

#[tokio::test]
async fn deactivation_password_change_and_a_new_api_key_end_sessions() {
    let srv = server().await;
    let owner = person(&srv, "owner@example.com", "Owner", Role::Owner).await;
    let me = person(&srv, "ann@example.com", "Ann", Role::Member).await;
    let b = browser(&srv, &me).await;
    srv.delete(&format!("/api/v1/users/{}", me.id), &owner, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    get_with(&srv, "/json/users/me", Some(&b.cookie))
        .await
        .assert_error(401, "UNAUTHORIZED");
    srv.post(&format!("/api/v1/users/{}/reactivate", me.id), &owner, &[])
        .await;
    // Still ended after reactivation: the old cookie does not come back to life.
    get_with(&srv, "/json/users/me", Some(&b.cookie))
        .await
        .assert_error(401, "UNAUTHORIZED");

    let b = browser(&srv, &me).await;
    let other = browser(&srv, &me).await;
    let r = post_method(
        &srv,
        Method::PATCH,
        "/json/settings",
        Some(&b.cookie),
        &[("x-csrftoken", &b.csrf)],
        &[
            ("old_password", PASSWORD),
            ("new_password", "another long passphrase"),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    for s in [&b, &other] {
        get_with(&srv, "/json/users/me", Some(&s.cookie))
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    // The browser that changed it got a new session with its page's CSRF token.
    let renewed = pair(&set_cookie(&r, "outpost_session").expect("a renewed session"));
    assert_ne!(renewed, b.cookie);
    let ok = post_form(
        &srv,
        "/json/users/me/status",
        Some(&renewed),
        &[("x-csrftoken", &b.csrf)],
        &[("status_text", "still here")],
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(
        outpost::domain::sessions::count_for(&srv.state, outpost::ids::UserId(me.id))
            .await
            .unwrap(),
        1
    );

    // A new API key through the API ends them all; through the web client, all but its own.
    let r = login_as(&srv, "ann@example.com", "another long passphrase").await;
    let cookie = pair(&set_cookie(&r, "outpost_session").unwrap());
    let r = srv
        .post("/api/v1/users/me/api_key/regenerate", &me, &[])
        .await;
    let key = r.body["api_key"].as_str().unwrap().to_string();
    for c in [&cookie, &renewed] {
        get_with(&srv, "/json/users/me", Some(c))
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    let web = browser_with(&srv, &me, "another long passphrase").await;
    let other = browser_with(&srv, &me, "another long passphrase").await;
    let r = post_form(
        &srv,
        "/json/users/me/api_key/regenerate",
        Some(&web.cookie),
        &[("x-csrftoken", &web.csrf)],
        &[],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_ne!(r.body["api_key"], key.as_str());
    let renewed = pair(&set_cookie(&r, "outpost_session").expect("a renewed session"));
    get_with(&srv, "/json/users/me", Some(&renewed))
        .await
        .assert_success("GET /users/me");
    for c in [&web.cookie, &other.cookie] {
        get_with(&srv, "/json/users/me", Some(c))
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
}

#[tokio::test]
async fn development_login_exists_only_in_development_mode() {
    let srv = server().await;
    person(&srv, "ann@example.com", "Ann Example", Role::Member).await;
    let (cookie, token) = login_form(&srv).await;
    let r = post_form(
        &srv,
        "/devlogin",
        Some(&cookie),
        &[],
        &[("csrf_token", &token), ("username", "ann@example.com")],
    )
    .await;
    assert_eq!(r.status, 404);
    assert!(set_cookie(&r, "outpost_session").is_none());
    assert_eq!(get_with(&srv, "/devlogin", None).await.status, 404);

    let dev = TestServer::start_with(|c| c.chat.development = true).await;
    person(&dev, "ann@example.com", "Ann Example", Role::Member).await;
    let r = get_with(&dev, "/login", None).await;
    let page = html(&r);
    assert!(page.contains("Development login"), "{page}");
    assert!(page.contains(">Ann Example</button>"), "{page}");
    let cookie = pair(&set_cookie(&r, "outpost_login_csrf").unwrap());
    let token = hidden(&page, "csrf_token");
    let r = post_form(
        &dev,
        "/devlogin",
        Some(&cookie),
        &[],
        &[("csrf_token", &token), ("username", "ann@example.com")],
    )
    .await;
    assert_eq!(r.status, 303, "{}", html(&r));
    let session = pair(&set_cookie(&r, "outpost_session").unwrap());
    let me = get_with(&dev, "/json/users/me", Some(&session)).await;
    assert_eq!(me.body["email"], "ann@example.com");
}

#[tokio::test]
async fn cookies_are_secure_when_clients_use_https() {
    let srv = TestServer::start_with(|c| c.chat.external_url = "https://outpost.test".into()).await;
    person(&srv, "ann@example.com", "Ann", Role::Member).await;
    let r = login_as(&srv, "ann@example.com", PASSWORD).await;
    let cookie = set_cookie(&r, "outpost_session").unwrap();
    assert!(cookie.contains("; Secure"), "{cookie}");
}

#[tokio::test]
async fn uploads_accept_the_session_cookie() {
    let srv = server().await;
    let me = person(&srv, "ann@example.com", "Ann", Role::Member).await;
    let b = browser(&srv, &me).await;
    let boundary = "XyZ";
    let multipart = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\
         Content-Type: text/plain\r\n\r\nhello web\r\n--{boundary}--\r\n"
    );
    let r = srv
        .send(
            raw(Method::POST, "/json/user_uploads")
                .header("cookie", &b.cookie)
                .header("x-csrftoken", &b.csrf)
                .header(
                    "content-type",
                    format!("multipart/form-data; boundary={boundary}"),
                )
                .body(body(multipart))
                .unwrap(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let url = r.body["url"].as_str().unwrap().to_string();
    let got = get_with(&srv, &url, Some(&b.cookie)).await;
    assert_eq!(got.status, 200);
    assert_eq!(got.raw.as_ref(), b"hello web");
    let anonymous = get_with(&srv, &url, None).await;
    assert_eq!(anonymous.status, 401);
}

#[tokio::test]
async fn a_long_poll_on_json_events_is_woken_by_a_send() {
    let srv = server().await;
    let me = person(&srv, "ann@example.com", "Ann", Role::Member).await;
    let bob = person(&srv, "bob@example.com", "Bob", Role::Member).await;
    let b = browser(&srv, &me).await;
    let r = post_form(
        &srv,
        "/json/register",
        Some(&b.cookie),
        &[("x-csrftoken", &b.csrf)],
        &[("event_types", "[\"message\"]")],
    )
    .await;
    r.assert_success("POST /register");
    let queue = r.body["queue_id"].as_str().unwrap().to_string();
    let last = r.body["last_event_id"].as_i64().unwrap().to_string();
    let path = format!("/json/events?queue_id={queue}&last_event_id={last}");
    let poll = {
        let req: Request<Full<Bytes>> = raw(Method::GET, &path)
            .header("cookie", &b.cookie)
            .body(body(""))
            .unwrap();
        srv.send(req)
    };
    let send = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let to = format!("[{}]", me.id);
        srv.post(
            "/api/v1/messages",
            &bob,
            &[("type", "direct"), ("to", &to), ("content", "wake up")],
        )
        .await
        .assert_success("POST /messages");
    };
    let (r, ()) = tokio::time::timeout(Duration::from_secs(20), async { tokio::join!(poll, send) })
        .await
        .expect("the poll answered");
    let events = r.assert_success("GET /events")["events"].clone();
    let events: &Vec<Value> = events.as_array().unwrap();
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "message" && e["message"]["content"] == "wake up"),
        "{events:?}"
    );
}

#[tokio::test]
async fn every_json_route_needs_a_session_before_its_body_is_read() {
    let srv = server().await;
    let open = ["server_settings", "fetch_api_key", "dev_fetch_api_key"];
    for (method, path) in outpost::zulip::SAMPLE_ROUTES {
        let path = path.replace("{id}", "7");
        let m: Method = method.parse().unwrap();
        // A body far over any limit: refused before it is read, so the answer is the 401.
        let r = srv
            .send(
                raw(m, &format!("/json/{path}"))
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body(body(vec![b'a'; 1 << 20]))
                    .unwrap(),
            )
            .await;
        if path.starts_with("external/") {
            assert_eq!(r.status, 404, "{method} {path}");
        } else if open.contains(&path.as_str()) {
            assert_ne!(r.status, 401, "{method} {path}");
        } else {
            r.assert_error(401, "UNAUTHORIZED");
        }
    }
}

/// The register answer a page shell carries (`<script type="application/json"
/// id="initial-state">`), parsed.
fn initial_state(page: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"initial-state\">";
    let start = page.find(open).expect("the initial-state block") + open.len();
    let end = start + page[start..].find("</script>").expect("its end");
    serde_json::from_str(&page[start..end]).expect("JSON inside the block")
}

#[tokio::test]
async fn the_shell_carries_a_register_answer_whose_queue_the_page_polls() {
    let srv = server().await;
    let me = person(&srv, "ann@example.com", "Ann", Role::Member).await;
    // A status that would end the script element or open a comment, were it not escaped.
    let hostile = "</script><script>alert(1)</script><!--";
    srv.post("/api/v1/users/me/status", &me, &[("status_text", hostile)])
        .await
        .assert_success("POST /users/me/status");
    let bob = person(&srv, "bob@example.com", "Bob", Role::Member).await;
    let b = browser(&srv, &me).await;
    let queues = srv.state.queues.count_of_user(outpost::ids::UserId(me.id));
    let home = get_with(&srv, "/", Some(&b.cookie)).await;
    assert_eq!(home.status, 200);
    assert_eq!(
        srv.state.queues.count_of_user(outpost::ids::UserId(me.id)),
        queues + 1
    );
    // A HEAD gets the headers alone and makes no queue.
    let head = srv
        .send(
            raw(Method::HEAD, "/")
                .header("cookie", &b.cookie)
                .body(body(""))
                .unwrap(),
        )
        .await;
    assert_eq!(head.status, 200);
    assert!(head.raw.is_empty());
    assert_eq!(
        srv.state.queues.count_of_user(outpost::ids::UserId(me.id)),
        queues + 1
    );
    let page = html(&home);
    assert_eq!(
        page.matches("</script>").count(),
        2,
        "only the two script elements end in </script>: {page}"
    );
    assert!(!page.contains("<!--"), "{page}");
    let state = initial_state(&page);
    // The same answer the client's own register gets: the web client's capabilities applied.
    assert_eq!(state["result"], "success");
    assert_eq!(state["user_id"], me.id);
    assert_eq!(
        state["user_status"][me.id.to_string()]["status_text"],
        hostile
    );
    assert_eq!(state["last_event_id"], -1);
    assert!(
        state["user_settings"].is_object(),
        "user_settings_object capability"
    );
    assert!(state["realm_users"].is_array());
    assert!(state["subscriptions"].is_array());
    assert!(state["unread_msgs"].is_object());
    let queue = state["queue_id"].as_str().expect("queue_id").to_string();

    // The queue is the page's: a message to the user arrives there.
    let to = format!("[{}]", me.id);
    srv.post(
        "/api/v1/messages",
        &bob,
        &[("type", "direct"), ("to", &to), ("content", "to the page")],
    )
    .await
    .assert_success("POST /messages");
    // A long-poll: the event reaches the queue after the send's commit, not necessarily
    // before the send's answer.
    let path = format!("/json/events?queue_id={queue}&last_event_id=-1");
    let r = tokio::time::timeout(
        Duration::from_secs(20),
        get_with(&srv, &path, Some(&b.cookie)),
    )
    .await
    .expect("the poll answered");
    let events = r.assert_success("GET /events")["events"].clone();
    assert!(
        events
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "message" && e["message"]["content"] == "<p>to the page</p>"),
        "{events:?}"
    );
    // Another user's session cannot use it.
    let bob_browser = browser(&srv, &bob).await;
    let r = get_with(&srv, &path, Some(&bob_browser.cookie)).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["code"], "BAD_EVENT_QUEUE_ID");
}
