//! Zulip's JSON envelope: `{"result","msg",...}` for successes and errors.
//!
//! [`error_response`] is the single, exhaustive mapping from [`ErrorKind`] to Zulip's status
//! codes, `code` strings and extra fields; nothing else in the chat API decides an error's wire
//! form. Internal errors are logged here, once, with their detail; clients get a generic text.

use hyper::StatusCode;
use hyper::header::{HeaderValue, RETRY_AFTER, WWW_AUTHENTICATE};
use serde_json::{Map, Value, json};

use crate::error::{Error, ErrorKind, LoginFailure};
use crate::http::{self, Response};

/// A success body under construction: `result` and `msg` plus the endpoint's fields.
pub struct Success {
    body: Map<String, Value>,
    report_ignored: bool,
    /// A body serialized earlier (see [`Success::prebuilt`]); `body` is then unused.
    prebuilt: Option<bytes::Bytes>,
}

impl Success {
    pub fn new() -> Success {
        let mut body = Map::new();
        body.insert("result".into(), Value::from("success"));
        body.insert("msg".into(), Value::from(""));
        Success {
            body,
            report_ignored: true,
            prebuilt: None,
        }
    }

    /// A success whose whole body was serialized before (by [`Success::into_bytes`]); it never
    /// reports ignored parameters.
    pub fn prebuilt(body: bytes::Bytes) -> Success {
        Success {
            body: Map::new(),
            report_ignored: false,
            prebuilt: Some(body),
        }
    }

    /// The body this success would answer with when no parameter was ignored, for
    /// [`Success::prebuilt`].
    pub fn into_bytes(self) -> bytes::Bytes {
        bytes::Bytes::from(body_bytes(&Value::Object(self.body)))
    }

    pub fn field(mut self, key: &str, value: impl Into<Value>) -> Success {
        self.body.insert(key.to_string(), value.into());
        self
    }

    /// Adds every field of a JSON object.
    pub fn fields(mut self, obj: Map<String, Value>) -> Success {
        self.body.extend(obj);
        self
    }

    /// For endpoints that upstream does not parse with typed parameters (e.g. `GET /users/me`):
    /// they never report `ignored_parameters_unsupported`.
    pub fn without_ignored(mut self) -> Success {
        self.report_ignored = false;
        self
    }

    /// Finishes the response, reporting parameters the endpoint did not read.
    pub fn finish(mut self, ignored: Vec<String>) -> Response {
        if let Some(body) = self.prebuilt {
            return with_json_headers(http::with_body(StatusCode::OK, "application/json", body));
        }
        if self.report_ignored && !ignored.is_empty() {
            self.body.insert(
                "ignored_parameters_unsupported".into(),
                Value::from(ignored),
            );
        }
        json_response(StatusCode::OK, &Value::Object(self.body))
    }
}

impl Default for Success {
    fn default() -> Self {
        Success::new()
    }
}

/// A success body with typed fields, serialized straight to bytes (no intermediate `Value`),
/// for [`Success::prebuilt`].
pub fn success_bytes<T: serde::Serialize>(fields: &T) -> bytes::Bytes {
    #[derive(serde::Serialize)]
    struct Body<'a, T> {
        result: &'static str,
        msg: &'static str,
        #[serde(flatten)]
        fields: &'a T,
    }
    let body = Body {
        result: "success",
        msg: "",
        fields,
    };
    let mut bytes = serde_json::to_vec(&body).expect("JSON bodies serialize");
    bytes.push(b'\n');
    bytes::Bytes::from(bytes)
}

/// A JSON body as every chat response ends it (with a newline).
fn body_bytes(body: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(body).expect("JSON values serialize");
    bytes.push(b'\n');
    bytes
}

fn with_json_headers(mut res: Response) -> Response {
    res.headers_mut().insert(
        "cache-control",
        HeaderValue::from_static("no-cache, no-store, must-revalidate, private, max-age=0"),
    );
    res
}

pub fn json_response(status: StatusCode, body: &Value) -> Response {
    with_json_headers(http::with_body(
        status,
        "application/json",
        body_bytes(body),
    ))
}

fn error_body(msg: &str, code: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("result".into(), Value::from("error"));
    m.insert("msg".into(), Value::from(msg));
    m.insert("code".into(), Value::from(code));
    m
}

/// The Zulip wire form of an error.
/// The 500 answer, without logging (callers log what happened).
pub fn internal_error_response() -> Response {
    let body = json!({"result": "error", "msg": "Internal server error"});
    json_response(StatusCode::INTERNAL_SERVER_ERROR, &body)
}

