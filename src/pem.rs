//! Certificates and keys in PEM files: reading a file (bounded), parsing a certificate chain and
//! private key and checking that they fit (with rustls's ring provider), reading trusted roots,
//! and building pairs from PEM or DER held in memory (what ACME stores and its challenges use).
//! Every error names the file and what is wrong with it, since the operator reads it at config
//! load (`config::listeners`) and on reload (`http::tls`).
//!
//! Sits below both `config` and `http`, so validating the settings at load and serving the
//! files share one reading. Must not touch: sockets, the rustls server configuration, the
//! database, global state.

use std::path::Path;
use std::sync::Arc;

use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject as _;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::sign::CertifiedKey;

/// Largest certificate or key file read (a chain of a few certificates is a few KiB).
const MAX_PEM_BYTES: u64 = 1024 * 1024;

/// The rustls crypto provider every TLS configuration of the server uses (ring).
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Reads a PEM certificate chain (leaf first) and a PEM private key (PKCS#8, PKCS#1 or SEC1)
/// and checks that the key is the certificate's. The error says which file is wrong and why.
pub fn load_pair(cert: &Path, key: &Path) -> Result<CertifiedKey, String> {
    let cert_pem = read_small(cert)?;
    let key_pem = read_small(key)?;
    let chain = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: not a PEM certificate file: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!(
            "{}: no PEM certificate (BEGIN CERTIFICATE) in it",
            cert.display()
        ));
    }
    let private = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|e| format!("{}: no usable PEM private key in it: {e}", key.display()))?;
    CertifiedKey::from_der(chain, private, &provider()).map_err(|e| {
        format!(
            "{} and {}: the key does not fit the certificate or is not supported: {e}",
            cert.display(),
            key.display()
        )
    })
}

/// Reads the PEM certificates of `path` (roots to trust); at least one.
pub fn load_roots(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = read_small(path)?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: not a PEM certificate file: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "{}: no PEM certificate (BEGIN CERTIFICATE) in it",
            path.display()
        ));
    }
    Ok(certs)
}

/// Builds a served pair from a PEM chain and PEM key held in memory (what ACME stores).
pub fn pair_from_pem(chain_pem: &[u8], key_pem: &[u8]) -> Result<CertifiedKey, String> {
    let chain = CertificateDer::pem_slice_iter(chain_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("not a PEM certificate chain: {e}"))?;
    if chain.is_empty() {
        return Err("no PEM certificate in the chain".to_string());
    }
    let private =
        PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| format!("no usable PEM key: {e}"))?;
    CertifiedKey::from_der(chain, private, &provider())
        .map_err(|e| format!("the key does not fit the certificate: {e}"))
}

/// Builds a challenge pair from one DER certificate and its PKCS#8 DER key. Not checked
/// against each other: the certificate's critical `acmeIdentifier` extension is one rustls's
/// certificate parser does not know (the ACME server checks it).
pub fn pair_from_der(cert: Vec<u8>, pkcs8_key: Vec<u8>) -> Result<CertifiedKey, String> {
    let private = PrivateKeyDer::Pkcs8(pkcs8_key.into());
    let key = provider()
        .key_provider
        .load_private_key(private)
        .map_err(|e| format!("unusable challenge key: {e}"))?;
    Ok(CertifiedKey::new(vec![CertificateDer::from(cert)], key))
}

fn read_small(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut buf = Vec::new();
    file.take(MAX_PEM_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if buf.len() as u64 > MAX_PEM_BYTES {
        return Err(format!(
            "{}: larger than {MAX_PEM_BYTES} bytes",
            path.display()
        ));
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed `localhost` certificate and its key, in PEM.
    fn pair_pem() -> (String, String) {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["localhost".to_string()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        (cert.pem(), key.serialize_pem())
    }

    #[test]
    fn a_pair_loads_and_each_bad_file_is_named_with_its_problem() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = pair_pem();
        let (_, other_key) = pair_pem();
        let write = |name: &str, text: &[u8]| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let cert_p = write("cert.pem", cert.as_bytes());
        let key_p = write("key.pem", key.as_bytes());
        assert!(load_pair(&cert_p, &key_p).is_ok());
        assert_eq!(load_roots(&cert_p).unwrap().len(), 1);

        let missing = dir.path().join("missing.pem");
        let e = load_pair(&missing, &key_p).err().unwrap();
        assert!(e.starts_with(&missing.display().to_string()), "{e}");
        let empty = write("empty.pem", b"");
        let e = load_pair(&empty, &key_p).err().unwrap();
        assert!(e.contains("empty.pem: no PEM certificate"), "{e}");
        let e = load_roots(&empty).err().unwrap();
        assert!(e.contains("empty.pem: no PEM certificate"), "{e}");
        let e = load_pair(&cert_p, &empty).err().unwrap();
        assert!(e.contains("empty.pem: no usable PEM private key"), "{e}");
        let wrong = write("other.pem", other_key.as_bytes());
        let e = load_pair(&cert_p, &wrong).err().unwrap();
        assert!(e.contains("the key does not fit the certificate"), "{e}");
        let big = write("big.pem", &vec![b'a'; MAX_PEM_BYTES as usize + 1]);
        let e = load_roots(&big).err().unwrap();
        assert!(e.contains("big.pem: larger than"), "{e}");
    }

    #[test]
    fn pairs_are_built_from_pem_in_memory() {
        let (cert, key) = pair_pem();
        assert!(pair_from_pem(cert.as_bytes(), key.as_bytes()).is_ok());
        assert!(pair_from_pem(b"", key.as_bytes()).is_err());
        assert!(pair_from_pem(cert.as_bytes(), b"").is_err());
    }
}
