//! The legacy (plaintext) payloads of Zulip's push notification service, as upstream's
//! `push_notifications.py` builds them: the base fields every payload carries, a message's
//! FCM data (every value a string) and APNs payload (alert title and subtitle by upstream's
//! rules, `custom.zulip`), the remove payloads, and the `push/notify` request around them.
//!
//! Typed `Serialize` structs over plain facts the caller read; no I/O, no database.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::Trigger;

use super::content;

/// Message ids one remove payload carries at most (the newest ones), as upstream.
pub const MAX_REMOVE_IDS: usize = 200;

/// A value of `custom.zulip` (APNs keeps its types; FCM stringifies them).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Field {
    Str(String),
    Int(i64),
    Bool(bool),
    Ids(Vec<i64>),
}

impl Field {
    /// The value as FCM data carries it: upstream's `str(value)` (Python's `True`/`False`).
    fn fcm_string(&self) -> String {
        match self {
            Field::Str(s) => s.clone(),
            Field::Int(n) => n.to_string(),
            Field::Bool(true) => "True".into(),
            Field::Bool(false) => "False".into(),
            Field::Ids(ids) => format!(
                "[{}]",
                ids.iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Ordered fields of one payload.
pub type Fields = BTreeMap<&'static str, Field>;

/// The fields every payload starts with (`get_base_payload`).
#[derive(Clone, Debug, PartialEq)]
pub struct Base {
    /// The server's host (with a port when not the default).
    pub server: String,
    pub realm_id: i64,
    pub realm_url: String,
    pub realm_name: String,
    pub user_id: i64,
}

impl Base {
    pub fn fields(&self) -> Fields {
        let mut f = Fields::new();
        f.insert("server", Field::Str(self.server.clone()));
        f.insert("realm_id", Field::Int(self.realm_id));
        f.insert("realm_uri", Field::Str(self.realm_url.clone()));
        f.insert("realm_url", Field::Str(self.realm_url.clone()));
        f.insert("realm_name", Field::Str(self.realm_name.clone()));
        f.insert("user_id", Field::Int(self.user_id));
        f
    }
}

/// Where the message went.
#[derive(Clone, Debug, PartialEq)]
pub enum Where {
    Channel {
        id: i64,
        name: String,
        topic: String,
    },
    /// A direct message: its members (the recipient and the sender included) with their full
    /// names, by id.
    Direct { members: Vec<(i64, String)> },
}

/// What a message's push says.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageFacts {
    pub base: Base,
    pub message_id: i64,
    pub sender_id: i64,
    pub sender_email: String,
    pub sender_full_name: String,
    pub sender_avatar_url: String,
    /// UNIX seconds.
    pub time: i64,
    pub rendered_content: String,
    pub place: Where,
    /// The group whose mention triggered the push (not a personal mention).
    pub mentioned_group: Option<(i64, String)>,
    pub trigger: Trigger,
}

impl MessageFacts {
    fn group_dm(&self) -> Option<&[(i64, String)]> {
        match &self.place {
            Where::Direct { members } if members.len() > 2 => Some(members),
            _ => None,
        }
    }

    /// `get_message_payload`: the fields both platforms share.
    fn common(&self) -> Fields {
        let mut f = self.base.fields();
        f.insert("sender_id", Field::Int(self.sender_id));
        f.insert("sender_email", Field::Str(self.sender_email.clone()));
        f.insert("time", Field::Int(self.time));
        if let Some((id, name)) = &self.mentioned_group {
            f.insert("mentioned_user_group_id", Field::Int(*id));
            f.insert("mentioned_user_group_name", Field::Str(name.clone()));
        }
        match &self.place {
            Where::Channel { id, name, topic } => {
                f.insert("recipient_type", Field::Str("stream".into()));
                f.insert("stream", Field::Str(name.clone()));
                f.insert("stream_id", Field::Int(*id));
                f.insert("topic", Field::Str(topic.clone()));
            }
            Where::Direct { .. } => {
                f.insert("recipient_type", Field::Str("private".into()));
                if let Some(members) = self.group_dm() {
                    let mut ids: Vec<i64> = members.iter().map(|(id, _)| *id).collect();
                    ids.sort_unstable();
                    let joined = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
                    f.insert("pm_users", Field::Str(joined));
                }
            }
        }
        f
    }

    /// `get_apns_alert_title`.
    pub fn title(&self) -> String {
        match &self.place {
            Where::Channel { name, topic, .. } => format!("#{name} > {topic}"),
            Where::Direct { .. } => match self.group_dm() {
                Some(members) => {
                    let mut names: Vec<&str> = members.iter().map(|(_, n)| n.as_str()).collect();
                    names.sort_unstable();
                    names.join(", ")
                }
                None => self.sender_full_name.clone(),
            },
        }
    }

    /// `get_apns_alert_subtitle`.
    pub fn subtitle(&self) -> String {
        let name = &self.sender_full_name;
        if self.trigger == Trigger::Mentioned {
            return match &self.mentioned_group {
                Some((_, group)) => format!("{name} mentioned @{group}:"),
                None => format!("{name} mentioned you:"),
            };
        }
        if self.trigger.is_wildcard() {
            return format!("{name} mentioned everyone:");
        }
        if matches!(self.place, Where::Direct { .. }) && self.group_dm().is_none() {
            return String::new();
        }
        format!("{name}:")
    }

    /// The FCM data and options (`get_message_payload_gcm`).
    pub fn fcm(&self) -> (BTreeMap<&'static str, String>, FcmOptions) {
        let (text, truncated) = content::truncate(&content::plain_text(&self.rendered_content));
        let mut f = self.common();
        f.insert("event", Field::Str("message".into()));
        f.insert("zulip_message_id", Field::Int(self.message_id));
        f.insert("content", Field::Str(text));
        f.insert("content_truncated", Field::Bool(truncated));
        f.insert(
            "sender_full_name",
            Field::Str(self.sender_full_name.clone()),
        );
        f.insert(
            "sender_avatar_url",
            Field::Str(self.sender_avatar_url.clone()),
        );
        (stringified(&f), FcmOptions { priority: "high" })
    }

    /// The APNs payload (`get_message_payload_apns`).
    pub fn apns(&self) -> ApnsPayload {
        let (text, _) = content::truncate(&content::plain_text(&self.rendered_content));
        let mut zulip = self.common();
        zulip.insert("message_ids", Field::Ids(vec![self.message_id]));
        ApnsPayload {
            alert: Some(Alert {
                title: self.title(),
                subtitle: self.subtitle(),
                body: text,
            }),
            sound: Some("default"),
            badge: 0,
            custom: Custom { zulip },
        }
    }
}

fn stringified(f: &Fields) -> BTreeMap<&'static str, String> {
    f.iter().map(|(k, v)| (*k, v.fcm_string())).collect()
}

/// The newest [`MAX_REMOVE_IDS`] ids, ascending.
pub fn newest_ids(ids: &[i64]) -> Vec<i64> {
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let skip = ids.len().saturating_sub(MAX_REMOVE_IDS);
    ids.split_off(skip)
}

fn joined(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

/// The remove payloads for `ids` (already cut by [`newest_ids`]; not empty):
/// `get_remove_payload_gcm` and `get_remove_payload_apns`.
pub fn remove(
    base: &Base,
    ids: &[i64],
) -> (BTreeMap<&'static str, String>, FcmOptions, ApnsPayload) {
    let mut fcm = base.fields();
    fcm.insert("event", Field::Str("remove".into()));
    fcm.insert("zulip_message_ids", Field::Str(joined(ids)));
    fcm.insert(
        "zulip_message_id",
        Field::Int(ids.first().copied().unwrap_or_default()),
    );
    let mut zulip = base.fields();
    zulip.insert("event", Field::Str("remove".into()));
    zulip.insert("zulip_message_ids", Field::Str(joined(ids)));
    let apns = ApnsPayload {
        alert: None,
        sound: None,
        badge: 0,
        custom: Custom { zulip },
    };
    (stringified(&fcm), FcmOptions { priority: "normal" }, apns)
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FcmOptions {
    pub priority: &'static str,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Alert {
    pub title: String,
    pub subtitle: String,
    pub body: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Custom {
    pub zulip: Fields,
}

/// An APNs payload as the service takes it (it moves `custom` beside `aps` itself).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ApnsPayload {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alert: Option<Alert>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sound: Option<&'static str>,
    pub badge: i64,
    pub custom: Custom,
}

/// The body of `POST remotes/push/notify` (`send_notifications_to_bouncer`).
#[derive(Clone, Debug, Serialize)]
pub struct NotifyRequest {
    pub user_id: i64,
    pub realm_uuid: String,
    pub apns_payload: ApnsPayload,
    pub gcm_payload: BTreeMap<&'static str, String>,
    pub gcm_options: FcmOptions,
    pub android_devices: Vec<String>,
    pub apple_devices: Vec<String>,
}

/// The body of `POST remotes/push/test_notification`, one per device.
#[derive(Clone, Debug, Serialize)]
pub struct TestRequest {
    pub realm_uuid: String,
    pub user_id: i64,
    pub token: String,
    /// 1 = APNs, 2 = FCM.
    pub token_kind: i64,
    pub base_payload: Fields,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(place: Where, trigger: Trigger, group: Option<(i64, String)>) -> MessageFacts {
        MessageFacts {
            base: Base {
                server: "chat.example.com".into(),
                realm_id: 1,
                realm_url: "https://chat.example.com".into(),
                realm_name: "Example".into(),
                user_id: 7,
            },
            message_id: 42,
            sender_id: 3,
            sender_email: "sam@example.com".into(),
            sender_full_name: "Sam".into(),
            sender_avatar_url: "https://a/x".into(),
            time: 1700000000,
            rendered_content: "<p>hello</p>".into(),
            place,
            mentioned_group: group,
            trigger,
        }
    }

    #[test]
    fn titles_and_subtitles_follow_upstream() {
        let channel = Where::Channel {
            id: 5,
            name: "dev".into(),
            topic: "build".into(),
        };
        let f = facts(channel.clone(), Trigger::Mentioned, None);
        assert_eq!(
            (f.title(), f.subtitle()),
            ("#dev > build".into(), "Sam mentioned you:".into())
        );
        let f = facts(channel.clone(), Trigger::Mentioned, Some((9, "ops".into())));
        assert_eq!(f.subtitle(), "Sam mentioned @ops:");
        let f = facts(channel.clone(), Trigger::StreamWildcardMentioned, None);
        assert_eq!(f.subtitle(), "Sam mentioned everyone:");
        let f = facts(channel, Trigger::StreamPushNotify, None);
        assert_eq!(f.subtitle(), "Sam:");
        let dm = Where::Direct {
            members: vec![(3, "Sam".into()), (7, "Zoe".into())],
        };
        let f = facts(dm, Trigger::DirectMessage, None);
        assert_eq!((f.title(), f.subtitle()), ("Sam".into(), String::new()));
        assert!(!f.fcm().0.contains_key("pm_users"));
        let group = Where::Direct {
            members: vec![(7, "Zoe".into()), (3, "Sam".into()), (12, "Ann".into())],
        };
        let f = facts(group, Trigger::DirectMessage, None);
        assert_eq!(
            (f.title(), f.subtitle()),
            ("Ann, Sam, Zoe".into(), "Sam:".into())
        );
        assert_eq!(f.fcm().0["pm_users"], "3,7,12");
        assert_eq!(f.fcm().0["content_truncated"], "False");
    }

    #[test]
    fn removes_keep_the_newest_200() {
        let ids: Vec<i64> = (1..=250).rev().collect();
        let kept = newest_ids(&ids);
        assert_eq!((kept.len(), kept[0], kept[199]), (200, 51, 250));
    }
}
