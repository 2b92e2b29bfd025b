//! Configuration: the typed [`Config`] of one Outpost process, its defaults, and the modules
//! that get it from TOML text.
//!
//! Every key (type, range, default, documentation, secrecy) is one row of the catalogue in
//! `keys`, which drives the defaults, the parser (`load`, `walker`), the unknown-key check, the
//! redacted dump and `config.example.toml` (`render`); `listeners` holds what the chat and
//! Dependency-Track listeners' TLS and ACME settings mean and how they are checked.
//!
//! Must not touch: the network, the database or global state. A `Config` is passed explicitly to
//! whoever needs it, so tests can run many servers with different configs in one process.

mod keys;
mod listeners;
mod load;
mod proxy_env;
mod render;
mod walker;

use std::net::SocketAddr;
use std::path::PathBuf;

use keys::keys;
use render::quote;

pub use listeners::{LETS_ENCRYPT_DIRECTORY, MAX_ACME_DOMAINS, TlsFiles, acme_domain_ok};
pub use load::{ConfigError, load, parse};
pub use proxy_env::{ProxyChoice, ProxyEnv};
pub use render::example_toml;
// Re-exported: `Config` holds it and callers (tests included) name it from here.
pub use crate::model::EmailVisibility;

/// A placeholder value of a config field, overwritten by the catalogue's default; lets a new
/// field be added without writing a value anywhere but in its catalogue row.
trait Blank {
    fn blank() -> Self;
}

macro_rules! blank_as {
    ($($t:ty => $v:expr),* $(,)?) => {
        $(impl Blank for $t {
            fn blank() -> Self {
                $v
            }
        })*
    };
}

blank_as! {
    bool => false,
    u16 => 0,
    u32 => 0,
    i64 => 0,
    usize => 0,
    String => String::new(),
    PathBuf => PathBuf::new(),
    std::time::Duration => std::time::Duration::ZERO,
    SocketAddr => SocketAddr::from(([0, 0, 0, 0], 0)),
    Vec<std::net::IpAddr> => Vec::new(),
    Vec<String> => Vec::new(),
    EmailVisibility => EmailVisibility::Everyone,
    Synchronous => Synchronous::Full,
    LogFormat => LogFormat::Text,
    MailTls => MailTls::StartTls,
    MailPassword => MailPassword(String::new()),
    ProxyEnv => ProxyEnv::default(),
}

/// Declares a config struct and its [`Blank`] (every field blank).
macro_rules! config_struct {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident: $t:ty,)* }) => {
        $(#[$m])*
        pub struct $name {
            $($(#[$fm])* pub $f: $t,)*
        }

        impl Blank for $name {
            fn blank() -> Self {
                $name { $($f: Blank::blank(),)* }
            }
        }
    };
}

config_struct! {
/// The validated configuration of one Outpost process.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Directory holding the SQLite database and other state; created on first start.
    pub data_dir: PathBuf,
    pub chat: ChatConfig,
    pub dtrack: DtrackConfig,
    pub metrics: MetricsConfig,
    pub database: DatabaseConfig,
    pub limits: LimitsConfig,
    pub events: EventsConfig,
    pub email: EmailConfig,
    pub push: PushConfig,
    pub bots: BotsConfig,
    pub log: LogConfig,
    /// What the loader read but wants changed (old spellings), one line each: `check-config`
    /// prints them and the server logs them once at start. Not a key of the file.
    pub warnings: Vec<String>,
    /// The outgoing proxies of the process environment (`https_proxy`, `no_proxy`, ...), read
    /// by the command line, not from the file; empty by default.
    pub proxy: ProxyEnv,
}
}

config_struct! {
/// Outgoing webhooks: where and how long bots' services are called.
#[derive(Clone, Debug, PartialEq)]
pub struct BotsConfig {
    /// Whether outgoing webhooks may go to loopback, private, link-local and other
    /// non-public addresses (refused by default, as upstream's Smokescreen proxy does).
    pub outgoing_webhook_allow_private: bool,
    /// The whole of one webhook request (connect, send, answer) must finish within this.
    pub outgoing_webhook_timeout: std::time::Duration,
}
}

config_struct! {
/// The operations listener: `/metrics` (Prometheus) and `/health`.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricsConfig {
    /// Whether the listener is started at all.
    pub enabled: bool,
    /// Its address; loopback by default (counts and route names, no secrets, but nothing for
    /// the public either).
    pub listen: SocketAddr,
}
}

config_struct! {
/// Mobile push notifications through Zulip's push notification service (the bouncer): the
/// server's registration is `outpost push register`'s, its credentials a file in the data
/// directory (`domain::push::credentials`).
#[derive(Clone, Debug, PartialEq)]
pub struct PushConfig {
    /// Whether this server uses the push notification service; when not,
    /// `POST /mobile_push/register` answers `PUSH_SERVICE_NOT_CONFIGURED` and nothing is sent.
    pub enabled: bool,
    /// Push devices (tokens and encrypted registrations together) one user may register.
    pub max_devices_per_user: usize,
    /// The push notification service's base URL (without `/api/v1`), no trailing slash.
    pub bouncer_url: String,
}
}

