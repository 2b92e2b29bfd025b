//! The listeners' TLS and ACME settings: what `tls_cert`/`tls_key` and `[<listener>.acme]`
//! mean ([`TlsFiles`], [`AcmeConfig::enabled`]) and the checks a loaded file gets (both files
//! or neither, readable PEM, ACME names and exclusivity).
//!
//! Must not touch: the network, the database, or the ACME state under the data directory.

use std::path::Path;

use super::{AcmeConfig, ChatConfig, Config, DtrackConfig};

impl AcmeConfig {
    /// Whether the listener's certificate comes from ACME.
    pub fn enabled(&self) -> bool {
        !self.domains.is_empty()
    }
}

/// Let's Encrypt's production directory, the default ACME server.
pub const LETS_ENCRYPT_DIRECTORY: &str = "https://acme-v02.api.letsencrypt.org/directory";

/// Most names one ACME certificate is requested for (Let's Encrypt's limit).
pub const MAX_ACME_DOMAINS: usize = 100;

/// A DNS name an ACME certificate can be issued for with TLS-ALPN-01: lowercase letters,
/// digits and hyphens in dot-separated labels of 1 to 63 characters, at most 253 in all, not
/// an IP address and no wildcard (TLS-ALPN-01 cannot prove those).
pub fn acme_domain_ok(d: &str) -> bool {
    d.len() <= 253
        && !d.is_empty()
        && d.parse::<std::net::IpAddr>().is_err()
        && d.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// A listener's certificate and key files, when it is served over TLS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlsFiles<'a> {
    pub cert: &'a Path,
    pub key: &'a Path,
}

/// Both files given: the listener is served over TLS.
fn tls_files<'a>(cert: &'a Path, key: &'a Path) -> Option<TlsFiles<'a>> {
    (!cert.as_os_str().is_empty() && !key.as_os_str().is_empty()).then_some(TlsFiles { cert, key })
}

impl ChatConfig {
    /// The chat listener's TLS files, if it is served over HTTPS.
    pub fn tls(&self) -> Option<TlsFiles<'_>> {
        tls_files(&self.tls_cert, &self.tls_key)
    }
}

impl DtrackConfig {
    /// The Dependency-Track listener's TLS files, if it is served over HTTPS.
    pub fn tls(&self) -> Option<TlsFiles<'_>> {
        tls_files(&self.tls_cert, &self.tls_key)
    }
}

/// Checks each listener's TLS files: both or neither given, and when both, readable PEM files
/// whose key fits the certificate; and its ACME settings (see [`check_acme`]).
pub(super) fn check_tls(cfg: &Config, problems: &mut Vec<String>) {
    let listeners = [
        (
            "chat",
            &cfg.chat.tls_cert,
            &cfg.chat.tls_key,
            &cfg.chat.acme,
        ),
        (
            "dtrack",
            &cfg.dtrack.tls_cert,
            &cfg.dtrack.tls_key,
            &cfg.dtrack.acme,
        ),
    ];
    for (section, cert, key, acme) in listeners {
        check_acme(section, acme, cert, problems);
        match (cert.as_os_str().is_empty(), key.as_os_str().is_empty()) {
            (true, true) => {}
            (false, false) => {
                if let Err(e) = crate::pem::load_pair(cert, key) {
                    problems.push(format!("{section}.tls_cert/tls_key: {e}"));
                }
            }
            _ => problems.push(format!(
                "{section}.tls_cert and {section}.tls_key must be given together"
            )),
        }
    }
}

