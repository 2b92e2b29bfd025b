//! The account pages mails link to, plain HTML in the frame of `web::pages::document`, every
//! value escaped, no script: "Forgot password" (`/accounts/password/reset/`: the form, and for
//! any address the same "check your email" page), the new-password form of a reset link
//! (`/accounts/password/reset/<key>/`), the confirmation of a new email address
//! (`/accounts/confirm_new_email/<key>`) and unsubscribing
//! (`/accounts/unsubscribe/<type>/<key>`: `GET` asks, `POST` turns the setting off, as a mail
//! client's one-click `List-Unsubscribe-Post` does). `GET` never changes anything; link
//! problems get a 404 or 410 page. The rules are `domain::account_mail`.

use hyper::header::SET_COOKIE;
use hyper::{Method, StatusCode};

use super::WebState;
use super::pages::{document, escape};
use super::sessions::{LOGIN_CSRF_COOKIE, cookie, login_csrf_cookie, token_matches};
use crate::domain::account_mail::email_change::{self, ConfirmRefusal};
use crate::domain::account_mail::reset::{self, ResetRefusal};
use crate::domain::account_mail::{LinkProblem, unsubscribe, well_formed};
use crate::domain::sessions as session_rules;
use crate::domain::users::MIN_PASSWORD_LENGTH;
use crate::error::{ErrorKind, Result};
use crate::http::{Request, Response};

/// The "Forgot password" page.
pub const RESET_PATH: &str = "/accounts/password/reset/";

/// The key of a `/accounts/password/reset/<key>/` path.
pub fn reset_key(path: &str) -> Option<&str> {
    let rest = path.strip_prefix(reset::LINK_PREFIX)?;
    let key = rest.strip_suffix('/').unwrap_or(rest);
    well_formed(key).then_some(key)
}

