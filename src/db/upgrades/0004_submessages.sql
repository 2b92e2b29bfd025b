-- Upgrade 3 -> 4: submessages (widget state attached to a message).
CREATE TABLE submessages (
    id         INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    sender_id  INTEGER NOT NULL REFERENCES users (id),
    msg_type   TEXT NOT NULL,
    content    TEXT NOT NULL
);
CREATE INDEX submessages_message ON submessages (message_id, id);
