//! Fetching OSV's exports on a schedule: for each configured ecosystem, `GET
//! <[dtrack.osv] base_url>/<ecosystem>/all.zip` (HTTP/1.1 over TCP, TLS with the Web PKI roots for
//! `https://`), streamed to a temporary file in the data directory within
//! [`MAX_DOWNLOAD_BYTES`], then imported as `dtrack import-osv` would. Once an ecosystem has
//! been imported whole, later runs read its `modified_id.csv` and fetch only the records
//! changed since (`<ID>.json`), falling back to the whole export when the list is missing.
//!
//! The download runs on a blocking thread with timeouts; a failure is logged and the next
//! ecosystem goes on. Must not touch HTTP server types or SQL.

use std::io::{BufRead as _, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::domain::core::Core;

/// Largest export downloaded (npm's is the largest, well below this).
pub const MAX_DOWNLOAD_BYTES: u64 = 2 * 1024 * 1024 * 1024;
const TIMEOUT: Duration = Duration::from_secs(60);
const MAX_HEADER_LINES: usize = 100;
const MAX_LINE: usize = 8 * 1024;

/// An `http://` or `https://` URL split for a request.
#[derive(Debug, PartialEq)]
struct Url {
    tls: bool,
    host: String,
    port: u16,
    path: String,
}

fn parse_url(url: &str) -> Result<Url, String> {
    let (tls, rest) = if let Some(r) = url.strip_prefix("https://") {
        (true, r)
    } else if let Some(r) = url.strip_prefix("http://") {
        (false, r)
    } else {
        return Err(format!("{url}: not an http:// or https:// URL"));
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
            h,
            p.parse::<u16>()
                .map_err(|_| format!("{url}: bad port {p:?}"))?,
        ),
        _ => (authority, if tls { 443 } else { 80 }),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() || authority.contains('@') {
        return Err(format!("{url}: no usable host"));
    }
    Ok(Url {
        tls,
        host: host.to_string(),
        port,
        path: path.to_string(),
    })
}

trait Stream: Read + Write {}
impl<T: Read + Write> Stream for T {}

fn connect(url: &Url) -> Result<Box<dyn Stream>, String> {
    let addr = (url.host.as_str(), url.port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {}: {e}", url.host))?
        .next()
        .ok_or_else(|| format!("cannot resolve {}", url.host))?;
    let tcp = TcpStream::connect_timeout(&addr, TIMEOUT)
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    tcp.set_read_timeout(Some(TIMEOUT))
        .and_then(|_| tcp.set_write_timeout(Some(TIMEOUT)))
        .map_err(|e| e.to_string())?;
    if !url.tls {
        return Ok(Box::new(tcp));
    }
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from(url.host.clone())
        .map_err(|e| format!("{}: {e}", url.host))?;
    let conn = rustls::ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())?;
    Ok(Box::new(rustls::StreamOwned::new(conn, tcp)))
}

/// One header line (without its CRLF), within [`MAX_LINE`].
fn line(r: &mut impl std::io::BufRead) -> Result<String, String> {
    let mut buf = Vec::new();
    r.take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf)
        .map_err(|e| format!("reading the response: {e}"))?;
    if buf.len() > MAX_LINE || !buf.ends_with(b"\n") {
        return Err("a malformed or overlong response line".into());
    }
    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        buf.pop();
    }
    String::from_utf8(buf).map_err(|_| "a response line that is not UTF-8".into())
}

/// Copies exactly `n` bytes (or, with `None`, to the end) into `out`, counting against `left`.
fn copy(
    r: &mut impl Read,
    out: &mut impl Write,
    n: Option<u64>,
    left: &mut u64,
) -> Result<(), String> {
    let limit = n.unwrap_or(u64::MAX).min(*left + 1);
    let copied = std::io::copy(&mut r.take(limit), out).map_err(|e| format!("downloading: {e}"))?;
    if copied > *left {
        return Err(format!("larger than {MAX_DOWNLOAD_BYTES} bytes"));
    }
    if let Some(n) = n
        && copied != n
    {
        return Err("the download ended early".into());
    }
    *left -= copied;
    Ok(())
}