/// A listener's `[<section>.acme]`: the other keys only with `domains`, not together with
/// `tls_cert`/`tls_key`, at most [`MAX_ACME_DOMAINS`] distinct names, and a readable
/// `ca_root` holding PEM certificates.
fn check_acme(section: &str, acme: &AcmeConfig, cert: &Path, problems: &mut Vec<String>) {
    if !acme.enabled() {
        let defaults = Config::default();
        let unchanged = acme.contact.is_empty()
            && acme.directory == defaults.chat.acme.directory
            && acme.ca_root.as_os_str().is_empty();
        if !unchanged {
            problems.push(format!(
                "{section}.acme: contact, directory and ca_root need {section}.acme.domains"
            ));
        }
        return;
    }
    if !cert.as_os_str().is_empty() {
        problems.push(format!(
            "{section}.acme.domains and {section}.tls_cert/tls_key are exclusive: the \
             certificate comes either from ACME or from files"
        ));
    }
    if acme.domains.len() > MAX_ACME_DOMAINS {
        problems.push(format!(
            "{section}.acme.domains must have at most {MAX_ACME_DOMAINS} names"
        ));
    }
    for (i, d) in acme.domains.iter().enumerate() {
        if acme.domains[..i].contains(d) {
            problems.push(format!("{section}.acme.domains names {d} twice"));
        }
    }
    if !acme.ca_root.as_os_str().is_empty()
        && let Err(e) = crate::pem::load_roots(&acme.ca_root)
    {
        problems.push(format!("{section}.acme.ca_root: {e}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse;

    #[test]
    fn acme_settings_are_parsed_with_lets_encrypt_as_the_default_directory() {
        let cfg = parse(
            "[chat]\nlisten = \"0.0.0.0:443\"\n[chat.acme]\ndomains = [\"chat.example.com\", \"b.example.com\"]\ncontact = \"mailto:admin@example.com\"\n",
        )
        .unwrap();
        assert!(cfg.chat.acme.enabled());
        assert_eq!(cfg.chat.acme.domains, ["chat.example.com", "b.example.com"]);
        assert_eq!(cfg.chat.acme.directory, LETS_ENCRYPT_DIRECTORY);
        assert_eq!(cfg.chat.external_url, "https://chat.example.com");
        assert!(!cfg.dtrack.acme.enabled());
        assert_eq!(parse(&cfg.to_redacted_toml()).unwrap(), cfg);
        let cfg =
            parse("[chat]\nlisten = \"127.0.0.1:8443\"\n[chat.acme]\ndomains = [\"localhost\"]\n")
                .unwrap();
        assert_eq!(cfg.chat.external_url, "https://localhost:8443");
    }

    #[test]
    fn every_acme_problem_is_reported_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let not_pem = dir.path().join("root.txt");
        std::fs::write(&not_pem, "hello").unwrap();
        let text = format!(
            "[chat]\ntls_cert = \"/x/cert.pem\"\ntls_key = \"/x/key.pem\"\n[chat.acme]\ndomains = [\"a.example.com\"]\n\
             [dtrack.acme]\ndomains = [\"*.example.com\"]\ncontact = \"admin@example.com\"\ndirectory = \"http://acme.test/dir\"\n\
             ca_root = \"{}\"\nbogus = 1\n",
            not_pem.display()
        );
        let err = parse(&text).unwrap_err();
        let all = err.problems.join("\n");
        for want in [
            "unknown key `dtrack.acme.bogus`",
            "dtrack.acme.domains must be a list of DNS names",
            "dtrack.acme.contact must be empty or a mailto: address",
            "dtrack.acme.directory must be an https:// URL",
            "chat.acme.domains and chat.tls_cert/tls_key are exclusive",
            "dtrack.acme: contact, directory and ca_root need dtrack.acme.domains",
        ] {
            assert!(all.contains(want), "{want} missing from:\n{all}");
        }
        let err = parse(&format!(
            "[chat.acme]\ndomains = [\"a.example.com\", \"a.example.com\"]\nca_root = \"{}\"\n",
            not_pem.display()
        ))
        .unwrap_err();
        assert_eq!(err.problems.len(), 2, "{:?}", err.problems);
        assert!(err.problems[0].contains("names a.example.com twice"));
        assert!(err.problems[1].starts_with("chat.acme.ca_root: "));
        assert!(parse("[chat.acme]\ndomains = \"a.example.com\"\n").is_err());
    }

    #[test]
    fn acme_domain_names_are_plain_lowercase_dns_names() {
        for ok in [
            "localhost",
            "chat.example.com",
            "a-b.example",
            "xn--bcher-kva.example",
        ] {
            assert!(acme_domain_ok(ok), "{ok}");
        }
        for bad in [
            "",
            "*.example.com",
            "Chat.example.com",
            "127.0.0.1",
            "::1",
            "a..b",
            "-a.example",
            "a b",
            &"a".repeat(64),
        ] {
            assert!(!acme_domain_ok(bad), "{bad}");
        }
    }
}
