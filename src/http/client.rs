//! A small outgoing HTTP/1.1 client for one POST at a time (outgoing webhooks): http and https
//! (rustls with the webpki roots, no system OpenSSL), a bound on the whole exchange's time and
//! on the answer's size, and a destination check that refuses non-public addresses unless
//! allowed. The address checked is the address connected to, so a name cannot resolve to a
//! public address for the check and a private one for the connection.
//!
//! Transport only: knows nothing of what is posted or what the answer means.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls;

/// Why a POST got no answer.
#[derive(Debug, PartialEq)]
pub enum PostError {
    /// The URL is not an absolute http(s) URL with a host.
    BadUrl,
    /// The host resolves only to addresses the caller did not allow (loopback, private...).
    Refused,
    /// The exchange did not finish in time.
    Timeout,
    /// The host could not be resolved or reached, or the connection failed.
    Connect(String),
    /// The answer's body was larger than allowed.
    TooLarge,
}

impl std::fmt::Display for PostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PostError::BadUrl => f.write_str("the URL is not an http or https URL"),
            PostError::Refused => f.write_str("the URL's host is a private or disallowed address"),
            PostError::Timeout => f.write_str("the request timed out"),
            PostError::Connect(e) => write!(f, "connection failed: {e}"),
            PostError::TooLarge => f.write_str("the response was too large"),
        }
    }
}

/// An answer: status code and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

/// One POST to make.
pub struct Post<'a> {
    pub url: &'a str,
    pub content_type: &'a str,
    pub user_agent: &'a str,
    pub body: Vec<u8>,
    /// The whole exchange: resolving, connecting, TLS, sending and reading the answer.
    pub timeout: Duration,
    /// The answer's body may be at most this many bytes.
    pub max_answer: usize,
    /// Whether loopback, private, link-local and other non-public addresses may be used.
    pub allow_private: bool,
}

/// A reusable client (holds the TLS configuration).
#[derive(Clone)]
pub struct Client {
    tls: Arc<rustls::ClientConfig>,
}

impl Default for Client {
    fn default() -> Self {
        Client::new()
    }
}

impl Client {
    pub fn new() -> Client {
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map(|b| b.with_root_certificates(roots).with_no_client_auth())
            // The ring provider supports the default versions; this cannot fail.
            .unwrap_or_else(|_| {
                rustls::ClientConfig::builder()
                    .with_root_certificates(rustls::RootCertStore::empty())
                    .with_no_client_auth()
            });
        Client { tls: Arc::new(tls) }
    }

    /// Makes the POST, bounded by `post.timeout` in all.
    pub async fn post(&self, post: Post<'_>) -> Result<Answer, PostError> {
        match tokio::time::timeout(post.timeout, self.exchange(&post)).await {
            Ok(r) => r,
            Err(_) => Err(PostError::Timeout),
        }
    }

    async fn exchange(&self, post: &Post<'_>) -> Result<Answer, PostError> {
        let url = parse_url(post.url).ok_or(PostError::BadUrl)?;
        let addr = resolve(&url.host, url.port, post.allow_private).await?;
        let tcp = TcpStream::connect(addr)
            .await
            .map_err(|e| PostError::Connect(e.to_string()))?;
        let _ = tcp.set_nodelay(true);
        let request = Request::post(url.target.as_str())
            .header(hyper::header::HOST, url.host_header())
            .header(hyper::header::USER_AGENT, post.user_agent)
            .header(hyper::header::CONTENT_TYPE, post.content_type)
            .header(hyper::header::ACCEPT, "*/*")
            .body(Full::new(Bytes::from(post.body.clone())))
            .map_err(|_| PostError::BadUrl)?;
        if url.https {
            let name = rustls::pki_types::ServerName::try_from(url.host.clone())
                .map_err(|_| PostError::BadUrl)?;
            let tls = TlsConnector::from(Arc::clone(&self.tls))
                .connect(name, tcp)
                .await
                .map_err(|e| PostError::Connect(e.to_string()))?;
            send(TokioIo::new(tls), request, post.max_answer).await
        } else {
            send(TokioIo::new(tcp), request, post.max_answer).await
        }
    }
}

async fn send<T>(io: T, request: Request<Full<Bytes>>, max: usize) -> Result<Answer, PostError>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, conn) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|e| PostError::Connect(e.to_string()))?;
    let driver = tokio::spawn(async move {
        let _ = conn.await;
    });
    let result = async {
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| PostError::Connect(e.to_string()))?;
        let status = response.status().as_u16();
        let mut body = response.into_body();
        let mut out = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| PostError::Connect(e.to_string()))?;
            if let Some(data) = frame.data_ref() {
                if out.len() + data.len() > max {
                    return Err(PostError::TooLarge);
                }
                out.extend_from_slice(data);
            }
        }
        Ok(Answer { status, body: out })
    }
    .await;
    driver.abort();
    result
}

/// The parts of an http(s) URL a request needs.
#[derive(Debug, PartialEq)]
struct Url {
    https: bool,
    /// Without brackets for IPv6.
    host: String,
    port: u16,
    /// Path and query, at least `/`.
    target: String,
    explicit_port: bool,
}

impl Url {
    fn host_header(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.explicit_port {
            format!("{host}:{}", self.port)
        } else {
            host
        }
    }
}

