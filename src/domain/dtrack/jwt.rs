//! HS256 JSON Web Tokens for Dependency-Track logins.
//!
//! Claims as upstream: `sub` (username), `iss` (`Dependency-Track`), `iat`, `exp`,
//! `permissions` (comma-joined), `idp` (`LOCAL`), plus our own `pwd`: a stamp of the password
//! the token was issued under ([`password_stamp`]), so a password change revokes every earlier
//! token. The key is 32 random bytes kept in the data directory. Pure functions; tokens are
//! never logged.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit as _, Mac as _};
use serde::Deserialize;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Token lifetime: 7 days, upstream's default.
pub const TTL_SECS: i64 = 604_800;

#[derive(Debug, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub exp: i64,
    #[serde(default)]
    pub idp: Option<String>,
    /// The [`password_stamp`] at issue; tokens without one are refused.
    #[serde(default)]
    pub pwd: Option<String>,
}

fn sign(key: &[u8], input: &str) -> Vec<u8> {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(input.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// A stamp of a stored password hash: 16 bytes of HMAC-SHA256 under the signing key, Base64url.
/// Every password change stores a new salted hash, so the stamp changes with it (even when the
/// same password is set again), whatever the clock says; it reveals nothing about the hash
/// without the key.
pub fn password_stamp(key: &[u8], password_hash: &str) -> String {
    let mac = sign(key, &format!("outpost-dt-password\0{password_hash}"));
    URL_SAFE_NO_PAD.encode(&mac[..16])
}

/// Issues a token for `username` at `now` (UNIX seconds), bound to `stamp` (see
/// [`password_stamp`]).
pub fn issue(key: &[u8], username: &str, permissions: &[&str], stamp: &str, now: i64) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256"}"#);
    let claims = serde_json::json!({
        "sub": username,
        "permissions": permissions.join(","),
        "iss": "Dependency-Track",
        "iat": now,
        "exp": now + TTL_SECS,
        "idp": "LOCAL",
        "pwd": stamp,
    });
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    let input = format!("{header}.{payload}");
    let sig = URL_SAFE_NO_PAD.encode(sign(key, &input));
    format!("{input}.{sig}")
}

/// Checks signature, algorithm and expiry; returns the claims of a valid token.
pub fn verify(key: &[u8], token: &str, now: i64) -> Option<Claims> {
    let mut parts = token.split('.');
    let (Some(h), Some(p), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let header: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(h).ok()?).ok()?;
    if header.get("alg").and_then(|a| a.as_str()) != Some("HS256") {
        return None;
    }
    let sig = URL_SAFE_NO_PAD.decode(s).ok()?;
    let mut mac = HmacSha256::new_from_slice(key).ok()?;
    mac.update(h.as_bytes());
    mac.update(b".");
    mac.update(p.as_bytes());
    mac.verify_slice(&sig).ok()?;
    let claims: Claims = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(p).ok()?).ok()?;
    if claims.exp <= now || claims.idp.as_deref().is_some_and(|i| i != "LOCAL") {
        return None;
    }
    Some(claims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issued_tokens_verify_until_they_expire() {
        let key = [7u8; 32];
        let stamp = password_stamp(&key, "$argon2id$v=19$...");
        assert_ne!(stamp, password_stamp(&key, "$argon2id$v=19$other-salt"));
        assert_ne!(stamp, password_stamp(&[8u8; 32], "$argon2id$v=19$..."));
        let t = issue(
            &key,
            "admin",
            &["VIEW_PORTFOLIO", "BOM_UPLOAD"],
            &stamp,
            1000,
        );
        let c = verify(&key, &t, 1001).unwrap();
        assert_eq!(c.sub, "admin");
        assert_eq!(c.pwd.as_deref(), Some(stamp.as_str()));
        assert_eq!(c.exp, 1000 + TTL_SECS);
        assert!(verify(&key, &t, 1000 + TTL_SECS).is_none());
        assert!(verify(&[8u8; 32], &t, 1001).is_none());
        let mut tampered = t.clone();
        tampered.insert(t.find('.').unwrap() + 2, 'x');
        assert!(verify(&key, &tampered, 1001).is_none());
        assert!(verify(&key, "a.b", 1001).is_none());
    }
}
