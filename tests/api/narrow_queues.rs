//! Narrows on event queues: negated terms, agreement with `GET /messages` for the same narrow,
//! and the terms `POST /register` refuses because a queue cannot evaluate them.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::support::{Org, TestUser, org};

/// Registers a queue for message events only, with `narrow`.
async fn queue(o: &Org, who: &TestUser, narrow: &Value) -> String {
    let n = narrow.to_string();
    let (id, _) = o
        .register(
            who,
            &[("event_types", "[\"message\"]"), ("narrow", n.as_str())],
        )
        .await;
    id
}

/// Long-polls `queue` (acknowledging as it goes) until the message `last` has arrived there;
/// returns the ids of the messages it received. Delivery handles messages in order, one pass
/// for every queue, so by then every queue has had every earlier message.
async fn wait_for(o: &Org, who: &TestUser, queue: &str, last: i64) -> Vec<i64> {
    let mut after = -1;
    let mut seen = Vec::new();
    for _ in 0..50 {
        let after_s = after.to_string();
        let r = o
            .srv
            .get(
                "/api/v1/events",
                who,
                &[("queue_id", queue), ("last_event_id", after_s.as_str())],
            )
            .await;
        let events = r.assert_success("GET /events")["events"]
            .as_array()
            .unwrap()
            .clone();
        for e in &events {
            if e["type"] == "message" {
                seen.push(e["message"]["id"].as_i64().unwrap());
                if e["message"]["id"] == last {
                    return seen;
                }
            }
            after = after.max(e["id"].as_i64().unwrap());
        }
    }
    panic!("message {last} never reached queue {queue}");
}

/// The ids of the message events in a queue (without waiting), in order.
async fn queued(o: &Org, who: &TestUser, queue: &str) -> Vec<i64> {
    o.events(who, queue, -1)
        .await
        .iter()
        .filter(|e| e["type"] == "message")
        .map(|e| e["message"]["id"].as_i64().unwrap())
        .collect()
}

struct Sent {
    /// Bob in general/lunch, Bob in general/plans, Alice in random/lunch, Bob in
    /// random/"✔ plans", Alice in general/"✔ lunch", Bob in random/LUNCH.
    ids: [i64; 6],
}

/// Alice and Bob in two channels; the messages of [`Sent`].
async fn send_all(o: &Org) -> Sent {
    Sent {
        ids: [
            o.send_channel(&o.bob, "general", "lunch", "one").await,
            o.send_channel(&o.bob, "general", "plans", "two").await,
            o.send_channel(&o.alice, "random", "lunch", "three").await,
            o.send_channel(&o.bob, "random", "✔ plans", "four").await,
            o.send_channel(&o.alice, "general", "✔ lunch", "five").await,
            o.send_channel(&o.bob, "random", "LUNCH", "six").await,
        ],
    }
}

async fn two_channels(o: &Org) -> i64 {
    let general = o
        .channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    o.channel(&o.alice, "random", &[&o.alice, &o.bob], &[])
        .await;
    general
}

fn negated(operator: &str, operand: Value) -> Value {
    json!({"operator": operator, "operand": operand, "negated": true})
}

#[tokio::test]
async fn negated_channel_topic_and_sender_narrows_filter_a_queue() {
    let o = org().await;
    two_channels(&o).await;
    let bob = json!(o.bob.id);
    let not_general = queue(&o, &o.alice, &json!([negated("channel", json!("general"))])).await;
    let general_not_lunch = queue(
        &o,
        &o.alice,
        &json!([["channel", "general"], negated("topic", json!("lunch"))]),
    )
    .await;
    let not_bob = queue(&o, &o.alice, &json!([negated("sender", bob.clone())])).await;
    let bob_not_random = queue(
        &o,
        &o.alice,
        &json!([
            {"operator": "sender", "operand": bob},
            {"operator": "stream", "operand": "random", "negated": true}
        ]),
    )
    .await;
    let all = queue(&o, &o.alice, &json!([])).await;
    let s = send_all(&o).await;
    let [one, two, three, four, five, six] = s.ids;
    let everything = wait_for(&o, &o.alice, &all, six).await;
    assert_eq!(
        queued(&o, &o.alice, &not_general).await,
        vec![three, four, six]
    );
    assert_eq!(
        queued(&o, &o.alice, &general_not_lunch).await,
        vec![two, five]
    );
    assert_eq!(queued(&o, &o.alice, &not_bob).await, vec![three, five]);
    assert_eq!(queued(&o, &o.alice, &bob_not_random).await, vec![one, two]);
    assert_eq!(everything, vec![one, two, three, four, five, six]);
}

