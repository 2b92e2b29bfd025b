//! Invitations: who may invite whom (role, channels, groups), email invitations and reusable
//! links, listing, revoking and resending them, and joining through one (the signup form's
//! rules: its per-form token, the account it creates and what the new user is given). An
//! address that looks like an existing account's (`domain::email_keys`) is neither invited nor
//! accepted on a reusable link's form; a reusable link's address is otherwise not verified
//! (no confirmation mail yet).
//!
//! Invitation mail goes out after the commit through [`crate::mail`] (a blocking task; a
//! failure is logged and the invitation stays). Every change emits
//! [`Event::InvitesChanged`]; joining goes through the user-creation rules of
//! `domain::users` (events, signup notice, Welcome Bot). No HTTP, no wire JSON.

use hmac::{Hmac, KeyInit as _, Mac as _};
use rand::RngExt as _;
use rusqlite::Connection;
use serde_json::Value;
use sha2::Sha256;

use crate::db::{WriteTx, channels as channels_db, groups, invites as db, users as users_db};
use crate::domain::channels::{access, may_add_others, subscribe_new_user};
use crate::domain::core::Core;
use crate::domain::users::{self, NewUser};
use crate::domain::{notices, realm_settings, user_groups};
use crate::error::{Error, Result};
use crate::events::Event;
use crate::ids::{ChannelId, GroupId, InvitationId, UserId};
use crate::mail::Mail;
use crate::model::{Invitation, InvitationStatus, Role, Secret, User};

/// Longest custom welcome text (upstream's `MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH`).
pub const MAX_WELCOME_TEXT_LENGTH: usize = 8000;
/// How long a signup form stays valid after it was shown.
pub const FORM_LIFETIME_SECS: i64 = 2 * 3600;
/// Characters of a link key (lower-case letters and digits, like upstream's).
const KEY_LENGTH: usize = 24;
const KEY_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// What an invitation gives the new user, and how long it lasts.
#[derive(Clone, Debug)]
pub struct InviteOptions {
    /// `None`: the configured default; `Some(None)`: never expires.
    pub expires_in_minutes: Option<Option<i64>>,
    pub invite_as: i64,
    pub channels: Vec<i64>,
    pub groups: Vec<i64>,
    pub include_defaults: bool,
    pub notify_referrer: bool,
    pub welcome_text: Option<String>,
}

/// Splits `invitee_emails` on commas and newlines; `Name <address>` gives the address. Empty
/// entries are dropped and repeated addresses kept once, in order.
pub fn parse_invitees(raw: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in raw.split([',', '\n']) {
        let addr = match (part.find('<'), part.rfind('>')) {
            (Some(a), Some(b)) if a < b => &part[a + 1..b],
            _ => part,
        };
        let addr = addr.trim();
        if !addr.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(addr)) {
            out.push(addr.to_string());
        }
    }
    out
}

/// An address an invitation may go to and an account be made for: a plausible address
/// (`users::is_valid_email`) without the characters that need quoting in one (as Django's
/// validator upstream refuses them).
pub fn is_invitable(email: &str) -> bool {
    users::is_valid_email(email)
        && !email.contains(['"', '<', '>', '(', ')', ',', ';', ':', '\\', '[', ']'])
}

fn new_key() -> String {
    crate::password::random_string(KEY_CHARS, KEY_LENGTH)
}

/// The signup link of an invitation.
pub fn link_url(state: &Core, key: &str) -> String {
    format!("{}/join/{key}/", state.config.chat.external_url)
}

/// Who hears that invitations changed: the active administrators and the invitation's creator.
pub fn audience(c: &Connection, referrer: UserId) -> Result<Vec<UserId>> {
    let mut out: Vec<UserId> = users_db::all(c)?
        .into_iter()
        .filter(|u| u.is_active && u.role.is_admin())
        .map(|u| u.id)
        .collect();
    if !out.contains(&referrer) {
        out.push(referrer);
    }
    Ok(out)
}

