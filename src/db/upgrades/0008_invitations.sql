-- Upgrade 7 -> 8: invitations: email invitations and reusable invitation links.
--
-- `link_key` is the secret in the signup link (`/join/<key>/`). `status`: 0 open, 1 used (an
-- email invitation someone signed up with), 2 revoked. `expires` NULL: never expires.
-- `channel_ids` and `group_ids` are comma-separated ids (channels and groups the new user joins).
CREATE TABLE invitations (
    id               INTEGER PRIMARY KEY,
    multiuse         INTEGER NOT NULL,
    email            TEXT,
    link_key         TEXT NOT NULL UNIQUE,
    referrer_id      INTEGER NOT NULL REFERENCES users (id),
    invited_as       INTEGER NOT NULL,
    created          INTEGER NOT NULL,
    expires          INTEGER,
    notify_referrer  INTEGER NOT NULL,
    include_defaults INTEGER NOT NULL,
    welcome_text     TEXT,
    channel_ids      TEXT NOT NULL,
    group_ids        TEXT NOT NULL,
    status           INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX invitations_email ON invitations (email COLLATE NOCASE);
CREATE INDEX invitations_created ON invitations (created);
