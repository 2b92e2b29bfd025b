//! Mail as people get it, through a local SMTP sink: the durable outbox (a mail queued while
//! the mail server is down is delivered after a restart), forgot-password end to end, email
//! change by confirmation, missed-message emails batched over explicit times, and one-click
//! unsubscribe. Every mail's headers, parts and links are checked.

use base64::Engine as _;
use hyper::Method;
use serde_json::Value;

use outpost::config::MailTls;

use crate::support::smtp::{SmtpSink, SunkMail};
use crate::support::{Org, Reply, TestServer, body, org_with, raw, register_queue, wait_events};

/// The usual organization, sending mail to the sink on `port`.
pub(crate) async fn org_mailing_to(port: u16) -> Org {
    org_with(move |c| {
        c.email.host = "127.0.0.1".into();
        c.email.port = port;
        c.email.tls = MailTls::None;
        c.email.from = "Outpost <noreply@outpost.test>".into();
    })
    .await
}

/// A mail split into its (unfolded) headers and decoded parts.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) text: String,
    pub(crate) html: Option<String>,
}

impl Parsed {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    #[track_caller]
    pub(crate) fn has(&self, name: &str, value: &str) {
        assert_eq!(
            self.header(name),
            Some(value),
            "{name} in {:?}",
            self.headers
        );
    }
}

fn split_headers(block: &str) -> (Vec<(String, String)>, &str) {
    let (head, rest) = block.split_once("\n\n").unwrap_or((block, ""));
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in head.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some(last) = headers.last_mut() {
                last.1.push(' ');
                last.1.push_str(line.trim());
            }
        } else if let Some((n, v)) = line.split_once(':') {
            headers.push((n.trim().to_string(), v.trim().to_string()));
        }
    }
    (headers, rest)
}

fn decode(headers: &[(String, String)], body: &str) -> String {
    let enc = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-transfer-encoding"))
        .map(|(_, v)| v.to_ascii_lowercase())
        .unwrap_or_default();
    match enc.as_str() {
        "base64" => {
            let joined: String = body.split_whitespace().collect();
            String::from_utf8(
                base64::engine::general_purpose::STANDARD
                    .decode(joined)
                    .expect("base64 part"),
            )
            .unwrap()
        }
        "quoted-printable" => {
            let mut out = Vec::new();
            let b = body.replace("=\n", "");
            let bytes = b.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'=' && i + 2 < bytes.len() {
                    let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                    out.push(u8::from_str_radix(hex, 16).expect("qp escape"));
                    i += 3;
                } else {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
            String::from_utf8(out).unwrap()
        }
        _ => body.to_string(),
    }
}

pub(crate) fn parse(m: &SunkMail) -> Parsed {
    let (headers, rest) = split_headers(&m.data);
    let ctype = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    if !ctype.starts_with("multipart/alternative") {
        assert!(ctype.starts_with("text/plain"), "{ctype}");
        return Parsed {
            text: decode(&headers, rest),
            headers,
            html: None,
        };
    }
    let boundary = ctype
        .split("boundary=")
        .nth(1)
        .unwrap()
        .trim_matches('"')
        .to_string();
    let mut text = None;
    let mut html = None;
    for part in rest.split(&format!("--{boundary}")).skip(1) {
        let part = part.trim_start_matches('\n');
        if part.starts_with("--") {
            break;
        }
        let (ph, pb) = split_headers(part);
        let pt = ph
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let decoded = decode(&ph, pb.trim_end_matches('\n'));
        if pt.starts_with("text/plain") {
            text = Some(decoded);
        } else if pt.starts_with("text/html") {
            html = Some(decoded);
        }
    }
    Parsed {
        headers,
        text: text.expect("a plain-text part"),
        html: Some(html.expect("an HTML part")),
    }
}

/// The first link under `prefix` in `text` (up to whitespace or a quote).
pub(crate) fn link_in(text: &str, prefix: &str) -> String {
    let start = text
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix} link in {text}"));
    text[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '"' && *c != '>')
        .collect()
}

pub(crate) fn path_of(link: &str) -> String {
    link.strip_prefix("http://outpost.test")
        .unwrap()
        .to_string()
}

pub(crate) fn html(r: &Reply) -> String {
    String::from_utf8_lossy(&r.raw).into_owned()
}

