//! Configuration: the TOML file, its validation, and the typed [`Config`].
//!
//! Owns the whole path from text to a validated value: the raw document is walked key by key so
//! that every problem (unknown key, wrong type, bad value) is collected with its line number and
//! reported at once, and only a fully valid document becomes a [`Config`]. Every key (type,
//! range, default, documentation, secrecy) is one row of the catalogue in `keys`, which drives
//! the defaults, the parser, the unknown-key check, the redacted dump and `config.example.toml`
//! (a test checks the file equals what the catalogue renders).
//!
//! Must not touch: the network, the database or global state. A `Config` is passed explicitly to
//! whoever needs it, so tests can run many servers with different configs in one process.

mod keys;

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use keys::{KEYS, Kind};

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
    pub deptrack: DeptrackConfig,
    pub metrics: MetricsConfig,
    pub database: DatabaseConfig,
    pub limits: LimitsConfig,
    pub events: EventsConfig,
    pub email: EmailConfig,
    pub push: PushConfig,
    pub bots: BotsConfig,
    pub log: LogConfig,
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
/// Mobile push notifications: Outpost keeps devices' registrations; it does not deliver.
#[derive(Clone, Debug, PartialEq)]
pub struct PushConfig {
    /// Whether this server is set up for the push notification service; when not,
    /// `POST /mobile_push/register` answers `PUSH_SERVICE_NOT_CONFIGURED`.
    pub enabled: bool,
    /// Push devices (tokens and encrypted registrations together) one user may register.
    pub max_devices_per_user: usize,
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
pub struct DeptrackConfig {
    /// Whether the Dependency-Track listener is started at all.
    pub enabled: bool,
    /// Address the Dependency-Track API listens on.
    pub listen: SocketAddr,
    /// PEM certificate chain served over TLS; empty: plain HTTP.
    pub tls_cert: PathBuf,
    /// PEM private key of `tls_cert`.
    pub tls_key: PathBuf,
    /// Certificates obtained over ACME instead of `tls_cert`/`tls_key` (`[deptrack.acme]`).
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

impl AcmeConfig {
    /// Whether the listener's certificate comes from ACME.
    pub fn enabled(&self) -> bool {
        !self.domains.is_empty()
    }
}

/// Let's Encrypt's production directory, the default ACME server.
pub const LETS_ENCRYPT_DIRECTORY: &str = "https://acme-v02.api.letsencrypt.org/directory";

/// Most names one ACME certificate is requested for (Let's Encrypt's limit).
pub const MAX_ACME_DOMAINS: usize = 100;

/// A DNS name an ACME certificate can be issued for with TLS-ALPN-01: lowercase letters,
/// digits and hyphens in dot-separated labels of 1 to 63 characters, at most 253 in all, not
/// an IP address and no wildcard (TLS-ALPN-01 cannot prove those).
pub fn acme_domain_ok(d: &str) -> bool {
    d.len() <= 253
        && !d.is_empty()
        && d.parse::<std::net::IpAddr>().is_err()
        && d.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// A listener's certificate and key files, when it is served over TLS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlsFiles<'a> {
    pub cert: &'a Path,
    pub key: &'a Path,
}

/// Both files given: the listener is served over TLS.
fn tls_files<'a>(cert: &'a Path, key: &'a Path) -> Option<TlsFiles<'a>> {
    (!cert.as_os_str().is_empty() && !key.as_os_str().is_empty()).then_some(TlsFiles { cert, key })
}

impl ChatConfig {
    /// The chat listener's TLS files, if it is served over HTTPS.
    pub fn tls(&self) -> Option<TlsFiles<'_>> {
        tls_files(&self.tls_cert, &self.tls_key)
    }
}

impl DeptrackConfig {
    /// The Dependency-Track listener's TLS files, if it is served over HTTPS.
    pub fn tls(&self) -> Option<TlsFiles<'_>> {
        tls_files(&self.tls_cert, &self.tls_key)
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
        for k in KEYS {
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

/// Checks each listener's TLS files: both or neither given, and when both, readable PEM files
/// whose key fits the certificate; and its ACME settings (see [`check_acme`]).
fn check_tls(cfg: &Config, problems: &mut Vec<String>) {
    let listeners = [
        (
            "chat",
            &cfg.chat.tls_cert,
            &cfg.chat.tls_key,
            &cfg.chat.acme,
        ),
        (
            "deptrack",
            &cfg.deptrack.tls_cert,
            &cfg.deptrack.tls_key,
            &cfg.deptrack.acme,
        ),
    ];
    for (section, cert, key, acme) in listeners {
        check_acme(section, acme, cert, problems);
        match (cert.as_os_str().is_empty(), key.as_os_str().is_empty()) {
            (true, true) => {}
            (false, false) => {
                if let Err(e) = crate::http::tls::load_pair(cert, key) {
                    problems.push(format!("{section}.tls_cert/tls_key: {e}"));
                }
            }
            _ => problems.push(format!(
                "{section}.tls_cert and {section}.tls_key must be given together"
            )),
        }
    }
}

/// A listener's `[<section>.acme]`: the other keys only with `domains`, not together with
/// `tls_cert`/`tls_key`, at most [`MAX_ACME_DOMAINS`] distinct names, and a readable
/// `ca_root` holding PEM certificates.
fn check_acme(section: &str, acme: &AcmeConfig, cert: &Path, problems: &mut Vec<String>) {
    if !acme.enabled() {
        let defaults = Config::default();
        let unchanged = acme.contact.is_empty()
            && acme.directory == defaults.chat.acme.directory
            && acme.ca_root.as_os_str().is_empty();
        if !unchanged {
            problems.push(format!(
                "{section}.acme: contact, directory and ca_root need {section}.acme.domains"
            ));
        }
        return;
    }
    if !cert.as_os_str().is_empty() {
        problems.push(format!(
            "{section}.acme.domains and {section}.tls_cert/tls_key are exclusive: the \
             certificate comes either from ACME or from files"
        ));
    }
    if acme.domains.len() > MAX_ACME_DOMAINS {
        problems.push(format!(
            "{section}.acme.domains must have at most {MAX_ACME_DOMAINS} names"
        ));
    }
    for (i, d) in acme.domains.iter().enumerate() {
        if acme.domains[..i].contains(d) {
            problems.push(format!("{section}.acme.domains names {d} twice"));
        }
    }
    if !acme.ca_root.as_os_str().is_empty()
        && let Err(e) = crate::http::tls::load_roots(&acme.ca_root)
    {
        problems.push(format!("{section}.acme.ca_root: {e}"));
    }
}

/// Every problem found in a configuration file, one line each.
#[derive(Debug)]
pub struct ConfigError {
    pub problems: Vec<String>,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_char('\n')?;
            }
            f.write_str(p)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// Loads the config: the file at `path` if given, otherwise the embedded defaults.
pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
    let Some(path) = path else {
        return Ok(Config::default());
    };
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        problems: vec![format!("{}: cannot read: {e}", path.display())],
    })?;
    parse(&text).map_err(|mut e| {
        for p in &mut e.problems {
            *p = format!("{}:{p}", path.display());
        }
        e
    })
}

