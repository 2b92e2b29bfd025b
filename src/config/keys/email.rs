//! The catalogue's rows for the `[email]` table (outgoing mail).
//! Rows only, in catalogue order; the assembly in `keys/mod.rs` fixes where they go. Must
//! not touch: the network, the database or global state.

use super::{Key, Kind, key, secret};
use crate::config::{MailPassword, MailTls};

pub(super) const EMAIL: &[Key] = &[
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
        "SMTP server for outgoing mail (invitations, password resets, address changes, missed-message emails). Empty: no mail is sent; the links mails carry go to the log.",
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
        "Sender address of every mail, e.g. \"Outpost <noreply@example.com>\" (notifications use its address with \"<organization> notifications\"); required with a host.",
    ),
];