/// A form POST with a cookie.
pub(crate) async fn post_form(
    srv: &TestServer,
    path: &str,
    cookie: Option<&str>,
    form: &[(&str, &str)],
) -> Reply {
    let encoded: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let mut req =
        raw(Method::POST, path).header("content-type", "application/x-www-form-urlencoded");
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    srv.send(req.body(body(encoded)).unwrap()).await
}

pub(crate) async fn get_page(srv: &TestServer, path: &str) -> Reply {
    srv.call(Method::GET, path, None, &[]).await
}

/// The reset form's token and the cookie it set.
async fn reset_form(srv: &TestServer) -> (String, String) {
    let r = get_page(srv, "/accounts/password/reset/").await;
    assert_eq!(r.status, 200);
    let page = html(&r);
    let marker = "name=\"csrf_token\" value=\"";
    let start = page.find(marker).unwrap() + marker.len();
    let token = page[start..].split('"').next().unwrap().to_string();
    let cookie = r.headers["set-cookie"].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_string();
    (token, cookie)
}

async fn ask_reset(srv: &TestServer, email: &str) -> Reply {
    let (token, cookie) = reset_form(srv).await;
    post_form(
        srv,
        "/accounts/password/reset/",
        Some(&cookie),
        &[("csrf_token", &token), ("email", email)],
    )
    .await
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

/// Headers every server mail carries.
#[track_caller]
pub(crate) fn common_headers(p: &Parsed) {
    p.has("X-Auto-Response-Suppress", "All");
    p.has("Reply-To", "noreply@outpost.test");
    p.has("List-Id", "\"Outpost\" <outpost.test>");
    assert!(p.header("Date").is_some());
}

#[tokio::test]
async fn a_mail_queued_while_the_mail_server_is_down_is_delivered_after_a_restart() {
    // A port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let down = closed.local_addr().unwrap().port();
    drop(closed);
    let o = org_mailing_to(down).await;
    let r = o
        .srv
        .post(
            "/api/v1/invites",
            &o.admin,
            &[("invitee_emails", "nina@example.com"), ("stream_ids", "[]")],
        )
        .await;
    r.assert_success("POST /invites");
    // The first attempt fails; the mail waits for its retry.
    for _ in 0..200 {
        if o.srv
            .state
            .mailer
            .counters
            .failed_attempts
            .load(std::sync::atomic::Ordering::Relaxed)
            > 0
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        outpost::domain::outbox::waiting(&o.srv.state)
            .await
            .unwrap(),
        1
    );
    let mut stopped = o.srv.stop_abruptly();
    let sink = SmtpSink::start().await;
    stopped.config.email.port = sink.port;
    let srv = stopped.start().await;
    let m = sink.next().await;
    assert_eq!(m.to, ["nina@example.com"]);
    assert_eq!(m.from, "noreply@outpost.test");
    let p = parse(&m);
    p.has("Subject", "Ada Admin invited you to join Outpost");
    assert!(
        p.text.contains("Ada Admin (admin@example.com) invited you"),
        "{}",
        p.text
    );
    assert!(link_in(&p.text, "http://outpost.test/join/").ends_with('/'));
    // Sent once: the outbox is empty.
    for _ in 0..100 {
        if outpost::domain::outbox::waiting(&srv.state).await.unwrap() == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        outpost::domain::outbox::waiting(&srv.state).await.unwrap(),
        0
    );
}

#[tokio::test]
async fn forgot_password_end_to_end() {
    let sink = SmtpSink::start().await;
    let o = org_mailing_to(sink.port).await;
    let login_page = html(&get_page(&o.srv, "/login").await);
    assert!(
        login_page.contains("href=\"/accounts/password/reset/\""),
        "{login_page}"
    );

    // The same page for an account and for an unknown address.
    let known = ask_reset(&o.srv, "alice@example.com").await;
    let unknown = ask_reset(&o.srv, "nobody@example.com").await;
    assert_eq!(known.status, 200);
    assert_eq!(unknown.status, 200);
    assert_eq!(
        html(&known).replace("alice@example.com", "X"),
        html(&unknown).replace("nobody@example.com", "X")
    );
    assert!(html(&known).contains("Check your email"));

    let m = sink.next().await;
    assert_eq!(m.to, ["alice@example.com"]);
    assert_eq!(m.from, "noreply@outpost.test");
    let p = parse(&m);
    common_headers(&p);
    p.has(
        "From",
        "\"Outpost account security\" <noreply@outpost.test>",
    );
    p.has("Subject", "Reset your password for Outpost");
    let link = link_in(&p.text, "http://outpost.test/accounts/password/reset/");
    assert_eq!(
        link_in(p.html.as_deref().unwrap(), "http://outpost.test/accounts/"),
        link
    );
    let m = sink.next().await;
    assert_eq!(m.to, ["nobody@example.com"]);
    let none = parse(&m);
    common_headers(&none);
    assert!(none.text.contains("no active account"), "{}", none.text);
    assert!(!none.text.contains("/accounts/password/reset/"));

    // A forged form changes nothing and sends nothing.
    let forged = post_form(
        &o.srv,
        "/accounts/password/reset/",
        None,
        &[("email", "alice@example.com")],
    )
    .await;
    assert_eq!(forged.status, 403);

    let path = path_of(&link);
    let form = get_page(&o.srv, &path).await;
    assert_eq!(form.status, 200);
    assert!(html(&form).contains("alice@example.com"));
    let r = post_form(
        &o.srv,
        &path,
        None,
        &[
            ("new_password1", "brand-new-pw"),
            ("new_password2", "other"),
        ],
    )
    .await;
    assert_eq!(r.status, 400);
    assert!(html(&r).contains("didn&#39;t match"), "{}", html(&r));
    let r = post_form(
        &o.srv,
        &path,
        None,
        &[("new_password1", "abc"), ("new_password2", "abc")],
    )
    .await;
    assert_eq!(r.status, 400);
    // Still the old password.
    assert_eq!(
        login(&o.srv, "alice@example.com", "brand-new-pw")
            .await
            .status,
        401
    );

    // Expiry: 3 days.
    let key = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let now = outpost::time::now_secs();
    use outpost::domain::account_mail::{LinkProblem, reset};
    assert!(
        reset::open(&o.srv.state, &key, now + 3 * 86_400 - 60)
            .await
            .unwrap()
            .is_ok()
    );
    assert_eq!(
        reset::open(&o.srv.state, &key, now + 3 * 86_400 + 60)
            .await
            .unwrap()
            .unwrap_err(),
        LinkProblem::Expired
    );

    let r = post_form(
        &o.srv,
        &path,
        None,
        &[
            ("new_password1", "brand-new-pw"),
            ("new_password2", "brand-new-pw"),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", html(&r));
    let r = login(&o.srv, "alice@example.com", "brand-new-pw").await;
    r.assert_success("POST /fetch_api_key");
    // Single use.
    assert_eq!(get_page(&o.srv, &path).await.status, 404);
    let r = post_form(
        &o.srv,
        &path,
        None,
        &[
            ("new_password1", "another-pw"),
            ("new_password2", "another-pw"),
        ],
    )
    .await;
    assert_eq!(r.status, 404);
    assert_eq!(
        login(&o.srv, "alice@example.com", "another-pw")
            .await
            .status,
        401
    );

    // Per address: two requests an hour, then 429 (and no mail).
    let third = ask_reset(&o.srv, "nobody@example.com").await;
    assert_eq!(third.status, 200);
    let _ = sink.next().await;
    let over = ask_reset(&o.srv, "nobody@example.com").await;
    assert_eq!(over.status, 429);
}

#[tokio::test]
async fn email_change_by_confirmation() {
    let sink = SmtpSink::start().await;
    let o = org_mailing_to(sink.port).await;
    let q = register_queue(&o.srv, &o.owner, &[("event_types", r#"["realm_user"]"#)]).await;

    // Bad input is refused and sends nothing.
    let r = o
        .srv
        .patch("/api/v1/settings", &o.alice, &[("email", "not-an-address")])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid address."
    );
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("email", "bob@example.com")],
        )
        .await;
    r.assert_error(400, "BAD_REQUEST");
    // The current address: nothing to do.
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("email", "alice@example.com")],
        )
        .await;
    r.assert_success("PATCH /settings");

    // A first request, then a second: only the second link works.
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("email", "first@example.com")],
        )
        .await;
    r.assert_success("PATCH /settings");
    let first = sink.next().await;
    assert_eq!(first.to, ["first@example.com"]);
    let first_link = link_in(
        &parse(&first).text,
        "http://outpost.test/accounts/confirm_new_email/",
    );
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("email", "alice2@example.com")],
        )
        .await;
    r.assert_success("PATCH /settings");
    let m = sink.next().await;
    assert_eq!(m.to, ["alice2@example.com"]);
    let p = parse(&m);
    common_headers(&p);
    p.has(
        "From",
        "\"Outpost account security\" <noreply@outpost.test>",
    );
    p.has("Subject", "Verify your new email address for Outpost");
    let link = link_in(&p.text, "http://outpost.test/accounts/confirm_new_email/");
    assert_eq!(get_page(&o.srv, &path_of(&first_link)).await.status, 404);

    // GET only asks.
    let page = get_page(&o.srv, &path_of(&link)).await;
    assert_eq!(page.status, 200);
    assert!(html(&page).contains("alice2@example.com"));
    assert!(login(&o.srv, "alice@example.com", "").await.status != 200);
    let r = post_form(&o.srv, &path_of(&link), None, &[]).await;
    assert_eq!(r.status, 200, "{}", html(&r));
    assert!(html(&r).contains("alice2@example.com"));

    let evs = wait_events(&o, &o.owner, &q, 1).await;
    let ev = evs
        .iter()
        .find(|e| e["type"] == "realm_user" && e["op"] == "update")
        .expect("a realm_user update");
    assert_eq!(ev["person"]["user_id"], o.alice.id);
    let person = ev["person"].as_object().unwrap();
    assert!(
        person.get("delivery_email") == Some(&Value::from("alice2@example.com"))
            || person.get("new_email") == Some(&Value::from("alice2@example.com")),
        "{ev}"
    );

    // The old address is told.
    let notice = sink.next().await;
    assert_eq!(notice.to, ["alice@example.com"]);
    let np = parse(&notice);
    common_headers(&np);
    assert!(np.text.contains("alice2@example.com"));
    // The link is used up.
    assert_eq!(
        post_form(&o.srv, &path_of(&link), None, &[]).await.status,
        404
    );
    let me = o.srv.get("/api/v1/users/me", &o.alice, &[]).await;
    assert!(
        me.status == 401
            || me.body["delivery_email"] == "alice2@example.com"
            || me.body["email"] == "alice2@example.com",
        "{}",
        me.body
    );

    // email_changes_disabled: members refused, administrators exempt.
    let r = o
        .srv
        .patch(
            "/api/v1/realm",
            &o.owner,
            &[("email_changes_disabled", "true")],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = o
        .srv
        .patch("/api/v1/settings", &o.bob, &[("email", "bob2@example.com")])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Email address changes are disabled in this organization."
    );
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.admin,
            &[("email", "ada2@example.com")],
        )
        .await;
    r.assert_success("PATCH /settings");
    assert_eq!(sink.next().await.to, ["ada2@example.com"]);
}

