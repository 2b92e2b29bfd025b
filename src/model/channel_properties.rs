//! Names of what can change on a channel and on a subscription, as plain enums: the domain
//! emits them in events and delivery matches them, so no property name travels as a string.
//! Each knows its API name; nothing here knows JSON.

use super::ChannelSetting;

/// A channel property `PATCH /streams/{id}` changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelProperty {
    Name,
    Description,
    InviteOnly,
    HistoryPublicToSubscribers,
    IsDefault,
    MessageRetentionDays,
    TopicsPolicy,
    /// The channel folder it sits in.
    FolderId,
    /// One of the permission settings.
    Setting(ChannelSetting),
}

impl ChannelProperty {
    /// The API name (the `property` of upstream's `stream` update event).
    pub fn name(self) -> &'static str {
        match self {
            ChannelProperty::Name => "name",
            ChannelProperty::Description => "description",
            ChannelProperty::InviteOnly => "invite_only",
            ChannelProperty::HistoryPublicToSubscribers => "history_public_to_subscribers",
            ChannelProperty::IsDefault => "is_default",
            ChannelProperty::MessageRetentionDays => "message_retention_days",
            ChannelProperty::TopicsPolicy => "topics_policy",
            ChannelProperty::FolderId => "folder_id",
            ChannelProperty::Setting(s) => s.name(),
        }
    }
}

/// A personal subscription property (`POST /users/me/subscriptions/properties`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubscriptionProperty {
    Color,
    IsMuted,
    /// The legacy inverse of `is_muted`.
    InHomeView,
    PinToTop,
    DesktopNotifications,
    AudibleNotifications,
    PushNotifications,
    EmailNotifications,
    WildcardMentionsNotify,
}

impl SubscriptionProperty {
    pub const ALL: [SubscriptionProperty; 9] = [
        SubscriptionProperty::Color,
        SubscriptionProperty::IsMuted,
        SubscriptionProperty::InHomeView,
        SubscriptionProperty::PinToTop,
        SubscriptionProperty::DesktopNotifications,
        SubscriptionProperty::AudibleNotifications,
        SubscriptionProperty::PushNotifications,
        SubscriptionProperty::EmailNotifications,
        SubscriptionProperty::WildcardMentionsNotify,
    ];

    /// The API name.
    pub fn name(self) -> &'static str {
        match self {
            SubscriptionProperty::Color => "color",
            SubscriptionProperty::IsMuted => "is_muted",
            SubscriptionProperty::InHomeView => "in_home_view",
            SubscriptionProperty::PinToTop => "pin_to_top",
            SubscriptionProperty::DesktopNotifications => "desktop_notifications",
            SubscriptionProperty::AudibleNotifications => "audible_notifications",
            SubscriptionProperty::PushNotifications => "push_notifications",
            SubscriptionProperty::EmailNotifications => "email_notifications",
            SubscriptionProperty::WildcardMentionsNotify => "wildcard_mentions_notify",
        }
    }

    /// The property with this API name, if there is one.
    pub fn from_name(name: &str) -> Option<SubscriptionProperty> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscription_property_names_round_trip() {
        for p in SubscriptionProperty::ALL {
            assert_eq!(SubscriptionProperty::from_name(p.name()), Some(p));
        }
        assert_eq!(SubscriptionProperty::from_name("nope"), None);
    }
}
