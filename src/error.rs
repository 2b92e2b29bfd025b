//! The one error type of the domain and storage layers.
//!
//! An [`Error`] carries a kind, a message that is safe to show to API users, and an optional
//! detail that only goes to the log. It knows nothing about HTTP: each API has exactly one
//! exhaustive mapping from [`ErrorKind`] to its wire format (`zulip::envelope` for the chat API),
//! so adding a kind forces a decision there.

use std::borrow::Cow;
use std::time::Duration;

/// Why a password or development login failed (Zulip's `fetch_api_key` family), or an API
/// key given outside Basic authentication (incoming webhooks' `api_key` parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoginFailure {
    /// Unknown user or wrong password.
    BadCredentials,
    UserDeactivated,
    /// No user holds the key, or it is not one's format.
    InvalidApiKey,
}

/// A setting that still names a user group, which keeps the group from being deactivated
/// (plain data; each API renders it, the chat API as `CANNOT_DEACTIVATE_GROUP_IN_USE`'s
/// `objections`). `settings` are the settings' API names.
#[derive(Clone, Debug, PartialEq)]
pub enum GroupObjection {
    /// Organization settings.
    Realm { settings: Vec<&'static str> },
    /// The settings of an active channel.
    Channel {
        channel_id: i64,
        settings: Vec<&'static str>,
    },
    /// The permission settings of another active group.
    Group {
        group_id: i64,
        settings: Vec<&'static str>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum ErrorKind {
    /// A required parameter is absent.
    MissingParam(String),
    /// Two aliases of one parameter were both given.
    ConfusingParams(String, String),
    /// Invalid input, or an operation the caller may not do that has no more specific kind.
    BadRequest,
    /// Invalid input with a protocol-specific code and extra fields (e.g. `STREAM_DOES_NOT_EXIST`).
    Coded {
        code: &'static str,
        data: Vec<(&'static str, serde_json::Value)>,
    },
    /// A user group cannot be deactivated while these settings name it.
    GroupInUse(Vec<GroupObjection>),
    /// Missing or invalid credentials on an authenticated endpoint.
    Unauthorized,
    /// A login attempt (password or development login) failed.
    LoginFailed(LoginFailure),
    /// An operation restricted to organization administrators or owners.
    NotAdmin,
    /// The caller is authenticated but may not do this.
    Forbidden,
    /// A session-authenticated request without the session's CSRF token (the reason, e.g.
    /// "CSRF token missing.", is the message's tail).
    CsrfFailed { reason: &'static str },
    /// The addressed resource does not exist (or is not visible to the caller).
    NotFound,
    /// The request conflicts with existing state (e.g. a duplicate name).
    Conflict { code: &'static str },
    /// The request asked for a change that was already in place (nothing was changed).
    NotModified,
    /// The request was understood but its values cannot be accepted (e.g. a password
    /// confirmation that does not match).
    NotAcceptable,
    /// The request body is larger than the configured limit.
    PayloadTooLarge,
    /// The path exists but not for this method.
    MethodNotAllowed(Vec<&'static str>),
    /// Too many attempts; try again after the given time.
    RateLimited { retry_after: Duration },
    /// The request did not arrive in time (its body stalled).
    Timeout,
    /// The server is at a capacity limit (connections); try again later.
    Unavailable,
    /// A service this server relies on (Zulip's push notification service) could not be
    /// reached or failed; try again later.
    BadGateway,
    /// A bug or an environment failure; the user sees a generic message.
    Internal,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub kind: ErrorKind,
    pub msg: Cow<'static, str>,
    /// Log-only detail; never sent to clients.
    pub detail: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, msg: impl Into<Cow<'static, str>>) -> Error {
        Error {
            kind,
            msg: msg.into(),
            detail: None,
        }
    }

    pub fn bad_request(msg: impl Into<Cow<'static, str>>) -> Error {
        Error::new(ErrorKind::BadRequest, msg)
    }

    pub fn missing(name: &str) -> Error {
        Error::new(
            ErrorKind::MissingParam(name.to_string()),
            format!("Missing '{name}' argument"),
        )
    }

    pub fn coded(
        code: &'static str,
        msg: impl Into<Cow<'static, str>>,
        data: Vec<(&'static str, serde_json::Value)>,
    ) -> Error {
        Error::new(ErrorKind::Coded { code, data }, msg)
    }

    pub fn unauthorized(msg: impl Into<Cow<'static, str>>) -> Error {
        Error::new(ErrorKind::Unauthorized, msg)
    }

    pub fn not_admin() -> Error {
        Error::new(ErrorKind::NotAdmin, "Must be an organization administrator")
    }

    pub fn not_owner() -> Error {
        Error::new(ErrorKind::NotAdmin, "Must be an organization owner")
    }

    pub fn forbidden(msg: impl Into<Cow<'static, str>>) -> Error {
        Error::new(ErrorKind::Forbidden, msg)
    }

    pub fn not_found(msg: impl Into<Cow<'static, str>>) -> Error {
        Error::new(ErrorKind::NotFound, msg)
    }

    pub fn internal(detail: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Internal,
            msg: Cow::Borrowed("Internal server error"),
            detail: Some(detail.into()),
        }
    }

    /// Adds a log-only detail.
    /// Whether the caller's input or state caused this (anything but a bug or an environment
    /// failure).
    pub fn is_client_error(&self) -> bool {
        !matches!(self.kind, ErrorKind::Internal | ErrorKind::Unavailable)
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> Error {
        self.detail = Some(detail.into());
        self
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.msg)?;
        if let Some(d) = &self.detail {
            write!(f, " ({d})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        Error::internal(format!("database: {e}"))
    }
}

impl From<r2d2::Error> for Error {
    fn from(e: r2d2::Error) -> Error {
        Error::internal(format!("connection pool: {e}"))
    }
}