/// Records a missed message for `user` as the notification decision does, at `now`.
async fn missed(o: &Org, user: i64, message: i64, trigger: Trigger, now: i64) {
    o.srv
        .state
        .db
        .write(move |tx| email::enqueue(tx, UserId(user), MessageId(message), trigger, None, now))
        .await
        .unwrap();
}

/// Keeps every user of the organization active (a polled queue, an active presence): the
/// notification decision then leaves their emails for a second look ten minutes later, so
/// only the test's explicit batches are sent.
async fn keep_everyone_active(o: &Org) {
    for who in [&o.owner, &o.admin, &o.alice, &o.bob, &o.guest] {
        register_queue(&o.srv, who, &[]).await;
        o.srv
            .post("/api/v1/users/me/presence", who, &[("status", "active")])
            .await
            .assert_success("POST /users/me/presence");
    }
}

async fn deliver(o: &Org, now: i64) -> usize {
    missed::deliver_due(&o.srv.state, now).await.unwrap()
}

use outpost::domain::account_mail::missed;
use outpost::domain::notifications::{Trigger, email};
use outpost::ids::{MessageId, UserId};

/// A time the server's own worker never reaches during a test, so only the test's explicit
/// passes send anything.
fn later() -> i64 {
    outpost::time::now_secs() + 10_000_000
}

