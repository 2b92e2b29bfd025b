//! Whether a wanted email address is, or looks like, another account's (`domain::email_keys`
//! says how addresses compare): for one address, or for many against every account read once.
//! Reads only.

use crate::db::users as users_db;
use crate::domain::email_keys;
use crate::error::Result;
use crate::ids::UserId;

/// How a wanted address collides with an existing account's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmailClash {
    /// The same address (ASCII case aside, as logins compare them).
    Same,
    /// A different string that looks the same (`email_keys::lookalike_key`): KELVIN SIGN for
    /// `k`, fullwidth letters, Cyrillic `а` for `a`, ...
    LookAlike,
}

impl EmailClash {
    /// What an API answer says about an address that clashes.
    pub fn message(self) -> &'static str {
        match self {
            EmailClash::Same => "Email is already in use.",
            EmailClash::LookAlike => "Email is too similar to the address of an existing account.",
        }
    }
}

/// Every account's address under both keys, read once, to check many wanted addresses
/// against (an invitation names several) without reading or folding the accounts again.
pub struct EmailKeys {
    login: std::collections::HashMap<String, UserId>,
    alike: std::collections::HashMap<String, Vec<UserId>>,
}

impl EmailKeys {
    /// Reads every account (active, deactivated, bot or system bot).
    pub fn load(c: &rusqlite::Connection) -> Result<EmailKeys> {
        let mut keys = EmailKeys {
            login: std::collections::HashMap::new(),
            alike: std::collections::HashMap::new(),
        };
        for (id, other) in users_db::all_emails(c)? {
            keys.login.insert(email_keys::login_key(&other), id);
            keys.alike
                .entry(email_keys::lookalike_key(&other))
                .or_default()
                .push(id);
        }
        Ok(keys)
    }

    /// Whether `email` is, or looks like, the address of an account other than `except`.
    pub fn clash(&self, email: &str, except: Option<UserId>) -> Option<EmailClash> {
        let other = |id: &UserId| Some(*id) != except;
        if self
            .login
            .get(&email_keys::login_key(email))
            .is_some_and(other)
        {
            return Some(EmailClash::Same);
        }
        self.alike
            .get(&email_keys::lookalike_key(email))
            .is_some_and(|ids| ids.iter().any(other))
            .then_some(EmailClash::LookAlike)
    }
}

/// Whether `email` is, or looks like, the address of an account other than `except` (any
/// account: active, deactivated, bot or system bot).
pub fn email_clash(
    c: &rusqlite::Connection,
    email: &str,
    except: Option<UserId>,
) -> Result<Option<EmailClash>> {
    Ok(EmailKeys::load(c)?.clash(email, except))
}
