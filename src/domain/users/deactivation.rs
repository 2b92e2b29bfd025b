//! Deactivating and reactivating accounts: an administrator's request (the last owner stays),
//! and inside a write the deactivation itself with the closure of bots the user owns (and
//! bots those own), out of groups, sessions ended, push devices forgotten. Reactivation brings
//! back no bots. Never changes a profile or role.

use crate::db::{WriteTx, users as users_db};
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, UserDeactivated, UserReactivated};
use crate::ids::UserId;
use crate::model::{Role, User};

/// Deactivates a user (not a bot), with the bots they own, on an administrator's request.
pub async fn deactivate(state: &Core, actor: &User, target: UserId) -> Result<()> {
    if !actor.role.is_admin() {
        return Err(Error::not_admin());
    }
    let actor_is_owner = actor.role == Role::Owner;
    state
        .db
        .write(move |tx| {
            let user = users_db::get(tx, target)?
                .filter(|u| u.is_active && !u.is_bot)
                .ok_or_else(|| Error::bad_request("No such user"))?;
            if user.role == Role::Owner {
                if !actor_is_owner {
                    return Err(Error::not_owner());
                }
                if users_db::count_active_owners(tx)? <= 1 {
                    return Err(Error::bad_request(
                        "Cannot deactivate the only organization owner",
                    ));
                }
            }
            deactivate_in(tx, &user)
        })
        .await?;
    // Forgotten devices may have queued a call to the push notification service.
    state.push_wake.notify_one();
    Ok(())
}

/// Inside a write: deactivates an (active, checked) user or bot and announces it: out of its
/// groups, its push registrations forgotten, its web sessions ended (its event queues and
/// cached credentials end when the commit's events are published). The active bots it owns
/// are deactivated first, the same way, as upstream's `do_deactivate_user` does, and so are
/// bots owned by those bots (which bots could make before they were refused `POST /bots`);
/// reactivating the user later brings none of them back.
pub fn deactivate_in(tx: &mut WriteTx<'_>, user: &User) -> Result<()> {
    for bot in owned_bots_closure(tx, user.id)? {
        deactivate_one(tx, &bot)?;
    }
    deactivate_one(tx, user)
}

/// The active bots `owner` owns, then the active bots those own, and so on, each once.
fn owned_bots_closure(c: &rusqlite::Connection, owner: UserId) -> Result<Vec<User>> {
    let mut seen = std::collections::HashSet::from([owner]);
    let mut found = Vec::new();
    let mut next = 0;
    let mut current = owner;
    loop {
        for bot in users_db::active_bots_owned_by(c, current)? {
            if seen.insert(bot.id) {
                found.push(bot);
            }
        }
        let Some(bot) = found.get(next) else {
            return Ok(found);
        };
        current = bot.id;
        next += 1;
    }
}

fn deactivate_one(tx: &mut WriteTx<'_>, user: &User) -> Result<()> {
    let target = user.id;
    users_db::set_active(tx, target, false)?;
    crate::domain::sessions::end_all_for(tx, target)?;
    let mut left = crate::domain::user_groups::remove_from_all(tx, target)?;
    left.extend(crate::domain::user_groups::role_events(
        target,
        Some(user.role),
        None,
    ));
    // A deactivated user's devices get no notifications; their registrations go.
    crate::domain::push::forget_devices(tx, target)?;
    tx.emit(Event::UserDeactivated(UserDeactivated { user_id: target }));
    for e in left {
        tx.emit(e);
    }
    Ok(())
}

/// Reactivates a deactivated user or bot on an administrator's request; a user's bots stay
/// as they are.
pub async fn reactivate(state: &Core, actor: &User, target: UserId) -> Result<()> {
    if !actor.role.is_admin() {
        return Err(Error::not_admin());
    }
    state
        .db
        .write(move |tx| {
            let user =
                users_db::get(tx, target)?.ok_or_else(|| Error::bad_request("No such user"))?;
            if user.is_active {
                return Err(Error::bad_request("User is already active."));
            }
            users_db::set_active(tx, target, true)?;
            tx.emit(Event::UserReactivated(UserReactivated { user_id: target }));
            for e in crate::domain::user_groups::role_events(target, None, Some(user.role)) {
                tx.emit(e);
            }
            Ok(())
        })
        .await
}
