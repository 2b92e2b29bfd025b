//! The outgoing proxy settings of the process environment, read as curl reads them:
//! [`ProxyEnv::from_lookup`] takes the variables through a lookup function (the command line
//! passes the real environment; tests pass their own), and [`ProxyEnv::select`] says which
//! proxy, if any, a request to a given scheme, host and port goes through.
//!
//! - `https_proxy` (or `HTTPS_PROXY`) for `https://` URLs; `http_proxy` for `http://` URLs,
//!   lowercase only (`HTTP_PROXY` is ignored, as curl ignores it: a CGI program receives a
//!   request's `Proxy:` header as `HTTP_PROXY`); `all_proxy` (or `ALL_PROXY`) for either when
//!   the scheme's own is unset. Empty values count as unset.
//! - `no_proxy` (or `NO_PROXY`): comma-separated; `*` alone bypasses every proxy; a name
//!   matches itself and its subdomains, with or without a leading dot; `host:port` matches that
//!   port only; IP addresses match themselves and CIDR ranges (`10.0.0.0/8`, `fd00::/8`) the
//!   addresses inside them.
//!
//! Must not touch: the network or the real environment (the caller does the lookup). The
//! proxy URLs may carry credentials: `Debug` and [`ProxyChoice::shown`] never print them.

use std::net::IpAddr;

/// At most this many `no_proxy` entries are read; the rest are ignored.
const MAX_NO_PROXY_ENTRIES: usize = 1024;
/// Longer values of any of the variables are ignored, as if unset.
const MAX_VALUE_LEN: usize = 64 * 1024;

/// One `no_proxy` entry.
#[derive(Clone, Debug, PartialEq)]
enum Bypass {
    /// `*`: no proxy at all.
    Everything,
    /// A name and its subdomains (lowercase, without leading or trailing dots), on any port
    /// or on one.
    Domain(String, Option<u16>),
    /// One address, on any port or on one.
    Address(IpAddr, Option<u16>),
    /// A CIDR range.
    Range(IpAddr, u8),
}

/// The proxy variables of one process environment.
#[derive(Clone, Default, PartialEq)]
pub struct ProxyEnv {
    /// `https_proxy` / `HTTPS_PROXY`, with the name it came from.
    https: Option<(&'static str, String)>,
    /// `http_proxy` (lowercase only).
    http: Option<(&'static str, String)>,
    /// `all_proxy` / `ALL_PROXY`.
    all: Option<(&'static str, String)>,
    no_proxy: Vec<Bypass>,
}

/// The proxy one request goes through.
#[derive(Clone, PartialEq)]
pub struct ProxyChoice {
    /// The variable it was read from (`https_proxy`, ...).
    pub variable: &'static str,
    /// The proxy URL as given, credentials included: for the HTTP client only.
    pub url: String,
}

impl ProxyChoice {
    /// The proxy as logs and errors may name it: scheme, host and port, no credentials.
    pub fn shown(&self) -> String {
        let (scheme, rest) = match self.url.split_once("://") {
            Some((s, r)) => (s, r),
            None => ("http", self.url.as_str()),
        };
        // After the last `@` first: a password may hold `/` or `?` unencoded.
        let after = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
        let host = after.split(['/', '?', '#']).next().unwrap_or("");
        format!("{scheme}://{host}")
    }
}

impl std::fmt::Debug for ProxyChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.shown(), self.variable)
    }
}

impl std::fmt::Debug for ProxyEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = |v: &Option<(&'static str, String)>| {
            v.as_ref().map(|(name, url)| {
                ProxyChoice {
                    variable: name,
                    url: url.clone(),
                }
                .shown()
            })
        };
        f.debug_struct("ProxyEnv")
            .field("https", &shown(&self.https))
            .field("http", &shown(&self.http))
            .field("all", &shown(&self.all))
            .field("no_proxy", &self.no_proxy)
            .finish()
    }
}

