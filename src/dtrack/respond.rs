//! Dependency-Track's answers: the exhaustive mapping of [`ErrorKind`] to upstream's statuses
//! and plain-text bodies ([`respond`]), validation arrays, `application/problem+json`, and the
//! headers every response carries.
//!
//! Nothing else in the Dependency-Track API decides an error's wire form. Internal errors are
//! logged here, once. Must not touch Zulip code.

use hyper::StatusCode;
use hyper::header::HeaderValue;
use serde_json::{Value, json};

use crate::error::{Error, ErrorKind};
use crate::http::{self, Response};

/// Upstream's version, reported in `X-Powered-By` and `/version`.
pub const DT_VERSION: &str = "4.14.2";

/// A handler's failure: a domain error, or one of upstream's structured 400 bodies.
#[derive(Debug)]
pub enum Fail {
    Error(Error),
    /// Bean-validation errors: `[{"message","messageTemplate","path","invalidValue"}]`.
    Validation(Vec<Violation>),
    /// Query-parameter checks: `[{"input","message"}]`.
    Checks(Vec<(String, &'static str)>),
    /// `application/problem+json` with status 400.
    Problem {
        title: &'static str,
        detail: String,
    },
    /// `application/problem+json` with status 400 and this complete body.
    Raw(Value),
    /// `application/problem+json` with status 404, as upstream's `NoSuchElementException`
    /// mapper answers (title `Resource does not exist`, this detail).
    Missing(String),
}

impl Fail {
    /// A domain error, with "not found" in upstream's problem form (resources added in 4.12,
    /// such as tags, answer so).
    pub fn missing_as_problem(e: Error) -> Fail {
        match e.kind {
            ErrorKind::NotFound => Fail::Missing(e.msg.into_owned()),
            _ => Fail::Error(e),
        }
    }
}

#[derive(Debug)]
pub struct Violation {
    pub message: String,
    pub template: String,
    pub path: String,
    pub invalid: Value,
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Error(e)
    }
}

pub type Out = Result<Response, Fail>;

/// A plain-text body in the endpoint's declared media type, or no body for an empty message.
fn text(status: StatusCode, produces: &'static str, msg: &str) -> Response {
    if msg.is_empty() {
        http::empty(status)
    } else {
        http::with_body(status, produces, msg.to_string())
    }
}

/// THE mapping from [`ErrorKind`] to upstream's answers. `produces` is the endpoint's media type
/// (upstream sends plain-text errors under it).
pub fn respond(err: &Error, produces: &'static str) -> Response {
    let msg: &str = &err.msg;
    match &err.kind {
        ErrorKind::MissingParam(_)
        | ErrorKind::ConfusingParams(..)
        | ErrorKind::BadRequest
        | ErrorKind::Coded { .. }
        | ErrorKind::GroupInUse(_) => text(StatusCode::BAD_REQUEST, produces, msg),
        ErrorKind::Unauthorized | ErrorKind::LoginFailed(_) => {
            text(StatusCode::UNAUTHORIZED, produces, msg)
        }
        ErrorKind::NotAdmin | ErrorKind::Forbidden | ErrorKind::CsrfFailed { .. } => {
            text(StatusCode::FORBIDDEN, produces, msg)
        }
        ErrorKind::NotFound => text(StatusCode::NOT_FOUND, produces, msg),
        ErrorKind::Conflict { .. } => text(StatusCode::CONFLICT, produces, msg),
        ErrorKind::NotModified => http::empty(StatusCode::NOT_MODIFIED),
        ErrorKind::NotAcceptable => text(StatusCode::NOT_ACCEPTABLE, produces, msg),
        ErrorKind::PayloadTooLarge => text(StatusCode::PAYLOAD_TOO_LARGE, produces, msg),
        ErrorKind::MethodNotAllowed(methods) => {
            let mut res = http::empty(StatusCode::METHOD_NOT_ALLOWED);
            if let Ok(v) = HeaderValue::from_str(&methods.join(",")) {
                res.headers_mut().insert("allow", v);
            }
            res
        }
        ErrorKind::RateLimited { retry_after } => {
            let mut res = text(StatusCode::TOO_MANY_REQUESTS, produces, msg);
            if let Ok(v) = HeaderValue::from_str(&retry_after.as_secs().max(1).to_string()) {
                res.headers_mut().insert("retry-after", v);
            }
            res
        }
        ErrorKind::Timeout => text(StatusCode::REQUEST_TIMEOUT, produces, msg),
        ErrorKind::BadGateway => text(StatusCode::BAD_GATEWAY, produces, msg),
        ErrorKind::Unavailable => {
            let mut res = text(StatusCode::SERVICE_UNAVAILABLE, produces, msg);
            res.headers_mut()
                .insert("retry-after", HeaderValue::from_static("5"));
            res
        }
        ErrorKind::Internal => {
            tracing::error!(
                detail = err.detail.as_deref().unwrap_or(""),
                "internal error"
            );
            internal_error_response()
        }
    }
}

/// Upstream's 500, without logging (callers log what happened).
pub fn internal_error_response() -> Response {
    http::with_body(
        StatusCode::INTERNAL_SERVER_ERROR,
        "text/plain",
        "Uncaught internal server error",
    )
}

/// The wire form of any handler failure.
pub fn fail_response(f: &Fail, produces: &'static str) -> Response {
    match f {
        Fail::Error(e) => respond(e, produces),
        Fail::Validation(v) => {
            let body: Vec<Value> = v
                .iter()
                .map(|v| {
                    json!({
                        "message": v.message,
                        "messageTemplate": v.template,
                        "path": v.path,
                        "invalidValue": v.invalid,
                    })
                })
                .collect();
            json(StatusCode::BAD_REQUEST, &Value::from(body))
        }
        Fail::Checks(c) => {
            let body: Vec<Value> = c
                .iter()
                .map(|(input, message)| json!({"input": input, "message": message}))
                .collect();
            json(StatusCode::BAD_REQUEST, &Value::from(body))
        }
        Fail::Problem { title, detail } => {
            problem(&json!({"status": 400, "title": title, "detail": detail}))
        }
        Fail::Raw(body) => problem(body),
        Fail::Missing(detail) => problem_with(
            StatusCode::NOT_FOUND,
            &json!({"status": 404, "title": "Resource does not exist", "detail": detail}),
        ),
    }
}

fn problem(body: &Value) -> Response {
    problem_with(StatusCode::BAD_REQUEST, body)
}

fn problem_with(status: StatusCode, body: &Value) -> Response {
    let bytes = serde_json::to_vec(body).expect("JSON values serialize");
    http::with_body(status, "application/problem+json", bytes)
}

/// A JSON body.
pub fn json<T: serde::Serialize + ?Sized>(status: StatusCode, body: &T) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => http::with_body(status, "application/json", bytes),
        Err(e) => respond(&Error::internal(format!("serialize: {e}")), "text/plain"),
    }
}

