//! Dependency-Track API keys: generation, decoding of the accepted forms, and hashing.
//!
//! A key is `odt_<publicId:8>_<secret:32>`; only the public id and the lower-case hex SHA3-256
//! of the secret are stored. Legacy forms (32 characters unprefixed, or the prefix followed by
//! 32 characters) have a 5-character public id. Pure; never logs a key.

use rand::RngExt as _;
use sha3::{Digest as _, Sha3_256};

pub const PREFIX: &str = "odt_";

const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A key split into its parts.
#[derive(Debug, PartialEq, Eq)]
pub struct DecodedKey<'a> {
    pub public_id: &'a str,
    pub secret: &'a str,
    pub legacy: bool,
}

/// A freshly generated key: the full key (shown once) and what is stored.
pub struct NewKey {
    pub key: String,
    pub public_id: String,
    pub secret_hash: String,
}

fn random(n: usize) -> String {
    let mut rng = rand::rng();
    (0..n)
        .map(|_| ALPHANUMERIC[rng.random_range(0..ALPHANUMERIC.len())] as char)
        .collect()
}

pub fn generate() -> NewKey {
    let public_id = random(8);
    let secret = random(32);
    NewKey {
        key: format!("{PREFIX}{public_id}_{secret}"),
        secret_hash: hash_secret(&secret),
        public_id,
    }
}

/// Lower-case hex SHA3-256 of the secret part.
pub fn hash_secret(secret: &str) -> String {
    let digest = Sha3_256::digest(secret.as_bytes());
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// `odt_AbCdEfGh` followed by 32 stars (no underscore between id and stars, as upstream).
pub fn masked(public_id: &str) -> String {
    format!("{PREFIX}{public_id}{}", "*".repeat(32))
}

fn alnum(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Splits a presented key into public id and secret; `None` for any other shape.
pub fn decode(key: &str) -> Option<DecodedKey<'_>> {
    if !key.is_ascii() {
        return None;
    }
    if key.len() == 32 && alnum(key) {
        return Some(DecodedKey {
            public_id: &key[..5],
            secret: &key[5..],
            legacy: true,
        });
    }
    if let Some(rest) = key.strip_prefix(PREFIX)
        && rest.len() == 32
        && alnum(rest)
    {
        return Some(DecodedKey {
            public_id: &rest[..5],
            secret: &rest[5..],
            legacy: true,
        });
    }
    let mut parts = key.split('_');
    let (Some(_prefix), Some(public_id), Some(secret), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let ok = matches!((public_id.len(), secret.len()), (8, 32) | (5, 27))
        && alnum(public_id)
        && alnum(secret);
    ok.then_some(DecodedKey {
        public_id,
        secret,
        legacy: public_id.len() == 5,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_decode_and_hash_their_secret() {
        let k = generate();
        assert_eq!(k.key.len(), 45);
        assert!(k.key.starts_with("odt_"));
        let d = decode(&k.key).unwrap();
        assert_eq!(d.public_id, k.public_id);
        assert!(!d.legacy);
        assert_eq!(hash_secret(d.secret), k.secret_hash);
        assert_eq!(
            masked("AbCdEfGh"),
            format!("odt_AbCdEfGh{}", "*".repeat(32))
        );
    }

    #[test]
    fn legacy_and_broken_forms() {
        let legacy = "abcdeABCDEabcdeABCDEabcdeABCDE12";
        let d = decode(legacy).unwrap();
        assert_eq!((d.public_id, d.secret.len(), d.legacy), ("abcde", 27, true));
        let prefixed = format!("odt_{legacy}");
        assert_eq!(decode(&prefixed).unwrap().public_id, "abcde");
        assert_eq!(decode("odt_short_x"), None);
        assert_eq!(decode("5ce9b8a5-5f18-4c1f-9eda-1611b83e8915"), None);
        assert_eq!(decode(""), None);
    }

    #[test]
    fn sha3_of_known_input() {
        // SHA3-256("abc"), FIPS 202 example.
        assert_eq!(
            hash_secret("abc"),
            "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"
        );
    }
}