/// Guests and bots may not manage invitations at all (upstream's `require_member_or_admin`).
fn member_or_admin(actor: &User) -> Result<()> {
    if actor.role == Role::Guest {
        return Err(Error::bad_request("Not allowed for guest users"));
    }
    if actor.is_bot {
        return Err(Error::bad_request(
            "This endpoint does not accept bot requests.",
        ));
    }
    Ok(())
}

/// Owners alone invite owners; inviting moderators or above, or managing someone else's
/// invitation, needs an administrator.
fn check_role(actor: &User, invited_as: Role, require_admin: bool) -> Result<()> {
    if invited_as == Role::Owner && actor.role != Role::Owner {
        return Err(Error::not_owner());
    }
    if require_admin && !actor.role.is_admin() {
        return Err(Error::bad_request("Must be an organization administrator"));
    }
    Ok(())
}

fn parse_role(code: i64) -> Result<Role> {
    Role::from_code(code).ok_or_else(|| Error::bad_request("Invalid invite_as"))
}

/// What an invitation's options come to once checked.
struct Checked {
    role: Role,
    expires: Option<i64>,
    channels: Vec<ChannelId>,
    groups: Vec<GroupId>,
}

/// The checks shared by both kinds of invitation, in upstream's order (an email invitation
/// without addresses is refused after the role, before the channels).
fn check_options(
    c: &Connection,
    actor: &User,
    opts: &InviteOptions,
    permission: &str,
    no_addresses: bool,
    (now, default_minutes): (i64, i64),
) -> Result<Checked> {
    member_or_admin(actor)?;
    if !user_groups::holds_realm(c, actor, permission)? {
        return Err(Error::bad_request("Insufficient permission"));
    }
    let role = parse_role(opts.invite_as)?;
    check_role(actor, role, role <= Role::Moderator)?;
    if no_addresses {
        return Err(Error::bad_request(
            "You must specify at least one email address.",
        ));
    }
    Ok(Checked {
        role,
        expires: expiry(opts.expires_in_minutes, now, default_minutes)?,
        channels: check_channels(c, actor, &opts.channels)?,
        groups: check_groups(c, actor, &opts.groups)?,
    })
}

fn expiry(asked: Option<Option<i64>>, now: i64, default_minutes: i64) -> Result<Option<i64>> {
    match asked {
        None => Ok(Some(now + default_minutes * 60)),
        Some(None) => Ok(None),
        Some(Some(m)) if m > 0 && m <= i64::from(i32::MAX) => Ok(Some(now + m * 60)),
        Some(Some(_)) => Err(Error::bad_request(
            "Invalid invite_expires_in_minutes: must be a positive number of minutes",
        )),
    }
}

/// The channels must exist and be visible to the actor, who must be able to add others to
/// them (default channels excepted).
fn check_channels(c: &Connection, actor: &User, ids: &[i64]) -> Result<Vec<ChannelId>> {
    let mut out = Vec::new();
    let mut refused = false;
    for &id in ids {
        let invalid =
            || Error::bad_request(format!("Invalid channel ID {id}. No invites were sent."));
        let ch = channels_db::get(c, ChannelId(id))?
            .filter(|ch| !ch.is_archived)
            .ok_or_else(invalid)?;
        let a = access(c, actor, ch)?;
        if !a.metadata {
            return Err(invalid());
        }
        if !a.channel.is_default && !may_add_others(c, actor, &a)? {
            refused = true;
        }
        if !out.contains(&a.channel.id) {
            out.push(a.channel.id);
        }
    }
    let may_subscribe_others = user_groups::holds_realm(c, actor, "can_add_subscribers_group")?;
    if refused || !out.is_empty() && !may_subscribe_others {
        return Err(Error::bad_request(
            "You do not have permission to subscribe other users to channels.",
        ));
    }
    Ok(out)
}

/// The groups must be user-defined, active groups the actor may add members to (the group's
/// managers and its `can_add_members_group`).
fn check_groups(c: &Connection, actor: &User, ids: &[i64]) -> Result<Vec<GroupId>> {
    let mut out = Vec::new();
    for &id in ids {
        let g = groups::record(c, GroupId(id))?
            .ok_or_else(|| Error::bad_request("Invalid user group"))?;
        if g.deactivated {
            return Err(Error::bad_request("User group is deactivated."));
        }
        if g.is_system_group || !user_groups::may_add_members(c, actor, &g)? {
            return Err(Error::bad_request("Insufficient permission"));
        }
        if !out.contains(&g.id) {
            out.push(g.id);
        }
    }
    Ok(out)
}

