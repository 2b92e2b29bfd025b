//! Invitations as clients use them: `POST /invites` (with every parameter, partial failures
//! and the daily limit), reusable links, listing, revoking, resending, the `invites_changed`
//! event, the invitation mail (through a local SMTP sink), and joining through the signup page
//! the link opens, as a browser submits its form.

use hyper::Method;
use serde_json::{Value, json};

use outpost::config::MailTls;

use crate::support::smtp::{SmtpSink, SunkMail};
use crate::support::{
    Org, Reply, TestServer, TestUser, org, org_with, register_queue, wait_events,
};

const MEMBERS: i64 = 6;
const OWNERS: i64 = 2;

/// The usual organization, sending mail to `sink`.
async fn org_mailing(sink: &SmtpSink) -> Org {
    let port = sink.port;
    org_with(move |c| {
        c.email.host = "127.0.0.1".into();
        c.email.port = port;
        c.email.tls = MailTls::None;
        c.email.from = "Outpost <noreply@outpost.test>".into();
    })
    .await
}

async fn invite(o: &Org, who: &TestUser, form: &[(&str, &str)]) -> Reply {
    o.srv.post("/api/v1/invites", who, form).await
}

async fn listed(o: &Org, who: &TestUser) -> Vec<Value> {
    let r = o.srv.get("/api/v1/invites", who, &[]).await;
    r.assert_success("GET /invites")["invites"]
        .as_array()
        .unwrap()
        .clone()
}

/// The signup path (`/join/<key>/`) of a link in a mail or an API answer.
fn join_path(text: &str) -> String {
    let start = text
        .find("http://outpost.test/join/")
        .unwrap_or_else(|| panic!("no link in {text}"));
    let link: String = text[start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    let path = link
        .strip_prefix("http://outpost.test")
        .unwrap()
        .to_string();
    assert!(path.ends_with('/'), "{path}");
    path
}

/// A signup that went through: the new user is logged in to the web client (a session cookie)
/// and sent to `/`.
#[track_caller]
fn joined(r: &Reply) {
    assert_eq!(r.status, 303, "{}", html(r));
    assert_eq!(r.headers["location"], "/");
    let cookie = r.headers["set-cookie"].to_str().unwrap();
    assert!(cookie.starts_with("outpost_session="), "{cookie}");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
}

fn html(r: &Reply) -> String {
    String::from_utf8_lossy(&r.raw).into_owned()
}

async fn open_page(srv: &TestServer, path: &str) -> Reply {
    srv.call(Method::GET, path, None, &[]).await
}

/// The form token of a signup page.
fn token_of(page: &str) -> String {
    let marker = "name=\"csrf_token\" value=\"";
    let start = page.find(marker).expect("a csrf token") + marker.len();
    page[start..].split('"').next().unwrap().to_string()
}

async fn submit(srv: &TestServer, path: &str, form: &[(&str, &str)]) -> Reply {
    srv.call(Method::POST, path, None, form).await
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

async fn user_count(o: &Org) -> usize {
    let r = o.srv.get("/api/v1/users", &o.owner, &[]).await;
    r.body["members"].as_array().unwrap().len()
}

fn mail_for<'a>(mails: &'a [SunkMail], to: &str) -> &'a SunkMail {
    mails
        .iter()
        .find(|m| m.to == [to])
        .unwrap_or_else(|| panic!("no mail to {to} in {mails:?}"))
}

