//! The soak's load: the [`Pacer`] and one task per kind of traffic (senders, presence, edits,
//! reactions, history reads, uploads, badge reads and the long-pollers), each running until the
//! shared end. Must not touch: the set-up, the counters' reporting or the process exit (see
//! `mod.rs`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::Method;

use super::client::{Client, Rng, enc, form, get, request};
use super::{CHANNELS, POLL_TIMEOUT, Shared, TIMEOUT};

/// `rate` ticks a second until the end; falling behind delays the next tick, never bursts.
struct Pacer {
    tick: tokio::time::Interval,
    end: Instant,
}

impl Pacer {
    fn new(rate: f64, end: Instant) -> Option<Self> {
        if rate <= 0.0 {
            return None;
        }
        let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Some(Pacer { tick, end })
    }

    async fn next(&mut self) -> bool {
        self.tick.tick().await;
        Instant::now() < self.end
    }
}

/// Messages from users `s`, `s + senders`, ... in turn, each into its channel.
pub(super) async fn sender(shared: Arc<Shared>, s: usize, senders: usize, rate: f64) {
    let Some(mut pace) = Pacer::new(rate / senders as f64, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut k = s;
    while pace.next().await {
        let u = k % shared.users.len();
        let c = u % CHANNELS;
        let body = format!(
            "type=stream&to={}-{c}&topic={}&content={}",
            shared.prefix,
            enc(&format!("topic {}", (k / senders) % 12)),
            enc(&format!(
                "soak message {k} from user {u}: **steady** traffic with `code`, a \
                 [link](https://example.com/{k}) and enough words to be of typical length"
            ))
        );
        let r = client
            .send(
                form(
                    Method::POST,
                    "/api/v1/messages",
                    &shared.users[u].auth,
                    body,
                ),
                TIMEOUT,
            )
            .await;
        if let Ok(v) = &r
            && let Some(id) = v["id"].as_i64()
        {
            shared.remember(c, id, u);
        }
        shared.stats.record("send", &r);
        k += senders;
    }
}

/// Presence updates from the users in turn (mostly active, sometimes idle).
pub(super) async fn presence(shared: Arc<Shared>, rate: f64) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut k = 0usize;
    while pace.next().await {
        let u = k % shared.users.len();
        let status = if (k / shared.users.len()) % 5 == 4 {
            "idle"
        } else {
            "active"
        };
        let body = format!("status={status}&new_user_input=true&ping_only=false");
        let r = client
            .send(
                form(
                    Method::POST,
                    "/api/v1/users/me/presence",
                    &shared.users[u].auth,
                    body,
                ),
                TIMEOUT,
            )
            .await;
        shared.stats.record("presence", &r);
        k += 1;
    }
}

/// Edits of recent messages by their senders.
pub(super) async fn editor(shared: Arc<Shared>, rate: f64) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut rng = Rng::new(11);
    let mut k = 0usize;
    while pace.next().await {
        let Some((id, sender)) = shared.pick_recent(rng.below(CHANNELS), &mut rng) else {
            continue;
        };
        k += 1;
        let body = format!(
            "content={}",
            enc(&format!("edited soak message (edit {k}) with *new* words"))
        );
        let r = client
            .send(
                form(
                    Method::PATCH,
                    &format!("/api/v1/messages/{id}"),
                    &shared.users[sender].auth,
                    body,
                ),
                TIMEOUT,
            )
            .await;
        shared.stats.record("edit", &r);
    }
}

/// A reaction added to a recent message by a member of its channel, removed at the next tick.
pub(super) async fn reactor(shared: Arc<Shared>, rate: f64) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut rng = Rng::new(13);
    let mut pending: Option<(i64, usize)> = None;
    while pace.next().await {
        if let Some((id, user)) = pending.take() {
            let r = client
                .send(
                    request(
                        Method::DELETE,
                        &format!("/api/v1/messages/{id}/reactions?emoji_name=thumbs_up"),
                        ("authorization", &shared.users[user].auth),
                        None,
                        Bytes::new(),
                    ),
                    TIMEOUT,
                )
                .await;
            shared.stats.record("reaction-remove", &r);
            continue;
        }
        let c = rng.below(CHANNELS);
        let Some((id, _)) = shared.pick_recent(c, &mut rng) else {
            continue;
        };
        let user = shared.member(c, &mut rng);
        let r = client
            .send(
                form(
                    Method::POST,
                    &format!("/api/v1/messages/{id}/reactions"),
                    &shared.users[user].auth,
                    "emoji_name=thumbs_up".into(),
                ),
                TIMEOUT,
            )
            .await;
        if r.is_ok() {
            pending = Some((id, user));
        }
        shared.stats.record("reaction-add", &r);
    }
}

