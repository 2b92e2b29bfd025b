//! Why a user is notified of a message: upstream's notification triggers, in the order in which
//! one wins over another. Stored by name in the notification jobs; shared by the decision
//! (`domain::notifications`), push and email. Plain data, no I/O.

/// One reason to notify a user of a message (upstream's `NotificationTriggers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trigger {
    /// A one-to-one or group direct message.
    DirectMessage,
    /// A personal mention, or a mention of a group the user belongs to.
    Mentioned,
    TopicWildcardMentionedInFollowedTopic,
    StreamWildcardMentionedInFollowedTopic,
    TopicWildcardMentioned,
    StreamWildcardMentioned,
    FollowedTopicPushNotify,
    FollowedTopicEmailNotify,
    StreamPushNotify,
    StreamEmailNotify,
}

impl Trigger {
    /// Every trigger, in priority order (the first that applies wins).
    pub const ALL: [Trigger; 10] = [
        Trigger::DirectMessage,
        Trigger::Mentioned,
        Trigger::TopicWildcardMentionedInFollowedTopic,
        Trigger::StreamWildcardMentionedInFollowedTopic,
        Trigger::TopicWildcardMentioned,
        Trigger::StreamWildcardMentioned,
        Trigger::FollowedTopicPushNotify,
        Trigger::FollowedTopicEmailNotify,
        Trigger::StreamPushNotify,
        Trigger::StreamEmailNotify,
    ];

    /// Upstream's name for the trigger (stored in jobs, shown in emails' context).
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::DirectMessage => "direct_message",
            Trigger::Mentioned => "mentioned",
            Trigger::TopicWildcardMentionedInFollowedTopic => {
                "topic_wildcard_mentioned_in_followed_topic"
            }
            Trigger::StreamWildcardMentionedInFollowedTopic => {
                "stream_wildcard_mentioned_in_followed_topic"
            }
            Trigger::TopicWildcardMentioned => "topic_wildcard_mentioned",
            Trigger::StreamWildcardMentioned => "stream_wildcard_mentioned",
            Trigger::FollowedTopicPushNotify => "followed_topic_push_notify",
            Trigger::FollowedTopicEmailNotify => "followed_topic_email_notify",
            Trigger::StreamPushNotify => "stream_push_notify",
            Trigger::StreamEmailNotify => "stream_email_notify",
        }
    }

    /// The trigger a stored name stands for.
    pub fn parse(name: &str) -> Option<Trigger> {
        Trigger::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// Whether the trigger is a mention of any kind (personal, group or wildcard).
    pub fn is_mention(self) -> bool {
        matches!(
            self,
            Trigger::Mentioned
                | Trigger::TopicWildcardMentionedInFollowedTopic
                | Trigger::StreamWildcardMentionedInFollowedTopic
                | Trigger::TopicWildcardMentioned
                | Trigger::StreamWildcardMentioned
        )
    }

    /// Whether the trigger is a wildcard mention (`@**all**`, `@**topic**`, ...).
    pub fn is_wildcard(self) -> bool {
        self.is_mention() && self != Trigger::Mentioned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in Trigger::ALL {
            assert_eq!(Trigger::parse(t.as_str()), Some(t));
        }
        assert_eq!(Trigger::parse("alert_word"), None);
        assert!(Trigger::StreamWildcardMentioned.is_wildcard());
        assert!(!Trigger::Mentioned.is_wildcard());
        assert!(!Trigger::DirectMessage.is_mention());
    }
}
