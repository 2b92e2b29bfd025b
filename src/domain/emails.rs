//! Email visibility: which address of a user a viewer sees, and which addresses a viewer may
//! use to name a user.
//!
//! Each user's `email_address_visibility` decides who may see their real (delivery) address.
//! Everyone else knows them by their API email, the placeholder `user{id}@{realm host}`. A
//! user always sees their own address; bots' addresses are public. An address a viewer may not
//! see resolves to nobody, exactly like an address no account has, so lookups cannot confirm
//! a hidden address. Owns no storage and no wire shapes.

use rusqlite::Connection;

use crate::db::users as users_db;
use crate::error::Result;
use crate::ids::UserId;
use crate::model::EmailVisibility;
use crate::model::{Role, User};

/// Whether `viewer` may see `target`'s real email address.
pub fn sees_real_email(viewer: &User, target: &User) -> bool {
    if target.id == viewer.id || target.is_bot {
        return true;
    }
    let role = viewer.role;
    match target.email_visibility {
        EmailVisibility::Everyone => true,
        EmailVisibility::Members => role <= Role::Member,
        EmailVisibility::Moderators => role <= Role::Moderator,
        EmailVisibility::Admins => role.is_admin(),
        EmailVisibility::Nobody => false,
    }
}

/// Whether `user`'s API email is their real address (visible to everyone).
pub fn is_public(user: &User) -> bool {
    user.is_bot || user.email_visibility == EmailVisibility::Everyone
}

/// The address other users and the API know `user` by.
pub fn api_email(user: &User, host: &str) -> String {
    if is_public(user) {
        user.email.clone()
    } else {
        placeholder(user.id, host)
    }
}

/// The placeholder API email of a user whose real address is hidden.
pub fn placeholder(id: UserId, host: &str) -> String {
    format!("user{}@{host}", id.0)
}

/// The user id a placeholder address `user{id}@{host}` names, if `email` has that form.
fn placeholder_id(email: &str, host: &str) -> Option<UserId> {
    let (local, domain) = email.rsplit_once('@')?;
    if !domain.eq_ignore_ascii_case(host) {
        return None;
    }
    let digits = local
        .get(..4)
        .filter(|p| p.eq_ignore_ascii_case("user"))
        .map(|_| &local[4..])?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().map(UserId)
}

/// The user `viewer` names by `email`: a user whose API email it is, or whose real address it
/// is when `viewer` may see that address. `None` for every other address, whether or not an
/// account has it.
pub fn resolve(c: &Connection, viewer: &User, host: &str, email: &str) -> Result<Option<User>> {
    let email = email.trim();
    if let Some(u) = users_db::by_email_any(c, email)?
        && sees_real_email(viewer, &u)
    {
        return Ok(Some(u));
    }
    let Some(id) = placeholder_id(email, host) else {
        return Ok(None);
    };
    Ok(users_db::get_any(c, id)?.filter(|u| api_email(u, host).eq_ignore_ascii_case(email)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_name_a_user_only_on_the_realm_host() {
        assert_eq!(
            placeholder_id("user12@chat.test", "chat.test"),
            Some(UserId(12))
        );
        assert_eq!(
            placeholder_id("USER7@Chat.Test", "chat.test"),
            Some(UserId(7))
        );
        assert_eq!(placeholder_id("user12@other.test", "chat.test"), None);
        assert_eq!(placeholder_id("user@chat.test", "chat.test"), None);
        assert_eq!(placeholder_id("user1x@chat.test", "chat.test"), None);
        assert_eq!(placeholder_id("user+1@chat.test", "chat.test"), None);
        assert_eq!(placeholder_id("us@chat.test", "chat.test"), None);
        assert_eq!(placeholder_id("bob@chat.test", "chat.test"), None);
        assert_eq!(
            placeholder_id("user99999999999999999999@chat.test", "chat.test"),
            None
        );
    }
}
