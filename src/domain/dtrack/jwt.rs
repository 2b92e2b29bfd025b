//! HS256 JSON Web Tokens for Dependency-Track logins.
//!
//! Claims as upstream: `sub` (username), `iss` (`Dependency-Track`), `iat`, `exp`,
//! `permissions` (comma-joined), `idp` (`LOCAL`). The key is 32 random bytes kept in the data
//! directory. Pure functions; tokens are never logged.

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
}

fn sign(key: &[u8], input: &str) -> Vec<u8> {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(input.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// Issues a token for `username` at `now` (UNIX seconds).
pub fn issue(key: &[u8], username: &str, permissions: &[&str], now: i64) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256"}"#);
    let claims = serde_json::json!({
        "sub": username,
        "permissions": permissions.join(","),
        "iss": "Dependency-Track",
        "iat": now,
        "exp": now + TTL_SECS,
        "idp": "LOCAL",
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
        let t = issue(&key, "admin", &["VIEW_PORTFOLIO", "BOM_UPLOAD"], 1000);
        let c = verify(&key, &t, 1001).unwrap();
        assert_eq!(c.sub, "admin");
        assert_eq!(c.exp, 1000 + TTL_SECS);
        assert!(verify(&key, &t, 1000 + TTL_SECS).is_none());
        assert!(verify(&[8u8; 32], &t, 1001).is_none());
        let mut tampered = t.clone();
        tampered.insert(t.find('.').unwrap() + 2, 'x');
        assert!(verify(&key, &tampered, 1001).is_none());
        assert!(verify(&key, "a.b", 1001).is_none());
    }
}
