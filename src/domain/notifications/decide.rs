//! The notification decision for one recipient of one message, as upstream makes it: which
//! trigger (if any) a push and an email would carry. Plain data in, plain data out: the facts
//! about the user, their subscription and the topic are gathered by `notifications::gather`;
//! whether the user is idle is known only when the job runs (`notifications::jobs`). No I/O.

use super::Trigger;

/// A user's notification settings (upstream's `UserBaseSettings`), with upstream's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotifySettings {
    pub offline_push: bool,
    pub offline_email: bool,
    pub online_push: bool,
    pub stream_push: bool,
    pub stream_email: bool,
    pub wildcard_mentions_notify: bool,
    pub followed_topic_push: bool,
    pub followed_topic_email: bool,
    pub followed_topic_wildcard: bool,
}

impl Default for NotifySettings {
    fn default() -> Self {
        NotifySettings {
            offline_push: true,
            offline_email: true,
            online_push: true,
            stream_push: false,
            stream_email: false,
            wildcard_mentions_notify: true,
            followed_topic_push: true,
            followed_topic_email: true,
            followed_topic_wildcard: true,
        }
    }
}

/// A user's subscription to the message's channel, as far as notifications go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubscriptionNotify {
    pub is_muted: bool,
    pub push: Option<bool>,
    pub email: Option<bool>,
    pub wildcard_mentions_notify: Option<bool>,
}

/// The user's visibility policy for the message's topic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TopicPolicy {
    #[default]
    Inherit,
    Muted,
    Unmuted,
    Followed,
}

impl TopicPolicy {
    /// From the stored number (0 inherit, 1 muted, 2 unmuted, 3 followed).
    pub fn from_stored(n: i64) -> TopicPolicy {
        match n {
            1 => TopicPolicy::Muted,
            2 => TopicPolicy::Unmuted,
            3 => TopicPolicy::Followed,
            _ => TopicPolicy::Inherit,
        }
    }
}

/// Everything the decision needs about one recipient.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recipient {
    /// A direct message (one-to-one or group).
    pub direct: bool,
    /// Mentioned personally or through a group.
    pub mentioned: bool,
    /// The message's channel wildcard applies (`@**all**` in a channel).
    pub stream_wildcard: bool,
    /// The message's topic wildcard applies to this user (a participant of the topic).
    pub topic_wildcard: bool,
    pub settings: NotifySettings,
    /// `None` for a direct message (or a channel message seen without a subscription).
    pub subscription: Option<SubscriptionNotify>,
    pub topic_policy: TopicPolicy,
    /// The user muted the sender.
    pub muted_sender: bool,
    /// The user is the sender (or the editor, for edits).
    pub acting: bool,
    pub is_bot: bool,
    /// The user has a push device registered.
    pub push_device: bool,
}

/// What a recipient would get: the push trigger (when idle, or always with online push), and
/// the email trigger (only when idle).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    pub push: Option<Trigger>,
    /// Push also while the user is active (`enable_online_push_notifications`).
    pub online_push: bool,
    pub email: Option<Trigger>,
}

impl Decision {
    /// Whether anything could be sent.
    pub fn is_empty(&self) -> bool {
        self.push.is_none() && self.email.is_none()
    }
}

/// Whether the user allows a kind of channel notification in this topic: a muted channel
/// (unless the topic is unmuted) or a muted topic says no; else the subscription's own value,
/// else the personal setting.
fn allows_in_topic(r: &Recipient, per_sub: Option<bool>, global: bool) -> bool {
    let Some(sub) = r.subscription else {
        return false;
    };
    if sub.is_muted && r.topic_policy != TopicPolicy::Unmuted {
        return false;
    }
    if r.topic_policy == TopicPolicy::Muted {
        return false;
    }
    per_sub.unwrap_or(global)
}

