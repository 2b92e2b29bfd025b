//! TLS for a listener: a certificate chain and private key read from PEM files, served with
//! rustls (the ring provider, ALPN `http/1.1`), and swapped for a freshly read pair on reload
//! (SIGHUP) without dropping a connection. A pair that does not load on reload is logged and
//! the one in use is kept.
//!
//! Owns reading and checking the files and the rustls server configuration; the handshake's
//! time bound and the connection cap are the accept loop's (`server`). Must not touch: the
//! database, the APIs, global state.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject as _;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;

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

/// The pair in use, replaced as a whole on reload.
struct Current(RwLock<Arc<CertifiedKey>>);

impl fmt::Debug for Current {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Current")
    }
}

impl ResolvesServerCert for Current {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(
            &self.0.read().unwrap_or_else(|p| p.into_inner()),
        ))
    }
}

/// One listener's TLS: its files, the pair in use and the acceptor built on it.
pub struct ServerTls {
    /// The listener's name in log lines (`chat`, `deptrack`).
    name: &'static str,
    cert: PathBuf,
    key: PathBuf,
    current: Arc<Current>,
    acceptor: TlsAcceptor,
}

impl ServerTls {
    /// Loads the pair and builds the server configuration (TLS 1.2 and 1.3, ALPN `http/1.1`).
    pub fn new(name: &'static str, cert: &Path, key: &Path) -> Result<ServerTls, String> {
        let pair = load_pair(cert, key)?;
        let current = Arc::new(Current(RwLock::new(Arc::new(pair))));
        let mut config = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS set-up failed: {e}"))?
            .with_no_client_auth()
            .with_cert_resolver(Arc::clone(&current) as Arc<dyn ResolvesServerCert>);
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(ServerTls {
            name,
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            current,
            acceptor: TlsAcceptor::from(Arc::new(config)),
        })
    }

    pub fn acceptor(&self) -> &TlsAcceptor {
        &self.acceptor
    }

    /// Reads the files again; a pair that loads replaces the one in use for new connections,
    /// one that does not is logged and the old pair kept. Returns what was logged.
    pub fn reload(&self) -> Result<(), String> {
        match load_pair(&self.cert, &self.key) {
            Ok(pair) => {
                *self.current.0.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(pair);
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