#[tokio::test]
async fn missed_messages_are_batched_and_grouped_by_conversation() {
    let sink = SmtpSink::start().await;
    let o = org_mailing_to(sink.port).await;
    keep_everyone_active(&o).await;
    o.channel(&o.owner, "general", &[&o.alice, &o.bob], &[])
        .await;
    let t0 = later();
    let dm1 = o.send_dm(&o.bob, &[&o.alice], "first **note**").await;
    missed(&o, o.alice.id, dm1, Trigger::DirectMessage, t0).await;
    // Shown as the mention's context, not counted.
    o.send_channel(&o.owner, "general", "topic a", "some context first")
        .await;
    let m = o
        .send_channel(&o.bob, "general", "Topic A", "hello @**Alice Ant**")
        .await;
    missed(&o, o.alice.id, m, Trigger::Mentioned, t0 + 10).await;
    let dm2 = o.send_dm(&o.bob, &[&o.alice], "second note").await;
    missed(&o, o.alice.id, dm2, Trigger::DirectMessage, t0 + 20).await;

    // The batch is due 120 s (the default period) after its first message.
    assert_eq!(deliver(&o, t0 + 119).await, 0);
    assert_eq!(deliver(&o, t0 + 120).await, 2);
    assert_eq!(deliver(&o, t0 + 500).await, 0, "the rows are gone");

    // Buckets go out in the order of their newest message: the channel's first.
    let channel_mail = parse(&sink.next().await);
    let dm_mail = parse(&sink.next().await);
    for p in [&channel_mail, &dm_mail] {
        common_headers(p);
        p.has("From", "\"Outpost notifications\" <noreply@outpost.test>");
        p.has("To", "alice@example.com");
        p.has("List-Unsubscribe-Post", "List-Unsubscribe=One-Click");
        let unsub = p.header("List-Unsubscribe").unwrap();
        assert!(
            unsub.starts_with("<http://outpost.test/accounts/unsubscribe/missed_messages/"),
            "{unsub}"
        );
        assert!(p.text.contains("/accounts/unsubscribe/missed_messages/"));
        assert!(p.html.as_deref().unwrap().contains("Unsubscribe"));
    }
    channel_mail.has("Subject", "#general > Topic A");
    assert!(channel_mail.text.contains("You were mentioned."));
    let context = channel_mail
        .text
        .find("Olive Owner:\n> some context first")
        .expect("context");
    assert!(context < channel_mail.text.find("Bob Bee:").unwrap());
    assert!(
        channel_mail
            .text
            .contains("Bob Bee:\n> hello @**Alice Ant**"),
        "{}",
        channel_mail.text
    );
    assert!(
        channel_mail
            .text
            .contains("http://outpost.test/#narrow/channel/"),
        "{}",
        channel_mail.text
    );
    assert!(
        channel_mail.text.contains("/topic/Topic.20A"),
        "{}",
        channel_mail.text
    );

    dm_mail.has("Subject", "DMs with Bob Bee");
    assert!(
        dm_mail.text.contains("> first **note**\n"),
        "{}",
        dm_mail.text
    );
    assert!(dm_mail.text.contains("> second note\n"));
    let dm_html = dm_mail.html.as_deref().unwrap();
    assert!(dm_html.contains("<strong>note</strong>"), "{dm_html}");
    let link = format!("http://outpost.test/#narrow/dm/{}-Bob-Bee", o.bob.id);
    assert!(dm_mail.text.contains(&link), "{}", dm_mail.text);
}

