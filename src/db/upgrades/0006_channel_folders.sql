-- Upgrade 5 -> 6: channel folders.
CREATE TABLE channel_folders (
    id                   INTEGER PRIMARY KEY,
    name                 TEXT NOT NULL,
    description          TEXT NOT NULL,
    rendered_description TEXT NOT NULL,
    creator_id           INTEGER REFERENCES users (id),
    date_created         INTEGER NOT NULL,
    is_archived          INTEGER NOT NULL DEFAULT 0
);
