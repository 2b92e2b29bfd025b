//! Who is notified of what, end to end: a direct message, a mention, a wildcard mention and a
//! followed topic's message to an idle user reach the push service's stand-in
//! (`support::bouncer`) and, batched, the SMTP sink, exactly as upstream would send them;
//! an active user who reads at once gets nothing; a restart in the middle loses and repeats
//! nothing.

use std::time::{Duration, Instant};

use outpost::config::MailTls;
use outpost::domain::account_mail::missed;
use outpost::domain::notifications::activity::Live;
use outpost::domain::notifications::jobs;
use outpost::domain::push::credentials::{self, Credentials};

use crate::support::bouncer::{Bouncer, Received};
use crate::support::smtp::{SmtpSink, SunkMail};
use crate::support::{Org, TestUser, org_with, register_queue};

const FCM: &str = "fcm-token-of-bob";
const ADMIN_FCM: &str = "fcm-token-of-the-admin";

/// The usual organization with push through `bouncer` and mail to `sink`.
async fn notifying_org(bouncer: &Bouncer, sink: &SmtpSink) -> Org {
    let url = bouncer.url();
    let port = sink.port;
    let o = org_with(move |c| {
        c.push.enabled = true;
        c.push.bouncer_url = url;
        c.email.host = "127.0.0.1".into();
        c.email.port = port;
        c.email.tls = MailTls::None;
        c.email.from = "Outpost <noreply@outpost.test>".into();
    })
    .await;
    let creds = Credentials::generate();
    credentials::store(&o.srv.state.config.data_dir, &creds).unwrap();
    bouncer.know(&creds.zulip_org_id, &creds.zulip_org_key);
    o
}

async fn add_token(o: &Org, who: &TestUser, token: &str) {
    o.srv
        .post(
            "/api/v1/users/me/android_gcm_reg_id",
            who,
            &[("token", token)],
        )
        .await
        .assert_success("POST /users/me/android_gcm_reg_id");
}

/// Marks everything read (Welcome Bot's greeting): it stays in the user's first email batch,
/// which is then due 120 s after the user was created, and is dropped there as read.
async fn read_all(o: &Org, who: &TestUser) {
    o.srv
        .post("/api/v1/mark_all_as_read", who, &[])
        .await
        .assert_success("POST /mark_all_as_read");
}

/// Runs the missed-message email pass as if `secs` had passed (the batch of a user created by
/// the test is due after the default period, whatever the user set since).
async fn emails_after(o: &Org, secs: i64) -> usize {
    let now = outpost::time::now_secs() + secs;
    missed::deliver_due(&o.srv.state.core, now).await.unwrap()
}

/// Every mail that arrives until none comes for a second, as (recipient, subject).
async fn mails(sink: &SmtpSink) -> Vec<(String, String)> {
    let mut out = Vec::new();
    while let Some(m) = sink.next_within(Duration::from_secs(1)).await {
        out.push((m.to.join(","), subject(&m)));
    }
    out
}

fn of<'a>(mails: &'a [(String, String)], who: &TestUser) -> Vec<&'a str> {
    let mut subjects: Vec<&str> = mails
        .iter()
        .filter(|(to, _)| *to == who.email)
        .map(|(_, s)| s.as_str())
        .collect();
    subjects.sort_unstable();
    subjects
}

async fn set(o: &Org, who: &TestUser, name: &str, value: &str) {
    o.srv
        .patch("/api/v1/settings", who, &[(name, value)])
        .await
        .assert_success("PATCH /settings");
}

/// The message pushes the stand-in got for `token`, as (message id, payload).
fn message_pushes(b: &Bouncer, token: &str) -> Vec<(i64, serde_json::Value)> {
    b.got_at("push/notify")
        .into_iter()
        .filter(|r: &Received| {
            r.json["android_devices"]
                .as_array()
                .is_some_and(|d| d.iter().any(|t| t == token))
                && r.json["gcm_payload"]["event"] == "message"
        })
        .map(|r| {
            let p = r.json["gcm_payload"].clone();
            (p["zulip_message_id"].as_str().unwrap().parse().unwrap(), p)
        })
        .collect()
}

fn subject(m: &SunkMail) -> String {
    m.data
        .lines()
        .find_map(|l| l.strip_prefix("Subject: "))
        .unwrap_or_default()
        .to_string()
}

