-- Upgrade 10 -> 11: scheduled messages and reminders: one row per item the scheduler will deliver.
--
-- `kind`: 0 a scheduled message (sent as `sender_id`), 1 a reminder (Notification Bot sends
-- `content` to `sender_id`; `target_message_id` is the message it links). `channel_id` set: a
-- channel message to `topic`; otherwise `recipients` holds the comma-separated user ids of a
-- direct message. `state`: 0 pending, 1 delivered (`message_id` is the sent message), 2 failed.
-- `read_by_sender` NULL: decided from `client` at delivery, as for sending.
CREATE TABLE scheduled_messages (
    id                INTEGER PRIMARY KEY,
    kind              INTEGER NOT NULL,
    sender_id         INTEGER NOT NULL REFERENCES users (id),
    channel_id        INTEGER REFERENCES channels (id),
    topic             TEXT NOT NULL,
    recipients        TEXT NOT NULL,
    content           TEXT NOT NULL,
    rendered_content  TEXT NOT NULL,
    deliver_at        INTEGER NOT NULL,
    read_by_sender    INTEGER,
    client            TEXT NOT NULL,
    target_message_id INTEGER,
    state             INTEGER NOT NULL DEFAULT 0,
    message_id        INTEGER,
    created           INTEGER NOT NULL
);
CREATE INDEX scheduled_messages_due ON scheduled_messages (state, deliver_at);
CREATE INDEX scheduled_messages_sender ON scheduled_messages (sender_id, kind, state);
