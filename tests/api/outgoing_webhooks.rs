//! Outgoing webhooks against a local receiver on 127.0.0.1: what triggers a bot (a real
//! mention in a channel, a direct message; never a bot's message, a wildcard or a silent
//! mention), the payload (Zulip's JSON and the Slack-compatible form), how the answer is
//! honoured (reply in the same topic or conversation, `response_not_required` and empty
//! answers, failure notices to the conversation and the owner for non-2xx, invalid JSON, huge
//! answers, timeouts after retries, refused private addresses), and that a queued delivery
//! survives a restart.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

use crate::support::{Org, TestServer, TestUser, org_with};

/// One answer the receiver gives.
#[derive(Clone)]
struct Answer {
    status: u16,
    body: Vec<u8>,
    delay: Duration,
}

fn answer(status: u16, body: &str) -> Answer {
    Answer {
        status,
        body: body.as_bytes().to_vec(),
        delay: Duration::ZERO,
    }
}

/// A request the receiver got.
#[derive(Clone, Debug)]
struct Got {
    content_type: String,
    user_agent: String,
    body: Vec<u8>,
}

impl Got {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON payload")
    }
}

/// An HTTP receiver on 127.0.0.1 that records requests and answers from a script (the last
/// answer repeats); it stops when dropped.
struct Receiver {
    addr: SocketAddr,
    got: Arc<Mutex<Vec<Got>>>,
    script: Arc<Mutex<VecDeque<Answer>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Receiver {
    async fn start(script: Vec<Answer>) -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let got = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        let (g, s) = (Arc::clone(&got), Arc::clone(&script));
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let (g, s) = (Arc::clone(&g), Arc::clone(&s));
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req: Request<_>| {
                        let (g, s) = (Arc::clone(&g), Arc::clone(&s));
                        async move {
                            let header = |n: &str| {
                                req.headers()
                                    .get(n)
                                    .and_then(|v| v.to_str().ok())
                                    .unwrap_or("")
                                    .to_string()
                            };
                            let (content_type, user_agent) =
                                (header("content-type"), header("user-agent"));
                            let body: hyper::body::Incoming = req.into_body();
                            let body = body.collect().await.unwrap().to_bytes().to_vec();
                            g.lock().unwrap().push(Got {
                                content_type,
                                user_agent,
                                body,
                            });
                            let a = {
                                let mut s = s.lock().unwrap();
                                if s.len() > 1 {
                                    s.pop_front().unwrap()
                                } else {
                                    s.front().cloned().unwrap_or_else(|| answer(200, "{}"))
                                }
                            };
                            tokio::time::sleep(a.delay).await;
                            let mut resp = Response::new(Full::new(Bytes::from(a.body)));
                            *resp.status_mut() = hyper::StatusCode::from_u16(a.status).unwrap();
                            Ok::<_, Infallible>(resp)
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Receiver {
            addr,
            got,
            script,
            task,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hook", self.addr.port())
    }

    fn got(&self) -> Vec<Got> {
        self.got.lock().unwrap().clone()
    }

    fn set(&self, script: Vec<Answer>) {
        *self.script.lock().unwrap() = VecDeque::from(script);
    }

    /// Waits until `n` requests have arrived.
    async fn wait(&self, n: usize) -> Vec<Got> {
        for _ in 0..400 {
            let got = self.got();
            if got.len() >= n {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("the receiver got {} requests, not {n}", self.got().len());
    }
}

/// The test org with outgoing webhooks allowed to reach 127.0.0.1.
async fn webhook_org() -> Org {
    org_with(|c| {
        c.bots.outgoing_webhook_allow_private = true;
        c.bots.outgoing_webhook_timeout = Duration::from_secs(1);
    })
    .await
}

/// Creates an outgoing-webhook bot owned by `owner`; returns it as a user of the API.
async fn webhook_bot(
    srv: &TestServer,
    owner: &TestUser,
    name: &str,
    url: &str,
    interface: i64,
) -> TestUser {
    let url = Value::from(url).to_string();
    let interface = interface.to_string();
    let short = name.to_lowercase();
    let r = srv
        .post(
            "/api/v1/bots",
            owner,
            &[
                ("full_name", name),
                ("short_name", short.as_str()),
                ("bot_type", "3"),
                ("payload_url", url.as_str()),
                ("interface_type", interface.as_str()),
            ],
        )
        .await;
    let b = r.assert_success("POST /bots");
    TestUser {
        id: b["user_id"].as_i64().unwrap(),
        email: format!("{short}-bot@outpost.test"),
        api_key: b["api_key"].as_str().unwrap().to_string(),
    }
}

/// The bot's service token, as its owner's register shows it.
async fn token_of(o: &Org, owner: &TestUser, bot: &TestUser) -> String {
    let (_, state) = o
        .register(owner, &[("fetch_event_types", r#"["realm_bot"]"#)])
        .await;
    let b = state["realm_bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["user_id"] == bot.id)
        .unwrap();
    b["services"][0]["token"].as_str().unwrap().to_string()
}

/// Waits until a message from `sender` with content passing `pred` is in `who`'s narrow.
async fn wait_for(
    o: &Org,
    who: &TestUser,
    narrow: Value,
    sender: &TestUser,
    pred: impl Fn(&str) -> bool,
) -> Value {
    for _ in 0..600 {
        let msgs = o.raw_messages(who, narrow.clone(), 50).await;
        if let Some(m) = msgs
            .iter()
            .find(|m| m["sender_id"] == sender.id && pred(m["content"].as_str().unwrap()))
        {
            return m.clone();
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no such message from {} in {narrow}", sender.email);
}

/// The messages `sender` posted in `who`'s narrow.
async fn from(o: &Org, who: &TestUser, narrow: Value, sender: &TestUser) -> Vec<String> {
    o.raw_messages(who, narrow, 100)
        .await
        .iter()
        .filter(|m| m["sender_id"] == sender.id)
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

fn dm_with(users: &[&TestUser]) -> Value {
    json!([["dm", users.iter().map(|u| u.id).collect::<Vec<_>>()]])
}

#[tokio::test]
async fn a_mention_posts_the_payload_and_the_answer_goes_to_the_same_topic_read_by_the_bot() {
    let o = webhook_org().await;
    let rx = Receiver::start(vec![answer(200, r#"{"content": "pong **there**"}"#)]).await;
    let bot = webhook_bot(&o.srv, &o.alice, "Pinger", &rx.url(), 1).await;
    let token = token_of(&o, &o.alice, &bot).await;
    o.channel(&o.owner, "ops", &[&o.owner, &o.alice, &o.bob, &bot], &[])
        .await;
    let id = o
        .send_channel(&o.bob, "ops", "deploys", "@**Pinger** ping *now*")
        .await;

    let got = rx.wait(1).await;
    assert_eq!(got[0].content_type, "application/json");
    assert!(
        got[0].user_agent.starts_with("ZulipOutgoingWebhook/"),
        "{}",
        got[0].user_agent
    );
    let p = got[0].json();
    assert_eq!(p["data"], "@**Pinger** ping *now*");
    assert_eq!(p["trigger"], "mention");
    assert_eq!(p["token"], token.as_str());
    assert_eq!(p["bot_email"], "pinger-bot@outpost.test");
    assert_eq!(p["bot_full_name"], "Pinger");
    let m = &p["message"];
    assert_eq!(m["id"], id);
    assert_eq!(m["content"], "@**Pinger** ping *now*");
    assert_eq!(m["content_type"], "text/x-markdown");
    assert!(
        m["rendered_content"]
            .as_str()
            .unwrap()
            .contains("<em>now</em>"),
        "{m}"
    );
    assert_eq!(m["type"], "stream");
    assert_eq!(m["display_recipient"], "ops");
    assert_eq!(m["subject"], "deploys");
    assert_eq!(m["sender_email"], "bob@example.com");

    let narrow = json!([["channel", "ops"], ["topic", "deploys"]]);
    let reply = wait_for(&o, &o.bob, narrow.clone(), &bot, |c| c == "pong **there**").await;
    assert_eq!(reply["subject"], "deploys");
    assert_eq!(reply["client"], "OutgoingWebhookResponse");
    // The triggering message is read for the bot.
    let r = o
        .srv
        .get(
            &format!("/api/v1/messages/{id}"),
            &bot,
            &[("apply_markdown", "false")],
        )
        .await;
    let flags = r.assert_success("GET /messages/{message_id}")["message"]["flags"].clone();
    assert!(
        flags.as_array().unwrap().contains(&json!("read")),
        "{flags}"
    );
    // The answer is a bot's message: it triggers nothing, so one request in all.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rx.got().len(), 1);
}

#[tokio::test]
async fn a_direct_message_triggers_and_the_answer_goes_to_every_participant() {
    let o = webhook_org().await;
    let rx = Receiver::start(vec![answer(200, r#"{"content": "hello both"}"#)]).await;
    let bot = webhook_bot(&o.srv, &o.alice, "Helper", &rx.url(), 1).await;
    o.send_dm(&o.bob, &[&bot, &o.alice], "anyone there?").await;
    let got = rx.wait(1).await;
    let p = got[0].json();
    assert_eq!(p["trigger"], "direct_message");
    assert_eq!(p["message"]["type"], "private");
    assert_eq!(p["data"], "anyone there?");
    let narrow = dm_with(&[&o.bob, &o.alice, &bot]);
    wait_for(&o, &o.alice, narrow.clone(), &bot, |c| c == "hello both").await;
    wait_for(&o, &o.bob, narrow, &bot, |c| c == "hello both").await;
}

#[tokio::test]
async fn bots_wildcards_and_silent_mentions_do_not_trigger() {
    let o = webhook_org().await;
    let rx = Receiver::start(vec![answer(200, r#"{"response_not_required": true}"#)]).await;
    let bot = webhook_bot(&o.srv, &o.alice, "Watcher", &rx.url(), 1).await;
    // Another bot (a generic one) mentions it and writes to it: nothing.
    let r = o
        .srv
        .post(
            "/api/v1/bots",
            &o.bob,
            &[("full_name", "Chatty"), ("short_name", "chatty")],
        )
        .await;
    let b = r.assert_success("POST /bots");
    let chatty = TestUser {
        id: b["user_id"].as_i64().unwrap(),
        email: "chatty-bot@outpost.test".into(),
        api_key: b["api_key"].as_str().unwrap().to_string(),
    };
    o.channel(
        &o.owner,
        "lobby",
        &[&o.owner, &o.alice, &o.bob, &chatty],
        &[],
    )
    .await;
    o.send_channel(&chatty, "lobby", "t", "@**Watcher** from a bot")
        .await;
    o.send_dm(&chatty, &[&bot], "a bot's direct message").await;
    o.send_channel(&o.bob, "lobby", "t", "@**all** wildcard")
        .await;
    o.send_channel(&o.bob, "lobby", "t", "@**topic** wildcard")
        .await;
    o.send_channel(&o.bob, "lobby", "t", "@_**Watcher** silent")
        .await;
    o.send_channel(&o.bob, "lobby", "t", "> @**Watcher** quoted")
        .await;
    o.send_channel(&o.bob, "lobby", "t", "no mention at all")
        .await;
    // Then a real mention: it is the only request.
    o.send_channel(&o.bob, "lobby", "t", "@**Watcher** real")
        .await;
    let got = rx.wait(1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let got_all = rx.got();
    assert_eq!(got_all.len(), 1, "{got_all:?}");
    assert_eq!(got[0].json()["data"], "@**Watcher** real");
}

#[tokio::test]
async fn response_not_required_and_empty_answers_send_nothing() {
    let o = webhook_org().await;
    let rx = Receiver::start(vec![
        answer(200, r#"{"response_not_required": true, "content": "no"}"#),
        answer(200, r#""""#),
        answer(200, r#"{"content": "   "}"#),
        answer(200, r#"{}"#),
        answer(204, ""),
        answer(200, r#"{"response_string": "legacy answer"}"#),
    ])
    .await;
    let bot = webhook_bot(&o.srv, &o.alice, "Quiet", &rx.url(), 1).await;
    o.channel(&o.owner, "calm", &[&o.owner, &o.bob], &[]).await;
    for i in 0..6 {
        o.send_channel(&o.bob, "calm", "t", &format!("@**Quiet** {i}"))
            .await;
        rx.wait(i + 1).await;
    }
    let narrow = json!([["channel", "calm"]]);
    wait_for(&o, &o.bob, narrow.clone(), &bot, |c| c == "legacy answer").await;
    // The 204 without a body is not JSON: upstream's "Invalid JSON" notice; the rest posted
    // nothing.
    let posted = from(&o, &o.bob, narrow, &bot).await;
    assert_eq!(
        posted,
        vec![
            "Failure! Invalid JSON in response".to_string(),
            "legacy answer".to_string()
        ]
    );
}

#[tokio::test]
async fn non_2xx_invalid_json_and_huge_answers_post_failure_notices_and_tell_the_owner() {
    let o = webhook_org().await;
    let huge = format!(r#"{{"content": "{}"}}"#, "x".repeat(2 << 20));
    let rx = Receiver::start(vec![
        answer(500, "boom"),
        answer(200, "this is not json"),
        answer(200, "[1, 2]"),
        answer(200, &huge),
    ])
    .await;
    let bot = webhook_bot(&o.srv, &o.alice, "Broken", &rx.url(), 1).await;
    o.channel(&o.owner, "alerts", &[&o.owner, &o.alice, &o.bob], &[])
        .await;
    let narrow = json!([["channel", "alerts"], ["topic", "t"]]);
    let notices = [
        "Failure! Third party responded with 500",
        "Failure! Invalid JSON in response",
        "Failure! Invalid response format",
        "Failure! An exception of type *ResponseTooLarge* occurred",
    ];
    for (i, notice) in notices.iter().enumerate() {
        o.send_channel(&o.bob, "alerts", "t", &format!("@**Broken** {i}"))
            .await;
        wait_for(&o, &o.bob, narrow.clone(), &bot, |c| c.starts_with(notice)).await;
    }
    // The owner heard of each, with a link to the message.
    let owner_dm = dm_with(&[&o.alice, &bot]);
    let dms = from(&o, &o.alice, owner_dm, &bot).await;
    assert_eq!(dms.len(), 4, "{dms:?}");
    assert!(dms.iter().all(
        |d| d.starts_with("[A message](http://outpost.test/#narrow/channel/")
            && d.contains("to your bot @_**Broken** triggered an outgoing webhook.")
    ));
    assert!(
        dms[0].contains("The webhook got a response with status code *500*.")
            && dms[0].contains("boom"),
        "{}",
        dms[0]
    );
    assert!(dms[1].contains("> Invalid JSON in response"), "{}", dms[1]);
    assert!(dms[2].contains("> Invalid response format"), "{}", dms[2]);
    assert!(dms[3].contains("ResponseTooLarge"), "{}", dms[3]);
    // Nothing was retried: one request per message.
    assert_eq!(rx.got().len(), 4);
}

#[tokio::test]
async fn a_slow_receiver_is_retried_three_times_then_the_bot_is_unavailable() {
    let o = webhook_org().await;
    let slow = Answer {
        status: 200,
        body: br#"{"content": "too late"}"#.to_vec(),
        delay: Duration::from_secs(3),
    };
    let rx = Receiver::start(vec![slow]).await;
    let bot = webhook_bot(&o.srv, &o.alice, "Sloth", &rx.url(), 1).await;
    let started = std::time::Instant::now();
    o.send_dm(&o.bob, &[&bot], "hurry").await;
    let narrow = dm_with(&[&o.bob, &bot]);
    wait_for(&o, &o.bob, narrow.clone(), &bot, |c| {
        c == "Failure! Bot is unavailable"
    })
    .await;
    // Four attempts of 1 s each with 1 + 2 + 4 s between them.
    assert!(
        started.elapsed() >= Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(rx.got().len(), 4);
    let owner = from(&o, &o.alice, dm_with(&[&o.alice, &bot]), &bot).await;
    assert_eq!(owner.len(), 1);
    assert!(
        owner[0].contains("Request timed out after 1 seconds."),
        "{}",
        owner[0]
    );
    assert!(owner[0].contains("#narrow/dm/"), "{}", owner[0]);
    // The late answer was never posted.
    assert!(
        !from(&o, &o.bob, narrow, &bot)
            .await
            .contains(&"too late".to_string())
    );
}

#[tokio::test]
async fn a_delivery_in_flight_at_a_stop_is_made_after_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = data.clone();
    let o = org_with(move |c| {
        c.data_dir = d;
        c.bots.outgoing_webhook_allow_private = true;
        c.bots.outgoing_webhook_timeout = Duration::from_secs(30);
    })
    .await;
    // The receiver holds the first request until the server has stopped.
    let hold = Answer {
        status: 200,
        body: br#"{"content": "lost"}"#.to_vec(),
        delay: Duration::from_secs(30),
    };
    let rx = Receiver::start(vec![hold]).await;
    let bot = webhook_bot(&o.srv, &o.alice, "Durable", &rx.url(), 1).await;
    o.send_dm(&o.bob, &[&bot], "remember me").await;
    rx.wait(1).await;
    let (alice, bob) = (o.alice.clone(), o.bob.clone());
    o.srv.shutdown().await;
    rx.set(vec![answer(200, r#"{"content": "remembered"}"#)]);

    let srv = TestServer::start_with(move |c| {
        c.data_dir = data;
        c.bots.outgoing_webhook_allow_private = true;
    })
    .await;
    let o = Org {
        srv,
        owner: alice.clone(),
        admin: alice.clone(),
        guest: alice.clone(),
        alice,
        bob,
    };
    let narrow = dm_with(&[&o.bob, &bot]);
    wait_for(&o, &o.bob, narrow.clone(), &bot, |c| c == "remembered").await;
    let got = rx.got();
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].json()["data"], "remember me");
    assert_eq!(from(&o, &o.bob, narrow, &bot).await, vec!["remembered"]);
}

#[tokio::test]
async fn private_addresses_are_refused_unless_the_config_allows_them() {
    let o = org_with(|_| {}).await;
    assert!(!o.srv.state.config.bots.outgoing_webhook_allow_private);
    let rx = Receiver::start(vec![answer(200, r#"{"content": "reached"}"#)]).await;
    let bot = webhook_bot(&o.srv, &o.alice, "Inside", &rx.url(), 1).await;
    o.send_dm(&o.bob, &[&bot], "hello").await;
    let narrow = dm_with(&[&o.bob, &bot]);
    wait_for(&o, &o.bob, narrow, &bot, |c| {
        c == "Failure! Third party responded with 407"
    })
    .await;
    let owner = from(&o, &o.alice, dm_with(&[&o.alice, &bot]), &bot).await;
    assert!(
        owner[0]
            .contains("The URL configured for the webhook is for a private or disallowed network."),
        "{owner:?}"
    );
    assert!(rx.got().is_empty());
}

/// Issue 24 §9: one member's slow bot holds at most its owner's share of the delivery slots,
/// so another member's bot is answered at once instead of queueing behind it.
#[tokio::test]
async fn a_slow_bot_does_not_delay_other_owners_bots() {
    let o = org_with(|c| {
        c.bots.outgoing_webhook_allow_private = true;
        c.bots.outgoing_webhook_timeout = Duration::from_secs(10);
    })
    .await;
    let mut slow_answer = answer(200, r#"{"response_not_required": true}"#);
    slow_answer.delay = Duration::from_secs(4);
    let slow = Receiver::start(vec![slow_answer]).await;
    let fast = Receiver::start(vec![answer(200, r#"{"content": "fast"}"#)]).await;
    let slow_bot = webhook_bot(&o.srv, &o.alice, "Slow", &slow.url(), 1).await;
    let fast_bot = webhook_bot(&o.srv, &o.bob, "Fast", &fast.url(), 1).await;
    for i in 0..20 {
        o.send_dm(&o.alice, &[&slow_bot], &format!("job {i}")).await;
    }
    slow.wait(outpost::domain::outgoing_webhooks::MAX_CONCURRENT_PER_OWNER)
        .await;
    o.send_dm(&o.bob, &[&fast_bot], "hello").await;
    fast.wait(1).await;
    // While Bob's bot was being asked, Alice's slow bot held only her share of the slots
    // (its first answers take 4 s, so none of hers had finished to make room).
    assert_eq!(
        slow.got().len(),
        outpost::domain::outgoing_webhooks::MAX_CONCURRENT_PER_OWNER
    );
    wait_for(&o, &o.bob, dm_with(&[&o.bob, &fast_bot]), &fast_bot, |c| {
        c == "fast"
    })
    .await;
}

/// Issue 24 §11: the IPv6 forms a NAT64, SIIT or 6to4 translator turns into a private IPv4
/// address are refused like the address itself, before any connection is tried.
#[tokio::test]
async fn translated_ipv6_forms_of_private_addresses_are_refused() {
    let o = org_with(|_| {}).await;
    for (i, host) in [
        "[64:ff9b::7f00:1]",
        "[::ffff:0:a00:1]",
        "[2002:a9fe:a9fe::1]",
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("Translated{i}");
        let bot = webhook_bot(
            &o.srv,
            &o.alice,
            &name,
            &format!("http://{host}:80/hook"),
            1,
        )
        .await;
        o.send_dm(&o.bob, &[&bot], "hello").await;
        // The owner is told why, as for any private address (bounded wait).
        wait_for(&o, &o.alice, dm_with(&[&o.alice, &bot]), &bot, |c| {
            c.contains("The URL configured for the webhook is for a private or disallowed network.")
        })
        .await;
    }
}

#[tokio::test]
async fn the_slack_interface_posts_form_fields_reads_text_and_refuses_direct_messages() {
    let o = webhook_org().await;
    let rx = Receiver::start(vec![answer(200, r#"{"text": "slack says hi"}"#)]).await;
    let bot = webhook_bot(&o.srv, &o.alice, "Slacker", &rx.url(), 2).await;
    let token = token_of(&o, &o.alice, &bot).await;
    let ch = o
        .channel(&o.owner, "slackish", &[&o.owner, &o.bob], &[])
        .await;
    o.send_channel(&o.bob, "slackish", "t", "@**Slacker** hi there")
        .await;
    let got = rx.wait(1).await;
    assert_eq!(got[0].content_type, "application/x-www-form-urlencoded");
    let form: std::collections::HashMap<String, String> =
        form_urlencoded::parse(&got[0].body).into_owned().collect();
    assert_eq!(form["token"], token);
    assert_eq!(form["text"], "@**Slacker** hi there");
    assert_eq!(form["trigger_word"], "mention");
    assert_eq!(form["channel_id"], format!("C{ch}"));
    assert_eq!(form["channel_name"], "slackish");
    assert_eq!(form["user_id"], format!("U{}", o.bob.id));
    assert_eq!(form["user_name"], "Bob Bee");
    assert_eq!(form["service_id"], bot.id.to_string());
    assert!(form.contains_key("timestamp") && form.contains_key("team_id"));
    let narrow = json!([["channel", "slackish"], ["topic", "t"]]);
    wait_for(&o, &o.bob, narrow, &bot, |c| c == "slack says hi").await;

    o.send_dm(&o.bob, &[&bot], "private words").await;
    wait_for(&o, &o.bob, dm_with(&[&o.bob, &bot]), &bot, |c| {
        c == "Failure! Slack outgoing webhooks don't support private messages."
    })
    .await;
    assert_eq!(rx.got().len(), 1);
}

#[tokio::test]
async fn a_widget_in_the_answer_becomes_the_replys_widget_and_a_bad_one_a_notice() {
    let o = webhook_org().await;
    let widget = json!({
        "widget_type": "zform",
        "extra_data": {"type": "choices", "heading": "Pick one", "choices": [
            {"type": "multiple_choice", "short_name": "A", "long_name": "Apples", "reply": "apples"}
        ]}
    });
    let good = json!({"content": "choose", "widget_content": widget}).to_string();
    let bad = json!({"content": "choose", "widget_content": {"widget_type": "poll"}}).to_string();
    let rx = Receiver::start(vec![answer(200, &good), answer(200, &bad)]).await;
    let bot = webhook_bot(&o.srv, &o.alice, "Chooser", &rx.url(), 1).await;
    o.channel(&o.owner, "menu", &[&o.owner, &o.bob], &[]).await;
    let narrow = json!([["channel", "menu"]]);
    o.send_channel(&o.bob, "menu", "t", "@**Chooser** first")
        .await;
    let m = wait_for(&o, &o.bob, narrow.clone(), &bot, |c| c == "choose").await;
    let subs = m["submessages"].as_array().unwrap();
    assert_eq!(subs.len(), 1, "{m}");
    assert_eq!(subs[0]["msg_type"], "widget");
    let content: Value = serde_json::from_str(subs[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(content, widget);
    o.send_channel(&o.bob, "menu", "t", "@**Chooser** second")
        .await;
    wait_for(&o, &o.bob, narrow, &bot, |c| {
        c == "Failure! widget_content has an unknown widget_type"
    })
    .await;
}

#[tokio::test]
async fn a_deactivated_bot_answers_nothing_and_its_queue_drains() {
    let o = webhook_org().await;
    let rx = Receiver::start(vec![answer(200, r#"{"content": "still here"}"#)]).await;
    let bot = webhook_bot(&o.srv, &o.alice, "Retired", &rx.url(), 1).await;
    let r = o
        .srv
        .delete(&format!("/api/v1/bots/{}", bot.id), &o.alice, &[])
        .await;
    r.assert_success("DELETE /bots/{bot_id}");
    // A deactivated user cannot be messaged; a mention of it triggers nothing.
    o.channel(&o.owner, "quiet", &[&o.owner, &o.bob], &[]).await;
    o.send_channel(&o.bob, "quiet", "t", "@**Retired** hello?")
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(rx.got().is_empty());
}