async fn wait_pushes(b: &Bouncer, token: &str, n: usize) -> Vec<(i64, serde_json::Value)> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let got = message_pushes(b, token);
        if got.len() >= n {
            return got;
        }
        assert!(
            Instant::now() < deadline,
            "{n} pushes expected, got {got:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn an_idle_user_gets_upstreams_pushes_and_emails_an_active_reader_nothing() {
    let bouncer = Bouncer::start().await;
    let sink = SmtpSink::start().await;
    let o = notifying_org(&bouncer, &sink).await;
    add_token(&o, &o.bob, FCM).await;
    add_token(&o, &o.admin, ADMIN_FCM).await;
    bouncer.wait_for("push/register", 2).await;
    read_all(&o, &o.bob).await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob, &o.admin], &[])
        .await;
    // Bob follows "plans"; an ordinary message elsewhere notifies nobody.
    let general = o
        .srv
        .state
        .core
        .db
        .read(|c| outpost::db::channels::by_name(c, "general"))
        .await
        .unwrap()
        .unwrap();
    o.srv
        .post(
            "/api/v1/user_topics",
            &o.bob,
            &[
                ("stream_id", &general.id.0.to_string()),
                ("topic", "plans"),
                ("visibility_policy", "3"),
            ],
        )
        .await
        .assert_success("POST /user_topics");
    let quiet = o
        .send_channel(&o.alice, "general", "chatter", "nothing for anyone")
        .await;
    let dm = o.send_dm(&o.alice, &[&o.bob], "are you there?").await;
    let mention = o
        .send_channel(&o.alice, "general", "review", "@**Bob Bee** please look")
        .await;
    let wildcard = o
        .send_channel(&o.alice, "general", "news", "@**all** we ship today")
        .await;
    let followed = o
        .send_channel(&o.alice, "general", "plans", "the plan changed")
        .await;
    let pushes = wait_pushes(&bouncer, FCM, 4).await;
    let mut ids: Vec<i64> = pushes.iter().map(|(id, _)| *id).collect();
    ids.sort_unstable();
    assert_eq!(ids, vec![dm, mention, wildcard, followed], "not {quiet}");
    let dm_push = &pushes.iter().find(|(id, _)| *id == dm).unwrap().1;
    assert_eq!(dm_push["recipient_type"], "private");
    assert_eq!(dm_push["content"], "are you there?");
    // Emails: one per conversation, batched (the others get Welcome Bot's greeting).
    emails_after(&o, 200).await;
    let got = mails(&sink).await;
    assert_eq!(
        of(&got, &o.bob),
        vec![
            "#general > news",
            "#general > plans",
            "#general > review",
            "DMs with Alice Ant",
        ]
    );
    // The admin is active (a polled queue, an active presence), has online pushes off and
    // reads the message at once: no push, and no email even after the offline time.
    set(&o, &o.admin, "enable_online_push_notifications", "false").await;
    let _q = register_queue(&o.srv, &o.admin, &[]).await;
    o.srv
        .post(
            "/api/v1/users/me/presence",
            &o.admin,
            &[("status", "active")],
        )
        .await
        .assert_success("POST /users/me/presence");
    let to_admin = o.send_dm(&o.alice, &[&o.admin], "quick question").await;
    o.srv
        .post(
            "/api/v1/messages/flags",
            &o.admin,
            &[
                ("messages", &format!("[{to_admin}]")),
                ("op", "add"),
                ("flag", "read"),
            ],
        )
        .await
        .assert_success("POST /messages/flags");
    let state = &o.srv.state;
    let live = Live {
        presence: &state.presence,
        queues: &state.queues,
        offline_after: Duration::from_secs(600),
    };
    let later = outpost::time::now_millis() + 700_000;
    jobs::run_due(
        &state.core,
        &live,
        later,
        Instant::now() + Duration::from_secs(700),
    )
    .await
    .unwrap();
    // (The admin, idle earlier, was pushed the wildcard mention; nothing for this one.)
    assert!(
        message_pushes(&bouncer, ADMIN_FCM)
            .iter()
            .all(|(id, _)| *id != to_admin)
    );
    assert!(
        sink.next_within(Duration::from_secs(3)).await.is_none(),
        "no more mail"
    );
    assert_eq!(bouncer.problems(), Vec::<String>::new());
}

#[tokio::test]
async fn a_restart_in_the_middle_loses_and_repeats_nothing() {
    let bouncer = Bouncer::start().await;
    let sink = SmtpSink::start().await;
    let o = notifying_org(&bouncer, &sink).await;
    add_token(&o, &o.bob, FCM).await;
    bouncer.wait_for("push/register", 1).await;
    read_all(&o, &o.bob).await;
    // The service is down for the first attempts: the push waits for a retry.
    bouncer.fail(1, 503);
    let dm = o.send_dm(&o.alice, &[&o.bob], "while you were out").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stopped = o.srv.stop_gracefully().await;
    let srv = stopped.start().await;
    // After the restart the retry comes due and the batch is sent, each once.
    let pushes = wait_pushes(&bouncer, FCM, 1).await;
    assert_eq!(pushes[0].0, dm);
    let o = Org { srv, ..o };
    emails_after(&o, 200).await;
    emails_after(&o, 400).await;
    assert_eq!(of(&mails(&sink).await, &o.bob), vec!["DMs with Alice Ant"]);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(message_pushes(&bouncer, FCM).len(), 1);
}
