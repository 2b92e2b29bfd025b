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
//! Owns the rustls server configuration (reading and checking the PEM files is `crate::pem`'s,
//! shared with config validation); the handshake's
//! time bound and the connection cap are the accept loop's (`server`). Must not touch: the
//! database, the APIs, global state, the ACME protocol.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;

use crate::pem::{load_pair, provider};

/// The ALPN protocol of TLS-ALPN-01 validation handshakes (RFC 8737).
pub const ACME_TLS_ALPN: &[u8] = b"acme-tls/1";

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
    use crate::pem::pair_from_pem;
    use tokio_rustls::TlsConnector;
    use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};

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
