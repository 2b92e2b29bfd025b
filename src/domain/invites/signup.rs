//! Joining through the signup form: the per-process key its tokens are signed with, what the
//! form submits and why it is refused, and the new account with what the invitation gives it
//! (channels, groups, the inviter's notice). The account itself is made by the user-creation
//! rules of `domain::users`; this file must not check who may invite.

use hmac::{Hmac, KeyInit as _, Mac as _};
use rand::RngExt as _;
use sha2::Sha256;

use crate::db::{WriteTx, channels as channels_db, groups, invites as db, users as users_db};
use crate::domain::channels::subscribe_new_user;
use crate::domain::core::Core;
use crate::domain::notices;
use crate::domain::users::{self, NewUser};
use crate::error::{Error, Result};
use crate::events::{Event, InvitesChanged, UserGroupMembers};
use crate::ids::UserId;
use crate::model::{Invitation, InvitationStatus, User};

use super::links::{LinkProblem, check_link, open_link};
use super::rules::is_invitable;

/// How long a signup form stays valid after it was shown.
pub const FORM_LIFETIME_SECS: i64 = 2 * 3600;

/// The per-process secret signup forms are signed with.
pub struct FormKey([u8; 32]);

impl FormKey {
    pub fn random() -> FormKey {
        let mut k = [0u8; 32];
        rand::rng().fill(&mut k);
        FormKey(k)
    }

    fn mac(&self, inv: &Invitation, issued: i64) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(format!("signup\n{}\n{}\n{issued}", inv.id.0, inv.key.0).as_bytes());
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// A token for one signup form of `inv`, shown at `now`.
    pub fn token(&self, inv: &Invitation, now: i64) -> String {
        format!("{now}.{}", self.mac(inv, now))
    }

    /// Whether `token` was issued by this process for `inv` and is still fresh at `now`.
    pub fn verify(&self, inv: &Invitation, token: &str, now: i64) -> bool {
        let Some((issued, mac)) = token.split_once('.') else {
            return false;
        };
        let Ok(issued) = issued.parse::<i64>() else {
            return false;
        };
        if issued > now || now - issued > FORM_LIFETIME_SECS {
            return false;
        }
        crate::password::constant_time_eq(self.mac(inv, issued).as_bytes(), mac.as_bytes())
    }
}

impl std::fmt::Debug for FormKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FormKey(***)")
    }
}

/// Why a signup form refuses an address that looks like an existing account's (see
/// `domain::email_keys`). Reusable links take any address without a confirmation mail (a
/// later issue), so this at least keeps newcomers from posing as existing members.
const LOOKALIKE_SIGNUP: &str = "This email address looks too much like the address of an \
     existing account. Use another address, or log in if it is yours.";

/// What the signup form submitted.
pub struct Signup {
    pub key: String,
    pub token: String,
    /// The address (reusable links only; an email invitation's is fixed).
    pub email: Option<String>,
    pub full_name: String,
    pub password: String,
}

/// Why a signup was refused: the link, the form's token, or the values (shown on the form).
#[derive(Debug)]
pub enum SignupRefusal {
    Link(LinkProblem),
    BadToken,
    Invalid(String),
}