/// The key of a `/accounts/confirm_new_email/<key>` path.
pub fn confirm_key(path: &str) -> Option<&str> {
    let rest = path.strip_prefix(email_change::LINK_PREFIX)?;
    let key = rest.strip_suffix('/').unwrap_or(rest);
    (!key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(key)
}

/// The type and key of a `/accounts/unsubscribe/<type>/<key>` path.
pub fn unsubscribe_parts(path: &str) -> Option<(String, String)> {
    let rest = path.strip_prefix(unsubscribe::LINK_PREFIX)?;
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (t, key) = rest.split_once('/')?;
    let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    (ok(t) && ok(key)).then(|| (t.to_string(), key.to_string()))
}

/// A path as logged: the keys of account links are hidden.
pub fn loggable_path(path: &str) -> Option<String> {
    if reset_key(path).is_some() {
        return Some(format!("{}***", reset::LINK_PREFIX));
    }
    if path.starts_with(email_change::LINK_PREFIX) && path.len() > email_change::LINK_PREFIX.len() {
        return Some(format!("{}***", email_change::LINK_PREFIX));
    }
    if let Some((t, _)) = unsubscribe_parts(path) {
        return Some(format!("{}{t}/***", unsubscribe::LINK_PREFIX));
    }
    None
}

fn fields(req: &Request) -> Vec<(String, String)> {
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

fn field<'a>(f: &'a [(String, String)], name: &str) -> &'a str {
    f.iter()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

fn link_problem(state: &WebState, p: LinkProblem) -> Response {
    match p {
        LinkProblem::Unknown => document(
            state,
            StatusCode::NOT_FOUND,
            "Link not valid",
            "<p>This link is not valid: it may have been used already. Check that you copied \
             the whole link, or ask for a new one.</p>",
        ),
        LinkProblem::Expired => document(
            state,
            StatusCode::GONE,
            "Link expired",
            "<p>This link has expired. Ask for a new one.</p>",
        ),
    }
}

fn reset_form(
    state: &WebState,
    req: &Request,
    status: StatusCode,
    error: Option<&str>,
) -> Response {
    let token = cookie(&req.parts.headers, LOGIN_CSRF_COOKIE)
        .filter(|t| t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_string)
        .unwrap_or_else(session_rules::random_token);
    let mut body = String::new();
    if let Some(e) = error {
        body.push_str(&format!(
            "<p class=\"error\" id=\"error\" role=\"alert\">{}</p>",
            escape(e)
        ));
    }
    body.push_str(&format!(
        "<p>Enter the email address of your account; we will send you a link to choose a new \
         password.</p>\
         <form method=\"post\" action=\"{RESET_PATH}\" id=\"password-reset\">\
         <input type=\"hidden\" name=\"csrf_token\" value=\"{}\">\
         <label for=\"email\">Email</label>\
         <input id=\"email\" name=\"email\" type=\"email\" required autocomplete=\"email\" \
         autofocus>\
         <button type=\"submit\">Send the link</button></form>\
         <p><a href=\"/login\">Back to the login page</a></p>",
        escape(&token)
    ));
    let mut res = document(state, status, "Forgot your password?", &body);
    res.headers_mut()
        .append(SET_COOKIE, login_csrf_cookie(state, &token));
    res
}

/// # `GET`/`HEAD`/`POST /accounts/password/reset/`
///
/// `GET` shows the form; `POST` (with the form's double-submit token) asks for a reset mail
/// and shows the same "check your email" page for every address; too many requests get 429.
pub async fn password_reset(state: &WebState, req: &Request) -> Result<Response> {
    if req.method() != Method::POST {
        return Ok(reset_form(state, req, StatusCode::OK, None));
    }
    let f = fields(req);
    let genuine = cookie(&req.parts.headers, LOGIN_CSRF_COOKIE)
        .is_some_and(|c| token_matches(c, field(&f, "csrf_token")));
    if !genuine {
        let msg = "This form has expired or did not come from this server. Please try again.";
        return Ok(reset_form(state, req, StatusCode::FORBIDDEN, Some(msg)));
    }
    let email = field(&f, "email");
    let now = crate::time::now_secs();
    match reset::request(state, email, &req.peer.ip().to_string(), now).await {
        Ok(()) => Ok(document(
            state,
            StatusCode::OK,
            "Check your email",
            &format!(
                "<p>If {} has an account here, we sent it a link to reset the password. The \
                 link works once, within 3 days.</p>\
                 <p><a href=\"/login\">Back to the login page</a></p>",
                escape(email.trim())
            ),
        )),
        Err(e) if matches!(e.kind, ErrorKind::RateLimited { .. }) => Ok(document(
            state,
            StatusCode::TOO_MANY_REQUESTS,
            "Too many requests",
            &format!("<p>{}</p>", escape(&e.msg)),
        )),
        Err(e) if e.kind == ErrorKind::Internal => Err(e),
        Err(e) => Ok(reset_form(
            state,
            req,
            StatusCode::BAD_REQUEST,
            Some(&e.msg),
        )),
    }
}

fn new_password_form(
    state: &WebState,
    status: StatusCode,
    email: &str,
    error: Option<&str>,
) -> Response {
    let mut body = String::new();
    if let Some(e) = error {
        body.push_str(&format!(
            "<p class=\"error\" id=\"error\" role=\"alert\">{}</p>",
            escape(e)
        ));
    }
    body.push_str(&format!(
        "<p>Choose a new password for {}.</p>\
         <form method=\"post\" id=\"set-password\">\
         <label for=\"new_password1\">New password</label>\
         <input id=\"new_password1\" name=\"new_password1\" type=\"password\" required \
         autocomplete=\"new-password\" minlength=\"{MIN_PASSWORD_LENGTH}\">\
         <label for=\"new_password2\">Confirm the new password</label>\
         <input id=\"new_password2\" name=\"new_password2\" type=\"password\" required \
         autocomplete=\"new-password\" minlength=\"{MIN_PASSWORD_LENGTH}\">\
         <p class=\"note\">At least {MIN_PASSWORD_LENGTH} characters.</p>\
         <button type=\"submit\">Set the password</button></form>",
        escape(email)
    ));
    document(state, status, "Set a new password", &body)
}

/// # `GET`/`HEAD`/`POST /accounts/password/reset/<key>/`
///
/// `GET` shows the new-password form of a working link; `POST` sets the password (the link
/// is then used up and the account's web sessions end).
pub async fn password_reset_confirm(
    state: &WebState,
    key: &str,
    req: &Request,
) -> Result<Response> {
    let now = crate::time::now_secs();
    let user = match reset::open(state, key, now).await? {
        Ok(u) => u,
        Err(p) => return Ok(link_problem(state, p)),
    };
    if req.method() != Method::POST {
        return Ok(new_password_form(state, StatusCode::OK, &user.email, None));
    }
    let f = fields(req);
    let new = field(&f, "new_password1").to_string();
    let again = field(&f, "new_password2");
    Ok(match reset::complete(state, key, new, again, now).await? {
        Ok(_) => document(
            state,
            StatusCode::OK,
            "Password reset",
            "<p>Your password has been changed. <a href=\"/login\">Log in</a> with the new \
             password.</p>",
        ),
        Err(ResetRefusal::Link(p)) => link_problem(state, p),
        Err(ResetRefusal::Invalid(msg)) => {
            new_password_form(state, StatusCode::BAD_REQUEST, &user.email, Some(&msg))
        }
    })
}

/// # `GET`/`HEAD`/`POST /accounts/confirm_new_email/<key>`
///
/// `GET` names the change and offers a button; `POST` makes it (as upstream's page does, so a
/// mail scanner's prefetch of the link confirms nothing).
pub async fn confirm_new_email(state: &WebState, key: &str, req: &Request) -> Result<Response> {
    let now = crate::time::now_secs();
    if req.method() != Method::POST {
        return Ok(match email_change::open(state, key, now).await? {
            Ok((old, new)) => document(
                state,
                StatusCode::OK,
                "Confirm your new email address",
                &format!(
                    "<p>Change the email address of your account from {} to {}?</p>\
                     <form method=\"post\" id=\"confirm-email\">\
                     <button type=\"submit\">Confirm</button></form>",
                    escape(&old),
                    escape(&new)
                ),
            ),
            Err(p) => link_problem(state, p),
        });
    }
    Ok(match email_change::confirm(state, key, now).await? {
        Ok((old, new)) => document(
            state,
            StatusCode::OK,
            "Email address changed",
            &format!(
                "<p>The email address of your account is now {} (it was {}).</p>\
                 <p><a href=\"/\">Go to the app</a></p>",
                escape(&new),
                escape(&old)
            ),
        ),
        Err(ConfirmRefusal::Link(p)) => link_problem(state, p),
        Err(ConfirmRefusal::Refused(msg)) => document(
            state,
            StatusCode::BAD_REQUEST,
            "Email address not changed",
            &format!("<p>{}</p>", escape(&msg)),
        ),
    })
}

fn type_label(email_type: &str) -> &'static str {
    match email_type {
        "missed_messages" => "missed-message emails",
        "digest" => "digest emails",
        "login" => "new-login emails",
        _ => "these emails",
    }
}

