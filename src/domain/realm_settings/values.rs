//! Values of organization settings as they travel: a time limit as a request gives it
//! ([`parse_time_limit`]), a requested value checked against its setting's type and range, and
//! the stored text form of each value (group settings included) and back. Pure functions: no
//! database, no permissions (those are `update`).

use serde_json::Value;

use crate::error::{Error, Result};
use crate::ids::{GroupId, UserId};
use crate::model::{GroupSetting, RealmValue};

use super::catalogue::Kind::{self, Bool, Channel as Chan, Count, Language, Text, TimeLimit};
use super::catalogue::{MAX_COUNT, NAME, Spec};

/// A time limit as a request gives it: positive seconds or `"unlimited"` (no limit).
pub fn parse_time_limit(name: &str, v: &Value) -> Result<Option<i64>> {
    match v {
        Value::String(s) if s == "unlimited" => Ok(None),
        Value::Number(n) if n.as_i64().is_some_and(|s| s > 0) => Ok(n.as_i64()),
        _ => Err(Error::bad_request(format!("Bad value for '{name}': {v}"))),
    }
}

impl Spec {
    /// Reads a stored value; `None` when it no longer fits the setting (the default applies).
    pub(super) fn decode(&self, stored: &str) -> Option<RealmValue> {
        match &self.kind {
            Text(_) | Language => Some(RealmValue::Str(stored.to_string())),
            Bool(_) => stored.parse().ok().map(RealmValue::Bool),
            Count(_) | Chan => stored.parse().ok().map(RealmValue::Int),
            Kind::Range { min, max, .. } => stored
                .parse()
                .ok()
                .filter(|n| (*min..=*max).contains(n))
                .map(RealmValue::Int),
            TimeLimit(_) => match stored {
                "unlimited" => Some(RealmValue::Limit(None)),
                s => s.parse().ok().map(|n| RealmValue::Limit(Some(n))),
            },
            Kind::Group(_) => decode_group(stored).map(RealmValue::Group),
        }
    }

    /// Checks a requested value against the setting's type and range (not the database).
    pub(super) fn check(&self, v: RealmValue) -> Result<RealmValue> {
        let name = self.name;
        let mismatch = || Error::internal(format!("wrong value type for {name}"));
        match (&self.kind, v) {
            (Text(max), RealmValue::Str(s)) => {
                if s.contains('\0') {
                    return Err(Error::bad_request(format!(
                        "{name} must not contain null bytes"
                    )));
                }
                if s.chars().count() > *max {
                    return Err(Error::bad_request(format!(
                        "{name} is too long (limit: {max} characters)"
                    )));
                }
                if name == NAME && s.trim().is_empty() {
                    return Err(Error::bad_request("Organization name can't be empty."));
                }
                Ok(RealmValue::Str(s))
            }
            (Language, RealmValue::Str(s)) => {
                if crate::domain::settings::LANGUAGES
                    .iter()
                    .any(|(c, _)| *c == s)
                {
                    Ok(RealmValue::Str(s))
                } else {
                    Err(Error::bad_request(format!("Invalid language '{s}'")))
                }
            }
            (Bool(_), RealmValue::Bool(b)) => Ok(RealmValue::Bool(b)),
            (Count(_), RealmValue::Int(n)) => {
                if n < 0 {
                    Err(Error::bad_request(format!("{name} is too small")))
                } else if n > MAX_COUNT {
                    Err(Error::bad_request(format!("{name} is too large")))
                } else {
                    Ok(RealmValue::Int(n))
                }
            }
            (Kind::Range { min, max, .. }, RealmValue::Int(n)) => {
                if (*min..=*max).contains(&n) {
                    Ok(RealmValue::Int(n))
                } else {
                    Err(Error::bad_request(format!("Invalid {name}")))
                }
            }
            (TimeLimit(_), RealmValue::Limit(l)) => match l {
                Some(n) if n <= 0 || n > MAX_COUNT => {
                    Err(Error::bad_request(format!("Bad value for '{name}': {n}")))
                }
                l => Ok(RealmValue::Limit(l)),
            },
            // `-1` unsets; no other negative number names anything.
            (Chan, RealmValue::Int(n)) if n < -1 => Err(Error::bad_request("Invalid channel ID")),
            (Chan, RealmValue::Int(n)) => Ok(RealmValue::Int(n)),
            (Kind::Group(_), RealmValue::Group(g)) => Ok(RealmValue::Group(g.normalized())),
            _ => Err(mismatch()),
        }
    }
}