#[tokio::test]
async fn invitations_split_addresses_carry_their_options_and_are_mailed() {
    let sink = SmtpSink::start().await;
    let o = org_mailing(&sink).await;
    let general = o.channel(&o.owner, "general", &[&o.owner], &[]).await;
    let r = invite(
        &o,
        &o.admin,
        &[
            (
                "invitee_emails",
                "Nina New <nina@example.com>, ned@example.com\nnora@example.com,",
            ),
            ("stream_ids", &json!([general]).to_string()),
            ("invite_as", "300"),
            ("invite_expires_in_minutes", "60"),
            ("notify_referrer_on_join", "false"),
            ("include_realm_default_subscriptions", "true"),
        ],
    )
    .await;
    r.assert_success("POST /invites");

    let invites = listed(&o, &o.admin).await;
    let mut emails: Vec<&str> = invites
        .iter()
        .map(|i| i["email"].as_str().unwrap())
        .collect();
    emails.sort();
    assert_eq!(
        emails,
        ["ned@example.com", "nina@example.com", "nora@example.com"]
    );
    for i in &invites {
        assert_eq!(i["invited_as"], 300);
        assert_eq!(i["invited_by_user_id"], o.admin.id);
        assert_eq!(i["is_multiuse"], false);
        assert_eq!(i["notify_referrer_on_join"], false);
        let invited = i["invited"].as_i64().unwrap();
        assert_eq!(i["expiry_date"].as_i64().unwrap(), invited + 3600);
        assert!(i.get("link_url").is_none());
    }

    let mails = vec![sink.next().await, sink.next().await, sink.next().await];
    let nina = mail_for(&mails, "nina@example.com");
    assert_eq!(nina.from, "noreply@outpost.test");
    assert!(nina.data.contains("Ada Admin invited you"), "{}", nina.data);
    let path = join_path(&nina.data);
    // Each address has its own link.
    assert_ne!(path, join_path(&mail_for(&mails, "ned@example.com").data));

    // Without an expiry the invitation never expires.
    let r = invite(
        &o,
        &o.admin,
        &[
            ("invitee_emails", "forever@example.com"),
            ("stream_ids", "[]"),
            ("invite_expires_in_minutes", "null"),
        ],
    )
    .await;
    r.assert_success("POST /invites");
    let forever = listed(&o, &o.admin)
        .await
        .into_iter()
        .find(|i| i["email"] == "forever@example.com")
        .unwrap();
    assert_eq!(forever["expiry_date"], Value::Null);
    assert_eq!(forever["invited_as"], 400);
    assert_eq!(forever["notify_referrer_on_join"], true);
}