/// # `GET`/`HEAD`/`POST /accounts/unsubscribe/<type>/<key>`
///
/// `GET` asks; `POST` (the page's button, or a mail client's RFC 8058 one-click request)
/// turns the email type's setting off.
pub async fn unsubscribe_page(
    state: &WebState,
    parts: &(String, String),
    req: &Request,
) -> Result<Response> {
    let (email_type, key) = parts;
    let now = crate::time::now_secs();
    let label = type_label(email_type);
    if req.method() != Method::POST {
        return Ok(
            match unsubscribe::open(state, email_type, key, now).await? {
                Ok(_) => document(
                    state,
                    StatusCode::OK,
                    "Unsubscribe",
                    &format!(
                        "<p>Stop sending you {label}?</p>\
                     <form method=\"post\" id=\"unsubscribe\">\
                     <button type=\"submit\">Unsubscribe</button></form>"
                    ),
                ),
                Err(p) => link_problem(state, p),
            },
        );
    }
    Ok(
        match unsubscribe::apply(state, email_type, key, now).await? {
            Ok(_) => document(
                state,
                StatusCode::OK,
                "Unsubscribed",
                &format!(
                    "<p>You will no longer get {label}. You can turn them on again in your \
                 notification settings.</p>"
                ),
            ),
            Err(p) => link_problem(state, p),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_paths_and_their_logged_forms() {
        let k = "a".repeat(64);
        assert_eq!(
            reset_key(&format!("/accounts/password/reset/{k}/")),
            Some(k.as_str())
        );
        assert_eq!(reset_key("/accounts/password/reset/"), None);
        assert_eq!(reset_key("/accounts/password/reset/xyz/"), None);
        assert_eq!(
            confirm_key(&format!("/accounts/confirm_new_email/{k}")),
            Some(k.as_str())
        );
        assert_eq!(
            unsubscribe_parts(&format!("/accounts/unsubscribe/missed_messages/{k}")),
            Some(("missed_messages".into(), k.clone()))
        );
        assert_eq!(unsubscribe_parts("/accounts/unsubscribe/x"), None);
        assert_eq!(
            loggable_path(&format!("/accounts/unsubscribe/digest/{k}")).unwrap(),
            "/accounts/unsubscribe/digest/***"
        );
        assert_eq!(
            loggable_path(&format!("/accounts/password/reset/{k}/")).unwrap(),
            "/accounts/password/reset/***"
        );
        assert_eq!(loggable_path("/login"), None);
    }
}
