-- Upgrade 19 -> 20: Web sessions of the browser client.
--
-- `token_hash` is the SHA-256 (hex) of the cookie's random value; the value itself is never
-- stored. `csrf_token` is what non-GET `/json` requests must echo in `X-CSRFToken`. Times are
-- seconds since the epoch; a session is valid while `expires_at` is in the future.
CREATE TABLE web_sessions (
    id           INTEGER PRIMARY KEY,
    token_hash   TEXT NOT NULL UNIQUE,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf_token   TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);
CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);