impl ProxyEnv {
    /// Reads the variables through `lookup` (the environment's `var`, or a test's map).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> ProxyEnv {
        let first = |names: &[&'static str]| {
            names.iter().find_map(|n| {
                lookup(n)
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty() && v.len() <= MAX_VALUE_LEN)
                    .map(|v| (*n, v))
            })
        };
        let no_proxy = first(&["no_proxy", "NO_PROXY"])
            .map(|(_, v)| parse_no_proxy(&v))
            .unwrap_or_default();
        ProxyEnv {
            https: first(&["https_proxy", "HTTPS_PROXY"]),
            http: first(&["http_proxy"]),
            all: first(&["all_proxy", "ALL_PROXY"]),
            no_proxy,
        }
    }

    /// Whether any proxy is set at all.
    pub fn is_empty(&self) -> bool {
        self.https.is_none() && self.http.is_none() && self.all.is_none()
    }

    /// The proxy for a request to `host:port` over `https` or plain `http`; `None` to connect
    /// directly (no proxy set for the scheme, or `no_proxy` names the host). `host` may be an
    /// IPv6 address in brackets.
    pub fn select(&self, https: bool, host: &str, port: u16) -> Option<ProxyChoice> {
        let own = if https { &self.https } else { &self.http };
        let (variable, url) = own.as_ref().or(self.all.as_ref())?;
        if self.bypassed(host, port) {
            return None;
        }
        Some(ProxyChoice {
            variable,
            url: url.clone(),
        })
    }

    /// Whether `no_proxy` names `host:port`.
    fn bypassed(&self, host: &str, port: u16) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let ip = host.parse::<IpAddr>().ok();
        let port_ok = |p: &Option<u16>| p.is_none_or(|p| p == port);
        self.no_proxy.iter().any(|b| match b {
            Bypass::Everything => true,
            Bypass::Domain(d, p) => {
                ip.is_none()
                    && port_ok(p)
                    && (host == *d
                        || host
                            .strip_suffix(d.as_str())
                            .is_some_and(|rest| rest.ends_with('.')))
            }
            Bypass::Address(a, p) => ip == Some(*a) && port_ok(p),
            Bypass::Range(net, bits) => ip.is_some_and(|ip| in_range(ip, *net, *bits)),
        })
    }
}

