//! The catalogue's rows for the `[chat]` listener and its `[chat.acme]` table.
//! Rows only, in catalogue order; the assembly in `keys/mod.rs` fixes where they go. Must
//! not touch: the network, the database or global state.

use std::path::PathBuf;

use super::{Key, Kind, key};
use crate::config::{EmailVisibility, LETS_ENCRYPT_DIRECTORY};

const EMAIL_VISIBILITY: &[&str] = &["everyone", "members", "admins", "nobody", "moderators"];

pub(super) const CHAT: &[Key] = &[
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
            // Empty: http:// plus the listen address (see `config::derive`).
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
];
