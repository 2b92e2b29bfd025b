//! Downloading vulnerability data (OSV exports, the EPSS feed) to a file: [`download`] is one
//! `GET` through `ureq` (TLS with rustls/ring and the Web PKI roots), through the proxy the
//! process environment names for each hop ([`crate::config::ProxyEnv`]), following at most
//! [`MAX_REDIRECTS`] redirects itself so each hop is checked ([`next_hop`]: no `https://` to
//! `http://` downgrade, no loop), streamed within a size bound and timeouts ([`Limits`]).
//!
//! Blocking: callers run it on a blocking thread. Errors are sentences for the log naming the
//! URL, the hop and the reason; a proxy is named by scheme, host and port, never with its
//! credentials. Must not touch HTTP server types, SQL or the real environment.

use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::config::{ProxyChoice, ProxyEnv};

/// Redirects followed at most in one download.
pub const MAX_REDIRECTS: usize = 5;
/// Longest redirect target accepted.
const MAX_LOCATION: usize = 8 * 1024;

/// How long and how large one download may be.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes written at most; a larger answer fails the download.
    pub max_bytes: u64,
    /// To connect (to the server or the proxy, TLS included), and the longest wait for any
    /// one read of the answer.
    pub connect: Duration,
    /// From the sent request to the answer's whole head.
    pub header: Duration,
    /// The whole body.
    pub body: Duration,
}

impl Limits {
    /// Limits for downloads of at most `max_bytes`: 60 s to connect and to the answer's head,
    /// 60 s of silence at most, 4 hours for the whole body.
    pub fn of(max_bytes: u64) -> Limits {
        Limits {
            max_bytes,
            connect: Duration::from_secs(60),
            header: Duration::from_secs(60),
            body: Duration::from_secs(4 * 3600),
        }
    }
}

/// An absolute `http://` or `https://` URL, taken apart.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub https: bool,
    /// As written in the URL (an IPv6 address in brackets), lowercase.
    pub host: String,
    pub port: u16,
    /// Path and query, starting with `/`; the fragment is dropped.
    pub path: String,
}

impl Target {
    pub fn parse(url: &str) -> Result<Target, String> {
        let (https, rest) = if let Some(r) = strip_prefix_ci(url, "https://") {
            (true, r)
        } else if let Some(r) = strip_prefix_ci(url, "http://") {
            (false, r)
        } else {
            return Err(format!("{url}: not an http:// or https:// URL"));
        };
        let rest = rest.split('#').next().unwrap_or("");
        let cut = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(cut);
        if authority.contains('@') {
            return Err(format!("{url}: credentials in the URL are not supported"));
        }
        let default_port = if https { 443 } else { 80 };
        let (host, port) = if authority.starts_with('[') {
            let end = authority
                .find(']')
                .ok_or_else(|| format!("{url}: a bad IPv6 address"))?;
            let (h, after) = authority.split_at(end + 1);
            match after.strip_prefix(':') {
                Some(p) => (h, port_of(url, p)?),
                None if after.is_empty() => (h, default_port),
                None => return Err(format!("{url}: a bad host")),
            }
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, port_of(url, p)?),
                None => (authority, default_port),
            }
        };
        let ok = |b: u8| b.is_ascii_alphanumeric() || b"-._[]:".contains(&b);
        let bracketed = host.starts_with('[');
        if host.is_empty()
            || host.len() > 255
            || !host.bytes().all(ok)
            || (!bracketed && host.contains([':', '[', ']']))
        {
            return Err(format!("{url}: no usable host"));
        }
        let path = if path.starts_with('/') {
            path.to_string()
        } else {
            format!("/{path}")
        };
        if path.bytes().any(|b| b <= b' ' || b == 0x7f) {
            return Err(format!("{url}: spaces or control characters in the path"));
        }
        Ok(Target {
            https,
            host: host.to_ascii_lowercase(),
            port,
            path,
        })
    }

    fn origin(&self) -> String {
        let scheme = if self.https { "https" } else { "http" };
        if self.port == if self.https { 443 } else { 80 } {
            format!("{scheme}://{}", self.host)
        } else {
            format!("{scheme}://{}:{}", self.host, self.port)
        }
    }

    pub fn url(&self) -> String {
        format!("{}{}", self.origin(), self.path)
    }
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    (s.len() >= prefix.len() && s.is_char_boundary(prefix.len()))
        .then(|| s.split_at(prefix.len()))
        .filter(|(head, _)| head.eq_ignore_ascii_case(prefix))
        .map(|(_, rest)| rest)
}

