//! Who may invite whom, and with what: the options an invitation carries (role, expiry,
//! channels, groups, welcome text) and their checks in upstream's order, the invitee list and
//! the addresses an invitation may go to. Pure checks over a connection: it must not write
//! invitation rows or send mail.

use rusqlite::Connection;

use crate::db::{channels as channels_db, groups};
use crate::domain::channels::{access, may_add_others};
use crate::domain::user_groups;
use crate::domain::users;
use crate::error::{Error, Result};
use crate::ids::{ChannelId, GroupId};
use crate::model::{Role, User};

/// Longest custom welcome text (upstream's `MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH`).
pub const MAX_WELCOME_TEXT_LENGTH: usize = 8000;

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

/// Guests and bots may not manage invitations at all (upstream's `require_member_or_admin`).
pub(super) fn member_or_admin(actor: &User) -> Result<()> {
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
pub(super) fn check_role(actor: &User, invited_as: Role, require_admin: bool) -> Result<()> {
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
pub(super) struct Checked {
    pub(super) role: Role,
    pub(super) expires: Option<i64>,
    pub(super) channels: Vec<ChannelId>,
    pub(super) groups: Vec<GroupId>,
}

/// The checks shared by both kinds of invitation, in upstream's order (an email invitation
/// without addresses is refused after the role, before the channels).
pub(super) fn check_options(
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

pub(super) fn check_welcome_text(actor: &User, text: &Option<String>) -> Result<()> {
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
}
