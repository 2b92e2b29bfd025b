//! The invitation rows an actor manages: who hears that invitations changed, listing the open
//! ones, finding one an actor may manage, and revoking it. It must not send mail nor create
//! invitations.

use rusqlite::Connection;

use crate::db::{invites as db, users as users_db};
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, InvitesChanged};
use crate::ids::{InvitationId, UserId};
use crate::model::{Invitation, InvitationStatus, User};

use super::rules::{check_role, member_or_admin};

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

/// `GET /invites`: the open, unexpired invitations `actor` may manage (administrators: all;
/// others: their own), oldest first.
pub async fn list(state: &Core, actor: &User) -> Result<Vec<Invitation>> {
    member_or_admin(actor)?;
    let only = (!actor.role.is_admin()).then_some(actor.id);
    let now = crate::time::now_secs();
    state.db.read(move |c| db::open(c, now, only)).await
}

/// Finds an invitation `actor` may manage: an email invitation unless `multiuse`.
pub(super) fn manageable(
    c: &Connection,
    actor: &User,
    id: i64,
    multiuse: bool,
) -> Result<Invitation> {
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
            tx.emit(Event::InvitesChanged(InvitesChanged {
                referrer: inv.referrer,
            }));
            Ok(())
        })
        .await
}
