//! Transport conventions every chat endpoint follows: envelope, status codes, parameter rules,
//! method handling, body limit, panics.

use std::sync::Arc;

use hyper::Method;
use hyper::http::request::Parts;
use serde_json::json;

use outpost::http::server::{Admission, Api, BoxFuture, serve};
use outpost::http::{Request, Response};
use outpost::listeners::chat::ChatListener;
use outpost::model::Role;
use outpost::web::assets::Assets;

use crate::support::{TestServer, basic, body, raw, test_limits};

#[tokio::test]
async fn unknown_api_path_is_a_json_404() {
    let srv = TestServer::start().await;
    let r = srv
        .call(Method::GET, "/api/v1/no/such/thing", None, &[])
        .await;
    r.assert_error(404, "BAD_REQUEST");
    assert_eq!(
        r.body["msg"],
        "Endpoint not found: GET /api/v1/no/such/thing"
    );
    let r = srv.call(Method::GET, "/elsewhere", None, &[]).await;
    r.assert_error(404, "BAD_REQUEST");
}

#[tokio::test]
async fn wrong_method_is_405_with_allowed_methods() {
    let srv = TestServer::start().await;
    let r = srv.call(Method::PUT, "/api/v1/users", None, &[]).await;
    assert_eq!(r.status, 405);
    assert_eq!(
        r.body,
        json!({"result": "error", "msg": "Method Not Allowed", "allowed_methods": ["GET", "HEAD", "POST"]})
    );
    let r = srv.call(Method::OPTIONS, "/api/v1/users", None, &[]).await;
    assert_eq!(r.status, 204);
    assert_eq!(r.headers["allow"], "GET, HEAD, POST");
}

#[tokio::test]
async fn head_is_served_by_get_without_a_body() {
    let srv = TestServer::start().await;
    let r = srv
        .call(Method::HEAD, "/api/v1/server_settings", None, &[])
        .await;
    assert_eq!(r.status, 200);
    assert!(r.raw.is_empty());
}

#[tokio::test]
async fn unknown_parameters_are_reported_sorted_on_success_only() {
    let srv = TestServer::start().await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    let r = srv
        .get(
            "/api/v1/users",
            &me,
            &[("zeta", "1"), ("client_gravatar", "false"), ("alpha", "2")],
        )
        .await;
    let b = r.assert_success("GET /users");
    assert_eq!(
        b["ignored_parameters_unsupported"],
        json!(["alpha", "zeta"])
    );
    // Errors never carry it.
    let r = srv
        .get(
            "/api/v1/users",
            &me,
            &[("zeta", "1"), ("client_gravatar", "yes")],
        )
        .await;
    let b = r.assert_error(400, "BAD_REQUEST");
    assert_eq!(b["msg"], "client_gravatar is not valid JSON");
    assert!(b.get("ignored_parameters_unsupported").is_none());
}

#[tokio::test]
async fn json_parameters_are_strict() {
    let srv = TestServer::start().await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    for (value, msg) in [
        ("1", "client_gravatar is not a boolean"),
        ("True", "client_gravatar is not valid JSON"),
        ("\"true\"", "client_gravatar is not a boolean"),
    ] {
        let r = srv
            .get("/api/v1/users", &me, &[("client_gravatar", value)])
            .await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    }
}

#[tokio::test]
async fn parameters_come_from_query_and_body_for_every_method() {
    let srv = TestServer::start().await;
    let admin = srv
        .user("admin@example.com", "Ada Admin", Role::Administrator)
        .await;
    let bob = srv.user("bob@example.com", "Bob B", Role::Member).await;
    // PATCH with the parameter in the query string.
    let req = raw(
        Method::PATCH,
        &format!("/api/v1/users/{}?full_name=Robert%20B", bob.id),
    )
    .header("authorization", basic(&admin.email, &admin.api_key))
    .body(body(""))
    .unwrap();
    srv.send(req).await.assert_success("PATCH /users/{user_id}");
    // GET with a parameter in the body: not read (as upstream), so no effect.
    let r = srv
        .get(&format!("/api/v1/users/{}", bob.id), &admin, &[])
        .await;
    assert_eq!(r.body["user"]["full_name"], "Robert B");
}

#[tokio::test]
async fn repeated_parameters_are_rejected() {
    let srv = TestServer::start().await;
    let admin = srv
        .user("admin@example.com", "Ada Admin", Role::Administrator)
        .await;
    let bob = srv.user("bob@example.com", "Bob B", Role::Member).await;
    let r = srv
        .patch(
            &format!("/api/v1/users/{}", bob.id),
            &admin,
            &[("full_name", "One Name"), ("full_name", "Two Name")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Parameter 'full_name' was given more than once"
    );
    let r = srv
        .get(&format!("/api/v1/users/{}", bob.id), &admin, &[])
        .await;
    assert_eq!(r.body["user"]["full_name"], "Bob B");
}

#[tokio::test]
async fn non_utf8_body_is_a_clear_error() {
    let srv = TestServer::start().await;
    let admin = srv
        .user("admin@example.com", "Ada Admin", Role::Administrator)
        .await;
    let req = raw(Method::POST, "/api/v1/users/me/status")
        .header("authorization", basic(&admin.email, &admin.api_key))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body(&b"status_text=%FF%FE"[..]))
        .unwrap();
    let r = srv.send(req).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Request parameters are not valid UTF-8"
    );
}

