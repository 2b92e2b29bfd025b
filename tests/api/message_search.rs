//! Full-text search over messages written together: sends, edits and deletions that arrive at
//! the same time share write transactions, whose search-index changes are applied in order after
//! the last of them (`db::WriteTx`). Each must still be found, or no longer found, exactly as if
//! it had been written alone.

use futures_util::future::join_all;
use serde_json::json;

use crate::support::org;

#[tokio::test]
async fn messages_written_together_are_found_by_their_words() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    // Sent all at once, so the writer commits many of them in one transaction.
    let sends = (0..24).map(|i| {
        let content = format!("shared needle{i} words");
        let topic = format!("topic{}", i % 3);
        let o = &o;
        async move { o.send_channel(&o.alice, "general", &topic, &content).await }
    });
    let ids: Vec<i64> = join_all(sends).await;
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(
            o.ids(&o.bob, json!([["search", format!("needle{i}")]]))
                .await,
            vec![*id],
            "needle{i}"
        );
    }
    let mut all = ids.clone();
    all.sort_unstable();
    assert_eq!(o.ids(&o.bob, json!([["search", "shared"]])).await, all);
    assert_eq!(o.ids(&o.bob, json!([["search", "topic1"]])).await.len(), 8);

    // Edits, deletions and new sends at once: an edited message is found by its new words only,
    // a deleted one not at all.
    let mut changes = Vec::new();
    for (i, id) in ids.iter().enumerate().take(12) {
        let o = &o;
        let id = *id;
        changes.push(Box::pin(async move {
            let path = format!("/api/v1/messages/{id}");
            if i % 2 == 0 {
                o.srv
                    .patch(
                        &path,
                        &o.alice,
                        &[("content", &format!("changed haystack{i}"))],
                    )
                    .await
                    .assert_success("PATCH /messages/{message_id}");
            } else {
                o.srv
                    .delete(&path, &o.alice, &[])
                    .await
                    .assert_success("DELETE /messages/{message_id}");
            }
            0i64
        })
            as std::pin::Pin<Box<dyn std::future::Future<Output = i64> + '_>>);
    }
    for i in 24..30 {
        let o = &o;
        changes.push(Box::pin(async move {
            o.send_channel(
                &o.alice,
                "general",
                "late",
                &format!("shared needle{i} words"),
            )
            .await
        }));
    }
    let late: Vec<i64> = join_all(changes).await.into_iter().skip(12).collect();
    for (i, id) in ids.iter().enumerate() {
        let old = o
            .ids(&o.bob, json!([["search", format!("needle{i}")]]))
            .await;
        let new = o
            .ids(&o.bob, json!([["search", format!("haystack{i}")]]))
            .await;
        match i {
            i if i < 12 && i % 2 == 0 => {
                assert_eq!((old, new), (vec![], vec![*id]), "edited {i}")
            }
            i if i < 12 => assert_eq!((old, new), (vec![], vec![]), "deleted {i}"),
            _ => assert_eq!((old, new), (vec![*id], vec![]), "untouched {i}"),
        }
    }
    for (k, id) in late.iter().enumerate() {
        assert_eq!(
            o.ids(&o.bob, json!([["search", format!("needle{}", 24 + k)]]))
                .await,
            vec![*id]
        );
    }
    let mut kept: Vec<i64> = ids[12..].iter().chain(late.iter()).copied().collect();
    kept.sort_unstable();
    assert_eq!(o.ids(&o.bob, json!([["search", "shared"]])).await, kept);
}
