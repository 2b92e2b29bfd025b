-- Upgrade 15 -> 16: custom emoji and what uploaded images are.

-- The organization's custom emoji. A deactivated emoji stays (old messages and reactions
-- still show it) and frees its name for a new one. `file_name` (and for an animation
-- `still_name`) name the stored pictures under `<data_dir>/emoji/` (only characters the server
-- generated).
CREATE TABLE realm_emoji (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    author_id   INTEGER REFERENCES users (id),
    file_name   TEXT NOT NULL UNIQUE,
    still_name  TEXT UNIQUE,
    deactivated INTEGER NOT NULL DEFAULT 0,
    create_time INTEGER NOT NULL
);
CREATE UNIQUE INDEX realm_emoji_active_name ON realm_emoji (name) WHERE deactivated = 0;

-- What an uploaded image is, read from its headers when it was uploaded: shown size and
-- whether it is animated, or `usable = 0` for an image that cannot be decoded within the
-- limits (no preview, no thumbnails). Uploads from before this table have no row.
CREATE TABLE image_attachments (
    attachment_id INTEGER PRIMARY KEY REFERENCES attachments (id) ON DELETE CASCADE,
    usable        INTEGER NOT NULL,
    width         INTEGER NOT NULL,
    height        INTEGER NOT NULL,
    animated      INTEGER NOT NULL,
    content_type  TEXT NOT NULL
);