/// Whether `ip` is in `net/bits` (an IPv4 range holds no IPv6 address and the reverse, except
/// that an IPv4-mapped IPv6 address is read as its IPv4 address).
fn in_range(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

/// The entries of a `no_proxy` value; entries that are none of the documented forms are
/// ignored.
fn parse_no_proxy(value: &str) -> Vec<Bypass> {
    let mut out = Vec::new();
    for entry in value
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .take(MAX_NO_PROXY_ENTRIES)
    {
        if let Some(b) = parse_entry(entry) {
            out.push(b);
        }
    }
    out
}

fn parse_entry(entry: &str) -> Option<Bypass> {
    if entry == "*" {
        return Some(Bypass::Everything);
    }
    if let Some((net, bits)) = entry.split_once('/') {
        let net = net
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .ok()?;
        let bits = bits.parse::<u8>().ok()?;
        let max = if net.is_ipv4() { 32 } else { 128 };
        return (bits <= max).then_some(Bypass::Range(net, bits));
    }
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return Some(Bypass::Address(ip, None));
    }
    // `[v6]`, `[v6]:port`, `name:port`, `v4:port`.
    let (host, port) = if let Some(rest) = entry.strip_prefix('[') {
        let (addr, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p.parse::<u16>().ok()?),
            None if after.is_empty() => None,
            None => return None,
        };
        return Some(Bypass::Address(addr.parse().ok()?, port));
    } else {
        match entry.rsplit_once(':') {
            Some((h, p)) => (h, Some(p.parse::<u16>().ok()?)),
            None => (entry, None),
        }
    };
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Some(Bypass::Address(ip, port));
    }
    let name = host
        .trim_start_matches("*.")
        .trim_start_matches('.')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
    {
        return None;
    }
    Some(Bypass::Domain(name, port))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(vars: &[(&str, &str)]) -> ProxyEnv {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ProxyEnv::from_lookup(|n| map.get(n).cloned())
    }

    fn via(e: &ProxyEnv, https: bool, host: &str, port: u16) -> Option<String> {
        e.select(https, host, port).map(|c| c.url)
    }

    #[test]
    fn the_scheme_picks_the_variable() {
        let e = env(&[
            ("https_proxy", "http://tls-proxy:3128"),
            ("http_proxy", "http://plain-proxy:3128"),
        ]);
        assert_eq!(
            via(&e, true, "osv.dev", 443).as_deref(),
            Some("http://tls-proxy:3128")
        );
        assert_eq!(
            via(&e, false, "osv.dev", 80).as_deref(),
            Some("http://plain-proxy:3128")
        );
        // Only an https proxy: plain http goes direct.
        let e = env(&[("HTTPS_PROXY", "http://p:1")]);
        assert_eq!(via(&e, true, "a", 443).as_deref(), Some("http://p:1"));
        assert_eq!(via(&e, false, "a", 80), None);
        assert_eq!(e.select(true, "a", 443).unwrap().variable, "HTTPS_PROXY");
    }

    #[test]
    fn lowercase_wins_and_uppercase_http_proxy_is_ignored() {
        let e = env(&[
            ("https_proxy", "http://lower:1"),
            ("HTTPS_PROXY", "http://upper:1"),
        ]);
        assert_eq!(via(&e, true, "a", 443).as_deref(), Some("http://lower:1"));
        let e = env(&[("HTTP_PROXY", "http://httpoxy:1")]);
        assert_eq!(via(&e, false, "a", 80), None);
        assert!(e.is_empty());
        // An empty value is unset.
        let e = env(&[("https_proxy", " "), ("HTTPS_PROXY", "http://upper:1")]);
        assert_eq!(via(&e, true, "a", 443).as_deref(), Some("http://upper:1"));
    }

    #[test]
    fn all_proxy_is_the_fallback() {
        let e = env(&[
            ("ALL_PROXY", "http://all:1"),
            ("http_proxy", "http://plain:1"),
        ]);
        assert_eq!(via(&e, true, "a", 443).as_deref(), Some("http://all:1"));
        assert_eq!(via(&e, false, "a", 80).as_deref(), Some("http://plain:1"));
        let e = env(&[("all_proxy", "http://low:1"), ("ALL_PROXY", "http://up:1")]);
        assert_eq!(via(&e, false, "a", 80).as_deref(), Some("http://low:1"));
        assert_eq!(via(&env(&[]), true, "a", 443), None);
    }

    #[test]
    fn no_proxy_forms() {
        let set = |np: &str| env(&[("https_proxy", "http://p:1"), ("no_proxy", np)]);
        let direct = |np: &str, host: &str, port: u16| via(&set(np), true, host, port).is_none();
        // `*`: everything direct, alone or as one entry of a list.
        assert!(direct("*", "anything.example", 443));
        assert!(direct(" x.org , * ", "anything.example", 443));
        // Names match themselves and their subdomains, with or without a leading dot.
        for np in [
            "example.com",
            ".example.com",
            "*.example.com",
            "EXAMPLE.com.",
        ] {
            assert!(direct(np, "example.com", 443), "{np}");
            assert!(direct(np, "a.b.Example.COM", 443), "{np}");
            assert!(!direct(np, "notexample.com", 443), "{np}");
            assert!(!direct(np, "example.com.evil", 443), "{np}");
        }
        assert!(direct("example.com", "example.com.", 443));
        // host:port only for that port.
        assert!(direct("osv.internal:8443", "osv.internal", 8443));
        assert!(!direct("osv.internal:8443", "osv.internal", 443));
        // Addresses, v4 and v6, bare, bracketed, with ports.
        assert!(direct("127.0.0.1", "127.0.0.1", 80));
        assert!(!direct("127.0.0.1", "127.0.0.2", 80));
        assert!(direct("127.0.0.1:8080", "127.0.0.1", 8080));
        assert!(!direct("127.0.0.1:8080", "127.0.0.1", 8081));
        assert!(direct("::1", "[::1]", 443));
        assert!(direct("[::1]", "[::1]", 443));
        assert!(direct("[::1]:8080", "[::1]", 8080));
        assert!(!direct("[::1]:8080", "[::1]", 443));
        // A name entry never matches an address and the reverse.
        assert!(!direct("0.1", "10.0.0.1", 80));
        // CIDR ranges.
        assert!(direct("10.0.0.0/8", "10.200.3.4", 80));
        assert!(!direct("10.0.0.0/8", "11.0.0.1", 80));
        assert!(direct("192.168.1.0/24", "192.168.1.77", 80));
        assert!(!direct("192.168.1.0/24", "192.168.2.1", 80));
        assert!(direct("0.0.0.0/0", "8.8.8.8", 80));
        assert!(direct("fd00::/8", "[fd12::1]", 80));
        assert!(!direct("fd00::/8", "[fe80::1]", 80));
        assert!(direct("127.0.0.0/8", "[::ffff:127.0.0.1]", 80));
        assert!(!direct("10.0.0.0/8", "[fd00::1]", 80));
        // Malformed entries are ignored, the good ones kept.
        assert!(direct(
            "10.0.0.0/99, bad entry, x:notaport, ok.example",
            "ok.example",
            443
        ));
        assert!(!direct("10.0.0.0/99, bad entry", "10.0.0.1", 443));
        // NO_PROXY is read when no_proxy is unset.
        let e = env(&[("https_proxy", "http://p:1"), ("NO_PROXY", "osv.dev")]);
        assert_eq!(via(&e, true, "osv.dev", 443), None);
        // A bypass does not apply with no proxy set anyway.
        let e = env(&[("no_proxy", "*")]);
        assert_eq!(via(&e, true, "a", 443), None);
    }

    #[test]
    fn credentials_are_kept_for_the_client_and_never_shown() {
        let e = env(&[("https_proxy", "http://alice:s3cret@proxy.corp:3128/")]);
        let c = e.select(true, "osv.dev", 443).unwrap();
        assert_eq!(c.url, "http://alice:s3cret@proxy.corp:3128/");
        assert_eq!(c.shown(), "http://proxy.corp:3128");
        assert!(!format!("{c:?}").contains("s3cret"));
        assert!(!format!("{e:?}").contains("s3cret"));
        assert!(!format!("{e:?}").contains("alice"));
        let e = env(&[("https_proxy", "http://u:pa/ss?x@proxy.corp:3128")]);
        let shown = e.select(true, "a", 443).unwrap().shown();
        assert_eq!(shown, "http://proxy.corp:3128");
        // Without a scheme the proxy is http://, as curl reads it.
        let e = env(&[("http_proxy", "bob:pw@proxy.corp:8080")]);
        assert_eq!(
            e.select(false, "a", 80).unwrap().shown(),
            "http://proxy.corp:8080"
        );
    }
}
