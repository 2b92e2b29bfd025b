//! Forgot password: asking for a reset mail (always the same answer, whichever the address;
//! rate-limited per address and per client address), opening the link, and setting the new
//! password (the password rules of `users::values`; the link used up, every other link of the
//! user revoked, every web session ended, the login failure count cleared).
//!
//! An active account gets a mail with a link valid for [`RESET_LINK_SECS`] (Django's default,
//! 3 days, which upstream keeps); an unknown, deactivated or bot address gets upstream's
//! "no account" mail, which the limits keep from being a way to mail strangers in bulk.

use std::time::Duration;

use crate::db::{account_links as links_db, users as users_db};
use crate::domain::core::Core;
use crate::domain::email_keys;
use crate::domain::outbox;
use crate::domain::users::check_password_strength;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::UserId;
use crate::mail::Mail;
use crate::model::User;
use crate::password;

use super::{LinkProblem, MailContext, find_link, make_link};

/// The kind of reset links.
pub const KIND: &str = "password_reset";

/// How long a reset link works: 3 days.
pub const RESET_LINK_SECS: i64 = 3 * 24 * 3600;

/// The path prefix of reset links (`/accounts/password/reset/<key>/`).
pub const LINK_PREFIX: &str = "/accounts/password/reset/";

const PER_ADDRESS: &[(Duration, usize)] = &[
    (Duration::from_secs(3600), 2),
    (Duration::from_secs(86_400), 5),
];
const PER_CLIENT: &[(Duration, usize)] = &[(Duration::from_secs(86_400), 5)];

/// The reset link of a key.
pub fn link_url(ctx: &MailContext, key: &str) -> String {
    format!("{}{LINK_PREFIX}{key}/", ctx.external_url)
}

fn reset_mail(ctx: &MailContext, user: &User, key: &str) -> Mail {
    let link = link_url(ctx, key);
    let text = format!(
        "Hi {name},\n\nSomeone (possibly you) asked to reset the password of your account \
         {email} in {realm} ({url}).\n\nTo choose a new password, open this link within 3 days \
         (it works once):\n\n{link}\n\nIf you did not ask for this, you can ignore this mail; \
         your password stays as it is.\n",
        name = user.full_name,
        email = user.email,
        realm = ctx.realm_name,
        url = ctx.external_url,
    );
    let e = super::escape;
    let html = format!(
        "<p>Hi {name},</p><p>Someone (possibly you) asked to reset the password of your \
         account {email} in {realm}.</p><p><a href=\"{link}\">Choose a new password</a> \
         (the link works once, within 3 days).</p><p>If you did not ask for this, you can \
         ignore this mail; your password stays as it is.</p>",
        name = e(&user.full_name),
        email = e(&user.email),
        realm = e(&ctx.realm_name),
        link = e(&link),
    );
    Mail {
        to: user.email.clone(),
        from: ctx.security_from.clone(),
        subject: format!("Reset your password for {}", ctx.realm_name),
        text,
        html: Some(html),
        headers: ctx.common_headers(),
        link,
    }
}

fn no_account_mail(ctx: &MailContext, email: &str) -> Mail {
    let text = format!(
        "Hi,\n\nSomeone (possibly you) asked to reset a password for {email} in {realm} \
         ({url}), but there is no active account with this address there, so nothing was \
         changed.\n\nIf you did not ask for this, you can ignore this mail.\n",
        realm = ctx.realm_name,
        url = ctx.external_url,
    );
    Mail {
        to: email.to_string(),
        from: ctx.security_from.clone(),
        subject: format!("Reset your password for {}", ctx.realm_name),
        text,
        html: None,
        headers: ctx.common_headers(),
        link: String::new(),
    }
}

/// `POST /accounts/password/reset/`: queues the reset mail (or the no-account mail) for
/// `email`. The answer is the same for every well-formed address; only the limits refuse
/// (`RateLimited`), and a malformed address is a bad request.
pub async fn request(core: &Core, email: &str, client: &str, now: i64) -> Result<()> {
    let email = email.trim().to_string();
    if !crate::domain::users::is_valid_email(&email) {
        return Err(Error::bad_request("Enter a valid email address."));
    }
    let address_key = format!("reset:{}", email_keys::login_key(&email));
    let client_key = format!("reset-ip:{client}");
    if !core
        .reset_limits
        .admit(&[(&address_key, PER_ADDRESS), (&client_key, PER_CLIENT)])
    {
        return Err(Error::new(
            ErrorKind::RateLimited {
                retry_after: Duration::from_secs(3600),
            },
            "You have requested too many password resets. Try again later.",
        ));
    }
    let ctx = MailContext::new(core);
    core.db
        .write(move |tx| {
            match users_db::by_email(tx, &email)? {
                Some(u) if u.is_active && !u.is_bot => {
                    let key = make_link(tx, KIND, u.id, (None, None), now, RESET_LINK_SECS)?;
                    outbox::queue(tx, &reset_mail(&ctx, &u, &key))?;
                }
                _ => outbox::queue(tx, &no_account_mail(&ctx, &email))?,
            }
            Ok(())
        })
        .await
}

/// The account a reset link is for, if it works at `now`.
pub async fn open(
    core: &Core,
    key: &str,
    now: i64,
) -> Result<std::result::Result<User, LinkProblem>> {
    let key = key.to_string();
    core.db
        .read(move |c| {
            let link = match find_link(c, KIND, &key, now)? {
                Ok(l) => l,
                Err(p) => return Ok(Err(p)),
            };
            Ok(match users_db::get(c, link.user_id)? {
                Some(u) if u.is_active && !u.is_bot => Ok(u),
                _ => Err(LinkProblem::Unknown),
            })
        })
        .await
}

/// Why a new password was refused (the form shows it again).
#[derive(Debug, PartialEq)]
pub enum ResetRefusal {
    Link(LinkProblem),
    Invalid(String),
}

/// Sets the password of the link's account: the link is used up with every other reset link
/// of the account, and its web sessions end. Returns the account.
pub async fn complete(
    core: &Core,
    key: &str,
    new_password: String,
    confirm: &str,
    now: i64,
) -> Result<std::result::Result<UserId, ResetRefusal>> {
    let user = match open(core, key, now).await? {
        Ok(u) => u,
        Err(p) => return Ok(Err(ResetRefusal::Link(p))),
    };
    if new_password != confirm {
        return Ok(Err(ResetRefusal::Invalid(
            "The two password fields didn't match.".into(),
        )));
    }
    if let Err(e) = check_password_strength(&new_password) {
        return Ok(Err(ResetRefusal::Invalid(e.msg.into_owned())));
    }
    let hash = core
        .db
        .cpu(move || password::hash(&new_password))
        .await?
        .map_err(Error::internal)?;
    let key = key.to_string();
    let outcome = core
        .db
        .write(move |tx| {
            // Checked again in the write: a second submission of the same link finds it gone.
            let link = match find_link(tx, KIND, &key, now)? {
                Ok(l) if l.user_id == user.id => l,
                Ok(_) => return Ok(Err(ResetRefusal::Link(LinkProblem::Unknown))),
                Err(p) => return Ok(Err(ResetRefusal::Link(p))),
            };
            users_db::set_password_hash(tx, link.user_id, &hash)?;
            links_db::delete_for_user(tx, link.user_id, KIND)?;
            crate::domain::sessions::end_all_for(tx, link.user_id)?;
            Ok(Ok(link.user_id))
        })
        .await?;
    if outcome.is_ok() {
        core.logins.clear(&email_keys::login_key(&user.email));
    }
    Ok(outcome)
}