#[tokio::test]
async fn no_email_for_read_messages_deactivated_users_bots_or_those_who_turned_it_off() {
    let sink = SmtpSink::start().await;
    let o = org_mailing_to(sink.port).await;
    keep_everyone_active(&o).await;
    let t0 = later();
    // Read before the batch is due.
    let dm = o.send_dm(&o.bob, &[&o.alice], "read soon").await;
    missed(&o, o.alice.id, dm, Trigger::DirectMessage, t0).await;
    let r = o
        .srv
        .post(
            "/api/v1/messages/flags",
            &o.alice,
            &[
                ("messages", &format!("[{dm}]")),
                ("op", "add"),
                ("flag", "read"),
            ],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // A deactivated user.
    let to_guest = o.send_dm(&o.bob, &[&o.guest], "for the guest").await;
    missed(&o, o.guest.id, to_guest, Trigger::DirectMessage, t0).await;
    let r = o
        .srv
        .delete(&format!("/api/v1/users/{}", o.guest.id), &o.owner, &[])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // A bot.
    let r = o
        .srv
        .post(
            "/api/v1/bots",
            &o.alice,
            &[
                ("full_name", "Helper Bot"),
                ("short_name", "helper"),
                ("bot_type", "1"),
            ],
        )
        .await;
    let bot = r.body["user_id"].as_i64().expect("a bot");
    let to_bot = o.send_dm(&o.bob, &[&o.alice], "bots get none").await;
    missed(&o, bot, to_bot, Trigger::DirectMessage, t0).await;
    // The setting off.
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.admin,
            &[("enable_offline_email_notifications", "false")],
        )
        .await;
    r.assert_success("PATCH /settings");
    let to_admin = o.send_dm(&o.bob, &[&o.admin], "admin is off").await;
    missed(&o, o.admin.id, to_admin, Trigger::DirectMessage, t0).await;
    // A deleted message.
    let gone = o.send_dm(&o.owner, &[&o.bob], "soon deleted").await;
    missed(&o, o.bob.id, gone, Trigger::DirectMessage, t0).await;
    let r = o
        .srv
        .delete(&format!("/api/v1/messages/{gone}"), &o.owner, &[])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);

    assert_eq!(deliver(&o, t0 + 1000).await, 0);
    assert_eq!(
        outpost::domain::outbox::waiting(&o.srv.state)
            .await
            .unwrap(),
        0
    );
}

