//! THE catalogue of configuration keys: one row per key with its section, name, type and
//! valid range, default, documentation (the comment `config.example.toml` shows above it),
//! whether it is secret, and the field of [`Config`] it sets.
//!
//! Defaults, parsing, the unknown-key check, the redacted dump and the example file are all
//! derived from [`KEYS`]; adding a key is one row here plus its field in `Config`. Must not
//! touch: the network, the database or global state.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use super::{
    Config, EmailVisibility, LETS_ENCRYPT_DIRECTORY, LogFormat, MailPassword, MailTls, Synchronous,
};

/// What values a key takes, with typed access to its field of [`Config`].
pub(super) enum Kind {
    /// A string that `check` accepts; otherwise `problem` is reported.
    Str {
        default: &'static str,
        check: fn(&str) -> bool,
        problem: &'static str,
        get: fn(&Config) -> String,
        set: fn(&mut Config, String),
    },
    Bool {
        default: bool,
        get: fn(&Config) -> bool,
        set: fn(&mut Config, bool),
    },
    /// An integer in `min..=max`.
    Int {
        default: i64,
        min: i64,
        max: i64,
        get: fn(&Config) -> i64,
        set: fn(&mut Config, i64),
    },
    /// One of `options`; `set` takes an option's name and says whether it was one.
    Choice {
        default: &'static str,
        options: &'static [&'static str],
        get: fn(&Config) -> &'static str,
        set: fn(&mut Config, &str) -> bool,
    },
    /// An IP address and port.
    Addr {
        default: &'static str,
        get: fn(&Config) -> SocketAddr,
        set: fn(&mut Config, SocketAddr),
    },
    /// A list of IP addresses, empty by default.
    Ips {
        get: fn(&Config) -> Vec<IpAddr>,
        set: fn(&mut Config, Vec<IpAddr>),
    },
    /// A list of strings each of which `check` accepts (otherwise `problem` is reported),
    /// empty by default.
    Strs {
        check: fn(&str) -> bool,
        problem: &'static str,
        get: fn(&Config) -> Vec<String>,
        set: fn(&mut Config, Vec<String>),
    },
}

/// One configuration key.
pub(super) struct Key {
    /// `""` for the top level.
    pub section: &'static str,
    pub name: &'static str,
    pub kind: Kind,
    /// The comment above the key in `config.example.toml`, one line per `\n`.
    pub doc: &'static str,
    /// Printed as `"***"` by the redacted dump.
    pub secret: bool,
}

/// A key whose value the redacted dump hides.
const fn secret(section: &'static str, name: &'static str, kind: Kind, doc: &'static str) -> Key {
    Key {
        section,
        name,
        kind,
        doc,
        secret: true,
    }
}

const fn key(section: &'static str, name: &'static str, kind: Kind, doc: &'static str) -> Key {
    Key {
        section,
        name,
        kind,
        doc,
        secret: false,
    }
}

macro_rules! boolean {
    ($($f:ident).+, $default:expr) => {
        Kind::Bool {
            default: $default,
            get: |c| c.$($f).+,
            set: |c, v| c.$($f).+ = v,
        }
    };
}

macro_rules! int {
    ($($f:ident).+, $default:expr, $min:expr, $max:expr) => {
        Kind::Int {
            default: $default,
            min: $min,
            max: $max,
            get: |c| c.$($f).+ as i64,
            set: |c, v| c.$($f).+ = v as _,
        }
    };
}

macro_rules! secs {
    ($($f:ident).+, $default:expr, $min:expr, $max:expr) => {
        Kind::Int {
            default: $default,
            min: $min,
            max: $max,
            get: |c| c.$($f).+.as_secs() as i64,
            set: |c, v| c.$($f).+ = Duration::from_secs(v as u64),
        }
    };
}