#[tokio::test]
async fn partial_failure_sends_the_valid_invitations_and_names_the_others() {
    let o = org().await;
    let r = invite(
        &o,
        &o.admin,
        &[
            (
                "invitee_emails",
                "bob@example.com, fresh@example.com, Alice <ALICE@example.com>",
            ),
            ("stream_ids", "[]"),
        ],
    )
    .await;
    let b = r.assert_error(400, "INVITATION_FAILED");
    assert_eq!(
        b["msg"],
        "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!"
    );
    assert_eq!(
        b["errors"],
        json!([
            ["bob@example.com", "Already has an account.", false],
            ["ALICE@example.com", "Already has an account.", false]
        ])
    );
    assert_eq!(b["sent_invitations"], true);
    assert_eq!(b["license_limit_reached"], false);
    assert_eq!(b["daily_limit_reached"], false);
    let invites = listed(&o, &o.admin).await;
    assert_eq!(invites.len(), 1);
    assert_eq!(invites[0]["email"], "fresh@example.com");

    // A deactivated account is named as such.
    o.srv
        .delete(&format!("/api/v1/users/{}", o.bob.id), &o.owner, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    let r = invite(
        &o,
        &o.admin,
        &[("invitee_emails", "bob@example.com"), ("stream_ids", "[]")],
    )
    .await;
    let b = r.assert_error(400, "INVITATION_FAILED");
    assert_eq!(b["msg"], "We weren't able to invite anyone.");
    assert_eq!(
        b["errors"],
        json!([["bob@example.com", "Account has been deactivated.", true]])
    );
    assert_eq!(b["sent_invitations"], false);
    assert_eq!(listed(&o, &o.admin).await.len(), 1);
}

#[tokio::test]
async fn bad_addresses_and_over_long_texts_send_nothing() {
    let o = org().await;
    let r = invite(
        &o,
        &o.admin,
        &[
            ("invitee_emails", "good@example.com, not-an-address"),
            ("stream_ids", "[]"),
        ],
    )
    .await;
    let b = r.assert_error(400, "INVITATION_FAILED");
    assert_eq!(
        b["msg"],
        "Some emails did not validate, so we didn't send any invitations."
    );
    assert_eq!(
        b["errors"],
        json!([["not-an-address", "Invalid address.", false]])
    );
    assert_eq!(b["sent_invitations"], false);

    // No address is refused before the channels are looked at (upstream's order).
    let r = invite(
        &o,
        &o.admin,
        &[("invitee_emails", " "), ("stream_ids", "[99999]")],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "You must specify at least one email address."
    );
    let r = invite(&o, &o.admin, &[("invitee_emails", "x@example.com")]).await;
    assert_eq!(
        r.assert_error(400, "REQUEST_VARIABLE_MISSING")["var_name"],
        "stream_ids"
    );

    let long = "a".repeat(8001);
    let r = invite(
        &o,
        &o.admin,
        &[
            ("invitee_emails", "x@example.com"),
            ("stream_ids", "[]"),
            ("welcome_message_custom_text", &long),
        ],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "welcome_message_custom_text is too long (limit: 8000 characters)"
    );
    let r = invite(
        &o,
        &o.admin,
        &[
            ("invitee_emails", "x@example.com"),
            ("stream_ids", "[]"),
            ("invite_as", "250"),
        ],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid invite_as"
    );
    let r = invite(
        &o,
        &o.admin,
        &[
            ("invitee_emails", "x@example.com"),
            ("stream_ids", "[]"),
            ("invite_expires_in_minutes", "0"),
        ],
    )
    .await;
    r.assert_error(400, "BAD_REQUEST");
    assert!(listed(&o, &o.admin).await.is_empty());
}

#[tokio::test]
async fn who_may_invite_and_as_what() {
    let o = org().await;
    let form = |role: &'static str| {
        vec![
            ("invitee_emails", "x@example.com"),
            ("stream_ids", "[]"),
            ("invite_as", role),
        ]
    };
    // Members may not by default (`can_invite_users_group` is the administrators).
    let r = invite(&o, &o.alice, &form("400")).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Insufficient permission"
    );
    let r = invite(&o, &o.guest, &form("600")).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Not allowed for guest users"
    );
    let r = o.srv.get("/api/v1/invites", &o.guest, &[]).await;
    r.assert_error(400, "BAD_REQUEST");
    let r = o.srv.post("/api/v1/invites/multiuse", &o.alice, &[]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Insufficient permission"
    );

    // Administrators may not invite owners; owners may.
    let r = invite(&o, &o.admin, &form("100")).await;
    assert_eq!(
        r.assert_error(400, "UNAUTHORIZED_PRINCIPAL")["msg"],
        "Must be an organization owner"
    );
    let r = o
        .srv
        .patch(
            "/api/v1/realm",
            &o.owner,
            &[(
                "can_invite_users_group",
                &json!({"new": MEMBERS}).to_string(),
            )],
        )
        .await;
    crate::support::patched(&r);
    // Now members may invite members and guests, not moderators.
    let r = invite(&o, &o.alice, &form("300")).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Must be an organization administrator"
    );
    let r = invite(
        &o,
        &o.alice,
        &[
            ("invitee_emails", "x@example.com"),
            ("stream_ids", "[]"),
            ("welcome_message_custom_text", "Hi"),
        ],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Must be an organization administrator"
    );
    assert!(listed(&o, &o.owner).await.is_empty());
    invite(&o, &o.alice, &form("600"))
        .await
        .assert_success("POST /invites");
    invite(
        &o,
        &o.owner,
        &[
            ("invitee_emails", "boss@example.com"),
            ("stream_ids", "[]"),
            ("invite_as", "100"),
        ],
    )
    .await
    .assert_success("POST /invites");
    // A member lists only their own; administrators everyone's.
    assert_eq!(listed(&o, &o.alice).await.len(), 1);
    assert_eq!(listed(&o, &o.admin).await.len(), 2);
    // Administrators may not revoke an owner invitation; its creator and owners may.
    let boss = listed(&o, &o.owner)
        .await
        .into_iter()
        .find(|i| i["invited_as"] == 100)
        .unwrap();
    let path = format!("/api/v1/invites/{}", boss["id"]);
    let r = o.srv.delete(&path, &o.admin, &[]).await;
    r.assert_error(400, "UNAUTHORIZED_PRINCIPAL");
    // Another member may not touch alice's invitation.
    let mine = listed(&o, &o.alice).await[0]["id"].as_i64().unwrap();
    let r = o
        .srv
        .delete(&format!("/api/v1/invites/{mine}"), &o.bob, &[])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Must be an organization administrator"
    );
    o.srv
        .delete(&format!("/api/v1/invites/{mine}"), &o.alice, &[])
        .await
        .assert_success("DELETE /invites/{invite_id}");
    assert!(listed(&o, &o.alice).await.is_empty());
}