/// Parses and validates a TOML document. Problems are prefixed `line N: `.
/// The name `sub` goes by inside `section` when it is a direct subsection of it (`osv` for
/// `deptrack.osv` in `deptrack`; every top-level section in the root, `""`).
fn subsection_of<'s>(section: &str, sub: &'s str) -> Option<&'s str> {
    let rest = if section.is_empty() {
        sub
    } else {
        sub.strip_prefix(section)?.strip_prefix('.')?
    };
    (!rest.is_empty() && !rest.contains('.')).then_some(rest)
}

pub fn parse(text: &str) -> Result<Config, ConfigError> {
    let doc = DeTable::parse(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
        ConfigError {
            problems: vec![format!("line {line}: {}", e.message().trim())],
        }
    })?;
    let mut w = Walker {
        text,
        problems: Vec::new(),
    };
    let mut cfg = Config::default();
    let mut external_url_given = false;
    let root = doc.get_ref();
    let sections = keys::sections();
    for section in &sections {
        // A section's known keys: its own, and the last part of its subsections' names
        // (`osv` in `deptrack` for `[deptrack.osv]`).
        let mut known: Vec<&str> = keys::of(section).map(|k| k.name).collect();
        known.extend(sections.iter().filter_map(|s| subsection_of(section, s)));
        let table = if section.is_empty() {
            root
        } else if let Some((parent, last)) = section.rsplit_once('.') {
            // A subsection: its parent's problems were reported with the parent.
            let Some(parent) = parent.split('.').try_fold(root, |t, part| {
                match t.get(part).map(|v| v.get_ref()) {
                    Some(DeValue::Table(t)) => Some(t),
                    _ => None,
                }
            }) else {
                continue;
            };
            let Some(table) = w.table(parent, section, last) else {
                continue;
            };
            table
        } else {
            let Some(table) = w.table(root, section, section) else {
                continue;
            };
            table
        };
        w.check_keys(table, section, &known);
        for k in keys::of(section) {
            if w.apply(table, k, &mut cfg) && section == &"chat" && k.name == "external_url" {
                external_url_given = true;
            }
        }
    }
    derive(&mut cfg, external_url_given);
    check_tls(&cfg, &mut w.problems);
    if cfg.email.enabled() && !plausible_address(&cfg.email.from) {
        w.problems
            .push("email.from must be an email address when email.host is set".to_string());
    }
    if w.problems.is_empty() {
        Ok(cfg)
    } else {
        Err(ConfigError {
            problems: w.problems,
        })
    }
}

