-- Upgrade 4 -> 5: the system bots (Zulip's cross-realm bots) and the realm settings. The bots'
-- API keys are random and never shown; they cannot log in.
ALTER TABLE users ADD COLUMN is_system_bot INTEGER NOT NULL DEFAULT 0;
CREATE TABLE realm_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO users (email, full_name, role, is_bot, bot_type, api_key, date_joined, is_system_bot)
VALUES
    ('notification-bot@zulip.com', 'Notification Bot', 400, 1, 1, lower(hex(randomblob(32))), unixepoch(), 1),
    ('welcome-bot@zulip.com', 'Welcome Bot', 400, 1, 1, lower(hex(randomblob(32))), unixepoch(), 1);
