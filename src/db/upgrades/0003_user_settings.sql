-- Upgrade 2 -> 3: personal settings a user changed from their default.
CREATE TABLE user_settings (
    user_id INTEGER NOT NULL REFERENCES users (id),
    name    TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (user_id, name)
) WITHOUT ROWID;
