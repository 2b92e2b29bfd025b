//! Register builders for users: `realm_users` (with the caller's identity and abilities),
//! `user_status`, `realm_user_groups`, `custom_profile_fields`, `user_settings` and
//! `realm_user_settings_defaults`.

use rusqlite::Connection;
use serde_json::Value;

use super::{Ctx, State};
use crate::db::users as users_db;
use crate::domain::realm_settings;
use crate::error::Result;
use crate::model::{Role, User, UserStatus};
use crate::zulip::ChatState;
use crate::zulip::wire::{self, CallerAbilities};

/// `realm_bot`: the bots the caller administers with their keys and services (all of the
/// realm's for administrators, their own for others), deactivated ones included.
pub(super) fn realm_bots(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let owner = (!ctx.user.role.is_admin()).then_some(ctx.user.id);
    let mut out = Vec::new();
    for b in users_db::realm_bots(c, owner)? {
        let service = crate::db::bots::service(c, b.id)?;
        let defaults = crate::db::bots::defaults(c, b.id)?;
        out.push(wire::bot(&b, service.as_ref(), &defaults, &ctx.host));
    }
    m.insert("realm_bots".into(), Value::Array(out));
    Ok(())
}

/// `realm_user`: active and deactivated users, the cross-realm bots, and who the caller is
/// and may do.
pub(super) fn realm_users(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let viewer = ctx.viewer();
    let all = users_db::all(c)?;
    let (active, inactive): (Vec<&User>, Vec<&User>) = all.iter().partition(|u| u.is_active);
    let values = crate::db::profile_fields::values(c, None)?;
    let render = |u: &&User| Value::from(wire::user_record(&viewer, u, Some(&values)));
    m.insert(
        "realm_users".into(),
        Value::Array(active.iter().map(render).collect()),
    );
    m.insert(
        "realm_non_active_users".into(),
        Value::Array(inactive.iter().map(render).collect()),
    );
    let mut bots = users_db::system_bots(c)?;
    bots.sort_by(|a, b| a.full_name.cmp(&b.full_name));
    m.insert(
        "cross_realm_bots".into(),
        Value::Array(
            bots.iter()
                .map(|u| Value::from(wire::user_record(&viewer, u, None)))
                .collect(),
        ),
    );
    let me = &ctx.user;
    let member = me.role <= Role::Member;
    let can = CallerAbilities {
        create_public_channels: member
            && crate::domain::user_groups::holds_realm(
                c,
                me,
                realm_settings::CAN_CREATE_PUBLIC_CHANNEL,
            )?,
        create_private_channels: member
            && crate::domain::user_groups::holds_realm(
                c,
                me,
                realm_settings::CAN_CREATE_PRIVATE_CHANNEL,
            )?,
        subscribe_others: member,
        invite_others: member
            && crate::domain::user_groups::holds_realm(c, me, realm_settings::CAN_INVITE_USERS)?,
    };
    wire::caller_identity(&viewer, &can, m);
    Ok(())
}

/// `user_status`: the statuses of active users that have one (away counts).
pub(super) fn user_status(c: &Connection, _ctx: &Ctx, m: &mut State) -> Result<()> {
    let stored = users_db::all_statuses(c)?;
    let none = UserStatus::default();
    let active: Vec<User> = users_db::all(c)?
        .into_iter()
        .filter(|u| u.is_active)
        .collect();
    let statuses = active.iter().map(|u| {
        let s = stored.get(&u.id).unwrap_or(&none);
        (u.id, wire::status(s, u.presence_enabled))
    });
    m.insert("user_status".into(), wire::user_statuses(statuses));
    Ok(())
}

/// `realm_user_groups`: the system and named groups with their direct members (deactivated
/// groups only for clients with the `include_deactivated_groups` capability).
pub(super) fn user_groups(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let groups: Vec<Value> = crate::db::groups::listings(c, ctx.include_deactivated_groups)?
        .iter()
        .map(wire::user_group)
        .collect();
    m.insert("realm_user_groups".into(), Value::Array(groups));
    Ok(())
}

/// `custom_profile_fields`: the field definitions and the field types.
pub(super) fn profile_fields(c: &Connection, _ctx: &Ctx, m: &mut State) -> Result<()> {
    let fields = crate::db::profile_fields::all(c)?;
    m.insert(
        "custom_profile_fields".into(),
        Value::Array(fields.iter().map(wire::profile_field).collect()),
    );
    m.insert(
        "custom_profile_field_types".into(),
        wire::profile_field_types(),
    );
    Ok(())
}

/// `user_settings`: the caller's settings (also at the top level for older clients).
pub(super) fn user_settings(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let current = crate::domain::settings::all_of(c, &ctx.user)?;
    wire::user_settings(
        &current,
        ctx.user.email_visibility as i64,
        ctx.settings_as_object,
        m,
    );
    Ok(())
}

/// `realm_user_settings_defaults`: the settings new users get.
pub(super) fn user_settings_defaults(state: &ChatState, _ctx: &Ctx, out: &mut State) {
    let defaults = crate::domain::settings::defaults();
    let visibility = state.config.chat.email_address_visibility as i64;
    out.insert(
        "realm_user_settings_defaults".into(),
        wire::user_settings_defaults(&defaults, visibility),
    );
}