/// An address (`name@domain` or `Name <name@domain>`) with a local part, a dotted domain and
/// no spaces; lettre checks it fully.
fn plausible_address(a: &str) -> bool {
    let a = a
        .rsplit_once('<')
        .and_then(|(_, rest)| rest.strip_suffix('>'))
        .unwrap_or(a);
    a.split_once('@')
        .is_some_and(|(l, d)| !l.is_empty() && d.contains('.'))
        && !a.chars().any(char::is_whitespace)
}

/// The first lines of `config.example.toml`.
const EXAMPLE_HEADER: &str = "\
# Outpost configuration. Every key is shown with its built-in default; delete what you do not
# change. Run `outpost check-config --config FILE` to validate a file and see the effective values.
";

/// What `config.example.toml` holds: every key with its comment and default.
pub fn example_toml() -> String {
    Config::default().render(true)
}

impl Config {
    /// The effective configuration as TOML, with secret keys that are set printed as `"***"`.
    pub fn to_redacted_toml(&self) -> String {
        self.render(false)
    }

    /// Every key in catalogue order; with `docs`, the example file (comments, real values),
    /// otherwise the redacted dump.
    fn render(&self, docs: bool) -> String {
        let mut s = String::new();
        if docs {
            s.push_str(EXAMPLE_HEADER);
            s.push('\n');
        }
        for section in keys::sections() {
            if !section.is_empty() {
                let _ = writeln!(s, "\n[{section}]");
            }
            for k in keys::of(section) {
                if docs {
                    for line in k.doc.lines() {
                        let _ = writeln!(s, "# {}", line.trim_start());
                    }
                }
                let value = k.render(self);
                // An empty secret hides nothing (and the dump then reads back as it was).
                let value = if k.secret && !docs && value != quote("") {
                    quote("***")
                } else {
                    value
                };
                let _ = writeln!(s, "{} = {value}", k.name);
            }
        }
        s
    }

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

fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Walks the spanned document, recording problems with line numbers.
struct Walker<'a> {
    text: &'a str,
    problems: Vec<String>,
}

type Table<'i> = DeTable<'i>;

impl<'a> Walker<'a> {
    /// Reads key `k` from `table` into `cfg` if present and valid, otherwise records the
    /// problem; true when the value was taken.
    fn apply(&mut self, table: &Table<'_>, k: &keys::Key, cfg: &mut Config) -> bool {
        let (section, key) = (k.section, k.name);
        let name = if section.is_empty() {
            key.to_string()
        } else {
            format!("{section}.{key}")
        };
        match &k.kind {
            Kind::Str {
                check,
                problem,
                set,
                ..
            } => match self.string(table, section, key) {
                Some(v) if check(&v) => {
                    set(cfg, v);
                    true
                }
                Some(_) => {
                    self.problem(table, key, problem);
                    false
                }
                None => false,
            },
            Kind::Bool { set, .. } => self
                .boolean(table, section, key)
                .map(|b| set(cfg, b))
                .is_some(),
            Kind::Int { min, max, set, .. } => match self.integer(table, section, key) {
                Some(n) if (*min..=*max).contains(&n) => {
                    set(cfg, n);
                    true
                }
                Some(_) => {
                    self.problem(
                        table,
                        key,
                        &format!("{name} must be between {min} and {max}"),
                    );
                    false
                }
                None => false,
            },
            Kind::Choice { options, set, .. } => match self.string(table, section, key) {
                Some(v) if set(cfg, &v) => true,
                Some(_) => {
                    let want = match options {
                        [a, b] => format!("\"{a}\" or \"{b}\""),
                        _ => format!("one of {}", options.join(", ")),
                    };
                    self.problem(table, key, &format!("{name} must be {want}"));
                    false
                }
                None => false,
            },
            Kind::Addr { set, .. } => self
                .socket_addr(table, section, key)
                .map(|a| set(cfg, a))
                .is_some(),
            Kind::Ips { set, .. } => self
                .address_list(table, section, key)
                .map(|l| set(cfg, l))
                .is_some(),
            Kind::Strs {
                check,
                problem,
                set,
                ..
            } => match self.string_list(table, section, key) {
                Some(l) if l.iter().all(|v| check(v)) => {
                    set(cfg, l);
                    true
                }
                Some(_) => {
                    self.problem(table, key, problem);
                    false
                }
                None => false,
            },
        }
    }

