-- Upgrade 8 -> 9: records a user keeps on the server for their clients: muted users, message
-- drafts, saved snippets and push-notification devices. All of them belong to one user (`user_id`).

-- Users a user muted, with when (`date_muted`).
CREATE TABLE muted_users (
    user_id       INTEGER NOT NULL REFERENCES users (id),
    muted_user_id INTEGER NOT NULL REFERENCES users (id),
    date_muted    INTEGER NOT NULL,
    PRIMARY KEY (user_id, muted_user_id)
) WITHOUT ROWID;
CREATE INDEX muted_users_by_muted ON muted_users (muted_user_id, user_id);

-- Message drafts: `kind` is '' (unaddressed), 'stream' or 'private'; `recipients` the ids of
-- the draft's `to`, comma-separated (a channel id, or user ids); `last_edit` UNIX seconds.
CREATE TABLE drafts (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id),
    kind       TEXT NOT NULL,
    recipients TEXT NOT NULL,
    topic      TEXT NOT NULL,
    content    TEXT NOT NULL,
    last_edit  INTEGER NOT NULL
);
CREATE INDEX drafts_by_user ON drafts (user_id, last_edit);

-- Saved snippets: reusable message texts.
CREATE TABLE saved_snippets (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users (id),
    title        TEXT NOT NULL,
    content      TEXT NOT NULL,
    date_created INTEGER NOT NULL
);
CREATE INDEX saved_snippets_by_user ON saved_snippets (user_id, id);

-- Legacy push tokens (`POST /users/me/apns_device_token`, `/users/me/android_gcm_reg_id`):
-- `kind` 'apns' or 'fcm'; `ios_app_id` for APNs only.
CREATE TABLE push_tokens (
    user_id      INTEGER NOT NULL REFERENCES users (id),
    kind         TEXT NOT NULL,
    token        TEXT NOT NULL,
    ios_app_id   TEXT,
    date_created INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind, token)
) WITHOUT ROWID;

-- End-to-end encrypted push registrations (`POST /mobile_push/register`), one per account the
-- client numbered (`push_account_id`); the registration itself is opaque ciphertext.
CREATE TABLE push_registrations (
    user_id                     INTEGER NOT NULL REFERENCES users (id),
    push_account_id             INTEGER NOT NULL,
    token_kind                  TEXT NOT NULL,
    push_public_key             TEXT NOT NULL,
    bouncer_public_key          TEXT NOT NULL,
    encrypted_push_registration TEXT NOT NULL,
    date_created                INTEGER NOT NULL,
    PRIMARY KEY (user_id, push_account_id)
) WITHOUT ROWID;