/// One channel of delivery (push or email): the per-trigger booleans in priority order.
struct Channel {
    /// Personal-mention and direct-message notifications allowed (`enable_offline_*`).
    personal: bool,
    /// Channel notifications (`enable_stream_*` or the subscription's value).
    stream: bool,
    /// Followed-topic notifications (`enable_followed_topic_*`).
    followed: bool,
}

fn first_trigger(
    r: &Recipient,
    ch: &Channel,
    stream_trigger: Trigger,
    followed_trigger: Trigger,
) -> Option<Trigger> {
    let sub_wildcard = r.subscription.and_then(|s| s.wildcard_mentions_notify);
    let wildcard_ok = allows_in_topic(r, sub_wildcard, r.settings.wildcard_mentions_notify);
    let followed = r.topic_policy == TopicPolicy::Followed;
    let followed_wildcard = followed && r.settings.followed_topic_wildcard;
    let candidates = [
        (r.direct && ch.personal, Trigger::DirectMessage),
        (!r.direct && r.mentioned && ch.personal, Trigger::Mentioned),
        (
            r.topic_wildcard && followed_wildcard && ch.personal,
            Trigger::TopicWildcardMentionedInFollowedTopic,
        ),
        (
            r.stream_wildcard && followed_wildcard && ch.personal,
            Trigger::StreamWildcardMentionedInFollowedTopic,
        ),
        (
            r.topic_wildcard && wildcard_ok && ch.personal,
            Trigger::TopicWildcardMentioned,
        ),
        (
            r.stream_wildcard && wildcard_ok && ch.personal,
            Trigger::StreamWildcardMentioned,
        ),
        (!r.direct && followed && ch.followed, followed_trigger),
        (!r.direct && ch.stream, stream_trigger),
    ];
    candidates.into_iter().find(|(on, _)| *on).map(|(_, t)| t)
}

