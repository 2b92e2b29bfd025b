-- Upgrade 13 -> 14: outgoing-webhook deliveries: one row per (message, bot) that a message
-- triggered, written in the transaction that stores the message, so a delivery is never lost and
-- survives restarts. A row is deleted in the transaction that posts the bot's answer (or its
-- failure notice).
CREATE TABLE outgoing_webhook_jobs (
    id         INTEGER PRIMARY KEY,
    bot_id     INTEGER NOT NULL REFERENCES users (id),
    -- A deleted message needs no delivery.
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    -- 'mention' or 'direct_message'.
    trigger    TEXT NOT NULL,
    -- Failed attempts so far.
    attempts   INTEGER NOT NULL DEFAULT 0,
    -- UNIX milliseconds of the next attempt.
    due_at     INTEGER NOT NULL,
    -- 1 while this process is delivering it; cleared at start-up (nothing is in flight then).
    claimed    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX outgoing_webhook_jobs_due ON outgoing_webhook_jobs (claimed, due_at);
CREATE INDEX outgoing_webhook_jobs_message ON outgoing_webhook_jobs (message_id);
