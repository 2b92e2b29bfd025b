-- Upgrade 12 -> 13: Bot services: what an outgoing-webhook bot (type 3) posts to and how, and which
-- embedded bot (type 4) an embedded bot is, with its configuration. One row per bot of those types;
-- generic and incoming-webhook bots have none. Nothing sends webhooks or runs embedded bots yet:
-- the rows are kept for the code that will.
CREATE TABLE bot_services (
    bot_id       INTEGER PRIMARY KEY REFERENCES users (id),
    -- Outgoing webhooks: the URL posted to, 1 (Zulip format) or 2 (Slack format), the token
    -- the receiver checks. Embedded bots: '' and their interface (1).
    base_url     TEXT NOT NULL,
    interface    INTEGER NOT NULL,
    token        TEXT NOT NULL,
    -- The service's name: the embedded bot's name, or the outgoing webhook's short name.
    service_name TEXT NOT NULL,
    -- Embedded bots' configuration: a JSON object of strings ('{}' when none).
    config_data  TEXT NOT NULL
);