/// The decision for one recipient.
pub fn decide(r: &Recipient) -> Decision {
    if r.acting || r.muted_sender || r.is_bot {
        return Decision::default();
    }
    let s = &r.settings;
    let push = first_trigger(
        r,
        &Channel {
            personal: s.offline_push,
            stream: allows_in_topic(r, r.subscription.and_then(|x| x.push), s.stream_push),
            followed: s.followed_topic_push,
        },
        Trigger::StreamPushNotify,
        Trigger::FollowedTopicPushNotify,
    )
    .filter(|_| r.push_device);
    let email = first_trigger(
        r,
        &Channel {
            personal: s.offline_email,
            stream: allows_in_topic(r, r.subscription.and_then(|x| x.email), s.stream_email),
            followed: s.followed_topic_email,
        },
        Trigger::StreamEmailNotify,
        Trigger::FollowedTopicEmailNotify,
    );
    Decision {
        push,
        online_push: push.is_some() && s.online_push,
        email,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel_member() -> Recipient {
        Recipient {
            subscription: Some(SubscriptionNotify::default()),
            push_device: true,
            ..Recipient::default()
        }
    }

    #[test]
    fn direct_messages_and_mentions_notify_by_default() {
        let dm = Recipient {
            direct: true,
            push_device: true,
            ..Recipient::default()
        };
        let d = decide(&dm);
        assert_eq!(d.push, Some(Trigger::DirectMessage));
        assert_eq!(d.email, Some(Trigger::DirectMessage));
        assert!(d.online_push);
        let m = Recipient {
            mentioned: true,
            ..channel_member()
        };
        assert_eq!(decide(&m).push, Some(Trigger::Mentioned));
        // An ordinary channel message notifies nobody by default.
        assert!(decide(&channel_member()).is_empty());
    }

    #[test]
    fn the_sender_muted_senders_and_bots_are_never_notified() {
        for r in [
            Recipient {
                acting: true,
                direct: true,
                ..Recipient::default()
            },
            Recipient {
                muted_sender: true,
                direct: true,
                ..Recipient::default()
            },
            Recipient {
                is_bot: true,
                direct: true,
                ..Recipient::default()
            },
        ] {
            assert!(decide(&r).is_empty(), "{r:?}");
        }
    }

    #[test]
    fn no_push_without_a_device_but_email_still() {
        let r = Recipient {
            direct: true,
            ..Recipient::default()
        };
        let d = decide(&r);
        assert_eq!(d.push, None);
        assert!(!d.online_push);
        assert_eq!(d.email, Some(Trigger::DirectMessage));
    }

    #[test]
    fn offline_settings_gate_mentions_and_wildcards() {
        let mut r = Recipient {
            mentioned: true,
            stream_wildcard: true,
            ..channel_member()
        };
        r.settings.offline_push = false;
        let d = decide(&r);
        assert_eq!(d.push, None);
        assert_eq!(d.email, Some(Trigger::Mentioned));
        r.settings.online_push = false;
        r.settings.offline_push = true;
        let d = decide(&r);
        assert_eq!(d.push, Some(Trigger::Mentioned));
        assert!(!d.online_push);
    }

    #[test]
    fn wildcards_follow_the_subscription_then_the_setting() {
        let mut r = Recipient {
            stream_wildcard: true,
            ..channel_member()
        };
        assert_eq!(decide(&r).push, Some(Trigger::StreamWildcardMentioned));
        r.settings.wildcard_mentions_notify = false;
        assert!(decide(&r).is_empty());
        r.subscription = Some(SubscriptionNotify {
            wildcard_mentions_notify: Some(true),
            ..SubscriptionNotify::default()
        });
        assert_eq!(decide(&r).email, Some(Trigger::StreamWildcardMentioned));
        r.topic_wildcard = true;
        assert_eq!(decide(&r).email, Some(Trigger::TopicWildcardMentioned));
    }

    #[test]
    fn muted_channels_and_topics_silence_channel_notifications_not_mentions() {
        let mut r = Recipient {
            stream_wildcard: true,
            mentioned: true,
            ..channel_member()
        };
        r.settings.stream_push = true;
        r.subscription = Some(SubscriptionNotify {
            is_muted: true,
            ..SubscriptionNotify::default()
        });
        assert_eq!(decide(&r).push, Some(Trigger::Mentioned));
        r.mentioned = false;
        assert!(decide(&r).is_empty());
        // An unmuted topic in a muted channel notifies again.
        r.topic_policy = TopicPolicy::Unmuted;
        assert_eq!(decide(&r).push, Some(Trigger::StreamWildcardMentioned));
        r.subscription = Some(SubscriptionNotify::default());
        r.topic_policy = TopicPolicy::Muted;
        assert!(decide(&r).is_empty());
    }

    #[test]
    fn followed_topics_notify_even_in_muted_channels() {
        let mut r = Recipient {
            topic_policy: TopicPolicy::Followed,
            ..channel_member()
        };
        r.subscription = Some(SubscriptionNotify {
            is_muted: true,
            ..SubscriptionNotify::default()
        });
        let d = decide(&r);
        assert_eq!(d.push, Some(Trigger::FollowedTopicPushNotify));
        assert_eq!(d.email, Some(Trigger::FollowedTopicEmailNotify));
        r.stream_wildcard = true;
        assert_eq!(
            decide(&r).push,
            Some(Trigger::StreamWildcardMentionedInFollowedTopic)
        );
        r.settings.followed_topic_email = false;
        r.stream_wildcard = false;
        assert_eq!(decide(&r).email, None);
    }

    #[test]
    fn channel_notifications_use_the_subscription_first() {
        let mut r = channel_member();
        r.settings.stream_email = true;
        assert_eq!(decide(&r).email, Some(Trigger::StreamEmailNotify));
        assert_eq!(decide(&r).push, None);
        r.subscription = Some(SubscriptionNotify {
            email: Some(false),
            push: Some(true),
            ..SubscriptionNotify::default()
        });
        let d = decide(&r);
        assert_eq!(d.email, None);
        assert_eq!(d.push, Some(Trigger::StreamPushNotify));
    }
}
