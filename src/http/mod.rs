//! HTTP plumbing shared by both APIs: the request and response types, body builders, the
//! server loop ([`server`]) and path/method resolution for route tables ([`route`]). Knows nothing about Zulip or Dependency-Track semantics.

pub mod client;
pub mod limits;
pub mod multipart;
pub mod rate_limit;
pub mod route;
pub mod server;
pub mod tls;

use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::Full;
use hyper::StatusCode;
use hyper::header::{CONTENT_TYPE, HeaderValue};

/// A request with its body already read.
pub struct Request {
    pub parts: hyper::http::request::Parts,
    pub body: Bytes,
    /// Per-listener request number, also sent back as `X-Request-Id`.
    pub id: u64,
    pub peer: SocketAddr,
}

impl Request {
    pub fn method(&self) -> &hyper::Method {
        &self.parts.method
    }

    pub fn path(&self) -> &str {
        self.parts.uri.path()
    }

    pub fn query(&self) -> &str {
        self.parts.uri.query().unwrap_or("")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.parts.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

pub type Response = hyper::Response<Full<Bytes>>;

/// A response with a body and a content type.
pub fn with_body(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response {
    let mut res = hyper::Response::new(Full::new(body.into()));
    *res.status_mut() = status;
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    res
}

/// A response without a body.
pub fn empty(status: StatusCode) -> Response {
    let mut res = hyper::Response::new(Full::new(Bytes::new()));
    *res.status_mut() = status;
    res
}