/// Joins through an invitation: creates the user with the invited role, channels and groups,
/// tells the inviter when asked, and marks an email invitation used. Returns the new user's
/// id and address (what they log in with).
pub async fn join(
    state: &Core,
    form: Signup,
) -> Result<std::result::Result<(UserId, String), SignupRefusal>> {
    let now = crate::time::now_secs();
    let inv = match open_link(state, &form.key).await? {
        Ok(inv) => inv,
        Err(p) => return Ok(Err(SignupRefusal::Link(p))),
    };
    if !state.signup_forms.verify(&inv, &form.token, now) {
        return Ok(Err(SignupRefusal::BadToken));
    }
    let email = match (&inv.email, form.email) {
        (Some(e), _) => e.clone(),
        (None, Some(e)) => e.trim().to_string(),
        (None, None) => String::new(),
    };
    if !is_invitable(&email) {
        return Ok(Err(SignupRefusal::Invalid(
            "Please enter a valid email address.".into(),
        )));
    }
    if let Err(e) = users::check_full_name(&form.full_name) {
        return Ok(Err(SignupRefusal::Invalid(e.msg.into_owned())));
    }
    if let Err(e) = users::check_password_strength(&form.password) {
        return Ok(Err(SignupRefusal::Invalid(e.msg.into_owned())));
    }
    let prepared = users::prepare(
        state,
        NewUser {
            email: email.clone(),
            full_name: form.full_name,
            role: inv.invited_as,
            password: Some(form.password),
            can_create_users: false,
            can_change_user_emails: false,
        },
    )
    .await?;
    let visibility = state.config.chat.email_address_visibility;
    let realm_url = state.config.chat.external_url.clone();
    let key = form.key;
    state
        .db
        .write(move |tx| {
            // Checked again inside the write: two submissions of one form race here.
            let inv = match check_link(tx, &key, crate::time::now_secs())? {
                Ok(inv) => inv,
                Err(p) => return Ok(Err(SignupRefusal::Link(p))),
            };
            match users::email_clash(tx, prepared.email(), None)? {
                Some(users::EmailClash::Same) => {
                    return Ok(Err(SignupRefusal::Invalid(
                        "An account with this email address already exists; log in instead.".into(),
                    )));
                }
                Some(users::EmailClash::LookAlike) => {
                    return Ok(Err(SignupRefusal::Invalid(LOOKALIKE_SIGNUP.into())));
                }
                None => {}
            }
            let joined = |tx: &mut WriteTx<'_>, user: &User| join_rest(tx, &inv, user, &realm_url);
            let id = users::insert_prepared(tx, &prepared, visibility, &realm_url, joined)?;
            if let Some(text) = inv.welcome_text.as_deref().filter(|t| !t.is_empty()) {
                let user = users_db::get(tx, id)?
                    .ok_or_else(|| Error::internal("a new user vanished in its own write"))?;
                notices::custom_welcome(tx, &user, text, &realm_url)?;
            }
            if !inv.multiuse {
                db::set_status(tx, inv.id, InvitationStatus::Used)?;
                db::revoke_others_for_email(tx, prepared.email(), inv.id)?;
            }
            tx.emit(Event::InvitesChanged(InvitesChanged {
                referrer: inv.referrer,
            }));
            Ok(Ok((id, prepared.email().to_string())))
        })
        .await
}

/// What a new user gets from the invitation once they exist: channels, groups, and the
/// inviter's notice.
fn join_rest(tx: &mut WriteTx<'_>, inv: &Invitation, user: &User, realm_url: &str) -> Result<()> {
    let mut channels = inv.channels.clone();
    if inv.include_defaults {
        for ch in channels_db::all(tx)? {
            if ch.is_default && !ch.is_archived && !channels.contains(&ch.id) {
                channels.push(ch.id);
            }
        }
    }
    subscribe_new_user(tx, user.id, &channels)?;
    for g in &inv.groups {
        if groups::get(tx, *g)?.is_some_and(|g| !g.deactivated && !g.is_system_group)
            && groups::add_member(tx, *g, user.id)?
        {
            tx.emit(Event::UserGroupMembers(UserGroupMembers {
                group_id: *g,
                user_ids: vec![user.id],
                add: true,
            }));
        }
    }
    if inv.notify_referrer && users_db::get(tx, inv.referrer)?.is_some_and(|r| r.is_active) {
        notices::invitation_accepted(tx, inv.referrer, user, realm_url)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::InvitationId;
    use crate::model::{Role, Secret};

    fn inv(id: i64) -> Invitation {
        Invitation {
            id: InvitationId(id),
            multiuse: true,
            email: None,
            key: Secret("k".repeat(24)),
            referrer: UserId(3),
            invited_as: Role::Member,
            created: 0,
            expires: None,
            notify_referrer: false,
            include_defaults: false,
            welcome_text: None,
            channels: vec![],
            groups: vec![],
            status: InvitationStatus::Open,
        }
    }

    #[test]
    fn form_tokens_are_bound_to_their_invitation_and_expire() {
        let k = FormKey::random();
        let t = k.token(&inv(1), 1000);
        assert!(k.verify(&inv(1), &t, 1000 + FORM_LIFETIME_SECS));
        assert!(!k.verify(&inv(1), &t, 1001 + FORM_LIFETIME_SECS));
        assert!(!k.verify(&inv(2), &t, 1000));
        assert!(!FormKey::random().verify(&inv(1), &t, 1000));
        assert!(!k.verify(&inv(1), "", 1000));
        assert!(!k.verify(&inv(1), &t.replace("1000.", "999."), 1000));
    }
}
