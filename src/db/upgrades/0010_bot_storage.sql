-- Upgrade 9 -> 10: Bot storage: the key-value pairs a bot keeps on the server (`/bot_storage`, used
-- by stateful bots of the `zulip_bots` package). Keys and values are strings; their summed length
-- in characters is bounded per bot.
CREATE TABLE bot_storage (
    bot_id INTEGER NOT NULL REFERENCES users (id),
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (bot_id, key)
) WITHOUT ROWID;
