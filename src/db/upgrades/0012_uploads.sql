-- Upgrade 11 -> 12: uploaded files (`POST /user_uploads`) and the messages that link them. The file
-- itself lives under the data directory at `uploads/<storage_key>`; the record is written only
-- after the file is complete on disk.

-- `path_id` is the part of the URL after `/user_uploads/` (realm id, two characters, a random
-- part, the sanitized file name); `storage_key` names the file under `uploads/` (only
-- characters we generated). `claimed` becomes 1 once a message links the file: a claimed file
-- goes when its last linking message is deleted; a file no message links goes after the
-- configured weeks.
CREATE TABLE attachments (
    id           INTEGER PRIMARY KEY,
    owner_id     INTEGER NOT NULL REFERENCES users (id),
    path_id      TEXT NOT NULL UNIQUE,
    storage_key  TEXT NOT NULL UNIQUE,
    name         TEXT NOT NULL,
    size         INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    is_image     INTEGER NOT NULL,
    create_time  INTEGER NOT NULL,
    claimed      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX attachments_by_owner ON attachments (owner_id, id);

-- Which messages link which attachment.
CREATE TABLE attachment_messages (
    attachment_id INTEGER NOT NULL REFERENCES attachments (id) ON DELETE CASCADE,
    message_id    INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    PRIMARY KEY (attachment_id, message_id)
) WITHOUT ROWID;
CREATE INDEX attachment_messages_by_message ON attachment_messages (message_id, attachment_id);
