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

use outpost::db::{channels, message_flags, messages, topics};
use outpost::domain::messages::send::{self, NewMessage, Recipient};
use outpost::ids::{ChannelId, MessageId, UserId};
use outpost::model::Message;
use outpost::zulip::ChatState;

use super::fail;

/// Runs `connections` concurrent senders for `seconds` (after a one-second warm-up) and prints
/// sends per second.
pub async fn run(
    state: Arc<ChatState>,
    scenario: &str,
    connections: usize,
    subscribers: usize,
    flag_rows: usize,
    seconds: u64,
) {
    let people = super::scenarios::channel_with(&state, subscribers.max(connections)).await;
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

/// `send-storage --batch N`: the same writes, with exactly `N` sends in every transaction, so
/// the cost per send at a given batch size is repeatable (under `valgrind --tool=callgrind`
/// too, where thread scheduling would otherwise decide the batch sizes). Each round holds the
/// writer in an empty job, queues `N` sends, then lets the writer go.
pub async fn run_batched(
    state: Arc<ChatState>,
    subscribers: usize,
    flag_rows: usize,
    batch: usize,
    seconds: u64,
) {
    let people = super::scenarios::channel_with(&state, subscribers.max(batch)).await;
    let rows: Arc<Vec<UserId>> = Arc::new(people.iter().take(flag_rows).map(|p| p.0).collect());
    let channel = state
        .db
        .read(|c| channels::by_name(c, "bench"))
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| fail("no bench channel"))
        .id;
    let warm_until = Instant::now() + Duration::from_secs(1);
    let end = warm_until + Duration::from_secs(seconds);
    let (mut sends, mut errors, mut n) = (0u64, 0u64, 0u64);
    while Instant::now() < end {
        let (release, released) = std::sync::mpsc::channel::<()>();
        let (held, holding) = tokio::sync::oneshot::channel::<()>();
        let writer = Arc::clone(&state);
        let blocker = tokio::spawn(async move {
            writer
                .db
                .write(move |_| {
                    let _ = held.send(());
                    let _ = released.recv();
                    Ok(())
                })
                .await
        });
        let _ = holding.await;
        let queued = Arc::new(AtomicU64::new(0));
        let all_queued = Arc::new(tokio::sync::Notify::new());
        let mut jobs = Vec::with_capacity(batch);
        for i in 0..batch {
            let (state, rows) = (Arc::clone(&state), Arc::clone(&rows));
            let (queued, all_queued) = (Arc::clone(&queued), Arc::clone(&all_queued));
            let sender = people[i % people.len()].0;
            let (topic, content) = (format!("load {i}"), format!("benchmark message {n}"));
            n += 1;
            jobs.push(tokio::spawn(async move {
                let write = state
                    .db
                    .write(move |tx| store(tx, sender, channel, topic, content, &rows));
                tokio::pin!(write);
                // The first poll queues the job (the writer is held, so it stays pending).
                let first = futures_poll_once(write.as_mut()).await;
                if queued.fetch_add(1, Ordering::SeqCst) + 1 == batch as u64 {
                    all_queued.notify_one();
                }
                match first {
                    Some(res) => res.is_ok(),
                    None => write.await.is_ok(),
                }
            }));
        }
        all_queued.notified().await;
        let _ = release.send(());
        let _ = blocker.await;
        let measured = Instant::now() >= warm_until;
        for j in jobs {
            let ok = j.await.unwrap_or(false);
            if measured {
                if ok {
                    sends += 1;
                } else {
                    errors += 1;
                }
            }
        }
    }
    println!(
        "scenario=send-storage batch={batch} seconds={seconds} sends={sends} errors={errors} sends/s={:.0}",
        sends as f64 / seconds as f64
    );
}

/// Polls a future once: its output if it is ready, else `None` (it can be polled on).
async fn futures_poll_once<F: std::future::Future + Unpin>(f: F) -> Option<F::Output> {
    let mut f = f;
    std::future::poll_fn(|cx| {
        std::task::Poll::Ready(match std::pin::Pin::new(&mut f).poll(cx) {
            std::task::Poll::Ready(v) => Some(v),
            std::task::Poll::Pending => None,
        })
    })
    .await
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