config_struct! {
#[derive(Clone, Debug, PartialEq)]
pub struct EventsConfig {
    /// A queue nobody polled for this long is collected.
    pub queue_timeout: std::time::Duration,
    /// How often idle queues are swept.
    pub gc_interval: std::time::Duration,
    /// An idle long-poll answers with a heartbeat after this long...
    pub heartbeat: std::time::Duration,
    /// ...plus a random extra of up to this much.
    pub heartbeat_jitter: std::time::Duration,
    /// A queue holding more unacknowledged events is dropped.
    pub max_queue_events: usize,
}
}

config_struct! {
#[derive(Clone, Debug, PartialEq)]
pub struct ChatConfig {
    /// Address the chat (Zulip) API listens on.
    pub listen: SocketAddr,
    /// PEM certificate chain served over TLS; empty: plain HTTP (see [`ChatConfig::tls`]).
    pub tls_cert: PathBuf,
    /// PEM private key of `tls_cert`.
    pub tls_key: PathBuf,
    /// Certificates obtained over ACME instead of `tls_cert`/`tls_key` (`[chat.acme]`).
    pub acme: AcmeConfig,
    /// URL clients reach the server at; the realm URL in `server_settings`.
    pub external_url: String,
    pub realm_name: String,
    /// Enables development-only endpoints such as `POST /api/v1/dev_fetch_api_key`.
    pub development: bool,
    /// Allows `development` on a non-loopback listen address (it hands anyone any user's key).
    pub allow_remote_development: bool,
    /// Who may see a new user's real email address (Zulip's user setting, 1..=5).
    pub email_address_visibility: EmailVisibility,
    /// How long an invitation is valid when its creator does not say (upstream's
    /// `INVITATION_LINK_VALIDITY_MINUTES`).
    pub invitation_link_validity_minutes: i64,
    /// How many days a web client's login session lasts without being used.
    pub session_days: i64,
}
}

config_struct! {
/// The Dependency-Track API, served on its own listener.
#[derive(Clone, Debug, PartialEq)]
pub struct DtrackConfig {
    /// Whether the Dependency-Track listener is started at all.
    pub enabled: bool,
    /// Address the Dependency-Track API listens on.
    pub listen: SocketAddr,
    /// PEM certificate chain served over TLS; empty: plain HTTP.
    pub tls_cert: PathBuf,
    /// PEM private key of `tls_cert`.
    pub tls_key: PathBuf,
    /// Certificates obtained over ACME instead of `tls_cert`/`tls_key` (`[dtrack.acme]`).
    pub acme: AcmeConfig,
    /// Portfolio access control (upstream's `access-management/acl.enabled`).
    pub acl_enabled: bool,
    /// Serve badges without credentials (upstream's `general/badge.enabled`).
    pub badges_unauthenticated: bool,
    /// Where OSV's exports are fetched from (`<base>/<ecosystem>/all.zip`); empty = never.
    pub osv_base_url: String,
    /// The ecosystems fetched, comma-separated as OSV names them (`npm,PyPI`).
    pub osv_ecosystems: String,
    /// Time between two fetches of every ecosystem.
    pub osv_interval: std::time::Duration,
    /// Where the EPSS scores are fetched from once a day; empty = never.
    pub epss_url: String,
}
}

