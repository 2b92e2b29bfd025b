//! A user's role: who may give which role (owners for the owner role, the last owner keeps
//! it, guests never administer), with the role's events and system-group membership. Nothing
//! else about the account.

use crate::db::{WriteTx, users as users_db};
use crate::error::{Error, Result};
use crate::events::{Event, PersonChange, UserUpdated};
use crate::model::{Role, User};

/// Inside a write: gives `user` a new role on the request of an administrator (`actor_is_owner`
/// says whether an owner), with upstream's checks and events; the same role changes nothing.
pub fn change_role_in(
    tx: &mut WriteTx<'_>,
    actor_is_owner: bool,
    user: &User,
    role: Role,
) -> Result<()> {
    let target = user.id;
    if role == user.role {
        return Ok(());
    }
    if (role == Role::Owner || user.role == Role::Owner) && !actor_is_owner {
        return Err(Error::not_owner());
    }
    if user.role == Role::Owner && users_db::count_active_owners(tx)? <= 1 {
        return Err(Error::bad_request(
            "The owner permission cannot be removed from the only organization owner.",
        ));
    }
    if user.role == Role::Guest && role.is_admin() {
        return Err(Error::bad_request(
            "Guests cannot be organization administrators",
        ));
    }
    users_db::set_role(tx, target, role)?;
    tx.emit(Event::UserUpdated(UserUpdated {
        user_id: target,
        change: PersonChange::Role(role.code()),
    }));
    // The system groups list active users only.
    let (old, new) = if user.is_active {
        (Some(user.role), Some(role))
    } else {
        (None, None)
    };
    for e in crate::domain::user_groups::role_events(target, old, new) {
        tx.emit(e);
    }
    Ok(())
}