/// `GET url` into `dest` (created new); the number of bytes written.
pub fn download(url: &str, dest: &Path) -> Result<u64, String> {
    let u = parse_url(url)?;
    let mut stream = connect(&u)?;
    let host = if (u.tls && u.port == 443) || (!u.tls && u.port == 80) {
        u.host.clone()
    } else {
        format!("{}:{}", u.host, u.port)
    };
    write!(
        stream,
        "GET {} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: outpost\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n",
        u.path
    )
    .and_then(|_| stream.flush())
    .map_err(|e| format!("sending the request: {e}"))?;
    let mut r = BufReader::new(stream);
    let status = line(&mut r)?;
    let code = status.split(' ').nth(1).unwrap_or("");
    if !status.starts_with("HTTP/1.") || code != "200" {
        return Err(format!("{url}: {status}"));
    }
    let (mut length, mut chunked) = (None, false);
    for i in 0.. {
        if i == MAX_HEADER_LINES {
            return Err("too many response headers".into());
        }
        let h = line(&mut r)?;
        if h.is_empty() {
            break;
        }
        let Some((k, v)) = h.split_once(':') else {
            continue;
        };
        let v = v.trim();
        if k.eq_ignore_ascii_case("content-length") {
            length = Some(v.parse::<u64>().map_err(|_| "a bad Content-Length")?);
        } else if k.eq_ignore_ascii_case("transfer-encoding") {
            chunked = v.eq_ignore_ascii_case("chunked");
            if !chunked {
                return Err(format!("unsupported Transfer-Encoding {v:?}"));
            }
        }
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dest)
        .map_err(|e| format!("cannot create {}: {e}", dest.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let mut left = MAX_DOWNLOAD_BYTES;
    if chunked {
        loop {
            let size_line = line(&mut r)?;
            let size = size_line.split(';').next().unwrap_or("").trim();
            let size = u64::from_str_radix(size, 16).map_err(|_| "a bad chunk size")?;
            if size == 0 {
                break;
            }
            copy(&mut r, &mut out, Some(size), &mut left)?;
            if !line(&mut r)?.is_empty() {
                return Err("a chunk without its line end".into());
            }
        }
    } else {
        copy(&mut r, &mut out, length, &mut left)?;
    }
    out.flush()
        .map_err(|e| format!("writing {}: {e}", dest.display()))?;
    Ok(MAX_DOWNLOAD_BYTES - left)
}

/// The configured ecosystems.
fn ecosystems(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_string)
        .collect()
}

/// Records fetched one by one at most; more changes than this fetch the whole export.
const MAX_INCREMENTAL: usize = 2_000;

/// Ids usable in a URL path and a file name.
fn safe_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 255
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b))
}

/// The ids of `modified_id.csv` (`<RFC 3339 time>,<id>`, newest first) that are newer than
/// what is stored, up to the first one already current; `None` when the list is unusable or
/// names more than [`MAX_INCREMENTAL`] changes.
async fn changed_ids(state: &Core, csv: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(csv).ok()?;
    let mut entries = Vec::new();
    for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (time, id) = l.split_once(',')?;
        let at = crate::time::parse_rfc3339_millis(time)?;
        if !safe_id(id.trim()) {
            return None;
        }
        entries.push((at, id.trim().to_string()));
    }
    state
        .db
        .read(move |c| {
            let mut out = Vec::new();
            for (at, id) in entries {
                let stored = crate::db::dtrack_osv::record(c, &id)?
                    .and_then(|(_, m)| crate::time::parse_rfc3339_millis(&m));
                if stored.is_some_and(|s| s >= at) {
                    break;
                }
                out.push(id);
                if out.len() > MAX_INCREMENTAL {
                    return Ok(None);
                }
            }
            Ok(Some(out))
        })
        .await
        .ok()?
}

