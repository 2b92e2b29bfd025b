-- Upgrade 27 -> 28: outgoing mail and the account links it carries.

-- The outbox: every mail the server sends, written in the transaction of what caused it and
-- deleted once the mail server accepted it (or after its last failed attempt). `sender` is
-- the From mailbox, `headers` extra header lines ("Name: value", one a line), `html_body`
-- NULL for a plain-text mail, `log_link` what is logged instead of sending when no mail server
-- is configured (development). `due_at` is UNIX milliseconds of the next attempt.
CREATE TABLE mail_outbox (
    id         INTEGER PRIMARY KEY,
    recipient  TEXT NOT NULL,
    sender     TEXT NOT NULL,
    subject    TEXT NOT NULL,
    text_body  TEXT NOT NULL,
    html_body  TEXT,
    headers    TEXT NOT NULL DEFAULT '',
    log_link   TEXT NOT NULL DEFAULT '',
    attempts   INTEGER NOT NULL DEFAULT 0,
    due_at     INTEGER NOT NULL,
    -- 1 while this process is sending it; cleared at start-up (nothing is in flight then).
    claimed    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX mail_outbox_due ON mail_outbox (claimed, due_at);

-- Single-use keys of account links: `kind` 'password_reset', 'email_change' (with the
-- addresses), or 'unsubscribe:<email type>' (long-lived). Only the SHA-256 (hex) of the key in
-- the link is stored. Times are seconds since the epoch.
CREATE TABLE account_links (
    id         INTEGER PRIMARY KEY,
    key_hash   TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    old_email  TEXT,
    new_email  TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX account_links_user ON account_links (user_id, kind);

-- Missed-message emails waiting for their batch (upstream's ScheduledMessageNotificationEmail):
-- one row per user and message, due at `scheduled_at` (seconds), the time of the user's batch.
CREATE TABLE missed_message_emails (
    id                 INTEGER PRIMARY KEY,
    user_id            INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- A deleted message is not mailed.
    message_id         INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    trigger            TEXT NOT NULL,
    mentioned_group_id INTEGER,
    scheduled_at       INTEGER NOT NULL
);
CREATE INDEX missed_message_emails_due ON missed_message_emails (scheduled_at);
CREATE INDEX missed_message_emails_user ON missed_message_emails (user_id);
CREATE INDEX missed_message_emails_message ON missed_message_emails (message_id);