#[tokio::test]
async fn batching_follows_the_users_period_and_content_can_be_withheld() {
    let sink = SmtpSink::start().await;
    let o = org_mailing_to(sink.port).await;
    keep_everyone_active(&o).await;
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[
                ("email_notifications_batching_period_seconds", "5"),
                ("message_content_in_email_notifications", "false"),
                ("realm_name_in_email_notifications_policy", "2"),
            ],
        )
        .await;
    r.assert_success("PATCH /settings");
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("email_notifications_batching_period_seconds", "0")],
        )
        .await;
    r.assert_error(400, "BAD_REQUEST");
    let t0 = later();
    let dm = o.send_dm(&o.bob, &[&o.alice], "secret content").await;
    missed(&o, o.alice.id, dm, Trigger::DirectMessage, t0).await;
    assert_eq!(deliver(&o, t0 + 4).await, 0);
    assert_eq!(deliver(&o, t0 + 5).await, 1);
    let p = parse(&sink.next().await);
    p.has("Subject", "New messages [Outpost]");
    assert!(!p.text.contains("secret content"), "{}", p.text);
    assert!(!p.html.as_deref().unwrap().contains("secret content"));
    assert!(p.text.contains("You have 1 new message."), "{}", p.text);
}

#[tokio::test]
async fn one_click_unsubscribe_turns_missed_message_emails_off() {
    let sink = SmtpSink::start().await;
    let o = org_mailing_to(sink.port).await;
    keep_everyone_active(&o).await;
    let t0 = later();
    let dm = o.send_dm(&o.bob, &[&o.alice], "hi").await;
    missed(&o, o.alice.id, dm, Trigger::DirectMessage, t0).await;
    assert_eq!(deliver(&o, t0 + 120).await, 1);
    let p = parse(&sink.next().await);
    let header = p.header("List-Unsubscribe").unwrap();
    let link = header
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_string();
    let path = path_of(&link);

    // GET only asks.
    let page = get_page(&o.srv, &path).await;
    assert_eq!(page.status, 200);
    assert!(html(&page).contains("missed-message emails"));
    let on = outpost::domain::settings::flag(
        &o.srv.state,
        UserId(o.alice.id),
        "enable_offline_email_notifications",
    )
    .await
    .unwrap();
    assert!(on);
    // A forged key or an unknown type changes nothing.
    let bad = format!("/accounts/unsubscribe/missed_messages/{}", "0".repeat(64));
    assert_eq!(post_form(&o.srv, &bad, None, &[]).await.status, 404);
    let other = path.replace("missed_messages", "digest");
    assert_eq!(post_form(&o.srv, &other, None, &[]).await.status, 404);

    // The mail client's one-click POST (RFC 8058).
    let r = post_form(&o.srv, &path, None, &[("List-Unsubscribe", "One-Click")]).await;
    assert_eq!(r.status, 200, "{}", html(&r));
    let on = outpost::domain::settings::flag(
        &o.srv.state,
        UserId(o.alice.id),
        "enable_offline_email_notifications",
    )
    .await
    .unwrap();
    assert!(!on);
    let dm = o.send_dm(&o.bob, &[&o.alice], "no more mail").await;
    missed(&o, o.alice.id, dm, Trigger::DirectMessage, t0 + 200).await;
    assert_eq!(deliver(&o, t0 + 1000).await, 0);
}

