//! Organization settings endpoint of the chat API: reads `PATCH /realm`'s parameters in the
//! forms `domain::realm_settings` names, calls it, and renders what changed.

use serde_json::Value;

use crate::domain::channels::parse_group_setting;
use crate::domain::realm_settings::{self, Change, ParamForm, RealmValue};
use crate::error::{Error, Result};
use crate::model::User;
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::Params;
use super::wire;

/// # `PATCH /api/v1/realm`
///
/// Administrators change organization settings (owners only for the invitation and
/// group-management permissions and `waiting_period_threshold`), all or nothing. Group-valued
/// settings take `{"new": ..., "old": ...}`; channel-valued ones a channel id or `-1` for none;
/// time limits seconds or `"unlimited"`. Each changed setting is announced as a `realm`
/// `update_dict` event, and the answer carries each changed setting as upstream does (text
/// settings as `"updated"`). Settings Outpost cannot honour are reported in
/// `ignored_parameters_unsupported`.
pub async fn update_realm(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    if !caller.role.is_admin() {
        return Err(Error::not_admin());
    }
    let mut changes = Vec::new();
    for (name, form) in realm_settings::settable() {
        let mut expected_old = None;
        let value = match form {
            ParamForm::Text => p.str(name).map(RealmValue::Str),
            ParamForm::Bool => p.bool(name)?.map(RealmValue::Bool),
            ParamForm::Int => p.int(name)?.map(RealmValue::Int),
            ParamForm::TimeLimit => match p.json(name)? {
                None => None,
                Some(v) => Some(RealmValue::Limit(realm_settings::parse_time_limit(
                    name, &v,
                )?)),
            },
            ParamForm::GroupChange => match p.json(name)? {
                None => None,
                Some(Value::Object(o)) => {
                    let new = o
                        .get("new")
                        .ok_or_else(|| Error::bad_request(format!("{name}[\"new\"] is missing")))?;
                    expected_old = o
                        .get("old")
                        .map(|old| parse_group_setting(name, old))
                        .transpose()?;
                    Some(RealmValue::Group(parse_group_setting(name, new)?))
                }
                Some(_) => return Err(Error::bad_request(format!("{name} is not a dict"))),
            },
        };
        if let Some(value) = value {
            changes.push(Change {
                name,
                value,
                expected_old,
            });
        }
    }
    let changed = realm_settings::update(state, caller, changes).await?;
    let mut out = Success::new();
    for (name, value) in &changed {
        out = match value {
            RealmValue::Str(_) => out.field(name, "updated"),
            v => out.field(name, wire::realm_value(v)),
        };
    }
    Ok(out)
}
