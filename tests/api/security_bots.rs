//! Attacks through bot accounts from issue 24 (security), each performed the way a client
//! would: a member who keeps a bot's key past their own deactivation, and bots that make,
//! list, change, deactivate or re-key bots of their own.

use serde_json::{Value, json};

use crate::support::{Org, Reply, TestUser, org, poll_now, wait_events};

const REFUSED: &str = "This endpoint does not accept bot requests.";

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

async fn member_count(o: &Org) -> usize {
    let r = o.srv.get("/api/v1/users", &o.owner, &[]).await;
    r.assert_success("GET /users")["members"]
        .as_array()
        .unwrap()
        .len()
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

#[track_caller]
fn refused(r: &Reply) {
    r.assert_error(400, "BAD_REQUEST");
    assert_eq!(r.body["msg"], REFUSED, "{}", r.body);
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

#[tokio::test]
async fn bots_may_not_make_list_change_deactivate_or_rekey_bots() {
    let o = org().await;
    let parent = new_bot(&o, &o.alice, "Parent Bot", "parent").await;
    let before = member_count(&o).await;

    // A bot's POST /bots is refused and makes nothing, whatever it asks for.
    for form in [
        &[("full_name", "Child Bot"), ("short_name", "child")][..],
        &[
            ("full_name", "Hook Child"),
            ("short_name", "hook"),
            ("bot_type", "2"),
        ][..],
        &[][..],
    ] {
        refused(&o.srv.post("/api/v1/bots", &parent, form).await);
    }
    assert_eq!(member_count(&o).await, before);
    let r = o
        .srv
        .get("/api/v1/users/child-bot@outpost.test", &o.owner, &[])
        .await;
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], "No such user");

    // A bot gets no bot listing (with keys) either.
    refused(&o.srv.get("/api/v1/bots", &parent, &[]).await);

    // A bot made by a bot before this was refused (its owner is the bot): the owning bot
    // can no longer manage it, and it goes when its owner does.
    let child = new_bot(&o, &o.alice, "Child Bot", "child").await;
    let (child_id, parent_id) = (child.id, parent.id);
    o.srv
        .state
        .db
        .write(move |tx| {
            tx.execute(
                "UPDATE users SET bot_owner_id = ?1 WHERE id = ?2",
                [parent_id, child_id],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    let path = format!("/api/v1/bots/{child_id}");
    refused(
        &o.srv
            .patch(&path, &parent, &[("full_name", "Renamed Child")])
            .await,
    );
    refused(
        &o.srv
            .post(&format!("{path}/api_key/regenerate"), &parent, &[])
            .await,
    );
    refused(&o.srv.delete(&path, &parent, &[]).await);
    let c = member(&o, child_id).await;
    assert_eq!(c["full_name"], "Child Bot");
    assert_eq!(c["is_active"], true);
    o.srv
        .get("/api/v1/users/me", &child, &[])
        .await
        .assert_success("GET /users/me");

    // Even a bot made an administrator manages no bots.
    o.srv
        .patch(
            &format!("/api/v1/bots/{parent_id}"),
            &o.admin,
            &[("role", "200")],
        )
        .await
        .assert_success("PATCH /bots/{bot_id}");
    refused(
        &o.srv
            .patch(&path, &parent, &[("full_name", "Renamed Child")])
            .await,
    );
    refused(&o.srv.delete(&path, &parent, &[]).await);
    refused(&o.srv.get("/api/v1/bots", &parent, &[]).await);
    assert_eq!(member(&o, child_id).await["full_name"], "Child Bot");

    // The member deactivates the parent bot: the bot it owns goes too.
    o.srv
        .delete(&format!("/api/v1/bots/{parent_id}"), &o.alice, &[])
        .await
        .assert_success("DELETE /bots/{bot_id}");
    locked_out(&o.srv.get("/api/v1/users/me", &child, &[]).await);
    assert_eq!(member(&o, child_id).await["is_active"], false);
}
