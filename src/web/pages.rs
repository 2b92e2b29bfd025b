//! The server-rendered HTML of the browser client: the page shell at `/` (the client's
//! `index.html` with its build path and the session's CSRF token), the login form
//! (`GET`/`POST /login`, with a double-submit cookie against login CSRF), development login
//! (`POST /devlogin`, only with `[chat] development = true`) and `POST /logout`. [`document`]
//! is the frame of every server-rendered page (also the invitation signup's), with the
//! security headers every HTML answer carries. Every value is escaped; no inline script or
//! style.

use hyper::header::{CACHE_CONTROL, HeaderValue, LOCATION, SET_COOKIE};
use hyper::{HeaderMap, Method, StatusCode};

use super::WebState;
use crate::domain::{sessions as session_rules, users};
use crate::error::{Error, ErrorKind, LoginFailure, Result};
use crate::http::{self, Request, Response};
use crate::model::User;
use crate::zulip::realtime::register_body;

use super::assets::SHELL;
use super::sessions::{
    self, LOGIN_CSRF_COOKIE, SESSION_COOKIE, cookie, expired_login_csrf_cookie,
    expired_session_cookie, from_cookie, login_csrf_cookie, session_cookie, token_matches,
};

/// The Content-Security-Policy of every HTML answer: only this origin's scripts, styles,
/// connections and form targets; no plugins, no framing, no `<base>`.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/// Longest `next` path a login accepts.
const MAX_NEXT: usize = 2048;

/// How many users the development login lists.
const MAX_DEV_USERS: usize = 500;

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The headers of every HTML answer: the CSP above, no sniffing, no referrer, no framing, no
/// caching.
pub fn security_headers(h: &mut HeaderMap) {
    h.insert(
        "content-security-policy",
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    h.insert("x-frame-options", HeaderValue::from_static("DENY"));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// A server-rendered page: `title` (escaped) as heading, `body` (already HTML) under it,
/// styled by the client build's `pages.css`.
pub fn document(state: &WebState, status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} - {realm}</title>\
         <link rel=\"stylesheet\" href=\"{prefix}/pages.css\"></head>\
         <body><main><h1>{title}</h1>{body}</main></body></html>\n",
        title = escape(title),
        realm = escape(&state.config.chat.realm_name),
        prefix = state.assets.prefix(),
    );
    let mut res = http::with_body(status, "text/html; charset=utf-8", html);
    security_headers(res.headers_mut());
    res
}