fn check_welcome_text(actor: &User, text: &Option<String>) -> Result<()> {
    let Some(text) = text else { return Ok(()) };
    if text.contains('\0') {
        return Err(Error::bad_request(
            "welcome_message_custom_text must not contain null bytes",
        ));
    }
    if text.chars().count() > MAX_WELCOME_TEXT_LENGTH {
        return Err(Error::bad_request(format!(
            "welcome_message_custom_text is too long (limit: {MAX_WELCOME_TEXT_LENGTH} characters)"
        )));
    }
    if !actor.role.is_admin() {
        return Err(Error::bad_request("Must be an organization administrator"));
    }
    Ok(())
}

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

fn invitation_mail(state: &Core, referrer: &User, email: &str, key: &str) -> Mail {
    let link = link_url(state, key);
    let realm = &state.config.chat.realm_name;
    Mail {
        to: email.to_string(),
        subject: format!("{} invited you to join {realm}", referrer.full_name),
        body: format!(
            "Hi,\n\n{} ({}) invited you to join {realm}, an organization on {}.\n\n\
             To sign up, open this link:\n\n{link}\n\n\
             If you did not expect this invitation, you can ignore this mail.\n",
            referrer.full_name, referrer.email, state.config.chat.external_url
        ),
        link,
    }
}

/// `POST /invites`: invites each address; the valid invitations are sent even when some
/// addresses already have accounts (then `INVITATION_FAILED` lists those). Returns after the
/// commit; the mail goes out in the background.
pub async fn invite(
    state: &Core,
    actor: &User,
    emails_raw: &str,
    opts: InviteOptions,
) -> Result<()> {
    let referrer = actor.clone();
    let actor = actor.clone();
    let raw = emails_raw.to_string();
    let default_minutes = state.config.chat.invitation_link_validity_minutes;
    let daily_max = state.config.limits.max_invites_per_day as i64;
    let now = crate::time::now_secs();
    let (sent, skipped) = state
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
            let mut sent = Vec::new();
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
                sent.push((email, inv.key.0));
            }
            tx.emit(Event::InvitesChanged { referrer: actor.id });
            Ok((sent, skipped))
        })
        .await?;
    for (email, key) in &sent {
        state
            .mailer
            .send(invitation_mail(state, &referrer, email, key));
    }
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

/// `POST /invites/multiuse`: a reusable link; returns its URL.
pub async fn create_link(state: &Core, actor: &User, opts: InviteOptions) -> Result<String> {
    let actor = actor.clone();
    let default_minutes = state.config.chat.invitation_link_validity_minutes;
    let now = crate::time::now_secs();
    let key = state
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
                realm_settings::CREATE_MULTIUSE_INVITE,
                false,
                (now, default_minutes),
            )?;
            check_welcome_text(&actor, &opts.welcome_text)?;
            let inv = Invitation {
                id: InvitationId(0),
                multiuse: true,
                email: None,
                key: Secret(new_key()),
                referrer: actor.id,
                invited_as: role,
                created: now,
                expires,
                notify_referrer: false,
                include_defaults: opts.include_defaults,
                welcome_text: opts.welcome_text.clone(),
                channels,
                groups,
                status: InvitationStatus::Open,
            };
            db::insert(tx, &inv)?;
            tx.emit(Event::InvitesChanged { referrer: actor.id });
            Ok(inv.key.0)
        })
        .await?;
    Ok(link_url(state, &key))
}

/// `GET /invites`: the open, unexpired invitations `actor` may manage (administrators: all;
/// others: their own), oldest first.
pub async fn list(state: &Core, actor: &User) -> Result<Vec<Invitation>> {
    member_or_admin(actor)?;
    let only = (!actor.role.is_admin()).then_some(actor.id);
    let now = crate::time::now_secs();
    state.db.read(move |c| db::open(c, now, only)).await
}

