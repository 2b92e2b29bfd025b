//! The `with` narrow operator: a link to a message finds it after it moved (to another topic or
//! channel), as upstream resolves it; an unreadable or missing message leaves the rest of the
//! narrow as it is.

use serde_json::json;

use crate::support::org;

#[tokio::test]
async fn with_follows_a_moved_message_to_its_current_place() {
    let o = org().await;
    let everyone = [&o.owner, &o.alice, &o.bob];
    o.channel(&o.owner, "general", &everyone, &[]).await;
    let random = o.channel(&o.owner, "random", &everyone, &[]).await;
    let moved = o.send_channel(&o.alice, "general", "old topic", "m1").await;
    let stays = o.send_channel(&o.alice, "general", "old topic", "m2").await;
    let there = o.send_channel(&o.bob, "random", "new topic", "m3").await;
    let random_id = random.to_string();
    o.srv
        .patch(
            &format!("/api/v1/messages/{moved}"),
            &o.owner,
            &[
                ("stream_id", random_id.as_str()),
                ("topic", "new topic"),
                ("propagate_mode", "change_one"),
            ],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    // A link made before the move still names the old channel and topic.
    let old_link = json!([
        {"operator": "channel", "operand": "general"},
        {"operator": "topic", "operand": "old topic"},
        {"operator": "with", "operand": moved},
    ]);
    let mut found = o.ids(&o.bob, old_link).await;
    found.sort_unstable();
    assert_eq!(found, vec![moved, there]);
    // Without `with`, the old place no longer has it.
    let old_place = json!([["channel", "general"], ["topic", "old topic"]]);
    assert_eq!(o.ids(&o.bob, old_place).await, vec![stays]);
    // `with` alone (string operand, legacy pair form) opens the message's conversation.
    let stays_str = stays.to_string();
    assert_eq!(
        o.ids(&o.bob, json!([["with", stays_str]])).await,
        vec![stays]
    );
    // A direct message: its conversation.
    let dm = o.send_dm(&o.alice, &[&o.bob], "psst").await;
    assert_eq!(
        o.ids(&o.bob, json!([{"operator": "with", "operand": dm}]))
            .await,
        vec![dm]
    );
    // A message the viewer cannot read, or none at all: the rest of the narrow stands.
    let hidden_dm = o.send_dm(&o.alice, &[&o.owner], "not for bob").await;
    for id in [hidden_dm, 999_999] {
        let narrow = json!([["channel", "general"], {"operator": "with", "operand": id}]);
        assert_eq!(o.ids(&o.bob, narrow).await, vec![stays]);
    }
}
