//! The weekly digest email as people get it, through the local SMTP sink: the organization
//! settings that turn it on and pick its day (`PATCH /realm`, register, events), who gets one
//! (away 5 days, human, active, the setting on, none in the last 12 hours, something to tell)
//! and what it says (hot conversations, new channels, links, the unsubscribe link that works).
//! Passes run with explicit times (`digest::run_pass(now)`), never by sleeping.

use serde_json::json;

use outpost::domain::account_mail::digest;
use outpost::domain::outbox;
use outpost::ids::UserId;

use crate::mail::{common_headers, get_page, html, org_mailing_to, parse, path_of, post_form};
use crate::support::smtp::SmtpSink;
use crate::support::{Org, TestUser, org, patched, wait_events};

/// A time on the next UTC day at 01:00: later than every message a test sends, within the
/// 5 days the digest covers, and 11 hours before the same day's noon.
fn pass_time() -> i64 {
    let tomorrow = outpost::time::now_secs() + 86_400;
    tomorrow - tomorrow.rem_euclid(86_400) + 3600
}

async fn run(o: &Org, now: i64) -> usize {
    digest::run_pass(&o.srv.state, now).await.unwrap()
}

/// Turns digests on for the weekday of `at`.
async fn enable_on(o: &Org, at: i64) {
    let day = digest::weekday(at).to_string();
    let r = o
        .srv
        .patch(
            "/api/v1/realm",
            &o.admin,
            &[("digest_emails_enabled", "true"), ("digest_weekday", &day)],
        )
        .await;
    patched(&r);
}

/// Active presence reports: these users count as active now.
async fn report_active(o: &Org, who: &[&TestUser]) {
    for u in who {
        o.srv
            .post("/api/v1/users/me/presence", u, &[("status", "active")])
            .await
            .assert_success("POST /users/me/presence");
    }
}

