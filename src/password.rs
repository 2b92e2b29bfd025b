//! Password hashing (argon2id) and secret generation.
//!
//! Hashing is deliberately slow, so callers run these functions on the blocking pool
//! ([`crate::db::Db::cpu`]), never on a tokio worker. Must not log or return passwords.

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use rand::RngExt as _;

/// Hashes a password into a PHC string (`$argon2id$...`).
pub fn hash(password: &str) -> Result<String, String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| format!("argon2: {e}"))
}

/// Checks a password against a stored PHC string. A malformed stored hash never verifies.
pub fn verify(password: &str, phc: &str) -> bool {
    Argon2::default()
        .verify_password(password.as_bytes(), phc)
        .is_ok()
}

/// A hash of a random password, made once per process with the same parameters as [`hash`]:
/// what a login for an unknown user (or one without a password) is verified against, so it
/// costs what a real verification costs.
fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| hash(&new_api_key()).expect("argon2 hashes a random password"))
}

/// Checks a password against a stored hash, or, when there is none, runs the same
/// verification against [`dummy_hash`] and fails: both take the same time.
pub fn verify_or_dummy(password: &str, stored: Option<&str>) -> bool {
    match stored {
        Some(phc) => verify(password, phc),
        None => {
            let _ = verify(password, dummy_hash());
            false
        }
    }
}

const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A fresh Zulip-style API key: 32 random alphanumeric characters.
pub fn new_api_key() -> String {
    random_string(ALPHANUMERIC, 32)
}

/// `len` characters drawn at random from `alphabet` (ASCII): the secrets in API keys, signup
/// links and upload paths.
pub fn random_string(alphabet: &[u8], len: usize) -> String {
    let mut rng = rand::rng();
    (0..len)
        .map(|_| alphabet[rng.random_range(0..alphabet.len())] as char)
        .collect()
}

/// Compares two byte strings in time that depends only on their lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        diff |= x ^ y;
    }
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_then_verify() {
        let h = hash("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify("correct horse", &h));
        assert!(!verify("wrong horse", &h));
        assert!(!verify("correct horse", "not a hash"));
    }

    #[test]
    fn the_dummy_hash_costs_what_a_real_one_costs_and_never_verifies() {
        // Same algorithm, version and cost parameters as a stored hash: the PHC string up to
        // the salt.
        let params = |phc: &str| phc.rsplitn(3, '$').nth(2).unwrap().to_string();
        let real = hash("correct horse").unwrap();
        assert_eq!(params(dummy_hash()), params(&real));
        assert!(params(&real).starts_with("$argon2id$v=19$m="));
        assert!(verify_or_dummy("correct horse", Some(&real)));
        assert!(!verify_or_dummy("correct horse", None));
        assert!(!verify_or_dummy("", None));
    }

    #[test]
    fn api_keys_are_32_alphanumerics_and_differ() {
        let a = new_api_key();
        let b = new_api_key();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a, b);
    }

    #[test]
    fn constant_time_eq_matches_eq() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
    }
}
