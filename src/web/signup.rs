//! The signup page an invitation link opens (`/join/<key>/` on the chat listener): plain HTML
//! and CSS, every value escaped. `GET` shows the form with a token bound to the invitation
//! (`domain::invites::FormKey`); only `POST` submits it. Links that are unknown, expired,
//! revoked or used get a page saying so with a 4xx status; a submission without a valid token
//! gets 403 and changes nothing. A successful signup logs the new user in to the web client
//! (a session cookie) and sends the browser to `/`. Pages share the frame and security
//! headers of `web::pages::document`.

use hyper::header::{HeaderValue, LOCATION, SET_COOKIE};
use hyper::{Method, StatusCode};

use super::WebState;
use crate::domain::invites::{self, LinkProblem, Signup, SignupRefusal};
use crate::domain::users::MIN_PASSWORD_LENGTH;
use crate::error::Result;
use crate::http::{self, Request, Response};
use crate::model::Invitation;

/// The path prefix of signup links.
pub const JOIN_PREFIX: &str = "/join/";

/// The link key of a `/join/<key>/` path (the trailing slash is optional).
pub fn link_key(path: &str) -> Option<&str> {
    let rest = path.strip_prefix(JOIN_PREFIX)?;
    let key = rest.strip_suffix('/').unwrap_or(rest);
    (!key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(key)
}

/// A path as logged: a signup link's key is hidden.
pub fn loggable_path(path: &str) -> std::borrow::Cow<'_, str> {
    match path.strip_prefix(JOIN_PREFIX) {
        Some(rest) if !rest.is_empty() => std::borrow::Cow::Owned(format!("{JOIN_PREFIX}***")),
        _ => std::borrow::Cow::Borrowed(path),
    }
}

pub use crate::web::pages::escape;

/// A signup page in the frame (stylesheet, security headers) of every server-rendered page.
fn page(state: &WebState, status: StatusCode, title: &str, body: &str) -> Response {
    crate::web::pages::document(state, status, title, body)
}

fn link_problem(state: &WebState, p: LinkProblem) -> Response {
    let (status, title, text) = match p {
        LinkProblem::Unknown => (
            StatusCode::NOT_FOUND,
            "Invitation not found",
            "This invitation link is not valid. Check that you copied the whole link, or ask \
             for a new invitation.",
        ),
        LinkProblem::Expired => (
            StatusCode::GONE,
            "Invitation expired",
            "This invitation link has expired. Ask the person who invited you for a new one.",
        ),
        LinkProblem::Revoked => (
            StatusCode::GONE,
            "Invitation revoked",
            "This invitation has been revoked. Ask an administrator for a new one.",
        ),
        LinkProblem::Used => (
            StatusCode::GONE,
            "Invitation already used",
            "An account has already been created with this invitation. Log in with it instead.",
        ),
    };
    page(state, status, title, &format!("<p>{}</p>", escape(text)))
}

/// The form values to show again after a refusal (never the password).
#[derive(Default)]
struct Shown {
    email: String,
    full_name: String,
    error: Option<String>,
}

fn form(state: &WebState, status: StatusCode, inv: &Invitation, shown: &Shown) -> Response {
    let token = state.signup_forms.token(inv, crate::time::now_secs());
    let mut body = String::new();
    body.push_str(&format!(
        "<p>You have been invited to join <strong>{}</strong>.</p>",
        escape(&state.config.chat.realm_name)
    ));
    if let Some(e) = &shown.error {
        body.push_str(&format!(
            "<p class=\"error\" id=\"error\" role=\"alert\">{}</p>",
            escape(e)
        ));
    }
    body.push_str("<form method=\"post\" id=\"signup\">");
    body.push_str(&format!(
        "<input type=\"hidden\" name=\"csrf_token\" value=\"{}\">",
        escape(&token)
    ));
    match &inv.email {
        Some(email) if !inv.multiuse => body.push_str(&format!(
            "<label for=\"email\">Email</label>\
             <input id=\"email\" type=\"email\" value=\"{}\" readonly>",
            escape(email)
        )),
        _ => body.push_str(&format!(
            "<label for=\"email\">Email</label>\
             <input id=\"email\" name=\"email\" type=\"email\" required \
             autocomplete=\"email\" value=\"{}\">",
            escape(&shown.email)
        )),
    }
    body.push_str(&format!(
        "<label for=\"full_name\">Name</label>\
         <input id=\"full_name\" name=\"full_name\" required autocomplete=\"name\" \
         maxlength=\"{}\" value=\"{}\">\
         <label for=\"password\">Password</label>\
         <input id=\"password\" name=\"password\" type=\"password\" required \
         autocomplete=\"new-password\" minlength=\"{MIN_PASSWORD_LENGTH}\">\
         <p class=\"note\">At least {MIN_PASSWORD_LENGTH} characters.</p>\
         <button type=\"submit\" id=\"submit\">Create account</button></form>",
        crate::domain::users::MAX_NAME_LENGTH,
        escape(&shown.full_name)
    ));
    page(state, status, "Create your account", &body)
}