/// A file path; empty means not set.
macro_rules! path {
    ($($f:ident).+, $problem:expr) => {
        Kind::Str {
            default: "",
            check: |v| !v.contains('\n'),
            problem: $problem,
            get: |c| c.$($f).+.display().to_string(),
            set: |c, v| c.$($f).+ = PathBuf::from(v),
        }
    };
}

macro_rules! addr {
    ($($f:ident).+, $default:expr) => {
        Kind::Addr {
            default: $default,
            get: |c| c.$($f).+,
            set: |c, v| c.$($f).+ = v,
        }
    };
}

/// One row of a listener's `[<listener>.acme]` section: `acme_key!(name, "section", field)`.
macro_rules! acme_key {
    (domains, $section:literal, $l:ident) => {
        key(
            $section,
            "domains",
            Kind::Strs {
                check: super::acme_domain_ok,
                problem: concat!(
                    $section,
                    ".domains must be a list of DNS names such as [\"chat.example.com\"] ",
                    "(lowercase, no wildcard, no IP address)"
                ),
                get: |c| c.$l.acme.domains.clone(),
                set: |c, v| c.$l.acme.domains = v,
            },
            "Obtain and renew this listener's certificate over ACME (TLS-ALPN-01, answered on the\n\
         listener itself, which must be reachable on port 443 under these names), e.g.\n\
         [\"chat.example.com\"]; empty: no ACME. Exclusive with tls_cert/tls_key.",
        )
    };
    (contact, $section:literal, $l:ident) => {
        key(
            $section,
            "contact",
            Kind::Str {
                default: "",
                check: |v| {
                    v.is_empty()
                        || (v.starts_with("mailto:")
                            && v.len() > 7
                            && !v.chars().any(|c| c.is_whitespace() || c.is_control()))
                },
                problem: concat!($section, ".contact must be empty or a mailto: address"),
                get: |c| c.$l.acme.contact.clone(),
                set: |c, v| c.$l.acme.contact = v,
            },
            "The ACME account's contact, e.g. \"mailto:admin@example.com\"; empty: none.",
        )
    };
    (directory, $section:literal, $l:ident) => {
        key(
            $section,
            "directory",
            Kind::Str {
                default: LETS_ENCRYPT_DIRECTORY,
                check: |v| {
                    v.starts_with("https://")
                        && v.len() > 8
                        && !v.chars().any(|c| c.is_whitespace() || c.is_control())
                },
                problem: concat!($section, ".directory must be an https:// URL"),
                get: |c| c.$l.acme.directory.clone(),
                set: |c, v| c.$l.acme.directory = v,
            },
            "The ACME server's directory URL (Let's Encrypt's staging server:\n\
         https://acme-staging-v02.api.letsencrypt.org/directory).",
        )
    };
    (ca_root, $section:literal, $l:ident) => {
        key(
            $section,
            "ca_root",
            path!(
                $l.acme.ca_root,
                concat!($section, ".ca_root must be one line")
            ),
            "A PEM file of root certificates to trust for the ACME server's own HTTPS instead of\n\
         the built-in web roots (for a test server such as pebble); empty: the web roots.",
        )
    };
}

const EMAIL_VISIBILITY: &[&str] = &["everyone", "members", "admins", "nobody", "moderators"];

