//! The chat API's events about people (`GET /events`): a person added or changed
//! (`realm_user`) and a person's status (`user_status`). Delivery decides who gets an event;
//! these types only say how it looks. Re-exported by `events`, where the other event shapes
//! live.
//!
//! The fields of the shapes that were JSON trees before they were typed are declared in the
//! order those trees wrote their keys (sorted), so the text clients receive is unchanged;
//! absent fields are skipped, not null.

use serde::Serialize;

use crate::ids::UserId;
use crate::model::UserStatus;

/// `realm_user` `add`: a new person, as the viewer may see them.
#[derive(Serialize)]
pub struct UserAdded<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    op: &'static str,
    person: super::UserRecord<'a>,
}

/// A new person, as `viewer` may see them.
pub fn user_added(person: super::UserRecord<'_>) -> UserAdded<'_> {
    UserAdded {
        kind: "realm_user",
        op: "add",
        person,
    }
}

/// `realm_user` `update`: `person` holds `user_id` and the changed fields.
#[derive(Serialize)]
pub struct UserUpdated<'a> {
    op: &'static str,
    person: Person<'a>,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// A change to a person's record.
pub fn user_updated(person: Person<'_>) -> UserUpdated<'_> {
    UserUpdated {
        kind: "realm_user",
        op: "update",
        person,
    }
}

/// The changed fields of a person, for [`person`].
pub enum PersonField<'a> {
    Active(bool),
    FullName(&'a str),
    Role(i64),
    Timezone {
        email: String,
        timezone: &'a str,
    },
    ProfileField {
        id: i64,
        value: &'a Option<String>,
        rendered_value: &'a Option<String>,
    },
    DeliveryEmail(&'a str),
    NewEmail(String),
    BotOwner(Option<i64>),
}

/// `person` of a `realm_user` update: `user_id` and the one changed field (two for a
/// timezone, which names the email too).
#[derive(Default, Serialize)]
pub struct Person<'a> {
    /// `null` when the bot lost its owner.
    #[serde(skip_serializing_if = "Option::is_none")]
    bot_owner_id: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    custom_profile_field: Option<ProfileFieldValue<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    delivery_email: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    full_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_active: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new_email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timezone: Option<&'a str>,
    user_id: i64,
}

/// A custom profile field's new value (`null`s when cleared).
#[derive(Serialize)]
struct ProfileFieldValue<'a> {
    id: i64,
    rendered_value: &'a Option<String>,
    value: &'a Option<String>,
}

/// `person` for [`user_updated`].
pub fn person(user_id: UserId, field: PersonField<'_>) -> Person<'_> {
    let mut p = Person {
        user_id: user_id.0,
        ..Person::default()
    };
    match field {
        PersonField::Active(a) => p.is_active = Some(a),
        PersonField::FullName(n) => p.full_name = Some(n),
        PersonField::Role(r) => p.role = Some(r),
        PersonField::Timezone { email, timezone } => {
            p.email = Some(email);
            p.timezone = Some(timezone);
        }
        PersonField::ProfileField {
            id,
            value,
            rendered_value,
        } => {
            p.custom_profile_field = Some(ProfileFieldValue {
                id,
                rendered_value,
                value,
            });
        }
        PersonField::DeliveryEmail(e) => p.delivery_email = Some(e),
        PersonField::NewEmail(e) => p.new_email = Some(e),
        PersonField::BotOwner(o) => p.bot_owner_id = Some(o),
    }
    p
}

/// `user_status`: a person's status; a cleared emoji has `reaction_type: ""`, as upstream sends
/// it (the mobile app reads a missing key as "unchanged").
#[derive(Serialize)]
pub struct UserStatusEvent<'a> {
    away: bool,
    emoji_code: &'a str,
    emoji_name: &'a str,
    reaction_type: &'a str,
    status_text: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    user_id: i64,
}

/// A person's status.
pub fn user_status(
    user_id: UserId,
    presence_enabled: bool,
    status: &UserStatus,
) -> UserStatusEvent<'_> {
    UserStatusEvent {
        away: !presence_enabled,
        emoji_code: &status.emoji_code,
        emoji_name: &status.emoji_name,
        reaction_type: &status.reaction_type,
        status_text: &status.status_text,
        kind: "user_status",
        user_id: user_id.0,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn text<T: Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap()
    }

    #[test]
    fn person_updates_keep_the_text_of_their_json_trees() {
        let u = UserId(7);
        let none: Option<String> = None;
        let some = Some("x".to_string());
        let cases = [
            (
                person(u, PersonField::Active(false)),
                json!({"user_id": 7, "is_active": false}),
            ),
            (
                person(u, PersonField::FullName("Bo")),
                json!({"user_id": 7, "full_name": "Bo"}),
            ),
            (
                person(u, PersonField::Role(400)),
                json!({"user_id": 7, "role": 400}),
            ),
            (
                person(
                    u,
                    PersonField::Timezone {
                        email: "b@x".into(),
                        timezone: "UTC",
                    },
                ),
                json!({"user_id": 7, "email": "b@x", "timezone": "UTC"}),
            ),
            (
                person(
                    u,
                    PersonField::ProfileField {
                        id: 3,
                        value: &some,
                        rendered_value: &none,
                    },
                ),
                json!({"user_id": 7, "custom_profile_field":
                    {"id": 3, "value": "x", "rendered_value": null}}),
            ),
            (
                person(u, PersonField::DeliveryEmail("d@x")),
                json!({"user_id": 7, "delivery_email": "d@x"}),
            ),
            (
                person(u, PersonField::NewEmail("n@x".into())),
                json!({"user_id": 7, "new_email": "n@x"}),
            ),
            (
                person(u, PersonField::BotOwner(None)),
                json!({"user_id": 7, "bot_owner_id": null}),
            ),
            (
                person(u, PersonField::BotOwner(Some(9))),
                json!({"user_id": 7, "bot_owner_id": 9}),
            ),
        ];
        for (typed, tree) in cases {
            let tree = json!({"type": "realm_user", "op": "update", "person": tree});
            assert_eq!(text(&user_updated(typed)), text(&tree));
        }
    }

    #[test]
    fn statuses_keep_the_text_of_their_json_trees() {
        let mut status = UserStatus {
            status_text: "out".into(),
            emoji_name: "car".into(),
            emoji_code: "1f697".into(),
            reaction_type: "unicode_emoji".into(),
        };
        assert_eq!(
            text(&user_status(UserId(4), false, &status)),
            text(&json!({"type": "user_status", "user_id": 4, "away": true,
                "status_text": "out", "emoji_name": "car", "emoji_code": "1f697",
                "reaction_type": "unicode_emoji"})),
        );
        // A cleared emoji still says so: an empty reaction type.
        status.emoji_name.clear();
        status.emoji_code.clear();
        status.reaction_type.clear();
        assert_eq!(
            text(&user_status(UserId(4), true, &status)),
            r#"{"away":false,"emoji_code":"","emoji_name":"","reaction_type":"","status_text":"out","type":"user_status","user_id":4}"#,
        );
    }
}