config_struct! {
/// A listener's certificate obtained and renewed over ACME (RFC 8555, TLS-ALPN-01 challenge).
#[derive(Clone, Debug, PartialEq)]
pub struct AcmeConfig {
    /// The names the certificate is for; empty: no ACME for this listener.
    pub domains: Vec<String>,
    /// The account's contact (`mailto:...`); empty: none.
    pub contact: String,
    /// The ACME server's directory URL.
    pub directory: String,
    /// A PEM file of root certificates trusted for the ACME server's own HTTPS instead of the
    /// built-in web roots (test servers such as pebble); empty: the web roots.
    pub ca_root: PathBuf,
}
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Synchronous {
    /// Every commit is fsynced: durable across power loss.
    Full,
    /// Commits survive a crash of the process, not necessarily of the machine.
    Normal,
}

config_struct! {
#[derive(Clone, Debug, PartialEq)]
pub struct DatabaseConfig {
    pub synchronous: Synchronous,
    /// Number of dedicated reader threads (and pooled read connections).
    pub read_threads: usize,
    /// SQLite's page cache of the writer connection, in MiB.
    pub cache_mib: usize,
    /// SQLite's page cache of each read connection, in MiB.
    pub read_cache_mib: usize,
}
}

config_struct! {
#[derive(Clone, Debug, PartialEq)]
pub struct LimitsConfig {
    /// Largest accepted body of an ordinary request; larger ones get 413.
    pub max_body_bytes: usize,
    /// Largest accepted body of an upload (Dependency-Track BOMs); larger ones get 413.
    pub max_upload_bytes: usize,
    /// Most parameters (query string plus form body) one chat request may carry.
    pub max_params: usize,
    /// A request head must arrive within this long of the connection becoming ready for it;
    /// this also closes keep-alive connections idle for this long.
    pub header_timeout: std::time::Duration,
    /// A request body must arrive completely within this long.
    pub body_timeout: std::time::Duration,
    /// Most open connections over all listeners (further ones are refused with 503); lowered
    /// at start to stay below the process's file-descriptor limit.
    pub max_connections: usize,
    /// Most uploads (bodies over `max_body_bytes`) read and handled at once; further ones get
    /// 503, so large bodies held in memory stay bounded.
    pub max_concurrent_uploads: usize,
    /// Requests per minute of one authenticated user or API principal; 0 turns it off.
    pub user_requests_per_minute: u32,
    /// Unauthenticated requests per minute from one address; 0 turns it off.
    pub ip_requests_per_minute: u32,
    /// Bots are not rate limited.
    pub rate_limit_exempt_bots: bool,
    /// Client addresses that are not rate limited.
    pub rate_limit_exempt_addresses: Vec<std::net::IpAddr>,
    /// Reverse proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Event queues one user may hold; registering one more evicts that user's stalest queue.
    pub max_queues_per_user: usize,
    /// Long-polls one user may have waiting at once; one more is refused.
    pub max_parked_polls_per_user: usize,
    /// Characters a user group's description may have.
    pub max_user_group_description_length: usize,
    /// Message ids one `POST /messages/flags` request may name (after removing duplicates).
    pub max_flag_message_ids: usize,
    /// Email invitations the organization may send per 24 hours; 0 turns the limit off.
    pub max_invites_per_day: usize,
    /// Drafts one user may keep on the server.
    pub max_drafts_per_user: usize,
    /// Saved snippets one user may keep.
    pub max_saved_snippets_per_user: usize,
    /// Characters of keys and values one bot may keep in bot storage.
    pub max_bot_storage_chars: usize,
    /// Pending scheduled messages one user may have at once.
    pub max_scheduled_messages_per_user: usize,
    /// Pending reminders one user may have at once.
    pub max_reminders_per_user: usize,
    /// Characters a reminder's note may have (register's `max_reminder_note_length`).
    pub max_reminder_note_length: usize,
    /// Largest file `POST /user_uploads` accepts, in MiB.
    pub max_file_upload_size_mib: usize,
    /// Total size of the organization's uploads, in MiB; 0: no quota.
    pub upload_quota_mib: usize,
    /// Weeks after which an upload no message ever linked is deleted.
    pub unlinked_upload_weeks: usize,
    /// Largest image `POST /realm/emoji/{name}` accepts, in MiB.
    pub max_emoji_file_size_mib: usize,
}
}

/// How the SMTP connection is secured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MailTls {
    /// Plain text (a relay on the same host).
    None,
    /// Plain connection upgraded with STARTTLS (required).
    StartTls,
    /// TLS from the first byte (SMTPS).
    Tls,
}

/// The SMTP password; `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct MailPassword(pub String);

impl std::fmt::Debug for MailPassword {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("\"***\"")
    }
}

config_struct! {
/// Outgoing mail (invitations). Without a `host`, links are written to the log instead.
#[derive(Clone, Debug, PartialEq)]
pub struct EmailConfig {
    /// SMTP server; empty: no mail is sent.
    pub host: String,
    pub port: u16,
    pub tls: MailTls,
    /// SMTP login; empty: no authentication.
    pub username: String,
    pub password: MailPassword,
    /// The sender address of every mail.
    pub from: String,
}
}

impl EmailConfig {
    /// Whether mail is sent at all.
    pub fn enabled(&self) -> bool {
        !self.host.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

config_struct! {
#[derive(Clone, Debug, PartialEq)]
pub struct LogConfig {
    /// A tracing filter directive such as `info` or `outpost=debug,info`.
    pub level: String,
    pub format: LogFormat,
}
}

impl Default for Config {
    /// The catalogue's defaults.
    fn default() -> Self {
        let mut cfg = Config::blank();
        for k in keys() {
            k.apply_default(&mut cfg);
        }
        derive(&mut cfg, false);
        cfg
    }
}

/// Values whose default depends on others: `chat.external_url`, unless given, is http:// (or
/// https:// with TLS files) plus the chat listen address.
fn derive(cfg: &mut Config, external_url_given: bool) {
    if !external_url_given {
        cfg.chat.external_url = if let Some(domain) = cfg.chat.acme.domains.first() {
            match cfg.chat.listen.port() {
                443 => format!("https://{domain}"),
                port => format!("https://{domain}:{port}"),
            }
        } else if cfg.chat.tls().is_some() {
            format!("https://{}", cfg.chat.listen)
        } else {
            format!("http://{}", cfg.chat.listen)
        };
    }
}

impl Config {
    /// Host part of `external_url`, used for placeholder emails (`user{id}@{host}`).
    pub fn realm_host(&self) -> &str {
        let rest = self
            .chat
            .external_url
            .split_once("://")
            .map(|(_, r)| r)
            .unwrap_or(&self.chat.external_url);
        let host = rest.split('/').next().unwrap_or(rest);
        host.split(':').next().unwrap_or(host)
    }
}
