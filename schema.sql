-- Outpost database schema: the whole current schema. A new database is created from this file
-- alone and stamped with the `PRAGMA user_version` at its end (the schema version). An older
-- database is upgraded one version at a time by the steps in src/db/upgrades/ (see
-- src/db/upgrade.rs); a newer one is refused. A schema change edits this file and adds a step,
-- and tests/api/schema_upgrades.rs checks that both give the same schema.
-- Times are UNIX seconds (UTC) unless a column name says otherwise (`_ms`: milliseconds).

-- ================================================================================================
-- Installation
-- ================================================================================================

-- Installation-wide facts (e.g. when the realm was created).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Organization settings an administrator changed from their default (see
-- src/domain/realm_settings.rs); the value is stored as text and read back with the setting's type.
CREATE TABLE realm_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- ================================================================================================
-- Users: accounts, their settings, profiles, records, sessions and invitations
-- ================================================================================================

-- Chat users, humans and bots. `email` is the real (delivery) address; the API email shown to
-- others is derived from `email_address_visibility`. System bots (`is_system_bot`, seeded
-- below) stand for Zulip's cross-realm bots: they send notices, are never realm members and
-- never log in.
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
-- HTTP Basic credentials name a user by API key: without this, each request scanned `users`.
CREATE INDEX users_api_key ON users (api_key);

-- The system bots. Their API keys are random and never shown; they cannot log in.
INSERT INTO users (email, full_name, role, is_bot, bot_type, api_key, date_joined, is_system_bot)
VALUES
    ('notification-bot@zulip.com', 'Notification Bot', 400, 1, 1, lower(hex(randomblob(32))), unixepoch(), 1),
    ('welcome-bot@zulip.com', 'Welcome Bot', 400, 1, 1, lower(hex(randomblob(32))), unixepoch(), 1);

-- A user's status (text and emoji); absent row = no status.
CREATE TABLE user_status (
    user_id       INTEGER PRIMARY KEY REFERENCES users (id),
    status_text   TEXT NOT NULL DEFAULT '',
    emoji_name    TEXT NOT NULL DEFAULT '',
    emoji_code    TEXT NOT NULL DEFAULT '',
    reaction_type TEXT NOT NULL DEFAULT '',
    updated_at    INTEGER NOT NULL
);

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

-- Records a user keeps on the server for their clients (muted users, drafts, saved snippets,
-- push devices), each belonging to one user (`user_id`).

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

-- What Zulip's push notification service made of each encrypted registration: the device id
-- it gave when the registration was forwarded (`bouncer_device_id`, named by encrypted notify
-- requests), or the error code it refused the registration with; both empty while the
-- forwarding call waits in the outbox.
CREATE TABLE push_e2ee_devices (
    user_id           INTEGER NOT NULL REFERENCES users (id),
    push_account_id   INTEGER NOT NULL,
    bouncer_device_id INTEGER,
    error_code        TEXT,
    updated_at        INTEGER NOT NULL,
    PRIMARY KEY (user_id, push_account_id)
) WITHOUT ROWID;
CREATE INDEX push_e2ee_devices_by_bouncer_id ON push_e2ee_devices (bouncer_device_id)
    WHERE bouncer_device_id IS NOT NULL;

