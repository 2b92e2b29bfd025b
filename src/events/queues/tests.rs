//! Unit tests of the queue table (compiled only under `#[cfg(test)]`).

use super::*;

fn body(s: &str) -> EventJson {
    Arc::from(format!("{{\"type\":\"{s}\""))
}

/// What the API gives the heartbeat pass (the chat API's wire module owns the real one).
fn heartbeat() -> EventJson {
    body("heartbeat")
}

#[test]
fn ack_prunes_and_checks_like_zulip() {
    let qs = Queues::new(100, Duration::from_secs(600));
    let q = qs.register(UserId(1), QueueOptions::default(), 0);
    assert_eq!(q.ack(-1), Ok(()));
    qs.push(&q, body("a"));
    qs.push(&q, body("b"));
    qs.push(&q, body("c"));
    assert_eq!(
        q.snapshot(),
        vec![
            "{\"type\":\"a\",\"id\":0}",
            "{\"type\":\"b\",\"id\":1}",
            "{\"type\":\"c\",\"id\":2}"
        ]
    );
    assert_eq!(q.ack(1), Ok(()));
    assert_eq!(q.snapshot().len(), 1);
    assert_eq!(q.ack(1), Ok(()));
    assert_eq!(q.ack(0), Err(AckError::AlreadyPruned(0)));
    assert_eq!(q.ack(7), Err(AckError::NotInQueue(7)));
}

#[test]
fn overflow_drops_the_queue_and_foreign_queues_are_invisible() {
    let qs = Queues::new(2, Duration::from_secs(600));
    let q = qs.register(UserId(1), QueueOptions::default(), 0);
    assert!(qs.get(UserId(2), &q.id).is_none());
    qs.push(&q, body("a"));
    qs.push(&q, body("b"));
    assert!(qs.contains(&q.id));
    qs.push(&q, body("c"));
    assert!(!qs.contains(&q.id));
}

#[test]
fn ending_a_users_queues_spares_everyone_elses() {
    let qs = Queues::new(10, Duration::from_secs(600));
    let a = qs.register(UserId(1), QueueOptions::default(), 0);
    let b = qs.register(UserId(1), QueueOptions::default(), 0);
    let other = qs.register(UserId(2), QueueOptions::default(), 0);
    assert_eq!(qs.end_all_of(UserId(1)), 2);
    assert!(!qs.contains(&a.id) && !qs.contains(&b.id));
    assert!(!qs.has_user(UserId(1)));
    assert!(qs.contains(&other.id));
    assert_eq!(qs.end_all_of(UserId(1)), 0);
}

#[test]
fn sweep_spares_connected_and_recent_queues() {
    let timeout = Duration::from_secs(600);
    let qs = Queues::new(10, timeout);
    let idle = qs.register(UserId(1), QueueOptions::default(), 0);
    let busy = qs.register(UserId(1), QueueOptions::default(), 0);
    // Taken after both registrations: at `expiry` both have been idle the whole timeout.
    let expiry = Instant::now() + timeout;
    let _g = busy.begin_poll(expiry + Duration::from_secs(60));
    assert_eq!(qs.sweep(expiry), 1);
    assert!(!qs.contains(&idle.id));
    assert!(qs.contains(&busy.id));
}

#[test]
fn sweep_waits_for_the_full_idle_timeout() {
    let timeout = Duration::from_secs(600);
    let qs = Queues::new(10, timeout);
    let before = Instant::now();
    let q = qs.register(UserId(1), QueueOptions::default(), 0);
    let after = Instant::now();
    // One second short of the timeout (even counted from before registering): kept.
    assert_eq!(qs.sweep(before + timeout - Duration::from_secs(1)), 0);
    assert!(qs.contains(&q.id));
    assert_eq!(qs.sweep(after + timeout), 1);
    assert_eq!(q.poll_state(0), PollState::Closed);
}

#[test]
fn an_acknowledged_or_polled_queue_is_idle_from_then_on() {
    let timeout = Duration::from_secs(600);
    let qs = Queues::new(10, timeout);
    let acked = qs.register(UserId(1), QueueOptions::default(), 0);
    let polled = qs.register(UserId(1), QueueOptions::default(), 0);
    let stale = qs.register(UserId(1), QueueOptions::default(), 0);
    // Later than every registration, earlier than the ack and the poll below.
    let mark = Instant::now();
    assert_eq!(acked.ack(-1), Ok(()));
    polled.begin_poll(mark + timeout);
    polled.end_poll();
    assert_eq!(qs.sweep(mark + timeout), 1);
    assert!(!qs.contains(&stale.id));
    assert!(qs.contains(&acked.id) && qs.contains(&polled.id));
}

