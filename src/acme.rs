//! Certificates obtained and renewed over ACME (RFC 8555) for a listener configured with
//! `[<listener>.acme] domains`: the account and the certificate kept under
//! `<data_dir>/acme/<listener>/` (keys owner-only), the renewal decision, the order flow with
//! the TLS-ALPN-01 challenge (RFC 8737: the listener itself answers the validation handshake
//! through `http::tls`), and the background task that renews a certificate 30 days before it
//! expires, retries failures with back-off while the old certificate stays in use, and stops
//! with the server's shutdown signal.
//!
//! Owns the ACME protocol (through `instant-acme`) and the files under `acme/`. Must not
//! touch: the database, the APIs, the rustls configuration (it only installs pairs and
//! challenge certificates on `http::tls::ServerTls`), global state. Never logs keys.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use instant_acme::{
    Account, AccountCredentials, AuthorizationStatus, ChallengeType, Identifier, NewAccount,
    NewOrder, OrderStatus, RetryPolicy,
};
use serde::{Deserialize, Serialize};
use tokio::sync::watch;
use tokio_rustls::rustls::sign::CertifiedKey;

use crate::config::AcmeConfig;
use crate::http::tls::ServerTls;

/// A certificate is renewed when less than this remains of its validity.
pub const RENEW_BEFORE: Duration = Duration::from_secs(30 * 24 * 3600);
/// A valid certificate is looked at again at least this often.
pub const CHECK_EVERY: Duration = Duration::from_secs(12 * 3600);
/// The first retry after a failed attempt; each further failure doubles it...
pub const FIRST_RETRY: Duration = Duration::from_secs(60);
/// ...up to this.
pub const MAX_RETRY: Duration = Duration::from_secs(6 * 3600);
/// One whole attempt (account, order, validation, issuance) must finish within this.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(300);

/// What one listener's ACME task works with.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The listener's name (`chat`, `dtrack`), also its directory under `acme/`.
    pub listener: &'static str,
    pub domains: Vec<String>,
    pub contact: String,
    pub directory: String,
    pub ca_root: PathBuf,
    /// `<data_dir>/acme/<listener>`.
    pub dir: PathBuf,
}

impl Settings {
    pub fn new(listener: &'static str, acme: &AcmeConfig, data_dir: &Path) -> Settings {
        Settings {
            listener,
            domains: acme.domains.clone(),
            contact: acme.contact.clone(),
            directory: acme.directory.clone(),
            ca_root: acme.ca_root.clone(),
            dir: data_dir.join("acme").join(listener),
        }
    }

    fn cert_path(&self) -> PathBuf {
        self.dir.join("cert.pem")
    }

    fn key_path(&self) -> PathBuf {
        self.dir.join("key.pem")
    }

    fn account_path(&self) -> PathBuf {
        self.dir.join("account.json")
    }
}

/// Before the Dependency-Track listener was called `dtrack` its ACME state lived in
/// `<data_dir>/acme/deptrack/`. At start, before any ACME task reads its directory, that
/// directory is renamed to `acme/dtrack/` (one `rename`, atomic); when both exist, `dtrack` is
/// used and the old one left alone, which is logged.
pub fn adopt_old_dir(data_dir: &Path) -> Result<(), String> {
    let root = data_dir.join("acme");
    let (old, new) = (root.join("deptrack"), root.join("dtrack"));
    if std::fs::symlink_metadata(&old).is_err() {
        return Ok(());
    }
    if std::fs::symlink_metadata(&new).is_ok() {
        tracing::warn!(
            old = %old.display(),
            used = %new.display(),
            "both the old and the new ACME directory of the dtrack listener exist; the new one is used"
        );
        return Ok(());
    }
    std::fs::rename(&old, &new)
        .map_err(|e| format!("cannot rename {} to {}: {e}", old.display(), new.display()))?;
    tracing::info!(from = %old.display(), to = %new.display(), "ACME directory renamed");
    Ok(())
}

/// What the renewal task needs to know of a certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertInfo {
    pub not_after: SystemTime,
    /// Its DNS names (subject alternative names), lowercase.
    pub names: Vec<String>,
}