#[tokio::test]
async fn group_dm_and_resolved_topic_subjects() {
    let sink = SmtpSink::start().await;
    let o = org_mailing_to(sink.port).await;
    keep_everyone_active(&o).await;
    o.channel(&o.owner, "general", &[&o.alice, &o.bob], &[])
        .await;
    let t0 = later();
    let g = o
        .send_dm(&o.bob, &[&o.alice, &o.admin], "to the three of us")
        .await;
    missed(&o, o.alice.id, g, Trigger::DirectMessage, t0).await;
    let m = o
        .send_channel(&o.bob, "general", "✔ done", "@**all** it is done")
        .await;
    missed(&o, o.alice.id, m, Trigger::StreamWildcardMentioned, t0).await;
    assert_eq!(deliver(&o, t0 + 120).await, 2);
    let first = parse(&sink.next().await);
    first.has("Subject", "Group DMs with Ada Admin and Bob Bee");
    assert!(
        first.text.contains("Bob Bee:\n> to the three of us"),
        "{}",
        first.text
    );
    let mut ids = [o.alice.id, o.admin.id, o.bob.id];
    ids.sort();
    let link = format!(
        "http://outpost.test/#narrow/dm/{}-group",
        ids.map(|i| i.to_string()).join(",")
    );
    assert!(first.text.contains(&link), "{}", first.text);
    let second = parse(&sink.next().await);
    assert!(
        second
            .header("Subject")
            .unwrap()
            .contains("[resolved] #general > done"),
        "{:?}",
        second.header("Subject")
    );
    assert!(
        second
            .text
            .contains("Everyone in the conversation was mentioned.")
    );
}

/// Records a missed message that mentioned `user` through group `g`, at `now`.
async fn by_group(o: &Org, user: i64, message: i64, g: i64, now: i64) {
    o.srv
        .state
        .db
        .write(move |tx| {
            let group = Some(outpost::ids::GroupId(g));
            email::enqueue(
                tx,
                UserId(user),
                MessageId(message),
                Trigger::Mentioned,
                group,
                now,
            )
        })
        .await
        .unwrap()
}

/// Creates a group of `members` as the owner; its id.
async fn group(o: &Org, name: &str, members: &[&crate::support::TestUser]) -> i64 {
    let ids: Vec<i64> = members.iter().map(|u| u.id).collect();
    let r = o
        .srv
        .post(
            "/api/v1/user_groups/create",
            &o.owner,
            &[
                ("name", name),
                ("description", ""),
                ("members", &serde_json::to_string(&ids).unwrap()),
            ],
        )
        .await;
    r.assert_success("POST /user_groups/create")["group_id"]
        .as_i64()
        .unwrap()
}

#[tokio::test]
async fn a_group_mention_names_the_smallest_group_unless_one_was_personal() {
    let sink = SmtpSink::start().await;
    let o = org_mailing_to(sink.port).await;
    keep_everyone_active(&o).await;
    o.channel(&o.owner, "general", &[&o.alice, &o.bob], &[])
        .await;
    let ops = group(&o, "ops", &[&o.alice, &o.bob]).await;
    let big = group(&o, "everyone-here", &[&o.alice, &o.bob, &o.owner]).await;
    let t0 = later();
    let a = o
        .send_channel(&o.bob, "general", "deploy", "@*everyone-here* and @*ops*")
        .await;
    by_group(&o, o.alice.id, a, big, t0).await;
    let b = o
        .send_channel(&o.bob, "general", "deploy", "@*ops* again")
        .await;
    by_group(&o, o.alice.id, b, ops, t0 + 1).await;
    assert_eq!(deliver(&o, t0 + 120).await, 1);
    let mail = parse(&sink.next().await);
    assert!(
        mail.text.starts_with("@ops was mentioned."),
        "{}",
        mail.text
    );
    assert!(
        mail.html
            .as_deref()
            .unwrap()
            .contains("@ops was mentioned.")
    );

    // With a personal mention in the batch, no group is named.
    let t1 = t0 + 1000;
    by_group(&o, o.alice.id, a, ops, t1).await;
    let c = o
        .send_channel(&o.bob, "general", "deploy", "@**Alice Ant** look")
        .await;
    missed(&o, o.alice.id, c, Trigger::Mentioned, t1 + 1).await;
    assert_eq!(deliver(&o, t1 + 120).await, 1);
    let mail = parse(&sink.next().await);
    assert!(
        mail.text.starts_with("You were mentioned."),
        "{}",
        mail.text
    );
}