#[tokio::test]
async fn channels_and_groups_are_checked() {
    let o = org().await;
    let secret = o
        .channel(&o.owner, "secret", &[&o.owner], &[("invite_only", "true")])
        .await;
    let open = o.channel(&o.owner, "open", &[&o.owner], &[]).await;
    for (ids, msg) in [
        (
            json!([open, 99_999]),
            "Invalid channel ID 99999. No invites were sent.".to_string(),
        ),
        (
            json!([secret]),
            format!("Invalid channel ID {secret}. No invites were sent."),
        ),
    ] {
        // Bob cannot see the private channel; raise his right to invite first.
        let r = o
            .srv
            .patch(
                "/api/v1/realm",
                &o.owner,
                &[(
                    "can_invite_users_group",
                    &json!({"new": MEMBERS}).to_string(),
                )],
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        let r = invite(
            &o,
            &o.bob,
            &[
                ("invitee_emails", "x@example.com"),
                ("stream_ids", &ids.to_string()),
            ],
        )
        .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg.as_str());
    }
    let r = invite(
        &o,
        &o.owner,
        &[
            ("invitee_emails", "x@example.com"),
            ("stream_ids", "[]"),
            ("group_ids", "[4242]"),
        ],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid user group"
    );
    let r = invite(
        &o,
        &o.owner,
        &[
            ("invitee_emails", "x@example.com"),
            ("stream_ids", "[]"),
            ("group_ids", &json!([OWNERS]).to_string()),
        ],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Insufficient permission"
    );
    let r = o
        .srv
        .post(
            "/api/v1/invites/multiuse",
            &o.owner,
            &[("stream_ids", "[99999]")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid channel ID 99999. No invites were sent."
    );
    assert!(listed(&o, &o.owner).await.is_empty());
}

#[tokio::test]
async fn the_daily_limit_stops_all_invitations_of_a_request() {
    let o = org_with(|c| c.limits.max_invites_per_day = 2).await;
    invite(
        &o,
        &o.admin,
        &[("invitee_emails", "a@example.com"), ("stream_ids", "[]")],
    )
    .await
    .assert_success("POST /invites");
    let r = invite(
        &o,
        &o.admin,
        &[
            ("invitee_emails", "b@example.com, c@example.com"),
            ("stream_ids", "[]"),
        ],
    )
    .await;
    let b = r.assert_error(400, "INVITATION_FAILED");
    assert_eq!(b["daily_limit_reached"], true);
    assert_eq!(b["sent_invitations"], false);
    assert_eq!(b["errors"], json!([]));
    assert_eq!(listed(&o, &o.admin).await.len(), 1);
}

#[tokio::test]
async fn reusable_links_are_listed_and_revoked_once() {
    let o = org().await;
    let r = o
        .srv
        .post(
            "/api/v1/invites/multiuse",
            &o.admin,
            &[("invite_as", "600"), ("invite_expires_in_minutes", "null")],
        )
        .await;
    let link = r.assert_success("POST /invites/multiuse")["invite_link"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(link.starts_with("http://outpost.test/join/"), "{link}");
    let invites = listed(&o, &o.admin).await;
    assert_eq!(invites.len(), 1);
    let inv = &invites[0];
    assert_eq!(inv["is_multiuse"], true);
    assert_eq!(inv["link_url"], link.as_str());
    assert_eq!(inv["invited_as"], 600);
    assert_eq!(inv["expiry_date"], Value::Null);
    assert!(inv.get("email").is_none());
    let id = inv["id"].as_i64().unwrap();

    // The email-invitation endpoints do not know links, and the reverse.
    let r = o
        .srv
        .delete(&format!("/api/v1/invites/{id}"), &o.admin, &[])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "No such invitation"
    );
    let r = o
        .srv
        .post(&format!("/api/v1/invites/{id}/resend"), &o.admin, &[])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "No such invitation"
    );

    let path = format!("/api/v1/invites/multiuse/{id}");
    o.srv
        .delete(&path, &o.admin, &[])
        .await
        .assert_success("DELETE /invites/multiuse/{invite_id}");
    let r = o.srv.delete(&path, &o.admin, &[]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invitation has already been revoked"
    );
    assert!(listed(&o, &o.admin).await.is_empty());
    let r = o
        .srv
        .delete("/api/v1/invites/multiuse/98765", &o.admin, &[])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "No such invitation"
    );
    // The revoked link opens a page saying so.
    let page = open_page(&o.srv, &join_path(&link)).await;
    assert_eq!(page.status, 410);
    assert!(
        html(&page).contains("Invitation revoked"),
        "{}",
        html(&page)
    );
}

