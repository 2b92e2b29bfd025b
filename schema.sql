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
-- others is derived from `email_address_visibility`. System bots (`is_system_bot`, seeded by
-- src/db/system_bots.sql) stand for Zulip's cross-realm bots: they send notices, are never
-- realm members and never log in.
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
    presence_enabled         INTEGER NOT NULL DEFAULT 1,
    is_system_bot            INTEGER NOT NULL DEFAULT 0
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

-- Folders administrators sort channels into (`channels.folder_id`).
CREATE TABLE channel_folders (
    id                   INTEGER PRIMARY KEY,
    name                 TEXT NOT NULL,
    description          TEXT NOT NULL,
    rendered_description TEXT NOT NULL,
    creator_id           INTEGER REFERENCES users (id),
    date_created         INTEGER NOT NULL,
    is_archived          INTEGER NOT NULL DEFAULT 0
);

-- Organization settings an administrator changed from their default (see
-- src/domain/realm_settings.rs); the value is stored as text and read back with the setting's type.
CREATE TABLE realm_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Personal settings a user changed from their default (see src/domain/settings.rs); the
-- value is stored as text and read back with the setting's type.
CREATE TABLE user_settings (
    user_id INTEGER NOT NULL REFERENCES users (id),
    name    TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (user_id, name)
) WITHOUT ROWID;

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

-- User groups. System groups (role-based, `is_system_group`) are seeded below with fixed ids;
-- their membership is derived from user roles, never stored.
CREATE TABLE user_groups (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    is_system_group INTEGER NOT NULL DEFAULT 0,
    deactivated     INTEGER NOT NULL DEFAULT 0,
    creator_id      INTEGER REFERENCES users (id),
    date_created    INTEGER,
    -- The group's own permissions, as group-setting values (stored like the channels' below);
    -- system groups keep `role:nobody` (1).
    can_add_members_group    TEXT NOT NULL DEFAULT '1',
    can_join_group           TEXT NOT NULL DEFAULT '1',
    can_leave_group          TEXT NOT NULL DEFAULT '1',
    can_manage_group         TEXT NOT NULL DEFAULT '1',
    can_mention_group        TEXT NOT NULL DEFAULT '1',
    can_remove_members_group TEXT NOT NULL DEFAULT '1'
);
CREATE UNIQUE INDEX user_groups_name ON user_groups (name COLLATE NOCASE);
INSERT INTO user_groups (id, name, description, is_system_group) VALUES
    (1, 'role:nobody', 'Nobody', 1),
    (2, 'role:owners', 'Owners of this organization', 1),
    (3, 'role:administrators', 'Administrators of this organization, including owners', 1),
    (4, 'role:moderators', 'Moderators of this organization, including administrators', 1),
    (5, 'role:fullmembers', 'Members of this organization, not including new accounts and guests', 1),
    (6, 'role:members', 'Members of this organization, not including guests', 1),
    (7, 'role:everyone', 'Everyone in this organization, including guests', 1),
    (8, 'role:internet', 'Everyone on the internet', 1);

CREATE TABLE user_group_members (
    group_id INTEGER NOT NULL REFERENCES user_groups (id),
    user_id  INTEGER NOT NULL REFERENCES users (id),
    PRIMARY KEY (group_id, user_id)
) WITHOUT ROWID;
CREATE INDEX user_group_members_user ON user_group_members (user_id);

CREATE TABLE user_group_subgroups (
    group_id    INTEGER NOT NULL REFERENCES user_groups (id),
    subgroup_id INTEGER NOT NULL REFERENCES user_groups (id),
    PRIMARY KEY (group_id, subgroup_id)
) WITHOUT ROWID;

-- A token that changes with every write to the groups, their members or their subgroups, so
-- cached membership (domain::user_groups) is reused only while it is current. Random rather
-- than counted, so a rolled-back write never leaves a token that a later write repeats.
CREATE TABLE user_groups_generation (token INTEGER NOT NULL);
INSERT INTO user_groups_generation (token) VALUES (0);
CREATE TRIGGER user_groups_ins AFTER INSERT ON user_groups
    BEGIN UPDATE user_groups_generation SET token = random(); END;
CREATE TRIGGER user_groups_upd AFTER UPDATE ON user_groups
    BEGIN UPDATE user_groups_generation SET token = random(); END;
CREATE TRIGGER user_group_members_ins AFTER INSERT ON user_group_members
    BEGIN UPDATE user_groups_generation SET token = random(); END;
CREATE TRIGGER user_group_members_del AFTER DELETE ON user_group_members
    BEGIN UPDATE user_groups_generation SET token = random(); END;
