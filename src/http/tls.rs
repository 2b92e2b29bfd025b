//! TLS for a listener: a certificate chain and private key read from PEM files, served with
//! rustls (the ring provider, ALPN `http/1.1`), and swapped for a freshly read pair on reload
//! (SIGHUP) without dropping a connection. A pair that does not load on reload is logged and
//! the one in use is kept.
//!
//! A listener whose certificate comes from ACME (`crate::acme`) starts without a pair (ordinary
//! handshakes fail until the first certificate is installed) and also answers TLS-ALPN-01
//! validation handshakes (RFC 8737: ALPN `acme-tls/1` only) with the challenge certificate
//! installed for the name the client asks for; such a connection carries no HTTP.
//!
//! Owns reading and checking the files and the rustls server configuration; the handshake's
//! time bound and the connection cap are the accept loop's (`server`). Must not touch: the
//! database, the APIs, global state, the ACME protocol.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject as _;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;

/// The ALPN protocol of TLS-ALPN-01 validation handshakes (RFC 8737).
pub const ACME_TLS_ALPN: &[u8] = b"acme-tls/1";

/// Largest certificate or key file read (a chain of a few certificates is a few KiB).
const MAX_PEM_BYTES: u64 = 1024 * 1024;

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
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

/// The pair in use (replaced as a whole on reload or renewal; none yet for an ACME listener
/// before its first certificate) and the TLS-ALPN-01 challenge pairs by name.
#[derive(Default)]
struct Current {
    pair: RwLock<Option<Arc<CertifiedKey>>>,
    challenges: RwLock<HashMap<String, Arc<CertifiedKey>>>,
}

impl fmt::Debug for Current {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Current")
    }
}

impl ResolvesServerCert for Current {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let acme_only = hello
            .alpn()
            .is_some_and(|mut protocols| protocols.all(|p| p == ACME_TLS_ALPN));
        if acme_only {
            // A validation handshake gets the challenge certificate for its name, or nothing.
            let name = hello.server_name()?.to_ascii_lowercase();
            let challenges = self.challenges.read().unwrap_or_else(|p| p.into_inner());
            return challenges.get(&name).cloned();
        }
        self.pair.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// One listener's TLS: its files (none for ACME), the pair in use and the acceptor built on it.
pub struct ServerTls {
    /// The listener's name in log lines (`chat`, `dtrack`).
    name: &'static str,
    files: Option<(PathBuf, PathBuf)>,
    current: Arc<Current>,
    acceptor: TlsAcceptor,
}

impl ServerTls {
    /// Loads the pair and builds the server configuration (TLS 1.2 and 1.3, ALPN `http/1.1`).
    pub fn new(name: &'static str, cert: &Path, key: &Path) -> Result<ServerTls, String> {
        let pair = load_pair(cert, key)?;
        let tls = ServerTls::build(name, Some((cert.to_path_buf(), key.to_path_buf())), &[])?;
        tls.install(pair);
        Ok(tls)
    }

    /// A listener whose certificate comes from ACME: no pair until [`ServerTls::install`], and
    /// ALPN `acme-tls/1` offered besides `http/1.1` for TLS-ALPN-01 validation.
    pub fn for_acme(name: &'static str) -> Result<ServerTls, String> {
        ServerTls::build(name, None, &[ACME_TLS_ALPN])
    }

    fn build(
        name: &'static str,
        files: Option<(PathBuf, PathBuf)>,
        extra_alpn: &[&[u8]],
    ) -> Result<ServerTls, String> {
        let current = Arc::new(Current::default());
        let mut config = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS set-up failed: {e}"))?
            .with_no_client_auth()
            .with_cert_resolver(Arc::clone(&current) as Arc<dyn ResolvesServerCert>);
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        config
            .alpn_protocols
            .extend(extra_alpn.iter().map(|p| p.to_vec()));
        Ok(ServerTls {
            name,
            files,
            current,
            acceptor: TlsAcceptor::from(Arc::new(config)),
        })
    }

    pub fn acceptor(&self) -> &TlsAcceptor {
        &self.acceptor
    }

    /// The listener's name (`chat`, `dtrack`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Serves `pair` to new connections from now on.
    pub fn install(&self, pair: CertifiedKey) {
        *self.current.pair.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(pair));
    }

    /// Whether a pair is being served (false for an ACME listener before its first one).
    pub fn has_certificate(&self) -> bool {
        self.current
            .pair
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// Answers TLS-ALPN-01 handshakes for `domain` with `pair` until [`Self::clear_challenge`].
    pub fn set_challenge(&self, domain: &str, pair: CertifiedKey) {
        self.current
            .challenges
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(domain.to_ascii_lowercase(), Arc::new(pair));
    }

    pub fn clear_challenge(&self, domain: &str) {
        self.current
            .challenges
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&domain.to_ascii_lowercase());
    }

    /// Reads the files again; a pair that loads replaces the one in use for new connections,
    /// one that does not is logged and the old pair kept. Returns what was logged. An ACME
    /// listener has no files: its certificate is renewed by its own task, so this does nothing.
    pub fn reload(&self) -> Result<(), String> {
        let Some((cert, key)) = &self.files else {
            return Ok(());
        };
        match load_pair(cert, key) {
            Ok(pair) => {
                self.install(pair);
                tracing::info!(listener = self.name, "TLS certificate reloaded");
                Ok(())
            }
            Err(e) => {
                tracing::warn!(
                    listener = self.name,
                    error = %e,
                    "TLS certificate not reloaded; the previous one stays in use"
                );
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_rustls::TlsConnector;
    use tokio_rustls::rustls::pki_types::ServerName;

    /// A CA and a `localhost` certificate it signed: (CA DER, chain PEM, key PEM).
    fn pki() -> (CertificateDer<'static>, String, String) {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let leaf = rcgen::CertificateParams::new(vec!["localhost".to_string()])
            .unwrap()
            .signed_by(&key, &ca)
            .unwrap();
        (ca.der().clone(), leaf.pem(), key.serialize_pem())
    }

    /// One handshake over an in-memory pipe, the client offering `alpn`; the server's result.
    async fn handshake(tls: &ServerTls, ca: &CertificateDer<'static>, alpn: &[u8]) -> bool {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca.clone()).unwrap();
        let mut config = rustls::ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![alpn.to_vec()];
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let name = ServerName::try_from("localhost").unwrap();
        let client = TlsConnector::from(Arc::new(config)).connect(name, client_io);
        let server = tls.acceptor().accept(server_io);
        let (c, s) = tokio::join!(client, server);
        c.is_ok() && s.is_ok()
    }

    #[tokio::test]
    async fn an_acme_listener_refuses_handshakes_until_its_first_certificate() {
        let (ca, chain, key) = pki();
        let tls = ServerTls::for_acme("chat").unwrap();
        assert!(!tls.has_certificate());
        assert!(!handshake(&tls, &ca, b"http/1.1").await);
        // No challenge installed: a validation handshake is refused as well.
        assert!(!handshake(&tls, &ca, ACME_TLS_ALPN).await);
        tls.install(pair_from_pem(chain.as_bytes(), key.as_bytes()).unwrap());
        assert!(tls.has_certificate());
        assert!(handshake(&tls, &ca, b"http/1.1").await);
        // The served pair never answers a validation handshake.
        assert!(!handshake(&tls, &ca, ACME_TLS_ALPN).await);
        // SIGHUP leaves an ACME listener's certificate alone.
        assert!(tls.reload().is_ok());
        assert!(handshake(&tls, &ca, b"http/1.1").await);
    }
}