    fn problem(&mut self, table: &Table<'_>, key: &str, msg: &str) {
        let line = table
            .get_key_value(key)
            .map(|(k, _)| line_of(self.text, k.span().start))
            .unwrap_or(1);
        self.problems.push(format!("line {line}: {msg}"));
    }

    fn check_keys(&mut self, table: &Table<'_>, section: &str, known: &[&str]) {
        for (k, _) in table.iter() {
            if !known.contains(&k.get_ref().as_ref()) {
                let line = line_of(self.text, k.span().start);
                let name = if section.is_empty() {
                    k.get_ref().to_string()
                } else {
                    format!("{section}.{}", k.get_ref())
                };
                self.problems.push(format!(
                    "line {line}: unknown key `{name}` (known here: {})",
                    known.join(", ")
                ));
            }
        }
    }

    fn value<'t, 'i>(&self, table: &'t Table<'i>, key: &str) -> Option<&'t Spanned<DeValue<'i>>> {
        table.get(key)
    }

    fn type_problem(&mut self, table: &Table<'_>, section: &str, key: &str, want: &str) {
        let name = if section.is_empty() {
            key.to_string()
        } else {
            format!("{section}.{key}")
        };
        self.problem(table, key, &format!("{name} must be {want}"));
    }

    /// The table `key` of `parent`, which is the section `name`.
    fn table<'t, 'i>(
        &mut self,
        parent: &'t Table<'i>,
        name: &str,
        key: &str,
    ) -> Option<&'t Table<'i>> {
        match self.value(parent, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::Table(t)) => Some(t),
            Some(_) => {
                self.problem(parent, key, &format!("{name} must be a table ([{name}])"));
                None
            }
        }
    }

    fn string(&mut self, table: &Table<'_>, section: &str, key: &str) -> Option<String> {
        match self.value(table, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::String(s)) => Some(s.to_string()),
            Some(_) => {
                self.type_problem(table, section, key, "a string");
                None
            }
        }
    }

    fn boolean(&mut self, table: &Table<'_>, section: &str, key: &str) -> Option<bool> {
        match self.value(table, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::Boolean(b)) => Some(*b),
            Some(_) => {
                self.type_problem(table, section, key, "true or false");
                None
            }
        }
    }

    fn integer(&mut self, table: &Table<'_>, section: &str, key: &str) -> Option<i64> {
        match self.value(table, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::Integer(i)) => {
                let digits = i.as_str().replace('_', "");
                match i64::from_str_radix(&digits, i.radix()) {
                    Ok(n) => Some(n),
                    Err(_) => {
                        self.type_problem(table, section, key, "an integer that fits in 64 bits");
                        None
                    }
                }
            }
            Some(_) => {
                self.type_problem(table, section, key, "an integer");
                None
            }
        }
    }

    /// A list of IP addresses (`["127.0.0.1", "::1"]`).
    fn address_list(
        &mut self,
        table: &Table<'_>,
        section: &str,
        key: &str,
    ) -> Option<Vec<std::net::IpAddr>> {
        let want = "a list of IP addresses such as [\"203.0.113.7\"]";
        match self.value(table, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::Array(items)) => {
                let parsed: Option<Vec<std::net::IpAddr>> = items
                    .iter()
                    .map(|v| match v.get_ref() {
                        DeValue::String(s) => s.trim().parse().ok(),
                        _ => None,
                    })
                    .collect();
                if parsed.is_none() {
                    self.type_problem(table, section, key, want);
                }
                parsed
            }
            Some(_) => {
                self.type_problem(table, section, key, want);
                None
            }
        }
    }

    /// A list of strings (`["a", "b"]`).
    fn string_list(&mut self, table: &Table<'_>, section: &str, key: &str) -> Option<Vec<String>> {
        match self.value(table, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::Array(items)) => {
                let parsed: Option<Vec<String>> = items
                    .iter()
                    .map(|v| match v.get_ref() {
                        DeValue::String(s) => Some(s.to_string()),
                        _ => None,
                    })
                    .collect();
                if parsed.is_none() {
                    self.type_problem(table, section, key, "a list of strings");
                }
                parsed
            }
            Some(_) => {
                self.type_problem(table, section, key, "a list of strings");
                None
            }
        }
    }

    fn socket_addr(&mut self, table: &Table<'_>, section: &str, key: &str) -> Option<SocketAddr> {
        let s = self.string(table, section, key)?;
        match s.parse() {
            Ok(a) => Some(a),
            Err(_) => {
                self.type_problem(
                    table,
                    section,
                    key,
                    "an IP address and port such as \"127.0.0.1:9991\"",
                );
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_document_is_the_defaults() {
        assert_eq!(parse("").unwrap(), Config::default());
    }

    #[test]
    fn all_problems_are_reported_with_lines() {
        let err = parse(
            "data_dir = 5\n[chat]\nlisten = \"nope\"\nbogus = 1\n[database]\nsynchronous = \"off\"\n[log]\nformat = \"xml\"\n",
        )
        .unwrap_err();
        assert_eq!(
            err.problems,
            vec![
                "line 1: data_dir must be a string",
                "line 4: unknown key `chat.bogus` (known here: listen, tls_cert, tls_key, external_url, realm_name, development, allow_remote_development, email_address_visibility, invitation_link_validity_minutes, session_days, acme)",
                "line 3: chat.listen must be an IP address and port such as \"127.0.0.1:9991\"",
                "line 6: database.synchronous must be \"full\" or \"normal\"",
                "line 8: log.format must be \"text\" or \"json\"",
            ]
        );
    }

    #[test]
    fn subsections_are_tables_inside_their_section() {
        let cfg = parse(
            "[deptrack]\nenabled = true\n[deptrack.osv]\nbase_url = \"https://osv.example/\"\n\
             ecosystems = \"npm,PyPI\"\ninterval = 3600\n",
        )
        .unwrap();
        assert!(cfg.deptrack.enabled);
        assert_eq!(cfg.deptrack.osv_base_url, "https://osv.example");
        assert_eq!(cfg.deptrack.osv_ecosystems, "npm,PyPI");
        assert_eq!(
            cfg.deptrack.osv_interval,
            std::time::Duration::from_secs(3600)
        );
        let err =
            parse("[deptrack]\nosv_base_url = \"\"\n[deptrack.osv]\nbogus = 1\ninterval = 5\n")
                .unwrap_err();
        assert_eq!(err.problems.len(), 3, "{:?}", err.problems);
        assert!(err.problems[0].starts_with("line 2: unknown key `deptrack.osv_base_url`"));
        assert!(err.problems[1].starts_with("line 4: unknown key `deptrack.osv.bogus`"));
        assert!(err.problems[2].starts_with("line 5: deptrack.osv.interval"));
        let err = parse("[deptrack]\nosv = 1\n").unwrap_err();
        assert_eq!(
            err.problems,
            vec!["line 2: deptrack.osv must be a table ([deptrack.osv])"]
        );
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let err = parse("[chat]\nlisten = \n").unwrap_err();
        assert_eq!(err.problems.len(), 1);
        assert!(
            err.problems[0].starts_with("line 2: "),
            "{:?}",
            err.problems
        );
    }

    #[test]
    fn external_url_defaults_to_listen_address() {
        let cfg = parse("[chat]\nlisten = \"127.0.0.1:8000\"\n").unwrap();
        assert_eq!(cfg.chat.external_url, "http://127.0.0.1:8000");
        assert_eq!(cfg.realm_host(), "127.0.0.1");
    }

    #[test]
    fn the_example_file_is_what_the_catalogue_renders() {
        assert_eq!(example_toml(), include_str!("../config.example.toml"));
    }

    #[test]
    fn the_mail_password_is_redacted_and_the_sender_required() {
        let cfg = parse(
            "[email]\nhost = \"smtp.example.com\"\nusername = \"u\"\npassword = \"hunter2\"\nfrom = \"Outpost <noreply@example.com>\"\n",
        )
        .unwrap();
        assert_eq!(cfg.email.password.0, "hunter2");
        assert!(!cfg.to_redacted_toml().contains("hunter2"));
        assert!(cfg.to_redacted_toml().contains("password = \"***\""));
        assert!(!format!("{cfg:?}").contains("hunter2"));
        let err = parse("[email]\nhost = \"smtp.example.com\"\n").unwrap_err();
        assert_eq!(
            err.problems,
            vec!["email.from must be an email address when email.host is set"]
        );
    }

    #[test]
    fn acme_settings_are_parsed_with_lets_encrypt_as_the_default_directory() {
        let cfg = parse(
            "[chat]\nlisten = \"0.0.0.0:443\"\n[chat.acme]\ndomains = [\"chat.example.com\", \"b.example.com\"]\ncontact = \"mailto:admin@example.com\"\n",
        )
        .unwrap();
        assert!(cfg.chat.acme.enabled());
        assert_eq!(cfg.chat.acme.domains, ["chat.example.com", "b.example.com"]);
        assert_eq!(cfg.chat.acme.directory, LETS_ENCRYPT_DIRECTORY);
        assert_eq!(cfg.chat.external_url, "https://chat.example.com");
        assert!(!cfg.deptrack.acme.enabled());
        assert_eq!(parse(&cfg.to_redacted_toml()).unwrap(), cfg);
        let cfg =
            parse("[chat]\nlisten = \"127.0.0.1:8443\"\n[chat.acme]\ndomains = [\"localhost\"]\n")
                .unwrap();
        assert_eq!(cfg.chat.external_url, "https://localhost:8443");
    }

    #[test]
    fn every_acme_problem_is_reported_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let not_pem = dir.path().join("root.txt");
        std::fs::write(&not_pem, "hello").unwrap();
        let text = format!(
            "[chat]\ntls_cert = \"/x/cert.pem\"\ntls_key = \"/x/key.pem\"\n[chat.acme]\ndomains = [\"a.example.com\"]\n\
             [deptrack.acme]\ndomains = [\"*.example.com\"]\ncontact = \"admin@example.com\"\ndirectory = \"http://acme.test/dir\"\n\
             ca_root = \"{}\"\nbogus = 1\n",
            not_pem.display()
        );
        let err = parse(&text).unwrap_err();
        let all = err.problems.join("\n");
        for want in [
            "unknown key `deptrack.acme.bogus`",
            "deptrack.acme.domains must be a list of DNS names",
            "deptrack.acme.contact must be empty or a mailto: address",
            "deptrack.acme.directory must be an https:// URL",
            "chat.acme.domains and chat.tls_cert/tls_key are exclusive",
            "deptrack.acme: contact, directory and ca_root need deptrack.acme.domains",
        ] {
            assert!(all.contains(want), "{want} missing from:\n{all}");
        }
        let err = parse(&format!(
            "[chat.acme]\ndomains = [\"a.example.com\", \"a.example.com\"]\nca_root = \"{}\"\n",
            not_pem.display()
        ))
        .unwrap_err();
        assert_eq!(err.problems.len(), 2, "{:?}", err.problems);
        assert!(err.problems[0].contains("names a.example.com twice"));
        assert!(err.problems[1].starts_with("chat.acme.ca_root: "));
        assert!(parse("[chat.acme]\ndomains = \"a.example.com\"\n").is_err());
    }

    #[test]
    fn acme_domain_names_are_plain_lowercase_dns_names() {
        for ok in [
            "localhost",
            "chat.example.com",
            "a-b.example",
            "xn--bcher-kva.example",
        ] {
            assert!(acme_domain_ok(ok), "{ok}");
        }
        for bad in [
            "",
            "*.example.com",
            "Chat.example.com",
            "127.0.0.1",
            "::1",
            "a..b",
            "-a.example",
            "a b",
            &"a".repeat(64),
        ] {
            assert!(!acme_domain_ok(bad), "{bad}");
        }
    }

    #[test]
    fn redacted_output_parses_back_to_the_same_config() {
        let cfg = Config::default();
        assert_eq!(parse(&cfg.to_redacted_toml()).unwrap(), cfg);
    }
}
