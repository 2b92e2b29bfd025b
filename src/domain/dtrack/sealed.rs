//! Sealing of ENCRYPTEDSTRING property values at rest with the installation's 32-byte key
//! (`keys/secret.key`): a random 16-byte nonce, an HMAC-SHA256 keystream (counter mode) XORed
//! over the text, and a 16-byte HMAC-SHA256 tag over nonce and ciphertext (encrypt-then-MAC,
//! each under its own label). Stored as `sealed:v1:` + Base64. Pure functions; values are never
//! logged and never shown through the API.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit as _, Mac as _};
use rand::RngExt as _;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

const PREFIX: &str = "sealed:v1:";

fn mac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut m = HmacSha256::new_from_slice(key).expect("HMAC takes any key length");
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

fn xor_stream(key: &[u8], nonce: &[u8], data: &mut [u8]) {
    for (i, chunk) in data.chunks_mut(32).enumerate() {
        let block = mac(key, &[b"stream", nonce, &(i as u64).to_be_bytes()]);
        for (b, k) in chunk.iter_mut().zip(block) {
            *b ^= k;
        }
    }
}

/// The sealed form of `plain`.
pub fn seal(key: &[u8], plain: &str) -> String {
    let nonce: [u8; 16] = rand::rng().random();
    let mut data = plain.as_bytes().to_vec();
    xor_stream(key, &nonce, &mut data);
    let tag = mac(key, &[b"tag", &nonce, &data]);
    let mut out = nonce.to_vec();
    out.extend_from_slice(&data);
    out.extend_from_slice(&tag[..16]);
    format!("{PREFIX}{}", STANDARD.encode(out))
}

/// The text of a sealed value; `None` when it was not sealed under `key` or was altered.
pub fn open(key: &[u8], sealed: &str) -> Option<String> {
    let raw = STANDARD.decode(sealed.strip_prefix(PREFIX)?).ok()?;
    if raw.len() < 32 {
        return None;
    }
    let (nonce, rest) = raw.split_at(16);
    let (data, tag) = rest.split_at(rest.len() - 16);
    let expected = mac(key, &[b"tag", nonce, data]);
    // Constant-time enough for a local check: compare every byte.
    let diff = expected[..16]
        .iter()
        .zip(tag)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    if diff != 0 {
        return None;
    }
    let mut plain = data.to_vec();
    xor_stream(key, nonce, &mut plain);
    String::from_utf8(plain).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_their_key_and_unaltered() {
        let key = [7u8; 32];
        let text = "a secret longer than one 32-byte block of keystream, ünïcode";
        let s = seal(&key, text);
        assert!(s.starts_with(PREFIX));
        assert!(!s.contains("secret"));
        assert_eq!(open(&key, &s).as_deref(), Some(text));
        assert_ne!(seal(&key, text), s, "a fresh nonce each time");
        assert_eq!(open(&[8u8; 32], &s), None);
        let mut altered = s.clone().into_bytes();
        let i = PREFIX.len() + 20;
        altered[i] = if altered[i] == b'A' { b'B' } else { b'A' };
        assert_eq!(open(&key, &String::from_utf8(altered).unwrap()), None);
        assert_eq!(open(&key, "plain"), None);
    }
}
