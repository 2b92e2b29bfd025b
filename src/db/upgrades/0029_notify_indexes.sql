-- Version 29: indexes for the notification decision on the send path, so a channel message
-- finds its topic's followers and the users with channel notifications on without walking
-- the channel's subscriptions or every topic policy.
CREATE INDEX user_topics_topic ON user_topics (channel_id, topic);
CREATE INDEX subscriptions_notify ON subscriptions (channel_id)
    WHERE push_notifications = 1 OR email_notifications = 1;
CREATE INDEX user_settings_by_name ON user_settings (name, value);
