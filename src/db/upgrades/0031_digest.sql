-- Version 31: what the weekly digest email needs to know of each user: when they were last
-- active (written at most once an hour, from active presence reports) and when their last
-- digest was queued. Existing users count as active at the upgrade, so no one gets a digest
-- the first digest day only because nothing was recorded before.
CREATE TABLE user_activity (
    user_id        INTEGER PRIMARY KEY REFERENCES users (id),
    last_active_at INTEGER NOT NULL DEFAULT 0,
    last_digest_at INTEGER NOT NULL DEFAULT 0
);
INSERT INTO user_activity (user_id, last_active_at)
    SELECT id, unixepoch() FROM users WHERE NOT is_bot;