pub fn error_response(err: &Error) -> Response {
    let msg: &str = &err.msg;
    let (status, body) = match &err.kind {
        ErrorKind::MissingParam(name) => {
            let mut b = error_body(msg, "REQUEST_VARIABLE_MISSING");
            b.insert("var_name".into(), Value::from(name.as_str()));
            (StatusCode::BAD_REQUEST, b)
        }
        ErrorKind::ConfusingParams(a, b) => {
            let mut body = error_body(msg, "REQUEST_CONFUSING_VAR");
            body.insert("var_name1".into(), Value::from(a.as_str()));
            body.insert("var_name2".into(), Value::from(b.as_str()));
            (StatusCode::BAD_REQUEST, body)
        }
        ErrorKind::BadRequest
        | ErrorKind::Forbidden
        | ErrorKind::NotModified
        | ErrorKind::NotAcceptable => (StatusCode::BAD_REQUEST, error_body(msg, "BAD_REQUEST")),
        ErrorKind::Coded { code, data } => {
            let mut b = error_body(msg, code);
            for (k, v) in data {
                b.insert((*k).to_string(), v.clone());
            }
            (StatusCode::BAD_REQUEST, b)
        }
        ErrorKind::GroupInUse(objections) => {
            let mut b = error_body(msg, "CANNOT_DEACTIVATE_GROUP_IN_USE");
            b.insert(
                "objections".into(),
                super::wire::group_objections(objections),
            );
            (StatusCode::BAD_REQUEST, b)
        }
        ErrorKind::Unauthorized => {
            let mut res = json_response(
                StatusCode::UNAUTHORIZED,
                &Value::Object(error_body(msg, "UNAUTHORIZED")),
            );
            res.headers_mut().insert(
                WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"zulip\""),
            );
            return res;
        }
        ErrorKind::LoginFailed(why) => {
            let code = match why {
                LoginFailure::BadCredentials => "AUTHENTICATION_FAILED",
                LoginFailure::UserDeactivated => "USER_DEACTIVATED",
                LoginFailure::InvalidApiKey => "INVALID_API_KEY",
            };
            (StatusCode::UNAUTHORIZED, error_body(msg, code))
        }
        ErrorKind::CsrfFailed { reason } => {
            let mut b = error_body(msg, "CSRF_FAILED");
            b.insert("reason".into(), Value::from(*reason));
            (StatusCode::FORBIDDEN, b)
        }
        ErrorKind::NotAdmin => (
            StatusCode::BAD_REQUEST,
            error_body(msg, "UNAUTHORIZED_PRINCIPAL"),
        ),
        ErrorKind::NotFound => (StatusCode::NOT_FOUND, error_body(msg, "BAD_REQUEST")),
        ErrorKind::Conflict { code } => (StatusCode::CONFLICT, error_body(msg, code)),
        ErrorKind::PayloadTooLarge => (
            StatusCode::PAYLOAD_TOO_LARGE,
            error_body(msg, "BAD_REQUEST"),
        ),
        ErrorKind::MethodNotAllowed(methods) => {
            let body = json!({
                "result": "error",
                "msg": "Method Not Allowed",
                "allowed_methods": methods,
            });
            let mut res = json_response(StatusCode::METHOD_NOT_ALLOWED, &body);
            if let Ok(v) = HeaderValue::from_str(&methods.join(", ")) {
                res.headers_mut().insert("allow", v);
            }
            return res;
        }
        ErrorKind::RateLimited { retry_after } => {
            let secs = retry_after.as_secs_f64();
            let mut b = error_body(msg, "RATE_LIMIT_HIT");
            b.insert("retry-after".into(), json!(secs));
            let mut res = json_response(StatusCode::TOO_MANY_REQUESTS, &Value::Object(b));
            if let Ok(v) = HeaderValue::from_str(&(secs.ceil() as u64).to_string()) {
                res.headers_mut().insert(RETRY_AFTER, v);
            }
            return res;
        }
        ErrorKind::Timeout => (StatusCode::REQUEST_TIMEOUT, error_body(msg, "BAD_REQUEST")),
        ErrorKind::BadGateway => (StatusCode::BAD_GATEWAY, error_body(msg, "BAD_REQUEST")),
        ErrorKind::Unavailable => {
            let mut res = json_response(
                StatusCode::SERVICE_UNAVAILABLE,
                &Value::Object(error_body(msg, "BAD_REQUEST")),
            );
            res.headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from_static("5"));
            return res;
        }
        ErrorKind::Internal => {
            tracing::error!(
                detail = err.detail.as_deref().unwrap_or(""),
                "internal error"
            );
            return internal_error_response();
        }
    };
    json_response(status, &Value::Object(body))
}