/// The newest 50 messages of a channel, read by one of its members.
pub(super) async fn history(shared: Arc<Shared>, rate: f64) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut rng = Rng::new(17);
    while pace.next().await {
        let c = rng.below(CHANNELS);
        let user = shared.member(c, &mut rng);
        let narrow = enc(&format!(
            "[{{\"operator\":\"channel\",\"operand\":\"{}-{c}\"}}]",
            shared.prefix
        ));
        let path =
            format!("/api/v1/messages?anchor=newest&num_before=50&num_after=0&narrow={narrow}");
        let r = client
            .send(get(&path, &shared.users[user].auth), TIMEOUT)
            .await;
        shared.stats.record("history", &r);
    }
}

/// Files of 1 to 8 KB uploaded by the users in turn, each linked from a message.
pub(super) async fn uploader(shared: Arc<Shared>, rate: f64) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(shared.addr);
    let mut rng = Rng::new(19);
    let mut k = 0usize;
    while pace.next().await {
        let u = k % shared.users.len();
        let c = u % CHANNELS;
        let size = 1024 + rng.below(7 * 1024);
        let line = format!("soak upload {k} line of text\n");
        let data: String = line.repeat(size / line.len() + 1)[..size].to_string();
        let boundary = format!("soakboundary{k}");
        let body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"soak-{k}.txt\"\r\nContent-Type: text/plain\r\n\r\n{data}\r\n--{boundary}--\r\n"
        );
        let r = client
            .send(
                request(
                    Method::POST,
                    "/api/v1/user_uploads",
                    ("authorization", &shared.users[u].auth),
                    Some(&format!("multipart/form-data; boundary={boundary}")),
                    body,
                ),
                TIMEOUT,
            )
            .await;
        let url = r
            .as_ref()
            .ok()
            .and_then(|v| v["url"].as_str().map(str::to_string));
        shared.stats.record("upload", &r);
        k += 1;
        let Some(url) = url else { continue };
        let body = format!(
            "type=stream&to={}-{c}&topic=files&content={}",
            shared.prefix,
            enc(&format!("[soak-{k}.txt]({url})"))
        );
        let r = client
            .send(
                form(
                    Method::POST,
                    "/api/v1/messages",
                    &shared.users[u].auth,
                    body,
                ),
                TIMEOUT,
            )
            .await;
        shared.stats.record("send-upload-link", &r);
    }
}

/// The project's policy-violation badge on the Dependency-Track listener.
pub(super) async fn badges(
    shared: Arc<Shared>,
    addr: SocketAddr,
    key: String,
    project: String,
    rate: f64,
) {
    let Some(mut pace) = Pacer::new(rate, shared.end) else {
        return;
    };
    let mut client = Client::new(addr);
    let path = format!("/api/v1/badge/violations/project/{project}");
    while pace.next().await {
        let r = client
            .send(
                request(Method::GET, &path, ("x-api-key", &key), None, Bytes::new()),
                TIMEOUT,
            )
            .await;
        shared.stats.record("dt-badge", &r);
    }
}

/// One client's event queue: registered, long-polled until it has lived one to four minutes,
/// then deleted (or, one time in five, abandoned for the server's collector) and registered
/// again.
pub(super) async fn poller(shared: Arc<Shared>, p: usize) {
    let user = &shared.users[p % shared.users.len()];
    let mut client = Client::new(shared.addr);
    let mut rng = Rng::new(1000 + p as u64);
    let end = shared.end;
    // Spread the registrations over the first seconds.
    tokio::time::sleep(Duration::from_millis((p as u64 * 20) % 5000)).await;
    while Instant::now() < end {
        let reg = client
            .send(
                form(
                    Method::POST,
                    "/api/v1/register",
                    &user.auth,
                    format!(
                        "event_types={}",
                        enc(r#"["message","reaction","update_message"]"#)
                    ),
                ),
                TIMEOUT,
            )
            .await;
        let queue = reg.as_ref().ok().and_then(|v| {
            Some((
                v["queue_id"].as_str()?.to_string(),
                v["last_event_id"].as_i64()?,
            ))
        });
        shared.stats.record("register", &reg);
        let Some((queue, mut last)) = queue else {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        };
        let expires = Instant::now() + Duration::from_secs(60 + rng.below(180) as u64);
        while Instant::now() < expires {
            let path = format!("/api/v1/events?queue_id={queue}&last_event_id={last}");
            let r = tokio::select! {
                r = client.send(get(&path, &user.auth), POLL_TIMEOUT) => r,
                _ = tokio::time::sleep_until(end.into()) => return,
            };
            if let Ok(v) = &r
                && let Some(events) = v["events"].as_array()
            {
                for e in events {
                    last = last.max(e["id"].as_i64().unwrap_or(last));
                }
            }
            let failed = r.is_err();
            shared.stats.record("poll", &r);
            if failed {
                break;
            }
        }
        if Instant::now() >= end {
            return;
        }
        if rng.below(5) != 0 {
            let r = client
                .send(
                    request(
                        Method::DELETE,
                        &format!("/api/v1/events?queue_id={queue}"),
                        ("authorization", &user.auth),
                        None,
                        Bytes::new(),
                    ),
                    TIMEOUT,
                )
                .await;
            shared.stats.record("queue-delete", &r);
        }
    }
}
