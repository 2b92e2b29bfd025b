//! Signup links: the key every invitation is reached by and its URL, reusable links
//! (`POST /invites/multiuse`), and whether a link can still be used. It must not create
//! accounts (that is `signup`) nor send mail.

use rusqlite::Connection;

use crate::db::invites as db;
use crate::domain::core::Core;
use crate::domain::realm_settings;
use crate::error::Result;
use crate::events::{Event, InvitesChanged};
use crate::ids::InvitationId;
use crate::model::{Invitation, InvitationStatus, Secret, User};

use super::rules::{Checked, InviteOptions, check_options, check_welcome_text};

/// Characters of a link key (lower-case letters and digits, like upstream's).
const KEY_LENGTH: usize = 24;
const KEY_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

pub(super) fn new_key() -> String {
    crate::password::random_string(KEY_CHARS, KEY_LENGTH)
}

/// The signup link of an invitation.
pub fn link_url(state: &Core, key: &str) -> String {
    format!("{}/join/{key}/", state.config.chat.external_url)
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
            tx.emit(Event::InvitesChanged(InvitesChanged { referrer: actor.id }));
            Ok(inv.key.0)
        })
        .await?;
    Ok(link_url(state, &key))
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
