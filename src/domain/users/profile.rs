//! Changing an existing account's profile: renaming, an administrator's changes to another
//! user (`PATCH /users/{id}`: name, role, email, profile data) and a user's own profile field
//! values. Role rules are `roles`; activation is `deactivation`.

use serde_json::Value;

use crate::db::{WriteTx, profile_fields as fields_db, users as users_db};
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{Event, PersonChange, UserUpdated};
use crate::ids::{ProfileFieldId, UserId};
use crate::model::{ProfileValue, Role, User};

use super::clashes::email_clash;
use super::roles::change_role_in;
use super::values::{check_full_name, is_valid_email};

/// Inside a write: gives `user` a new (already checked) full name and announces it; a name
/// equal to the current one changes nothing.
pub fn rename(tx: &mut WriteTx<'_>, user: &User, name: String) -> Result<()> {
    if name != user.full_name {
        users_db::set_full_name(tx, user.id, &name)?;
        tx.emit(Event::UserUpdated(UserUpdated {
            user_id: user.id,
            change: PersonChange::FullName(name),
        }));
    }
    Ok(())
}

/// A requested change of a profile field value; `None` clears it.
pub struct ProfileEdit {
    pub field_id: i64,
    pub value: Option<Value>,
}

/// What `PATCH /users/{id}` may change.
pub struct UserUpdate {
    pub full_name: Option<String>,
    pub role: Option<i64>,
    pub new_email: Option<String>,
    pub profile_data: Option<Vec<ProfileEdit>>,
}
/// Applies an administrator's changes to another user, all or nothing.
pub async fn update(state: &Core, actor: &User, target: UserId, up: UserUpdate) -> Result<()> {
    if !actor.role.is_admin() {
        return Err(Error::not_admin());
    }
    let role = match up.role {
        Some(code) => {
            Some(Role::from_code(code).ok_or_else(|| Error::bad_request("Invalid role"))?)
        }
        None => None,
    };
    let full_name = up.full_name.as_deref().map(check_full_name).transpose()?;
    if let Some(email) = &up.new_email {
        if !actor.can_change_user_emails {
            return Err(Error::bad_request(
                "User not authorized to change user emails",
            ));
        }
        if actor.role != Role::Owner {
            return Err(Error::not_owner());
        }
        if !is_valid_email(email.trim()) {
            return Err(Error::bad_request("Invalid email address."));
        }
    }
    let actor_is_owner = actor.role == Role::Owner;
    let new_email = up.new_email.map(|e| e.trim().to_string());
    let profile_data = up.profile_data;
    state
        .db
        .write(move |tx| {
            let user =
                users_db::get(tx, target)?.ok_or_else(|| Error::bad_request("No such user"))?;
            if let Some(role) = role {
                change_role_in(tx, actor_is_owner, &user, role)?;
            }
            if let Some(name) = full_name {
                rename(tx, &user, name)?;
            }
            if let Some(edits) = profile_data {
                apply_profile_edits(tx, target, edits)?;
            }
            if let Some(email) = new_email.filter(|e| *e != user.email) {
                if let Some(clash) = email_clash(tx, &email, Some(target))? {
                    return Err(Error::bad_request(clash.message()));
                }
                users_db::set_email(tx, target, &email)?;
                tx.emit(Event::UserUpdated(UserUpdated {
                    user_id: target,
                    change: PersonChange::Email(email),
                }));
            }
            Ok(())
        })
        .await
}

/// A user's own profile field values (`PATCH` and `DELETE /users/me/profile_data`), all or
/// nothing: fields an administrator made not editable by users need an administrator.
pub async fn update_own_profile(state: &Core, me: &User, edits: Vec<ProfileEdit>) -> Result<()> {
    if me.is_bot {
        return Err(Error::bad_request(
            "This endpoint does not accept bot requests.",
        ));
    }
    let (id, is_admin) = (me.id, me.role.is_admin());
    state
        .db
        .write(move |tx| {
            for edit in &edits {
                let field =
                    fields_db::get(tx, ProfileFieldId(edit.field_id))?.ok_or_else(|| {
                        Error::bad_request(format!("Field id {} not found.", edit.field_id))
                    })?;
                if !field.editable_by_user && !is_admin {
                    return Err(Error::bad_request(
                        "You are not allowed to change this field. Contact an administrator to \
                         update it.",
                    ));
                }
            }
            apply_profile_edits(tx, id, edits)
        })
        .await
}

fn apply_profile_edits(
    tx: &mut crate::db::WriteTx<'_>,
    user: UserId,
    edits: Vec<ProfileEdit>,
) -> Result<()> {
    for edit in edits {
        let field_id = ProfileFieldId(edit.field_id);
        let field = fields_db::get(tx, field_id)?
            .ok_or_else(|| Error::bad_request(format!("Field id {} not found.", edit.field_id)))?;
        let value = match edit.value {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::Array(a)) if a.is_empty() => None,
            Some(v) => Some(v),
        };
        let Some(value) = value else {
            fields_db::clear_value(tx, user, field_id)?;
            tx.emit(Event::UserUpdated(UserUpdated {
                user_id: user,
                change: PersonChange::ProfileField {
                    field_id,
                    value: None,
                    rendered_value: None,
                },
            }));
            continue;
        };
        let stored = crate::domain::profile_fields::values::validate(tx, &field, &value)?;
        let rendered = field
            .field_type
            .is_markdown()
            .then(|| crate::markdown::render(&stored));
        fields_db::set_value(
            tx,
            &ProfileValue {
                user_id: user,
                field_id,
                value: stored.clone(),
                rendered_value: rendered.clone(),
            },
        )?;
        tx.emit(Event::UserUpdated(UserUpdated {
            user_id: user,
            change: PersonChange::ProfileField {
                field_id,
                value: Some(stored),
                rendered_value: rendered,
            },
        }));
    }
    Ok(())
}