#[test]
fn queue_lifespan_stretches_the_timeout_up_to_a_week() {
    let timeout = Duration::from_secs(600);
    let qs = Queues::new(10, timeout);
    let with = |secs: u64| QueueOptions {
        lifespan: Some(Duration::from_secs(secs)),
        ..QueueOptions::default()
    };
    let plain = qs.register(UserId(1), QueueOptions::default(), 0);
    let hour = qs.register(UserId(1), with(3600), 0);
    let short = qs.register(UserId(1), with(60), 0);
    let huge = qs.register(UserId(1), with(30 * 24 * 3600), 0);
    let t0 = Instant::now();
    assert_eq!(qs.sweep(t0 + timeout), 2);
    assert!(!qs.contains(&plain.id) && !qs.contains(&short.id));
    assert_eq!(qs.sweep(t0 + Duration::from_secs(3599)), 0);
    assert_eq!(qs.sweep(t0 + Duration::from_secs(3600)), 1);
    assert!(!qs.contains(&hour.id));
    let week = MAX_QUEUE_LIFESPAN;
    assert_eq!(qs.sweep(t0 + week - Duration::from_secs(1)), 0);
    assert_eq!(qs.sweep(t0 + week), 1);
    assert!(!qs.contains(&huge.id));
}

#[test]
fn heartbeats_go_only_to_waiting_polls_that_are_due() {
    let qs = Queues::new(10, Duration::from_secs(600));
    let due = qs.register(UserId(1), QueueOptions::default(), 0);
    let later = qs.register(UserId(1), QueueOptions::default(), 0);
    let idle = qs.register(UserId(1), QueueOptions::default(), 0);
    let t0 = Instant::now();
    let g1 = due.begin_poll(t0 + Duration::from_secs(45));
    let g2 = later.begin_poll(t0 + Duration::from_secs(60));
    assert_eq!(
        qs.heartbeats(t0 + Duration::from_millis(44_999), &heartbeat()),
        0
    );
    assert_eq!(due.poll_state(g1), PollState::Wait);
    assert_eq!(qs.heartbeats(t0 + Duration::from_secs(45), &heartbeat()), 1);
    assert_eq!(due.poll_state(g1), PollState::Ready);
    assert_eq!(due.snapshot(), vec!["{\"type\":\"heartbeat\",\"id\":0}"]);
    assert_eq!(later.poll_state(g2), PollState::Wait);
    assert!(idle.is_empty());
    // Already answered: no second heartbeat for the same poll.
    assert_eq!(qs.heartbeats(t0 + Duration::from_secs(50), &heartbeat()), 0);
    assert_eq!(qs.heartbeats(t0 + Duration::from_secs(60), &heartbeat()), 1);
    assert_eq!(later.poll_state(g2), PollState::Ready);
}

#[test]
fn no_heartbeat_once_the_poll_ended_or_events_are_waiting() {
    let qs = Queues::new(10, Duration::from_secs(600));
    let ended = qs.register(UserId(1), QueueOptions::default(), 0);
    let busy = qs.register(UserId(1), QueueOptions::default(), 0);
    let t0 = Instant::now();
    ended.begin_poll(t0);
    ended.end_poll();
    busy.begin_poll(t0);
    qs.push(&busy, body("a"));
    assert_eq!(
        qs.heartbeats(t0 + Duration::from_secs(3600), &heartbeat()),
        0
    );
    assert!(ended.is_empty());
    assert_eq!(busy.snapshot(), vec!["{\"type\":\"a\",\"id\":0}"]);
}

#[test]
fn removed_queues_close_and_newer_polls_supersede() {
    let qs = Queues::new(10, Duration::from_secs(600));
    let q = qs.register(UserId(1), QueueOptions::default(), 0);
    let far = Instant::now() + Duration::from_secs(60);
    let first = q.begin_poll(far);
    let second = q.begin_poll(far);
    assert_eq!(q.poll_state(first), PollState::Ready);
    assert_eq!(q.poll_state(second), PollState::Wait);
    assert!(!qs.delete(UserId(2), &q.id));
    // The same counter with another random part is another (unknown) queue.
    let (random, n) = q.id.rsplit_once(':').expect("id shape");
    let other = if random.starts_with('0') { "1" } else { "0" };
    let forged = format!("{other}{}:{n}", &random[1..]);
    assert!(qs.get(UserId(1), &forged).is_none());
    assert!(!qs.delete(UserId(1), &forged));
    assert!(qs.delete(UserId(1), &q.id));
    assert_eq!(q.poll_state(second), PollState::Closed);
    assert!(qs.get(UserId(1), &q.id).is_none());
}