/// Fetches and imports one ecosystem: after a first whole export, only the records that
/// `modified_id.csv` lists as changed (each `<ID>.json`); the whole `all.zip` again when the
/// list is missing or long. Temporary files are removed after.
pub async fn sync_ecosystem(state: &Core, base: &str, eco: &str) -> Result<(), String> {
    let dir = state.config.data_dir.join("osv");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let stem = eco.replace(':', "_");
    let synced = dir.join(format!("{stem}.synced"));
    let work = dir.join(format!("{stem}.{}.part", uuid::Uuid::new_v4()));
    std::fs::create_dir(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let outcome = sync_into(state, base, eco, &work, synced.exists()).await;
    let _ = std::fs::remove_dir_all(&work);
    if outcome.is_ok() {
        std::fs::write(&synced, b"")
            .map_err(|e| format!("cannot write {}: {e}", synced.display()))?;
    }
    outcome
}

async fn get(url: String, dest: PathBuf) -> Result<u64, String> {
    tokio::task::spawn_blocking(move || download(&url, &dest))
        .await
        .map_err(|_| "the download panicked".to_string())?
}

async fn sync_into(
    state: &Core,
    base: &str,
    eco: &str,
    work: &Path,
    incremental: bool,
) -> Result<(), String> {
    // Names such as `Red Hat` and `GitHub Actions` are one path segment.
    let eco = &eco.replace(' ', "%20");
    if incremental {
        let csv = work.join("modified_id.csv");
        let listed = match get(format!("{base}/{eco}/modified_id.csv"), csv.clone()).await {
            Ok(_) => changed_ids(state, &csv).await,
            Err(e) => {
                tracing::info!(ecosystem = eco, error = %e, "no usable modified_id.csv; fetching the whole export");
                None
            }
        };
        if let Some(ids) = listed {
            let records = work.join("records");
            std::fs::create_dir(&records).map_err(|e| e.to_string())?;
            for id in &ids {
                get(
                    format!("{base}/{eco}/{id}.json"),
                    records.join(format!("{id}.json")),
                )
                .await?;
            }
            tracing::info!(
                ecosystem = eco,
                records = ids.len(),
                "OSV changes downloaded"
            );
            return super::import::import_path(state, &records)
                .await
                .map(|_| ())
                .map_err(|e| e.to_string());
        }
    }
    let zip = work.join("all.zip");
    let bytes = get(format!("{base}/{eco}/all.zip"), zip.clone()).await?;
    tracing::info!(ecosystem = eco, bytes, "OSV export downloaded");
    super::import::import_path(state, &zip)
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The scheduled fetcher: every `[dtrack.osv] interval`, each configured ecosystem in turn, until
/// `stop` resolves. Does nothing without a base URL and ecosystems.
pub async fn worker(state: Arc<Core>, mut stop: tokio::sync::watch::Receiver<bool>) {
    let cfg = &state.config.dtrack;
    let base = cfg.osv_base_url.trim_end_matches('/').to_string();
    let ecos = ecosystems(&cfg.osv_ecosystems);
    if base.is_empty() || ecos.is_empty() {
        return;
    }
    loop {
        for eco in &ecos {
            if *stop.borrow() {
                return;
            }
            if let Err(e) = sync_ecosystem(&state, &base, eco).await {
                tracing::error!(ecosystem = %eco, error = %e, "OSV fetch failed; next try at the next interval");
            }
        }
        tokio::select! {
            _ = stop.changed() => return,
            _ = tokio::time::sleep(cfg.osv_interval) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_for_requests() {
        assert_eq!(
            parse_url("https://osv.example/npm/all.zip").unwrap(),
            Url {
                tls: true,
                host: "osv.example".into(),
                port: 443,
                path: "/npm/all.zip".into()
            }
        );
        let u = parse_url("http://127.0.0.1:8080/a").unwrap();
        assert_eq!((u.tls, u.host.as_str(), u.port), (false, "127.0.0.1", 8080));
        assert!(parse_url("ftp://x/y").is_err());
        assert!(parse_url("http://user@host/").is_err());
        assert!(parse_url("http://host:99999/").is_err());
    }

    #[test]
    fn ecosystem_lists_are_comma_separated() {
        assert_eq!(ecosystems(" npm, PyPI ,,"), vec!["npm", "PyPI"]);
    }
}
