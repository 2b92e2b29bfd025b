//! What a custom profile field value may be, by field type: lengths, choices of a select
//! field, dates, links and user lists. Returns the text Zulip stores (a user list as its JSON
//! text). Changes nothing; setting values is `domain::users`.

use serde_json::Value;

use crate::db::users as users_db;
use crate::error::{Error, Result};
use crate::ids::UserId;
use crate::model::{ProfileField, ProfileFieldType};

/// A JSON integer (not a float, not a string).
fn json_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) if n.is_i64() => n.as_i64(),
        _ => None,
    }
}

/// Checks a value against its field's type; returns the text to store.
pub fn validate(c: &rusqlite::Connection, field: &ProfileField, value: &Value) -> Result<String> {
    let name = &field.name;
    let text = || -> Result<String> {
        value
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| Error::bad_request(format!("{name} is not a string")))
    };
    let capped = |limit: usize| -> Result<String> {
        let s = text()?;
        if s.chars().count() > limit {
            return Err(Error::bad_request(format!(
                "{name} is too long (limit: {limit} characters)"
            )));
        }
        Ok(s)
    };
    match field.field_type {
        ProfileFieldType::ShortText
        | ProfileFieldType::Pronouns
        | ProfileFieldType::ExternalAccount => capped(50),
        ProfileFieldType::LongText => capped(500),
        ProfileFieldType::Select => {
            let s = text()?;
            let choices: serde_json::Map<String, Value> =
                serde_json::from_str(&field.field_data).unwrap_or_default();
            if !choices.contains_key(&s) {
                return Err(Error::bad_request(format!(
                    "'{s}' is not a valid choice for '{name}'."
                )));
            }
            Ok(s)
        }
        ProfileFieldType::Date => {
            let s = text()?;
            if !is_iso_date(&s) {
                return Err(Error::bad_request(format!("{name} is not a date")));
            }
            Ok(s)
        }
        ProfileFieldType::Link => {
            let s = capped(500)?;
            if !(s.starts_with("http://") || s.starts_with("https://"))
                || s.contains(char::is_whitespace)
            {
                return Err(Error::bad_request(format!("{name} is not a URL")));
            }
            Ok(s)
        }
        ProfileFieldType::User => {
            let ids = value
                .as_array()
                .ok_or_else(|| Error::bad_request(format!("{name} is not a list")))?;
            let mut out = Vec::new();
            for v in ids {
                let id = json_int(v).ok_or_else(|| {
                    Error::bad_request(format!("{name} is not a list of integers"))
                })?;
                if users_db::get(c, UserId(id))?.is_none() {
                    return Err(Error::bad_request(format!("Invalid user ID: {id}")));
                }
                out.push(id);
            }
            Ok(serde_json::to_string(&out).expect("ints serialize"))
        }
    }
}

fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().ok();
    match (num(0..4), num(5..7), num(8..10)) {
        (Some(_), Some(m), Some(d)) => (1..=12).contains(&m) && (1..=31).contains(&d),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates_need_the_dashed_form_and_a_real_month_and_day() {
        assert!(is_iso_date("2024-02-29"));
        assert!(!is_iso_date("2024-13-01"));
        assert!(!is_iso_date("2024-1-01"));
        assert!(!is_iso_date("24-01-011"));
    }

    #[test]
    fn only_true_integers_are_user_ids() {
        assert_eq!(json_int(&Value::from(7)), Some(7));
        assert_eq!(json_int(&Value::from(7.5)), None);
        assert_eq!(json_int(&Value::from("7")), None);
    }
}
