//! Custom profile fields: creating them and listing them; what a value of each field type may
//! be is [`values`].
//!
//! Organization administrators define fields; users' values are set through the user update
//! rules in `domain::users`. Must not know any wire format beyond the JSON text Zulip keeps in
//! `field_data`.

pub mod values;

use serde_json::{Map, Value};

use crate::db::profile_fields as db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::Event;
use crate::ids::ProfileFieldId;
use crate::model::{ProfileField, ProfileFieldType, User};

pub const MAX_NAME_LENGTH: usize = 40;
pub const MAX_HINT_LENGTH: usize = 80;

/// An external account type that external-account fields may name by `subtype` (Zulip's
/// default external accounts), with the profile URL pattern its values fill in.
pub struct ExternalAccount {
    pub subtype: &'static str,
    pub name: &'static str,
    pub text: &'static str,
    pub hint: &'static str,
    pub url_pattern: &'static str,
}

/// The external account types every organization offers (`realm_default_external_accounts`).
pub const DEFAULT_EXTERNAL_ACCOUNTS: &[ExternalAccount] = &[
    ExternalAccount {
        subtype: "github",
        name: "GitHub",
        text: "GitHub username",
        hint: "",
        url_pattern: "https://github.com/%(username)s",
    },
    ExternalAccount {
        subtype: "twitter",
        name: "Twitter",
        text: "Twitter username",
        hint: "",
        url_pattern: "https://twitter.com/%(username)s",
    },
];

pub struct NewField {
    pub name: String,
    pub hint: String,
    pub field_type: i64,
    pub field_data: Option<Value>,
    pub display_in_profile_summary: bool,
    pub required: bool,
    pub editable_by_user: bool,
}

pub async fn list(state: &Core) -> Result<Vec<ProfileField>> {
    state.db.read(db::all).await
}

/// Creates a field on an administrator's request; returns its id.
pub async fn create(state: &Core, actor: &User, new: NewField) -> Result<ProfileFieldId> {
    if !actor.role.is_admin() {
        return Err(Error::not_admin());
    }
    let field_type = ProfileFieldType::from_code(new.field_type)
        .ok_or_else(|| Error::bad_request("Invalid field type."))?;
    let mut name = new.name.trim().to_string();
    let hint = new.hint.trim().to_string();
    let field_data = match field_type {
        ProfileFieldType::Select => {
            let choices = check_choices(new.field_data.as_ref())?;
            Value::Object(choices).to_string()
        }
        ProfileFieldType::ExternalAccount => {
            let (data, default_name) = check_external_account(new.field_data.as_ref())?;
            if name.is_empty() {
                name = default_name.to_string();
            }
            data
        }
        _ => String::new(),
    };
    if name.is_empty() {
        return Err(Error::bad_request("Label cannot be blank."));
    }
    if name.chars().count() > MAX_NAME_LENGTH {
        return Err(Error::bad_request(format!(
            "name is too long (limit: {MAX_NAME_LENGTH} characters)"
        )));
    }
    for (field, value) in [("name", &name), ("hint", &hint)] {
        if value.contains('\0') {
            return Err(Error::bad_request(format!(
                "{field} must not contain null bytes"
            )));
        }
    }
    if hint.chars().count() > MAX_HINT_LENGTH {
        return Err(Error::bad_request(format!(
            "hint is too long (limit: {MAX_HINT_LENGTH} characters)"
        )));
    }
    if new.display_in_profile_summary
        && matches!(
            field_type,
            ProfileFieldType::LongText | ProfileFieldType::User
        )
    {
        return Err(Error::bad_request(
            "Field type not supported for display in profile summary.",
        ));
    }
    let field = ProfileField {
        id: ProfileFieldId(0),
        name,
        hint,
        field_type,
        field_data,
        order: 0,
        display_in_profile_summary: new.display_in_profile_summary,
        required: new.required,
        editable_by_user: new.editable_by_user,
    };
    state
        .db
        .write(move |tx| {
            if db::name_taken(tx, &field.name)? {
                return Err(Error::bad_request(
                    "A field with that label already exists.",
                ));
            }
            let id = db::insert(tx, &field)?;
            tx.emit(Event::ProfileFieldsChanged);
            Ok(id)
        })
        .await
}

/// Select options: `{"<id>": {"text": "...", "order": "<n>"}, ...}`, at least one.
fn check_choices(data: Option<&Value>) -> Result<Map<String, Value>> {
    let Some(Value::Object(choices)) = data else {
        return Err(Error::bad_request("field_data is not a dict"));
    };
    if choices.is_empty() {
        return Err(Error::bad_request("Field must have at least one choice."));
    }
    let mut seen = Vec::new();
    for (key, choice) in choices {
        let text = choice.get("text").and_then(Value::as_str);
        let order = choice.get("order").and_then(Value::as_str);
        match (text, order) {
            (Some(t), Some(_)) if !t.trim().is_empty() => {
                if seen.contains(&t) {
                    return Err(Error::bad_request("Field must not have duplicate choices."));
                }
                seen.push(t);
            }
            _ => {
                return Err(Error::bad_request(format!(
                    "field_data[\"{key}\"] must have a non-empty \"text\" and an \"order\""
                )));
            }
        }
    }
    Ok(choices.clone())
}

/// External account settings; returns the stored JSON and the default label.
fn check_external_account(data: Option<&Value>) -> Result<(String, &'static str)> {
    let Some(Value::Object(obj)) = data else {
        return Err(Error::bad_request("field_data is not a dict"));
    };
    let subtype = obj.get("subtype").and_then(Value::as_str);
    let known = DEFAULT_EXTERNAL_ACCOUNTS
        .iter()
        .find(|a| Some(a.subtype) == subtype);
    let default_name = match (known, subtype) {
        (Some(account), _) => account.name,
        (None, Some("custom")) => {
            let pattern = obj.get("url_pattern").and_then(Value::as_str).unwrap_or("");
            if !pattern.contains("%(username)s") {
                return Err(Error::bad_request(
                    "Malformed URL pattern: it must contain %(username)s.",
                ));
            }
            ""
        }
        (None, _) => return Err(Error::bad_request("Invalid external account type")),
    };
    Ok((Value::Object(obj.clone()).to_string(), default_name))
}