#[tokio::test]
async fn oversized_bodies_get_413_in_zulip_format() {
    let srv = TestServer::start_with(|c| c.limits.max_body_bytes = 2048).await;
    let me = srv.user("a@example.com", "Alice A", Role::Member).await;
    let big = format!("status_text={}", "x".repeat(4096));
    let req = raw(Method::POST, "/api/v1/users/me/status")
        .header("authorization", basic(&me.email, &me.api_key))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body(big))
        .unwrap();
    let r = srv.send(req).await;
    r.assert_error(413, "BAD_REQUEST");
    // Nothing changed.
    let r = srv
        .get(&format!("/api/v1/users/{}/status", me.id), &me, &[])
        .await;
    assert_eq!(r.body["status"], json!({}));
}

#[tokio::test]
async fn responses_are_json_with_request_ids() {
    let srv = TestServer::start().await;
    let r = srv
        .call(Method::GET, "/api/v1/server_settings", None, &[])
        .await;
    assert_eq!(r.headers["content-type"], "application/json");
    let first: u64 = r.headers["x-request-id"].to_str().unwrap().parse().unwrap();
    let r = srv
        .call(Method::GET, "/api/v1/server_settings", None, &[])
        .await;
    let second: u64 = r.headers["x-request-id"].to_str().unwrap().parse().unwrap();
    assert!(second > first);
}

/// Wraps the chat listener and panics on one path, to prove panics are contained.
struct Panicky(Arc<ChatListener>);

impl Api for Panicky {
    type Ticket = Option<<ChatListener as Api>::Ticket>;

    async fn admit(
        &self,
        head: &Parts,
        peer: std::net::SocketAddr,
    ) -> Result<Admission<Self::Ticket>, Response> {
        if head.uri.path() == "/api/v1/panic" {
            return Ok(Admission {
                ticket: None,
                body_limit: 0,
                upload: false,
            });
        }
        let a = self.0.admit(head, peer).await?;
        Ok(Admission {
            ticket: Some(a.ticket),
            body_limit: a.body_limit,
            upload: a.upload,
        })
    }
    fn handle(self: Arc<Self>, ticket: Self::Ticket, req: Request) -> BoxFuture<Response> {
        match ticket {
            None => Box::pin(async { panic!("deliberate test panic") }),
            Some(t) => Arc::clone(&self.0).handle(t, req),
        }
    }
    fn payload_too_large(&self, limit: usize) -> Response {
        self.0.payload_too_large(limit)
    }
    fn body_failed(&self, timed_out: bool) -> Response {
        self.0.body_failed(timed_out)
    }
    fn overloaded(&self) -> Response {
        self.0.overloaded()
    }
    fn internal_error(&self) -> Response {
        self.0.internal_error()
    }
}

#[tokio::test]
async fn a_panicking_handler_gets_a_500_and_the_server_keeps_serving() {
    let srv = TestServer::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let api = Arc::new(Panicky(Arc::new(ChatListener::new(
        Arc::clone(&srv.state),
        Assets::load(),
    ))));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(serve(listener, api, test_limits(), async {
        let _ = stopped.await;
    }));
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<http_body_util::Full<bytes::Bytes>>();
    let res = client
        .get(format!("http://{addr}/api/v1/panic").parse().unwrap())
        .await
        .unwrap();
    assert_eq!(res.status(), 500);
    use http_body_util::BodyExt as _;
    let b = res.into_body().collect().await.unwrap().to_bytes();
    let v: serde_json::Value = serde_json::from_slice(&b).unwrap();
    assert_eq!(
        v,
        json!({"result": "error", "msg": "Internal server error"})
    );
    let res = client
        .get(
            format!("http://{addr}/api/v1/server_settings")
                .parse()
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    stop.send(()).unwrap();
    task.await.unwrap();
}

#[tokio::test]
async fn shutdown_lets_in_flight_requests_finish() {
    let srv = TestServer::start().await;
    srv.user_with("a@example.com", "Alice A", Role::Member, |u| {
        u.password = Some("a long password".into())
    })
    .await;
    let addr = srv.addr;
    // A password login spends a while hashing on the CPU pool: shut down while it runs.
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<http_body_util::Full<bytes::Bytes>>();
    let req = hyper::Request::post(format!("http://{addr}/api/v1/fetch_api_key"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body("username=a%40example.com&password=wrong+password"))
        .unwrap();
    let in_flight = tokio::spawn(async move { client.request(req).await.map(|r| r.status()) });
    // Real time: the login must be under way (hashing) when the stop comes.
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    srv.shutdown().await;
    let status = in_flight
        .await
        .unwrap()
        .expect("the in-flight request was answered");
    assert_eq!(status, 401);
    // After shutdown nothing listens any more.
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}
