-- Upgrade 14 -> 15: Bots' default channels: where a bot's messages go when a client names no
-- channel, which channel's events its queues get, and whether it sees every public channel
-- (upstream's `default_sending_stream`, `default_events_register_stream`,
-- `default_all_public_streams`). One row per bot that has any; none means none.
CREATE TABLE bot_defaults (
    bot_id              INTEGER PRIMARY KEY REFERENCES users (id),
    sending_channel_id  INTEGER REFERENCES channels (id),
    events_channel_id   INTEGER REFERENCES channels (id),
    all_public_channels INTEGER NOT NULL DEFAULT 0
);
