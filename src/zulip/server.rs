//! Server information and API-key endpoints: `server_settings`, password and development logins,
//! key regeneration.

use serde_json::Value;

use crate::domain::{realm_settings, users};
use crate::error::{Error, Result};
use crate::model::User;
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::Params;
use super::wire;

/// The Zulip version and API feature level Outpost implements.
pub const ZULIP_VERSION: &str = crate::domain::ZULIP_VERSION;
pub const ZULIP_MERGE_BASE: &str = "11.0-outpost";
pub const FEATURE_LEVEL: i64 = 382;

/// Where `server_emoji_data_url` points (upstream's path for its emoji table).
pub const EMOJI_DATA_PATH: &str = "/static/generated/emoji/emoji_api.json";

/// Where the organization's icon is served (unauthenticated): Outpost's default icon.
pub const REALM_ICON_PATH: &str = "/static/images/logo/realm-icon.png";

/// The default organization icon, a 128×128 PNG made for Outpost.
const REALM_ICON_PNG: &[u8] = include_bytes!("static/realm-icon.png");

/// The absolute URL of the organization's icon.
pub fn realm_icon_url(state: &ChatState) -> String {
    format!("{}{REALM_ICON_PATH}", state.config.chat.external_url)
}

/// `GET`/`HEAD` of [`REALM_ICON_PATH`]: the icon, cacheable by anyone for a day.
pub fn realm_icon() -> crate::http::Response {
    let mut res = crate::http::with_body(hyper::StatusCode::OK, "image/png", REALM_ICON_PNG);
    res.headers_mut().insert(
        hyper::header::CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("public, max-age=86400"),
    );
    res
}

/// # `GET /api/v1/server_settings`
///
/// Unauthenticated. What a client needs before logging in: versions, realm name and URL, and
/// which authentication methods exist. `is_incompatible` is true only for the `ZulipInvalid`
/// client, as upstream.
pub async fn get_server_settings(state: &ChatState, user_agent: Option<&str>) -> Result<Success> {
    let cfg = &state.config.chat;
    let configured = cfg.realm_name.clone();
    let (realm_name, realm_description) = state
        .db
        .read(move |c| realm_settings::name_and_description(c, &configured))
        .await?;
    let incompatible = user_agent.is_some_and(|ua| ua.starts_with("ZulipInvalid"));
    Ok(Success::new()
        .field(
            "authentication_methods",
            wire::authentication_methods(cfg.development),
        )
        .field("external_authentication_methods", Vec::<Value>::new())
        .field("zulip_version", ZULIP_VERSION)
        .field("zulip_merge_base", ZULIP_MERGE_BASE)
        .field("zulip_feature_level", FEATURE_LEVEL)
        .field(
            "push_notifications_enabled",
            crate::domain::push::configured(state),
        )
        .field("is_incompatible", incompatible)
        .field("email_auth_enabled", true)
        .field("require_email_format_usernames", true)
        .field("realm_url", cfg.external_url.as_str())
        .field("realm_uri", cfg.external_url.as_str())
        .field("realm_name", realm_name)
        .field("realm_icon", realm_icon_url(state))
        .field("realm_description", realm_description)
        .field("realm_web_public_access_enabled", false))
}

/// The key and the login (delivery) email that goes with it in Basic auth, as upstream
/// answers; the API email may be a placeholder that is no login.
fn api_key_reply(user: &User) -> Success {
    Success::new()
        .field("api_key", user.api_key.0.as_str())
        .field("email", user.email.as_str())
        .field("user_id", user.id.0)
}

/// # `POST /api/v1/fetch_api_key`
///
/// Unauthenticated. Exchanges `username` (an email) and `password` for the API key. Failures
/// are 401 `AUTHENTICATION_FAILED` / `USER_DEACTIVATED`; five failures in 30 minutes for one
/// username answer 429 until the window passes.
pub async fn fetch_api_key(state: &ChatState, p: &mut Params) -> Result<Success> {
    let username = p.required_str("username")?;
    let password = p.required_str("password")?;
    if !users::is_valid_email(username.trim()) {
        return Err(Error::bad_request("Enter a valid email address."));
    }
    let user = users::login_with_password(state, &username, password).await?;
    Ok(api_key_reply(&user))
}

/// # `POST /api/v1/dev_fetch_api_key`
///
/// Development servers only (`[chat] development = true`): the API key of any active user by
/// email, without a password. Elsewhere it answers as a Zulip production server does.
pub async fn dev_fetch_api_key(state: &ChatState, p: &mut Params) -> Result<Success> {
    if !state.config.chat.development {
        return Err(Error::bad_request("Endpoint not available in production."));
    }
    let username = p.required_str("username")?;
    let user = users::login_for_development(state, &username).await?;
    Ok(api_key_reply(&user))
}

/// # `POST /api/v1/users/me/api_key/regenerate`
///
/// Replaces the caller's API key; the old one stops working at once.
pub async fn regenerate_api_key(state: &ChatState, caller: &User) -> Result<Success> {
    let key = users::regenerate_api_key(state, caller.id).await?;
    Ok(Success::new().field("api_key", key))
}

/// The emoji table as upstream serves it, `{"code_to_names": {code: [canonical, aliases...]}}`,
/// with its entity tag.
fn emoji_data_body() -> &'static (bytes::Bytes, String) {
    static BODY: std::sync::OnceLock<(bytes::Bytes, String)> = std::sync::OnceLock::new();
    BODY.get_or_init(|| {
        let table = wire::emoji_data(
            crate::emoji::all()
                .iter()
                .map(|e| (e.code, e.names.as_slice())),
        );
        let body = serde_json::to_vec(&table).expect("JSON values serialize");
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(&body);
        let etag = format!("\"{}\"", hex_prefix(&digest[..16]));
        (bytes::Bytes::from(body), etag)
    })
}

fn hex_prefix(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// # `GET /static/generated/emoji/emoji_api.json`
///
/// Unauthenticated and cacheable (the table only changes with the executable): public
/// `Cache-Control` for a day, an `ETag`, and `304 Not Modified` for a matching
/// `If-None-Match`.
pub fn emoji_data(req: &crate::http::Request) -> crate::http::Response {
    use hyper::header::{CACHE_CONTROL, ETAG, HeaderValue};
    let (body, etag) = emoji_data_body();
    let fresh = req
        .header("if-none-match")
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut res = if fresh {
        crate::http::empty(hyper::StatusCode::NOT_MODIFIED)
    } else {
        crate::http::with_body(hyper::StatusCode::OK, "application/json", body.clone())
    };
    let h = res.headers_mut();
    h.insert(
        CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=86400"),
    );
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(ETAG, v);
    }
    h.insert(
        hyper::header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    res
}
