//! The storage ceiling of `send`: `outpost-bench send-storage` runs exactly the writes one
//! `POST /messages` of the `send` scenario performs (the channel check, the message row, its
//! search-index row, the sender's per-user row when one differs from the default, the automatic
//! topic-follow check and its row the first time) through the server's own writer thread: the
//! same pragmas, savepoint per job and group-commit transactions. No HTTP, no authentication,
//! no rendering, no events, so no delivery: what the send rate could be if everything but the
//! database cost nothing.
//!
//! `send-direct` calls the domain's `send` instead (the reader-side checks and rendering, then
//! the same write, then the event and its delivery), still without HTTP.
//!
//! The writes mirror `domain::messages::send::store` for a plain channel message from a
//! subscribed sender whose client does not mark its own messages read, which is what the
//! `send` scenario sends; keep the two in step.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use outpost::app::AppState;
use outpost::db::{channels, message_flags, messages, topics};
use outpost::domain::messages::send::{self, NewMessage, Recipient};
use outpost::ids::{ChannelId, MessageId, UserId};
use outpost::model::Message;

use super::fail;

/// Runs `connections` concurrent senders for `seconds` (after a one-second warm-up) and prints
/// sends per second.
pub async fn run(
    state: Arc<AppState>,
    scenario: &str,
    connections: usize,
    subscribers: usize,
    flag_rows: usize,
    seconds: u64,
) {
    let people = super::channel_with(&state, subscribers.max(connections)).await;
    let rows: Arc<Vec<UserId>> = Arc::new(people.iter().take(flag_rows).map(|p| p.0).collect());
    let channel = state
        .db
        .read(|c| channels::by_name(c, "bench"))
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| fail("no bench channel"))
        .id;
    let direct = scenario == "send-direct";
    let counter = Arc::new(AtomicU64::new(0));
    let measuring = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for i in 0..connections {
        let sender = people[i % people.len()].0;
        let rows = Arc::clone(&rows);
        let (state, counter, measuring, done, errors, stop) = (
            Arc::clone(&state),
            Arc::clone(&counter),
            Arc::clone(&measuring),
            Arc::clone(&done),
            Arc::clone(&errors),
            Arc::clone(&stop),
        );
        tasks.push(tokio::spawn(async move {
            let user = state
                .db
                .read(move |c| outpost::db::users::get(c, sender))
                .await
                .ok()
                .flatten()
                .unwrap_or_else(|| fail("bench user vanished"));
            while !stop.load(Ordering::Relaxed) {
                let n = counter.fetch_add(1, Ordering::Relaxed);
                let topic = format!("load {i}");
                let content = format!("benchmark message {n}");
                let ok = if direct {
                    send::send(
                        &state,
                        &user,
                        NewMessage {
                            recipient: Recipient::ChannelName("bench".into()),
                            topic: Some(topic),
                            content,
                            client: "Unspecified".into(),
                            read_by_sender: None,
                            local: None,
                        },
                    )
                    .await
                    .is_ok()
                } else {
                    let rows = Arc::clone(&rows);
                    state
                        .db
                        .write(move |tx| store(tx, sender, channel, topic, content, &rows))
                        .await
                        .is_ok()
                };
                if measuring.load(Ordering::Relaxed) {
                    if ok {
                        done.fetch_add(1, Ordering::Relaxed);
                    } else {
                        errors.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    measuring.store(true, Ordering::Relaxed);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    measuring.store(false, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        let _ = t.await;
    }
    let sends = done.load(Ordering::Relaxed);
    println!(
        "scenario={scenario} connections={connections} seconds={seconds} sends={sends} errors={} sends/s={:.0}",
        errors.load(Ordering::Relaxed),
        sends as f64 / elapsed
    );
}

/// The writes of one plain channel message (see the module comment).
fn store(
    tx: &mut outpost::db::WriteTx<'_>,
    sender: UserId,
    channel: ChannelId,
    topic: String,
    content: String,
    flag_rows: &[UserId],
) -> outpost::error::Result<()> {
    if channels::is_archived(tx, channel)?.unwrap_or(true) {
        return Err(outpost::error::Error::bad_request("archived"));
    }
    let message = Message {
        id: MessageId(0),
        sender_id: sender,
        channel_id: Some(channel),
        conversation_id: None,
        rendered_content: format!("<p>{content}</p>"),
        content,
        topic,
        client: "Unspecified".into(),
        sent_at: outpost::time::now_secs(),
        is_me_message: false,
        wildcard: 0,
        last_edit_at: None,
        last_moved_at: None,
    };
    let id = messages::insert(tx, &message)?;
    // The sender is subscribed and its client leaves its messages unread, so the server writes
    // no per-user row; `--flag-rows` adds rows as a design that kept one per recipient would.
    for u in flag_rows {
        message_flags::change(tx, *u, id, 1, 0)?;
    }
    let current = topics::visibility_policy(tx, sender, channel, &message.topic)?;
    if current == 0 {
        let first = !topics::has_message_before(tx, channel, &message.topic, id)?;
        if first {
            topics::set_visibility_policy(
                tx,
                sender,
                channel,
                &message.topic,
                3,
                outpost::time::now_secs(),
            )?;
        } else {
            let _ = channels::subscription(tx, sender, channel)?;
        }
    }
    Ok(())
}
