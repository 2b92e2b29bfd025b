//! The catalogue's rows for the `[limits]` table.
//! Rows only, in catalogue order; the assembly in `keys/mod.rs` fixes where they go. Must
//! not touch: the network, the database or global state.

use std::time::Duration;

use super::{Key, Kind, key};

pub(super) const LIMITS: &[Key] = &[
    key(
        "limits",
        "max_body_bytes",
        int!(limits.max_body_bytes, 1024 * 1024, 1024, 1 << 32),
        "Largest accepted body of an ordinary request in bytes; larger requests get 413.",
    ),
    key(
        "limits",
        "max_upload_bytes",
        int!(limits.max_upload_bytes, 25 * 1024 * 1024, 1024, 1 << 36),
        "Largest accepted body of an upload (Dependency-Track BOMs) in bytes.",
    ),
    key(
        "limits",
        "max_params",
        int!(limits.max_params, 1000, 1, 100_000),
        "Most parameters (query string plus form body) one chat request may carry.",
    ),
    key(
        "limits",
        "header_timeout_secs",
        secs!(limits.header_timeout, 30, 1, 3600),
        "Seconds a request head may take to arrive; keep-alive connections idle this long are closed\n\
         (longer than clients such as Dart's HttpClient keep idle connections, so they close first).",
    ),
    key(
        "limits",
        "body_timeout_secs",
        secs!(limits.body_timeout, 60, 1, 86_400),
        "Seconds a whole request body may take to arrive.",
    ),
    key(
        "limits",
        "max_connections",
        int!(limits.max_connections, 16_384, 16, 10_000_000),
        "Most open connections over all listeners; further ones get 503. Lowered at start to stay\n\
         below the file-descriptor limit (which `serve` raises to its hard limit).",
    ),
    key(
        "limits",
        "max_concurrent_uploads",
        int!(limits.max_concurrent_uploads, 4, 1, 1024),
        "Most uploads (bodies over max_body_bytes, i.e. BOMs) read at once; further ones get 503.",
    ),
    key(
        "limits",
        "user_requests_per_minute",
        int!(limits.user_requests_per_minute, 200, 0, 1_000_000),
        "Requests per minute of one user or API key (upstream's 200); 0 turns the limit off.",
    ),
    key(
        "limits",
        "ip_requests_per_minute",
        int!(limits.ip_requests_per_minute, 100, 0, 1_000_000),
        "Unauthenticated requests per minute from one address (upstream's 100); 0 turns it off.",
    ),
    key(
        "limits",
        "rate_limit_exempt_bots",
        boolean!(limits.rate_limit_exempt_bots, false),
        "Bots are exempt from the per-user limit.",
    ),
    key(
        "limits",
        "rate_limit_exempt_addresses",
        Kind::Ips {
            get: |c| c.limits.rate_limit_exempt_addresses.clone(),
            set: |c, v| c.limits.rate_limit_exempt_addresses = v,
        },
        "Client addresses exempt from rate limits, e.g. [\"127.0.0.1\"].",
    ),
    key(
        "limits",
        "trusted_proxies",
        Kind::Ips {
            get: |c| c.limits.trusted_proxies.clone(),
            set: |c, v| c.limits.trusted_proxies = v,
        },
        "Reverse proxies in front of Outpost, e.g. [\"127.0.0.1\"]: for requests from them the\n\
         client is the last address of X-Forwarded-For (for the per-address rate limits).",
    ),
    key(
        "limits",
        "max_queues_per_user",
        int!(limits.max_queues_per_user, 50, 1, 10_000),
        "Event queues one user may hold; registering one more drops that user's stalest queue.",
    ),
    key(
        "limits",
        "max_parked_polls_per_user",
        int!(limits.max_parked_polls_per_user, 20, 1, 10_000),
        "Long-polls (GET /events) one user may have waiting at once; one more is refused.",
    ),
    key(
        "limits",
        "max_user_group_description_length",
        int!(limits.max_user_group_description_length, 1024, 1, 100_000),
        "Characters a user group's description may have (upstream sets none).",
    ),
    key(
        "limits",
        "max_flag_message_ids",
        int!(limits.max_flag_message_ids, 5000, 1, 100_000),
        "Message ids one POST /messages/flags request may name (duplicates counted once).",
    ),
    key(
        "limits",
        "max_invites_per_day",
        int!(limits.max_invites_per_day, 100, 0, 1_000_000),
        "Email invitations the organization may send per 24 hours (upstream's 100); 0: no limit.",
    ),
    key(
        "limits",
        "max_drafts_per_user",
        int!(limits.max_drafts_per_user, 1000, 1, 100_000),
        "Message drafts one user may keep on the server (POST /drafts refuses more).",
    ),
    key(
        "limits",
        "max_saved_snippets_per_user",
        int!(limits.max_saved_snippets_per_user, 100, 1, 10_000),
        "Saved snippets one user may keep (POST /saved_snippets refuses more).",
    ),
    key(
        "limits",
        "max_bot_storage_chars",
        int!(limits.max_bot_storage_chars, 10_000_000, 1, 1_000_000_000),
        "Characters of keys and values one bot may keep in /bot_storage (upstream's\n\
         USER_STATE_SIZE_LIMIT); PUT /bot_storage refuses more.",
    ),
    key(
        "limits",
        "max_scheduled_messages_per_user",
        int!(limits.max_scheduled_messages_per_user, 100, 1, 100_000),
        "Scheduled messages one user may have waiting to be sent; one more is refused.",
    ),
    key(
        "limits",
        "max_reminders_per_user",
        int!(limits.max_reminders_per_user, 100, 1, 100_000),
        "Reminders one user may have waiting; one more is refused.",
    ),
    key(
        "limits",
        "max_reminder_note_length",
        int!(limits.max_reminder_note_length, 1000, 1, 10_000),
        "Characters a reminder's note may have (register's max_reminder_note_length).",
    ),
    key(
        "limits",
        "max_file_upload_size_mib",
        int!(limits.max_file_upload_size_mib, 25, 1, 1024),
        "Largest file POST /user_uploads accepts, in MiB (register's max_file_upload_size_mib);\n\
         the whole upload is held in memory while it is stored.",
    ),
    key(
        "limits",
        "upload_quota_mib",
        int!(limits.upload_quota_mib, 0, 0, 1 << 30),
        "Total size of all uploaded files of the organization, in MiB; 0: no quota.",
    ),
    key(
        "limits",
        "unlinked_upload_weeks",
        int!(limits.unlinked_upload_weeks, 3, 1, 520),
        "Weeks after which an upload no message ever linked is deleted.",
    ),
    key(
        "limits",
        "max_emoji_file_size_mib",
        int!(limits.max_emoji_file_size_mib, 5, 1, 64),
        "Largest image POST /realm/emoji/{name} accepts, in MiB (upstream's\n\
         MAX_EMOJI_FILE_SIZE_MIB); it is decoded and scaled to 64x64 pixels.",
    ),
];
