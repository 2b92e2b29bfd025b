//! THE catalogue of configuration keys: one row per key with its section, name, type and
//! valid range, default, documentation (the comment `config.example.toml` shows above it),
//! whether it is secret, and the field of [`Config`] it sets.
//!
//! Defaults, parsing, the unknown-key check, the redacted dump and the example file are all
//! derived from [`keys`]; adding a key is one row in its table's file (`keys/chat.rs`,
//! `keys/limits.rs`, ...) plus its field in `Config`. This file owns the row types, the row
//! macros and the catalogue's assembly ([`TABLES`]). Must not touch: the network, the database
//! or global state.

use super::Config;
use std::net::{IpAddr, SocketAddr};

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
                check: crate::config::acme_domain_ok,
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

// The rows, by table; declared after the macros above so that they can use them.
mod bots;
mod chat;
mod dtrack;
mod email;
mod events;
mod limits;
mod log;
mod metrics;
mod push;
mod storage;

/// The catalogue's parts, in the order of `config.example.toml`, the dump and the problem
/// reports; [`keys`] is their rows one after the other.
const TABLES: &[&[Key]] = &[
    storage::DATA_DIR,
    chat::CHAT,
    dtrack::DTRACK,
    metrics::METRICS,
    storage::DATABASE,
    limits::LIMITS,
    events::EVENTS,
    email::EMAIL,
    push::PUSH,
    bots::BOTS,
    log::LOG,
];

/// Every key, in the order of `config.example.toml`, the dump and the problem reports.
pub(super) fn keys() -> impl Iterator<Item = &'static Key> {
    TABLES.iter().flat_map(|t| t.iter())
}

/// The sections in catalogue order (the top level, `""`, first).
pub(super) fn sections() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for k in keys() {
        if !out.contains(&k.section) {
            out.push(k.section);
        }
    }
    out
}

/// The keys of one section, in catalogue order.
pub(super) fn of(section: &str) -> impl Iterator<Item = &'static Key> {
    keys().filter(move |k| k.section == section)
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
        for k in keys() {
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
        for (i, k) in keys().enumerate() {
            if let Kind::Int {
                default, min, max, ..
            } = &k.kind
            {
                assert!((min..=max).contains(&default), "{}", k.name);
            }
            assert!(
                !keys()
                    .take(i)
                    .any(|o| o.section == k.section && o.name == k.name),
                "{}.{} twice",
                k.section,
                k.name
            );
            assert!(!k.doc.is_empty(), "{} has no doc", k.name);
        }
    }
}