/// Stored form of a group setting: `g:<id>` for one group, else `u:<ids>;g:<ids>`.
fn encode_group(g: &GroupSetting) -> String {
    let list = |ids: &mut dyn Iterator<Item = i64>| {
        ids.map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    };
    match g {
        GroupSetting::Group(id) => format!("g:{}", id.0),
        GroupSetting::Members { users, groups } => format!(
            "u:{};g:{}",
            list(&mut users.iter().map(|u| u.0)),
            list(&mut groups.iter().map(|g| g.0))
        ),
    }
}

fn decode_group(s: &str) -> Option<GroupSetting> {
    fn ids(s: &str) -> Option<Vec<i64>> {
        if s.is_empty() {
            return Some(Vec::new());
        }
        s.split(',').map(|x| x.parse().ok()).collect()
    }
    if let Some((u, g)) = s.split_once(';') {
        let users = ids(u.strip_prefix("u:")?)?;
        let groups = ids(g.strip_prefix("g:")?)?;
        return Some(GroupSetting::Members {
            users: users.into_iter().map(UserId).collect(),
            groups: groups.into_iter().map(GroupId).collect(),
        });
    }
    s.strip_prefix("g:")?
        .parse()
        .ok()
        .map(|id| GroupSetting::Group(GroupId(id)))
}

pub(super) fn encode(v: &RealmValue) -> String {
    match v {
        RealmValue::Bool(b) => b.to_string(),
        RealmValue::Int(n) => n.to_string(),
        RealmValue::Limit(None) => "unlimited".to_string(),
        RealmValue::Limit(Some(n)) => n.to_string(),
        RealmValue::Str(s) => s.clone(),
        RealmValue::Group(g) => encode_group(g),
    }
}

#[cfg(test)]
mod tests {
    use super::super::catalogue::{
        CATALOGUE, DEFAULT_LANGUAGE, DIGEST_WEEKDAY, MESSAGE_CONTENT_EDIT_LIMIT,
        NEW_STREAM_ANNOUNCEMENTS, WAITING_PERIOD_THRESHOLD, spec,
    };
    use super::*;
    use crate::model::system_groups as sys;

    #[test]
    fn catalogue_names_are_unique_and_defaults_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for s in CATALOGUE {
            assert!(seen.insert(s.name), "{} twice", s.name);
            let d = s.default("Outpost");
            assert_eq!(s.decode(&encode(&d)), Some(d), "{}", s.name);
        }
    }

    #[test]
    fn group_values_round_trip_through_their_stored_form() {
        for g in [
            GroupSetting::Group(sys::MEMBERS),
            GroupSetting::Members {
                users: vec![UserId(3), UserId(9)],
                groups: vec![sys::ADMINISTRATORS],
            },
            GroupSetting::Members {
                users: vec![],
                groups: vec![],
            },
        ] {
            assert_eq!(decode_group(&encode_group(&g)), Some(g));
        }
        assert_eq!(decode_group("x"), None);
    }

    #[test]
    fn values_are_checked_against_their_kind() {
        let check = |n: &str, v: RealmValue| spec(n).unwrap().check(v);
        assert_eq!(
            check(NAME, RealmValue::Str("x".repeat(41)))
                .unwrap_err()
                .msg,
            "name is too long (limit: 40 characters)"
        );
        assert_eq!(
            check(DEFAULT_LANGUAGE, RealmValue::Str("xx".into()))
                .unwrap_err()
                .msg,
            "Invalid language 'xx'"
        );
        assert_eq!(
            check(WAITING_PERIOD_THRESHOLD, RealmValue::Int(-1))
                .unwrap_err()
                .msg,
            "waiting_period_threshold is too small"
        );
        assert_eq!(
            check(NEW_STREAM_ANNOUNCEMENTS, RealmValue::Int(-1)).unwrap(),
            RealmValue::Int(-1)
        );
        assert_eq!(
            check(NEW_STREAM_ANNOUNCEMENTS, RealmValue::Int(-7))
                .unwrap_err()
                .msg,
            "Invalid channel ID"
        );
        assert!(check(MESSAGE_CONTENT_EDIT_LIMIT, RealmValue::Limit(Some(0))).is_err());
        assert_eq!(
            check(DIGEST_WEEKDAY, RealmValue::Int(6)).unwrap(),
            RealmValue::Int(6)
        );
        assert_eq!(
            check(DIGEST_WEEKDAY, RealmValue::Int(7)).unwrap_err().msg,
            "Invalid digest_weekday"
        );
        assert_eq!(spec(DIGEST_WEEKDAY).unwrap().decode("9"), None);
        assert_eq!(
            parse_time_limit("x", &Value::String("unlimited".into())).unwrap(),
            None
        );
        assert_eq!(
            parse_time_limit("x", &Value::from(-5)).unwrap_err().msg,
            "Bad value for 'x': -5"
        );
    }
}
