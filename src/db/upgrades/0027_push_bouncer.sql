-- Schema 27: mobile push through Zulip's push notification service (the bouncer): the outbox of
-- device-token calls waiting to be made, and what the service last said of this realm.
CREATE TABLE push_bouncer_outbox (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id),
    action     TEXT NOT NULL,
    kind       TEXT,
    token      TEXT,
    ios_app_id TEXT,
    attempts   INTEGER NOT NULL DEFAULT 0,
    due_at     INTEGER NOT NULL,
    last_error TEXT
);
CREATE TABLE push_bouncer_state (
    id                     INTEGER PRIMARY KEY CHECK (id = 1),
    can_push               INTEGER NOT NULL,
    expected_end_timestamp INTEGER,
    updated_at             INTEGER NOT NULL
);
