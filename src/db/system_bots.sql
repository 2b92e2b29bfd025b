-- The system bots (Zulip's cross-realm bots), applied after schema.sql to a new database and by
-- the upgrade from version 4. Their API keys are random and never shown; they cannot log in.
INSERT INTO users (email, full_name, role, is_bot, bot_type, api_key, date_joined, is_system_bot)
VALUES
    ('notification-bot@zulip.com', 'Notification Bot', 400, 1, 1, lower(hex(randomblob(32))), unixepoch(), 1),
    ('welcome-bot@zulip.com', 'Welcome Bot', 400, 1, 1, lower(hex(randomblob(32))), unixepoch(), 1);