/// A JSON list with upstream's `X-Total-Count` header.
pub fn json_list<T: serde::Serialize + ?Sized>(body: &T, total: i64) -> Response {
    total_count(json(StatusCode::OK, body), total)
}

/// Adds upstream's `X-Total-Count` header to a listing already rendered.
pub fn total_count(mut res: Response, total: i64) -> Response {
    if let Ok(v) = HeaderValue::from_str(&total.to_string()) {
        res.headers_mut().insert("x-total-count", v);
    }
    res
}

/// Adds the headers upstream's filters put on every response, except
/// `Access-Control-Allow-Credentials: true`: next to `Allow-Origin: *` it would invite
/// credentialed cross-site requests, so it is never sent.
pub fn decorate(res: &mut Response) {
    let h = res.headers_mut();
    h.insert(
        "x-powered-by",
        HeaderValue::from_static(concat!("Dependency-Track v", "4.14.2")),
    );
    h.insert(
        "cache-control",
        HeaderValue::from_static("private, max-age=0, must-revalidate, no-cache"),
    );
    h.insert("access-control-allow-origin", HeaderValue::from_static("*"));
    h.insert(
        "access-control-allow-methods",
        HeaderValue::from_static("GET, POST, PUT, DELETE, OPTIONS"),
    );
    h.insert(
        "access-control-allow-headers",
        HeaderValue::from_static(
            "Origin, Content-Type, Authorization, X-Requested-With, Content-Length, Accept, Origin, X-Api-Key, X-Total-Count, *",
        ),
    );
    h.insert(
        "access-control-expose-headers",
        HeaderValue::from_static(
            "Origin, Content-Type, Authorization, X-Requested-With, Content-Length, Accept, Origin, X-Api-Key, X-Total-Count",
        ),
    );
    h.insert("access-control-max-age", HeaderValue::from_static("3600"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_constant_matches_the_header() {
        let mut res = http::empty(StatusCode::OK);
        decorate(&mut res);
        assert_eq!(
            res.headers()["x-powered-by"],
            format!("Dependency-Track v{DT_VERSION}").as_str()
        );
    }

    #[test]
    fn a_wildcard_origin_never_allows_credentials() {
        let mut res = http::empty(StatusCode::OK);
        decorate(&mut res);
        assert_eq!(res.headers()["access-control-allow-origin"], "*");
        assert!(
            !res.headers()
                .contains_key("access-control-allow-credentials")
        );
    }
}