#[tokio::test]
async fn changes_are_announced_to_administrators_and_the_inviter() {
    let o = org().await;
    let admin_q = register_queue(
        &o.srv,
        &o.admin,
        &[("event_types", r#"["invites_changed"]"#)],
    )
    .await;
    let bob_q = register_queue(&o.srv, &o.bob, &[("event_types", r#"["invites_changed"]"#)]).await;
    let owner_q = register_queue(
        &o.srv,
        &o.owner,
        &[("event_types", r#"["invites_changed"]"#)],
    )
    .await;
    invite(
        &o,
        &o.owner,
        &[("invitee_emails", "x@example.com"), ("stream_ids", "[]")],
    )
    .await
    .assert_success("POST /invites");
    for (who, q) in [(&o.admin, &admin_q), (&o.owner, &owner_q)] {
        let evs = crate::support::wait_events(&o, who, q, 1).await;
        assert_eq!(evs[0]["type"], "invites_changed");
        assert_eq!(evs.len(), 1, "{evs:?}");
    }
    // A later event reaches the administrator; bob, no administrator and not the inviter,
    // heard of neither.
    let id = listed(&o, &o.owner).await[0]["id"].as_i64().unwrap();
    o.srv
        .delete(&format!("/api/v1/invites/{id}"), &o.owner, &[])
        .await
        .assert_success("DELETE /invites/{invite_id}");
    let evs = crate::support::wait_events(&o, &o.admin, &admin_q, 2).await;
    assert_eq!(evs[1]["type"], "invites_changed");
    assert!(o.events(&o.bob, &bob_q, -1).await.is_empty());
}

#[tokio::test]
async fn resending_mails_the_same_link_again() {
    let sink = SmtpSink::start().await;
    let o = org_mailing(&sink).await;
    invite(
        &o,
        &o.admin,
        &[
            ("invitee_emails", "again@example.com"),
            ("stream_ids", "[]"),
        ],
    )
    .await
    .assert_success("POST /invites");
    let first = sink.next().await;
    let id = listed(&o, &o.admin).await[0]["id"].as_i64().unwrap();
    let r = o
        .srv
        .post(&format!("/api/v1/invites/{id}/resend"), &o.admin, &[])
        .await;
    r.assert_success("POST /invites/{invite_id}/resend");
    let second = sink.next().await;
    assert_eq!(second.to, ["again@example.com"]);
    assert_eq!(join_path(&first.data), join_path(&second.data));
    let r = o
        .srv
        .post("/api/v1/invites/424242/resend", &o.admin, &[])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "No such invitation"
    );
}

#[tokio::test]
async fn without_a_mail_server_invitations_still_succeed() {
    // No `[email] host`: the link goes to the log, the API answers as usual.
    let o = org().await;
    invite(
        &o,
        &o.admin,
        &[
            ("invitee_emails", "logged@example.com"),
            ("stream_ids", "[]"),
        ],
    )
    .await
    .assert_success("POST /invites");
    assert_eq!(listed(&o, &o.admin).await.len(), 1);
}

#[tokio::test]
async fn an_unreachable_mail_server_loses_no_invitation() {
    // A port nothing listens on: the mail fails in the background, the invitation stays.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let o = org_with(move |c| {
        c.email.host = "127.0.0.1".into();
        c.email.port = port;
        c.email.tls = MailTls::None;
        c.email.from = "noreply@outpost.test".into();
    })
    .await;
    invite(
        &o,
        &o.admin,
        &[("invitee_emails", "lost@example.com"), ("stream_ids", "[]")],
    )
    .await
    .assert_success("POST /invites");
    assert_eq!(listed(&o, &o.admin).await[0]["email"], "lost@example.com");
}

#[tokio::test]
async fn an_invitee_signs_up_through_the_form_and_logs_in() {
    let sink = SmtpSink::start().await;
    let o = org_mailing(&sink).await;
    let general = o.channel(&o.owner, "general", &[&o.owner], &[]).await;
    let lobby = o
        .channel(
            &o.owner,
            "lobby",
            &[&o.owner],
            &[("is_default_stream", "true")],
        )
        .await;
    o.channel(&o.owner, "other", &[&o.owner], &[]).await;
    let signups = o.channel(&o.owner, "signups here", &[&o.owner], &[]).await;
    o.set_realm_channel("signup_announcements_stream_id", signups)
        .await;
    let admin_q = register_queue(&o.srv, &o.admin, &[("event_types", r#"["realm_user"]"#)]).await;
    invite(
        &o,
        &o.admin,
        &[
            ("invitee_emails", "Nina <nina@example.com>"),
            ("stream_ids", &json!([general]).to_string()),
            ("invite_as", "300"),
            ("include_realm_default_subscriptions", "true"),
            ("welcome_message_custom_text", "Read #**general** first."),
        ],
    )
    .await
    .assert_success("POST /invites");
    let mail = sink.next().await;
    assert_eq!(mail.to, ["nina@example.com"]);
    let path = join_path(&mail.data);

    let page = open_page(&o.srv, &path).await;
    assert_eq!(page.status, 200);
    assert!(
        page.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert_eq!(page.headers["referrer-policy"], "no-referrer");
    let text = html(&page);
    assert!(
        text.contains("value=\"nina@example.com\" readonly"),
        "{text}"
    );
    let token = token_of(&text);

    // A password below upstream's minimum is refused on the form, nothing created.
    let users_before = user_count(&o).await;
    let r = submit(
        &o.srv,
        &path,
        &[
            ("csrf_token", &token),
            ("full_name", "Nina New"),
            ("password", "short"),
        ],
    )
    .await;
    assert_eq!(r.status, 400);
    assert!(
        html(&r).contains("The password is too weak."),
        "{}",
        html(&r)
    );
    assert_eq!(user_count(&o).await, users_before);

    let r = submit(
        &o.srv,
        &path,
        &[
            ("csrf_token", &token),
            ("full_name", "Nina New"),
            ("password", "a good passphrase"),
        ],
    )
    .await;
    joined(&r);

    let r = login(&o.srv, "nina@example.com", "a good passphrase").await;
    let b = r.assert_success("POST /fetch_api_key");
    let nina = TestUser {
        id: b["user_id"].as_i64().unwrap(),
        email: "nina@example.com".into(),
        api_key: b["api_key"].as_str().unwrap().to_string(),
    };
    let me = o.srv.get("/api/v1/users/me", &nina, &[]).await;
    assert_eq!(me.body["role"], 300);
    assert_eq!(me.body["full_name"], "Nina New");
    let r = o
        .srv
        .get("/api/v1/users/me/subscriptions", &nina, &[])
        .await;
    let mut subs: Vec<i64> = r.assert_success("GET /users/me/subscriptions")["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["stream_id"].as_i64().unwrap())
        .collect();
    subs.sort();
    assert_eq!(subs, [general, lobby]);

    // Welcome Bot's message, then the custom text; Notification Bot told the inviter.
    let dms = o.raw_messages(&nina, json!([["is", "dm"]]), 10).await;
    let texts: Vec<&str> = dms.iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert!(
        texts[0].starts_with("Hello, and welcome to Zulip!"),
        "{texts:?}"
    );
    assert_eq!(texts[1], "Read #**general** first.");
    let told = o.raw_messages(&o.admin, json!([["is", "dm"]]), 1).await;
    assert_eq!(
        told[0]["content"],
        format!(
            "@_**Nina New|{}** accepted your invitation to join Zulip!",
            nina.id
        )
    );
    assert_eq!(told[0]["sender_email"], "notification-bot@zulip.com");
    let ann = o
        .raw_messages(&o.owner, json!([["channel", "signups here"]]), 1)
        .await;
    assert_eq!(
        ann[0]["content"],
        format!("@_**Nina New|{}** joined this organization.", nina.id)
    );
    // The usual realm_user add event.
    let evs = crate::support::wait_events(&o, &o.admin, &admin_q, 1).await;
    assert!(
        evs.iter()
            .any(|e| e["op"] == "add" && e["person"]["user_id"] == nina.id),
        "{evs:?}"
    );

    // The invitation is used: gone from the list, its link says so, a replay creates nothing.
    assert!(listed(&o, &o.admin).await.is_empty());
    let page = open_page(&o.srv, &path).await;
    assert_eq!(page.status, 410);
    assert!(html(&page).contains("already used"));
    let users_after = user_count(&o).await;
    let r = submit(
        &o.srv,
        &path,
        &[
            ("csrf_token", &token),
            ("full_name", "Nina Again"),
            ("password", "a good passphrase"),
        ],
    )
    .await;
    assert_eq!(r.status, 410);
    assert_eq!(user_count(&o).await, users_after);
}

#[tokio::test]
async fn notify_referrer_false_leaves_the_inviter_alone() {
    let sink = SmtpSink::start().await;
    let o = org_mailing(&sink).await;
    invite(
        &o,
        &o.admin,
        &[
            ("invitee_emails", "quiet@example.com"),
            ("stream_ids", "[]"),
            ("notify_referrer_on_join", "false"),
        ],
    )
    .await
    .assert_success("POST /invites");
    let path = join_path(&sink.next().await.data);
    let token = token_of(&html(&open_page(&o.srv, &path).await));
    let r = submit(
        &o.srv,
        &path,
        &[
            ("csrf_token", &token),
            ("full_name", "Quinn Quiet"),
            ("password", "long enough"),
        ],
    )
    .await;
    joined(&r);
    let dms = o.raw_messages(&o.admin, json!([["is", "dm"]]), 5).await;
    assert!(
        dms.iter()
            .all(|m| m["sender_email"] != "notification-bot@zulip.com"),
        "{dms:?}"
    );
    // The new user exists all the same.
    login(&o.srv, "quiet@example.com", "long enough")
        .await
        .assert_success("POST /fetch_api_key");
}

#[tokio::test]
async fn a_reusable_link_creates_many_users_until_revoked() {
    let o = org().await;
    let r = o
        .srv
        .post(
            "/api/v1/invites/multiuse",
            &o.admin,
            &[("invite_as", "600")],
        )
        .await;
    let link = r.body["invite_link"].as_str().unwrap().to_string();
    let path = join_path(&link);
    for (email, name) in [
        ("one@example.com", "User One"),
        ("two@example.com", "User Two"),
    ] {
        let page = html(&open_page(&o.srv, &path).await);
        assert!(page.contains("name=\"email\""));
        let token = token_of(&page);
        let r = submit(
            &o.srv,
            &path,
            &[
                ("csrf_token", &token),
                ("email", email),
                ("full_name", name),
                ("password", "secret words"),
            ],
        )
        .await;
        joined(&r);
        let me = login(&o.srv, email, "secret words").await;
        me.assert_success("POST /fetch_api_key");
    }
    // An address already in use is refused on the form.
    let token = token_of(&html(&open_page(&o.srv, &path).await));
    let before = user_count(&o).await;
    let r = submit(
        &o.srv,
        &path,
        &[
            ("csrf_token", &token),
            ("email", "ONE@example.com"),
            ("full_name", "Copy Cat"),
            ("password", "secret words"),
        ],
    )
    .await;
    assert_eq!(r.status, 400);
    assert!(html(&r).contains("already exists"));
    assert_eq!(user_count(&o).await, before);
    let users = o.srv.get("/api/v1/users", &o.owner, &[]).await;
    let two = users.body["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["delivery_email"] == "two@example.com" || u["email"] == "two@example.com")
        .unwrap()
        .clone();
    assert_eq!(two["role"], 600);

    let id = listed(&o, &o.admin).await[0]["id"].as_i64().unwrap();
    o.srv
        .delete(&format!("/api/v1/invites/multiuse/{id}"), &o.admin, &[])
        .await
        .assert_success("DELETE /invites/multiuse/{invite_id}");
    let r = submit(
        &o.srv,
        &path,
        &[
            ("csrf_token", &token),
            ("email", "three@example.com"),
            ("full_name", "User Three"),
            ("password", "secret words"),
        ],
    )
    .await;
    assert_eq!(r.status, 410);
    assert_eq!(user_count(&o).await, before);
}

/// A complete signup form for a reusable link, with `token` if any.
fn forged_form(token: Option<&str>) -> Vec<(&'static str, &str)> {
    let mut form = vec![
        ("email", "forged@example.com"),
        ("full_name", "For Ged"),
        ("password", "secret words"),
    ];
    if let Some(t) = token {
        form.push(("csrf_token", t));
    }
    form
}

#[tokio::test]
async fn forged_and_replayed_submissions_change_nothing() {
    let o = org().await;
    let link_a = o
        .srv
        .post("/api/v1/invites/multiuse", &o.admin, &[])
        .await
        .body["invite_link"]
        .as_str()
        .unwrap()
        .to_string();
    let link_b = o
        .srv
        .post("/api/v1/invites/multiuse", &o.admin, &[])
        .await
        .body["invite_link"]
        .as_str()
        .unwrap()
        .to_string();
    let (a, b) = (join_path(&link_a), join_path(&link_b));
    let token_a = token_of(&html(&open_page(&o.srv, &a).await));
    let before = user_count(&o).await;
    // No token, a made-up one, and link A's token on link B: 403, nothing created.
    let r = submit(&o.srv, &a, &forged_form(None)).await;
    assert_eq!(r.status, 403);
    assert!(html(&r).contains("Form expired"));
    let r = submit(&o.srv, &a, &forged_form(Some("1700000000.00ff"))).await;
    assert_eq!(r.status, 403);
    let r = submit(&o.srv, &b, &forged_form(Some(&token_a))).await;
    assert_eq!(r.status, 403);
    // Submitting by GET does nothing either: only the form is shown.
    let q = format!(
        "{a}?csrf_token={token_a}&email=forged%40example.com&full_name=For+Ged&password=secret+words"
    );
    let r = open_page(&o.srv, &q).await;
    assert_eq!(r.status, 200);
    // A form body of another media type is refused.
    let r = o
        .srv
        .send(
            crate::support::raw(Method::POST, &a)
                .header("content-type", "application/json")
                .body(crate::support::body(r#"{"csrf_token":"x"}"#))
                .unwrap(),
        )
        .await;
    assert_eq!(r.status, 415);
    assert_eq!(user_count(&o).await, before);
    let r = login(&o.srv, "forged@example.com", "secret words").await;
    r.assert_error(401, "AUTHENTICATION_FAILED");
    // Unknown links and other methods.
    let r = open_page(&o.srv, "/join/nosuchkey0000000000000/").await;
    assert_eq!(r.status, 404);
    assert!(html(&r).contains("Invitation not found"));
    let r = o.srv.call(Method::PUT, &a, None, &[]).await;
    assert_eq!(r.status, 405);
}

#[tokio::test]
async fn expired_links_are_refused() {
    let o = org().await;
    let link = o
        .srv
        .post(
            "/api/v1/invites/multiuse",
            &o.admin,
            &[("invite_expires_in_minutes", "1")],
        )
        .await
        .body["invite_link"]
        .as_str()
        .unwrap()
        .to_string();
    let path = join_path(&link);
    let key = path
        .trim_start_matches("/join/")
        .trim_end_matches('/')
        .to_string();
    let expires = listed(&o, &o.admin).await[0]["expiry_date"]
        .as_i64()
        .unwrap();
    // The link's rule at a given time (the page asks it with the clock's time).
    let at = |now: i64| {
        let key = key.clone();
        let state = std::sync::Arc::clone(&o.srv.state);
        async move {
            state
                .db
                .read(move |c| outpost::domain::invites::check_link(c, &key, now))
                .await
                .unwrap()
                .map(|_| ())
        }
    };
    assert_eq!(at(expires - 1).await, Ok(()));
    assert_eq!(
        at(expires).await,
        Err(outpost::domain::invites::LinkProblem::Expired)
    );
}

#[tokio::test]
async fn the_signup_page_escapes_what_it_shows_again() {
    let o = org().await;
    let link = o
        .srv
        .post("/api/v1/invites/multiuse", &o.admin, &[])
        .await
        .body["invite_link"]
        .as_str()
        .unwrap()
        .to_string();
    let path = join_path(&link);
    let token = token_of(&html(&open_page(&o.srv, &path).await));
    let before = user_count(&o).await;
    let r = submit(
        &o.srv,
        &path,
        &[
            ("csrf_token", &token),
            ("email", "x\"><script>alert(1)</script>@example.com"),
            ("full_name", "<b>Bold</b>"),
            ("password", "secret words"),
        ],
    )
    .await;
    assert_eq!(r.status, 400);
    let page = html(&r);
    assert!(
        page.contains("Please enter a valid email address."),
        "{page}"
    );
    assert!(
        !page.contains("<script>") && !page.contains("<b>Bold"),
        "{page}"
    );
    assert!(page.contains("&lt;b&gt;Bold&lt;/b&gt;"), "{page}");
    assert!(page.contains("x&quot;&gt;&lt;script&gt;"), "{page}");
    assert_eq!(user_count(&o).await, before);
    // The page forbids scripts and framing whatever it holds.
    let csp = r.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"));
    assert!(!csp.contains("unsafe-inline"), "{csp}");
}

#[tokio::test]
async fn invitees_join_the_invited_groups_their_managers_chose() {
    let sink = SmtpSink::start().await;
    let o = org_mailing(&sink).await;
    let r = o
        .srv
        .post(
            "/api/v1/user_groups/create",
            &o.owner,
            &[("name", "crew"), ("description", ""), ("members", "[]")],
        )
        .await;
    let crew = r.assert_success("POST /user_groups/create")["group_id"]
        .as_i64()
        .unwrap();
    let groups = json!([crew]).to_string();
    // The administrator may invite, but not into a group only its creator manages.
    let r = invite(
        &o,
        &o.admin,
        &[
            ("invitee_emails", "gus@example.com"),
            ("stream_ids", "[]"),
            ("group_ids", &groups),
        ],
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.body["msg"], "Insufficient permission");
    assert!(listed(&o, &o.owner).await.is_empty());

    invite(
        &o,
        &o.owner,
        &[
            ("invitee_emails", "gus@example.com"),
            ("stream_ids", "[]"),
            ("group_ids", &groups),
        ],
    )
    .await
    .assert_success("POST /invites");
    let q = register_queue(&o.srv, &o.owner, &[("event_types", r#"["user_group"]"#)]).await;
    let path = join_path(&sink.next().await.data);
    let token = token_of(&html(&open_page(&o.srv, &path).await));
    let r = submit(
        &o.srv,
        &path,
        &[
            ("csrf_token", &token),
            ("full_name", "Gus Group"),
            ("password", "long enough"),
        ],
    )
    .await;
    joined(&r);
    let key = login(&o.srv, "gus@example.com", "long enough")
        .await
        .assert_success("POST /fetch_api_key")["user_id"]
        .as_i64()
        .unwrap();
    let members = o
        .srv
        .get(
            &format!("/api/v1/user_groups/{crew}/members"),
            &o.owner,
            &[],
        )
        .await;
    assert_eq!(
        members.assert_success("GET /user_groups/{user_group_id}/members")["members"],
        json!([key])
    );
    let evs = wait_events(&o, &o.owner, &q, 2).await;
    assert!(
        evs.iter().any(|e| e["op"] == "add_members"
            && e["group_id"] == crew
            && e["user_ids"] == json!([key])),
        "{evs:?}"
    );
}
