//! Changing one's own email address by confirmation (`PATCH /settings` with `email`, as
//! upstream's `do_start_email_change_process`): the checks (human users only,
//! `email_changes_disabled` for all but administrators, a valid address that neither is nor
//! looks like another account's), earlier pending changes revoked, the confirmation mail to the
//! **new** address with a link valid for a day; confirming checks everything again, changes
//! the address (the `realm_user` update events of any address change) and tells the old
//! address.

use crate::db::{account_links as links_db, users as users_db};
use crate::domain::core::Core;
use crate::domain::outbox;
use crate::domain::realm_settings;
use crate::domain::users::{email_clash, is_valid_email};
use crate::error::{Error, Result};
use crate::events::{Event, PersonChange, UserUpdated};
use crate::mail::Mail;
use crate::model::User;

use super::{LinkProblem, MailContext, escape, find_link, make_link};

/// The kind of email-change links.
pub const KIND: &str = "email_change";

/// How long a confirmation link works: upstream's `CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS`.
pub const LINK_SECS: i64 = 24 * 3600;

/// The path prefix of confirmation links (`/accounts/confirm_new_email/<key>`).
pub const LINK_PREFIX: &str = "/accounts/confirm_new_email/";

/// The checks upstream's `validate_email_change_request` makes, inside a read or write.
fn check(c: &rusqlite::Connection, user: &User, new_email: &str) -> Result<()> {
    if !user.is_active {
        return Err(Error::bad_request("Account is deactivated"));
    }
    if realm_settings::flag(c, realm_settings::EMAIL_CHANGES_DISABLED)? && !user.role.is_admin() {
        return Err(Error::bad_request(
            "Email address changes are disabled in this organization.",
        ));
    }
    if !is_valid_email(new_email) {
        return Err(Error::bad_request("Invalid address."));
    }
    if let Some(clash) = email_clash(c, new_email, Some(user.id))? {
        return Err(Error::bad_request(clash.message()));
    }
    Ok(())
}

fn confirmation_mail(ctx: &MailContext, user: &User, new_email: &str, key: &str) -> Mail {
    let link = format!("{}{LINK_PREFIX}{key}", ctx.external_url);
    Mail {
        to: new_email.to_string(),
        from: ctx.security_from.clone(),
        subject: format!("Verify your new email address for {}", ctx.realm_name),
        text: format!(
            "Hi {name},\n\nWe received a request to change the email address of your account \
             in {realm} ({url}) from {old} to {new_email}.\n\nTo confirm it, open this link \
             within a day:\n\n{link}\n\nIf you did not ask for this, you can ignore this mail.\n",
            name = user.full_name,
            realm = ctx.realm_name,
            url = ctx.external_url,
            old = user.email,
        ),
        html: Some(format!(
            "<p>Hi {name},</p><p>We received a request to change the email address of your \
             account in {realm} from {old} to {new}.</p><p><a href=\"{link}\">Confirm the \
             new address</a> (the link works for a day).</p><p>If you did not ask for this, \
             you can ignore this mail.</p>",
            name = escape(&user.full_name),
            realm = escape(&ctx.realm_name),
            old = escape(&user.email),
            new = escape(new_email),
            link = escape(&link),
        )),
        headers: ctx.common_headers(),
        link,
    }
}

fn notice_mail(ctx: &MailContext, old: &str, new_email: &str) -> Mail {
    Mail {
        to: old.to_string(),
        from: ctx.security_from.clone(),
        subject: format!("Email address changed for {}", ctx.realm_name),
        text: format!(
            "Hi,\n\nThe email address of your account in {realm} ({url}) was changed to \
             {new_email}.\n\nIf you did not make this change, contact an administrator of \
             {realm} at once.\n",
            realm = ctx.realm_name,
            url = ctx.external_url,
        ),
        html: None,
        headers: ctx.common_headers(),
        link: String::new(),
    }
}

/// `PATCH /settings` with `email`, before anything else of the request changes: refuses a
/// change [`start`] would refuse.
pub async fn check_request(core: &Core, user: &User, new_email: &str) -> Result<()> {
    let new_email = new_email.trim().to_string();
    if new_email == user.email {
        return Ok(());
    }
    if user.is_bot {
        return Err(Error::bad_request(
            "This endpoint does not accept bot requests.",
        ));
    }
    let user = user.clone();
    core.db.read(move |c| check(c, &user, &new_email)).await
}

/// `PATCH /settings` with `email`: starts the change of `user`'s address to `new_email` (no-op
/// for the current address). All or nothing.
pub async fn start(core: &Core, user: &User, new_email: &str, now: i64) -> Result<()> {
    if user.is_bot {
        return Err(Error::bad_request(
            "This endpoint does not accept bot requests.",
        ));
    }
    let new_email = new_email.trim().to_string();
    if new_email == user.email {
        return Ok(());
    }
    let ctx = MailContext::new(core);
    let id = user.id;
    core.db
        .write(move |tx| {
            let current =
                users_db::get(tx, id)?.ok_or_else(|| Error::bad_request("No such user"))?;
            check(tx, &current, &new_email)?;
            links_db::delete_for_user(tx, id, KIND)?;
            let key = make_link(
                tx,
                KIND,
                id,
                (Some(current.email.clone()), Some(new_email.clone())),
                now,
                LINK_SECS,
            )?;
            outbox::queue(tx, &confirmation_mail(&ctx, &current, &new_email, &key))?;
            Ok(())
        })
        .await
}

/// What a confirmation link is about: (old address, new address).
pub async fn open(
    core: &Core,
    key: &str,
    now: i64,
) -> Result<std::result::Result<(String, String), LinkProblem>> {
    let key = key.to_string();
    core.db
        .read(move |c| {
            Ok(find_link(c, KIND, &key, now)?.map(|l| {
                (
                    l.old_email.unwrap_or_default(),
                    l.new_email.unwrap_or_default(),
                )
            }))
        })
        .await
}

/// Why a confirmation did not change the address.
#[derive(Debug, PartialEq)]
pub enum ConfirmRefusal {
    Link(LinkProblem),
    /// The change is no longer allowed (the message says why).
    Refused(String),
}

/// Confirms a change: the address becomes the new one, the link is used up, and the old
/// address is told. Returns (old, new).
pub async fn confirm(
    core: &Core,
    key: &str,
    now: i64,
) -> Result<std::result::Result<(String, String), ConfirmRefusal>> {
    let ctx = MailContext::new(core);
    let key = key.to_string();
    core.db
        .write(move |tx| {
            let link = match find_link(tx, KIND, &key, now)? {
                Ok(l) => l,
                Err(p) => return Ok(Err(ConfirmRefusal::Link(p))),
            };
            let (old, new) = (
                link.old_email.clone().unwrap_or_default(),
                link.new_email.clone().unwrap_or_default(),
            );
            let Some(user) = users_db::get(tx, link.user_id)? else {
                return Ok(Err(ConfirmRefusal::Link(LinkProblem::Unknown)));
            };
            if user.email != old {
                return Ok(Err(ConfirmRefusal::Link(LinkProblem::Expired)));
            }
            if let Err(e) = check(tx, &user, &new) {
                return Ok(Err(ConfirmRefusal::Refused(e.msg.into_owned())));
            }
            links_db::delete(tx, link.id)?;
            users_db::set_email(tx, user.id, &new)?;
            tx.emit(Event::UserUpdated(UserUpdated {
                user_id: user.id,
                change: PersonChange::Email(new.clone()),
            }));
            outbox::queue(tx, &notice_mail(&ctx, &old, &new))?;
            Ok(Ok((old, new)))
        })
        .await
}
