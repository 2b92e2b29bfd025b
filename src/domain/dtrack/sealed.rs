//! Sealing of ENCRYPTEDSTRING property values at rest, with a key derived from the
//! installation's 32-byte key (`keys/secret.key`, which also signs JWTs: the sealing key is
//! HMAC-SHA256 of it under its own label, so neither use can stand in for the other).
//!
//! `sealed:v2:` + Base64 of a random 12-byte nonce, the ChaCha20-Poly1305 ciphertext and its
//! 16-byte tag (ring's AEAD, the one rustls already uses), with a fixed label as associated data.
//! `sealed:v1:` values, written by earlier versions with an HMAC keystream of our own, are
//! still read and are rewritten as v2 at start (`reseal`). Pure functions; values are never
//! logged and never shown through the API.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit as _, Mac as _};
use rand::RngExt as _;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

const PREFIX: &str = "sealed:v2:";
/// The form of values sealed by earlier versions.
pub const LEGACY_PREFIX: &str = "sealed:v1:";
/// Associated data of every sealed value: what it is, so a value sealed for another purpose
/// under the same key does not open here.
const AAD: &[u8] = b"outpost dependency-track property value";

fn mac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut m = HmacSha256::new_from_slice(key).expect("HMAC takes any key length");
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

fn aead_key(key: &[u8]) -> LessSafeKey {
    let derived = mac(key, &[b"outpost property sealing v2"]);
    let unbound = UnboundKey::new(&CHACHA20_POLY1305, &derived)
        .expect("ChaCha20-Poly1305 takes a 32-byte key");
    LessSafeKey::new(unbound)
}

/// The sealed form of `plain`.
pub fn seal(key: &[u8], plain: &str) -> String {
    let nonce: [u8; NONCE_LEN] = rand::rng().random();
    let mut data = plain.as_bytes().to_vec();
    aead_key(key)
        .seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(AAD),
            &mut data,
        )
        .expect("a property value is far below ChaCha20-Poly1305's length limit");
    let mut out = nonce.to_vec();
    out.extend_from_slice(&data);
    format!("{PREFIX}{}", STANDARD.encode(out))
}

/// The text of a sealed value (either version); `None` when it was not sealed under `key` or
/// was altered.
pub fn open(key: &[u8], sealed: &str) -> Option<String> {
    if let Some(legacy) = sealed.strip_prefix(LEGACY_PREFIX) {
        return open_v1(key, legacy);
    }
    let raw = STANDARD.decode(sealed.strip_prefix(PREFIX)?).ok()?;
    if raw.len() < NONCE_LEN {
        return None;
    }
    let (nonce, rest) = raw.split_at(NONCE_LEN);
    let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
    let mut data = rest.to_vec();
    let plain = aead_key(key)
        .open_in_place(nonce, Aad::from(AAD), &mut data)
        .ok()?;
    String::from_utf8(plain.to_vec()).ok()
}

/// Whether a stored value is in the old form and should be sealed again.
pub fn is_legacy(stored: &str) -> bool {
    stored.starts_with(LEGACY_PREFIX)
}

/// A legacy value sealed again in the current form; `None` when it does not open (it is then
/// left as it is: nothing here can recover it, and nothing is lost by keeping it).
pub fn reseal(key: &[u8], stored: &str) -> Option<String> {
    open(key, stored).map(|plain| seal(key, &plain))
}

/// Reads a `sealed:v1:` value: 16-byte nonce, HMAC-SHA256 keystream, 16-byte HMAC tag.
fn open_v1(key: &[u8], encoded: &str) -> Option<String> {
    let raw = STANDARD.decode(encoded).ok()?;
    if raw.len() < 32 {
        return None;
    }
    let (nonce, rest) = raw.split_at(16);
    let (data, tag) = rest.split_at(rest.len() - 16);
    let expected = mac(key, &[b"tag", nonce, data]);
    let diff = expected[..16]
        .iter()
        .zip(tag)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    if diff != 0 {
        return None;
    }
    let mut plain = data.to_vec();
    for (i, chunk) in plain.chunks_mut(32).enumerate() {
        let block = mac(key, &[b"stream", nonce, &(i as u64).to_be_bytes()]);
        for (b, k) in chunk.iter_mut().zip(block) {
            *b ^= k;
        }
    }
    String::from_utf8(plain).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value in the v1 form, made the way earlier versions made it, for the upgrade test.
    fn seal_v1(key: &[u8], plain: &str, nonce: [u8; 16]) -> String {
        let mut data = plain.as_bytes().to_vec();
        for (i, chunk) in data.chunks_mut(32).enumerate() {
            let block = mac(key, &[b"stream", &nonce, &(i as u64).to_be_bytes()]);
            for (b, k) in chunk.iter_mut().zip(block) {
                *b ^= k;
            }
        }
        let tag = mac(key, &[b"tag", &nonce, &data]);
        let mut out = nonce.to_vec();
        out.extend_from_slice(&data);
        out.extend_from_slice(&tag[..16]);
        format!("{LEGACY_PREFIX}{}", STANDARD.encode(out))
    }

    #[test]
    fn sealed_values_open_only_with_their_key_and_unaltered() {
        let key = [7u8; 32];
        let text = "a secret longer than one 32-byte block of keystream, ünïcode";
        let s = seal(&key, text);
        assert!(s.starts_with(PREFIX));
        assert!(!s.contains("secret"));
        assert!(!is_legacy(&s));
        assert_eq!(open(&key, &s).as_deref(), Some(text));
        assert_ne!(seal(&key, text), s, "a fresh nonce each time");
        assert_eq!(open(&[8u8; 32], &s), None);
        let mut altered = s.clone().into_bytes();
        let i = PREFIX.len() + 20;
        altered[i] = if altered[i] == b'A' { b'B' } else { b'A' };
        assert_eq!(open(&key, &String::from_utf8(altered).unwrap()), None);
        assert_eq!(open(&key, "plain"), None);
        assert_eq!(open(&key, PREFIX), None);
        assert_eq!(open(&key, &format!("{PREFIX}AAAA")), None);
    }

    #[test]
    fn legacy_values_open_and_reseal_as_v2() {
        let key = [9u8; 32];
        let old = seal_v1(&key, "hunter2", [3u8; 16]);
        assert!(is_legacy(&old));
        assert_eq!(open(&key, &old).as_deref(), Some("hunter2"));
        let new = reseal(&key, &old).unwrap();
        assert!(new.starts_with(PREFIX) && !is_legacy(&new));
        assert_eq!(open(&key, &new).as_deref(), Some("hunter2"));
        // Under another key, or altered, a legacy value does not open and is kept.
        assert_eq!(reseal(&[1u8; 32], &old), None);
        assert_eq!(open(&key, &old.replace('A', "B")), None);
    }
}
