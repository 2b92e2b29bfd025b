-- Version 26: notification jobs (who is notified of a message, decided in the message's own
-- commit) and the pushes sent and not yet retracted.
CREATE TABLE notification_jobs (
    id                 INTEGER PRIMARY KEY,
    user_id            INTEGER NOT NULL REFERENCES users (id),
    message_id         INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    push_trigger       TEXT,
    online_push        INTEGER NOT NULL DEFAULT 0,
    email_trigger      TEXT,
    mentioned_group_id INTEGER,
    stage              INTEGER NOT NULL DEFAULT 0,
    attempts           INTEGER NOT NULL DEFAULT 0,
    due_at             INTEGER NOT NULL,
    claimed            INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX notification_jobs_due ON notification_jobs (claimed, due_at);
CREATE INDEX notification_jobs_message ON notification_jobs (message_id);
CREATE TABLE push_active (
    user_id    INTEGER NOT NULL REFERENCES users (id),
    message_id INTEGER NOT NULL,
    PRIMARY KEY (user_id, message_id)
) WITHOUT ROWID;
CREATE TABLE push_removals (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users (id),
    message_ids TEXT NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    due_at      INTEGER NOT NULL,
    claimed     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX push_removals_due ON push_removals (claimed, due_at);
