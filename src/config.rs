//! Configuration: the TOML file, its validation, and the typed [`Config`].
//!
//! Owns the whole path from text to a validated value: the raw document is walked key by key so
//! that every problem (unknown key, wrong type, bad value) is collected with its line number and
//! reported at once, and only a fully valid document becomes a [`Config`]. Defaults live here and
//! only here; `config.example.toml` must equal them (a test guards that).
//!
//! Must not touch: the network, the database or global state. A `Config` is passed explicitly to
//! whoever needs it, so tests can run many servers with different configs in one process.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

// Re-exported: `Config` holds it and callers (tests included) name it from here.
pub use crate::model::EmailVisibility;

/// The validated configuration of one Outpost process.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Directory holding the SQLite database and other state; created on first start.
    pub data_dir: PathBuf,
    pub chat: ChatConfig,
    pub deptrack: DeptrackConfig,
    pub database: DatabaseConfig,
    pub limits: LimitsConfig,
    pub events: EventsConfig,
    pub log: LogConfig,
}

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

#[derive(Clone, Debug, PartialEq)]
pub struct ChatConfig {
    /// Address the chat (Zulip) API listens on.
    pub listen: SocketAddr,
    /// URL clients reach the server at; the realm URL in `server_settings`.
    pub external_url: String,
    pub realm_name: String,
    /// Enables development-only endpoints such as `POST /api/v1/dev_fetch_api_key`.
    pub development: bool,
    /// Allows `development` on a non-loopback listen address (it hands anyone any user's key).
    pub allow_remote_development: bool,
    /// Who may see a new user's real email address (Zulip's user setting, 1..=5).
    pub email_address_visibility: EmailVisibility,
}