CREATE TRIGGER user_group_subgroups_ins AFTER INSERT ON user_group_subgroups
    BEGIN UPDATE user_groups_generation SET token = random(); END;
CREATE TRIGGER user_group_subgroups_del AFTER DELETE ON user_group_subgroups
    BEGIN UPDATE user_groups_generation SET token = random(); END;

-- Channels (Zulip's streams). Group settings hold a group-setting value as JSON text: a group
-- id, or {"direct_members": [...], "direct_subgroups": [...]}.
CREATE TABLE channels (
    id                            INTEGER PRIMARY KEY,
    name                          TEXT NOT NULL,
    description                   TEXT NOT NULL DEFAULT '',
    rendered_description          TEXT NOT NULL DEFAULT '',
    invite_only                   INTEGER NOT NULL DEFAULT 0,
    is_web_public                 INTEGER NOT NULL DEFAULT 0,
    history_public_to_subscribers INTEGER NOT NULL DEFAULT 1,
    is_default                    INTEGER NOT NULL DEFAULT 0,
    topics_policy                 TEXT NOT NULL DEFAULT 'inherit',
    -- NULL: the realm default; -1: unlimited.
    message_retention_days        INTEGER,
    folder_id                     INTEGER,
    creator_id                    INTEGER REFERENCES users (id),
    date_created                  INTEGER NOT NULL,
    is_archived                   INTEGER NOT NULL DEFAULT 0,
    can_add_subscribers_group              TEXT NOT NULL,
    can_administer_channel_group           TEXT NOT NULL,
    can_create_topic_group                 TEXT NOT NULL,
    can_delete_any_message_group           TEXT NOT NULL,
    can_delete_own_message_group           TEXT NOT NULL,
    can_move_messages_out_of_channel_group TEXT NOT NULL,
    can_move_messages_within_channel_group TEXT NOT NULL,
    can_remove_subscribers_group           TEXT NOT NULL,
    can_resolve_topics_group               TEXT NOT NULL,
    can_send_message_group                 TEXT NOT NULL,
    can_subscribe_group                    TEXT NOT NULL
);
CREATE UNIQUE INDEX channels_name ON channels (name COLLATE NOCASE);

-- A user's subscription to a channel, with its personal settings. `active = 0` keeps the
-- settings of a past subscription.
CREATE TABLE subscriptions (
    channel_id               INTEGER NOT NULL REFERENCES channels (id),
    user_id                  INTEGER NOT NULL REFERENCES users (id),
    active                   INTEGER NOT NULL DEFAULT 1,
    color                    TEXT NOT NULL,
    is_muted                 INTEGER NOT NULL DEFAULT 0,
    pin_to_top               INTEGER NOT NULL DEFAULT 0,
    desktop_notifications    INTEGER,
    audible_notifications    INTEGER,
    push_notifications       INTEGER,
    email_notifications      INTEGER,
    wildcard_mentions_notify INTEGER,
    PRIMARY KEY (channel_id, user_id)
) WITHOUT ROWID;
CREATE INDEX subscriptions_user ON subscriptions (user_id, channel_id);

-- When a user was subscribed, as message id ranges: the user received exactly the channel's
-- messages with first_message_id <= id <= last_message_id (NULL: still subscribed). This
-- replaces per-recipient rows on the send path.
CREATE TABLE subscription_periods (
    user_id          INTEGER NOT NULL REFERENCES users (id),
    channel_id       INTEGER NOT NULL REFERENCES channels (id),
    first_message_id INTEGER NOT NULL,
    last_message_id  INTEGER,
    PRIMARY KEY (user_id, channel_id, first_message_id)
) WITHOUT ROWID;

-- Direct-message conversations: one row per distinct set of participants (sorted user ids).
CREATE TABLE dm_conversations (
    id         INTEGER PRIMARY KEY,
    member_key TEXT NOT NULL UNIQUE
);

CREATE TABLE dm_members (
    user_id         INTEGER NOT NULL REFERENCES users (id),
    conversation_id INTEGER NOT NULL REFERENCES dm_conversations (id),
    PRIMARY KEY (user_id, conversation_id)
) WITHOUT ROWID;

-- Messages. A channel message has `channel_id` and a topic; a direct message has
-- `conversation_id` and the empty topic.
CREATE TABLE messages (
    id               INTEGER PRIMARY KEY,
    sender_id        INTEGER NOT NULL REFERENCES users (id),
    channel_id       INTEGER REFERENCES channels (id),
    conversation_id  INTEGER REFERENCES dm_conversations (id),
    topic            TEXT NOT NULL DEFAULT '',
    content          TEXT NOT NULL,
    rendered_content TEXT NOT NULL,
    client           TEXT NOT NULL,
    sent_at          INTEGER NOT NULL,
    is_me_message    INTEGER NOT NULL DEFAULT 0,
    -- 1: a channel wildcard mention (@**all**), 2: a topic wildcard mention (@**topic**), 3: both.
    wildcard         INTEGER NOT NULL DEFAULT 0,
    last_edit_at     INTEGER,
    last_moved_at    INTEGER,
    CHECK ((channel_id IS NULL) <> (conversation_id IS NULL))
);
CREATE INDEX messages_channel ON messages (channel_id, id) WHERE channel_id IS NOT NULL;
CREATE INDEX messages_topic ON messages (channel_id, topic COLLATE NOCASE, id)
    WHERE channel_id IS NOT NULL;
CREATE INDEX messages_conversation ON messages (conversation_id, id)
    WHERE conversation_id IS NOT NULL;
CREATE INDEX messages_sender ON messages (sender_id, id);
CREATE INDEX messages_channel_time ON messages (channel_id, sent_at) WHERE channel_id IS NOT NULL;

-- Full-text search over message content and topics (kept in step with `messages` by the
-- message SQL, not by triggers).
CREATE VIRTUAL TABLE messages_fts USING fts5 (
    content, topic, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
);

-- Per-user message state, stored only where it differs from the default. A user "received" a
-- channel message if a subscription period covers it, a direct message if they are in the
-- conversation; a received message is unread unless it is at or below the user's read floor
-- for its scope (channel id, or 0 for direct messages) or carries the read bit. See
-- src/db/flags.rs for the bits.
CREATE TABLE message_flags (
    user_id    INTEGER NOT NULL REFERENCES users (id),
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    flags      INTEGER NOT NULL,
    PRIMARY KEY (user_id, message_id)
) WITHOUT ROWID;

CREATE TABLE read_floors (
    user_id  INTEGER NOT NULL REFERENCES users (id),
    scope    INTEGER NOT NULL,
    floor_id INTEGER NOT NULL,
    PRIMARY KEY (user_id, scope)
) WITHOUT ROWID;

-- Emoji reactions.
CREATE TABLE reactions (
    id            INTEGER PRIMARY KEY,
    message_id    INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL REFERENCES users (id),
    emoji_name    TEXT NOT NULL,
    emoji_code    TEXT NOT NULL,
    reaction_type TEXT NOT NULL,
    UNIQUE (message_id, user_id, reaction_type, emoji_code)
);

-- Edit and move history, oldest first.
CREATE TABLE message_edits (
    id                    INTEGER PRIMARY KEY,
    message_id            INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    user_id               INTEGER REFERENCES users (id),
    edited_at             INTEGER NOT NULL,
    prev_content          TEXT,
    prev_rendered_content TEXT,
    prev_channel_id       INTEGER,
    channel_id            INTEGER,
    prev_topic            TEXT,
    topic                 TEXT
);
CREATE INDEX message_edits_message ON message_edits (message_id, id);

-- Per-user topic visibility policies (0 inherit, 1 muted, 2 unmuted, 3 followed).
CREATE TABLE user_topics (
    user_id           INTEGER NOT NULL REFERENCES users (id),
    channel_id        INTEGER NOT NULL REFERENCES channels (id),
    topic             TEXT NOT NULL COLLATE NOCASE,
    visibility_policy INTEGER NOT NULL,
    last_updated      INTEGER NOT NULL,
    PRIMARY KEY (user_id, channel_id, topic)
) WITHOUT ROWID;

-- Words that highlight a message for a user.
CREATE TABLE alert_words (
    user_id INTEGER NOT NULL REFERENCES users (id),
    word    TEXT NOT NULL COLLATE NOCASE,
    PRIMARY KEY (user_id, word)
) WITHOUT ROWID;

-- Submessages: data attached to a message by its readers (widget state: the poll or to-do
-- list a `/poll` or `/todo` message starts, then votes and tasks). Gone with the message.
CREATE TABLE submessages (
    id         INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    sender_id  INTEGER NOT NULL REFERENCES users (id),
    msg_type   TEXT NOT NULL,
    content    TEXT NOT NULL
);
CREATE INDEX submessages_message ON submessages (message_id, id);

-- The Dependency-Track tables live in src/db/dtrack.sql, the invitations in
-- src/db/invites.sql and the records a user keeps (muted users, drafts, saved snippets, push
-- devices) in src/db/user_records.sql, the OSV data in src/db/osv.sql, the web client's sessions in
-- src/db/web_sessions.sql, applied right after this file.

PRAGMA user_version = 19;
