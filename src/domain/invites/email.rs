//! Email invitations: inviting a list of addresses (`POST /invites`, with the daily limit and
//! upstream's `INVITATION_FAILED` answers), the invitation mail sent after the commit, and
//! resending it. It must not decide who may invite whom (that is `rules`).

use serde_json::Value;

use crate::db::{invites as db, users as users_db};
use crate::domain::core::Core;
use crate::domain::outbox;
use crate::domain::realm_settings;
use crate::domain::users;
use crate::error::{Error, Result};
use crate::events::{Event, InvitesChanged};
use crate::ids::InvitationId;
use crate::mail::Mail;
use crate::model::{Invitation, InvitationStatus, Secret, User};

use super::links::new_key;
use super::manage::manageable;
use super::rules::{
    Checked, InviteOptions, check_options, check_welcome_text, is_invitable, parse_invitees,
};

/// An `INVITATION_FAILED` error: `errors` as (address, reason, deactivated).
fn invitation_failed(
    msg: &'static str,
    errors: &[(String, &'static str, bool)],
    sent: bool,
    daily_limit: bool,
) -> Error {
    let list: Vec<Value> = errors
        .iter()
        .map(|(a, why, deactivated)| {
            Value::Array(vec![
                Value::from(a.as_str()),
                Value::from(*why),
                Value::from(*deactivated),
            ])
        })
        .collect();
    Error::coded(
        "INVITATION_FAILED",
        msg,
        vec![
            ("errors", Value::Array(list)),
            ("sent_invitations", Value::from(sent)),
            ("license_limit_reached", Value::from(false)),
            ("daily_limit_reached", Value::from(daily_limit)),
        ],
    )
}

/// What an invitation mail needs of the server, taken before the write (which runs on the
/// writer thread without the `Core`).
struct MailMaker {
    external_url: String,
    realm: String,
}

impl MailMaker {
    fn new(state: &Core) -> MailMaker {
        MailMaker {
            external_url: state.config.chat.external_url.clone(),
            realm: state.config.chat.realm_name.clone(),
        }
    }

    fn invitation(&self, referrer: &User, email: &str, key: &str) -> Mail {
        let link = format!("{}/join/{key}/", self.external_url);
        let realm = &self.realm;
        Mail {
            to: email.to_string(),
            subject: format!("{} invited you to join {realm}", referrer.full_name),
            text: format!(
                "Hi,\n\n{} ({}) invited you to join {realm}, an organization on {}.\n\n\
             To sign up, open this link:\n\n{link}\n\n\
             If you did not expect this invitation, you can ignore this mail.\n",
                referrer.full_name, referrer.email, self.external_url
            ),
            link,
            ..Mail::default()
        }
    }
}

/// `POST /invites`: invites each address; the valid invitations are sent even when some
/// addresses already have accounts (then `INVITATION_FAILED` lists those). The mails are
/// queued in the outbox in the same commit and go out in the background.
pub async fn invite(
    state: &Core,
    actor: &User,
    emails_raw: &str,
    opts: InviteOptions,
) -> Result<()> {
    let actor = actor.clone();
    let raw = emails_raw.to_string();
    let default_minutes = state.config.chat.invitation_link_validity_minutes;
    let daily_max = state.config.limits.max_invites_per_day as i64;
    let now = crate::time::now_secs();
    let mails = MailMaker::new(state);
    let skipped = state
        .db
        .write(move |tx| {
            let Checked {
                role,
                expires,
                channels,
                groups,
            } = check_options(
                tx,
                &actor,
                &opts,
                realm_settings::CAN_INVITE_USERS,
                raw.trim().is_empty(),
                (now, default_minutes),
            )?;
            check_welcome_text(&actor, &opts.welcome_text)?;
            let emails = parse_invitees(&raw);
            let invalid: Vec<(String, &'static str, bool)> = emails
                .iter()
                .filter(|e| !is_invitable(e))
                .map(|e| (e.clone(), "Invalid address.", false))
                .collect();
            if emails.is_empty() || !invalid.is_empty() {
                let errors = if invalid.is_empty() {
                    vec![(raw.trim().to_string(), "Invalid address.", false)]
                } else {
                    invalid
                };
                return Err(invitation_failed(
                    "Some emails did not validate, so we didn't send any invitations.",
                    &errors,
                    false,
                    false,
                ));
            }
            let mut skipped = Vec::new();
            let mut to_invite = Vec::new();
            let existing = users::EmailKeys::load(tx)?;
            for e in emails {
                match users_db::by_email(tx, &e)? {
                    Some(u) if u.is_active => skipped.push((e, "Already has an account.", false)),
                    Some(_) => skipped.push((e, "Account has been deactivated.", true)),
                    None if existing.clash(&e, None).is_some() => skipped.push((
                        e,
                        "Too similar to the address of an existing account.",
                        false,
                    )),
                    None => to_invite.push(e),
                }
            }
            if to_invite.is_empty() {
                return Err(invitation_failed(
                    "We weren't able to invite anyone.",
                    &skipped,
                    false,
                    false,
                ));
            }
            if daily_max > 0
                && db::email_invitations_since(tx, now - 24 * 3600)? + to_invite.len() as i64
                    > daily_max
            {
                return Err(invitation_failed(
                    "To protect users, Zulip limits the number of invitations you can send in \
                     one day. Because you have reached the limit, no invitations were sent.",
                    &[],
                    false,
                    true,
                ));
            }
            for email in to_invite {
                let inv = Invitation {
                    id: InvitationId(0),
                    multiuse: false,
                    email: Some(email.clone()),
                    key: Secret(new_key()),
                    referrer: actor.id,
                    invited_as: role,
                    created: now,
                    expires,
                    notify_referrer: opts.notify_referrer,
                    include_defaults: opts.include_defaults,
                    welcome_text: opts.welcome_text.clone(),
                    channels: channels.clone(),
                    groups: groups.clone(),
                    status: InvitationStatus::Open,
                };
                db::insert(tx, &inv)?;
                outbox::queue(tx, &mails.invitation(&actor, &email, &inv.key.0))?;
            }
            tx.emit(Event::InvitesChanged(InvitesChanged { referrer: actor.id }));
            Ok(skipped)
        })
        .await?;
    if !skipped.is_empty() {
        return Err(invitation_failed(
            "Some of those addresses are already using Zulip, so we didn't send them an \
             invitation. We did send invitations to everyone else!",
            &skipped,
            true,
            false,
        ));
    }
    Ok(())
}

/// `POST /invites/{id}/resend`: mails the same link again.
pub async fn resend(state: &Core, actor: &User, id: i64) -> Result<()> {
    let actor = actor.clone();
    let now = crate::time::now_secs();
    let mails = MailMaker::new(state);
    state
        .db
        .write(move |tx| {
            let inv = manageable(tx, &actor, id, false)?;
            if !inv.usable_at(now) {
                return Err(Error::bad_request("No such invitation"));
            }
            let referrer = users_db::get(tx, inv.referrer)?.unwrap_or_else(|| actor.clone());
            let email = inv.email.clone().unwrap_or_default();
            outbox::queue(tx, &mails.invitation(&referrer, &email, &inv.key.0))?;
            tx.emit(Event::InvitesChanged(InvitesChanged {
                referrer: inv.referrer,
            }));
            Ok(())
        })
        .await
}