/// Every key, in the order of `config.example.toml`, the dump and the problem reports.
pub(super) const KEYS: &[Key] = &[
    key(
        "",
        "data_dir",
        Kind::Str {
            default: "./outpost-data",
            check: |v| !v.is_empty(),
            problem: "data_dir must not be empty",
            get: |c| c.data_dir.display().to_string(),
            set: |c, v| c.data_dir = PathBuf::from(v),
        },
        "Directory for the SQLite database and other state; created on first start. Back it up.",
    ),
    key(
        "chat",
        "listen",
        addr!(chat.listen, "127.0.0.1:9991"),
        "Address and port the chat (Zulip-compatible) API listens on.",
    ),
    key(
        "chat",
        "tls_cert",
        path!(chat.tls_cert, "chat.tls_cert must be one line"),
        "Serve this listener over HTTPS: a PEM file with its certificate chain (leaf first);\n\
         empty: plain HTTP. Given together with tls_key; both are read again on SIGHUP.",
    ),
    key(
        "chat",
        "tls_key",
        path!(chat.tls_key, "chat.tls_key must be one line"),
        "The PEM file with the private key of tls_cert (PKCS#8, PKCS#1 or SEC1).",
    ),
    acme_key!(domains, "chat.acme", chat),
    acme_key!(contact, "chat.acme", chat),
    acme_key!(directory, "chat.acme", chat),
    acme_key!(ca_root, "chat.acme", chat),
    key(
        "chat",
        "external_url",
        Kind::Str {
            // Empty: http:// plus the listen address (see `super::derive`).
            default: "",
            check: |v| v.starts_with("http://") || v.starts_with("https://"),
            problem: "chat.external_url must start with http:// or https://",
            get: |c| c.chat.external_url.clone(),
            set: |c, v| c.chat.external_url = v.trim_end_matches('/').to_string(),
        },
        "URL clients use to reach the server (defaults to http://, or https:// with tls_cert, plus\nthe listen address).",
    ),
    key(
        "chat",
        "realm_name",
        Kind::Str {
            default: "Outpost",
            check: |v| !v.trim().is_empty() && v.chars().count() <= 40,
            problem: "chat.realm_name must have 1 to 40 characters",
            get: |c| c.chat.realm_name.clone(),
            set: |c, v| c.chat.realm_name = v,
        },
        "Organization name shown to clients (1 to 40 characters).",
    ),
    key(
        "chat",
        "development",
        boolean!(chat.development, false),
        "Development mode: enables POST /api/v1/dev_fetch_api_key (login without a password).",
    ),
    key(
        "chat",
        "allow_remote_development",
        boolean!(chat.allow_remote_development, false),
        "Development mode on a non-loopback listen address: refused at start unless this is true.",
    ),
    key(
        "chat",
        "email_address_visibility",
        Kind::Choice {
            default: "everyone",
            options: EMAIL_VISIBILITY,
            get: |c| c.chat.email_address_visibility.name(),
            set: |c, v| match EmailVisibility::from_name(v) {
                Some(e) => {
                    c.chat.email_address_visibility = e;
                    true
                }
                None => false,
            },
        },
        "Who may see a new user's real email: everyone, members, moderators, admins or nobody.",
    ),
    key(
        "chat",
        "invitation_link_validity_minutes",
        int!(
            chat.invitation_link_validity_minutes,
            14_400,
            1,
            10 * 365 * 24 * 60
        ),
        "Minutes an invitation stays valid when its creator does not choose (upstream's 10 days).",
    ),
    key(
        "chat",
        "session_days",
        int!(chat.session_days, 14, 1, 3650),
        "Days a web client login (session cookie) lasts without being used; using it extends it.",
    ),
    key(
        "dtrack",
        "enabled",
        boolean!(dtrack.enabled, false),
        "Serve the Dependency-Track-compatible API (on its own listener) as well.",
    ),
    key(
        "dtrack",
        "listen",
        addr!(dtrack.listen, "127.0.0.1:8081"),
        "Address and port the Dependency-Track API listens on (paths under /api).",
    ),
    key(
        "dtrack",
        "tls_cert",
        path!(dtrack.tls_cert, "dtrack.tls_cert must be one line"),
        "Serve this listener over HTTPS: a PEM file with its certificate chain (leaf first);\n\
         empty: plain HTTP. Given together with tls_key; both are read again on SIGHUP.",
    ),
    key(
        "dtrack",
        "tls_key",
        path!(dtrack.tls_key, "dtrack.tls_key must be one line"),
        "The PEM file with the private key of tls_cert (PKCS#8, PKCS#1 or SEC1).",
    ),
    acme_key!(domains, "dtrack.acme", dtrack),
    acme_key!(contact, "dtrack.acme", dtrack),
    acme_key!(directory, "dtrack.acme", dtrack),
    acme_key!(ca_root, "dtrack.acme", dtrack),
    key(
        "dtrack",
        "acl_enabled",
        boolean!(dtrack.acl_enabled, false),
        "Portfolio access control: API keys and users see only projects mapped to their teams.",
    ),
    key(
        "dtrack",
        "badges_unauthenticated",
        boolean!(dtrack.badges_unauthenticated, false),
        "Serve the SVG badges to anyone, without credentials.",
    ),
    key(
        "dtrack.osv",
        "base_url",
        Kind::Str {
            default: "",
            check: |v| {
                v.is_empty()
                    || ((v.starts_with("http://") || v.starts_with("https://"))
                        && !v.chars().any(|c| c.is_whitespace() || c.is_control()))
            },
            problem: "dtrack.osv.base_url must be empty or an http:// or https:// URL",
            get: |c| c.dtrack.osv_base_url.clone(),
            set: |c, v| c.dtrack.osv_base_url = v.trim_end_matches('/').to_string(),
        },
        "Fetch OSV's exports (<base>/<ecosystem>/all.zip) from this URL (OSV's public bucket or a\n\
         mirror of it) on a schedule; empty: data comes only from `outpost dtrack import-osv`.",
    ),
    key(
        "dtrack.osv",
        "ecosystems",
        Kind::Str {
            default: "",
            check: |v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|e| !e.is_empty())
                    .all(|e| {
                        e.len() <= 64
                            && e.bytes()
                                .all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b))
                    })
            },
            problem: "dtrack.osv.ecosystems must be a comma-separated list of OSV ecosystem names",
            get: |c| c.dtrack.osv_ecosystems.clone(),
            set: |c, v| c.dtrack.osv_ecosystems = v,
        },
        "The ecosystems fetched from base_url, comma-separated as OSV names them (npm,PyPI).",
    ),
    key(
        "dtrack.osv",
        "interval",
        secs!(dtrack.osv_interval, 86_400, 60, 30 * 86_400),
        "Seconds between two fetches of the OSV exports (upstream mirrors daily).",
    ),
    key(
        "metrics",
        "enabled",
        boolean!(metrics.enabled, false),
        "Serve GET /metrics (Prometheus text format) and GET /health on their own listener.",
    ),
    key(
        "metrics",
        "listen",
        addr!(metrics.listen, "127.0.0.1:9464"),
        "Address and port of that listener; keep it on loopback or a private network.",
    ),
    key(
        "database",
        "synchronous",
        Kind::Choice {
            default: "full",
            options: &["full", "normal"],
            get: |c| match c.database.synchronous {
                Synchronous::Full => "full",
                Synchronous::Normal => "normal",
            },
            set: |c, v| {
                c.database.synchronous = match v {
                    "full" => Synchronous::Full,
                    "normal" => Synchronous::Normal,
                    _ => return false,
                };
                true
            },
        },
        "\"full\" survives power loss (fsync per commit batch); \"normal\" survives process crashes only.",
    ),
    key(
        "database",
        "read_threads",
        int!(database.read_threads, 2, 1, 64),
        "Number of dedicated reader threads and pooled read connections.",
    ),
    key(
        "database",
        "cache_mib",
        int!(database.cache_mib, 8, 1, 4096),
        "SQLite's page cache of the writer connection in MiB: the server's memory grows to it as the database grows (the file's pages stay in the OS page cache either way).",
    ),
    key(
        "database",
        "read_cache_mib",
        int!(database.read_cache_mib, 2, 1, 4096),
        "SQLite's page cache of each read connection (read_threads of them) in MiB.",
    ),
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
    key(
        "events",
        "queue_timeout_secs",
        secs!(events.queue_timeout, 600, 1, 7 * 24 * 3600),
        "A client event queue nobody polled for this many seconds is collected.",
    ),
    key(
        "events",
        "gc_interval_secs",
        secs!(events.gc_interval, 60, 1, 3600),
        "How often idle event queues are swept, in seconds.",
    ),
    key(
        "events",
        "heartbeat_secs",
        secs!(events.heartbeat, 45, 1, 3600),
        "An idle GET /api/v1/events answers with a heartbeat after this many seconds...",
    ),
    key(
        "events",
        "heartbeat_jitter_secs",
        secs!(events.heartbeat_jitter, 10, 0, 3600),
        "...plus a random extra of up to this many seconds.",
    ),
    key(
        "events",
        "max_queue_events",
        int!(events.max_queue_events, 10_000, 1, 10_000_000),
        "A queue holding more unacknowledged events than this is dropped (its client re-registers).",
    ),
    key(
        "email",
        "host",
        Kind::Str {
            default: "",
            check: |v| !v.chars().any(char::is_whitespace),
            problem: "email.host must be a host name without spaces",
            get: |c| c.email.host.clone(),
            set: |c, v| c.email.host = v,
        },
        "SMTP server for invitation mail. Empty: no mail is sent; invitation links go to the log.",
    ),
    key(
        "email",
        "port",
        int!(email.port, 587, 1, 65_535),
        "SMTP port (587 for starttls, 465 for tls, 25 for a local relay).",
    ),
    key(
        "email",
        "tls",
        Kind::Choice {
            default: "starttls",
            options: &["none", "starttls", "tls"],
            get: |c| match c.email.tls {
                MailTls::None => "none",
                MailTls::StartTls => "starttls",
                MailTls::Tls => "tls",
            },
            set: |c, v| {
                c.email.tls = match v {
                    "none" => MailTls::None,
                    "starttls" => MailTls::StartTls,
                    "tls" => MailTls::Tls,
                    _ => return false,
                };
                true
            },
        },
        "\"starttls\" (upgrade required), \"tls\" (TLS from the start) or \"none\" (plain text).",
    ),
    key(
        "email",
        "username",
        Kind::Str {
            default: "",
            check: |_| true,
            problem: "",
            get: |c| c.email.username.clone(),
            set: |c, v| c.email.username = v,
        },
        "SMTP login name; empty: the server is used without authentication.",
    ),
    secret(
        "email",
        "password",
        Kind::Str {
            default: "",
            check: |_| true,
            problem: "",
            get: |c| c.email.password.0.clone(),
            set: |c, v| c.email.password = MailPassword(v),
        },
        "SMTP password (never logged; shown as \"***\" by check-config).",
    ),
    key(
        "email",
        "from",
        Kind::Str {
            default: "",
            check: |v| !v.chars().any(char::is_control),
            problem: "email.from must be one line",
            get: |c| c.email.from.clone(),
            set: |c, v| c.email.from = v,
        },
        "Sender address of invitation mail, e.g. \"Outpost <noreply@example.com>\"; required with a host.",
    ),
    key(
        "push",
        "enabled",
        boolean!(push.enabled, false),
        "Whether mobile devices may register for push notifications (POST /mobile_push/register);\nOutpost keeps the registrations but does not deliver notifications itself.",
    ),
    key(
        "push",
        "max_devices_per_user",
        int!(push.max_devices_per_user, 20, 1, 1000),
        "Push devices (tokens and registrations together) one user may register.",
    ),
    key(
        "bots",
        "outgoing_webhook_allow_private",
        boolean!(bots.outgoing_webhook_allow_private, false),
        "Whether outgoing webhooks may be sent to loopback, private, link-local and other\n\
         non-public addresses (a bot's URL could otherwise reach services on this host's\n\
         network); refused webhooks post upstream's failure notice.",
    ),
    key(
        "bots",
        "outgoing_webhook_timeout",
        secs!(bots.outgoing_webhook_timeout, 10, 1, 300),
        "Seconds one outgoing-webhook request may take in all (upstream's 10); a request that\n\
         times out or cannot connect is retried 3 times with backoff, then the bot posts\n\
         \"Failure! Bot is unavailable\" and tells its owner.",
    ),
    key(
        "log",
        "level",
        Kind::Str {
            default: "info",
            check: |v| !v.is_empty() && tracing_subscriber::EnvFilter::try_new(v).is_ok(),
            problem: "log.level is not a valid filter (try \"info\" or \"outpost=debug,info\")",
            get: |c| c.log.level.clone(),
            set: |c, v| c.log.level = v,
        },
        "Log filter, e.g. \"info\", \"debug\" or \"outpost=debug,info\".",
    ),
    key(
        "log",
        "format",
        Kind::Choice {
            default: "text",
            options: &["text", "json"],
            get: |c| match c.log.format {
                LogFormat::Text => "text",
                LogFormat::Json => "json",
            },
            set: |c, v| {
                c.log.format = match v {
                    "text" => LogFormat::Text,
                    "json" => LogFormat::Json,
                    _ => return false,
                };
                true
            },
        },
        "Log line format: \"text\" or \"json\".",
    ),
];

