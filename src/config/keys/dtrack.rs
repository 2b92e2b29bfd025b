//! The catalogue's rows for the `[dtrack]` listener, its `[dtrack.acme]` table, `[dtrack.osv]`
//! and `[dtrack.epss]`.
//! Rows only, in catalogue order; the assembly in `keys/mod.rs` fixes where they go. Must
//! not touch: the network, the database or global state.

use std::path::PathBuf;
use std::time::Duration;

use super::{Key, Kind, key};
use crate::config::LETS_ENCRYPT_DIRECTORY;

pub(super) const DTRACK: &[Key] = &[
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
                                .all(|b| b.is_ascii_alphanumeric() || b"._:- ".contains(&b))
                    })
            },
            problem: "dtrack.osv.ecosystems must be a comma-separated list of OSV ecosystem names",
            get: |c| c.dtrack.osv_ecosystems.clone(),
            set: |c, v| c.dtrack.osv_ecosystems = v,
        },
        "The ecosystems fetched from base_url, comma-separated as OSV names them (npm,PyPI,Red Hat).",
    ),
    key(
        "dtrack.osv",
        "interval",
        secs!(dtrack.osv_interval, 86_400, 60, 30 * 86_400),
        "Seconds between two fetches of the OSV exports (upstream mirrors daily).",
    ),
    key(
        "dtrack.epss",
        "url",
        Kind::Str {
            default: "",
            check: |v| {
                v.is_empty()
                    || ((v.starts_with("http://") || v.starts_with("https://"))
                        && !v.chars().any(|c| c.is_whitespace() || c.is_control()))
            },
            problem: "dtrack.epss.url must be empty or an http:// or https:// URL",
            get: |c| c.dtrack.epss_url.clone(),
            set: |c, v| c.dtrack.epss_url = v,
        },
        "Fetch FIRST's EPSS scores (a CSV file, gzip or plain) from this URL once a day, e.g.\n\
         https://epss.cyentia.com/epss_scores-current.csv.gz (upstream's feed); empty: scores\n\
         come only from `outpost dtrack import-epss`.",
    ),
];