/// What to do about a listener's certificate now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// It serves: look again after this long.
    Keep { recheck_in: Duration },
    /// Missing, not for every configured name, or within [`RENEW_BEFORE`] of expiring: order one.
    Obtain,
}

/// The renewal decision for the certificate `cert` (none stored) at `now`.
pub fn decide(cert: Option<&CertInfo>, domains: &[String], now: SystemTime) -> Decision {
    let Some(cert) = cert else {
        return Decision::Obtain;
    };
    if !domains.iter().all(|d| cert.names.contains(d)) {
        return Decision::Obtain;
    }
    let renew_at = cert
        .not_after
        .checked_sub(RENEW_BEFORE)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    match renew_at.duration_since(now) {
        Ok(left) if !left.is_zero() => Decision::Keep {
            recheck_in: left.min(CHECK_EVERY),
        },
        _ => Decision::Obtain,
    }
}

/// How long to wait after the `failures`-th failed attempt in a row (1 for the first).
pub fn retry_delay(failures: u32) -> Duration {
    let factor = 1u32 << failures.saturating_sub(1).min(20);
    FIRST_RETRY.saturating_mul(factor).min(MAX_RETRY)
}

/// Reads the validity end and DNS names of the first certificate of a PEM chain.
pub fn inspect(chain_pem: &[u8]) -> Result<CertInfo, String> {
    let (_, pem) = x509_parser::pem::parse_x509_pem(chain_pem)
        .map_err(|e| format!("not a PEM certificate: {e}"))?;
    let cert = pem
        .parse_x509()
        .map_err(|e| format!("not an X.509 certificate: {e}"))?;
    let end = cert.validity().not_after.timestamp();
    let not_after = SystemTime::UNIX_EPOCH + Duration::from_secs(u64::try_from(end).unwrap_or(0));
    let mut names = Vec::new();
    if let Ok(Some(san)) = cert.subject_alternative_name() {
        for name in &san.value.general_names {
            if let x509_parser::extensions::GeneralName::DNSName(n) = name {
                names.push(n.to_ascii_lowercase());
            }
        }
    }
    Ok(CertInfo { not_after, names })
}

/// The stored certificate and key of `settings`' listener, if both are there and usable.
pub fn load_stored(settings: &Settings) -> Option<(CertifiedKey, CertInfo)> {
    let chain = std::fs::read(settings.cert_path()).ok()?;
    let key = std::fs::read(settings.key_path()).ok()?;
    let loaded =
        crate::pem::pair_from_pem(&chain, &key).and_then(|pair| Ok((pair, inspect(&chain)?)));
    match loaded {
        Ok(x) => Some(x),
        Err(e) => {
            tracing::warn!(listener = settings.listener, error = %e, "stored ACME certificate unusable; a new one will be ordered");
            None
        }
    }
}

/// Writes `bytes` to `path` owner-only, through a temporary file renamed over it.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write as _;
    let tmp = path.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut f = crate::private_files::new_private_file(&tmp)
        .map_err(|e| format!("{}: {e}", tmp.display()))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The stored account: its credentials (which hold its private key) and the directory they
/// belong to; an account for another directory is not reused.
#[derive(Serialize, Deserialize)]
struct StoredAccount {
    directory: String,
    credentials: AccountCredentials,
}

fn account_builder(settings: &Settings) -> Result<instant_acme::AccountBuilder, String> {
    if settings.ca_root.as_os_str().is_empty() {
        Account::builder().map_err(|e| format!("ACME client set-up failed: {e}"))
    } else {
        Account::builder_with_root(&settings.ca_root)
            .map_err(|e| format!("{}: {e}", settings.ca_root.display()))
    }
}