/// The sections in catalogue order (the top level, `""`, first).
pub(super) fn sections() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for k in KEYS {
        if !out.contains(&k.section) {
            out.push(k.section);
        }
    }
    out
}

/// The keys of one section, in catalogue order.
pub(super) fn of(section: &str) -> impl Iterator<Item = &'static Key> {
    KEYS.iter().filter(move |k| k.section == section)
}

impl Key {
    /// Sets the key's field of `c` to its default.
    pub(super) fn apply_default(&self, c: &mut Config) {
        match &self.kind {
            Kind::Str { default, set, .. } => set(c, default.to_string()),
            Kind::Bool { default, set, .. } => set(c, *default),
            Kind::Int { default, set, .. } => set(c, *default),
            Kind::Choice { default, set, .. } => {
                set(c, default);
            }
            Kind::Addr { default, set, .. } => {
                set(c, default.parse().expect("valid default address"))
            }
            Kind::Ips { set, .. } => set(c, Vec::new()),
            Kind::Strs { set, .. } => set(c, Vec::new()),
        }
    }

    /// The key's value in `c` as TOML.
    pub(super) fn render(&self, c: &Config) -> String {
        match &self.kind {
            Kind::Str { get, .. } => super::quote(&get(c)),
            Kind::Bool { get, .. } => get(c).to_string(),
            Kind::Int { get, .. } => get(c).to_string(),
            Kind::Choice { get, .. } => super::quote(get(c)),
            Kind::Addr { get, .. } => super::quote(&get(c).to_string()),
            Kind::Ips { get, .. } => {
                let items: Vec<String> = get(c)
                    .iter()
                    .map(|a| super::quote(&a.to_string()))
                    .collect();
                format!("[{}]", items.join(", "))
            }
            Kind::Strs { get, .. } => {
                let items: Vec<String> = get(c).iter().map(|s| super::quote(s)).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_option_round_trips_and_the_default_is_one() {
        for k in KEYS {
            if let Kind::Choice {
                default,
                options,
                get,
                set,
            } = &k.kind
            {
                assert!(options.contains(default), "{}", k.name);
                let mut c = Config::default();
                for o in *options {
                    assert!(set(&mut c, o), "{}: {o}", k.name);
                    assert_eq!(get(&c), *o, "{}", k.name);
                }
                assert!(!set(&mut c, "no such option"), "{}", k.name);
            }
        }
    }

    #[test]
    fn defaults_are_within_their_ranges_and_names_are_unique() {
        for (i, k) in KEYS.iter().enumerate() {
            if let Kind::Int {
                default, min, max, ..
            } = &k.kind
            {
                assert!((min..=max).contains(&default), "{}", k.name);
            }
            assert!(
                !KEYS[..i]
                    .iter()
                    .any(|o| o.section == k.section && o.name == k.name),
                "{}.{} twice",
                k.section,
                k.name
            );
            assert!(!k.doc.is_empty(), "{} has no doc", k.name);
        }
    }
}