fn port_of(url: &str, p: &str) -> Result<u16, String> {
    p.parse::<u16>()
        .ok()
        .filter(|p| *p != 0)
        .ok_or_else(|| format!("{url}: bad port {p:?}"))
}

/// Whether a status is a redirect this client follows.
fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Where a redirect from `from` to `location` goes: the `Location` resolved against `from`
/// (absolute, scheme-relative, absolute path or relative path); refused when it is not
/// http(s), downgrades `https://` to `http://`, or is a URL already visited (`visited` holds
/// every URL of this download so far).
pub fn next_hop(from: &Target, location: &str, visited: &[String]) -> Result<Target, String> {
    let location = location.trim();
    if location.is_empty() {
        return Err("a redirect without a Location".into());
    }
    if location.len() > MAX_LOCATION {
        return Err("a redirect to an overlong Location".into());
    }
    let has_scheme = location.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
            && !s.contains('/')
    });
    let absolute = if has_scheme {
        location.to_string()
    } else if location.starts_with("//") {
        format!("{}:{location}", if from.https { "https" } else { "http" })
    } else if location.starts_with('/') {
        format!("{}{location}", from.origin())
    } else {
        let base = from.path.split('?').next().unwrap_or("/");
        let dir = &base[..base.rfind('/').map_or(0, |i| i + 1)];
        format!("{}{dir}{location}", from.origin())
    };
    let to = Target::parse(&absolute).map_err(|e| format!("a redirect to {e}"))?;
    if from.https && !to.https {
        return Err(format!(
            "a redirect from https:// to {} (a downgrade to plain http:// is refused)",
            to.url()
        ));
    }
    if visited.contains(&to.url()) {
        return Err(format!("a redirect loop back to {}", to.url()));
    }
    Ok(to)
}

/// [`download`] on a blocking thread, with [`Limits::of`] `max_bytes`: what the scheduled
/// fetchers call.
pub async fn download_blocking(
    url: String,
    dest: std::path::PathBuf,
    proxies: ProxyEnv,
    max_bytes: u64,
) -> Result<u64, String> {
    let limits = Limits::of(max_bytes);
    tokio::task::spawn_blocking(move || download(&url, &dest, &proxies, &limits))
        .await
        .map_err(|_| "the download panicked".to_string())?
}

/// `GET url` into `dest` (created new, left in place on failure for the caller to remove);
/// the number of bytes written. Each hop goes through the proxy `proxies` selects for its
/// scheme and host.
pub fn download(
    url: &str,
    dest: &Path,
    proxies: &ProxyEnv,
    limits: &Limits,
) -> Result<u64, String> {
    let mut target = Target::parse(url)?;
    let mut visited = vec![target.url()];
    for hop in 0..=MAX_REDIRECTS {
        let proxy = proxies.select(target.https, &target.host, target.port);
        let here = describe(url, &target, hop, proxy.as_ref());
        let mut response = request(&target, proxy.as_ref(), limits)
            .map_err(|e| format!("{here}: {}", scrub(&e, proxy.as_ref())))?;
        let status = response.status().as_u16();
        if is_redirect(status) {
            if hop == MAX_REDIRECTS {
                return Err(format!("{here}: more than {MAX_REDIRECTS} redirects"));
            }
            let location = response
                .headers()
                .get("location")
                .map(|v| String::from_utf8_lossy(v.as_bytes()).to_string())
                .unwrap_or_default();
            target = next_hop(&target, &location, &visited)
                .map_err(|e| format!("{here}: answered {status} with {e}"))?;
            tracing::debug!(from = %visited.last().map_or("", |s| s.as_str()), to = %target.url(), status, "following a redirect");
            visited.push(target.url());
            continue;
        }
        if status != 200 {
            let reason = response
                .status()
                .canonical_reason()
                .unwrap_or("unexpected status");
            return Err(format!("{here}: answered {status} {reason}"));
        }
        return save(response.body_mut().as_reader(), dest, limits)
            .map_err(|e| format!("{here}: {}", scrub(&e, proxy.as_ref())));
    }
    Err(format!("{url}: more than {MAX_REDIRECTS} redirects"))
}