/// The stored account for the configured directory, or a new one (then stored).
async fn account(settings: &Settings) -> Result<Account, String> {
    if let Ok(text) = std::fs::read(settings.account_path())
        && let Ok(stored) = serde_json::from_slice::<StoredAccount>(&text)
        && stored.directory == settings.directory
    {
        return account_builder(settings)?
            .from_credentials(stored.credentials)
            .await
            .map_err(|e| format!("ACME account: {e}"));
    }
    let contact: Vec<&str> = match settings.contact.as_str() {
        "" => Vec::new(),
        c => vec![c],
    };
    let (account, credentials) = account_builder(settings)?
        .create(
            &NewAccount {
                contact: &contact,
                terms_of_service_agreed: true,
                only_return_existing: false,
            },
            settings.directory.clone(),
            None,
        )
        .await
        .map_err(|e| format!("creating the ACME account: {e}"))?;
    let stored = StoredAccount {
        directory: settings.directory.clone(),
        credentials,
    };
    let json = serde_json::to_vec(&stored).map_err(|e| format!("account: {e}"))?;
    write_private(&settings.account_path(), &json)?;
    tracing::info!(
        listener = settings.listener,
        directory = %settings.directory,
        "ACME account created"
    );
    Ok(account)
}

/// The self-signed certificate that answers a TLS-ALPN-01 challenge for `domain`: its name
/// and the `acmeIdentifier` extension holding the SHA-256 of the key authorization.
fn challenge_pair(domain: &str, digest: &[u8]) -> Result<CertifiedKey, String> {
    let mut params = rcgen::CertificateParams::new(vec![domain.to_string()])
        .map_err(|e| format!("challenge certificate: {e}"))?;
    params.custom_extensions = vec![rcgen::CustomExtension::new_acme_identifier(digest)];
    let key = rcgen::KeyPair::generate().map_err(|e| format!("challenge key: {e}"))?;
    let cert = params
        .self_signed(&key)
        .map_err(|e| format!("challenge certificate: {e}"))?;
    crate::pem::pair_from_der(cert.der().to_vec(), key.serialize_der())
}

/// Removes the challenge certificates it was given when dropped (on success, failure or
/// cancellation alike).
struct Challenges<'a> {
    tls: &'a ServerTls,
    domains: Vec<String>,
}

impl Drop for Challenges<'_> {
    fn drop(&mut self) {
        for d in &self.domains {
            self.tls.clear_challenge(d);
        }
    }
}

/// One order: account, authorizations answered over TLS-ALPN-01, a new key and CSR, the
/// issued chain; both stored, then returned for serving.
async fn obtain(settings: &Settings, tls: &ServerTls) -> Result<(CertifiedKey, CertInfo), String> {
    crate::private_files::private_dir(&settings.dir)
        .map_err(|e| format!("{}: {e}", settings.dir.display()))?;
    let account = account(settings).await?;
    let identifiers: Vec<Identifier> = settings
        .domains
        .iter()
        .map(|d| Identifier::Dns(d.clone()))
        .collect();
    let mut order = account
        .new_order(&NewOrder::new(&identifiers))
        .await
        .map_err(|e| format!("new order: {e}"))?;
    let mut challenges = Challenges {
        tls,
        domains: Vec::new(),
    };
    let mut authorizations = order.authorizations();
    while let Some(result) = authorizations.next().await {
        let mut authz = result.map_err(|e| format!("authorization: {e}"))?;
        match authz.status {
            AuthorizationStatus::Pending => {}
            AuthorizationStatus::Valid => continue,
            other => return Err(format!("authorization is {other:?}")),
        }
        let mut challenge = authz
            .challenge(ChallengeType::TlsAlpn01)
            .ok_or("the ACME server offers no tls-alpn-01 challenge")?;
        let domain = challenge.identifier().to_string();
        let pair = challenge_pair(&domain, challenge.key_authorization().digest().as_ref())?;
        tls.set_challenge(&domain, pair);
        challenges.domains.push(domain);
        challenge
            .set_ready()
            .await
            .map_err(|e| format!("challenge: {e}"))?;
    }
    let wait = RetryPolicy::new().timeout(Duration::from_secs(120));
    let status = order
        .poll_ready(&wait)
        .await
        .map_err(|e| format!("validation: {e}"))?;
    drop(challenges);
    if status != OrderStatus::Ready {
        return Err(format!("order is {status:?} after validation"));
    }
    let key_pem = order
        .finalize()
        .await
        .map_err(|e| format!("finalize: {e}"))?;
    let chain_pem = order
        .poll_certificate(&wait)
        .await
        .map_err(|e| format!("certificate: {e}"))?;
    let pair = crate::pem::pair_from_pem(chain_pem.as_bytes(), key_pem.as_bytes())?;
    let info = inspect(chain_pem.as_bytes())?;
    // The key first: a chain is only ever next to its own key once both are written.
    write_private(&settings.key_path(), key_pem.as_bytes())?;
    write_private(&settings.cert_path(), chain_pem.as_bytes())?;
    Ok((pair, info))
}