-- Calls to Zulip's push notification service (the bouncer) waiting to be made, queued in the
-- commit of the change they forward: `action` 'register' or 'unregister' (of the legacy token
-- `kind`/`token`, with `ios_app_id` for APNs), 'unregister_all' (a deactivated user's devices)
-- or 'e2ee_register' (the encrypted registration whose `push_account_id` is in `token`).
-- Made oldest first; a failure counts in `attempts` and puts the call off to `due_at` (UNIX ms).
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

-- What the push notification service last said of this realm: whether it may push
-- (`realm.can_push`) and until when (`expected_end_timestamp`, UNIX seconds). One row, absent
-- until the service said something.
CREATE TABLE push_bouncer_state (
    id                     INTEGER PRIMARY KEY CHECK (id = 1),
    can_push               INTEGER NOT NULL,
    expected_end_timestamp INTEGER,
    updated_at             INTEGER NOT NULL
);

-- Web sessions of the browser client.
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

-- Invitations: email invitations and reusable invitation links.
-- `link_key` is the secret in the signup link (`/join/<key>/`). `status`: 0 open, 1 used (an
-- email invitation someone signed up with), 2 revoked. `expires` NULL: never expires.
-- `channel_ids` and `group_ids` are comma-separated ids (channels and groups the new user joins).
CREATE TABLE invitations (
    id               INTEGER PRIMARY KEY,
    multiuse         INTEGER NOT NULL,
    email            TEXT,
    link_key         TEXT NOT NULL UNIQUE,
    referrer_id      INTEGER NOT NULL REFERENCES users (id),
    invited_as       INTEGER NOT NULL,
    created          INTEGER NOT NULL,
    expires          INTEGER,
    notify_referrer  INTEGER NOT NULL,
    include_defaults INTEGER NOT NULL,
    welcome_text     TEXT,
    channel_ids      TEXT NOT NULL,
    group_ids        TEXT NOT NULL,
    status           INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX invitations_email ON invitations (email COLLATE NOCASE);
CREATE INDEX invitations_created ON invitations (created);

-- ================================================================================================
-- Bots: storage, services, outgoing-webhook deliveries, default channels
-- ================================================================================================

-- The key-value pairs a bot keeps on the server (`/bot_storage`); keys and values are strings,
-- their summed length in characters is bounded per bot.
CREATE TABLE bot_storage (
    bot_id INTEGER NOT NULL REFERENCES users (id),
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (bot_id, key)
) WITHOUT ROWID;

-- What an outgoing-webhook bot (type 3) posts to and how, and which embedded bot (type 4) an
-- embedded bot is, with its configuration. One row per bot of those types.
CREATE TABLE bot_services (
    bot_id       INTEGER PRIMARY KEY REFERENCES users (id),
    -- Outgoing webhooks: the URL posted to, 1 (Zulip format) or 2 (Slack format), the token
    -- the receiver checks. Embedded bots: '' and their interface (1).
    base_url     TEXT NOT NULL,
    interface    INTEGER NOT NULL,
    token        TEXT NOT NULL,
    -- The service's name: the embedded bot's name, or the outgoing webhook's short name.
    service_name TEXT NOT NULL,
    -- Embedded bots' configuration: a JSON object of strings ('{}' when none).
    config_data  TEXT NOT NULL
);

-- Outgoing-webhook deliveries: one row per (message, bot) that a message triggered, written in
-- the transaction that stores the message; deleted in the transaction that posts the bot's
-- answer (or its failure notice).
CREATE TABLE outgoing_webhook_jobs (
    id         INTEGER PRIMARY KEY,
    bot_id     INTEGER NOT NULL REFERENCES users (id),
    -- A deleted message needs no delivery.
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    -- 'mention' or 'direct_message'.
    trigger    TEXT NOT NULL,
    -- Failed attempts so far.
    attempts   INTEGER NOT NULL DEFAULT 0,
    -- UNIX milliseconds of the next attempt.
    due_at     INTEGER NOT NULL,
    -- 1 while this process is delivering it; cleared at start-up (nothing is in flight then).
    claimed    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX outgoing_webhook_jobs_due ON outgoing_webhook_jobs (claimed, due_at);
CREATE INDEX outgoing_webhook_jobs_message ON outgoing_webhook_jobs (message_id);

-- Bots' default channels (upstream's `default_sending_stream`, `default_events_register_stream`,
-- `default_all_public_streams`). One row per bot that has any; none means none.
CREATE TABLE bot_defaults (
    bot_id              INTEGER PRIMARY KEY REFERENCES users (id),
    sending_channel_id  INTEGER REFERENCES channels (id),
    events_channel_id   INTEGER REFERENCES channels (id),
    all_public_channels INTEGER NOT NULL DEFAULT 0
);

-- ================================================================================================
-- User groups
-- ================================================================================================

-- User groups. System groups (role-based, `is_system_group`) are seeded below with fixed ids;
-- their membership is derived from user roles, never stored. The `can_*_group` columns are the
-- group's own permissions, as group-setting values (stored like the channels' below); system
-- groups keep `role:nobody` (1).
CREATE TABLE user_groups (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    is_system_group INTEGER NOT NULL DEFAULT 0,
    deactivated     INTEGER NOT NULL DEFAULT 0,
    creator_id      INTEGER REFERENCES users (id),
    date_created    INTEGER,
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

-- ================================================================================================
-- Channels
-- ================================================================================================

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

-- Per-user topic visibility policies (0 inherit, 1 muted, 2 unmuted, 3 followed).
CREATE TABLE user_topics (
    user_id           INTEGER NOT NULL REFERENCES users (id),
    channel_id        INTEGER NOT NULL REFERENCES channels (id),
    topic             TEXT NOT NULL COLLATE NOCASE,
    visibility_policy INTEGER NOT NULL,
    last_updated      INTEGER NOT NULL,
    PRIMARY KEY (user_id, channel_id, topic)
) WITHOUT ROWID;

-- ================================================================================================
-- Messages
-- ================================================================================================

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

-- Scheduled messages and reminders: one row per item the scheduler will deliver.
-- `kind`: 0 a scheduled message (sent as `sender_id`), 1 a reminder (Notification Bot sends
-- `content` to `sender_id`; `target_message_id` is the message it links). `channel_id` set: a
-- channel message to `topic`; otherwise `recipients` holds the comma-separated user ids of a
-- direct message. `state`: 0 pending, 1 delivered (`message_id` is the sent message), 2 failed.
-- `read_by_sender` NULL: decided from `client` at delivery, as for sending.
CREATE TABLE scheduled_messages (
    id                INTEGER PRIMARY KEY,
    kind              INTEGER NOT NULL,
    sender_id         INTEGER NOT NULL REFERENCES users (id),
    channel_id        INTEGER REFERENCES channels (id),
    topic             TEXT NOT NULL,
    recipients        TEXT NOT NULL,
    content           TEXT NOT NULL,
    rendered_content  TEXT NOT NULL,
    deliver_at        INTEGER NOT NULL,
    read_by_sender    INTEGER,
    client            TEXT NOT NULL,
    target_message_id INTEGER,
    state             INTEGER NOT NULL DEFAULT 0,
    message_id        INTEGER,
    created           INTEGER NOT NULL
);
CREATE INDEX scheduled_messages_due ON scheduled_messages (state, deliver_at);
CREATE INDEX scheduled_messages_sender ON scheduled_messages (sender_id, kind, state);

-- ================================================================================================
-- Uploads and custom emoji
-- ================================================================================================

-- Uploaded files (`POST /user_uploads`) and the messages that link them. The file itself lives
-- under the data directory at `uploads/<storage_key>`; the record is written only after the
-- file is complete on disk.
-- `path_id` is the part of the URL after `/user_uploads/` (realm id, two characters, a random
-- part, the sanitized file name); `storage_key` names the file under `uploads/` (only
-- characters we generated). `claimed` becomes 1 once a message links the file: a claimed file
-- goes when its last linking message is deleted; a file no message links goes after the
-- configured weeks.
CREATE TABLE attachments (
    id           INTEGER PRIMARY KEY,
    owner_id     INTEGER NOT NULL REFERENCES users (id),
    path_id      TEXT NOT NULL UNIQUE,
    storage_key  TEXT NOT NULL UNIQUE,
    name         TEXT NOT NULL,
    size         INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    is_image     INTEGER NOT NULL,
    create_time  INTEGER NOT NULL,
    claimed      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX attachments_by_owner ON attachments (owner_id, id);

-- Which messages link which attachment.
CREATE TABLE attachment_messages (
    attachment_id INTEGER NOT NULL REFERENCES attachments (id) ON DELETE CASCADE,
    message_id    INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    PRIMARY KEY (attachment_id, message_id)
) WITHOUT ROWID;
CREATE INDEX attachment_messages_by_message ON attachment_messages (message_id, attachment_id);

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

-- ================================================================================================
-- Dependency-Track (times are epoch milliseconds, `_ms`, as upstream's JSON)
-- ================================================================================================

-- Teams hold permissions and API keys.
CREATE TABLE dt_teams (
    id   INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL
);
CREATE TABLE dt_team_permissions (
    team_id    INTEGER NOT NULL REFERENCES dt_teams (id) ON DELETE CASCADE,
    permission TEXT NOT NULL,
    PRIMARY KEY (team_id, permission)
) WITHOUT ROWID;

-- Managed (local) users; `password_hash` is an argon2 PHC string.
CREATE TABLE dt_users (
    id                    INTEGER PRIMARY KEY,
    username              TEXT NOT NULL UNIQUE,
    password_hash         TEXT NOT NULL,
    fullname              TEXT,
    email                 TEXT,
    force_password_change INTEGER NOT NULL DEFAULT 0,
    non_expiry_password   INTEGER NOT NULL DEFAULT 0,
    suspended             INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE dt_user_permissions (
    user_id    INTEGER NOT NULL REFERENCES dt_users (id) ON DELETE CASCADE,
    permission TEXT NOT NULL,
    PRIMARY KEY (user_id, permission)
) WITHOUT ROWID;
CREATE TABLE dt_user_teams (
    user_id INTEGER NOT NULL REFERENCES dt_users (id) ON DELETE CASCADE,
    team_id INTEGER NOT NULL REFERENCES dt_teams (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, team_id)
) WITHOUT ROWID;

-- API keys: only the public id and the lower-case hex SHA3-256 of the secret are stored.
CREATE TABLE dt_api_keys (
    id           INTEGER PRIMARY KEY,
    team_id      INTEGER NOT NULL REFERENCES dt_teams (id) ON DELETE CASCADE,
    public_id    TEXT NOT NULL UNIQUE,
    secret_hash  TEXT NOT NULL,
    legacy       INTEGER NOT NULL DEFAULT 0,
    comment      TEXT,
    created_ms   INTEGER NOT NULL,
    last_used_ms INTEGER
);
CREATE INDEX dt_api_keys_team ON dt_api_keys (team_id);

-- Projects. `authors`, `manufacturer`, `supplier` and `external_references` are DT 4.13's
-- descriptive fields (JSON text as the storage layer writes it); `collection_tag` is the tag of
-- AGGREGATE_DIRECT_CHILDREN_WITH_TAG projects.
CREATE TABLE dt_projects (
    id               INTEGER PRIMARY KEY,
    uuid             TEXT NOT NULL UNIQUE,
    name             TEXT NOT NULL,
    version          TEXT,
    grp              TEXT,
    description      TEXT,
    publisher        TEXT,
    classifier       TEXT,
    cpe              TEXT,
    purl             TEXT,
    swid_tag_id      TEXT,
    active           INTEGER NOT NULL DEFAULT 1,
    is_latest        INTEGER NOT NULL DEFAULT 0,
    collection_logic TEXT NOT NULL DEFAULT 'NONE',
    parent_id        INTEGER REFERENCES dt_projects (id) ON DELETE CASCADE,
    last_bom_import_ms     INTEGER,
    last_bom_import_format TEXT,
    authors             TEXT,
    manufacturer        TEXT,
    supplier            TEXT,
    external_references TEXT,
    collection_tag      TEXT
);
CREATE INDEX dt_projects_name ON dt_projects (name, version);
CREATE INDEX dt_projects_parent ON dt_projects (parent_id);
-- Project properties: one value per (project, group, name); ENCRYPTEDSTRING values are sealed
-- with the installation's key before they are written.
CREATE TABLE dt_project_properties (
    id             INTEGER PRIMARY KEY,
    project_id     INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    group_name     TEXT NOT NULL,
    property_name  TEXT NOT NULL,
    property_value TEXT,
    property_type  TEXT NOT NULL,
    description    TEXT,
    UNIQUE (project_id, group_name, property_name)
);

CREATE TABLE dt_project_tags (
    project_id INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    PRIMARY KEY (project_id, name)
) WITHOUT ROWID;
CREATE INDEX dt_project_tags_name ON dt_project_tags (name);
-- Every tag (lower-cased, trimmed): it outlives the projects carrying it, as upstream's do.
CREATE TABLE dt_tags (
    name TEXT PRIMARY KEY
) WITHOUT ROWID;
-- Portfolio access control: which teams may see a project.
CREATE TABLE dt_project_access_teams (
    project_id INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    team_id    INTEGER NOT NULL REFERENCES dt_teams (id) ON DELETE CASCADE,
    PRIMARY KEY (project_id, team_id)
) WITHOUT ROWID;
CREATE INDEX dt_project_access_teams_team ON dt_project_access_teams (team_id);

CREATE TABLE dt_components (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    project_id  INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    version     TEXT,
    grp         TEXT,
    purl        TEXT,
    cpe         TEXT,
    swid_tag_id TEXT,
    classifier  TEXT,
    description TEXT,
    license     TEXT,
    md5         TEXT,
    sha1        TEXT,
    sha256      TEXT,
    sha512      TEXT,
    is_internal INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX dt_components_project ON dt_components (project_id);

-- Vulnerabilities and the components they affect. From OSV records: `cvss_v3_score`,
-- `updated_ms` (last modification), `refs` (upstream's references, a Markdown list) and `cwes`
-- (CWE numbers, comma-separated). A finding's `analyzer` is NONE (attributed by hand) or
-- INTERNAL_ANALYZER (OSV data).
CREATE TABLE dt_vulnerabilities (
    id             INTEGER PRIMARY KEY,
    uuid           TEXT NOT NULL UNIQUE,
    vuln_id        TEXT NOT NULL,
    source         TEXT NOT NULL,
    severity       TEXT,
    title          TEXT,
    description    TEXT,
    recommendation TEXT,
    cvss_v3_vector TEXT,
    created_ms     INTEGER,
    published_ms   INTEGER,
    cvss_v3_score  REAL,
    updated_ms     INTEGER,
    refs           TEXT,
    cwes           TEXT,
    UNIQUE (source, vuln_id)
);
CREATE INDEX dt_vulnerabilities_vuln_id ON dt_vulnerabilities (vuln_id);
CREATE TABLE dt_component_vulnerabilities (
    component_id     INTEGER NOT NULL REFERENCES dt_components (id) ON DELETE CASCADE,
    vulnerability_id INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    attributed_on_ms INTEGER NOT NULL,
    analyzer         TEXT NOT NULL DEFAULT 'NONE',
    PRIMARY KEY (component_id, vulnerability_id)
) WITHOUT ROWID;
CREATE INDEX dt_component_vulnerabilities_vuln ON dt_component_vulnerabilities (vulnerability_id);

-- Analysis decisions, one per (component, vulnerability), and their audit trail.
CREATE TABLE dt_analyses (
    id               INTEGER PRIMARY KEY,
    project_id       INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    component_id     INTEGER NOT NULL REFERENCES dt_components (id) ON DELETE CASCADE,
    vulnerability_id INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    state            TEXT NOT NULL,
    justification    TEXT,
    response         TEXT,
    details          TEXT,
    suppressed       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (component_id, vulnerability_id)
);
CREATE TABLE dt_analysis_comments (
    id           INTEGER PRIMARY KEY,
    analysis_id  INTEGER NOT NULL REFERENCES dt_analyses (id) ON DELETE CASCADE,
    timestamp_ms INTEGER NOT NULL,
    comment      TEXT NOT NULL,
    commenter    TEXT
);
CREATE INDEX dt_analysis_comments_analysis ON dt_analysis_comments (analysis_id);

-- Metrics snapshots of projects; the badge reads the latest.
CREATE TABLE dt_project_metrics (
    id                     INTEGER PRIMARY KEY,
    project_id             INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    first_occurrence_ms    INTEGER NOT NULL,
    last_occurrence_ms     INTEGER NOT NULL,
    components             INTEGER NOT NULL,
    vulnerable_components  INTEGER NOT NULL,
    vulnerabilities        INTEGER NOT NULL,
    critical               INTEGER NOT NULL,
    high                   INTEGER NOT NULL,
    medium                 INTEGER NOT NULL,
    low                    INTEGER NOT NULL,
    unassigned             INTEGER NOT NULL,
    suppressed             INTEGER NOT NULL,
    findings_total         INTEGER NOT NULL,
    findings_audited       INTEGER NOT NULL,
    policy_violations_fail INTEGER NOT NULL,
    policy_violations_warn INTEGER NOT NULL,
    policy_violations_info INTEGER NOT NULL,
    policy_violations_audited             INTEGER NOT NULL DEFAULT 0,
    policy_violations_security_total      INTEGER NOT NULL DEFAULT 0,
    policy_violations_security_audited    INTEGER NOT NULL DEFAULT 0,
    policy_violations_license_total       INTEGER NOT NULL DEFAULT 0,
    policy_violations_license_audited     INTEGER NOT NULL DEFAULT 0,
    policy_violations_operational_total   INTEGER NOT NULL DEFAULT 0,
    policy_violations_operational_audited INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX dt_project_metrics_project ON dt_project_metrics (project_id, last_occurrence_ms);
-- Metrics history as upstream keeps it: a new row when a counter changes, else the latest
-- row's `last_occurrence_ms` moves on. The portfolio's rows sum the latest metrics of active
-- non-collection projects; a component's (`components` 1, `vulnerable_components` 0 or 1)
-- are recorded with its project's.
CREATE TABLE dt_portfolio_metrics (
    id                                    INTEGER PRIMARY KEY,
    projects                              INTEGER NOT NULL,
    vulnerable_projects                   INTEGER NOT NULL,
    first_occurrence_ms                   INTEGER NOT NULL,
    last_occurrence_ms                    INTEGER NOT NULL,
    components                            INTEGER NOT NULL,
    vulnerable_components                 INTEGER NOT NULL,
    vulnerabilities                       INTEGER NOT NULL,
    critical                              INTEGER NOT NULL,
    high                                  INTEGER NOT NULL,
    medium                                INTEGER NOT NULL,
    low                                   INTEGER NOT NULL,
    unassigned                            INTEGER NOT NULL,
    suppressed                            INTEGER NOT NULL,
    findings_total                        INTEGER NOT NULL,
    findings_audited                      INTEGER NOT NULL,
    policy_violations_fail                INTEGER NOT NULL,
    policy_violations_warn                INTEGER NOT NULL,
    policy_violations_info                INTEGER NOT NULL,
    policy_violations_audited             INTEGER NOT NULL,
    policy_violations_security_total      INTEGER NOT NULL,
    policy_violations_security_audited    INTEGER NOT NULL,
    policy_violations_license_total       INTEGER NOT NULL,
    policy_violations_license_audited     INTEGER NOT NULL,
    policy_violations_operational_total   INTEGER NOT NULL,
    policy_violations_operational_audited INTEGER NOT NULL
);
CREATE INDEX dt_portfolio_metrics_last ON dt_portfolio_metrics (last_occurrence_ms);
CREATE TABLE dt_component_metrics (
    id                                    INTEGER PRIMARY KEY,
    component_id                          INTEGER NOT NULL REFERENCES dt_components (id) ON DELETE CASCADE,
    first_occurrence_ms                   INTEGER NOT NULL,
    last_occurrence_ms                    INTEGER NOT NULL,
    components                            INTEGER NOT NULL,
    vulnerable_components                 INTEGER NOT NULL,
    vulnerabilities                       INTEGER NOT NULL,
    critical                              INTEGER NOT NULL,
    high                                  INTEGER NOT NULL,
    medium                                INTEGER NOT NULL,
    low                                   INTEGER NOT NULL,
    unassigned                            INTEGER NOT NULL,
    suppressed                            INTEGER NOT NULL,
    findings_total                        INTEGER NOT NULL,
    findings_audited                      INTEGER NOT NULL,
    policy_violations_fail                INTEGER NOT NULL,
    policy_violations_warn                INTEGER NOT NULL,
    policy_violations_info                INTEGER NOT NULL,
    policy_violations_audited             INTEGER NOT NULL,
    policy_violations_security_total      INTEGER NOT NULL,
    policy_violations_security_audited    INTEGER NOT NULL,
    policy_violations_license_total       INTEGER NOT NULL,
    policy_violations_license_audited     INTEGER NOT NULL,
    policy_violations_operational_total   INTEGER NOT NULL,
    policy_violations_operational_audited INTEGER NOT NULL
);
CREATE INDEX dt_component_metrics_component ON dt_component_metrics (component_id, last_occurrence_ms);
-- License groups (policies' LICENSE_GROUP conditions name them); members are SPDX license
-- ids of the built-in catalogue.
CREATE TABLE dt_license_groups (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL UNIQUE,
    risk_weight INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE dt_license_group_licenses (
    group_id   INTEGER NOT NULL REFERENCES dt_license_groups (id) ON DELETE CASCADE,
    license_id TEXT NOT NULL,
    PRIMARY KEY (group_id, license_id)
) WITHOUT ROWID;

-- Policies (global: they apply to every project), their conditions, the violations they
-- produce, and analysis decisions on violations with their audit trail.
CREATE TABLE dt_policies (
    id                          INTEGER PRIMARY KEY,
    uuid                        TEXT NOT NULL UNIQUE,
    name                        TEXT NOT NULL UNIQUE,
    operator                    TEXT NOT NULL,
    violation_state             TEXT NOT NULL,
    include_children            INTEGER NOT NULL DEFAULT 0,
    only_latest_project_version INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE dt_policy_conditions (
    id        INTEGER PRIMARY KEY,
    uuid      TEXT NOT NULL UNIQUE,
    policy_id INTEGER NOT NULL REFERENCES dt_policies (id) ON DELETE CASCADE,
    subject   TEXT NOT NULL,
    operator  TEXT NOT NULL,
    value     TEXT NOT NULL
);
CREATE INDEX dt_policy_conditions_policy ON dt_policy_conditions (policy_id);
-- A policy with neither projects nor tags is global; otherwise it applies to its projects
-- (and their descendants when `include_children`) and to projects carrying one of its tags.
CREATE TABLE dt_policy_projects (
    policy_id  INTEGER NOT NULL REFERENCES dt_policies (id) ON DELETE CASCADE,
    project_id INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    PRIMARY KEY (policy_id, project_id)
) WITHOUT ROWID;
CREATE INDEX dt_policy_projects_project ON dt_policy_projects (project_id);
CREATE TABLE dt_policy_tags (
    policy_id INTEGER NOT NULL REFERENCES dt_policies (id) ON DELETE CASCADE,
    name      TEXT NOT NULL REFERENCES dt_tags (name) ON DELETE CASCADE,
    PRIMARY KEY (policy_id, name)
) WITHOUT ROWID;
CREATE INDEX dt_policy_tags_name ON dt_policy_tags (name);
CREATE TABLE dt_policy_violations (
    id           INTEGER PRIMARY KEY,
    uuid         TEXT NOT NULL UNIQUE,
    type         TEXT NOT NULL,
    project_id   INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    component_id INTEGER NOT NULL REFERENCES dt_components (id) ON DELETE CASCADE,
    condition_id INTEGER NOT NULL REFERENCES dt_policy_conditions (id) ON DELETE CASCADE,
    timestamp_ms INTEGER NOT NULL,
    UNIQUE (component_id, condition_id)
);
CREATE INDEX dt_policy_violations_project ON dt_policy_violations (project_id);
CREATE INDEX dt_policy_violations_condition ON dt_policy_violations (condition_id);
CREATE TABLE dt_violation_analyses (
    id           INTEGER PRIMARY KEY,
    violation_id INTEGER NOT NULL UNIQUE REFERENCES dt_policy_violations (id) ON DELETE CASCADE,
    state        TEXT NOT NULL,
    suppressed   INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE dt_violation_analysis_comments (
    id           INTEGER PRIMARY KEY,
    analysis_id  INTEGER NOT NULL REFERENCES dt_violation_analyses (id) ON DELETE CASCADE,
    timestamp_ms INTEGER NOT NULL,
    comment      TEXT NOT NULL,
    commenter    TEXT
);
CREATE INDEX dt_violation_analysis_comments_analysis ON dt_violation_analysis_comments (analysis_id);

-- Accepted BOM uploads. A row is written before the token is returned, so an upload survives a
-- restart; the background worker processes pending rows oldest first and then drops the
-- document (`content` NULL) but keeps the token's state.
CREATE TABLE dt_bom_uploads (
    token        TEXT PRIMARY KEY,
    project_id   INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    content      BLOB,
    received_ms  INTEGER NOT NULL,
    processed_ms INTEGER,
    error        TEXT
) WITHOUT ROWID;
CREATE INDEX dt_bom_uploads_pending ON dt_bom_uploads (received_ms) WHERE processed_ms IS NULL;

-- OSV vulnerability data and the internal analyzer's state: a vulnerability's other names.
CREATE TABLE dt_vulnerability_aliases (
    vulnerability_id INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    alias            TEXT NOT NULL,
    PRIMARY KEY (vulnerability_id, alias)
) WITHOUT ROWID;

-- One row per imported OSV record: its `modified` stamp and whether it was withdrawn.
CREATE TABLE dt_osv_records (
    vulnerability_id INTEGER PRIMARY KEY REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    osv_id           TEXT NOT NULL UNIQUE,
    modified         TEXT NOT NULL,
    withdrawn        INTEGER NOT NULL DEFAULT 0
);

-- The packages a record affects: purl type, normalized package key, and the ranges and
-- versions (JSON) the matcher evaluates.
CREATE TABLE dt_osv_affected (
    id               INTEGER PRIMARY KEY,
    vulnerability_id INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    ecosystem        TEXT NOT NULL,
    package          TEXT NOT NULL,
    spec             TEXT NOT NULL
);
CREATE INDEX dt_osv_affected_package ON dt_osv_affected (ecosystem, package);
CREATE INDEX dt_osv_affected_vuln ON dt_osv_affected (vulnerability_id);

-- The package each component is matched as (from its purl), so new data re-checks only the
-- components of the packages it names.
CREATE TABLE dt_component_packages (
    component_id INTEGER PRIMARY KEY REFERENCES dt_components (id) ON DELETE CASCADE,
    ecosystem    TEXT NOT NULL,
    package      TEXT NOT NULL
);
CREATE INDEX dt_component_packages_package ON dt_component_packages (ecosystem, package);

-- The source package a BOM names for an OS package (Trivy's `SrcName`, `SrcVersion`,
-- `SrcRelease`, `SrcEpoch` properties): OSV's distribution records name source packages.
CREATE TABLE dt_component_sources (
    component_id INTEGER PRIMARY KEY REFERENCES dt_components (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    version      TEXT
);

-- CVSS v2 and v4 vectors and scores of imported records (v3 is on `dt_vulnerabilities`).
CREATE TABLE dt_vulnerability_cvss (
    vulnerability_id INTEGER PRIMARY KEY REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    v2_vector        TEXT,
    v2_score         REAL,
    v4_vector        TEXT,
    v4_score         REAL
);

-- Matches the analyzer could not decide because a version did not parse: reported, never
-- silently treated as not affected.
CREATE TABLE dt_unknown_matches (
    component_id     INTEGER NOT NULL REFERENCES dt_components (id) ON DELETE CASCADE,
    vulnerability_id INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    reason           TEXT NOT NULL,
    PRIMARY KEY (component_id, vulnerability_id)
) WITHOUT ROWID;
CREATE INDEX dt_unknown_matches_vuln ON dt_unknown_matches (vulnerability_id);

-- `POST /finding/project/{uuid}/analyze` requests, followed by `GET /event/token/{token}`.
CREATE TABLE dt_analysis_requests (
    token        TEXT PRIMARY KEY,
    project_id   INTEGER NOT NULL REFERENCES dt_projects (id) ON DELETE CASCADE,
    received_ms  INTEGER NOT NULL,
    processed_ms INTEGER
) WITHOUT ROWID;
CREATE INDEX dt_analysis_requests_pending ON dt_analysis_requests (received_ms)
    WHERE processed_ms IS NULL;

-- EPSS scores by CVE id, from `outpost dtrack import-epss`: `score_date` is the date of the file
-- a row last came from, so rows a newer file no longer lists can be dropped.
CREATE TABLE dt_epss (
    cve_id     TEXT PRIMARY KEY,
    score      REAL NOT NULL,
    percentile REAL NOT NULL,
    score_date TEXT NOT NULL
) WITHOUT ROWID;

-- The EPSS file last imported whole: its model version and score date (one row).
CREATE TABLE dt_epss_import (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    model_version TEXT NOT NULL,
    score_date    TEXT NOT NULL,
    imported_ms   INTEGER NOT NULL
);

-- One row per imported NVD CVE record: its `lastModified` stamp (a copy replaces the stored
-- record only when newer).
CREATE TABLE dt_nvd_records (
    vulnerability_id INTEGER PRIMARY KEY REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    cve_id           TEXT NOT NULL UNIQUE,
    last_modified_ms INTEGER NOT NULL
);

-- The vulnerable CPEs of a record's configurations: part, vendor and product canonical and
-- lowercased (the candidate lookup), the other attributes, and the four range bounds.
CREATE TABLE dt_nvd_cpes (
    id                      INTEGER PRIMARY KEY,
    vulnerability_id        INTEGER NOT NULL REFERENCES dt_vulnerabilities (id) ON DELETE CASCADE,
    part                    TEXT NOT NULL,
    vendor                  TEXT NOT NULL,
    product                 TEXT NOT NULL,
    version                 TEXT NOT NULL,
    upd                     TEXT NOT NULL,
    edition                 TEXT NOT NULL,
    language                TEXT NOT NULL,
    sw_edition              TEXT NOT NULL,
    target_sw               TEXT NOT NULL,
    target_hw               TEXT NOT NULL,
    other                   TEXT NOT NULL,
    version_start_including TEXT,
    version_start_excluding TEXT,
    version_end_including   TEXT,
    version_end_excluding   TEXT
);
CREATE INDEX dt_nvd_cpes_key ON dt_nvd_cpes (part, vendor, product);
CREATE INDEX dt_nvd_cpes_vuln ON dt_nvd_cpes (vulnerability_id);

-- The CPE each component is matched as (part, vendor, product), so new NVD data re-checks
-- only the components it may match.
CREATE TABLE dt_component_cpes (
    component_id INTEGER PRIMARY KEY REFERENCES dt_components (id) ON DELETE CASCADE,
    part         TEXT NOT NULL,
    vendor       TEXT NOT NULL,
    product      TEXT NOT NULL
);
CREATE INDEX dt_component_cpes_key ON dt_component_cpes (part, vendor, product);

-- ================================================================================================
-- Notifications
-- ================================================================================================

-- Who is notified of a message, decided in the commit that stores (or edits) it: one row per
-- user who may get a push or a missed-message email. The notification pass carries it out
-- once the user's idleness is known (right after commit): `push_trigger` is sent when the user
-- is idle, or also while active with `online_push`; `email_trigger` only when idle. `stage` 1
-- is the second look at an email for a user who was active (after the queue timeout).
-- Times are UNIX milliseconds; `claimed` is cleared at start-up.
CREATE TABLE notification_jobs (
    id                 INTEGER PRIMARY KEY,
    user_id            INTEGER NOT NULL REFERENCES users (id),
    message_id         INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    push_trigger       TEXT,
    online_push        INTEGER NOT NULL DEFAULT 0,
    email_trigger      TEXT,
    mentioned_group_id INTEGER,
    stage              INTEGER NOT NULL DEFAULT 0,
    attempts           INTEGER NOT NULL DEFAULT 0,
    due_at             INTEGER NOT NULL,
    claimed            INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX notification_jobs_due ON notification_jobs (claimed, due_at);
CREATE INDEX notification_jobs_message ON notification_jobs (message_id);

-- Pushes a user's devices show (upstream's `active_mobile_push_notification`): reading the
-- message retracts it. No foreign key: a deleted message's push is retracted too.
CREATE TABLE push_active (
    user_id    INTEGER NOT NULL REFERENCES users (id),
    message_id INTEGER NOT NULL,
    PRIMARY KEY (user_id, message_id)
) WITHOUT ROWID;

-- Remove notifications to send (`message_ids`: comma-separated, newest last).
CREATE TABLE push_removals (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users (id),
    message_ids TEXT NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    due_at      INTEGER NOT NULL,
    claimed     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX push_removals_due ON push_removals (claimed, due_at);

-- ================================================================================================
-- Outgoing mail
-- ================================================================================================

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

-- The notification decision's reads on the send path: a topic's followers, the subscriptions
-- with channel notifications on, and the users with a given setting.
CREATE INDEX user_topics_topic ON user_topics (channel_id, topic);
CREATE INDEX subscriptions_notify ON subscriptions (channel_id)
    WHERE push_notifications = 1 OR email_notifications = 1;
CREATE INDEX user_settings_by_name ON user_settings (name, value);

-- What the weekly digest needs of each user: when they were last active (written at most once an
-- hour, from active presence reports) and when their last digest was queued (0: never).
CREATE TABLE user_activity (
    user_id        INTEGER PRIMARY KEY REFERENCES users (id),
    last_active_at INTEGER NOT NULL DEFAULT 0,
    last_digest_at INTEGER NOT NULL DEFAULT 0
);

PRAGMA user_version = 31;