/// Register's `realm` state as Alice gets it.
async fn realm_state(o: &Org) -> serde_json::Value {
    let r = o
        .srv
        .post(
            "/api/v1/register",
            &o.alice,
            &[("fetch_event_types", r#"["realm"]"#)],
        )
        .await;
    r.assert_success("POST /register").clone()
}

#[tokio::test]
async fn the_digest_settings_are_organization_settings() {
    let o = org().await;
    let (q, _) = o.register(&o.bob, &[("event_types", r#"["realm"]"#)]).await;
    let before = realm_state(&o).await;
    assert_eq!(before["realm_digest_emails_enabled"], false);
    assert_eq!(before["realm_digest_weekday"], 1);
    // No mail server configured: no digest is sent.
    assert_eq!(before["settings_send_digest_emails"], false);

    for bad in ["7", "-1"] {
        let r = o
            .srv
            .patch("/api/v1/realm", &o.admin, &[("digest_weekday", bad)])
            .await;
        let b = r.assert_error(400, "BAD_REQUEST");
        assert_eq!(b["msg"], "Invalid digest_weekday");
    }
    let r = o
        .srv
        .patch("/api/v1/realm", &o.alice, &[("digest_weekday", "3")])
        .await;
    assert_eq!(r.status, 400, "members may not: {}", r.body);

    let r = o
        .srv
        .patch(
            "/api/v1/realm",
            &o.admin,
            &[("digest_emails_enabled", "true"), ("digest_weekday", "4")],
        )
        .await;
    let b = patched(&r);
    assert_eq!(b["digest_emails_enabled"], true);
    assert_eq!(b["digest_weekday"], 4);
    let after = realm_state(&o).await;
    assert_eq!(after["realm_digest_emails_enabled"], true);
    assert_eq!(after["realm_digest_weekday"], 4);
    let ev = wait_events(&o, &o.bob, &q, 2).await;
    let data: Vec<_> = ev.iter().map(|e| e["data"].clone()).collect();
    assert_eq!(
        data,
        [
            json!({"digest_emails_enabled": true}),
            json!({"digest_weekday": 4})
        ]
    );

    let sink = SmtpSink::start().await;
    let m = org_mailing_to(sink.port).await;
    assert_eq!(realm_state(&m).await["settings_send_digest_emails"], true);
}

#[tokio::test]
async fn an_away_user_gets_one_digest_of_hot_conversations_and_new_channels() {
    let sink = SmtpSink::start().await;
    let o = org_mailing_to(sink.port).await;
    // Everyone but Alice was active just now.
    report_active(&o, &[&o.owner, &o.admin, &o.bob, &o.guest]).await;
    let general = o
        .channel(&o.owner, "general", &[&o.owner, &o.alice, &o.bob], &[])
        .await;
    let say = |who: &TestUser, topic: &str, text: &str| {
        let (who, topic, text) = (who.clone(), topic.to_string(), text.to_string());
        let o = &o;
        async move {
            o.send_channel(&who, "general", &topic, &text).await;
        }
    };
    // alpha: 2 senders, 4 messages; beta: 2 senders, 2; gamma: 1 sender, 5; delta: 1, 3;
    // epsilon: 1, 1 (the fifth: left out).
    say(&o.bob, "alpha", "alpha **one**").await;
    say(&o.owner, "alpha", "alpha two").await;
    say(&o.bob, "alpha", "alpha three").await;
    say(&o.bob, "Alpha", "alpha four").await;
    say(&o.bob, "beta", "beta one").await;
    say(&o.owner, "beta", "beta two").await;
    for i in 0..5 {
        say(&o.bob, "gamma", &format!("gamma {i}")).await;
    }
    for i in 0..3 {
        say(&o.owner, "delta", &format!("delta {i}")).await;
    }
    say(&o.bob, "epsilon", "epsilon one").await;

    let t = pass_time();
    // The organization's setting is off by default.
    assert_eq!(run(&o, t).await, 0);
    enable_on(&o, t).await;
    // Not the digest day.
    assert_eq!(run(&o, t + 86_400).await, 0);
    assert_eq!(run(&o, t).await, 1, "Alice only: the others were active");
    // Twice within 12 hours: no.
    assert_eq!(run(&o, t + 11 * 3600).await, 0);

    let p = parse(&sink.next().await);
    common_headers(&p);
    p.has("From", "\"Outpost digest\" <noreply@outpost.test>");
    p.has("To", "alice@example.com");
    p.has("Subject", "Zulip digest for Outpost");
    p.has("List-Unsubscribe-Post", "List-Unsubscribe=One-Click");
    let header = p.header("List-Unsubscribe").unwrap();
    assert!(
        header.starts_with("<http://outpost.test/accounts/unsubscribe/digest/"),
        "{header}"
    );
    let link = header.trim_start_matches('<').trim_end_matches('>');

    let text = &p.text;
    assert!(text.starts_with("Hello Alice Ant,\n"), "{text}");
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s:?} not in:\n{text}"))
    };
    let (alpha, beta, gamma, delta) = (
        at("#general > alpha\n"),
        at("#general > beta\n"),
        at("#general > gamma\n"),
        at("#general > delta\n"),
    );
    assert!(at("Hot conversations") < alpha);
    assert!(alpha < beta && beta < gamma && gamma < delta, "{text}");
    assert!(!text.contains("epsilon"), "{text}");
    assert!(
        text.contains(
            "#general > alpha\nBob Bee:\n> alpha **one**\nOlive Owner:\n> alpha two\n\
             2 more messages\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("#general > beta\nBob Bee:\n> beta one\nOlive Owner:\n> beta two\nOpen"),
        "{text}"
    );
    assert!(text.contains("> gamma 1\n3 more messages\n"), "{text}");
    assert!(text.contains("> delta 1\n1 more message\n"), "{text}");
    let topic_link = format!("http://outpost.test/#narrow/channel/{general}-general/topic/alpha");
    assert!(
        text.contains(&format!("Open the conversation: {topic_link}\n")),
        "{text}"
    );
    let channel_link = format!("http://outpost.test/#narrow/channel/{general}-general");
    assert!(
        text.contains(&format!("New channels\n\n#general: {channel_link}\n")),
        "{text}"
    );
    assert!(
        text.contains(&format!("Unsubscribe from digest emails: {link}")),
        "{link} {text}"
    );
    let h = p.html.as_deref().unwrap();
    assert!(h.contains("<h2>Hot conversations</h2>"), "{h}");
    assert!(h.contains("<strong>one</strong>"), "{h}");
    assert!(
        h.contains(&format!(
            "<h3><a href=\"{topic_link}\">#general &gt; alpha</a></h3>"
        )),
        "{h}"
    );
    assert!(
        h.contains(&format!("<li><a href=\"{channel_link}\">#general</a></li>")),
        "{h}"
    );
    assert!(h.contains("Unsubscribe from digest emails</a>"), "{h}");

    // The one-click unsubscribe turns digests off.
    let path = path_of(link);
    let page = get_page(&o.srv, &path).await;
    assert_eq!(page.status, 200);
    assert!(html(&page).contains("digest emails"), "{}", html(&page));
    let r = post_form(&o.srv, &path, None, &[("List-Unsubscribe", "One-Click")]).await;
    assert_eq!(r.status, 200, "{}", html(&r));
    let on = outpost::domain::settings::flag(&o.srv.state, UserId(o.alice.id), digest::ENABLED)
        .await
        .unwrap();
    assert!(!on);
    // A week later she is still away, but asked for none.
    assert_eq!(run(&o, t + 7 * 86_400 - 3600).await, 0);
}

#[tokio::test]
async fn no_digest_for_the_active_bots_the_deactivated_those_who_said_no_or_with_nothing_to_tell() {
    let sink = SmtpSink::start().await;
    let o = org_mailing_to(sink.port).await;
    o.channel(&o.owner, "general", &[&o.owner, &o.alice, &o.bob], &[])
        .await;
    o.send_channel(&o.owner, "general", "news", "something happened")
        .await;
    // Owner and admin: active.
    report_active(&o, &[&o.owner, &o.admin]).await;
    // Bob: deactivated.
    let r = o
        .srv
        .delete(&format!("/api/v1/users/{}", o.bob.id), &o.owner, &[])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // Alice: turned it off.
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("enable_digest_emails", "false")],
        )
        .await;
    r.assert_success("PATCH /settings");
    // A bot, never active, would see the new public channel.
    let r = o
        .srv
        .post(
            "/api/v1/bots",
            &o.admin,
            &[
                ("full_name", "Helper Bot"),
                ("short_name", "helper"),
                ("bot_type", "1"),
            ],
        )
        .await;
    assert!(r.body["user_id"].as_i64().is_some(), "{}", r.body);
    // The guest: away, but the new channel is not web-public and they are subscribed to
    // nothing, so both lists are empty.
    let t = pass_time();
    enable_on(&o, t).await;
    assert_eq!(run(&o, t).await, 0);
    assert_eq!(outbox::waiting(&o.srv.state).await.unwrap(), 0);

    // The control: with her setting back on, Alice gets one.
    let r = o
        .srv
        .patch(
            "/api/v1/settings",
            &o.alice,
            &[("enable_digest_emails", "true")],
        )
        .await;
    r.assert_success("PATCH /settings");
    assert_eq!(run(&o, t).await, 1);
    assert_eq!(sink.next().await.to, ["alice@example.com"]);
}

#[tokio::test]
async fn activity_is_what_presence_reported_and_a_guest_sees_no_public_channels() {
    let sink = SmtpSink::start().await;
    let o = org_mailing_to(sink.port).await;
    report_active(&o, &[&o.owner, &o.admin, &o.alice, &o.bob]).await;
    o.channel(&o.owner, "lobby", &[&o.owner], &[]).await;
    o.channel(&o.owner, "visitors", &[&o.owner, &o.guest], &[])
        .await;
    o.send_channel(&o.owner, "visitors", "welcome", "hello guests")
        .await;
    let t = pass_time();
    enable_on(&o, t).await;
    // Only the guest (never active) is away. Guests cannot see public channels (Outpost has
    // no web-public ones), so their digest lists no new channels.
    assert_eq!(run(&o, t).await, 1);
    let p = parse(&sink.next().await);
    p.has("To", "guest@example.com");
    assert!(
        p.text
            .contains("#visitors > welcome\nOlive Owner:\n> hello guests\n"),
        "{}",
        p.text
    );
    assert!(!p.text.contains("New channels"), "{}", p.text);
    assert!(!p.text.contains("lobby"), "{}", p.text);

    // A week later everyone has been away for more than 5 days, but the messages and channels
    // are older than the window: nobody has anything to tell.
    assert_eq!(run(&o, t + 7 * 86_400).await, 0);
}
