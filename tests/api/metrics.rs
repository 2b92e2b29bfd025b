//! The operations listener: `GET /metrics` in Prometheus text format (requests per route name
//! and status class, latency histograms, queues and waiting polls, write batches, backlogs,
//! memory) and `GET /health`; off unless `[metrics] enabled`.

use std::time::Duration;

use hyper::Method;

use crate::support::{Reply, TestServer, body, org_with, raw};
use outpost::ids::UserId;

/// A request to the metrics listener.
async fn scrape(srv: &TestServer, method: Method, path: &str) -> Reply {
    let addr = srv.metrics_addr.expect("metrics enabled");
    let req = raw(method, &format!("http://{addr}{path}"))
        .body(body(""))
        .unwrap();
    srv.send(req).await
}

fn text(r: &Reply) -> String {
    String::from_utf8(r.raw.to_vec()).unwrap()
}

/// The value of the sample line that starts with `series ` (labels included).
fn sample(page: &str, series: &str) -> Option<f64> {
    page.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map(|v| v.parse().unwrap())
}

#[tokio::test]
async fn the_metrics_listener_is_off_by_default() {
    let srv = TestServer::start().await;
    assert!(srv.metrics_addr.is_none());
}

#[tokio::test]
async fn metrics_count_requests_by_route_queues_polls_and_writes() {
    let o = org_with(|c| {
        c.metrics.enabled = true;
        c.metrics.listen = "127.0.0.1:0".parse().unwrap();
    })
    .await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    o.send_channel(&o.alice, "general", "t", "one").await;
    o.send_channel(&o.alice, "general", "t", "two").await;
    let (queue, _) = o.register(&o.bob, &[]).await;
    // Not routed: an unknown path and bad credentials.
    o.srv.get("/api/v1/no/such/thing", &o.bob, &[]).await;
    let mut stranger = o.bob.clone();
    stranger.api_key = "wrong".into();
    o.srv.get("/api/v1/users/me", &stranger, &[]).await;
    // An acknowledgement of an event that never was: 400 on its route.
    let (addr, bob, q) = (o.srv.addr, o.bob.clone(), queue.clone());
    let poll = tokio::spawn(async move {
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build_http::<http_body_util::Full<bytes::Bytes>>();
        let req = hyper::Request::get(format!(
            "http://{addr}/api/v1/events?queue_id={q}&last_event_id=100000"
        ))
        .header(
            "authorization",
            crate::support::basic(&bob.email, &bob.api_key),
        )
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .unwrap();
        let _ = client.request(req).await;
    });
    poll.await.unwrap();
    // A parked long-poll.
    let waiting = |srv: &TestServer| srv.state.queues.parked_of_user(UserId(o.bob.id));
    let parked_poll = tokio::spawn({
        let (addr, bob, q) = (o.srv.addr, o.bob.clone(), queue.clone());
        async move {
            let client =
                hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                    .build_http::<http_body_util::Full<bytes::Bytes>>();
            let req = hyper::Request::get(format!(
                "http://{addr}/api/v1/events?queue_id={q}&last_event_id=-1"
            ))
            .header(
                "authorization",
                crate::support::basic(&bob.email, &bob.api_key),
            )
            .body(http_body_util::Full::new(bytes::Bytes::new()))
            .unwrap();
            let _ = client.request(req).await;
        }
    });
    for _ in 0..250 {
        if waiting(&o.srv) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let r = scrape(&o.srv, Method::GET, "/metrics").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.headers["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let page = text(&r);
    let sent = sample(
        &page,
        "outpost_http_requests_total{api=\"chat\",route=\"SendMessage\",status=\"2xx\"}",
    );
    assert_eq!(sent, Some(2.0), "{page}");
    let unrouted = sample(
        &page,
        "outpost_http_requests_total{api=\"chat\",route=\"unrouted\",status=\"4xx\"}",
    );
    assert_eq!(unrouted, Some(2.0), "{page}");
    // The out-of-range acknowledgement answered 400 on its route.
    assert_eq!(
        sample(
            &page,
            "outpost_http_requests_total{api=\"chat\",route=\"GetEvents\",status=\"4xx\"}"
        ),
        Some(1.0),
        "{page}"
    );
    assert_eq!(
        sample(
            &page,
            "outpost_http_request_duration_seconds_count{api=\"chat\",route=\"SendMessage\"}"
        ),
        Some(2.0)
    );
    assert!(page.contains(
        "outpost_http_request_duration_seconds_bucket{api=\"chat\",route=\"SendMessage\",le=\"+Inf\"} 2\n"
    ));
    // Labels come from the route table: no raw path, no credentials.
    assert!(!page.contains("/api/v1"), "{page}");
    assert!(!page.contains(&o.bob.api_key));
    assert_eq!(sample(&page, "outpost_event_queues"), Some(1.0), "{page}");
    assert_eq!(
        sample(&page, "outpost_event_queue_polls_waiting"),
        Some(1.0),
        "{page}"
    );
    assert!(sample(&page, "outpost_db_write_batches_total").unwrap() >= 1.0);
    assert!(sample(&page, "outpost_db_write_jobs_total").unwrap() >= 2.0);
    assert!(sample(&page, "outpost_db_write_wait_seconds_count").unwrap() >= 2.0);
    assert_eq!(sample(&page, "outpost_db_write_queue_depth"), Some(0.0));
    assert_eq!(sample(&page, "outpost_scheduled_pending"), Some(0.0));
    assert!(sample(&page, "outpost_resident_memory_bytes").unwrap() > 1e6);
    assert!(sample(&page, "outpost_connections_active").unwrap() >= 1.0);
    assert!(page.contains("# TYPE outpost_http_request_duration_seconds histogram\n"));
    parked_poll.abort();

    let r = scrape(&o.srv, Method::GET, "/health").await;
    assert_eq!((r.status, text(&r).as_str()), (200, "ok\n"));
    let r = scrape(&o.srv, Method::GET, "/api/v1/users/me").await;
    assert_eq!(r.status, 404);
    let r = scrape(&o.srv, Method::POST, "/metrics").await;
    assert_eq!(r.status, 405);
    assert_eq!(r.headers["allow"], "GET, HEAD");
}