/// The Dependency-Track API, served on its own listener.
#[derive(Clone, Debug, PartialEq)]
pub struct DeptrackConfig {
    /// Whether the Dependency-Track listener is started at all.
    pub enabled: bool,
    /// Address the Dependency-Track API listens on.
    pub listen: SocketAddr,
    /// Portfolio access control (upstream's `access-management/acl.enabled`).
    pub acl_enabled: bool,
    /// Serve badges without credentials (upstream's `general/badge.enabled`).
    pub badges_unauthenticated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Synchronous {
    /// Every commit is fsynced: durable across power loss.
    Full,
    /// Commits survive a crash of the process, not necessarily of the machine.
    Normal,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DatabaseConfig {
    pub synchronous: Synchronous,
    /// Number of dedicated reader threads (and pooled read connections).
    pub read_threads: usize,
}

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
    /// Event queues one user may hold; registering one more evicts that user's stalest queue.
    pub max_queues_per_user: usize,
    /// Long-polls one user may have waiting at once; one more is refused.
    pub max_parked_polls_per_user: usize,
    /// Message ids one `POST /messages/flags` request may name (after removing duplicates).
    pub max_flag_message_ids: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LogConfig {
    /// A tracing filter directive such as `info` or `outpost=debug,info`.
    pub level: String,
    pub format: LogFormat,
}

const DEFAULT_LISTEN: &str = "127.0.0.1:9991";
const DEFAULT_DEPTRACK_LISTEN: &str = "127.0.0.1:8081";

impl Default for Config {
    fn default() -> Self {
        let listen: SocketAddr = DEFAULT_LISTEN.parse().expect("valid default address");
        Config {
            data_dir: PathBuf::from("./outpost-data"),
            chat: ChatConfig {
                listen,
                external_url: format!("http://{listen}"),
                realm_name: "Outpost".to_string(),
                development: false,
                allow_remote_development: false,
                email_address_visibility: EmailVisibility::Everyone,
            },
            deptrack: DeptrackConfig {
                enabled: false,
                listen: DEFAULT_DEPTRACK_LISTEN
                    .parse()
                    .expect("valid default address"),
                acl_enabled: false,
                badges_unauthenticated: false,
            },
            database: DatabaseConfig {
                synchronous: Synchronous::Full,
                read_threads: 2,
            },
            limits: LimitsConfig {
                max_body_bytes: 1024 * 1024,
                max_upload_bytes: 25 * 1024 * 1024,
                max_params: 1000,
                header_timeout: std::time::Duration::from_secs(30),
                body_timeout: std::time::Duration::from_secs(60),
                max_connections: 16_384,
                max_concurrent_uploads: 4,
                user_requests_per_minute: 200,
                ip_requests_per_minute: 100,
                rate_limit_exempt_bots: false,
                rate_limit_exempt_addresses: Vec::new(),
                max_queues_per_user: 50,
                max_parked_polls_per_user: 20,
                max_flag_message_ids: 5000,
            },
            events: EventsConfig {
                queue_timeout: std::time::Duration::from_secs(600),
                gc_interval: std::time::Duration::from_secs(60),
                heartbeat: std::time::Duration::from_secs(45),
                heartbeat_jitter: std::time::Duration::from_secs(10),
                max_queue_events: 10_000,
            },
            log: LogConfig {
                level: "info".to_string(),
                format: LogFormat::Text,
            },
        }
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
    let mut external_url = None;
    let root = doc.get_ref();
    w.check_keys(
        root,
        "",
        &[
            "data_dir", "chat", "deptrack", "database", "limits", "events", "log",
        ],
    );
    if let Some(v) = w.string(root, "", "data_dir") {
        if v.is_empty() {
            w.problem(root, "data_dir", "data_dir must not be empty");
        } else {
            cfg.data_dir = PathBuf::from(v);
        }
    }
    if let Some(chat) = w.table(root, "chat") {
        w.check_keys(
            chat,
            "chat",
            &[
                "listen",
                "external_url",
                "realm_name",
                "development",
                "allow_remote_development",
                "email_address_visibility",
            ],
        );
        if let Some(addr) = w.socket_addr(chat, "chat", "listen") {
            cfg.chat.listen = addr;
        }
        if let Some(url) = w.string(chat, "chat", "external_url") {
            if url.starts_with("http://") || url.starts_with("https://") {
                external_url = Some(url.trim_end_matches('/').to_string());
            } else {
                w.problem(
                    chat,
                    "external_url",
                    "chat.external_url must start with http:// or https://",
                );
            }
        }
        if let Some(name) = w.string(chat, "chat", "realm_name") {
            if name.trim().is_empty() || name.chars().count() > 40 {
                w.problem(
                    chat,
                    "realm_name",
                    "chat.realm_name must have 1 to 40 characters",
                );
            } else {
                cfg.chat.realm_name = name;
            }
        }
        if let Some(b) = w.boolean(chat, "chat", "development") {
            cfg.chat.development = b;
        }
        if let Some(b) = w.boolean(chat, "chat", "allow_remote_development") {
            cfg.chat.allow_remote_development = b;
        }
        if let Some(v) = w.string(chat, "chat", "email_address_visibility") {
            match EmailVisibility::from_name(&v) {
                Some(v) => cfg.chat.email_address_visibility = v,
                None => w.problem(
                    chat,
                    "email_address_visibility",
                    "chat.email_address_visibility must be one of everyone, members, admins, nobody, moderators",
                ),
            }
        }
    }
    cfg.chat.external_url = external_url.unwrap_or_else(|| format!("http://{}", cfg.chat.listen));
    if let Some(dt) = w.table(root, "deptrack") {
        w.check_keys(
            dt,
            "deptrack",
            &["enabled", "listen", "acl_enabled", "badges_unauthenticated"],
        );
        if let Some(b) = w.boolean(dt, "deptrack", "enabled") {
            cfg.deptrack.enabled = b;
        }
        if let Some(addr) = w.socket_addr(dt, "deptrack", "listen") {
            cfg.deptrack.listen = addr;
        }
        if let Some(b) = w.boolean(dt, "deptrack", "acl_enabled") {
            cfg.deptrack.acl_enabled = b;
        }
        if let Some(b) = w.boolean(dt, "deptrack", "badges_unauthenticated") {
            cfg.deptrack.badges_unauthenticated = b;
        }
    }
    if let Some(db) = w.table(root, "database") {
        w.check_keys(db, "database", &["synchronous", "read_threads"]);
        if let Some(s) = w.string(db, "database", "synchronous") {
            match s.as_str() {
                "full" => cfg.database.synchronous = Synchronous::Full,
                "normal" => cfg.database.synchronous = Synchronous::Normal,
                _ => w.problem(
                    db,
                    "synchronous",
                    "database.synchronous must be \"full\" or \"normal\"",
                ),
            }
        }
        if let Some(n) = w.integer(db, "database", "read_threads") {
            if (1..=64).contains(&n) {
                cfg.database.read_threads = n as usize;
            } else {
                w.problem(
                    db,
                    "read_threads",
                    "database.read_threads must be between 1 and 64",
                );
            }
        }
    }
    if let Some(limits) = w.table(root, "limits") {
        let keys = [
            "max_body_bytes",
            "max_upload_bytes",
            "max_params",
            "header_timeout_secs",
            "body_timeout_secs",
            "max_connections",
            "max_concurrent_uploads",
            "user_requests_per_minute",
            "ip_requests_per_minute",
            "rate_limit_exempt_bots",
            "rate_limit_exempt_addresses",
            "max_queues_per_user",
            "max_parked_polls_per_user",
            "max_flag_message_ids",
        ];
        w.check_keys(limits, "limits", &keys);
        let mut bounded = |key: &str, min: i64, max: i64| -> Option<i64> {
            let n = w.integer(limits, "limits", key)?;
            if (min..=max).contains(&n) {
                Some(n)
            } else {
                w.problem(
                    limits,
                    key,
                    &format!("limits.{key} must be between {min} and {max}"),
                );
                None
            }
        };
        let l = &mut cfg.limits;
        if let Some(n) = bounded("max_body_bytes", 1024, 1 << 32) {
            l.max_body_bytes = n as usize;
        }
        if let Some(n) = bounded("max_upload_bytes", 1024, 1 << 36) {
            l.max_upload_bytes = n as usize;
        }
        if let Some(n) = bounded("max_params", 1, 100_000) {
            l.max_params = n as usize;
        }
        if let Some(n) = bounded("header_timeout_secs", 1, 3600) {
            l.header_timeout = std::time::Duration::from_secs(n as u64);
        }
        if let Some(n) = bounded("body_timeout_secs", 1, 86_400) {
            l.body_timeout = std::time::Duration::from_secs(n as u64);
        }
        if let Some(n) = bounded("max_connections", 16, 10_000_000) {
            l.max_connections = n as usize;
        }
        if let Some(n) = bounded("max_concurrent_uploads", 1, 1024) {
            l.max_concurrent_uploads = n as usize;
        }
        if let Some(n) = bounded("user_requests_per_minute", 0, 1_000_000) {
            l.user_requests_per_minute = n as u32;
        }
        if let Some(n) = bounded("ip_requests_per_minute", 0, 1_000_000) {
            l.ip_requests_per_minute = n as u32;
        }
        if let Some(n) = bounded("max_queues_per_user", 1, 10_000) {
            l.max_queues_per_user = n as usize;
        }
        if let Some(n) = bounded("max_parked_polls_per_user", 1, 10_000) {
            l.max_parked_polls_per_user = n as usize;
        }
        if let Some(n) = bounded("max_flag_message_ids", 1, 100_000) {
            l.max_flag_message_ids = n as usize;
        }
        if let Some(b) = w.boolean(limits, "limits", "rate_limit_exempt_bots") {
            cfg.limits.rate_limit_exempt_bots = b;
        }
        if let Some(list) = w.address_list(limits, "limits", "rate_limit_exempt_addresses") {
            cfg.limits.rate_limit_exempt_addresses = list;
        }
    }
    if let Some(ev) = w.table(root, "events") {
        let keys = [
            "queue_timeout_secs",
            "gc_interval_secs",
            "heartbeat_secs",
            "heartbeat_jitter_secs",
            "max_queue_events",
        ];
        w.check_keys(ev, "events", &keys);
        let secs =
            |w: &mut Walker<'_>, key: &str, min: i64, max: i64| -> Option<std::time::Duration> {
                let n = w.integer(ev, "events", key)?;
                if (min..=max).contains(&n) {
                    Some(std::time::Duration::from_secs(n as u64))
                } else {
                    w.problem(
                        ev,
                        key,
                        &format!("events.{key} must be between {min} and {max}"),
                    );
                    None
                }
            };
        if let Some(d) = secs(&mut w, "queue_timeout_secs", 1, 7 * 24 * 3600) {
            cfg.events.queue_timeout = d;
        }
        if let Some(d) = secs(&mut w, "gc_interval_secs", 1, 3600) {
            cfg.events.gc_interval = d;
        }
        if let Some(d) = secs(&mut w, "heartbeat_secs", 1, 3600) {
            cfg.events.heartbeat = d;
        }
        if let Some(d) = secs(&mut w, "heartbeat_jitter_secs", 0, 3600) {
            cfg.events.heartbeat_jitter = d;
        }
        if let Some(n) = w.integer(ev, "events", "max_queue_events") {
            if (1..=10_000_000).contains(&n) {
                cfg.events.max_queue_events = n as usize;
            } else {
                w.problem(
                    ev,
                    "max_queue_events",
                    "events.max_queue_events must be between 1 and 10000000",
                );
            }
        }
    }
    if let Some(log) = w.table(root, "log") {
        w.check_keys(log, "log", &["level", "format"]);
        if let Some(level) = w.string(log, "log", "level") {
            if tracing_subscriber::EnvFilter::try_new(&level).is_ok() && !level.is_empty() {
                cfg.log.level = level;
            } else {
                w.problem(
                    log,
                    "level",
                    "log.level is not a valid filter (try \"info\" or \"outpost=debug,info\")",
                );
            }
        }
        if let Some(f) = w.string(log, "log", "format") {
            match f.as_str() {
                "text" => cfg.log.format = LogFormat::Text,
                "json" => cfg.log.format = LogFormat::Json,
                _ => w.problem(log, "format", "log.format must be \"text\" or \"json\""),
            }
        }
    }
    if w.problems.is_empty() {
        Ok(cfg)
    } else {
        Err(ConfigError {
            problems: w.problems,
        })
    }
}

impl Config {
    /// The effective configuration as TOML, with secrets redacted. Outpost has no secret keys in
    /// its config today; any added later must be printed as `"***"` here.
    pub fn to_redacted_toml(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "data_dir = {}",
            quote(&self.data_dir.display().to_string())
        );
        let _ = writeln!(s, "\n[chat]");
        let _ = writeln!(s, "listen = {}", quote(&self.chat.listen.to_string()));
        let _ = writeln!(s, "external_url = {}", quote(&self.chat.external_url));
        let _ = writeln!(s, "realm_name = {}", quote(&self.chat.realm_name));
        let _ = writeln!(s, "development = {}", self.chat.development);
        let _ = writeln!(
            s,
            "allow_remote_development = {}",
            self.chat.allow_remote_development
        );
        let _ = writeln!(
            s,
            "email_address_visibility = {}",
            quote(self.chat.email_address_visibility.name())
        );
        let _ = writeln!(s, "\n[deptrack]");
        let _ = writeln!(s, "enabled = {}", self.deptrack.enabled);
        let _ = writeln!(s, "listen = {}", quote(&self.deptrack.listen.to_string()));
        let _ = writeln!(s, "acl_enabled = {}", self.deptrack.acl_enabled);
        let _ = writeln!(
            s,
            "badges_unauthenticated = {}",
            self.deptrack.badges_unauthenticated
        );
        let _ = writeln!(s, "\n[database]");
        let sync = match self.database.synchronous {
            Synchronous::Full => "full",
            Synchronous::Normal => "normal",
        };
        let _ = writeln!(s, "synchronous = {}", quote(sync));
        let _ = writeln!(s, "read_threads = {}", self.database.read_threads);
        let _ = writeln!(s, "\n[limits]");
        let l = &self.limits;
        let _ = writeln!(s, "max_body_bytes = {}", l.max_body_bytes);
        let _ = writeln!(s, "max_upload_bytes = {}", l.max_upload_bytes);
        let _ = writeln!(s, "max_params = {}", l.max_params);
        let _ = writeln!(s, "header_timeout_secs = {}", l.header_timeout.as_secs());
        let _ = writeln!(s, "body_timeout_secs = {}", l.body_timeout.as_secs());
        let _ = writeln!(s, "max_connections = {}", l.max_connections);
        let _ = writeln!(s, "max_concurrent_uploads = {}", l.max_concurrent_uploads);
        let _ = writeln!(
            s,
            "user_requests_per_minute = {}",
            l.user_requests_per_minute
        );
        let _ = writeln!(s, "ip_requests_per_minute = {}", l.ip_requests_per_minute);
        let _ = writeln!(s, "rate_limit_exempt_bots = {}", l.rate_limit_exempt_bots);
        let exempt: Vec<String> = l
            .rate_limit_exempt_addresses
            .iter()
            .map(|a| quote(&a.to_string()))
            .collect();
        let _ = writeln!(s, "rate_limit_exempt_addresses = [{}]", exempt.join(", "));
        let _ = writeln!(s, "max_queues_per_user = {}", l.max_queues_per_user);
        let _ = writeln!(
            s,
            "max_parked_polls_per_user = {}",
            l.max_parked_polls_per_user
        );
        let _ = writeln!(s, "max_flag_message_ids = {}", l.max_flag_message_ids);
        let _ = writeln!(s, "\n[events]");
        let _ = writeln!(
            s,
            "queue_timeout_secs = {}",
            self.events.queue_timeout.as_secs()
        );
        let _ = writeln!(
            s,
            "gc_interval_secs = {}",
            self.events.gc_interval.as_secs()
        );
        let _ = writeln!(s, "heartbeat_secs = {}", self.events.heartbeat.as_secs());
        let _ = writeln!(
            s,
            "heartbeat_jitter_secs = {}",
            self.events.heartbeat_jitter.as_secs()
        );
        let _ = writeln!(s, "max_queue_events = {}", self.events.max_queue_events);
        let _ = writeln!(s, "\n[log]");
        let _ = writeln!(s, "level = {}", quote(&self.log.level));
        let format = match self.log.format {
            LogFormat::Text => "text",
            LogFormat::Json => "json",
        };
        let _ = writeln!(s, "format = {}", quote(format));
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

    fn table<'t, 'i>(&mut self, root: &'t Table<'i>, key: &str) -> Option<&'t Table<'i>> {
        match self.value(root, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::Table(t)) => Some(t),
            Some(_) => {
                self.problem(root, key, &format!("{key} must be a table ([{key}])"));
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
                "line 4: unknown key `chat.bogus` (known here: listen, external_url, realm_name, development, allow_remote_development, email_address_visibility)",
                "line 3: chat.listen must be an IP address and port such as \"127.0.0.1:9991\"",
                "line 6: database.synchronous must be \"full\" or \"normal\"",
                "line 8: log.format must be \"text\" or \"json\"",
            ]
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
    fn redacted_output_parses_back_to_the_same_config() {
        let cfg = Config::default();
        assert_eq!(parse(&cfg.to_redacted_toml()).unwrap(), cfg);
    }
}