/// `GET <url>` for the error messages: the URL asked for, the hop and the proxy.
fn describe(url: &str, target: &Target, hop: usize, proxy: Option<&ProxyChoice>) -> String {
    let mut s = format!("GET {url}");
    if hop > 0 {
        s.push_str(&format!(" (redirect {hop}: {})", target.url()));
    }
    if let Some(p) = proxy {
        s.push_str(&format!(" via proxy {} from {}", p.shown(), p.variable));
    }
    s
}

/// An error text without the proxy's credentials, should the client have named them.
fn scrub(text: &str, proxy: Option<&ProxyChoice>) -> String {
    match proxy {
        Some(p) if p.url != p.shown() && text.contains(&p.url) => text.replace(&p.url, &p.shown()),
        _ => text.to_string(),
    }
}

fn request(
    target: &Target,
    proxy: Option<&ProxyChoice>,
    limits: &Limits,
) -> Result<ureq::http::Response<ureq::Body>, String> {
    let proxy = proxy
        .map(|p| {
            let proxy = ureq::Proxy::new(&p.url).map_err(|_| {
                format!("{} in {} is not a usable proxy URL", p.shown(), p.variable)
            })?;
            match proxy.protocol() {
                ureq::ProxyProtocol::Http | ureq::ProxyProtocol::Https => Ok(proxy),
                _ => Err(format!(
                    "{} in {}: only http:// and https:// proxies are supported",
                    p.shown(),
                    p.variable
                )),
            }
        })
        .transpose()?;
    let config = ureq::Agent::config_builder()
        .proxy(proxy)
        .max_redirects(0)
        .http_status_as_error(false)
        .user_agent("outpost")
        .accept_encoding("identity")
        .timeout_connect(Some(limits.connect))
        .timeout_send_request(Some(limits.header))
        .timeout_recv_response(Some(limits.header))
        .timeout_per_read(Some(limits.connect))
        .timeout_recv_body(Some(limits.body))
        .build();
    let agent: ureq::Agent = config.into();
    agent.get(target.url()).call().map_err(|e| e.to_string())
}