fn bad_form(state: &WebState) -> Response {
    page(
        state,
        StatusCode::FORBIDDEN,
        "Form expired",
        "<p>This form has expired or did not come from this server, so nothing was done. \
         Open your invitation link again to sign up.</p>",
    )
}

/// `GET`/`HEAD` shows the form, `POST` submits it.
pub async fn handle(state: &WebState, key: &str, req: &Request) -> Result<Response> {
    if req.method() == Method::POST {
        return submit(state, key, req).await;
    }
    Ok(match invites::open_link(state, key).await? {
        Ok(inv) => form(state, StatusCode::OK, &inv, &Shown::default()),
        Err(p) => link_problem(state, p),
    })
}

async fn submit(state: &WebState, key: &str, req: &Request) -> Result<Response> {
    let is_form = req
        .header("content-type")
        .is_some_and(|t| t.starts_with("application/x-www-form-urlencoded"));
    if !is_form {
        return Ok(page(
            state,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported form",
            "<p>The signup form must be sent as a web form.</p>",
        ));
    }
    let mut token = None;
    let mut email = None;
    let mut full_name = String::new();
    let mut password = String::new();
    for (k, v) in form_urlencoded::parse(&req.body) {
        match &*k {
            "csrf_token" => token = Some(v.into_owned()),
            "email" => email = Some(v.into_owned()),
            "full_name" => full_name = v.into_owned(),
            "password" => password = v.into_owned(),
            _ => {}
        }
    }
    let Some(token) = token else {
        // Still tell a dead link from a forged form.
        return Ok(match invites::open_link(state, key).await? {
            Ok(_) => bad_form(state),
            Err(p) => link_problem(state, p),
        });
    };
    let shown_email = email.clone().unwrap_or_default();
    let shown_name = full_name.clone();
    let outcome = invites::join(
        state,
        Signup {
            key: key.to_string(),
            token,
            email,
            full_name,
            password,
        },
    )
    .await?;
    Ok(match outcome {
        Ok((user, _login)) => {
            // The new user is logged in to the web client at once.
            let session = crate::domain::sessions::create(state, user, None).await?;
            let mut res = http::empty(StatusCode::SEE_OTHER);
            let h = res.headers_mut();
            h.insert(LOCATION, HeaderValue::from_static("/"));
            h.insert(
                hyper::header::CACHE_CONTROL,
                HeaderValue::from_static("no-store"),
            );
            h.append(
                SET_COOKIE,
                crate::web::sessions::session_cookie(state, &session),
            );
            res
        }
        Err(SignupRefusal::Link(p)) => link_problem(state, p),
        Err(SignupRefusal::BadToken) => bad_form(state),
        Err(SignupRefusal::Invalid(msg)) => match invites::open_link(state, key).await? {
            Ok(inv) => form(
                state,
                StatusCode::BAD_REQUEST,
                &inv,
                &Shown {
                    email: shown_email,
                    full_name: shown_name,
                    error: Some(msg),
                },
            ),
            Err(p) => link_problem(state, p),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_come_from_join_paths_only() {
        assert_eq!(link_key("/join/abc123/"), Some("abc123"));
        assert_eq!(link_key("/join/abc123"), Some("abc123"));
        assert_eq!(link_key("/join/"), None);
        assert_eq!(link_key("/join/a/b/"), None);
        assert_eq!(link_key("/join/a%20b/"), None);
        assert_eq!(link_key("/other/abc/"), None);
    }

    #[test]
    fn logged_paths_hide_link_keys() {
        assert_eq!(loggable_path("/join/abc123/"), "/join/***");
        assert_eq!(loggable_path("/api/v1/invites"), "/api/v1/invites");
    }

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
