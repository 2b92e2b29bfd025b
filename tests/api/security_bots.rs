//! Attacks through bot accounts from issue 24 (security), each performed the way a client
//! would: a member who keeps a bot's key past their own deactivation.

use serde_json::{Value, json};

use crate::support::{Org, Reply, TestUser, org, poll_now, wait_events};

/// A bot `who` creates through `POST /bots`, as a client holding its key.
async fn new_bot(o: &Org, who: &TestUser, name: &str, short: &str) -> TestUser {
    let r = o
        .srv
        .post(
            "/api/v1/bots",
            who,
            &[("full_name", name), ("short_name", short)],
        )
        .await;
    let b = r.assert_success("POST /bots");
    TestUser {
        id: b["user_id"].as_i64().unwrap(),
        email: format!("{short}-bot@outpost.test"),
        api_key: b["api_key"].as_str().unwrap().to_string(),
    }
}

/// Every account as `GET /users` shows it to the owner, by id.
async fn member(o: &Org, id: i64) -> Value {
    let r = o.srv.get("/api/v1/users", &o.owner, &[]).await;
    r.assert_success("GET /users")["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["user_id"] == id)
        .cloned()
        .unwrap_or(Value::Null)
}

async fn bots_of(o: &Org, who: &TestUser) -> Vec<Value> {
    let r = o.srv.get("/api/v1/bots", who, &[]).await;
    r.assert_success("GET /bots")["bots"]
        .as_array()
        .unwrap()
        .clone()
}

async fn dm(o: &Org, who: &TestUser, to: &TestUser, content: &str) -> Reply {
    let to = json!([to.id]).to_string();
    o.srv
        .post(
            "/api/v1/messages",
            who,
            &[
                ("type", "direct"),
                ("to", to.as_str()),
                ("content", content),
            ],
        )
        .await
}

#[track_caller]
fn locked_out(r: &Reply) {
    assert_eq!(
        r.assert_error(401, "UNAUTHORIZED")["msg"],
        "Account is deactivated"
    );
}

#[tokio::test]
async fn a_deactivated_members_bots_are_deactivated_with_them_and_stay_so() {
    let o = org().await;
    let bot = new_bot(&o, &o.alice, "Escape Hatch", "hatch").await;
    // What the bot could keep using: its key and an event queue (bots get no web sessions).
    dm(&o, &bot, &o.bob, "still here")
        .await
        .assert_success("POST /messages");
    let (bot_queue, _) = o.register(&bot, &[("event_types", r#"["message"]"#)]).await;
    let form = [("event_types", r#"["realm_user", "realm_bot"]"#)];
    let (admin_queue, _) = o.register(&o.admin, &form).await;

    o.srv
        .delete(&format!("/api/v1/users/{}", o.alice.id), &o.admin, &[])
        .await
        .assert_success("DELETE /users/{user_id}");

    // The bot's key reads and sends nothing; its queue answers nothing.
    locked_out(&o.srv.get("/api/v1/users/me", &bot, &[]).await);
    locked_out(&dm(&o, &bot, &o.bob, "after").await);
    locked_out(&poll_now(&o.srv, &bot, &bot_queue, -1).await);
    // Everyone sees it deactivated; administrators hear of it as of any bot's deactivation.
    assert_eq!(member(&o, bot.id).await["is_active"], false);
    let evs = wait_events(&o, &o.admin, &admin_queue, 3).await;
    let persons: Vec<&Value> = evs
        .iter()
        .filter(|e| e["type"] == "realm_user")
        .map(|e| &e["person"])
        .collect();
    // The bot first, then its owner, as upstream.
    assert_eq!(
        persons,
        [
            &json!({"user_id": bot.id, "is_active": false}),
            &json!({"user_id": o.alice.id, "is_active": false})
        ],
        "{evs:?}"
    );
    assert!(
        evs.iter().any(|e| e["type"] == "realm_bot"
            && e["op"] == "update"
            && e["bot"] == json!({"user_id": bot.id, "is_active": false})),
        "{evs:?}"
    );

    // Reactivating the member does not bring the bot back.
    o.srv
        .post(
            &format!("/api/v1/users/{}/reactivate", o.alice.id),
            &o.admin,
            &[],
        )
        .await
        .assert_success("POST /users/{user_id}/reactivate");
    o.srv
        .get("/api/v1/users/me", &o.alice, &[])
        .await
        .assert_success("GET /users/me");
    locked_out(&o.srv.get("/api/v1/users/me", &bot, &[]).await);
    assert_eq!(member(&o, bot.id).await["is_active"], false);
    assert!(bots_of(&o, &o.alice).await.is_empty());

    // Reactivated on purpose, the bot's key works again, but its old queue has ended.
    o.srv
        .post(
            &format!("/api/v1/users/{}/reactivate", bot.id),
            &o.admin,
            &[],
        )
        .await
        .assert_success("POST /users/{user_id}/reactivate");
    o.srv
        .get("/api/v1/users/me", &bot, &[])
        .await
        .assert_success("GET /users/me");
    poll_now(&o.srv, &bot, &bot_queue, -1)
        .await
        .assert_error(400, "BAD_EVENT_QUEUE_ID");
}