fn parse_url(url: &str) -> Option<Url> {
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let (https, rest) = if url.len() > 8 && url[..8].eq_ignore_ascii_case("https://") {
        (true, &url[8..])
    } else if url.len() > 7 && url[..7].eq_ignore_ascii_case("http://") {
        (false, &url[7..])
    } else {
        return None;
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let mut target = rest[end..].split('#').next().unwrap_or("").to_string();
    if !target.starts_with('/') {
        target.insert(0, '/');
    }
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6.split_once(']')?;
        (h.to_string(), after.strip_prefix(':'))
    } else {
        match authority.split_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    if host.is_empty() {
        return None;
    }
    let default = if https { 443 } else { 80 };
    let (port, explicit_port) = match port {
        None | Some("") => (default, false),
        Some(p) => (p.parse().ok()?, true),
    };
    Some(Url {
        https,
        host: host.to_ascii_lowercase(),
        port,
        target,
        explicit_port,
    })
}

/// The first address of `host` that may be used.
async fn resolve(host: &str, port: u16, allow_private: bool) -> Result<SocketAddr, PostError> {
    let addrs: Vec<SocketAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| PostError::Connect(format!("cannot resolve {host}: {e}")))?
            .collect(),
    };
    if addrs.is_empty() {
        return Err(PostError::Connect(format!("{host} has no address")));
    }
    addrs
        .into_iter()
        .find(|a| allow_private || is_public(a.ip()))
        .ok_or(PostError::Refused)
}

/// Whether an address is a public unicast address (not loopback, private, link-local, shared,
/// documentation, multicast, unspecified or otherwise reserved).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_multicast()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (b == 18 || b == 19))
        || a >= 240)
}

/// IPv6 is public only inside global unicast (`2000::/3`), outside the special-purpose blocks
/// there; addresses that carry an IPv4 address for a translator (NAT64, SIIT, 6to4) are judged
/// by the IPv4 address they lead to.
fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = translated_v4(ip) {
        return is_public_v4(v4);
    }
    let s = ip.segments();
    (s[0] & 0xe000) == 0x2000
        && !(s[0] == 0x2001 && (s[1] < 0x0200 || s[1] == 0x0db8))
        && !(s[0] == 0x3fff && s[1] < 0x1000)
}

/// The IPv4 address a translated IPv6 address reaches: NAT64's well-known prefix
/// `64:ff9b::/96`, SIIT's `::ffff:0:0/96` and 6to4's `2002::/16`. (`::ffff:a.b.c.d` is
/// `to_ipv4_mapped`'s; the local-use NAT64 prefix `64:ff9b:1::/48`, Teredo `2001::/32` and
/// the rest are outside what `is_public_v6` accepts anyway.)
fn translated_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let o = ip.octets();
    match ip.segments() {
        [0x0064, 0xff9b, 0, 0, 0, 0, _, _] | [0, 0, 0, 0, 0xffff, 0, _, _] => {
            Some(Ipv4Addr::new(o[12], o[13], o[14], o[15]))
        }
        [0x2002, ..] => Some(Ipv4Addr::new(o[2], o[3], o[4], o[5])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_split() {
        let u = parse_url("https://Example.com/hook?x=1#frag").unwrap();
        assert_eq!(
            (u.https, u.host.as_str(), u.port, u.target.as_str()),
            (true, "example.com", 443, "/hook?x=1")
        );
        let u = parse_url("http://127.0.0.1:8080").unwrap();
        assert_eq!((u.port, u.target.as_str()), (8080, "/"));
        assert_eq!(u.host_header(), "127.0.0.1:8080");
        let u = parse_url("http://[::1]:99/x").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 99));
        assert_eq!(u.host_header(), "[::1]:99");
        assert!(parse_url("ftp://example.com/").is_none());
        assert!(parse_url("http://").is_none());
        assert!(parse_url("http://a b/").is_none());
        assert!(parse_url("http://host:99999/").is_none());
    }

    #[test]
    fn private_addresses_are_not_public() {
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            // Translated forms of private addresses, and special-purpose IPv6 blocks.
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::10.0.0.1",
            "64:ff9b:1::8.8.8.8",
            "::ffff:0:192.168.0.1",
            "2002:7f00:1::1",
            "2002:c0a8:101::",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:10::1",
            "100::1",
            "fec0::1",
            "3fff::1",
            "::7f00:1",
            "ff02::1",
        ] {
            assert!(!is_public(a.parse().unwrap()), "{a}");
        }
        for a in [
            "93.184.216.34",
            "2606:4700::1111",
            "8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2002:808:808::1",
            "2a00:1450::1",
        ] {
            assert!(is_public(a.parse().unwrap()), "{a}");
        }
    }

    #[tokio::test]
    async fn names_resolving_to_private_addresses_are_refused_unless_allowed() {
        assert_eq!(
            resolve("localhost", 80, false).await,
            Err(PostError::Refused)
        );
        assert_eq!(
            resolve("127.0.0.1", 80, false).await,
            Err(PostError::Refused)
        );
        let a = resolve("127.0.0.1", 8080, true).await.unwrap();
        assert_eq!(a, "127.0.0.1:8080".parse().unwrap());
    }

    /// An https URL speaks TLS: against a listener that answers plain HTTP the handshake fails
    /// (a connection error, which the caller retries), and nothing is read as an answer.
    #[tokio::test]
    async fn https_urls_go_through_a_tls_handshake() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut first = [0u8; 1];
            s.read_exact(&mut first).await.unwrap();
            let _ = s
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
                .await;
            // A TLS record starts with the handshake content type, 22.
            first[0]
        });
        let url = format!("https://127.0.0.1:{port}/hook");
        let r = Client::new()
            .post(Post {
                url: &url,
                content_type: "application/json",
                user_agent: "test",
                body: b"{}".to_vec(),
                timeout: Duration::from_secs(5),
                max_answer: 1024,
                allow_private: true,
            })
            .await;
        assert!(matches!(r, Err(PostError::Connect(_))), "{r:?}");
        assert_eq!(server.await.unwrap(), 22);
    }
}