/// Streams `body` into a new file at `dest`, within `limits.max_bytes`.
fn save(body: impl std::io::Read, dest: &Path, limits: &Limits) -> Result<u64, String> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dest)
        .map_err(|e| format!("cannot create {}: {e}", dest.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let copied = std::io::copy(&mut body.take(limits.max_bytes.saturating_add(1)), &mut out)
        .map_err(|e| format!("downloading: {e}"))?;
    if copied > limits.max_bytes {
        return Err(format!("larger than {} bytes", limits.max_bytes));
    }
    out.flush()
        .map_err(|e| format!("writing {}: {e}", dest.display()))?;
    Ok(copied)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(url: &str) -> Target {
        Target::parse(url).unwrap()
    }

    #[test]
    fn urls_are_taken_apart() {
        assert_eq!(
            t("https://OSV.example/npm/all.zip#x"),
            Target {
                https: true,
                host: "osv.example".into(),
                port: 443,
                path: "/npm/all.zip".into()
            }
        );
        let u = t("http://127.0.0.1:8080");
        assert_eq!(
            (u.https, u.host.as_str(), u.port, u.path.as_str()),
            (false, "127.0.0.1", 8080, "/")
        );
        let u = t("http://[::1]:81/a?b=c");
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("[::1]", 81, "/a?b=c")
        );
        assert_eq!(u.url(), "http://[::1]:81/a?b=c");
        assert_eq!(t("HTTPS://h:443/x").url(), "https://h/x");
        for bad in [
            "ftp://x/y",
            "http://user@host/",
            "http://user:pw@host/",
            "http://host:99999/",
            "http://host:0/",
            "http:///path",
            "http://ho st/",
            "http://h/a b",
            "http://[::1/",
            "http://a:b:80/",
        ] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn redirects_resolve_like_a_browser() {
        let from = t("https://osv.example/npm/all.zip?x=1");
        let hop = |loc: &str| next_hop(&from, loc, &[]).map(|t| t.url());
        assert_eq!(
            hop("https://cdn.example/a.zip").unwrap(),
            "https://cdn.example/a.zip"
        );
        assert_eq!(
            hop("//cdn.example:8443/a").unwrap(),
            "https://cdn.example:8443/a"
        );
        assert_eq!(
            hop("/other/all.zip").unwrap(),
            "https://osv.example/other/all.zip"
        );
        assert_eq!(
            hop("v2/all.zip").unwrap(),
            "https://osv.example/npm/v2/all.zip"
        );
        assert_eq!(hop("  /trimmed  ").unwrap(), "https://osv.example/trimmed");
        let plain = t("http://127.0.0.1:9000/npm/all.zip");
        assert_eq!(
            next_hop(&plain, "/moved/all.zip", &[]).unwrap().url(),
            "http://127.0.0.1:9000/moved/all.zip"
        );
        // Plain http:// may go up to https://.
        assert!(
            next_hop(&plain, "https://secure.example/", &[])
                .unwrap()
                .https
        );
    }

    #[test]
    fn redirects_that_are_refused() {
        let from = t("https://osv.example/npm/all.zip");
        let err = next_hop(&from, "http://osv.example/npm/all.zip", &[]).unwrap_err();
        assert!(err.contains("downgrade"), "{err}");
        // Scheme-relative from https stays https.
        assert!(next_hop(&from, "//x.example/", &[]).unwrap().https);
        let err = next_hop(&from, "ftp://osv.example/x", &[]).unwrap_err();
        assert!(err.contains("not an http:// or https:// URL"), "{err}");
        let err = next_hop(&from, "", &[]).unwrap_err();
        assert!(err.contains("without a Location"), "{err}");
        let long = format!("/{}", "a".repeat(MAX_LOCATION));
        assert!(
            next_hop(&from, &long, &[])
                .unwrap_err()
                .contains("overlong")
        );
        // A loop: back to any URL already visited.
        let visited = vec![
            "https://osv.example/npm/all.zip".to_string(),
            "https://osv.example/b".to_string(),
        ];
        let err = next_hop(&t("https://osv.example/b"), "/npm/all.zip", &visited).unwrap_err();
        assert!(err.contains("loop"), "{err}");
        assert!(next_hop(&t("https://osv.example/b"), "/c", &visited).is_ok());
        let err = next_hop(&from, "https://user:pw@x.example/", &[]).unwrap_err();
        assert!(err.contains("credentials"), "{err}");
    }

    #[test]
    fn only_the_five_redirect_statuses_are_followed() {
        for s in [301, 302, 303, 307, 308] {
            assert!(is_redirect(s));
        }
        for s in [200, 300, 304, 305, 306, 404] {
            assert!(!is_redirect(s));
        }
    }

    #[test]
    fn errors_never_carry_proxy_credentials() {
        let p = ProxyChoice {
            variable: "https_proxy",
            url: "http://u:secret@proxy.corp:3128".into(),
        };
        let s = scrub("failed at http://u:secret@proxy.corp:3128", Some(&p));
        assert_eq!(s, "failed at http://proxy.corp:3128");
        let d = describe("https://osv.dev/a", &t("https://cdn/b"), 2, Some(&p));
        assert_eq!(
            d,
            "GET https://osv.dev/a (redirect 2: https://cdn/b) via proxy http://proxy.corp:3128 from https_proxy"
        );
    }

    #[test]
    fn oversized_bodies_fail() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::of(4);
        assert_eq!(
            save(&b"abcd"[..], &dir.path().join("a"), &limits).unwrap(),
            4
        );
        let err = save(&b"abcde"[..], &dir.path().join("b"), &limits).unwrap_err();
        assert!(err.contains("larger than 4 bytes"), "{err}");
        // The destination is created new, never overwritten.
        assert!(save(&b"x"[..], &dir.path().join("a"), &limits).is_err());
    }
}