fn redirect(status: StatusCode, to: &str) -> Response {
    let mut res = http::empty(status);
    let h = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(to) {
        h.insert(LOCATION, v);
    }
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

fn not_found(state: &WebState) -> Response {
    document(
        state,
        StatusCode::NOT_FOUND,
        "Page not found",
        "<p>There is nothing at this address.</p>",
    )
}

/// A `next` path the login may send the browser to: a path on this origin (one leading `/`,
/// not `//` or `/\`, which browsers read as another host), printable ASCII, bounded.
pub fn safe_next(next: &str) -> Option<&str> {
    let ok = next.starts_with('/')
        && !next.starts_with("//")
        && !next.starts_with("/\\")
        && next.len() <= MAX_NEXT
        && next.bytes().all(|b| b.is_ascii_graphic() && b != b'\\');
    ok.then_some(next)
}

/// The form fields of a urlencoded body (none for any other body).
fn form_fields(req: &Request) -> Vec<(String, String)> {
    let is_form = req
        .header("content-type")
        .is_some_and(|t| t.starts_with("application/x-www-form-urlencoded"));
    if !is_form {
        return Vec::new();
    }
    form_urlencoded::parse(&req.body)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn query_param(req: &Request, name: &str) -> Option<String> {
    form_urlencoded::parse(req.query().as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// The `client_capabilities` the web client registers with (`CLIENT_CAPABILITIES` in
/// `src/web/client/events.js`; a unit test keeps the two alike).
const CLIENT_CAPABILITIES: &[(&str, bool)] = &[
    ("notification_settings_null", true),
    ("bulk_message_deletion", true),
    ("user_avatar_url_field_optional", false),
    ("stream_typing_notifications", true),
    ("user_settings_object", true),
    ("empty_topic_name", true),
    ("linkifier_url_template", true),
    ("user_list_incomplete", false),
    ("include_deactivated_groups", true),
    ("archived_channels", true),
];

/// The parameters of the web client's `POST /json/register` (`register` in
/// `src/web/client/events.js`, which the client still calls when its queue is gone).
fn client_register_form() -> String {
    let caps: Vec<String> = CLIENT_CAPABILITIES
        .iter()
        .map(|(name, on)| format!("\"{name}\":{on}"))
        .collect();
    form_urlencoded::Serializer::new(String::new())
        .append_pair("apply_markdown", "true")
        .append_pair("client_gravatar", "false")
        .append_pair("include_subscribers", "false")
        .append_pair("slim_presence", "true")
        .append_pair("client_capabilities", &format!("{{{}}}", caps.join(",")))
        .finish()
}

/// JSON text made safe inside `<script type="application/json">`: `<`, `>` and `&` (only
/// ever inside JSON strings) become `\u` escapes, so no `</script>` or `<!--` can end or
/// bend the element.
fn script_data(json: &[u8]) -> String {
    let text = String::from_utf8_lossy(json);
    let mut out = String::with_capacity(text.len() + 64);
    for c in text.trim_end().chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

/// # `GET`/`HEAD /`
///
/// With a valid session: the client's page shell, `{{static}}` replaced by this build's
/// static path, `{{entry}}` by the script to load (the bundled client), `{{csrf_token}}` by
/// the session's token and `{{initial_state}}` by the answer `POST /register` gives the
/// client (a new event queue and the initial state), so that the first view starts without
/// that round trip; never cached. Without: 302 to `/login`.
pub async fn home(state: &WebState, req: &Request) -> Result<Response> {
    let Some(session) = from_cookie(state, &req.parts.headers).await? else {
        let mut res = redirect(StatusCode::FOUND, "/login");
        if cookie(&req.parts.headers, SESSION_COOKIE).is_some() {
            res.headers_mut()
                .append(SET_COOKIE, expired_session_cookie(state));
        }
        return Ok(res);
    };
    let shell = state
        .assets
        .text(SHELL)
        .ok_or_else(|| Error::internal("the client has no index.html"))?;
    // Without the embedded state the client registers by itself: slower, not broken. A HEAD
    // gets no body, so it makes no queue.
    let registered = if req.parts.method == Method::HEAD {
        Ok(bytes::Bytes::new())
    } else {
        register_body(state, &session.user, &client_register_form()).await
    };
    let initial = match registered {
        Ok(body) => script_data(&body),
        Err(e) => {
            tracing::warn!(user = %session.user.id, error = %e, "page shell without its register state");
            String::new()
        }
    };
    let html = shell
        .replace("{{entry}}", state.assets.entry())
        .replace("{{static}}", &state.assets.prefix())
        .replace("{{csrf_token}}", &escape(&session.csrf_token))
        .replace("{{initial_state}}", &initial);
    let mut res = http::with_body(StatusCode::OK, "text/html; charset=utf-8", html);
    security_headers(res.headers_mut());
    Ok(res)
}

/// What the login page shows besides the form.
struct LoginView<'a> {
    error: Option<&'a str>,
    username: &'a str,
    next: Option<&'a str>,
}

/// The login page with a login CSRF token (the browser's current one, else a new one, set as
/// the double-submit cookie).
async fn login_page(
    state: &WebState,
    req: &Request,
    status: StatusCode,
    view: LoginView<'_>,
) -> Result<Response> {
    let token = cookie(&req.parts.headers, LOGIN_CSRF_COOKIE)
        .filter(|t| t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_string)
        .unwrap_or_else(session_rules::random_token);
    let hidden = |name: &str, value: &str| {
        format!(
            "<input type=\"hidden\" name=\"{name}\" value=\"{}\">",
            escape(value)
        )
    };
    let mut keep = hidden("csrf_token", &token);
    if let Some(next) = view.next {
        keep.push_str(&hidden("next", next));
    }
    let mut body = String::new();
    if let Some(e) = view.error {
        body.push_str(&format!(
            "<p class=\"error\" id=\"error\" role=\"alert\">{}</p>",
            escape(e)
        ));
    }
    body.push_str(&format!(
        "<form method=\"post\" action=\"/login\" id=\"login\">{keep}\
         <label for=\"username\">Email</label>\
         <input id=\"username\" name=\"username\" type=\"email\" required \
         autocomplete=\"username\" value=\"{}\" autofocus>\
         <label for=\"password\">Password</label>\
         <input id=\"password\" name=\"password\" type=\"password\" required \
         autocomplete=\"current-password\">\
         <button type=\"submit\">Log in</button></form>\
         <p><a href=\"{}\" id=\"forgot-password\">Forgot your password?</a></p>",
        escape(view.username),
        super::accounts::RESET_PATH
    ));
    if state.config.chat.development {
        let (all, _) = users::list(state, false).await?;
        body.push_str(
            "<section aria-labelledby=\"dev-login\"><h2 id=\"dev-login\">Development login</h2>\
             <ul class=\"dev-login\">",
        );
        for u in all
            .iter()
            .filter(|u| u.is_active && !u.is_bot)
            .take(MAX_DEV_USERS)
        {
            body.push_str(&format!(
                "<li><form method=\"post\" action=\"/devlogin\">{keep}{}\
                 <button type=\"submit\">{}</button></form></li>",
                hidden("username", &u.email),
                escape(&u.full_name)
            ));
        }
        body.push_str("</ul></section>");
    }
    // Carries a deep link's `#...` into `next` (the fragment never reaches the server).
    body.push_str(&format!(
        "<script type=\"module\" src=\"{}/login.js\"></script>",
        state.assets.prefix()
    ));
    let title = format!("Log in to {}", state.config.chat.realm_name);
    let mut res = document(state, status, &title, &body);
    res.headers_mut()
        .append(SET_COOKIE, login_csrf_cookie(state, &token));
    Ok(res)
}

/// The answer to a successful login: a new session cookie (the browser's old session ended),
/// 303 to `next` or `/`.
async fn logged_in(
    state: &WebState,
    req: &Request,
    user: &User,
    next: Option<&str>,
) -> Result<Response> {
    if let Some(old) = cookie(&req.parts.headers, SESSION_COOKIE) {
        session_rules::end(state, old).await?;
    }
    let session = session_rules::create(state, user.id, None).await?;
    let mut res = redirect(StatusCode::SEE_OTHER, next.unwrap_or("/"));
    let h = res.headers_mut();
    h.append(SET_COOKIE, session_cookie(state, &session));
    h.append(SET_COOKIE, expired_login_csrf_cookie(state));
    Ok(res)
}

/// Whether a login form's `csrf_token` is the browser's login CSRF cookie.
fn login_form_genuine(req: &Request, fields: &[(String, String)]) -> bool {
    match (
        cookie(&req.parts.headers, LOGIN_CSRF_COOKIE),
        field(fields, "csrf_token"),
    ) {
        (Some(c), Some(f)) => token_matches(c, f),
        _ => false,
    }
}

const FORM_EXPIRED: &str =
    "This login form has expired or did not come from this server. Please try again.";

/// # `GET`/`HEAD`/`POST /login`
///
/// `GET` shows the form (or, with a valid session, goes straight to `next` or `/`). `POST`
/// checks the double-submit token, then the password as `fetch_api_key` does (same rate
/// limits); on success a session cookie and 303 to `next` (same-origin paths only) or `/`;
/// otherwise the form again with the reason, and nothing set.
pub async fn login(state: &WebState, req: &Request) -> Result<Response> {
    if req.method() != Method::POST {
        let next = query_param(req, "next");
        let next = next.as_deref().and_then(safe_next);
        if from_cookie(state, &req.parts.headers).await?.is_some() {
            return Ok(redirect(StatusCode::FOUND, next.unwrap_or("/")));
        }
        let view = LoginView {
            error: None,
            username: "",
            next,
        };
        return login_page(state, req, StatusCode::OK, view).await;
    }
    let fields = form_fields(req);
    let next = field(&fields, "next").and_then(safe_next);
    let username = field(&fields, "username").unwrap_or("").trim();
    let password = field(&fields, "password").unwrap_or("");
    let again = |error| LoginView {
        error: Some(error),
        username,
        next,
    };
    if !login_form_genuine(req, &fields) {
        return login_page(state, req, StatusCode::FORBIDDEN, again(FORM_EXPIRED)).await;
    }
    if username.is_empty() || password.is_empty() {
        let view = again("Enter your email and password.");
        return login_page(state, req, StatusCode::OK, view).await;
    }
    let outcome = users::login_with_password(state, username, password.to_string()).await;
    let (status, message) = match outcome {
        Ok(user) if !user.is_bot => return logged_in(state, req, &user, next).await,
        Ok(_)
        | Err(Error {
            kind: ErrorKind::LoginFailed(LoginFailure::BadCredentials | LoginFailure::InvalidApiKey),
            ..
        }) => (
            StatusCode::OK,
            "Your email or password is incorrect.".to_string(),
        ),
        Err(Error {
            kind: ErrorKind::LoginFailed(LoginFailure::UserDeactivated),
            ..
        }) => (
            StatusCode::OK,
            "Your account has been deactivated.".to_string(),
        ),
        Err(Error {
            kind: ErrorKind::RateLimited { retry_after },
            ..
        }) => (
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "Too many failed login attempts. Try again in {} seconds.",
                retry_after.as_secs().max(1)
            ),
        ),
        Err(e) => return Err(e),
    };
    let view = LoginView {
        error: Some(&message),
        username,
        next,
    };
    login_page(state, req, status, view).await
}

/// # `POST /devlogin`
///
/// Development servers only (`[chat] development = true`; elsewhere 404): logs in as the
/// active human user named by `username`, without a password, as the buttons of the login
/// page do. The form carries the login CSRF token like the password form.
pub async fn dev_login(state: &WebState, req: &Request) -> Result<Response> {
    if !state.config.chat.development {
        return Ok(not_found(state));
    }
    if req.method() != Method::POST {
        let mut res = document(
            state,
            StatusCode::METHOD_NOT_ALLOWED,
            "Method not allowed",
            "<p>Development login takes a form submission.</p>",
        );
        res.headers_mut()
            .insert("allow", HeaderValue::from_static("POST"));
        return Ok(res);
    }
    let fields = form_fields(req);
    let next = field(&fields, "next").and_then(safe_next);
    let username = field(&fields, "username").unwrap_or("").trim();
    let refuse = |status, error| {
        login_page(
            state,
            req,
            status,
            LoginView {
                error: Some(error),
                username: "",
                next,
            },
        )
    };
    if !login_form_genuine(req, &fields) {
        return refuse(StatusCode::FORBIDDEN, FORM_EXPIRED).await;
    }
    match users::login_for_development(state, username).await {
        Ok(user) if !user.is_bot => logged_in(state, req, &user, next).await,
        Ok(_) => refuse(StatusCode::OK, "This user is not registered.").await,
        Err(e) if e.kind == ErrorKind::Internal => Err(e),
        Err(e) => refuse(StatusCode::OK, &e.msg).await,
    }
}

/// # `POST /logout`
///
/// Ends the browser's session when the request carries its CSRF token (form field
/// `csrf_token` or header `X-CSRFToken`), expires the cookie and answers 303 to `/login`. A
/// request with the session's cookie but without its token is refused (403) and changes
/// nothing.
pub async fn logout(state: &WebState, req: &Request) -> Result<Response> {
    if req.method() != Method::POST {
        let mut res = document(
            state,
            StatusCode::METHOD_NOT_ALLOWED,
            "Method not allowed",
            "<p>Log out with the Log out button.</p>",
        );
        res.headers_mut()
            .insert("allow", HeaderValue::from_static("POST"));
        return Ok(res);
    }
    let headers = &req.parts.headers;
    if let Some(session) = from_cookie(state, headers).await? {
        let fields = form_fields(req);
        let given = headers
            .get(sessions::CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .or_else(|| field(&fields, "csrf_token"))
            .unwrap_or("");
        if !token_matches(&session.csrf_token, given.trim()) {
            return Ok(document(
                state,
                StatusCode::FORBIDDEN,
                "Not logged out",
                "<p>This request did not come from this server's page, so you are still \
                 logged in. Use the Log out button of the app.</p>",
            ));
        }
        if let Some(token) = cookie(headers, SESSION_COOKIE) {
            session_rules::end(state, token).await?;
        }
    }
    let mut res = redirect(StatusCode::SEE_OTHER, "/login");
    res.headers_mut()
        .append(SET_COOKIE, expired_session_cookie(state));
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page's register must be the one the client makes by itself when its queue is
    /// gone: the same capabilities and parameters as `src/web/client/events.js`.
    #[test]
    fn the_page_registers_as_the_client_does() {
        let js = include_str!("client/events.js");
        let start = js
            .find("export const CLIENT_CAPABILITIES = {")
            .expect("the client's capabilities");
        let block = &js[start..start + js[start..].find("};").expect("their end")];
        let in_js: Vec<(String, bool)> = block
            .lines()
            .skip(1)
            .filter_map(|l| {
                let (name, value) = l.trim().trim_end_matches(',').split_once(": ")?;
                Some((name.to_string(), value == "true"))
            })
            .collect();
        let in_rust: Vec<(String, bool)> = CLIENT_CAPABILITIES
            .iter()
            .map(|(n, v)| (n.to_string(), *v))
            .collect();
        assert_eq!(in_rust, in_js);
        let call = &js[js
            .find("return api.post(\"register\", {")
            .expect("register")..];
        let call = &call[..call.find("});").expect("its end")];
        let form = client_register_form();
        for (name, value) in form_urlencoded::parse(form.as_bytes()) {
            if name == "client_capabilities" {
                assert!(call.contains("client_capabilities: CLIENT_CAPABILITIES"));
                continue;
            }
            assert!(
                call.contains(&format!("{name}: {value},")),
                "{name}={value} is not in the client's register call: {call}"
            );
        }
        assert_eq!(call.matches(": ").count(), 5, "{call}");
    }

    #[test]
    fn script_data_cannot_end_its_element() {
        let out = script_data(br#"{"a":"</script><!-- & >"}"#);
        assert_eq!(out, r#"{"a":"\u003c/script\u003e\u003c!-- \u0026 \u003e"}"#);
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back["a"], "</script><!-- & >");
    }

    #[test]
    fn next_accepts_same_origin_paths_only() {
        assert_eq!(safe_next("/"), Some("/"));
        assert_eq!(
            safe_next("/#narrow/channel/1-a"),
            Some("/#narrow/channel/1-a")
        );
        assert_eq!(safe_next("/json/users?x=1"), Some("/json/users?x=1"));
        for bad in [
            "",
            "//evil.example/",
            "/\\evil.example",
            "https://evil.example/",
            "javascript:alert(1)",
            "/a b",
            "/a\nb",
            "evil",
        ] {
            assert_eq!(safe_next(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