/// Finds an invitation `actor` may manage: an email invitation unless `multiuse`.
fn manageable(c: &Connection, actor: &User, id: i64, multiuse: bool) -> Result<Invitation> {
    member_or_admin(actor)?;
    let none = || Error::bad_request("No such invitation");
    let inv = db::get(c, InvitationId(id))?
        .filter(|i| i.multiuse == multiuse)
        .ok_or_else(none)?;
    if !multiuse && inv.status != InvitationStatus::Open {
        return Err(none());
    }
    if inv.referrer != actor.id {
        check_role(actor, inv.invited_as, true)?;
    }
    if multiuse && inv.status == InvitationStatus::Revoked {
        return Err(Error::bad_request("Invitation has already been revoked"));
    }
    Ok(inv)
}

/// `DELETE /invites/{id}` and `DELETE /invites/multiuse/{id}`.
pub async fn revoke(state: &Core, actor: &User, id: i64, multiuse: bool) -> Result<()> {
    let actor = actor.clone();
    state
        .db
        .write(move |tx| {
            let inv = manageable(tx, &actor, id, multiuse)?;
            db::set_status(tx, inv.id, InvitationStatus::Revoked)?;
            tx.emit(Event::InvitesChanged {
                referrer: inv.referrer,
            });
            Ok(())
        })
        .await
}

/// `POST /invites/{id}/resend`: mails the same link again.
pub async fn resend(state: &Core, actor: &User, id: i64) -> Result<()> {
    let actor = actor.clone();
    let now = crate::time::now_secs();
    let (inv, referrer) = state
        .db
        .write(move |tx| {
            let inv = manageable(tx, &actor, id, false)?;
            if !inv.usable_at(now) {
                return Err(Error::bad_request("No such invitation"));
            }
            let referrer = users_db::get(tx, inv.referrer)?.unwrap_or_else(|| actor.clone());
            tx.emit(Event::InvitesChanged {
                referrer: inv.referrer,
            });
            Ok((inv, referrer))
        })
        .await?;
    let email = inv.email.clone().unwrap_or_default();
    state
        .mailer
        .send(invitation_mail(state, &referrer, &email, &inv.key.0));
    Ok(())
}

/// Why a signup link cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkProblem {
    Unknown,
    Expired,
    Revoked,
    Used,
}

/// The invitation behind a signup link, if it can still be used.
pub fn check_link(c: &Connection, key: &str, now: i64) -> Result<Result<Invitation, LinkProblem>> {
    let Some(inv) = db::by_key(c, key)? else {
        return Ok(Err(LinkProblem::Unknown));
    };
    Ok(match inv.status {
        InvitationStatus::Revoked => Err(LinkProblem::Revoked),
        InvitationStatus::Used => Err(LinkProblem::Used),
        InvitationStatus::Open if !inv.usable_at(now) => Err(LinkProblem::Expired),
        InvitationStatus::Open => Ok(inv),
    })
}

/// `GET /join/<key>/`: the invitation, for the signup form.
pub async fn open_link(state: &Core, key: &str) -> Result<Result<Invitation, LinkProblem>> {
    let key = key.to_string();
    let now = crate::time::now_secs();
    state.db.read(move |c| check_link(c, &key, now)).await
}

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
            tx.emit(Event::InvitesChanged {
                referrer: inv.referrer,
            });
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
            tx.emit(Event::UserGroupMembers {
                group_id: *g,
                user_ids: vec![user.id],
                add: true,
            });
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

    #[test]
    fn invitees_split_on_commas_and_newlines_with_names() {
        assert_eq!(
            parse_invitees("a@x.org, Bea <b@x.org>\nc@x.org,\n A@X.org ,"),
            vec!["a@x.org", "b@x.org", "c@x.org"]
        );
        assert!(parse_invitees(" , \n").is_empty());
    }

    #[test]
    fn invitable_addresses_need_no_quoting() {
        assert!(is_invitable("nina.new+x@example.co.uk"));
        for bad in [
            "x\"@example.com",
            "<x>@example.com",
            "a,b@example.com",
            "x@example",
            "x y@example.com",
        ] {
            assert!(!is_invitable(bad), "{bad}");
        }
    }

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