#[test]
fn a_user_over_the_queue_cap_loses_the_stalest_queue() {
    let qs = Queues::new(10, Duration::from_secs(600)).with_user_limits(2, 10);
    let polled = qs.register(UserId(1), QueueOptions::default(), 0);
    let _g = polled.begin_poll(Instant::now() + Duration::from_secs(60));
    let idle = qs.register(UserId(1), QueueOptions::default(), 0);
    let other_user = qs.register(UserId(2), QueueOptions::default(), 0);
    let newest = qs.register(UserId(1), QueueOptions::default(), 0);
    // The idle queue goes before the older one a client is waiting on.
    assert!(!qs.contains(&idle.id));
    assert_eq!(idle.poll_state(0), PollState::Closed);
    assert!(qs.contains(&polled.id) && qs.contains(&newest.id));
    assert!(qs.contains(&other_user.id));
    assert_eq!(qs.count_of_user(UserId(1)), 2);
    assert_eq!(qs.len(), 3);
}

#[test]
fn waiting_polls_are_capped_per_user_but_a_queue_may_replace_its_own() {
    let qs = Queues::new(10, Duration::from_secs(600)).with_user_limits(10, 2);
    let a = qs.register(UserId(1), QueueOptions::default(), 0);
    let b = qs.register(UserId(1), QueueOptions::default(), 0);
    let c = qs.register(UserId(1), QueueOptions::default(), 0);
    let d = qs.register(UserId(2), QueueOptions::default(), 0);
    let pa = qs.admit_poll(&a).expect("first");
    let _pb = qs.admit_poll(&b).expect("second");
    assert_eq!(qs.admit_poll(&c).err(), Some(TooManyPolls { limit: 2 }));
    // Another user is unaffected; a new poll on a busy queue supersedes the old one.
    let _pd = qs.admit_poll(&d).expect("other user");
    let _again = qs.admit_poll(&a).expect("same queue");
    drop(pa);
    assert!(qs.admit_poll(&c).is_err());
    drop(_again);
    let _pc = qs.admit_poll(&c).expect("a place freed up");
}

#[test]
fn export_and_restore_keep_ids_events_and_acknowledgements() {
    let timeout = Duration::from_secs(600);
    let old = Queues::new(10, timeout);
    let q = old.register(UserId(1), QueueOptions::default(), 0);
    let stale = old.register(UserId(2), QueueOptions::default(), 0);
    old.push(&q, body("a"));
    old.push(&q, body("b"));
    assert_eq!(q.ack(0), Ok(()));
    let now = Instant::now();
    let mut saved = old.export(now);
    assert_eq!(saved.len(), 2);
    // One of them had been idle almost the whole timeout.
    for s in saved.iter_mut().filter(|s| s.id == stale.id) {
        s.idle = timeout - Duration::from_secs(30);
    }
    let new = Queues::new(10, timeout);
    // Down for a minute: the nearly expired queue is dropped.
    let restored = new.restore(saved, Duration::from_secs(60), now);
    assert_eq!(restored.len(), 1);
    let r = new.get(UserId(1), &q.id).expect("restored");
    assert!(new.get(UserId(2), &stale.id).is_none());
    assert_eq!(r.snapshot(), vec!["{\"type\":\"b\",\"id\":1}"]);
    assert_eq!(r.ack(0), Ok(()));
    new.push(&r, body("c"));
    assert_eq!(r.ack(1), Ok(()));
    assert_eq!(r.snapshot(), vec!["{\"type\":\"c\",\"id\":2}"]);
    // New queues never reuse a restored id.
    let fresh = new.register(UserId(1), QueueOptions::default(), 0);
    assert!(id_key(&fresh.id).unwrap() > id_key(&q.id).unwrap());
    assert!(id_key(&fresh.id).unwrap() > id_key(&stale.id).unwrap());
}

#[tokio::test]
async fn waiters_registered_before_reading_see_the_push() {
    let qs = Arc::new(Queues::new(10, Duration::from_secs(600)));
    let q = qs.register(UserId(1), QueueOptions::default(), 0);
    let notified = q.notified();
    tokio::pin!(notified);
    notified.as_mut().enable();
    assert!(q.is_empty());
    qs.push(&q, body("a"));
    tokio::time::timeout(Duration::from_secs(1), notified)
        .await
        .expect("woken");
}
