-- Outpost database schema: the whole current schema, applied to a new database.
-- `PRAGMA user_version` at the end is the schema version; src/db/migrate.rs upgrades older
-- databases step by step to it and refuses newer ones.
-- Times are UNIX seconds (UTC) unless a column name says otherwise.

-- Installation-wide facts (e.g. when the realm was created).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Chat users, humans and bots. `email` is the real (delivery) address; the API email shown to
-- others is derived from `email_address_visibility`.
CREATE TABLE users (
    id                       INTEGER PRIMARY KEY,
    email                    TEXT NOT NULL,
    full_name                TEXT NOT NULL,
    role                     INTEGER NOT NULL CHECK (role IN (100, 200, 300, 400, 600)),
    is_active                INTEGER NOT NULL DEFAULT 1,
    is_bot                   INTEGER NOT NULL DEFAULT 0,
    bot_type                 INTEGER,
    bot_owner_id             INTEGER REFERENCES users (id),
    api_key                  TEXT NOT NULL,
    password_hash            TEXT,
    timezone                 TEXT NOT NULL DEFAULT '',
    date_joined              INTEGER NOT NULL,
    avatar_source            TEXT NOT NULL DEFAULT 'G',
    avatar_version           INTEGER NOT NULL DEFAULT 1,
    email_address_visibility INTEGER NOT NULL DEFAULT 1,
    can_create_users         INTEGER NOT NULL DEFAULT 0,
    can_change_user_emails   INTEGER NOT NULL DEFAULT 0,
    presence_enabled         INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX users_email ON users (email COLLATE NOCASE);

-- A user's status (text and emoji); absent row = no status.
CREATE TABLE user_status (
    user_id       INTEGER PRIMARY KEY REFERENCES users (id),
    status_text   TEXT NOT NULL DEFAULT '',
    emoji_name    TEXT NOT NULL DEFAULT '',
    emoji_code    TEXT NOT NULL DEFAULT '',
    reaction_type TEXT NOT NULL DEFAULT '',
    updated_at    INTEGER NOT NULL
);

-- Organization-defined profile fields and users' values for them.
CREATE TABLE custom_profile_fields (
    id                         INTEGER PRIMARY KEY,
    name                       TEXT NOT NULL,
    hint                       TEXT NOT NULL DEFAULT '',
    field_type                 INTEGER NOT NULL,
    field_data                 TEXT NOT NULL DEFAULT '',
    sort_order                 INTEGER NOT NULL,
    display_in_profile_summary INTEGER NOT NULL DEFAULT 0,
    required                   INTEGER NOT NULL DEFAULT 0,
    editable_by_user           INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX custom_profile_fields_name ON custom_profile_fields (name COLLATE NOCASE);

CREATE TABLE custom_profile_values (
    user_id        INTEGER NOT NULL REFERENCES users (id),
    field_id       INTEGER NOT NULL REFERENCES custom_profile_fields (id) ON DELETE CASCADE,
    value          TEXT NOT NULL,
    rendered_value TEXT,
    PRIMARY KEY (user_id, field_id)
) WITHOUT ROWID;

-- The Dependency-Track tables live in src/db/dtrack.sql, applied right after this file.

PRAGMA user_version = 2;