/// Serves the stored certificate of `settings`' listener, if usable (called at start, before
/// the listener accepts); returns what [`run`] starts from.
pub fn install_stored(settings: &Settings, tls: &ServerTls) -> Option<CertInfo> {
    let (pair, info) = load_stored(settings)?;
    tls.install(pair);
    tracing::info!(
        listener = settings.listener,
        "stored ACME certificate in use"
    );
    Some(info)
}

/// Keeps `tls` served with a valid certificate for `settings.domains` until `stop` turns true,
/// starting from `current` (what [`install_stored`] installed): orders one when [`decide`]
/// says so, and after a failure retries ([`retry_delay`]) while the certificate in use (if
/// any) stays.
pub async fn run(
    settings: Settings,
    tls: Arc<ServerTls>,
    mut current: Option<CertInfo>,
    mut stop: watch::Receiver<bool>,
) {
    let mut failures = 0u32;
    loop {
        let wait = match decide(current.as_ref(), &settings.domains, SystemTime::now()) {
            Decision::Keep { recheck_in } => recheck_in,
            Decision::Obtain => {
                tracing::info!(listener = settings.listener, domains = ?settings.domains, "ordering an ACME certificate");
                let attempt = tokio::time::timeout(ATTEMPT_TIMEOUT, obtain(&settings, &tls));
                let outcome = tokio::select! {
                    r = attempt => r.unwrap_or_else(|_| Err("timed out".to_string())),
                    _ = stop.wait_for(|v| *v) => return,
                };
                match outcome {
                    Ok((pair, info)) => {
                        tls.install(pair);
                        tracing::info!(
                            listener = settings.listener,
                            valid_days = info
                                .not_after
                                .duration_since(SystemTime::now())
                                .unwrap_or_default()
                                .as_secs()
                                / 86_400,
                            "ACME certificate obtained and in use"
                        );
                        current = Some(info);
                        failures = 0;
                        continue;
                    }
                    Err(e) => {
                        failures = failures.saturating_add(1);
                        let delay = retry_delay(failures);
                        tracing::warn!(
                            listener = settings.listener,
                            error = %e,
                            retry_in_secs = delay.as_secs(),
                            "ACME certificate not obtained; the certificate in use (if any) stays"
                        );
                        delay
                    }
                }
            }
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = stop.wait_for(|v| *v) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: Duration = Duration::from_secs(86_400);

    fn cert(days_left: u64, names: &[&str], now: SystemTime) -> CertInfo {
        CertInfo {
            not_after: now + DAY * days_left as u32,
            names: names.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn the_old_acme_directory_is_renamed_unless_the_new_one_exists() {
        let data = tempfile::tempdir().unwrap();
        let acme = data.path().join("acme");
        // Nothing there: nothing to do.
        adopt_old_dir(data.path()).unwrap();
        assert!(!acme.exists());
        std::fs::create_dir_all(acme.join("deptrack")).unwrap();
        std::fs::write(acme.join("deptrack/cert.pem"), "old").unwrap();
        adopt_old_dir(data.path()).unwrap();
        assert!(!acme.join("deptrack").exists());
        assert_eq!(
            std::fs::read_to_string(acme.join("dtrack/cert.pem")).unwrap(),
            "old"
        );
        // Both: the new one is kept as it is and the old one left alone.
        std::fs::create_dir_all(acme.join("deptrack")).unwrap();
        std::fs::write(acme.join("deptrack/cert.pem"), "older").unwrap();
        adopt_old_dir(data.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(acme.join("dtrack/cert.pem")).unwrap(),
            "old"
        );
        assert!(acme.join("deptrack/cert.pem").exists());
    }

    #[test]
    fn a_missing_certificate_is_ordered() {
        let now = SystemTime::now();
        assert_eq!(decide(None, &["a.example".into()], now), Decision::Obtain);
    }

    #[test]
    fn a_certificate_with_more_than_30_days_left_is_kept_and_rechecked_within_12_hours() {
        let now = SystemTime::now();
        let domains = vec!["a.example".to_string()];
        let c = cert(89, &["a.example"], now);
        assert_eq!(
            decide(Some(&c), &domains, now),
            Decision::Keep {
                recheck_in: CHECK_EVERY
            }
        );
        // 30 days and one hour left: looked at again in an hour, when renewal is due.
        let c = CertInfo {
            not_after: now + RENEW_BEFORE + Duration::from_secs(3600),
            ..c
        };
        assert_eq!(
            decide(Some(&c), &domains, now),
            Decision::Keep {
                recheck_in: Duration::from_secs(3600)
            }
        );
    }

    #[test]
    fn a_certificate_within_30_days_of_expiry_or_expired_is_renewed() {
        let now = SystemTime::now();
        let domains = vec!["a.example".to_string()];
        for days in [30, 29, 1, 0] {
            let c = cert(days, &["a.example"], now);
            assert_eq!(decide(Some(&c), &domains, now), Decision::Obtain, "{days}");
        }
        let expired = CertInfo {
            not_after: now - DAY,
            names: domains.clone(),
        };
        assert_eq!(decide(Some(&expired), &domains, now), Decision::Obtain);
    }

    #[test]
    fn a_certificate_missing_a_configured_name_is_replaced() {
        let now = SystemTime::now();
        let c = cert(80, &["a.example"], now);
        let domains = vec!["a.example".to_string(), "b.example".to_string()];
        assert_eq!(decide(Some(&c), &domains, now), Decision::Obtain);
    }

    #[test]
    fn retries_back_off_from_a_minute_to_six_hours() {
        assert_eq!(retry_delay(1), FIRST_RETRY);
        assert_eq!(retry_delay(2), FIRST_RETRY * 2);
        assert_eq!(retry_delay(5), FIRST_RETRY * 16);
        assert_eq!(retry_delay(9), FIRST_RETRY * 256);
        assert_eq!(retry_delay(10), MAX_RETRY);
        assert_eq!(retry_delay(u32::MAX), MAX_RETRY);
    }

    #[test]
    fn inspect_reads_expiry_and_names_of_the_leaf() {
        let mut params =
            rcgen::CertificateParams::new(vec!["Chat.Example.com".into(), "b.example".into()])
                .unwrap();
        params.not_after = rcgen::date_time_ymd(2031, 5, 6);
        let key = rcgen::KeyPair::generate().unwrap();
        let pem = params.self_signed(&key).unwrap().pem();
        let info = inspect(pem.as_bytes()).unwrap();
        assert_eq!(info.names, vec!["chat.example.com", "b.example"]);
        let secs = info
            .not_after
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        // 2031-05-06T00:00:00Z
        assert_eq!(secs, 1_935_792_000);
        assert!(inspect(b"not a certificate").is_err());
    }

    #[test]
    fn stored_files_are_owner_only_and_a_stored_pair_is_loaded() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let acme = AcmeConfig {
            domains: vec!["chat.example.com".into()],
            contact: String::new(),
            directory: crate::config::LETS_ENCRYPT_DIRECTORY.into(),
            ca_root: PathBuf::new(),
        };
        let settings = Settings::new("chat", &acme, dir.path());
        assert!(load_stored(&settings).is_none());
        crate::private_files::private_dir(&settings.dir).unwrap();
        let params = rcgen::CertificateParams::new(vec!["chat.example.com".into()]).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        write_private(&settings.key_path(), key.serialize_pem().as_bytes()).unwrap();
        write_private(&settings.cert_path(), cert.pem().as_bytes()).unwrap();
        let mode = std::fs::metadata(settings.key_path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let (_, info) = load_stored(&settings).expect("the stored pair loads");
        assert_eq!(info.names, vec!["chat.example.com"]);
    }
}
