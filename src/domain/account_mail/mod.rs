//! The account mails and their links, one idea a file: forgot-password (`reset`), email change
//! by confirmation (`email_change`) and one-click unsubscribe (`unsubscribe`), beside the
//! missed-message emails (`missed`) and the weekly digest (`digest`). Here: the links'
//! keys (random, 256 bits, only their SHA-256 stored, single-use, expiring), the limits on how
//! often reset mails are asked for, and the sender names these mails share.
//!
//! Mails go through the outbox (`domain::outbox`) in the commit that makes their link. The SQL
//! is `db::account_links`; the pages are `web::accounts`. No HTTP, no SQL text, no wire JSON.

pub mod digest;
pub mod email_change;
pub mod missed;
pub mod reset;
pub mod unsubscribe;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

use crate::db::WriteTx;
use crate::db::account_links::{self as links_db, Link};
use crate::domain::core::Core;
use crate::error::Result;
use crate::ids::UserId;

/// Why a link does not work (the page says so; nothing changes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkProblem {
    /// No such key (never made, already used, or revoked).
    Unknown,
    Expired,
}

/// What the server's mails need of the configuration, taken before a write (which runs on the
/// writer thread without the `Core`).
#[derive(Clone, Debug)]
pub struct MailContext {
    pub external_url: String,
    pub realm_name: String,
    /// The bare sender address (`[email] from`).
    pub from_address: String,
    /// `"<realm> account security" <from>`.
    pub security_from: String,
    /// `"<realm> notifications" <from>`.
    pub notifications_from: String,
    /// `"<realm> digest" <from>`.
    pub digest_from: String,
}

impl MailContext {
    pub fn new(core: &Core) -> MailContext {
        let realm = core.config.chat.realm_name.clone();
        MailContext {
            external_url: core
                .config
                .chat
                .external_url
                .trim_end_matches('/')
                .to_string(),
            from_address: core.mailer.from_address(),
            security_from: core
                .mailer
                .from_with_name(&format!("{realm} account security")),
            notifications_from: core
                .mailer
                .from_with_name(&format!("{realm} notifications")),
            digest_from: core.mailer.from_with_name(&format!("{realm} digest")),
            realm_name: realm,
        }
    }

    /// The host part of the external URL (for `List-Id`).
    pub fn host(&self) -> &str {
        let rest = self
            .external_url
            .split_once("://")
            .map_or(self.external_url.as_str(), |(_, r)| r);
        rest.split('/').next().unwrap_or(rest)
    }

    /// The headers every server mail carries (upstream's `build_email`): no auto-replies,
    /// replies to the no-reply address, and the list it belongs to.
    pub fn common_headers(&self) -> Vec<(String, String)> {
        vec![
            ("X-Auto-Response-Suppress".into(), "All".into()),
            ("Reply-To".into(), self.from_address.clone()),
            (
                "List-Id".into(),
                format!("\"{}\" <{}>", self.realm_name.replace('"', ""), self.host()),
            ),
        ]
    }
}

/// Escapes text for HTML mail parts (element content and quoted attributes).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A new link key: 32 random bytes as 64 hex digits.
pub fn new_key() -> String {
    crate::domain::sessions::random_token()
}

/// What is stored for a key: its SHA-256 in hex.
pub fn key_hash(key: &str) -> String {
    Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether a key from a link is shaped like one (anything else is not looked up).
pub fn well_formed(key: &str) -> bool {
    key.len() == 64 && key.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Inside a write: stores a new link of `kind` for `user`; returns its key.
pub(crate) fn make_link(
    tx: &mut WriteTx<'_>,
    kind: &str,
    user: UserId,
    emails: (Option<String>, Option<String>),
    now: i64,
    lifetime_secs: i64,
) -> Result<String> {
    let key = new_key();
    links_db::insert(
        tx,
        &key_hash(&key),
        &Link {
            id: 0,
            kind: kind.to_string(),
            user_id: user,
            old_email: emails.0,
            new_email: emails.1,
            created_at: now,
            expires_at: now.saturating_add(lifetime_secs),
        },
    )?;
    Ok(key)
}

/// The link of `kind` a key opens at `now`.
pub(crate) fn find_link(
    c: &rusqlite::Connection,
    kind: &str,
    key: &str,
    now: i64,
) -> Result<std::result::Result<Link, LinkProblem>> {
    if !well_formed(key) {
        return Ok(Err(LinkProblem::Unknown));
    }
    Ok(match links_db::by_hash(c, &key_hash(key), kind)? {
        None => Err(LinkProblem::Unknown),
        Some(l) if l.expires_at <= now => Err(LinkProblem::Expired),
        Some(l) => Ok(l),
    })
}

/// Removes expired links (the hourly sweep).
pub async fn sweep(core: &Core, now: i64) -> Result<usize> {
    core.db
        .write(move |tx| links_db::delete_expired(tx, now))
        .await
}

/// Counts requests per key within windows (upstream's `password_reset_form_by_email`: 2 an
/// hour and 5 a day per address; `sends_email_by_ip`: 5 a day per address of the client).
#[derive(Default)]
pub struct SendLimiter {
    seen: Mutex<HashMap<String, Vec<Instant>>>,
}

/// Most keys remembered; beyond, the table starts again (bounded memory).
const MAX_KEYS: usize = 100_000;

impl SendLimiter {
    /// Records a request under every key if none of them is over its rules (each rule is
    /// (window, most requests)); false, recording nothing, if one is.
    pub fn admit(&self, keys: &[(&str, &[(Duration, usize)])]) -> bool {
        let Ok(mut map) = self.seen.lock() else {
            return false;
        };
        let now = Instant::now();
        for (key, rules) in keys {
            let list = map.get(*key).map(Vec::as_slice).unwrap_or(&[]);
            for (window, most) in rules.iter() {
                let n = list
                    .iter()
                    .filter(|t| now.duration_since(**t) < *window)
                    .count();
                if n >= *most {
                    return false;
                }
            }
        }
        if map.len() >= MAX_KEYS {
            map.clear();
        }
        for (key, _) in keys {
            let list = map.entry(key.to_string()).or_default();
            list.retain(|t| now.duration_since(*t) < Duration::from_secs(86_400));
            list.push(now);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_random_hex_and_stored_hashed() {
        let a = new_key();
        assert!(well_formed(&a));
        assert_ne!(a, new_key());
        assert_ne!(key_hash(&a), a);
        assert!(!well_formed("../etc"));
    }

    #[test]
    fn the_limiter_counts_every_key() {
        let l = SendLimiter::default();
        let hour: &[(Duration, usize)] = &[(Duration::from_secs(3600), 2)];
        let day: &[(Duration, usize)] = &[(Duration::from_secs(86_400), 3)];
        assert!(l.admit(&[("a", hour), ("ip", day)]));
        assert!(l.admit(&[("a", hour), ("ip", day)]));
        assert!(!l.admit(&[("a", hour), ("ip", day)]));
        assert!(l.admit(&[("b", hour), ("ip", day)]));
        assert!(!l.admit(&[("c", hour), ("ip", day)]));
    }
}