#[tokio::test]
async fn a_queue_and_get_messages_agree_on_the_same_narrow() {
    let o = org().await;
    let general = two_channels(&o).await;
    let bob = json!(o.bob.id);
    let narrows = vec![
        json!([["channel", "general"]]),
        json!([["channel", general]]),
        json!([["channel", "GENERAL"], ["topic", "Lunch"]]),
        json!([negated("channel", json!(general))]),
        json!([["stream", "random"], negated("topic", json!("lunch"))]),
        json!([["sender", bob.clone()]]),
        json!([negated("sender", bob)]),
        json!([["is", "resolved"]]),
        json!([negated("is", json!("resolved"))]),
        json!([
            negated("is", json!("resolved")),
            negated("channel", json!("random"))
        ]),
    ];
    let mut queues = Vec::new();
    for n in &narrows {
        queues.push(queue(&o, &o.alice, n).await);
    }
    let all = queue(&o, &o.alice, &json!([])).await;
    let s = send_all(&o).await;
    wait_for(&o, &o.alice, &all, s.ids[5]).await;
    let sent: HashSet<i64> = s.ids.into_iter().collect();
    for (n, q) in narrows.iter().zip(&queues) {
        let fetched: Vec<i64> = o
            .ids(&o.alice, n.clone())
            .await
            .into_iter()
            .filter(|id| sent.contains(id))
            .collect();
        let events = queued(&o, &o.alice, q).await;
        assert!(
            !fetched.is_empty(),
            "narrow {n} matches some of the messages"
        );
        assert_eq!(events, fetched, "narrow {n}");
    }
}

#[tokio::test]
async fn register_refuses_terms_a_queue_cannot_evaluate() {
    let o = org().await;
    two_channels(&o).await;
    let refused = [
        (
            json!([["search", "lunch"]]),
            "Operator search not supported.",
        ),
        (json!([["dm", o.bob.id]]), "Operator dm not supported."),
        (json!([["id", 1]]), "Operator id not supported."),
        (json!([["has", "link"]]), "Operator has not supported."),
        (json!([["with", 1]]), "Operator with not supported."),
        (
            json!([["subject", "lunch"]]),
            "Operator subject not supported.",
        ),
        (
            json!([negated("dm-including", json!(o.bob.id))]),
            "Operator dm-including not supported.",
        ),
        (
            json!([["is", "followed"]]),
            "Operand followed not supported.",
        ),
        (json!([["is", "muted"]]), "Operand muted not supported."),
        (
            json!([["channel", "general"], negated("is", json!("muted"))]),
            "Operand muted not supported.",
        ),
    ];
    for (narrow, msg) in &refused {
        let n = narrow.to_string();
        let r = o
            .srv
            .post("/api/v1/register", &o.alice, &[("narrow", n.as_str())])
            .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], *msg, "{narrow}");
        // A queue made by `GET /events` without a queue id follows the same rule.
        let r = o
            .srv
            .get(
                "/api/v1/events",
                &o.alice,
                &[("dont_block", "true"), ("narrow", n.as_str())],
            )
            .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], *msg, "{narrow}");
    }
    // Unknown operators stay a bad narrow, as for `GET /messages`.
    let r = o
        .srv
        .post(
            "/api/v1/register",
            &o.alice,
            &[("narrow", "[[\"color\",\"red\"]]")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_NARROW")["msg"],
        "Invalid narrow operator: unknown operator color"
    );
    // Every `is` operand a queue can evaluate is accepted.
    for is in [
        "dm",
        "private",
        "starred",
        "unread",
        "mentioned",
        "alerted",
        "resolved",
    ] {
        let n = json!([negated("is", json!(is))]).to_string();
        let r = o
            .srv
            .post("/api/v1/register", &o.alice, &[("narrow", n.as_str())])
            .await;
        r.assert_success("POST /register");
    }
}

#[tokio::test]
async fn a_queue_narrowed_to_a_channel_created_later_receives_its_messages() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let later = queue(&o, &o.bob, &json!([["channel", "Later"]])).await;
    let not_later = queue(&o, &o.bob, &json!([negated("channel", json!("later"))])).await;
    let all = queue(&o, &o.bob, &json!([])).await;
    o.channel(&o.alice, "later", &[&o.alice, &o.bob], &[]).await;
    let in_general = o.send_channel(&o.alice, "general", "t", "one").await;
    let in_later = o.send_channel(&o.alice, "later", "t", "two").await;
    let last = o.send_channel(&o.alice, "general", "t", "three").await;
    wait_for(&o, &o.bob, &all, last).await;
    // Notification Bot's notice about the new channel is left out here.
    let sent = [in_general, in_later, last];
    let ours = |ids: Vec<i64>| {
        ids.into_iter()
            .filter(|id| sent.contains(id))
            .collect::<Vec<_>>()
    };
    assert_eq!(ours(queued(&o, &o.bob, &later).await), vec![in_later]);
    assert_eq!(
        ours(queued(&o, &o.bob, &not_later).await),
        vec![in_general, last]
    );
}
